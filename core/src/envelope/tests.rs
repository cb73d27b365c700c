//! The envelope driven by hand, with no executor and a made-up clock: orderings, bounded
//! parallelism, denial mid-batch, cancellation, answers after cancel or settle, duplicate
//! and unknown ids, timeouts, the wall-clock bound, journal records and direct calls.

use super::*;
use crate::OutcomeKind;
use serde_json::json;

fn registry() -> Arc<Catalog> {
    let mut registry = Catalog::new();
    let schema = json!({"type": "object", "properties": {"v": {"type": "string"}},
                        "additionalProperties": false});
    registry
        .add(ToolContract::new("T", "Echoes v.", schema.clone()))
        .unwrap();
    registry
        .add(ToolContract::new("U", "Echoes v too.", schema))
        .unwrap();
    Arc::new(registry)
}

use crate::catalog::ToolContract;

const BATCH: &str = r#"(parallel (T :v "a") (T :v "b") (T :v "c"))"#;

fn envelope(script: &str, limits: Limits, options: EnvelopeOptions, now: Duration) -> Envelope {
    let config = EnvelopeConfig {
        catalog: registry(),
        limits: limits.into(),
        id: "e".into(),
        options,
        clock: None,
    };
    Envelope::compile(config, script, now)
}

/// The next event that is not a pause.
fn next(envelope: &mut Envelope, now: Duration) -> Event {
    loop {
        match envelope.poll(now) {
            Event::Pause => {}
            other => return other,
        }
    }
}

fn ids(calls: &[CallRequest]) -> Vec<&str> {
    calls.iter().map(|c| &*c.id).collect()
}

fn permission(event: Event) -> Vec<CallRequest> {
    match event {
        Event::Permission(calls) => calls,
        other => panic!("expected a permission ask, got {other:?}"),
    }
}

fn dispatch(event: Event) -> Vec<CallRequest> {
    match event {
        Event::Dispatch(calls) => calls,
        other => panic!("expected a dispatch, got {other:?}"),
    }
}

fn settled(event: Event) -> Outcome {
    match event {
        Event::Settled(outcome) => *outcome,
        other => panic!("expected the outcome, got {other:?}"),
    }
}

fn statuses(outcome: &Outcome) -> Vec<Status> {
    outcome.calls.iter().map(|c| c.status).collect()
}

/// Allows every asked call and returns the dispatched ones.
fn allow_all(envelope: &mut Envelope, now: Duration) -> Vec<CallRequest> {
    for call in permission(next(envelope, now)) {
        envelope.allow(&call.id).unwrap();
    }
    dispatch(next(envelope, now))
}

#[test]
fn batch_results_join_in_source_order_whatever_the_answer_order() {
    let now = Duration::from_secs(7);
    let mut env = envelope(BATCH, Limits::default(), EnvelopeOptions::default(), now);
    let calls = allow_all(&mut env, now);
    assert_eq!(ids(&calls), ["e/1", "e/2", "e/3"]);
    assert_eq!(calls[1].batch, Some(1));
    assert_eq!(calls[2].position, 2);
    assert_eq!(*calls[0].arguments, json!({"v": "a"}));
    for call in calls.iter().rev() {
        let v = call.arguments["v"].as_str().unwrap().to_uppercase();
        env.complete(now, &call.id, ToolResult::text(v)).unwrap();
        // One answer short, the batch keeps waiting.
        if call.position > 0 {
            assert!(matches!(next(&mut env, now), Event::Waiting { .. }));
        }
    }
    let outcome = settled(next(&mut env, now));
    assert_eq!(outcome.text, r#"("A" "B" "C")"#);
    assert_eq!(statuses(&outcome), [Status::Success; 3]);
    assert_eq!(outcome.stats.tool_calls, 3);
    // Settled: polls repeat the outcome, answers are refused.
    assert_eq!(settled(env.poll(now)).text, outcome.text);
    assert_eq!(
        env.complete(now, "e/1", ToolResult::text("late")),
        Err(EnvelopeError::Settled)
    );
}

/// The driver's way: a dispatch event with no list, then each request taken with its
/// index, the same requests a host gets, in the same order, under the same bound.
#[test]
fn a_driver_takes_the_dispatched_requests_one_by_one() {
    let now = Duration::from_secs(7);
    let limits = Limits {
        parallelism: 2,
        ..Limits::default()
    };
    let mut listed = envelope(BATCH, limits, EnvelopeOptions::default(), now);
    let expected = allow_all(&mut listed, now);
    let mut env = envelope(BATCH, limits, EnvelopeOptions::default(), now);
    env.pull_dispatches();
    for call in permission(next(&mut env, now)) {
        env.allow(&call.id).unwrap();
    }
    assert!(dispatch(next(&mut env, now)).is_empty());
    let (first, first_request) = env.next_dispatch().unwrap();
    let (second, second_request) = env.next_dispatch().unwrap();
    assert!(env.next_dispatch().is_none());
    assert_eq!((first, second), (0, 1));
    assert_eq!([first_request, second_request], *expected);
    // Taken, they are running: answers by index are fed as by id.
    env.complete_at(now, second, ToolResult::text("2")).unwrap();
    for call in permission(next(&mut env, now)) {
        env.allow(&call.id).unwrap();
    }
    assert!(dispatch(next(&mut env, now)).is_empty());
    let (third, request) = env.next_dispatch().unwrap();
    assert_eq!((third, &*request.id, request.position), (2, "e/3", 2));
    env.complete_at(now, third, ToolResult::text("3")).unwrap();
    assert!(
        env.complete_at(now, third, ToolResult::text("again"))
            .is_err()
    );
    env.complete_at(now, first, ToolResult::text("1")).unwrap();
    assert_eq!(settled(next(&mut env, now)).text, r#"("1" "2" "3")"#);
    assert!(env.next_dispatch().is_none());
}

#[test]
fn parallelism_bounds_the_calls_held_by_the_host() {
    let now = Duration::from_secs(7);
    let limits = Limits {
        parallelism: 2,
        ..Limits::default()
    };
    let mut env = envelope(BATCH, limits, EnvelopeOptions::default(), now);
    let calls = allow_all(&mut env, now);
    assert_eq!(ids(&calls), ["e/1", "e/2"]);
    assert!(matches!(
        next(&mut env, now),
        Event::Waiting { deadline: Some(_) }
    ));
    env.complete(now, "e/2", ToolResult::text("2")).unwrap();
    let third = allow_all(&mut env, now);
    assert_eq!(ids(&third), ["e/3"]);
    env.complete(now, "e/3", ToolResult::text("3")).unwrap();
    env.complete(now, "e/1", ToolResult::text("1")).unwrap();
    assert_eq!(settled(next(&mut env, now)).text, r#"("1" "2" "3")"#);
}

#[test]
fn a_denial_mid_batch_cancels_the_held_siblings_and_settles_denied() {
    let now = Duration::from_secs(7);
    let mut env = envelope(BATCH, Limits::default(), EnvelopeOptions::default(), now);
    let asked = permission(next(&mut env, now));
    env.allow("e/1").unwrap();
    env.deny("e/2", "not today").unwrap();
    // e/1 was allowed (held by the host) and e/3 still asked: both are cancelled.
    match next(&mut env, now) {
        Event::Cancel(cancelled) => assert_eq!(cancelled, ["e/1", "e/3"]),
        other => panic!("expected a cancel, got {other:?}"),
    }
    let outcome = settled(next(&mut env, now));
    assert_eq!(outcome.kind, OutcomeKind::Denied);
    assert_eq!(
        statuses(&outcome),
        [Status::Cancelled, Status::Denied, Status::Cancelled]
    );
    assert!(
        outcome
            .text
            .starts_with("Error: batch aborted because nested T was denied: not today"),
        "{}",
        outcome.text
    );
    assert_eq!(asked.len(), 3);
    // Late decisions and results change nothing.
    assert_eq!(env.allow("e/3"), Err(EnvelopeError::Settled));
    assert_eq!(
        env.complete(now, "e/1", ToolResult::text("x")),
        Err(EnvelopeError::Settled)
    );
    assert_eq!(statuses(&settled(env.poll(now))), statuses(&outcome));
}

#[test]
fn cancellation_names_the_calls_in_flight_and_refuses_their_results() {
    let now = Duration::from_secs(7);
    let mut env = envelope(BATCH, Limits::default(), EnvelopeOptions::default(), now);
    let calls = allow_all(&mut env, now);
    env.complete(now, &calls[0].id, ToolResult::text("a"))
        .unwrap();
    env.cancel();
    assert_eq!(
        env.complete(now, &calls[1].id, ToolResult::text("b")),
        Err(EnvelopeError::Settled)
    );
    match next(&mut env, now) {
        Event::Cancel(cancelled) => assert_eq!(cancelled, ["e/2", "e/3"]),
        other => panic!("expected a cancel, got {other:?}"),
    }
    let outcome = settled(next(&mut env, now));
    assert_eq!(outcome.kind, OutcomeKind::Interrupted);
    assert_eq!(
        statuses(&outcome),
        [Status::Success, Status::Cancelled, Status::Cancelled]
    );
    env.cancel();
    assert_eq!(settled(env.poll(now)).kind, OutcomeKind::Interrupted);
}

#[test]
fn unknown_duplicate_and_premature_answers_are_typed_errors() {
    let now = Duration::from_secs(7);
    let mut env = envelope(BATCH, Limits::default(), EnvelopeOptions::default(), now);
    let asked = permission(next(&mut env, now));
    assert_eq!(asked.len(), 3);
    let result = ToolResult::text;
    assert_eq!(
        env.complete(now, "e/9", result("x")),
        Err(EnvelopeError::UnknownCall("e/9".into()))
    );
    assert_eq!(
        env.complete(now, "other/1", result("x")),
        Err(EnvelopeError::UnknownCall("other/1".into()))
    );
    assert_eq!(
        env.complete(now, "e/0", result("x")),
        Err(EnvelopeError::UnknownCall("e/0".into()))
    );
    let premature = env.complete(now, "e/1", result("x")).unwrap_err();
    assert_eq!(
        premature.to_string(),
        "call `e/1` is not awaiting a result (it is awaiting permission)"
    );
    env.allow("e/1").unwrap();
    assert!(matches!(
        env.allow("e/1"),
        Err(EnvelopeError::NotAwaiting { ref state, .. }) if state == "allowed"
    ));
    // Allowed but not yet handed out in a dispatch: still not runnable.
    assert!(env.complete(now, "e/1", result("x")).is_err());
    env.allow("e/2").unwrap();
    env.allow("e/3").unwrap();
    assert_eq!(ids(&dispatch(next(&mut env, now))), ["e/1", "e/2", "e/3"]);
    env.complete(now, "e/1", result("one")).unwrap();
    assert!(matches!(
        env.complete(now, "e/1", result("again")),
        Err(EnvelopeError::NotAwaiting { ref state, .. }) if state == "success"
    ));
    assert!(env.deny("e/1", "too late").is_err());
    assert_eq!(
        env.journal_written(true),
        Err(EnvelopeError::NoJournalRecord)
    );
    env.fail(now, "e/2", Failure::Host("pipe closed".into()))
        .unwrap();
    env.complete(now, "e/3", result("three")).unwrap();
    let outcome = settled(next(&mut env, now));
    // The refused answers left no trace: one record per call, each with its one answer.
    assert_eq!(
        outcome.text,
        r#"("one" (:error "Error: T failed: pipe closed") "three")"#
    );
    assert_eq!(
        statuses(&outcome),
        [Status::Success, Status::Error, Status::Success]
    );
}

#[test]
fn a_panic_text_never_reaches_the_guest() {
    let now = Duration::from_secs(7);
    let mut env = envelope(
        r#"(list (T :v "a"))"#,
        Limits::default(),
        EnvelopeOptions::default(),
        now,
    );
    let calls = allow_all(&mut env, now);
    env.fail(
        now,
        &calls[0].id,
        Failure::Panicked("/home/alice/.secret".into()),
    )
    .unwrap();
    let outcome = settled(next(&mut env, now));
    assert!(!outcome.text.contains("alice"), "{}", outcome.text);
    assert!(!format!("{:?}", outcome.calls).contains("alice"));
    assert_eq!(
        outcome.text,
        r#"((:error "Error: T failed: the tool crashed (details are in the host's log)"))"#
    );
}

#[test]
fn a_call_times_out_by_the_callers_clock_and_its_late_result_is_refused() {
    let t0 = Duration::from_secs(7);
    let limits = Limits {
        tool_timeout_ms: Some(100),
        ..Limits::default()
    };
    let mut env = envelope(
        r#"(list (T :v "a") 1)"#,
        limits,
        EnvelopeOptions::default(),
        t0,
    );
    let calls = allow_all(&mut env, t0);
    let due = t0 + Duration::from_millis(100);
    assert_eq!(calls[0].deadline, Some(due));
    match next(&mut env, t0 + Duration::from_millis(50)) {
        Event::Waiting { deadline } => assert_eq!(deadline, Some(due)),
        other => panic!("expected a wait, got {other:?}"),
    }
    match next(&mut env, due) {
        Event::Cancel(cancelled) => assert_eq!(cancelled, ["e/1"]),
        other => panic!("expected a cancel, got {other:?}"),
    }
    assert!(matches!(
        env.complete(due, "e/1", ToolResult::text("late")),
        Err(EnvelopeError::NotAwaiting { ref state, .. }) if state == "error"
    ));
    let outcome = settled(next(&mut env, due));
    assert_eq!(
        outcome.text,
        r#"((:error "Error: T timed out after 100 ms") 1)"#
    );
    assert_eq!(outcome.stats.elapsed_ms, 100);
}

#[test]
fn an_answer_after_the_calls_deadline_is_its_timeout_even_with_no_poll_between() {
    // Issue 38: the answer comes after the deadline, but the host polled last before it.
    let t0 = Duration::from_secs(7);
    let limits = Limits {
        tool_timeout_ms: Some(100),
        ..Limits::default()
    };
    for failing in [false, true] {
        let mut env = envelope(
            r#"(list (T :v "a") (T :v "b"))"#,
            limits,
            EnvelopeOptions::default(),
            t0,
        );
        let calls = allow_all(&mut env, t0);
        assert_eq!(calls[0].deadline, Some(t0 + Duration::from_millis(100)));
        // On time: 99 ms after dispatch.
        let on_time = t0 + Duration::from_millis(99);
        env.complete(on_time, "e/1", ToolResult::text("a")).unwrap();
        let calls = allow_all(&mut env, on_time);
        assert_eq!(ids(&calls), ["e/2"]);
        // Late: 101 ms after its dispatch, and no poll since that dispatch.
        let late = on_time + Duration::from_millis(101);
        let answer = if failing {
            env.fail(late, "e/2", Failure::Host("gone".into()))
        } else {
            env.complete(late, "e/2", ToolResult::text("b"))
        };
        assert_eq!(answer, Ok(()), "a late answer is no misuse");
        assert_eq!(env.calls()[1].status, Status::Error);
        // Answered again (or polled): it has ended.
        assert!(env.complete(late, "e/2", ToolResult::text("b")).is_err());
        let outcome = settled(next(&mut env, late));
        assert_eq!(
            outcome.text,
            r#"("a" (:error "Error: T timed out after 100 ms"))"#
        );
        assert_eq!(statuses(&outcome), [Status::Success, Status::Error]);
    }
}

#[test]
fn an_answer_after_the_envelopes_deadline_is_not_audited_a_success() {
    let t0 = Duration::from_secs(7);
    let limits = Limits {
        seconds: Some(1.0),
        tool_timeout_ms: None,
        ..Limits::default()
    };
    let mut env = envelope(
        r#"(progn (T :v "a") 1)"#,
        limits,
        EnvelopeOptions::default(),
        t0,
    );
    allow_all(&mut env, t0);
    let late = t0 + Duration::from_millis(1500);
    assert_eq!(env.complete(late, "e/1", ToolResult::text("a")), Ok(()));
    assert_eq!(env.calls()[0].status, Status::Running);
    match next(&mut env, late) {
        Event::Cancel(cancelled) => assert_eq!(cancelled, ["e/1"]),
        other => panic!("expected a cancel, got {other:?}"),
    }
    let outcome = settled(next(&mut env, late));
    assert_eq!(outcome.error.as_ref().unwrap().kind, "time");
    assert_eq!(statuses(&outcome), [Status::Cancelled]);
}

#[test]
fn the_wall_clock_bound_counts_tool_time_and_cancels_calls_in_flight() {
    let t0 = Duration::from_secs(7);
    let limits = Limits {
        seconds: Some(1.0),
        tool_timeout_ms: None,
        ..Limits::default()
    };
    let mut env = envelope(
        r#"(progn (T :v "a") 1)"#,
        limits,
        EnvelopeOptions::default(),
        t0,
    );
    allow_all(&mut env, t0);
    match next(&mut env, t0 + Duration::from_millis(10)) {
        Event::Waiting { deadline } => assert_eq!(deadline, Some(t0 + Duration::from_secs(1))),
        other => panic!("expected a wait, got {other:?}"),
    }
    let late = t0 + Duration::from_secs(1);
    match next(&mut env, late) {
        Event::Cancel(cancelled) => assert_eq!(cancelled, ["e/1"]),
        other => panic!("expected a cancel, got {other:?}"),
    }
    let outcome = settled(next(&mut env, late));
    assert_eq!(outcome.kind, OutcomeKind::ScriptError);
    let error = outcome.error.as_ref().unwrap();
    assert_eq!(error.kind, "time");
    assert!(
        error
            .message
            .starts_with("Script exceeded its time budget of 1 seconds after"),
        "{}",
        error.message
    );
    assert_eq!(statuses(&outcome), [Status::Cancelled]);
    assert!(outcome.text.contains("- e/1 T {\"v\":\"a\"} (cancelled)"));
}

#[test]
fn journal_records_come_before_any_call_and_before_the_outcome() {
    let now = Duration::from_secs(7);
    let options = EnvelopeOptions {
        journal: true,
        ..EnvelopeOptions::default()
    };
    let mut env = envelope(r#"(list (T :v "a"))"#, Limits::default(), options, now);
    match env.poll(now) {
        Event::Journal(record) => {
            assert_eq!(record.state, crate::JournalState::Running);
            assert_eq!(record.expression, r#"(list (T :v "a"))"#);
        }
        other => panic!("expected the start record, got {other:?}"),
    }
    // Unacknowledged, the record is asked for again; nothing runs.
    assert!(matches!(env.poll(now), Event::Journal(_)));
    env.journal_written(true).unwrap();
    let calls = allow_all(&mut env, now);
    env.complete(now, &calls[0].id, ToolResult::text("x"))
        .unwrap();
    let Event::Journal(record) = next(&mut env, now) else {
        panic!("expected the settled record");
    };
    assert_eq!(record.state, crate::JournalState::Settled);
    assert_eq!(record.calls.len(), 1);
    // One retry, then the outcome says the audit could not be persisted.
    env.journal_written(false).unwrap();
    assert!(matches!(env.poll(now), Event::Journal(_)));
    env.journal_written(false).unwrap();
    let outcome = settled(env.poll(now));
    assert_eq!(outcome.error.unwrap().kind, "checkpoint");
    assert_eq!(outcome.calls.len(), 1);

    // A start record that cannot be written: nothing runs.
    let mut env = envelope(r#"(list (T :v "a"))"#, Limits::default(), options, now);
    assert!(matches!(env.poll(now), Event::Journal(_)));
    env.journal_written(false).unwrap();
    let outcome = settled(env.poll(now));
    assert_eq!(
        outcome.text,
        "Error: ToolCall audit checkpoint could not be persisted"
    );
    assert!(outcome.calls.is_empty());
}

#[test]
fn a_direct_call_keeps_the_tools_result_and_permission_asks_can_be_off() {
    let now = Duration::from_secs(7);
    let options = EnvelopeOptions {
        ask_permission: false,
        progress: true,
        ..EnvelopeOptions::default()
    };
    let mut env = envelope(r#"(T :v "a")"#, Limits::default(), options, now);
    let calls = dispatch(next(&mut env, now));
    let long = "z".repeat(40_000);
    env.complete(now, &calls[0].id, ToolResult::json(json!({"text": long})))
        .unwrap();
    let outcome = settled(next(&mut env, now));
    assert_eq!(outcome.direct.as_deref(), Some("T"));
    assert_eq!(outcome.value, Some(Box::new(json!({"text": long}))));
    assert!(outcome.text.len() > crate::MAX_RESULT_CHARS);
    let snapshots = env.take_progress();
    assert_eq!(
        snapshots.first().map(|p| p.calls[0].status),
        Some(Status::Queued)
    );
    assert_eq!(snapshots.iter().filter(|p| !p.live).count(), 1);
    assert!(!snapshots.last().unwrap().live);
}

#[test]
fn fuel_pauses_reach_the_host_and_compile_errors_settle_at_once() {
    let now = Duration::from_secs(7);
    let script = "(let ((i 0)) (while (< i 20000) (setq i (+ i 1))) i)";
    let mut env = envelope(script, Limits::default(), EnvelopeOptions::default(), now);
    let mut pauses = 0;
    let outcome = loop {
        match env.poll(now) {
            Event::Pause => pauses += 1,
            Event::Settled(outcome) => break outcome,
            other => panic!("unexpected {other:?}"),
        }
    };
    assert_eq!(outcome.text, "20000");
    assert!(pauses >= 5, "{pauses}");
    let mut env = envelope("(Nope)", Limits::default(), EnvelopeOptions::default(), now);
    let outcome = settled(env.poll(now));
    assert_eq!(outcome.kind, OutcomeKind::ScriptError);
    let config = EnvelopeConfig::new(registry(), Limits::default(), "x");
    let mut env = Envelope::from_tool_call(config, &json!({"expr": "1"}), now);
    assert_eq!(settled(env.poll(now)).error.unwrap().kind, "arguments");
}

#[test]
fn a_settled_envelope_keeps_its_audit_and_repeats_its_outcome_unless_handed_over() {
    let now = Duration::from_secs(7);
    let options = EnvelopeOptions {
        ask_permission: false,
        ..EnvelopeOptions::default()
    };
    let run = |hand_over: bool| {
        let mut envelope = envelope(BATCH, Limits::default(), options, now);
        if hand_over {
            envelope.hand_over_outcome();
        }
        for call in dispatch(next(&mut envelope, now)) {
            let value = call.arguments["v"].as_str().unwrap_or_default().to_owned();
            envelope
                .complete(now, &call.id, ToolResult::text(value))
                .unwrap();
        }
        let first = settled(next(&mut envelope, now));
        (envelope, first)
    };
    // The audit moved into the outcome is still the envelope's audit, and a later poll
    // repeats the same outcome.
    let (mut envelope, first) = run(false);
    assert_eq!(first.text, r#"("a" "b" "c")"#);
    assert_eq!(statuses(&first), vec![Status::Success; 3]);
    assert_eq!(envelope.calls(), first.calls.as_slice());
    assert!(envelope.is_settled());
    let again = settled(next(&mut envelope, now));
    assert_eq!(again.calls, first.calls);
    assert_eq!(again.text, first.text);
    // Handed over (the tokio driver), the first outcome is the same; the envelope is
    // settled and refuses answers, and a stray later poll gets a placeholder, not a panic.
    let (mut envelope, handed) = run(true);
    assert_eq!(handed.text, first.text);
    assert_eq!(handed.calls.len(), 3);
    assert!(envelope.is_settled());
    assert_eq!(
        envelope.complete(now, "e/1", ToolResult::text("late")),
        Err(EnvelopeError::Settled)
    );
    assert_eq!(
        settled(next(&mut envelope, now)).kind,
        OutcomeKind::ScriptError
    );
}
