//! The runtime half of the hostile suite (issue #6; reliability notes §B7): hanging and
//! panicking tools, host cancellation mid-batch, ordering under shuffled completion,
//! bounded concurrency, fairness between runs, argument conversion errors and the shared
//! structure bomb as a tool argument. Every script is compiled from source and every test
//! asserts the exact outcome kind. The whole file stays well under 5 s in debug.

use ptc_runtime::core::Status;
use ptc_runtime::{
    CancelToken, OutcomeKind, Registry, RunOptions, Runner, ToolContract, ToolRequestCtx,
    ToolResult,
};
use ptc_vm::Limits;
use serde_json::json;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Counters shared by the tools of one registry.
#[derive(Default)]
struct Probes {
    /// Handlers entered (dispatched calls).
    dispatched: AtomicU64,
    /// Handlers that ran to their end.
    completed: AtomicU64,
    /// Handler futures dropped before their end.
    dropped: AtomicU64,
    /// Echo calls in flight now, and the most ever seen at once.
    in_flight: AtomicU64,
    peak: AtomicU64,
    /// Echo calls that have answered.
    echoed: AtomicU64,
    /// The cancellation tokens handed to Hang and Slow calls.
    tokens: Mutex<Vec<CancelToken>>,
    /// xorshift state for Echo's random sleeps.
    seed: AtomicU64,
    /// Set when the busy run of the fairness test has finished.
    busy_done: AtomicBool,
    /// Echo pauses at least 1 ms (never answers on its first poll).
    always_pause: bool,
}

impl Probes {
    /// A pseudo-random number below `bound`.
    fn random(&self, bound: u64) -> u64 {
        let step = |mut x: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let previous = self
            .seed
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |x| Some(step(x)))
            .unwrap_or(1);
        step(previous) % bound
    }
}

/// Counts a future dropped before it finished.
struct DropGuard {
    probes: Arc<Probes>,
    finished: bool,
}

impl Drop for DropGuard {
    fn drop(&mut self) {
        if !self.finished {
            self.probes.dropped.fetch_add(1, Ordering::SeqCst);
        }
    }
}

fn contract(name: &str, properties: serde_json::Value) -> ToolContract {
    ToolContract::new(
        name,
        format!("{name} test tool."),
        json!({"type": "object", "properties": properties, "additionalProperties": false}),
    )
}

/// Tools: `Echo` (returns :value after a random 0–3 ms pause, noting its value and
/// counting concurrency), `Hang` (never answers), `Slow` (answers `done` after 50 ms),
/// `Boom` (panics inside its future), `BoomNow` (panics before returning a future), `Tick`
/// (after 1 ms, reports whether the busy run had finished) and `Read` (:file_path).
fn registry(probes: &Arc<Probes>) -> Arc<Registry> {
    let mut registry = Registry::new();
    let p = probes.clone();
    registry
        .register(
            contract("Echo", json!({"value": {"type": "string"}})),
            move |request: ToolRequestCtx| {
                let p = p.clone();
                async move {
                    let now = p.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
                    p.peak.fetch_max(now, Ordering::SeqCst);
                    match p.random(4) {
                        0 if !p.always_pause => {}
                        0 => tokio::time::sleep(Duration::from_millis(1)).await,
                        ms => tokio::time::sleep(Duration::from_millis(ms)).await,
                    }
                    p.in_flight.fetch_sub(1, Ordering::SeqCst);
                    p.echoed.fetch_add(1, Ordering::SeqCst);
                    let value = request.arguments["value"].as_str().unwrap_or("").to_owned();
                    ToolResult::text(value.clone()).with_note(value)
                }
            },
        )
        .unwrap();
    for (name, ms) in [("Hang", None), ("Slow", Some(50))] {
        let p = probes.clone();
        registry
            .register(contract(name, json!({})), move |request: ToolRequestCtx| {
                p.dispatched.fetch_add(1, Ordering::SeqCst);
                p.tokens.lock().unwrap().push(request.cancel().clone());
                let mut guard = DropGuard {
                    probes: p.clone(),
                    finished: false,
                };
                async move {
                    match ms {
                        Some(ms) => tokio::time::sleep(Duration::from_millis(ms)).await,
                        None => std::future::pending::<()>().await,
                    }
                    guard.finished = true;
                    guard.probes.completed.fetch_add(1, Ordering::SeqCst);
                    ToolResult::text("done")
                }
            })
            .unwrap();
    }
    registry
        .register(
            contract("Boom", json!({})),
            |_request: ToolRequestCtx| async move {
                tokio::task::yield_now().await;
                panic!("kaboom");
                #[allow(unreachable_code)]
                ToolResult::text("")
            },
        )
        .unwrap();
    registry
        .register(
            contract("BoomNow", json!({})),
            |_request: ToolRequestCtx| -> std::future::Ready<ToolResult> { panic!("at once") },
        )
        .unwrap();
    let p = probes.clone();
    registry
        .register(
            contract("Tick", json!({})),
            move |_request: ToolRequestCtx| {
                let p = p.clone();
                async move {
                    tokio::time::sleep(Duration::from_millis(1)).await;
                    ToolResult::text(p.busy_done.load(Ordering::SeqCst).to_string())
                }
            },
        )
        .unwrap();
    let p = probes.clone();
    registry
        .register(
            contract(
                "Read",
                json!({"file_path": {"type": "string"}, "limit": {"type": "integer"}}),
            ),
            move |_request: ToolRequestCtx| {
                p.dispatched.fetch_add(1, Ordering::SeqCst);
                async { ToolResult::text("contents") }
            },
        )
        .unwrap();
    Arc::new(registry)
}

fn runner(probes: &Arc<Probes>, limits: Limits) -> Runner {
    Runner::new(registry(probes)).with_limits(limits)
}

fn opts(id: &str) -> RunOptions {
    RunOptions::new().id(id).cancel(CancelToken::new())
}

fn statuses(outcome: &ptc_runtime::Outcome) -> Vec<Status> {
    outcome.calls.iter().map(|c| c.status).collect()
}

/// Whether every cancellation token handed to a Hang or Slow call has been cancelled.
fn every_token_cancelled(probes: &Probes) -> bool {
    probes
        .tokens
        .lock()
        .unwrap()
        .iter()
        .all(CancelToken::is_cancelled)
}

/// Cancels `token` after `ms` milliseconds.
fn cancel_after(token: &CancelToken, ms: u64) {
    let token = token.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(ms)).await;
        token.cancel();
    });
}

/// Cancels `token` as soon as an Echo call has answered: a test that wants the Echo among
/// its siblings to succeed does not race a fixed timer against a loaded machine.
fn cancel_once_echoed(token: &CancelToken, probes: &Arc<Probes>) {
    let (token, probes) = (token.clone(), probes.clone());
    tokio::spawn(async move {
        while probes.echoed.load(Ordering::SeqCst) == 0 {
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        token.cancel();
    });
}

#[tokio::test]
async fn a_hanging_tool_times_out_and_an_interrupt_cancels_its_siblings() {
    let probes = Arc::new(Probes::default());
    let limits = Limits {
        tool_timeout_ms: Some(20),
        ..Limits::default()
    };
    let outcome = runner(&probes, limits)
        .run("(list (Hang) (Echo :value \"after\"))", opts("t"))
        .await;
    assert_eq!(outcome.kind, OutcomeKind::Completed);
    assert_eq!(
        outcome.text,
        "((:error \"Error: Hang timed out after 20 ms\") \"after\")"
    );
    assert_eq!(statuses(&outcome), [Status::Error, Status::Success]);
    assert!(every_token_cancelled(&probes));
    assert_eq!(probes.dropped.load(Ordering::SeqCst), 1);

    // Without a timeout, interrupting the run cancels and drops every sibling in flight.
    let probes = Arc::new(Probes::default());
    let options = opts("i");
    cancel_once_echoed(options.cancel_token(), &probes);
    let started = Instant::now();
    let outcome = runner(&probes, Limits::default())
        .run(
            "(parallel (Hang) (Hang) (Slow) (Echo :value \"e\"))",
            options,
        )
        .await;
    assert_eq!(outcome.kind, OutcomeKind::Interrupted);
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(outcome.error.as_ref().unwrap().kind, "interrupted");
    assert_eq!(
        statuses(&outcome),
        [
            Status::Cancelled,
            Status::Cancelled,
            Status::Cancelled,
            Status::Success
        ]
    );
    assert_eq!(
        outcome.text,
        "Error: script interrupted\n\nNested call audit:\n- i/1 Hang {} (cancelled)\n\
         - i/2 Hang {} (cancelled)\n- i/3 Slow {} (cancelled)\n- i/4 Echo {\"value\":\"e\"} (success)"
    );
    let tokens = probes.tokens.lock().unwrap().clone();
    assert_eq!(tokens.len(), 3);
    assert!(tokens.iter().all(CancelToken::is_cancelled));
    // No call outlives the run: all three futures were dropped, none finished later.
    assert_eq!(probes.dropped.load(Ordering::SeqCst), 3);
    tokio::time::sleep(Duration::from_millis(60)).await;
    assert_eq!(probes.completed.load(Ordering::SeqCst), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_panicking_tool_is_a_guest_error_and_other_runs_are_unaffected() {
    let probes = Arc::new(Probes::default());
    let runner = runner(&probes, Limits::default());
    let (first, second) = (runner.clone(), runner.clone());
    let panicking = tokio::spawn(async move {
        first
            .run(
                "(list (Boom) (BoomNow) (Echo :value \"still here\"))",
                opts("p"),
            )
            .await
    });
    let healthy = tokio::spawn(async move {
        second
            .run(
                "(mapcar (lambda (v) (Echo :value v)) (list \"a\" \"b\" \"c\"))",
                opts("h"),
            )
            .await
    });
    let (panicking, healthy) = (panicking.await.unwrap(), healthy.await.unwrap());
    assert_eq!(panicking.kind, OutcomeKind::Completed);
    assert_eq!(
        panicking.text,
        "((:error \"Error: Boom failed: the tool crashed (details are in the host's log)\") (:error \"Error: BoomNow failed: the tool crashed (details are in the host's log)\") \
         \"still here\")"
    );
    assert_eq!(
        statuses(&panicking),
        [Status::Error, Status::Error, Status::Success]
    );
    assert_eq!(healthy.kind, OutcomeKind::Completed);
    assert_eq!(healthy.text, "(\"a\" \"b\" \"c\")");
    // A direct call to a panicking tool is a tool error, not a crash.
    let direct = runner.run("(Boom)", opts("d")).await;
    assert_eq!(direct.kind, OutcomeKind::ToolError);
    assert_eq!(
        direct.text,
        "Error: Boom failed: the tool crashed (details are in the host's log)"
    );
}

/// Inline handlers are not woken by their tokens (the driver polls them after cancelling):
/// a lone call, a few and a batch larger than the driver's vector (a `FuturesUnordered`)
/// still end at a per-call timeout and at the host's cancellation, every future dropped.
#[tokio::test]
async fn inline_handlers_end_at_timeouts_and_cancellation_in_every_batch_size() {
    for hangs in [1usize, 3, 10] {
        let calls = vec!["(Hang)"; hangs].join(" ");
        let probes = Arc::new(Probes::default());
        let limits = Limits {
            tool_timeout_ms: Some(20),
            parallelism: 16,
            ..Limits::default()
        };
        let started = Instant::now();
        let outcome = runner(&probes, limits)
            .with_isolation(ptc_runtime::Isolation::Inline)
            .run(&format!("(length (parallel {calls} (Slow)))"), opts("t"))
            .await;
        assert_eq!(outcome.kind, OutcomeKind::Completed, "{outcome:?}");
        assert_eq!(outcome.text, (hangs + 1).to_string());
        assert!(started.elapsed() < Duration::from_secs(2), "{hangs}");
        assert_eq!(
            statuses(&outcome),
            vec![Status::Error; hangs + 1],
            "{hangs}"
        );
        assert_eq!(probes.dropped.load(Ordering::SeqCst), hangs as u64 + 1);

        let probes = Arc::new(Probes::default());
        let options = opts("c");
        cancel_after(options.cancel_token(), 20);
        let started = Instant::now();
        let limits = Limits {
            parallelism: 16,
            ..Limits::default()
        };
        let outcome = runner(&probes, limits)
            .with_isolation(ptc_runtime::Isolation::Inline)
            .run(&format!("(parallel {calls})"), options)
            .await;
        assert_eq!(outcome.kind, OutcomeKind::Interrupted, "{hangs}");
        assert!(started.elapsed() < Duration::from_secs(2), "{hangs}");
        assert_eq!(statuses(&outcome), vec![Status::Cancelled; hangs]);
        assert_eq!(probes.dropped.load(Ordering::SeqCst), hangs as u64);
        assert!(every_token_cancelled(&probes));
    }
}

#[tokio::test]
async fn host_cancellation_mid_batch_drops_running_calls_and_dispatches_nothing_more() {
    let probes = Arc::new(Probes::default());
    let limits = Limits {
        parallelism: 2,
        ..Limits::default()
    };
    let options = opts("c");
    cancel_after(options.cancel_token(), 10);
    let outcome = runner(&probes, limits)
        .run(
            "(progn (parallel (Slow) (Slow) (Slow) (Slow) (Slow) (Slow)) (Slow))",
            options,
        )
        .await;
    assert_eq!(outcome.kind, OutcomeKind::Interrupted);
    assert_eq!(
        outcome.error.as_ref().unwrap().message,
        "script interrupted"
    );
    assert_eq!(statuses(&outcome), [Status::Cancelled; 6]);
    // Only the two running calls were ever dispatched; both were dropped, and none
    // completes or starts after the cancellation.
    assert_eq!(probes.dispatched.load(Ordering::SeqCst), 2);
    assert_eq!(probes.dropped.load(Ordering::SeqCst), 2);
    tokio::time::sleep(Duration::from_millis(70)).await;
    assert_eq!(probes.dispatched.load(Ordering::SeqCst), 2);
    assert_eq!(probes.completed.load(Ordering::SeqCst), 0);

    // Cancelled between two sequential calls: the second is never dispatched.
    let probes = Arc::new(Probes::default());
    let options = opts("s");
    cancel_after(options.cancel_token(), 10);
    let outcome = runner(&probes, Limits::default())
        .run("(list (Slow) (Slow))", options)
        .await;
    assert_eq!(outcome.kind, OutcomeKind::Interrupted);
    assert_eq!(statuses(&outcome), [Status::Cancelled]);
    assert_eq!(probes.dispatched.load(Ordering::SeqCst), 1);

    // A run cancelled before it starts dispatches nothing.
    let probes = Arc::new(Probes::default());
    let options = opts("b");
    options.cancel_token().cancel();
    let outcome = runner(&probes, Limits::default())
        .run("(list (Slow))", options)
        .await;
    assert_eq!(outcome.kind, OutcomeKind::Interrupted);
    assert_eq!(outcome.text, "Error: script interrupted");
    assert_eq!(probes.dispatched.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn results_join_by_position_over_many_shuffled_replays() {
    const REPLAYS: usize = 200;
    const CALLS: usize = 8;
    let probes = Arc::new(Probes {
        seed: AtomicU64::new(0x9E37_79B9_7F4A_7C15),
        ..Probes::default()
    });
    let runner = runner(&probes, Limits::default());
    let values: Vec<String> = (0..CALLS).map(|i| format!("v{i}")).collect();
    let script = format!(
        "(parallel {})",
        values
            .iter()
            .map(|v| format!("(Echo :value \"{v}\")"))
            .collect::<Vec<_>>()
            .join(" ")
    );
    let expected = format!(
        "({})",
        values
            .iter()
            .map(|v| format!("\"{v}\""))
            .collect::<Vec<_>>()
            .join(" ")
    );
    let mut shuffled = 0;
    // Replays run 25 at a time so the whole test takes a few tens of milliseconds.
    for chunk in 0..REPLAYS / 25 {
        let runs = (0..25).map(|i| runner.run(&script, opts(&format!("r{chunk}-{i}"))));
        for outcome in futures::future::join_all(runs).await {
            assert_eq!(outcome.kind, OutcomeKind::Completed);
            assert_eq!(outcome.text, expected);
            // Notes arrive in completion order.
            assert_eq!(outcome.notes.len(), CALLS);
            if *outcome.notes != *values {
                shuffled += 1;
            }
        }
    }
    assert!(
        shuffled > REPLAYS / 2,
        "only {shuffled} replays were shuffled"
    );
    // A call nested in a parallel argument (H50) makes its entry a branch (deviation 130):
    // the inner call goes out in the first round with the other entry's call, the outer
    // one in the second round; the values keep source order.
    let outcome = runner
        .run(
            "(parallel (Echo :value (Echo :value \"inner\")) (Echo :value \"b\"))",
            opts("n"),
        )
        .await;
    assert_eq!(outcome.kind, OutcomeKind::Completed);
    assert_eq!(outcome.text, "(\"inner\" \"b\")");
    let issued: Vec<_> = outcome
        .calls
        .iter()
        .map(|c| (c.id.to_string(), c.args.as_deref().cloned()))
        .collect();
    assert_eq!(
        issued,
        [
            ("n/1".to_owned(), Some(json!({"value": "inner"}))),
            ("n/2".to_owned(), Some(json!({"value": "b"}))),
            ("n/3".to_owned(), Some(json!({"value": "inner"}))),
        ]
    );
    let outcome = runner
        .run(
            "(let ((v (Echo :value \"inner\"))) (parallel (Echo :value v) (Echo :value \"b\")))",
            opts("m"),
        )
        .await;
    assert_eq!(outcome.kind, OutcomeKind::Completed);
    assert_eq!(outcome.text, "(\"inner\" \"b\")");
    assert_eq!(outcome.notes[0], "inner");
    assert_eq!(outcome.stats.tool_calls, 3);
}

/// Branches that call tools in sequence (deviation 130), under shuffled completion: the
/// values stay in source order and the audit numbers calls by issue order (round by
/// round, branches in start order), never by arrival.
#[tokio::test]
async fn branch_results_and_audit_order_ignore_arrival_order() {
    const REPLAYS: usize = 100;
    let probes = Arc::new(Probes {
        seed: AtomicU64::new(0x2545_F491_4F6C_DD1D),
        ..Probes::default()
    });
    let runner = runner(&probes, Limits::default());
    let script = "(parallel-map (lambda (v) (concat (Echo :value v) \"-\" \
                  (Echo :value (concat v \"2\")))) (list \"a\" \"b\" \"c\" \"d\" \"e\" \"f\"))";
    // Four live branches: round 1 a b c d, round 2 a2 b2 c2 d2 (a..d finish, e f start),
    // round 3 e f, round 4 e2 f2.
    let order = [
        "a", "b", "c", "d", "a2", "b2", "c2", "d2", "e", "f", "e2", "f2",
    ];
    let mut shuffled = 0;
    for chunk in 0..REPLAYS / 25 {
        let runs = (0..25).map(|i| runner.run(script, opts(&format!("b{chunk}-{i}"))));
        for outcome in futures::future::join_all(runs).await {
            assert_eq!(outcome.kind, OutcomeKind::Completed);
            assert_eq!(
                outcome.text,
                "(\"a-a2\" \"b-b2\" \"c-c2\" \"d-d2\" \"e-e2\" \"f-f2\")"
            );
            let issued: Vec<String> = outcome
                .calls
                .iter()
                .map(|c| {
                    c.args.as_deref().unwrap()["value"]
                        .as_str()
                        .unwrap()
                        .to_owned()
                })
                .collect();
            assert_eq!(issued, order);
            for (n, call) in outcome.calls.iter().enumerate() {
                assert!(call.id.ends_with(&format!("/{}", n + 1)), "{}", call.id);
            }
            // Notes arrive in completion order.
            if outcome.notes.iter().map(String::as_str).ne(order) {
                shuffled += 1;
            }
        }
    }
    assert!(
        shuffled > REPLAYS / 2,
        "only {shuffled} replays were shuffled"
    );
}

#[tokio::test]
async fn observed_concurrency_never_exceeds_parallelism() {
    for parallelism in [1, 2, 3, 5] {
        let probes = Arc::new(Probes {
            seed: AtomicU64::new(7 + parallelism),
            always_pause: true,
            ..Probes::default()
        });
        let limits = Limits {
            parallelism,
            ..Limits::default()
        };
        let script = "(parallel-map (lambda (v) (Echo :value v)) \
                      (list \"a\" \"b\" \"c\" \"d\" \"e\" \"f\" \"g\" \"h\" \"i\" \"j\" \"k\" \"l\"))";
        let outcome = runner(&probes, limits).run(script, opts("c")).await;
        assert_eq!(outcome.kind, OutcomeKind::Completed);
        assert_eq!(
            outcome.text,
            "(\"a\" \"b\" \"c\" \"d\" \"e\" \"f\" \"g\" \"h\" \"i\" \"j\" \"k\" \"l\")"
        );
        // Every call pauses, so the first wave fills every slot; none is ever exceeded.
        assert_eq!(probes.peak.load(Ordering::SeqCst), parallelism);
        assert_eq!(probes.in_flight.load(Ordering::SeqCst), 0);
    }
}

#[test]
fn a_busy_run_does_not_starve_another_runs_tool_calls() {
    // The busy run loops until cancelled (its step budget, ~10^9, only bounds a failing
    // test), so the outcome does not depend on how fast either run is: the five ticks must
    // all complete while it computes, and only then is it interrupted.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let probes = Arc::new(Probes::default());
    let limits = Limits {
        steps: 1_000_000_000,
        ..Limits::default()
    };
    let runner = runner(&probes, limits);
    runtime.block_on(async {
        let stop = CancelToken::new();
        let busy = {
            let (runner, probes, stop) = (runner.clone(), probes.clone(), stop.clone());
            tokio::spawn(async move {
                let options = RunOptions::new().id("busy").cancel(stop);
                let outcome = runner
                    .run("(let ((n 0)) (while t (setq n (+ n 1))) n)", options)
                    .await;
                probes.busy_done.store(true, Ordering::SeqCst);
                outcome
            })
        };
        let ticks = runner
            .run("(list (Tick) (Tick) (Tick) (Tick) (Tick))", opts("ticks"))
            .await;
        stop.cancel();
        let busy = busy.await.unwrap();
        assert_eq!(ticks.kind, OutcomeKind::Completed);
        // Every tick ran while the busy run was still computing.
        assert_eq!(
            ticks.text,
            "(\"false\" \"false\" \"false\" \"false\" \"false\")"
        );
        assert_eq!(busy.kind, OutcomeKind::Interrupted, "{}", busy.text);
    });
}

#[tokio::test]
async fn argument_conversion_errors_are_guest_values_with_the_original_messages() {
    let probes = Arc::new(Probes::default());
    let runner = runner(&probes, Limits::default());
    // Computed arguments reach dispatch (literal ones are judged by preflight, below).
    for (call, message) in [
        (
            "(Read (car '(\"a.rs\")) 1)",
            "Read: arguments must be :keyword value pairs",
        ),
        (
            "(Read (car '(:file_path)))",
            "Read: argument :file_path has no value",
        ),
        (
            "(Read :file_path \"a\" (car '(:limit)))",
            "Read: argument :limit has no value",
        ),
        (
            "(Read (car '(:path)) \"a.rs\")",
            "Read has no argument `path'; it accepts: file_path, limit",
        ),
        (
            "(Read :file_path \"a\" :limit (car '(\"ten\")))",
            "Read: argument limit: \"ten\" is not of type \"integer\"",
        ),
    ] {
        let outcome = runner.run(&format!("(list {call})"), opts("a")).await;
        assert_eq!(outcome.kind, OutcomeKind::Completed, "{call}");
        // The message prints as a Lisp string inside the returned list.
        let printed = message.replace('"', "\\\"");
        assert_eq!(
            outcome.text,
            format!("((:error \"Error: {printed}\"))"),
            "{call}"
        );
        assert_eq!(statuses(&outcome), [Status::Error]);
        // The same call as the whole script is a direct call that fails as a tool error.
        let outcome = runner.run(call, opts("d")).await;
        assert_eq!(outcome.kind, OutcomeKind::ToolError, "{call}");
        assert_eq!(outcome.text, format!("Error: {message}"));
        assert_eq!(outcome.error.unwrap().message, message);
    }
    // The same mistakes written as literals are refused before anything runs.
    for (call, message) in [
        (
            "(Read \"a.rs\" 1)",
            "Read: arguments must be :keyword value pairs; \"a.rs\" is not a keyword (try :file_path \"a.rs\")",
        ),
        (
            "(Read :file_path)",
            "Read: argument :file_path has no value",
        ),
        (
            "(Read :path \"a.rs\")",
            "Read has no argument :path; it accepts: :file_path, :limit",
        ),
        (
            "(Read :file_path \"a\" :limit \"ten\")",
            "Read :limit expects an integer, got the string \"ten\"",
        ),
    ] {
        for script in [format!("(list {call})"), call.to_owned()] {
            let outcome = runner.run(&script, opts("p")).await;
            assert_eq!(outcome.kind, OutcomeKind::ScriptError, "{script}");
            assert_eq!(outcome.error.as_ref().unwrap().kind, "preflight");
            assert_eq!(outcome.text, format!("Error: {message}"), "{script}");
            assert!(outcome.calls.is_empty());
        }
    }
    assert_eq!(probes.dispatched.load(Ordering::SeqCst), 0);
    // A closure never crosses the tool boundary: the script fails before dispatch.
    let outcome = runner
        .run("(list (Read :file_path (lambda (x) x)))", opts("f"))
        .await;
    assert_eq!(outcome.kind, OutcomeKind::ScriptError);
    assert_eq!(outcome.error.as_ref().unwrap().kind, "value");
    assert_eq!(
        outcome.text,
        "Error: Guest closures cannot cross a tool or result boundary"
    );
    assert!(outcome.calls.is_empty());
}

#[tokio::test]
async fn a_shared_structure_bomb_argument_fails_before_dispatch() {
    let probes = Arc::new(Probes::default());
    let started = Instant::now();
    let outcome = runner(&probes, Limits::default())
        .run(
            "(let ((x (list 1 2))) (dotimes (i 64) (setq x (list x x))) (Read :file_path x))",
            opts("bomb"),
        )
        .await;
    assert_eq!(outcome.kind, OutcomeKind::ScriptError);
    let error = outcome.error.as_ref().unwrap();
    assert_eq!(error.kind, "value");
    assert_eq!(
        error.message,
        format!(
            "Guest value exceeds its {} node budget",
            Limits::default().value_nodes
        )
    );
    assert!(outcome.calls.is_empty());
    assert_eq!(outcome.stats.tool_calls, 0);
    assert_eq!(probes.dispatched.load(Ordering::SeqCst), 0);
    assert!(started.elapsed() < Duration::from_secs(2));
}
