//! Durable runs driven by hand: pausing a call (alone and inside a batch), resuming with
//! allow and deny, journals through JSON, offline replay, divergence, unusable journals,
//! and `seconds` across a pause.

use super::*;
use crate::catalog::ToolContract;
use crate::resume::{Answer, Approval, RunJournal};
use crate::{ErrorKind, OutcomeKind};
use serde_json::json;

fn catalog() -> Arc<Catalog> {
    let mut catalog = Catalog::new();
    let schema = json!({"type": "object", "properties": {"v": {"type": "string"}}});
    for name in ["Read", "Send"] {
        catalog
            .add(ToolContract::new(name, "Echoes v.", schema.clone()))
            .unwrap();
    }
    Arc::new(catalog)
}

fn config(limits: Limits) -> EnvelopeConfig {
    let mut config = EnvelopeConfig::new(catalog(), limits, "run");
    config.options.record = true;
    config
}

/// How the host answers each permission ask.
#[derive(Clone, Copy)]
enum Host {
    /// Allows everything.
    Allow,
    /// Pauses every `Send`, allows the rest.
    PauseSend,
}

/// Drives `envelope` to its outcome, answering every call `tool:v`; the ids dispatched.
fn drive(mut envelope: Envelope, host: Host) -> (Outcome, Vec<String>) {
    let now = Duration::ZERO;
    let mut dispatched = Vec::new();
    loop {
        match envelope.poll(now) {
            Event::Permission(calls) => {
                for call in calls {
                    match host {
                        Host::PauseSend if &*call.tool == "Send" => {
                            envelope.pause(&call.id).unwrap();
                        }
                        _ => envelope.allow(&call.id).unwrap(),
                    }
                }
            }
            Event::Dispatch(calls) => {
                for call in calls {
                    dispatched.push(call.id.to_string());
                    let v = call.arguments["v"].as_str().unwrap_or("").to_owned();
                    let result = ToolResult::text(format!("{}:{v}", call.tool));
                    envelope.complete(now, &call.id, result).unwrap();
                }
            }
            Event::Settled(outcome) => return (*outcome, dispatched),
            _ => {}
        }
    }
}

/// The journal through its JSON text, as a host stores it.
fn stored(outcome: &Outcome) -> RunJournal {
    let journal = outcome
        .journal
        .as_ref()
        .expect("a recorded run has a journal");
    let text = serde_json::to_string(journal).unwrap();
    serde_json::from_str(&text).unwrap()
}

const SCRIPT: &str = r#"(let ((a (Read :v "x")))
  (list a (Send :v a) (Read :v "y")))"#;

#[test]
fn a_paused_call_resumes_to_the_uninterrupted_outcome_without_redispatching() {
    let straight = drive(
        Envelope::compile(config(Limits::default()), SCRIPT, Duration::ZERO),
        Host::Allow,
    )
    .0;
    assert_eq!(straight.text, r#"("Read:x" "Send:Read:x" "Read:y")"#);

    let (paused, dispatched) = drive(
        Envelope::compile(config(Limits::default()), SCRIPT, Duration::ZERO),
        Host::PauseSend,
    );
    assert_eq!(paused.kind, OutcomeKind::Paused);
    assert_eq!(dispatched, ["run/1"]);
    assert!(paused.text.contains("Send (run/2)"), "{}", paused.text);
    assert_eq!(paused.calls[1].status, Status::Paused);
    let journal = stored(&paused);
    assert_eq!(journal.pending.len(), 1);
    assert_eq!(journal.pending[0].id, "run/2");
    assert_eq!(journal.pending[0].arguments, json!({"v": "Read:x"}));

    let decisions = [("run/2".to_owned(), Approval::Allow)];
    let resumed = Envelope::resume(
        config(Limits::default()),
        &journal,
        None,
        &decisions,
        Duration::ZERO,
    );
    let (outcome, dispatched) = drive(resumed, Host::Allow);
    // The journaled Read is not dispatched again; the allowed Send is not asked again.
    assert_eq!(dispatched, ["run/2", "run/3"]);
    assert_eq!(outcome.text, straight.text);
    assert_eq!(outcome.calls, straight.calls);
    assert_eq!(outcome.stats.fuel_used, straight.stats.fuel_used);
    // The resumed run's journal answers every call.
    assert_eq!(outcome.journal.as_ref().unwrap().calls.len(), 3);
}

#[test]
fn a_pause_inside_a_batch_lets_its_siblings_finish_and_they_are_journaled() {
    let script = r#"(parallel (Read :v "a") (Send :v "b") (Read :v "c"))"#;
    let (paused, dispatched) = drive(
        Envelope::compile(config(Limits::default()), script, Duration::ZERO),
        Host::PauseSend,
    );
    assert_eq!(paused.kind, OutcomeKind::Paused);
    assert_eq!(dispatched, ["run/1", "run/3"]);
    let journal = stored(&paused);
    assert_eq!(journal.calls.len(), 2);
    let decisions = [("run/2".to_owned(), Approval::Allow)];
    let resumed = Envelope::resume(
        config(Limits::default()),
        &journal,
        None,
        &decisions,
        Duration::ZERO,
    );
    let (outcome, dispatched) = drive(resumed, Host::Allow);
    assert_eq!(dispatched, ["run/2"]);
    assert_eq!(outcome.text, r#"("Read:a" "Send:b" "Read:c")"#);
}

#[test]
fn a_denied_pending_call_has_the_usual_denial() {
    let (paused, _) = drive(
        Envelope::compile(config(Limits::default()), SCRIPT, Duration::ZERO),
        Host::PauseSend,
    );
    let decisions = [("run/2".to_owned(), Approval::Deny("not today".to_owned()))];
    let resumed = Envelope::resume(
        config(Limits::default()),
        &stored(&paused),
        None,
        &decisions,
        Duration::ZERO,
    );
    let (outcome, dispatched) = drive(resumed, Host::Allow);
    assert!(dispatched.is_empty());
    assert_eq!(outcome.kind, OutcomeKind::Denied);
    assert!(outcome.text.contains("not today"), "{}", outcome.text);
    assert_eq!(outcome.calls[1].status, Status::Denied);
}

#[test]
fn a_pending_call_without_a_decision_is_asked_again_and_may_pause_again() {
    let (paused, _) = drive(
        Envelope::compile(config(Limits::default()), SCRIPT, Duration::ZERO),
        Host::PauseSend,
    );
    let resumed = Envelope::resume(
        config(Limits::default()),
        &stored(&paused),
        None,
        &[],
        Duration::ZERO,
    );
    let (again, dispatched) = drive(resumed, Host::PauseSend);
    assert!(dispatched.is_empty());
    assert_eq!(again.kind, OutcomeKind::Paused);
    assert_eq!(stored(&again), stored(&paused));
}

#[test]
fn offline_replay_gives_the_recorded_outcome_or_diverges_beyond_the_journal() {
    let (straight, _) = drive(
        Envelope::compile(config(Limits::default()), SCRIPT, Duration::ZERO),
        Host::Allow,
    );
    let journal = stored(&straight);
    assert_eq!(journal.outcome.as_deref(), Some("completed"));
    let (replayed, dispatched) = drive(
        Envelope::replay(config(Limits::default()), &journal, None, Duration::ZERO),
        Host::Allow,
    );
    assert!(dispatched.is_empty());
    assert_eq!(replayed.text, straight.text);
    assert_eq!(replayed.calls, straight.calls);

    let mut short = journal.clone();
    short.calls.retain(|entry| entry.index < 3);
    let (outcome, _) = drive(
        Envelope::replay(config(Limits::default()), &short, None, Duration::ZERO),
        Host::Allow,
    );
    assert_eq!(outcome.kind, OutcomeKind::ReplayDiverged);
    assert!(
        outcome.text.contains("call 3 (Read) is beyond the journal"),
        "{}",
        outcome.text
    );
}

#[test]
fn a_journal_that_differs_from_the_run_diverges_naming_the_first_call() {
    let (straight, _) = drive(
        Envelope::compile(config(Limits::default()), SCRIPT, Duration::ZERO),
        Host::Allow,
    );
    let mut journal = stored(&straight);
    journal.calls[1].arguments = json!({"v": "something else"});
    let (outcome, dispatched) = drive(
        Envelope::resume(
            config(Limits::default()),
            &journal,
            None,
            &[],
            Duration::ZERO,
        ),
        Host::Allow,
    );
    assert!(dispatched.is_empty(), "a diverged call is never dispatched");
    assert_eq!(outcome.kind, OutcomeKind::ReplayDiverged);
    let error = outcome.error.unwrap();
    assert_eq!(error.kind, ErrorKind::ReplayDiverged);
    assert!(
        error.message.contains("call 2 (Send) has other arguments"),
        "{}",
        error.message
    );

    let mut renamed = stored(&straight);
    renamed.calls[0].tool = "Send".to_owned();
    let (outcome, _) = drive(
        Envelope::resume(
            config(Limits::default()),
            &renamed,
            None,
            &[],
            Duration::ZERO,
        ),
        Host::Allow,
    );
    assert!(
        outcome
            .text
            .contains("call 1 is Read, where the journal has Send"),
        "{}",
        outcome.text
    );

    // A journal that answers more calls than the run makes.
    let mut longer = stored(&straight);
    let mut extra = longer.calls[2].clone();
    extra.index = 4;
    longer.calls.push(extra);
    let (outcome, _) = drive(
        Envelope::resume(
            config(Limits::default()),
            &longer,
            None,
            &[],
            Duration::ZERO,
        ),
        Host::Allow,
    );
    assert!(
        outcome.text.contains("without making call 4 (Read)"),
        "{}",
        outcome.text
    );
}

#[test]
fn an_unusable_journal_settles_with_kind_resume_before_anything_runs() {
    let (paused, _) = drive(
        Envelope::compile(config(Limits::default()), SCRIPT, Duration::ZERO),
        Host::PauseSend,
    );
    let journal = stored(&paused);
    let kind = |envelope: Envelope| {
        let (outcome, dispatched) = drive(envelope, Host::Allow);
        assert!(dispatched.is_empty());
        outcome.error.unwrap().kind
    };
    let other_limits = Limits {
        steps: 1234,
        ..Limits::default()
    };
    assert_eq!(
        kind(Envelope::resume(
            config(other_limits),
            &journal,
            None,
            &[],
            Duration::ZERO
        )),
        ErrorKind::Resume
    );
    let unknown = [("run/9".to_owned(), Approval::Allow)];
    assert_eq!(
        kind(Envelope::resume(
            config(Limits::default()),
            &journal,
            None,
            &unknown,
            Duration::ZERO
        )),
        ErrorKind::Resume
    );
    let mut future = journal.clone();
    future.format = 99;
    assert_eq!(
        kind(Envelope::resume(
            config(Limits::default()),
            &future,
            None,
            &[],
            Duration::ZERO
        )),
        ErrorKind::Resume
    );
    let mut foreign = journal.clone();
    foreign.roster = "0000000000000000".to_owned();
    assert_eq!(
        kind(Envelope::resume(
            config(Limits::default()),
            &foreign,
            None,
            &[],
            Duration::ZERO
        )),
        ErrorKind::Roster
    );
    let mut twice = stored(&paused);
    twice.calls.push(twice.calls[0].clone());
    assert_eq!(
        kind(Envelope::resume(
            config(Limits::default()),
            &twice,
            None,
            &[],
            Duration::ZERO
        )),
        ErrorKind::Resume
    );
    // Corrupted JSON is a typed serde error, never a panic.
    assert!(serde_json::from_str::<RunJournal>("{\"format\": 1").is_err());
}

#[test]
fn only_a_recording_run_can_pause() {
    let plain = EnvelopeConfig::new(catalog(), Limits::default(), "run");
    let mut envelope = Envelope::compile(plain, SCRIPT, Duration::ZERO);
    let Event::Permission(calls) = envelope.poll(Duration::ZERO) else {
        panic!("expected a permission ask");
    };
    assert_eq!(
        envelope.pause(&calls[0].id),
        Err(EnvelopeError::NotRecorded)
    );
}

#[test]
fn host_failures_are_journaled_and_replayed_as_the_same_error_values() {
    let mut envelope = Envelope::compile(
        config(Limits::default()),
        r#"(list (Read :v "a") (Read :v "b"))"#,
        Duration::ZERO,
    );
    let outcome = loop {
        match envelope.poll(Duration::ZERO) {
            Event::Permission(calls) => {
                for call in calls {
                    envelope.allow(&call.id).unwrap();
                }
            }
            Event::Dispatch(calls) => {
                for call in calls {
                    let failure = Failure::Host("disk on fire".to_owned());
                    envelope.fail(Duration::ZERO, &call.id, failure).unwrap();
                }
            }
            Event::Settled(outcome) => break *outcome,
            _ => {}
        }
    };
    let journal = stored(&outcome);
    assert!(matches!(journal.calls[0].answer, Answer::Error { .. }));
    let (replayed, _) = drive(
        Envelope::replay(config(Limits::default()), &journal, None, Duration::ZERO),
        Host::Allow,
    );
    assert_eq!(replayed.text, outcome.text);
    assert_eq!(replayed.calls, outcome.calls);
}

#[test]
fn the_time_used_before_a_pause_counts_against_seconds_but_the_pause_does_not() {
    let limits = Limits {
        seconds: Some(10.0),
        ..Limits::default()
    };
    let (paused, _) = drive(
        Envelope::compile(config(limits), SCRIPT, Duration::ZERO),
        Host::PauseSend,
    );
    let mut journal = stored(&paused);
    // A day later, with 4 of the 10 seconds used live: 6 remain.
    let later = Duration::from_secs(86_400);
    journal.elapsed_ms = 4_000;
    let decisions = [("run/2".to_owned(), Approval::Allow)];
    let envelope = Envelope::resume(config(limits), &journal, None, &decisions, later);
    assert_eq!(envelope.deadline(), Some(later + Duration::from_secs(6)));
    let (outcome, _) = drive(envelope, Host::Allow);
    assert_eq!(outcome.kind, OutcomeKind::Completed);
    // All 10 seconds used before the pause: the resumed run times out at once.
    journal.elapsed_ms = 10_000;
    let envelope = Envelope::resume(config(limits), &journal, None, &decisions, later);
    let (outcome, dispatched) = drive(envelope, Host::Allow);
    assert!(dispatched.is_empty());
    assert_eq!(
        outcome.error.unwrap().kind,
        ErrorKind::Budget(crate::Budget::Time)
    );
}
