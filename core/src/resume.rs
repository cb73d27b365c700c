//! Paused runs, resumption and replay: the journal of a run's answered calls
//! (spec/reference/durable-runs.md).
//!
//! The machine is never serialised (the design's rule). It is deterministic given its
//! program, inputs, budgets and the answers its calls got, so a [`RunJournal`] — the script,
//! its inputs, the fingerprint of its roster, its budgets and every answered call — restores
//! any run: [`crate::Envelope::resume`] re-runs the script from the start and answers each
//! call the journal holds from the journal, with no permission ask and no dispatch.
//!
//! Calls are matched by their ordinal, the `N` of their id `ENVELOPE/N`. The ordinal is a
//! function of the program and the answers alone: a suspension (one call or one `parallel`
//! batch, its members in source order) resumes only when every member has ended, so the
//! order in which answers *arrive* never changes which call gets which number. Each
//! replayed call must also be the same tool with equal arguments; anything else —
//! another tool, other arguments, a call the journal does not hold where it holds a later
//! one, a run that ends with journaled calls unmade — settles `replay-diverged`, naming the
//! first differing call. A journaled call is never dispatched again.
//!
//! Invariants:
//! - A journal is recorded only when the host asks for it
//!   ([`crate::EnvelopeOptions::record`]); a run that does not record cannot pause.
//! - Replayed answers go through the same path as live ones, so the audit, the notes and
//!   the fuel of a resumed run are those of the uninterrupted run.
//! - A journal is data from outside: every field is checked before it is trusted (format,
//!   budgets, roster, decisions naming pending calls), and a bad one settles the run with
//!   kind `resume` before anything runs.

use crate::catalog::ToolResult;
use ptc_vm::Limits;
use serde::{Deserialize, Serialize};
use serde_json::Value as Json;

/// The journal format this build writes and reads.
pub const FORMAT: u32 = 1;

/// Everything needed to re-run a run: see the module docs. Serialises to JSON; a host
/// stores it wherever it likes (a file, a database row, a page's hidden field is *not*
/// advisable: it holds every tool result).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunJournal {
    /// [`FORMAT`].
    pub format: u32,
    /// The envelope id; a resumed run keeps it, so its calls keep their ids.
    pub id: String,
    /// The script.
    pub script: String,
    /// The declared inputs, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub inputs: Vec<String>,
    /// The inputs' values.
    #[serde(default, skip_serializing_if = "serde_json::Map::is_empty")]
    pub values: serde_json::Map<String, Json>,
    /// The fingerprint of the roster the script ran against, in hex
    /// ([`crate::script::roster_fingerprint`]).
    pub roster: String,
    /// The budgets it ran under; a resumption must give equal ones.
    pub limits: Limits,
    /// Milliseconds the run had been live (paused time is not counted): a resumed run's
    /// `seconds` budget is what remains of it.
    #[serde(default)]
    pub elapsed_ms: u64,
    /// Every call answered (or denied) by the host, in the order the answers came.
    pub calls: Vec<JournalEntry>,
    /// The calls awaiting a person's decision, when the run paused.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pending: Vec<PendingCall>,
    /// The outcome's wire name, once the run settled (for `ptc replay`'s comparison).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<String>,
    /// The model-facing text it settled with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

/// One answered call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JournalEntry {
    /// The call's ordinal, from 1 (the `N` of `ENVELOPE/N`).
    pub index: u64,
    /// The tool.
    pub tool: String,
    /// The converted, validated arguments it was dispatched with.
    pub arguments: Json,
    /// What the host answered.
    pub answer: Answer,
}

/// A host's answer to one call, as the envelope received it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Answer {
    /// The tool's result (an `is_error` result included).
    Result {
        /// The result.
        result: ToolResult,
    },
    /// The call failed on the host's side or timed out: the guest's `(:error MESSAGE)`.
    Error {
        /// The message, with its `Error: ` prefix.
        message: String,
    },
    /// The permission policy (or a person) denied the call, which ended the run.
    Denied {
        /// The reason the model read.
        reason: String,
    },
}

/// A call a paused run waits on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PendingCall {
    /// The call's id, `ENVELOPE/N`.
    pub id: String,
    /// Its ordinal `N`.
    pub index: u64,
    /// The tool.
    pub tool: String,
    /// The converted, validated arguments.
    pub arguments: Json,
}

/// A person's decision on a pending call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Approval {
    /// Dispatch it.
    Allow,
    /// Refuse it, with the reason the model reads: the seed's denial semantics.
    Deny(String),
}

/// The replay state of a resumed envelope: the journal's answers by ordinal, the pending
/// calls' decisions, and how far the journal reaches.
#[derive(Debug)]
pub(crate) struct Replay {
    /// Answered calls by ordinal, sorted, each taken when replayed.
    entries: Vec<(u64, Option<JournalEntry>)>,
    /// The pending calls with the decision given for each, if any, each taken when met.
    pending: Vec<(PendingCall, Option<Approval>)>,
    /// Whether a call the journal does not answer diverges (`ptc replay`) instead of
    /// running live.
    offline: bool,
}

/// What a replayed run does with one call.
#[derive(Debug)]
pub(crate) enum Replayed {
    /// Answer it from the journal.
    Answer(Answer),
    /// A pending call: apply the decision (`None`: ask again).
    Decide(Option<Approval>),
    /// Not in the journal: run it live. (A call the journal skips below a later answered
    /// one — a sibling cancelled by a denial, an entry a store lost — is asked again: the
    /// host's policy decides, nothing is assumed.)
    Live,
    /// Not in the journal, in an offline replay: the run diverges unless a journaled denial
    /// in the same suspension ends it first (as it did when the journal was recorded).
    Unanswered(String),
    /// The run diverged from the journal here.
    Diverged(String),
}

impl Replay {
    /// The replay of `journal`, with `decisions` by pending call id. Each decision must
    /// name a pending call.
    pub(crate) fn new(
        journal: &RunJournal,
        decisions: &[(String, Approval)],
        offline: bool,
    ) -> Result<Replay, String> {
        if let Some((id, _)) = decisions
            .iter()
            .find(|(id, _)| !journal.pending.iter().any(|p| p.id == *id))
        {
            return Err(format!("no call `{id}' awaits a decision in this journal"));
        }
        let mut entries: Vec<JournalEntry> = journal.calls.clone();
        entries.sort_by_key(|entry| entry.index);
        if let Some(pair) = entries.windows(2).find(|w| w[0].index == w[1].index) {
            return Err(format!("the journal answers call {} twice", pair[0].index));
        }
        if entries.iter().any(|entry| entry.index == 0) {
            return Err("the journal holds a call numbered 0".to_owned());
        }
        let pending = journal
            .pending
            .iter()
            .map(|call| {
                let decision = decisions
                    .iter()
                    .find(|(id, _)| *id == call.id)
                    .map(|(_, decision)| decision.clone());
                (call.clone(), decision)
            })
            .collect();
        Ok(Replay {
            entries: entries.into_iter().map(|e| (e.index, Some(e))).collect(),
            pending,
            offline,
        })
    }

    /// What to do with call `index` of `tool` with `arguments`.
    pub(crate) fn meet(&mut self, index: u64, tool: &str, arguments: &Json) -> Replayed {
        let found = self
            .entries
            .binary_search_by_key(&index, |(index, _)| *index);
        if let Ok(at) = found
            && let Some(entry) = self.entries.get_mut(at).and_then(|(_, e)| e.take())
        {
            if entry.tool != tool || entry.arguments != *arguments {
                return Replayed::Diverged(differs(index, &entry.tool, &entry.arguments, tool));
            }
            return Replayed::Answer(entry.answer);
        }
        if let Some(at) = self
            .pending
            .iter()
            .position(|(call, _)| call.index == index)
        {
            let (call, decision) = self.pending.swap_remove(at);
            if call.tool != tool || call.arguments != *arguments {
                return Replayed::Diverged(differs(index, &call.tool, &call.arguments, tool));
            }
            return Replayed::Decide(decision);
        }
        if self.offline {
            return Replayed::Unanswered(format!(
                "call {index} ({tool}) is beyond the journal, and an offline replay runs no tool"
            ));
        }
        Replayed::Live
    }

    /// The first journaled call the run did not make, when it ended.
    pub(crate) fn unmade(&self) -> Option<String> {
        let answered = self
            .entries
            .iter()
            .filter_map(|(_, e)| e.as_ref())
            .map(|e| (e.index, &e.tool));
        let pending = self
            .pending
            .iter()
            .map(|(call, _)| (call.index, &call.tool));
        answered
            .chain(pending)
            .min_by_key(|(index, _)| *index)
            .map(|(index, tool)| {
                format!(
                    "the run ended without making call {index} ({tool}), which the journal holds"
                )
            })
    }
}

/// The divergence message of call `index`.
fn differs(index: u64, tool: &str, arguments: &Json, got: &str) -> String {
    if tool == got {
        let mut shown = arguments.to_string();
        if shown.len() > 200 {
            let mut end = 200;
            while !shown.is_char_boundary(end) {
                end -= 1;
            }
            shown.truncate(end);
            shown.push_str("...");
        }
        format!("call {index} ({tool}) has other arguments than the journal's {shown}")
    } else {
        format!("call {index} is {got}, where the journal has {tool}")
    }
}

/// A roster fingerprint in the journal's hex form.
#[must_use]
pub fn roster_hex(fingerprint: u64) -> String {
    format!("{fingerprint:016x}")
}
