//! Measures the end-to-end overhead of one nested call through [`Runner`]: a composed script
//! making 10 000 sequential calls of a tool that returns a short string, against the same
//! loop without the call. Not a test and not a benchmark harness; run it in release:
//!
//! ```text
//! cargo run --release -p ptc-runtime --example nested_overhead
//! ```

use ptc_runtime::{Registry, RunOptions, Runner, ToolContract, ToolRequestCtx, ToolResult};
use ptc_vm::Limits;
use serde_json::json;
use std::sync::Arc;
use std::time::{Duration, Instant};

const CALLS: u64 = 10_000;
const ROUNDS: usize = 5;

fn main() {
    let mut registry = Registry::new();
    registry
        .register(
            ToolContract::new(
                "Echo",
                "Returns a short string.",
                json!({"type": "object", "properties": {"value": {"type": "string"}}}),
            ),
            |_request: ToolRequestCtx| async { ToolResult::text("ok") },
        )
        .expect("registers");
    let limits = Limits {
        tool_calls: CALLS,
        steps: 100 * CALLS,
        ..Limits::default()
    };
    let runner = Runner::new(Arc::new(registry)).with_limits(limits);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let with_calls = format!(
        "(let ((n 0)) (dotimes (i {CALLS}) (setq n (+ n (length (Echo :value \"x\"))))) n)"
    );
    let without = format!("(let ((n 0)) (dotimes (i {CALLS}) (setq n (+ n (length \"ok\")))) n)");
    let best = |script: &str| {
        (0..ROUNDS)
            .map(|_| {
                let started = Instant::now();
                let outcome = runtime.block_on(runner.run(script, RunOptions::default()));
                let elapsed = started.elapsed();
                assert_eq!(outcome.text, (2 * CALLS).to_string(), "{}", outcome.text);
                elapsed
            })
            .min()
            .unwrap_or(Duration::ZERO)
    };
    let calls = best(&with_calls);
    let baseline = best(&without);
    let per_call = |d: Duration| d.as_secs_f64() * 1e6 / CALLS as f64;
    println!("{CALLS} sequential nested calls, best of {ROUNDS} runs:");
    println!(
        "  with the call:    {:>8.1} ms  ({:.2} µs/iteration)",
        calls.as_secs_f64() * 1e3,
        per_call(calls)
    );
    println!(
        "  without the call: {:>8.1} ms  ({:.2} µs/iteration)",
        baseline.as_secs_f64() * 1e3,
        per_call(baseline)
    );
    println!(
        "  nested call overhead: {:.2} µs/call",
        per_call(calls.saturating_sub(baseline))
    );
}
