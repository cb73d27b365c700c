//! What handler isolation costs per nested call: the same 2,000 sequential calls under
//! `Isolation::Thread` (the default: each handler on the blocking pool) and
//! `Isolation::Inline`, minus the same loop without calls; best of five.
//!
//! `cargo run --release -p ptc-runtime --example isolation_cost`

use ptc_runtime::{
    Isolation, Registry, RunOptions, Runner, ToolContract, ToolRequestCtx, ToolResult,
};
use ptc_vm::Limits;
use serde_json::json;
use std::sync::Arc;
use std::time::{Duration, Instant};

const CALLS: u64 = 2_000;

fn main() {
    let mut registry = Registry::new();
    registry
        .register(
            ToolContract::new("Echo", "Echoes i.", json!({"type": "object"})),
            |request: ToolRequestCtx| async move { ToolResult::json(request.arguments["i"].clone()) },
        )
        .expect("registers");
    let registry = Arc::new(registry);
    let limits = Limits {
        tool_calls: CALLS,
        ..Limits::default()
    };
    let with_calls = format!("(let ((s 0)) (dotimes (i {CALLS}) (setq s (+ s (Echo :i i)))) s)");
    let without = format!("(let ((s 0)) (dotimes (i {CALLS}) (setq s (+ s i))) s)");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    for isolation in [Isolation::Thread, Isolation::Inline] {
        let runner = Runner::new(registry.clone())
            .with_limits(limits)
            .with_isolation(isolation);
        let best = |script: &str| {
            (0..5)
                .map(|_| {
                    let started = Instant::now();
                    let outcome = runtime.block_on(runner.run(script, RunOptions::default()));
                    assert!(outcome.is_completed(), "{}", outcome.text);
                    started.elapsed()
                })
                .min()
                .unwrap_or(Duration::ZERO)
        };
        let per_call = best(&with_calls).saturating_sub(best(&without)) / CALLS as u32;
        println!(
            "{isolation:?}: {:.2} us per nested call",
            per_call.as_secs_f64() * 1e6
        );
    }
}
