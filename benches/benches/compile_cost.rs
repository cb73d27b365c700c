//! The cost of compiling the 8-line agent script of issue 19 (`benches/programs/agent.lisp`:
//! two sequential calls, one `parallel` of three, plist and string work) and the heap
//! allocations of compiling it and of a whole run of it through [`Runner`] (tools answer at
//! once, handlers inline).
//!
//! Not a criterion bench: wall time on a shared machine is noisy, so each figure is the
//! minimum over `BATCHES` batches of `PER_BATCH` iterations, and the load average is
//! printed beside it. Allocations are counted exactly by a counting global allocator
//! (`stats_alloc`), the same on every run. Targets: compile ≤ 10 µs; ≤ 100 allocations for
//! a whole run.
//!
//! ```text
//! cargo bench -p ptc-benches --bench compile_cost
//! ```
//!
//! `-- --allocations` prints the allocation columns only (the µs column is then 0).
//!
//! Instruction counts: `valgrind --tool=callgrind --toggle-collect='*measure_compile*'
//! target/release/deps/compile_cost-HASH --callgrind 1000`.

use ptc_compiler::internals::read_script;
use ptc_compiler::{Roster, compile};
use ptc_runtime::{
    Isolation, Registry, RunOptions, Runner, ToolContract, ToolRequestCtx, ToolResult,
};
use ptc_vm::Limits;
use serde_json::json;
use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};
use std::alloc::System;
use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

const BATCHES: usize = 30;
const PER_BATCH: u32 = 200;

/// The agent script without its comment lines: exactly the 8 lines a model would send.
fn script() -> String {
    include_str!("../programs/agent.lisp")
        .lines()
        .filter(|line| !line.starts_with(";;"))
        .map(|line| format!("{line}\n"))
        .collect()
}

/// The three tools the script calls, with JSON Schemas (so preflight judges arguments).
fn registry() -> Registry {
    let mut registry = Registry::new();
    let by_id = json!({"type": "object", "properties": {"id": {"type": "integer"}},
                       "required": ["id"]});
    registry
        .register(
            ToolContract::new("get_user", "A user by id.", by_id.clone()),
            |_r: ToolRequestCtx| async { ToolResult::json(json!({"id": 42, "name": "ada"})) },
        )
        .expect("registers");
    registry
        .register(
            ToolContract::new(
                "list_orders",
                "A user's order ids.",
                json!({"type": "object",
                       "properties": {"user": {"type": "integer"}, "limit": {"type": "integer"}},
                       "required": ["user"]}),
            ),
            |_r: ToolRequestCtx| async { ToolResult::json(json!([7, 8, 9])) },
        )
        .expect("registers");
    registry
        .register(
            ToolContract::new("get_order", "An order by id.", by_id),
            |r: ToolRequestCtx| async move {
                ToolResult::json(json!({"id": r.arguments["id"], "total": 12.5}))
            },
        )
        .expect("registers");
    registry
}

const EXPECTED: &str = r#"(:name "ADA" :count 3 :summary "7=12.5, 8=12.5, 9=12.5")"#;

#[inline(never)]
fn measure_compile(source: &str, roster: &Roster, limits: &Limits) -> bool {
    compile(source, roster, limits).is_ok()
}

/// The minimum over the batches of the mean time of one call of `f`.
fn best(mut f: impl FnMut()) -> Duration {
    (0..BATCHES)
        .map(|_| {
            let started = Instant::now();
            for _ in 0..PER_BATCH {
                f();
            }
            started.elapsed() / PER_BATCH
        })
        .min()
        .unwrap_or_default()
}

/// Allocations (including reallocations) and bytes allocated by one call of `f`.
fn allocations(mut f: impl FnMut()) -> (usize, usize) {
    f(); // warm any lazily built tables
    let region = Region::new(GLOBAL);
    f();
    let stats = region.change();
    (
        stats.allocations + stats.reallocations,
        stats.bytes_allocated,
    )
}

fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|l| l.split_whitespace().next().map(str::to_owned))
        .unwrap_or_else(|| "?".to_owned())
}

fn main() {
    let source = script();
    let limits = Limits::default();
    let registry = Arc::new(registry());
    let roster = registry.roster();
    let arguments: Vec<String> = std::env::args().collect();
    if let Some(at) = arguments.iter().position(|a| a == "--callgrind") {
        let times: u32 = arguments
            .get(at + 1)
            .and_then(|t| t.parse().ok())
            .unwrap_or(1000);
        for _ in 0..times {
            black_box(measure_compile(&source, &roster, &limits));
        }
        return;
    }
    let runner = Runner::new(Arc::clone(&registry)).with_isolation(Isolation::Inline);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let compiled = compile(&source, &roster, &limits).expect("the agent script compiles");
    let outcome = runtime.block_on(runner.run(&source, RunOptions::default()));
    assert_eq!(outcome.text, EXPECTED, "{outcome:?}");

    let read = || {
        black_box(read_script(&source, &limits).is_ok());
    };
    let compile_once = || {
        black_box(measure_compile(&source, &roster, &limits));
    };
    let run_compiled = || {
        let outcome = runtime.block_on(runner.run(
            ptc_runtime::Source::Program {
                program: &compiled.program,
                direct: None,
                text: &source,
            },
            RunOptions::default(),
        ));
        black_box(outcome);
    };
    let run_whole = || {
        black_box(runtime.block_on(runner.run(&source, RunOptions::default())));
    };
    println!(
        "agent script: {} lines, {} bytes; load {} at start; min of {BATCHES} batches of {PER_BATCH}",
        source.lines().count(),
        source.len(),
        load()
    );
    println!(
        "{:<28} {:>10} {:>12} {:>12}",
        "step", "µs", "allocations", "bytes"
    );
    // `--allocations`: the exact allocation counts only, without the timed batches.
    let timed = !arguments.iter().any(|a| a == "--allocations");
    let row = |name: &str, f: &mut dyn FnMut()| {
        let (count, bytes) = allocations(&mut *f);
        let time = if timed { best(&mut *f) } else { Duration::ZERO };
        println!(
            "{name:<28} {:>10.2} {count:>12} {bytes:>12}",
            time.as_secs_f64() * 1e6
        );
    };
    row("read (lex + parse)", &mut { read });
    row("compile (whole pipeline)", &mut { compile_once });
    row("run compiled (Runner::run, Source::Program)", &mut {
        run_compiled
    });
    row("compile + run (run)", &mut { run_whole });
    println!("load {} at end", load());
}
