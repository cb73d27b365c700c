//! The envelope's side of durable runs (spec/reference/durable-runs.md): recording the
//! journal of answered calls ([`Recorder`]), pausing a call for a person, settling
//! `paused`, and starting a run from a journal ([`Envelope::resume`], [`Envelope::replay`])
//! that answers each journaled call from the journal (`crate::resume` owns the journal
//! types and the matching rules).
//!
//! Invariants:
//! - Recording is off unless [`EnvelopeOptions::record`](super::EnvelopeOptions::record)
//!   is set; with it off nothing here allocates and a pause is refused.
//! - Every answer the envelope takes from the host or the journal is recorded once, in
//!   arrival order, with the full arguments the call was dispatched with (not the audit's
//!   bounded copy).
//! - A journal that cannot be used settles the run before anything runs (kind `resume`,
//!   or `roster` for other tools).

use super::batch::{Batch, CallState};
use super::{Envelope, EnvelopeConfig, EnvelopeError, Phase};
use crate::audit::{self, Status};
use crate::catalog::ToolResult;
use crate::errors::ErrorKind;
use crate::outcome::{Outcome, OutcomeKind};
use crate::resume::{
    Answer, Approval, FORMAT, JournalEntry, PendingCall, Replay, Replayed, RunJournal, roster_hex,
};
use serde_json::Value as Json;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

/// The journal being recorded.
#[derive(Debug)]
pub(super) struct Recorder {
    script: String,
    roster: u64,
    inputs: Vec<String>,
    values: serde_json::Map<String, Json>,
    /// The answered calls, in arrival order.
    entries: Vec<JournalEntry>,
    /// The full arguments of every launched call not yet answered, by call index.
    arguments: BTreeMap<usize, Arc<Json>>,
}

impl Recorder {
    pub(super) fn new(script: &str, roster: u64) -> Box<Recorder> {
        Box::new(Recorder {
            script: script.to_owned(),
            roster,
            inputs: Vec::new(),
            values: serde_json::Map::new(),
            entries: Vec::new(),
            arguments: BTreeMap::new(),
        })
    }
}

/// Why launching a replayed call stopped the batch.
#[derive(Debug)]
pub(super) enum Stop {
    /// The journal's decision denies call `.0` with reason `.1`.
    Deny(usize, String),
    /// The run diverged from the journal.
    Diverged(String),
}

impl Envelope {
    fn recorder(&mut self) -> Option<&mut Recorder> {
        self.cold.as_mut()?.recorder.as_deref_mut()
    }

    /// Records the roster fingerprint of the script being run.
    pub(super) fn record_roster(&mut self, roster: u64) {
        if let Some(recorder) = self.recorder() {
            recorder.roster = roster;
        }
    }

    /// Records the declared inputs and their values.
    pub(super) fn record_inputs(
        &mut self,
        names: &[String],
        values: &serde_json::Map<String, Json>,
    ) {
        if let Some(recorder) = self.recorder() {
            recorder.inputs = names.to_vec();
            recorder.values = values.clone();
        }
    }

    /// Keeps the full arguments of launched call `call` for its journal entry.
    pub(super) fn record_launch(&mut self, call: usize, arguments: &Arc<Json>) {
        if let Some(recorder) = self.recorder() {
            recorder.arguments.insert(call, Arc::clone(arguments));
        }
    }

    /// Records call `call`'s answer.
    fn record(&mut self, call: usize, answer: impl FnOnce() -> Answer) {
        // Nothing is built (not even the tool's name) for a run that does not record.
        if self.recorder().is_none() {
            return;
        }
        let tool = self.calls.get(call).map(|c| c.tool.to_string());
        let Some(recorder) = self.recorder() else {
            return;
        };
        let Some(arguments) = recorder.arguments.remove(&call) else {
            return;
        };
        recorder.entries.push(JournalEntry {
            index: call as u64 + 1,
            tool: tool.unwrap_or_default(),
            arguments: Arc::unwrap_or_clone(arguments),
            answer: answer(),
        });
    }

    /// Records call `call`'s result.
    pub(super) fn record_result(&mut self, call: usize, result: &ToolResult) {
        self.record(call, || Answer::Result {
            result: result.clone(),
        });
    }

    /// Records call `call`'s failure (`message` with its `Error: ` prefix).
    pub(super) fn record_error(&mut self, call: usize, message: &str) {
        self.record(call, || Answer::Error {
            message: message.to_owned(),
        });
    }

    /// Records the denial of call `call`.
    pub(super) fn record_denial(&mut self, call: usize, reason: &str) {
        self.record(call, || Answer::Denied {
            reason: reason.to_owned(),
        });
    }

    /// What a resumed run does with launched call `call`; [`Replayed::Live`] when the run
    /// is not resumed.
    pub(super) fn replay_meet(&mut self, call: usize, arguments: &Json) -> Replayed {
        let tool = self.tool_of_call(call);
        match self.cold.as_mut().and_then(|cold| cold.replay.as_mut()) {
            Some(replay) => replay.meet(call as u64 + 1, &tool, arguments),
            None => Replayed::Live,
        }
    }

    fn tool_of_call(&self, call: usize) -> Arc<str> {
        self.calls
            .get(call)
            .map_or_else(|| Arc::from(""), |c| Arc::clone(&c.tool))
    }

    /// Pauses call `id`, which awaits its permission decision, for a person: the call
    /// takes no slot, its siblings go on, and once nothing else is out the envelope settles
    /// `paused` with the journal ([`Outcome::journal`]) a host resumes it from
    /// ([`Envelope::resume`]).
    ///
    /// # Errors
    /// As [`Envelope::allow`]; [`EnvelopeError::NotRecorded`] when the run keeps no
    /// journal.
    pub fn pause(&mut self, id: &str) -> Result<(), EnvelopeError> {
        let call = self.expect(id, "a permission decision", |s| *s == CallState::Asking)?;
        if self.recorder().is_none() {
            return Err(EnvelopeError::NotRecorded);
        }
        self.set(
            call,
            Status::Paused,
            Some("Awaiting a person's decision".to_owned()),
        );
        if let Some(mut batch) = self.take_batch() {
            batch.set_state(call, CallState::Paused);
            batch.done += 1;
            self.phase = Phase::Calls(batch);
        }
        self.set_waiting(call, false);
        self.report(true);
        Ok(())
    }

    /// Whether the finished `batch` holds a paused call.
    pub(super) fn holds_paused(batch: &Batch) -> bool {
        batch
            .slots
            .iter()
            .any(|slot| slot.state == CallState::Paused)
    }

    /// Settles `paused`: every member of the suspension has ended or is paused.
    pub(super) fn settle_paused(&mut self) {
        let pending: Vec<String> = self
            .calls
            .iter()
            .filter(|c| c.status == Status::Paused)
            .map(|c| format!("{} ({})", c.tool, c.id))
            .collect();
        let text = format!(
            "Paused: nested {} awaiting a person's decision; ask for this ToolCall's result \
             again later",
            pending.join(", ")
        );
        let outcome = self.outcome(OutcomeKind::Paused, text);
        self.conclude(outcome);
    }

    /// The journal to hand over with `outcome`, when the run recorded one.
    pub(super) fn take_journal(&mut self, outcome: &Outcome) -> Option<Box<RunJournal>> {
        let elapsed_ms = outcome.stats.elapsed_ms;
        let limits = *self.limits;
        let id = self.id.to_string();
        let mut recorder = self.cold.as_mut()?.recorder.take()?;
        let pending = self
            .calls
            .iter()
            .enumerate()
            .filter(|(_, c)| c.status == Status::Paused)
            .map(|(call, c)| PendingCall {
                id: c.id.to_string(),
                index: c.order,
                tool: c.tool.to_string(),
                arguments: recorder
                    .arguments
                    .remove(&call)
                    .map(Arc::unwrap_or_clone)
                    .unwrap_or_default(),
            })
            .collect();
        Some(Box::new(RunJournal {
            format: FORMAT,
            id,
            script: std::mem::take(&mut recorder.script),
            inputs: std::mem::take(&mut recorder.inputs),
            values: std::mem::take(&mut recorder.values),
            roster: roster_hex(recorder.roster),
            limits,
            elapsed_ms,
            calls: std::mem::take(&mut recorder.entries),
            pending,
            outcome: Some(outcome.kind.as_str().to_owned()),
            text: Some(outcome.text.clone()),
        }))
    }

    /// Resumes the run `journal` recorded (paused, interrupted or finished) in this
    /// process: the script runs from the start; each call the journal answers is answered
    /// from it (no permission ask, no dispatch); each pending call gets its decision from
    /// `decisions` (by call id: allow dispatches it, deny is the usual denial; a pending
    /// call with no decision is asked again); calls beyond the journal run live. The run
    /// keeps the journal's id, so its calls keep their ids, and records a new journal.
    /// `tools` is the tool filter the run was started with. A journal that cannot be used
    /// settles at once with kind `resume` (or `roster` for other tools); a run that makes
    /// another call than the journal holds settles `replay-diverged`.
    #[must_use]
    pub fn resume(
        config: EnvelopeConfig,
        journal: &RunJournal,
        tools: Option<&crate::ToolFilter>,
        decisions: &[(String, Approval)],
        now: Duration,
    ) -> Envelope {
        Envelope::from_journal(config, journal, tools, decisions, false, now)
    }

    /// Replays `journal` offline (`ptc replay`): as [`Envelope::resume`] with no
    /// decisions, except that a call the journal does not answer diverges instead of
    /// running; a paused run pauses again at its pending calls.
    #[must_use]
    pub fn replay(
        config: EnvelopeConfig,
        journal: &RunJournal,
        tools: Option<&crate::ToolFilter>,
        now: Duration,
    ) -> Envelope {
        Envelope::from_journal(config, journal, tools, &[], true, now)
    }

    fn from_journal(
        mut config: EnvelopeConfig,
        journal: &RunJournal,
        tools: Option<&crate::ToolFilter>,
        decisions: &[(String, Approval)],
        offline: bool,
        now: Duration,
    ) -> Envelope {
        config.id = Arc::from(journal.id.as_str());
        config.options.record = true;
        if offline {
            // An offline replay asks no one: pending calls pause again.
            config.options.ask_permission = true;
        }
        if journal.format != FORMAT {
            let message = format!(
                "the journal's format {} is not this build's ({FORMAT})",
                journal.format
            );
            return Envelope::refused(config, now, ErrorKind::Resume, &message);
        }
        if *config.limits != journal.limits {
            let message = "the journal was recorded under other budgets than this run's; \
                           resume it with the same limits";
            return Envelope::refused(config, now, ErrorKind::Resume, message);
        }
        let replay = match Replay::new(journal, decisions, offline) {
            Ok(replay) => replay,
            Err(message) => return Envelope::refused(config, now, ErrorKind::Resume, &message),
        };
        let names: Vec<&str> = journal.inputs.iter().map(String::as_str).collect();
        let script = match crate::Script::compile(
            &config.catalog,
            &journal.script,
            &names,
            tools,
            &config.limits,
            config.clock.clone(),
        ) {
            Ok(script) => script,
            Err(diagnostics) => {
                let first = diagnostics
                    .first()
                    .map_or_else(String::new, |d| d.message.clone());
                let message = format!("the journal's script does not compile here: {first}");
                return Envelope::refused(config, now, ErrorKind::Resume, &message);
            }
        };
        if roster_hex(script.roster()) != journal.roster {
            let message = "the journal was recorded with other tools than this run's \
                           (another registry or tool filter)";
            return Envelope::refused(config, now, ErrorKind::Roster, message);
        }
        let mut envelope = Envelope::from_script(config, &script, tools, &journal.values, now);
        if !envelope.is_settled() {
            let cold = envelope.cold();
            cold.replay = Some(Box::new(replay));
            cold.prior_ms = journal.elapsed_ms;
            if envelope.deadline_ns != u64::MAX {
                let prior = journal.elapsed_ms.saturating_mul(1_000_000);
                envelope.deadline_ns = envelope.deadline_ns.saturating_sub(prior);
            }
        }
        envelope
    }

    /// Milliseconds the run was live before it was resumed.
    pub(super) fn prior_ms(&self) -> u64 {
        self.cold.as_ref().map_or(0, |cold| cold.prior_ms)
    }

    /// Settles `replay-diverged` when a resumed run ends with journaled calls unmade.
    pub(super) fn diverged_at_end(&mut self) -> bool {
        let unmade = self
            .cold
            .as_ref()
            .and_then(|cold| cold.replay.as_ref())
            .and_then(|replay| replay.unmade());
        match unmade {
            Some(message) => {
                self.diverge(&message);
                true
            }
            None => false,
        }
    }

    /// Settles `replay-diverged` with `message`.
    pub(super) fn diverge(&mut self, message: &str) {
        self.abandon("Cancelled: the run diverged from its journal");
        let summary = if self.calls.is_empty() {
            String::new()
        } else {
            audit::summary(&self.calls)
        };
        self.settle_error(
            OutcomeKind::ReplayDiverged,
            ErrorKind::ReplayDiverged,
            &format!("replay diverged: {message}"),
            summary,
        );
    }

    /// Acts on a [`Stop`] of launching, the batch back in the phase.
    pub(super) fn stop_launch(&mut self, stop: Stop) {
        match stop {
            Stop::Deny(call, reason) => {
                let id = self.calls.get(call).map(|c| c.id.to_string());
                if let Some(id) = id
                    && self.deny(&id, reason).is_ok()
                {
                    return;
                }
                self.diverge("a journaled denial could not be applied");
            }
            Stop::Diverged(message) => self.diverge(&message),
        }
    }
}
