//! Issue #19's throughput table: the 8-line agent script (`benches/programs/agent.lisp`: two sequential calls,
//! one `parallel` of three, plist and string work; every tool answers at once) run through
//! `Runner` many times.
//!
//! ```text
//! cargo bench -p ptc-benches --bench throughput                           # timing rows
//! cargo bench -p ptc-benches --bench throughput --features alloc-count    # memory rows
//! cargo bench -p ptc-benches --bench throughput -- workers                # rows whose name has "workers"
//! ```
//!
//! Timing rows: runs/s (the best of several batches), p50/p99 over every run of every
//! batch, for a compile every run, compiled once (`Runner::run` of a `Source::Program`) with either handler
//! isolation, the compiler alone, the VM alone (the same machine answered by a minimal host
//! loop: the same handler work, the results converted from the same JSON, the final value
//! rendered), and the
//! runtime's own work (compiled once minus the VM alone); then 1 and 2 tokio workers with 64
//! runs in flight, single-run latency on each, one current_thread runtime per thread, and the
//! VM alone on 1 and 2 threads.
//!
//! Memory rows (a counting global allocator, so a second build: its atomic counters would
//! distort the timing rows): allocations and bytes allocated per run, and the live heap per
//! suspended run with 1 k, 10 k and 100 k runs suspended at their first call (every run a
//! spawned tokio task, handlers inline, each waiting for a release signal).
//!
//! `PTC_THROUGHPUT_RUNS=N` makes it one batch of N runs, for instruction counts:
//! `PTC_THROUGHPUT_RUNS=200 valgrind --tool=callgrind target/release/deps/throughput-HASH
//! --bench compiled-once-inline` (and `vm-alone`; N=200 and N=400 differ by 200 runs).
//! `PTC_THROUGHPUT_SUSPENDED=N` runs the suspended rows at N runs only (for
//! `valgrind --tool=dhat`, whose peak then holds N suspended runs).
//!
//! Without `--bench` (under `cargo test`) every scenario runs once with tiny counts and
//! its answers are checked; nothing is timed seriously.

#![cfg_attr(feature = "alloc-count", allow(dead_code))]

#[cfg(feature = "alloc-count")]
use ptc_runtime::CancelToken;
use ptc_runtime::{
    Isolation, Registry, RunOptions, Runner, ToolContract, ToolRequestCtx, ToolResult,
};
use ptc_vm::{Limits, Machine, Program, Step, Value};
use serde_json::{Value as Json, json};
use std::sync::Arc;
#[cfg(feature = "alloc-count")]
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

#[cfg(feature = "alloc-count")]
#[global_allocator]
static GLOBAL: &stats_alloc::StatsAlloc<std::alloc::System> = &stats_alloc::INSTRUMENTED_SYSTEM;

#[cfg(all(feature = "mimalloc", not(feature = "alloc-count")))]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The agent script of the issue (`benches/programs/agent.lisp`, which `compile_cost.rs`
/// compiles too) without its comment lines: exactly the 8 lines a model would send.
fn script() -> &'static str {
    static SCRIPT: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    SCRIPT.get_or_init(|| {
        include_str!("../programs/agent.lisp")
            .lines()
            .filter(|line| !line.starts_with(";;"))
            .map(|line| format!("{line}\n"))
            .collect()
    })
}

/// What every run of [`script`] settles with.
const ANSWER: &str = r#"(:name "ADA" :count 3 :summary "7=12.5, 8=12.5, 9=12.5")"#;

/// The tools' answers, the same JSON for every host (and as `compile_cost.rs` answers).
fn answer(tool: &str, arguments: &Json) -> Json {
    match tool {
        "get_user" => json!({"id": 42, "name": "ada"}),
        "list_orders" => json!([7, 8, 9]),
        _ => json!({"id": arguments["id"], "total": 12.5}),
    }
}

/// The three tools the script calls, with the JSON Schemas `compile_cost.rs` gives them.
fn contracts() -> Vec<ToolContract> {
    let by_id = json!({"type": "object", "properties": {"id": {"type": "integer"}},
                       "required": ["id"]});
    vec![
        ToolContract::new("get_user", "A user by id.", by_id.clone()),
        ToolContract::new(
            "list_orders",
            "A user's order ids.",
            json!({"type": "object",
                   "properties": {"user": {"type": "integer"}, "limit": {"type": "integer"}},
                   "required": ["user"]}),
        ),
        ToolContract::new("get_order", "An order by id.", by_id),
    ]
}

/// A registry whose tools answer at once: synchronous handlers (no future per call)
/// giving structured results (no JSON text block nobody reads).
fn instant_registry() -> Arc<Registry> {
    let mut registry = Registry::new();
    for contract in contracts() {
        let tool = contract.name.clone();
        registry
            .register_sync(contract, move |request: ToolRequestCtx| {
                ToolResult::structured(answer(&tool, &request.arguments))
            })
            .expect("registers");
    }
    Arc::new(registry)
}

/// A registry whose tools count their calls and answer only once `release` is cancelled.
#[cfg(feature = "alloc-count")]
fn gated_registry(entered: Arc<AtomicUsize>, release: CancelToken) -> Arc<Registry> {
    let mut registry = Registry::new();
    for contract in contracts() {
        let tool: Arc<str> = contract.name.as_str().into();
        let entered = entered.clone();
        let release = release.clone();
        registry
            .register(contract, move |request: ToolRequestCtx| {
                entered.fetch_add(1, Ordering::Relaxed);
                // Like a handler waiting on I/O: it holds its request while it waits and
                // builds its answer afterwards (the answer is not part of a waiting call).
                let release = release.clone();
                let tool = tool.clone();
                async move {
                    release.cancelled().await;
                    ToolResult::json(answer(&tool, &request.arguments))
                }
            })
            .expect("registers");
    }
    Arc::new(registry)
}

fn compile(registry: &Registry) -> (Arc<Program>, Option<String>) {
    let compiled = ptc_compiler::compile(script(), &registry.roster(), &Limits::default())
        .expect("the agent script compiles");
    (compiled.program, compiled.direct)
}

fn current_thread() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
}

fn multi_thread(workers: usize) -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(workers)
        .enable_all()
        .build()
        .expect("runtime")
}

fn check(outcome: &ptc_runtime::Outcome) {
    assert_eq!(outcome.text, ANSWER, "{outcome:?}");
    assert_eq!(outcome.calls.len(), 5);
}

/// The VM alone: the machine stepped by a minimal host that answers every request with
/// the same handler work (the JSON answer as a structured [`ToolResult`]) converted to a
/// guest value, and renders the final value.
/// `limits` is shared, as a runner shares its budgets with every run.
fn vm_alone(program: &Arc<Program>, limits: &Arc<Limits>) -> String {
    let mut machine = Machine::new(Arc::clone(program), Arc::clone(limits));
    let mut step = machine.step();
    loop {
        step = match step {
            Step::Pause => machine.step(),
            Step::Tool(request) => {
                let value = guest_answer(&mut machine, &request, limits);
                machine.resume_tool(value)
            }
            Step::Batch(requests) => {
                let values = requests
                    .iter()
                    .map(|request| guest_answer(&mut machine, request, limits))
                    .collect();
                machine.resume_batch(values)
            }
            Step::Done(value) => return machine.render(&value),
            Step::Error(error) => panic!("{}", error.message()),
        };
    }
}

fn guest_answer(machine: &mut Machine, request: &ptc_vm::ToolRequest, limits: &Limits) -> Value {
    let arguments = ptc_runtime::core::convert::to_json(&request.args, machine.symbols(), limits)
        .expect("arguments convert");
    // A keyword plist (:id 42) converts to {"id": 42}, as the runtime's arguments do.
    let object = match arguments {
        Json::Object(object) => object,
        other => panic!("keyword arguments expected, not {other}"),
    };
    // The same handler work as the registered tools: the answer as a `ToolResult`.
    let result = ToolResult::structured(answer(&request.tool, &Json::Object(object)));
    let json = result.structured.as_ref().expect("structured");
    ptc_runtime::core::convert::from_json(json, machine.symbols_mut(), limits)
        .expect("result converts")
}

/// How much of everything to do.
#[derive(Clone, Copy)]
struct Scale {
    /// Runs per batch.
    runs: usize,
    /// Batches (the best one gives runs/s).
    batches: usize,
    /// Runs in flight for the worker rows.
    in_flight: usize,
    /// Suspended-run counts.
    #[cfg_attr(not(feature = "alloc-count"), allow(dead_code))]
    suspended: [usize; 3],
}

const BENCH: Scale = Scale {
    runs: 4_000,
    batches: 7,
    in_flight: 64,
    suspended: [1_000, 10_000, 100_000],
};
const SMOKE: Scale = Scale {
    runs: 3,
    batches: 1,
    in_flight: 2,
    suspended: [1, 2, 3],
};

/// Per-run samples of every batch plus the best batch's throughput.
struct Timing {
    samples: Vec<Duration>,
    best_runs_per_s: f64,
    best_mean: Duration,
}

impl Timing {
    fn new() -> Self {
        Timing {
            samples: Vec::new(),
            best_runs_per_s: 0.0,
            best_mean: Duration::MAX,
        }
    }

    fn batch(&mut self, runs: usize, wall: Duration, samples: &[Duration]) {
        let per_s = runs as f64 / wall.as_secs_f64().max(1e-12);
        if per_s > self.best_runs_per_s {
            self.best_runs_per_s = per_s;
            self.best_mean = wall / u32::try_from(runs.max(1)).unwrap_or(u32::MAX);
        }
        self.samples.extend_from_slice(samples);
    }

    fn quantile(&self, q: f64) -> Duration {
        let mut sorted = self.samples.clone();
        sorted.sort_unstable();
        if sorted.is_empty() {
            return Duration::ZERO;
        }
        let index = ((sorted.len() - 1) as f64 * q).round() as usize;
        sorted[index.min(sorted.len() - 1)]
    }
}

/// The process's CPU time (user + system, every thread, live or ended) from
/// `/proc/self/stat`, in µs (USER_HZ = 100, so 10 ms resolution); `None` off Linux.
fn cpu_us() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the parenthesised command name: state is field 3, utime 14, stime 15.
    let rest = stat.rsplit_once(')')?.1;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let utime: f64 = fields.get(11)?.parse().ok()?;
    let stime: f64 = fields.get(12)?.parse().ok()?;
    Some((utime + stime) * 10_000.0)
}

/// CPU µs per run over `runs` runs since `before`, as text.
fn cpu_per_run(before: Option<f64>, runs: usize) -> (String, Option<f64>) {
    match (before, cpu_us()) {
        (Some(before), Some(after)) => {
            let per = (after - before) / runs.max(1) as f64;
            (format!("{per:.1}"), Some(per))
        }
        _ => ("n/a".to_owned(), None),
    }
}

fn ratio(a: Option<f64>, b: Option<f64>) -> String {
    match (a, b) {
        (Some(a), Some(b)) if b > 0.0 => format!("{:.2}×", a / b),
        _ => "n/a".to_owned(),
    }
}

fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

fn row(name: &str, timing: &Timing) {
    println!(
        "| {name} | {:.1} k | {:.1} | {:.1} | {:.1} |",
        timing.best_runs_per_s / 1e3,
        us(timing.best_mean),
        us(timing.quantile(0.5)),
        us(timing.quantile(0.99)),
    );
}

/// Times `batches` × `runs` sequential calls of `one` (never inlined: callgrind toggles on it).
#[inline(never)]
fn time_sync(scale: Scale, mut one: impl FnMut()) -> Timing {
    let mut timing = Timing::new();
    let mut samples = Vec::with_capacity(scale.runs);
    for _ in 0..scale.batches {
        samples.clear();
        let wall = Instant::now();
        for _ in 0..scale.runs {
            let started = Instant::now();
            one();
            samples.push(started.elapsed());
        }
        timing.batch(scale.runs, wall.elapsed(), &samples);
    }
    timing
}

/// Times sequential runs on a current_thread runtime (never inlined, as [`time_sync`]).
#[inline(never)]
fn time_runs<F: Future<Output = ptc_runtime::Outcome>>(
    scale: Scale,
    runtime: &tokio::runtime::Runtime,
    mut run: impl FnMut() -> F,
) -> Timing {
    let mut timing = Timing::new();
    let mut samples = Vec::with_capacity(scale.runs);
    for _ in 0..scale.batches {
        samples.clear();
        let wall = Instant::now();
        runtime.block_on(async {
            for _ in 0..scale.runs {
                let started = Instant::now();
                let outcome = run().await;
                samples.push(started.elapsed());
                check(&outcome);
            }
        });
        timing.batch(scale.runs, wall.elapsed(), &samples);
    }
    timing
}

/// Runs `total` runs as `in_flight` spawned clients on `runtime`; the wall time.
fn in_flight(
    runtime: &tokio::runtime::Runtime,
    runner: &Runner,
    program: &Arc<Program>,
    direct: Option<&String>,
    total: usize,
    in_flight: usize,
) -> Duration {
    let wall = Instant::now();
    runtime.block_on(async {
        let mut clients = tokio::task::JoinSet::new();
        for client in 0..in_flight {
            let runner = runner.clone();
            let program = Arc::clone(program);
            let direct = direct.cloned();
            let share = total / in_flight + usize::from(client < total % in_flight);
            clients.spawn(async move {
                for _ in 0..share {
                    let outcome = runner
                        .run(
                            ptc_runtime::Source::Program {
                                program: &program,
                                direct: direct.as_deref(),
                                text: script(),
                            },
                            RunOptions::default(),
                        )
                        .await;
                    check(&outcome);
                }
            });
        }
        while let Some(joined) = clients.join_next().await {
            joined.expect("client");
        }
    });
    wall.elapsed()
}

fn timing_rows(scale: Scale, wanted: &dyn Fn(&str) -> bool) {
    let registry = instant_registry();
    let (program, direct) = compile(&registry);
    let inline = Runner::new(registry.clone()).with_isolation(Isolation::Inline);
    let thread = Runner::new(registry.clone());
    let limits = *inline.limits();
    let shared = Arc::new(limits);
    let runtime = current_thread();
    println!("| row | runs/s | mean µs (best batch) | p50 µs | p99 µs |");
    println!("|---|---|---|---|---|");
    let mut vm_mean = None;
    let mut once_mean = None;
    if wanted("compile-every-run") {
        let inline_t = time_runs(scale, &runtime, || {
            inline.run(script(), RunOptions::default())
        });
        row("compile-every-run, current_thread, Inline", &inline_t);
        let thread_t = time_runs(scale, &runtime, || {
            thread.run(script(), RunOptions::default())
        });
        row("compile-every-run, current_thread, Thread", &thread_t);
    }
    if wanted("compiled-once-inline") {
        let once = time_runs(scale, &runtime, || {
            inline.run(
                ptc_runtime::Source::Program {
                    program: &program,
                    direct: direct.as_deref(),
                    text: script(),
                },
                RunOptions::default(),
            )
        });
        row("compiled-once, current_thread, Inline", &once);
        once_mean = Some((once.best_mean, once.quantile(0.5)));
    }
    if wanted("compiled-once-thread") {
        let thread_t = time_runs(scale, &runtime, || {
            thread.run(
                ptc_runtime::Source::Program {
                    program: &program,
                    direct: direct.as_deref(),
                    text: script(),
                },
                RunOptions::default(),
            )
        });
        row("compiled-once, current_thread, Thread", &thread_t);
    }
    if wanted("compile-alone") {
        let roster = registry.roster();
        let compile_t = time_sync(scale, || {
            let compiled = ptc_compiler::compile(script(), &roster, &limits).expect("compiles");
            std::hint::black_box(compiled);
        });
        row("compile alone", &compile_t);
    }
    if wanted("vm-alone") {
        let vm = time_sync(scale, || {
            assert_eq!(vm_alone(&program, &shared), ANSWER);
        });
        row("VM alone (minimal host loop)", &vm);
        vm_mean = Some((vm.best_mean, vm.quantile(0.5)));
    }
    if let (Some(once), Some(vm)) = (once_mean, vm_mean) {
        println!(
            "\nruntime's own work per run (compiled-once Inline − VM alone): {:.1} µs by best batches, {:.1} µs by p50",
            us(once.0) - us(vm.0),
            us(once.1) - us(vm.1)
        );
    }
    if wanted("workers") {
        worker_rows(scale, &inline, &program, direct.as_ref(), limits);
    }
}

fn worker_rows(
    scale: Scale,
    runner: &Runner,
    program: &Arc<Program>,
    direct: Option<&String>,
    limits: Limits,
) {
    let shared = Arc::new(limits);
    let total = scale.runs * 2;
    println!(
        "\n| workers ({} runs, {} in flight, Inline) | runs/s (best of {}) | CPU µs per run | single-run p50 µs | single-run p99 µs |",
        total, scale.in_flight, scale.batches
    );
    println!("|---|---|---|---|---|");
    let mut best = [0.0f64; 2];
    let mut cpu = [None; 2];
    for (slot, workers) in [1usize, 2].into_iter().enumerate() {
        let runtime = multi_thread(workers);
        let before = cpu_us();
        for _ in 0..scale.batches {
            let wall = in_flight(&runtime, runner, program, direct, total, scale.in_flight);
            best[slot] = best[slot].max(total as f64 / wall.as_secs_f64().max(1e-12));
        }
        let (cpu_text, per) = cpu_per_run(before, total * scale.batches);
        cpu[slot] = per;
        // Single-run latency: one client on a worker, nothing else in flight.
        let single = runtime.block_on({
            let runner = runner.clone();
            let program = Arc::clone(program);
            let direct = direct.cloned();
            let runs = scale.runs;
            async move {
                tokio::spawn(async move {
                    let mut timing = Timing::new();
                    let mut samples = Vec::with_capacity(runs);
                    let wall = Instant::now();
                    for _ in 0..runs {
                        let started = Instant::now();
                        let outcome = runner
                            .run(
                                ptc_runtime::Source::Program {
                                    program: &program,
                                    direct: direct.as_deref(),
                                    text: script(),
                                },
                                RunOptions::default(),
                            )
                            .await;
                        samples.push(started.elapsed());
                        check(&outcome);
                    }
                    timing.batch(runs, wall.elapsed(), &samples);
                    timing
                })
                .await
                .expect("single client")
            }
        });
        println!(
            "| multi_thread, {workers} worker(s) | {:.1} k | {cpu_text} | {:.1} | {:.1} |",
            best[slot] / 1e3,
            us(single.quantile(0.5)),
            us(single.quantile(0.99))
        );
    }
    println!(
        "| 2 workers ÷ 1 | {:.2}× | {} | | |",
        best[1] / best[0].max(1e-12),
        ratio(cpu[1], cpu[0])
    );
    // One current_thread runtime per thread, each with half the clients.
    let mut per_core = [0.0f64; 2];
    let mut per_core_cpu = [None; 2];
    for (slot, threads) in [1usize, 2].into_iter().enumerate() {
        let before = cpu_us();
        for _ in 0..scale.batches {
            let wall = Instant::now();
            std::thread::scope(|scope| {
                for _ in 0..threads {
                    scope.spawn(|| {
                        let runtime = current_thread();
                        in_flight(
                            &runtime,
                            runner,
                            program,
                            direct,
                            total / threads,
                            (scale.in_flight / threads).max(1),
                        );
                    });
                }
            });
            per_core[slot] =
                per_core[slot].max(total as f64 / wall.elapsed().as_secs_f64().max(1e-12));
        }
        per_core_cpu[slot] = cpu_per_run(before, total * scale.batches).1;
    }
    println!(
        "| current_thread runtime per thread, 2 ÷ 1 | {:.2}× ({:.1} k → {:.1} k) | {} | | |",
        per_core[1] / per_core[0].max(1e-12),
        per_core[0] / 1e3,
        per_core[1] / 1e3,
        ratio(per_core_cpu[1], per_core_cpu[0])
    );
    // The VM alone on 1 and 2 threads.
    let mut alone = [0.0f64; 2];
    let mut alone_cpu = [None; 2];
    for (slot, threads) in [1usize, 2].into_iter().enumerate() {
        let before = cpu_us();
        for _ in 0..scale.batches {
            let wall = Instant::now();
            std::thread::scope(|scope| {
                for _ in 0..threads {
                    scope.spawn(|| {
                        for _ in 0..total / threads {
                            assert_eq!(vm_alone(program, &shared), ANSWER);
                        }
                    });
                }
            });
            alone[slot] = alone[slot].max(total as f64 / wall.elapsed().as_secs_f64().max(1e-12));
        }
        alone_cpu[slot] = cpu_per_run(before, total * scale.batches).1;
    }
    println!(
        "| VM alone, 2 threads ÷ 1 | {:.2}× ({:.1} k → {:.1} k) | {} | | |",
        alone[1] / alone[0].max(1e-12),
        alone[0] / 1e3,
        alone[1] / 1e3,
        ratio(alone_cpu[1], alone_cpu[0])
    );
    println!(
        "\n(CPU µs per run: user + system time of the whole process over the batches, 10 ms \
         resolution; equal CPU per run on 2 workers means the work itself parallelises, and the \
         wall-clock ratio then only shows how much of a second core the machine gave.)"
    );
}

#[cfg(feature = "alloc-count")]
mod memory {
    use super::*;
    use stats_alloc::{Region, Stats};

    fn live(stats: &Stats) -> isize {
        stats.bytes_allocated as isize - stats.bytes_deallocated as isize + stats.bytes_reallocated
    }

    /// Allocations and bytes allocated per call of `one`, over `runs` calls after a warm-up.
    fn per_run(runs: usize, mut one: impl FnMut()) -> (f64, f64) {
        one();
        let region = Region::new(super::GLOBAL);
        for _ in 0..runs {
            one();
        }
        let stats = region.change();
        let n = runs.max(1) as f64;
        (
            (stats.allocations + stats.reallocations) as f64 / n,
            stats.bytes_allocated as f64 / n,
        )
    }

    pub fn rows(scale: Scale, wanted: &dyn Fn(&str) -> bool) {
        let registry = instant_registry();
        let (program, direct) = compile(&registry);
        let inline = Runner::new(registry.clone()).with_isolation(Isolation::Inline);
        let limits = *inline.limits();
        let shared = Arc::new(limits);
        let runtime = current_thread();
        let runs = scale.runs.min(1_000);
        // `-- allocations` runs every allocation row; `-- alloc-ROW` (alloc-whole,
        // alloc-once, alloc-compile, alloc-vm) one of them, for `valgrind --tool=dhat`.
        let row = |name: &str| wanted("allocations") || wanted(&format!("alloc-{name}"));
        if row("whole") || row("once") || row("compile") || row("vm") {
            println!("| allocations per run | allocations (incl. reallocs) | bytes allocated |");
            println!("|---|---|---|");
            let print = |name: &str, (count, bytes): (f64, f64)| {
                println!("| {name} | {count:.0} | {bytes:.0} |");
            };
            if row("whole") {
                print(
                    "compile-every-run (Inline)",
                    per_run(runs, || {
                        check(&runtime.block_on(inline.run(script(), RunOptions::default())));
                    }),
                );
            }
            if row("once") {
                print(
                    "compiled-once (Inline)",
                    per_run(runs, || {
                        check(&runtime.block_on(inline.run(
                            ptc_runtime::Source::Program {
                                program: &program,
                                direct: direct.as_deref(),
                                text: script(),
                            },
                            RunOptions::default(),
                        )));
                    }),
                );
            }
            if row("compile") {
                let roster = registry.roster();
                print(
                    "compile alone",
                    per_run(runs, || {
                        std::hint::black_box(
                            ptc_compiler::compile(script(), &roster, &limits).expect("compiles"),
                        );
                    }),
                );
            }
            if row("vm") {
                print(
                    "VM alone",
                    per_run(runs, || assert_eq!(vm_alone(&program, &shared), ANSWER)),
                );
            }
        }
        if wanted("suspended") {
            println!(
                "\n| suspended runs (compiled once, Inline, spawned) | live heap per run, bytes |"
            );
            println!("|---|---|");
            let future = inline.run(
                ptc_runtime::Source::Program {
                    program: &program,
                    direct: direct.as_deref(),
                    text: script(),
                },
                RunOptions::default(),
            );
            println!(
                "| (sizes: a run's future {} B, Envelope {} B, Machine {} B, AuditRecord {} B, CallRequest {} B, ToolRequestCtx {} B) | |",
                std::mem::size_of_val(&future),
                std::mem::size_of::<ptc_runtime::core::Envelope>(),
                std::mem::size_of::<Machine>(),
                std::mem::size_of::<ptc_runtime::core::AuditRecord>(),
                std::mem::size_of::<ptc_runtime::core::CallRequest>(),
                std::mem::size_of::<ToolRequestCtx>(),
            );
            drop(future);
            println!(
                "| (sizes: RunOptions {} B) | |",
                std::mem::size_of::<RunOptions>()
            );
            for count in scale.suspended {
                let bytes = suspended(count, &program, direct.as_ref());
                println!("| {count} | {bytes:.0} |");
            }
        }
    }

    /// Live heap per run with `count` runs suspended at their first call.
    fn suspended(count: usize, program: &Arc<Program>, direct: Option<&String>) -> f64 {
        let entered = Arc::new(AtomicUsize::new(0));
        let release = CancelToken::new();
        let registry = gated_registry(entered.clone(), release.clone());
        // Shared as hosts share one runner: each task holds an `Arc`, not a copy.
        let runner = Arc::new(Runner::new(registry).with_isolation(Isolation::Inline));
        let runtime = current_thread();
        runtime.block_on(async {
            // Handles live in a vector sized beforehand: only the runs are counted.
            let mut tasks = Vec::with_capacity(count);
            let region = Region::new(super::GLOBAL);
            let before = live(&region.change());
            for _ in 0..count {
                let runner = runner.clone();
                let program = Arc::clone(program);
                let direct = direct.cloned();
                tasks.push(tokio::spawn(async move {
                    runner
                        .run(
                            ptc_runtime::Source::Program {
                                program: &program,
                                direct: direct.as_deref(),
                                text: script(),
                            },
                            RunOptions::default(),
                        )
                        .await
                }));
            }
            while entered.load(Ordering::Relaxed) < count {
                tokio::task::yield_now().await;
            }
            let after = live(&region.change());
            release.cancel();
            for task in tasks {
                check(&task.await.expect("run"));
            }
            (after - before) as f64 / count.max(1) as f64
        })
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let bench = args.iter().any(|a| a == "--bench");
    let filters: Vec<&String> = args.iter().filter(|a| !a.starts_with("--")).collect();
    let wanted =
        |name: &str| filters.is_empty() || filters.iter().any(|f| name.contains(f.as_str()));
    let mut scale = if bench { BENCH } else { SMOKE };
    // PTC_THROUGHPUT_RUNS=N: one batch of N runs (for callgrind, which counts instructions).
    if let Some(runs) = std::env::var("PTC_THROUGHPUT_RUNS")
        .ok()
        .and_then(|n| n.parse().ok())
    {
        scale.runs = runs;
        scale.batches = 1;
    }
    // PTC_THROUGHPUT_SUSPENDED=N: the suspended rows at N runs only (for dhat's peak).
    if let Some(runs) = std::env::var("PTC_THROUGHPUT_SUSPENDED")
        .ok()
        .and_then(|n| n.parse().ok())
    {
        scale.suspended = [runs; 3];
    }
    if !bench {
        println!("throughput: smoke pass (no --bench): every scenario once, tiny counts");
    }
    #[cfg(feature = "alloc-count")]
    memory::rows(scale, &wanted);
    #[cfg(not(feature = "alloc-count"))]
    timing_rows(scale, &wanted);
    #[cfg(not(feature = "alloc-count"))]
    if bench {
        println!("\n(memory rows: --features alloc-count)");
    }
}
