//! The `journal` target's harness: recorded base journals, the damage an input does to
//! one, and the resume/replay driver with its oracles (fuzz/fuzz_targets/journal.rs).
//!
//! Invariants: the bases are recorded by the build under test with the pinned
//! [`crate::small_limits`], so a journal the input leaves intact always resumes; the
//! driver answers every call `TOOL:v` at time zero, so a run is a pure function of its
//! journal and decisions.

use ptc_core::{
    Approval, Catalog, Envelope, EnvelopeConfig, Event, Failure, Outcome, OutcomeKind, RunJournal,
    ToolContract, ToolResult,
};
use serde_json::{Value as Json, json};
use std::collections::BTreeSet;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

/// Polls after which an envelope that has not settled is a hang.
const MAX_POLLS: usize = 100_000;

/// One recorded journal and what its run gives when nothing interrupts it.
#[derive(Debug)]
pub struct Base {
    /// The journal as recorded.
    pub journal: RunJournal,
    /// Its JSON text, as a host stores it.
    pub text: String,
    /// The text of the same script's outcome under a host that pauses nothing.
    pub straight: String,
}

/// How the recording host treats a call.
#[derive(Clone, Copy)]
enum Host {
    /// Allows everything; answers `TOOL:v`.
    Allow,
    /// Pauses every `Send`.
    PauseSend,
    /// Denies every `Send`.
    DenySend,
}

/// The scripts the bases record, with the host each is recorded under.
const SCRIPTS: [(&str, Host); 6] = [
    (
        r#"(let ((a (Read :v "x"))) (list a (Send :v a) (Read :v "y")))"#,
        Host::Allow,
    ),
    (
        r#"(let ((a (Read :v "x"))) (list a (Send :v a) (Read :v "y")))"#,
        Host::PauseSend,
    ),
    (
        r#"(parallel (Read :v "a") (Send :v "b") (Read :v "c"))"#,
        Host::PauseSend,
    ),
    (
        r#"(list (Read :v "bad") (condition-case nil (Read :v "ok") (error 0)))"#,
        Host::Allow,
    ),
    (r#"(list (Read :v "a") (Send :v "b"))"#, Host::DenySend),
    (
        r#"(parallel-map (lambda (v) (list (Read :v v) (Send :v (concat v "2")))) '("p" "q"))"#,
        Host::PauseSend,
    ),
];

fn catalog() -> Arc<Catalog> {
    static CATALOG: OnceLock<Arc<Catalog>> = OnceLock::new();
    CATALOG
        .get_or_init(|| {
            let mut catalog = Catalog::new();
            let schema = json!({"type": "object", "properties": {"v": {"type": "string"}}});
            for name in ["Read", "Send"] {
                catalog
                    .add(ToolContract::new(name, "Echoes v.", schema.clone()))
                    .expect("two distinct names");
            }
            Arc::new(catalog)
        })
        .clone()
}

fn config() -> EnvelopeConfig {
    let mut config = EnvelopeConfig::new(catalog(), crate::small_limits(), "run");
    config.options.record = true;
    config
}

/// What the driver saw: the outcome and the ids it dispatched.
struct Driven {
    outcome: Outcome,
    dispatched: Vec<String>,
}

/// Drives `envelope` to its outcome: `host` says what happens to an asked `Send`;
/// `offline` pauses every asked call and makes any dispatch a finding.
fn drive(mut envelope: Envelope, host: Host, offline: bool) -> Driven {
    let now = Duration::ZERO;
    let mut dispatched = Vec::new();
    for _ in 0..MAX_POLLS {
        match envelope.poll(now) {
            Event::Permission(calls) => {
                for call in calls {
                    let send = &*call.tool == "Send";
                    let result = match host {
                        _ if offline => envelope.pause(&call.id),
                        Host::PauseSend if send => envelope.pause(&call.id),
                        Host::DenySend if send => envelope.deny(&call.id, "not today"),
                        _ => envelope.allow(&call.id),
                    };
                    result.expect("deciding a call the envelope asked about");
                }
            }
            Event::Dispatch(calls) => {
                for call in calls {
                    assert!(!offline, "an offline replay dispatched {}", call.id);
                    dispatched.push(call.id.to_string());
                    let v = call.arguments["v"].as_str().unwrap_or("").to_owned();
                    let answer = if v == "bad" {
                        envelope.fail(now, &call.id, Failure::Host("no such thing".into()))
                    } else {
                        let result = ToolResult::text(format!("{}:{v}", call.tool));
                        envelope.complete(now, &call.id, result)
                    };
                    answer.expect("answering a dispatched call");
                }
            }
            Event::Journal(_) => envelope
                .journal_written(true)
                .expect("the envelope asked for the write"),
            Event::Settled(outcome) => {
                return Driven {
                    outcome: *outcome,
                    dispatched,
                };
            }
            Event::Waiting { deadline: None } => {
                panic!("the envelope waits with nothing out and no deadline")
            }
            _ => {}
        }
    }
    panic!("the envelope did not settle in {MAX_POLLS} polls")
}

/// The recorded bases (built once per process).
pub fn base_journals() -> &'static [Base] {
    static BASES: OnceLock<Vec<Base>> = OnceLock::new();
    BASES.get_or_init(|| {
        SCRIPTS
            .iter()
            .map(|&(script, host)| {
                let compile = |now| Envelope::compile(config(), script, now);
                let recorded = drive(compile(Duration::ZERO), host, false).outcome;
                let straight_host = match host {
                    Host::DenySend => Host::DenySend,
                    _ => Host::Allow,
                };
                let straight = drive(compile(Duration::ZERO), straight_host, false).outcome;
                let journal = *recorded.journal.expect("a recorded run has a journal");
                let text = serde_json::to_string(&journal).expect("a journal serialises");
                Base {
                    journal,
                    text,
                    straight: straight.text,
                }
            })
            .collect()
    })
}

/// One input: which base, how to resume it and the damage to do.
#[derive(Debug)]
pub struct Case {
    /// Index into [`base_journals`].
    pub base: usize,
    /// Replay offline instead of resuming live.
    pub offline: bool,
    /// Deny (instead of allow) the pending calls whose bit is set.
    pub deny_mask: u8,
    /// Add a decision for an id that is not pending.
    pub stray_decision: bool,
    /// The damage, in order.
    pub edits: Vec<Edit>,
}

/// One piece of damage.
#[derive(Debug)]
pub enum Edit {
    /// Replace a node by a value.
    Set {
        /// Child choices from the root, each taken modulo the node's children.
        path: Vec<u8>,
        /// The new value.
        value: Json,
    },
    /// Remove a node.
    Remove {
        /// Child choices from the root; the last picks the child removed.
        path: Vec<u8>,
    },
    /// Cut the text at this fraction (of 65,536) of its length.
    Truncate(u16),
    /// XOR the byte at this fraction of the text with the mask.
    Flip(u16, u8),
}

impl Case {
    /// Reads a case from fuzz bytes; `None` for an input too short to say anything.
    pub fn from_bytes(data: &[u8], bases: usize) -> Option<Case> {
        let (&head, rest) = data.split_first()?;
        let (&mode, mut rest) = rest.split_first()?;
        let mut edits = Vec::new();
        while let Some((&tag, tail)) = rest.split_first() {
            if edits.len() == 8 {
                break;
            }
            rest = tail;
            let take = |rest: &mut &[u8], n: usize| -> Vec<u8> {
                let n = n.min(rest.len());
                let (taken, tail) = rest.split_at(n);
                *rest = tail;
                taken.to_vec()
            };
            let word = |bytes: &[u8]| -> u16 {
                u16::from_le_bytes([
                    bytes.first().copied().unwrap_or(0),
                    bytes.get(1).copied().unwrap_or(0),
                ])
            };
            let edit = match tag % 5 {
                0 | 1 => {
                    let depth = usize::from(tag / 5 % 5) + 1;
                    let path = take(&mut rest, depth);
                    let seed = take(&mut rest, 3);
                    Edit::Set {
                        path,
                        value: value_from(&seed, &mut rest),
                    }
                }
                2 => {
                    let depth = usize::from(tag / 5 % 5) + 1;
                    Edit::Remove {
                        path: take(&mut rest, depth),
                    }
                }
                3 => Edit::Truncate(word(&take(&mut rest, 2))),
                _ => {
                    let bytes = take(&mut rest, 3);
                    Edit::Flip(word(&bytes), bytes.get(2).copied().unwrap_or(1) | 1)
                }
            };
            edits.push(edit);
        }
        Some(Case {
            base: usize::from(head) % bases,
            offline: mode & 1 == 1,
            deny_mask: mode >> 2,
            stray_decision: mode & 2 == 2,
            edits,
        })
    }
}

/// A JSON value from three seed bytes (and, for a string, following input bytes).
fn value_from(seed: &[u8], rest: &mut &[u8]) -> Json {
    let at = |i: usize| seed.get(i).copied().unwrap_or(0);
    match at(0) % 12 {
        0 => Json::Null,
        1 => Json::Bool(at(1) & 1 == 1),
        2 => json!(u64::from(at(1))),
        3 => json!(-i64::from(at(1)) - 1),
        4 => json!(u64::MAX - u64::from(at(1))),
        5 => json!(f64::from(at(1)) / 7.0),
        6 => json!(1e300),
        7 => json!({}),
        8 => json!([]),
        9 => json!(["run/1", "run/2", "run/3"][usize::from(at(1)) % 3]),
        10 => json!(["Read", "Send", "result", "error", "denied"][usize::from(at(1)) % 5]),
        _ => {
            let n = usize::from(at(1) % 16).min(rest.len());
            let (bytes, tail) = rest.split_at(n);
            *rest = tail;
            json!(String::from_utf8_lossy(bytes))
        }
    }
}

/// The node a path of child choices reaches (it stops early at a leaf or an empty container).
fn walk<'a>(root: &'a mut Json, path: &[u8]) -> &'a mut Json {
    let mut node = root;
    for &choice in path {
        let len = match &*node {
            Json::Object(map) => map.len(),
            Json::Array(items) => items.len(),
            _ => 0,
        };
        if len == 0 {
            break;
        }
        let i = usize::from(choice) % len;
        node = match node {
            Json::Object(map) => map.values_mut().nth(i).expect("i < len"),
            Json::Array(items) => &mut items[i],
            _ => unreachable!("only containers have children"),
        };
    }
    node
}

/// Removes the child the last choice of `path` picks under the node the rest reaches.
fn remove(root: &mut Json, path: &[u8]) {
    let Some((&last, parent_path)) = path.split_last() else {
        return;
    };
    match walk(root, parent_path) {
        Json::Object(map) if !map.is_empty() => {
            let key = map.keys().nth(usize::from(last) % map.len()).cloned();
            if let Some(key) = key {
                map.remove(&key);
            }
        }
        Json::Array(items) if !items.is_empty() => {
            items.remove(usize::from(last) % items.len());
        }
        _ => {}
    }
}

/// The damaged journal text.
fn damaged(base: &Base, edits: &[Edit]) -> Vec<u8> {
    let mut tree: Json = serde_json::from_str(&base.text).expect("the base parses");
    for edit in edits {
        match edit {
            Edit::Set { path, value } => *walk(&mut tree, path) = value.clone(),
            Edit::Remove { path } => remove(&mut tree, path),
            Edit::Truncate(_) | Edit::Flip(..) => {}
        }
    }
    let mut text = serde_json::to_vec(&tree).expect("a JSON tree serialises");
    for edit in edits {
        let at = |fraction: u16, len: usize| len * usize::from(fraction) / 65_536;
        match *edit {
            Edit::Truncate(fraction) => text.truncate(at(fraction, text.len())),
            Edit::Flip(fraction, mask) if !text.is_empty() => {
                let i = at(fraction, text.len());
                text[i] ^= mask;
            }
            _ => {}
        }
    }
    text
}

/// Damages, parses and resumes one case; panics on a finding.
pub fn run_case(base: &Base, case: &Case) {
    let text = damaged(base, &case.edits);
    // An unreadable journal is the host's typed error, before any run.
    let Ok(journal) = serde_json::from_slice::<RunJournal>(&text) else {
        return;
    };
    let intact = journal == base.journal;
    // Answered, failed and denied alike: none of them may run again.
    let answered: BTreeSet<u64> = journal.calls.iter().map(|entry| entry.index).collect();
    if case.offline {
        let envelope = Envelope::replay(config(), &journal, None, Duration::ZERO);
        let driven = drive(envelope, Host::Allow, true);
        if intact {
            assert_eq!(
                driven.outcome.text,
                base.journal_text_or_outcome(),
                "an intact journal replays to its own outcome"
            );
        }
        return;
    }
    let mut decisions: Vec<(String, Approval)> = journal
        .pending
        .iter()
        .enumerate()
        .map(|(i, pending)| {
            let deny = i < 6 && case.deny_mask >> i & 1 == 1;
            let approval = if deny {
                Approval::Deny("no".into())
            } else {
                Approval::Allow
            };
            (pending.id.clone(), approval)
        })
        .collect();
    if case.stray_decision {
        decisions.push(("run/999".into(), Approval::Allow));
    }
    let envelope = Envelope::resume(config(), &journal, None, &decisions, Duration::ZERO);
    let driven = drive(envelope, Host::Allow, false);
    for id in &driven.dispatched {
        let ordinal = id.rsplit('/').next().and_then(|n| n.parse::<u64>().ok());
        assert!(
            ordinal.is_none_or(|n| !answered.contains(&n)),
            "a journaled call was dispatched again: {id}"
        );
    }
    if case.stray_decision {
        assert!(
            driven.dispatched.is_empty() && driven.outcome.kind != OutcomeKind::Completed,
            "a decision for a call that is not pending was accepted: {}",
            driven.outcome.text
        );
    }
    if intact && case.deny_mask == 0 && !case.stray_decision {
        assert_eq!(
            driven.outcome.text, base.straight,
            "an intact journal resumed with every call allowed gives the uninterrupted run"
        );
    }
}

impl Base {
    /// What an offline replay of the intact journal settles with: the recorded text when
    /// the run settled, else (a paused run) the paused run's text again.
    fn journal_text_or_outcome(&self) -> String {
        self.journal.text.clone().unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every base, intact, in every mode: the oracles' positive cases.
    #[test]
    fn intact_journals_resume_and_replay_to_their_outcomes() {
        let bases = base_journals();
        for base in 0..bases.len() {
            for mode in [0u8, 1, 2, 3, 4] {
                let data = [base as u8, mode];
                let case = Case::from_bytes(&data, bases.len()).unwrap();
                run_case(&bases[case.base], &case);
            }
        }
    }

    /// Pseudo-random damage: what the fuzz target does, a few thousand times.
    #[test]
    fn damaged_journals_settle_typed() {
        let bases = base_journals();
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        for _ in 0..3_000 {
            let mut data = Vec::new();
            for _ in 0..24 {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                data.push(state as u8);
            }
            if let Some(case) = Case::from_bytes(&data, bases.len()) {
                run_case(&bases[case.base], &case);
            }
        }
    }
}
