//! The cost of resuming a durable run (issue 41, spec/reference/durable-runs.md): a script
//! that makes 100 sequential calls, answered at once, measured three ways:
//!
//! - `vm`: the compiled program on the bare machine, each call answered with the same
//!   string value (the VM time of the run: no envelope, no conversion, no audit);
//! - `original`: the same script through the sans-IO envelope, recording its journal, each
//!   call allowed and completed with a text result (what a host pays for a live run);
//! - `resume`: `Envelope::resume` from that journal (read back from its JSON text once,
//!   outside the loop: the store's read is not the engine's cost), every call answered from
//!   the journal, no dispatch.
//!
//! Target: `resume` ≤ 2 × `vm`. Wall time on a shared machine is noisy, so each figure is
//! the minimum over `BATCHES` batches of `PER_BATCH` runs, interleaved, with the load
//! average printed beside it. Without `--bench` (so under `cargo test`) it only checks that the
//! three give the same value and that the resume dispatches nothing.
//!
//! ```text
//! cargo bench -p ptc-benches --bench replay
//! ```

use ptc_compiler::{Roster, compile};
use ptc_core::{
    Approval, Catalog, Envelope, EnvelopeConfig, Event, Outcome, OutcomeKind, RunJournal,
    ToolContract, ToolResult,
};
use ptc_vm::{Limits, Machine, Step, Value};
use serde_json::json;
use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

const BATCHES: usize = 15;
const PER_BATCH: u32 = 40;

/// 100 sequential calls, each answer used.
const SCRIPT: &str = r#"(let ((total 0))
  (dotimes (i 100)
    (setq total (+ total (length (Read :v (number-to-string i))))))
  total)"#;

fn catalog() -> Arc<Catalog> {
    let mut catalog = Catalog::new();
    let schema = json!({"type": "object", "properties": {"v": {"type": "string"}}});
    catalog
        .add(ToolContract::new("Read", "Echoes v.", schema))
        .expect("one tool");
    Arc::new(catalog)
}

fn config(catalog: &Arc<Catalog>, limits: &Arc<Limits>) -> EnvelopeConfig {
    let mut config = EnvelopeConfig::new(Arc::clone(catalog), Arc::clone(limits), "run");
    config.options.record = true;
    config
}

/// Drives an envelope to its outcome, allowing and answering every call at once; the
/// number of dispatches.
fn drive(mut envelope: Envelope) -> (Outcome, usize) {
    let now = Duration::ZERO;
    let mut dispatched = 0;
    loop {
        match envelope.poll(now) {
            Event::Permission(calls) => {
                for call in calls {
                    envelope.allow(&call.id).expect("asked");
                }
            }
            Event::Dispatch(calls) => {
                for call in calls {
                    dispatched += 1;
                    let v = call.arguments["v"].as_str().unwrap_or("");
                    let result = ToolResult::text(format!("Read:{v}"));
                    envelope.complete(now, &call.id, result).expect("running");
                }
            }
            Event::Journal(_) => envelope.journal_written(true).expect("asked"),
            Event::Settled(outcome) => return (*outcome, dispatched),
            _ => {}
        }
    }
}

/// The bare machine, each call answered `Read:N`.
fn vm(program: &Arc<ptc_vm::Program>, limits: &Limits) -> Value {
    let mut machine = Machine::new(Arc::clone(program), *limits);
    let mut step = machine.step();
    loop {
        step = match step {
            Step::Pause => machine.step(),
            Step::Tool(request) => {
                let v = request
                    .args
                    .as_cons()
                    .and_then(|c| c.cdr().as_cons())
                    .and_then(|c| c.car().as_str().map(str::to_owned))
                    .unwrap_or_default();
                machine.resume_tool(Value::string(format!("Read:{v}")))
            }
            Step::Done(value) => return value,
            other => panic!("the bench script stopped on {other:?}"),
        };
    }
}

fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|l| l.split_whitespace().next().map(str::to_owned))
        .unwrap_or_else(|| "?".into())
}

fn main() {
    let limits = Limits::default();
    let shared_limits = Arc::new(limits);
    let catalog = catalog();
    let program = compile(SCRIPT, &Roster::new().tool("Read"), &limits)
        .expect("the bench script compiles")
        .program;

    let (original, dispatched) = drive(Envelope::compile(
        config(&catalog, &shared_limits),
        SCRIPT,
        Duration::ZERO,
    ));
    assert_eq!(original.kind, OutcomeKind::Completed, "{}", original.text);
    assert_eq!(dispatched, 100);
    let text = serde_json::to_string(original.journal.as_deref().expect("recorded"))
        .expect("a journal serialises");
    let journal: RunJournal = serde_json::from_str(&text).expect("and reads back");
    let decisions: [(String, Approval); 0] = [];
    let resumed = || {
        Envelope::resume(
            config(&catalog, &shared_limits),
            &journal,
            None,
            &decisions,
            Duration::ZERO,
        )
    };
    let (replayed, redispatched) = drive(resumed());
    assert_eq!(replayed.text, original.text);
    assert_eq!(
        redispatched, 0,
        "a resume from a complete journal dispatches nothing"
    );
    assert!(matches!(vm(&program, &limits), Value::Int(690)));
    // `cargo bench` passes `--bench`; under `cargo test` this is a check, not a measurement.
    if !std::env::args().any(|a| a == "--bench") {
        println!("replay bench: the three runs agree ({})", original.text);
        return;
    }

    let mut best = [f64::INFINITY; 3];
    for _ in 0..BATCHES {
        let started = Instant::now();
        for _ in 0..PER_BATCH {
            black_box(vm(&program, &limits));
        }
        best[0] = best[0].min(started.elapsed().as_secs_f64() / f64::from(PER_BATCH));
        let started = Instant::now();
        for _ in 0..PER_BATCH {
            black_box(drive(Envelope::compile(
                config(&catalog, &shared_limits),
                SCRIPT,
                Duration::ZERO,
            )));
        }
        best[1] = best[1].min(started.elapsed().as_secs_f64() / f64::from(PER_BATCH));
        let started = Instant::now();
        for _ in 0..PER_BATCH {
            black_box(drive(resumed()));
        }
        best[2] = best[2].min(started.elapsed().as_secs_f64() / f64::from(PER_BATCH));
    }
    let us = |s: f64| s * 1e6;
    println!(
        "replay bench, 100 calls, minimum of {BATCHES} × {PER_BATCH} runs (load {})",
        load()
    );
    println!("  vm        {:>9.1} µs", us(best[0]));
    println!(
        "  original  {:>9.1} µs  ({:.2} × vm)",
        us(best[1]),
        best[1] / best[0]
    );
    println!(
        "  resume    {:>9.1} µs  ({:.2} × vm, {:.2} × original; target ≤ 2 × vm)",
        us(best[2]),
        best[2] / best[0],
        best[2] / best[1]
    );
}
