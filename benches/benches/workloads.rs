//! Criterion benchmarks of issue #5: workloads 1-9, ptc and (features `peers` / `luau`)
//! the peer engines, group names `WORKLOAD/ENGINE`. Every case is checked for its answer
//! before it is timed. Run with
//! `cargo bench -p ptc-benches --features peers -- --warm-up-time 1 --measurement-time 3`
//! and again with `--features luau` for Luau (mlua's Lua flavours exclude each other).

use criterion::{BenchmarkId, Criterion, SamplingMode, criterion_group, criterion_main};
use ptc_benches::ptc::{self, Host, Sleep};
use ptc_benches::workloads::{self, programs};
use std::hint::black_box;
use std::sync::Arc;

type Runner = Box<dyn FnMut() -> i64>;

/// Checks the runner's answer, then times it.
fn case(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    name: &str,
    expected: i64,
    mut runner: Runner,
) {
    let answer = runner();
    assert_eq!(answer, expected, "{name} gave the wrong answer");
    group.bench_function(name, |b| b.iter(|| black_box(runner())));
}

fn ptc_runner(source: &str, metered: bool) -> Runner {
    let limits = ptc::bench_limits();
    let program = ptc::compile_program(source, &limits).unwrap_or_else(|e| panic!("{e}"));
    let host = Host::new();
    Box::new(move || ptc::run(&program, limits, &host, metered).unwrap_or_else(|e| panic!("{e}")))
}

/// The peers' runners for workload `name` (one of `fib loop_sum list strings host`).
#[allow(unused_variables, unused_mut)]
fn peer_runners(name: &'static str) -> Vec<(String, Runner)> {
    let mut runners: Vec<(String, Runner)> = Vec::new();
    #[cfg(any(feature = "peers", feature = "luau"))]
    {
        use ptc_benches::peers::{lua, rhai, starlark};
        runners.push((lua::NAME.to_owned(), lua::runner(name)));
        runners.push((rhai::NAME.to_owned(), rhai::runner(name)));
        runners.push((starlark::NAME.to_owned(), starlark::runner(name)));
    }
    runners
}

fn group<'a>(
    c: &'a mut Criterion,
    name: &str,
) -> criterion::BenchmarkGroup<'a, criterion::measurement::WallTime> {
    let mut group = c.benchmark_group(name);
    group.sampling_mode(SamplingMode::Flat);
    group
}

fn compute(c: &mut Criterion) {
    let text = workloads::text();
    let cases: [(&str, &'static str, &str, i64); 5] = [
        ("fib25", "fib", programs::FIB, workloads::FIB_EXPECTED),
        (
            "loop_sum_1e6",
            "loop_sum",
            programs::LOOP,
            workloads::LOOP_EXPECTED,
        ),
        ("list_10k", "list", programs::LIST, workloads::LIST_EXPECTED),
        (
            "strings_100k",
            "strings",
            programs::STRINGS,
            workloads::strings_expected(&text),
        ),
        (
            "host_read_x100",
            "host",
            programs::HOST,
            workloads::HOST_EXPECTED,
        ),
    ];
    for (group_name, peer_name, source, expected) in cases {
        let mut group = group(c, group_name);
        case(&mut group, "ptc", expected, ptc_runner(source, true));
        for (engine, runner) in peer_runners(peer_name) {
            case(&mut group, &engine, expected, runner);
        }
        group.finish();
    }
}

fn cold(c: &mut Criterion) {
    let mut group = group(c, "cold_tiny");
    let host = Host::new();
    // Reused "engine": the roster and limits are built once; compile + run per call.
    let roster = ptc::roster();
    let limits = ptc_vm::Limits::default();
    let reuse_host = host.clone();
    case(
        &mut group,
        "ptc-reuse",
        workloads::COLD_EXPECTED,
        Box::new(move || {
            let compiled = ptc_compiler::compile(programs::COLD, &roster, &limits)
                .unwrap_or_else(|_| panic!("compiles"));
            let mut machine = ptc_vm::Machine::new(compiled.program, limits);
            ptc::drive(&mut machine, &reuse_host).unwrap_or_else(|e| panic!("{e}"))
        }),
    );
    case(
        &mut group,
        "ptc-new",
        workloads::COLD_EXPECTED,
        Box::new(move || ptc::cold(programs::COLD, &host).unwrap_or_else(|e| panic!("{e}"))),
    );
    #[cfg(any(feature = "peers", feature = "luau"))]
    {
        use ptc_benches::peers::{lua, rhai, starlark};
        for reuse in [true, false] {
            let suffix = if reuse { "reuse" } else { "new" };
            case(
                &mut group,
                &format!("{}-{suffix}", lua::NAME),
                workloads::COLD_EXPECTED,
                lua::cold(reuse),
            );
            case(
                &mut group,
                &format!("{}-{suffix}", rhai::NAME),
                workloads::COLD_EXPECTED,
                rhai::cold(reuse),
            );
            case(
                &mut group,
                &format!("{}-{suffix}", starlark::NAME),
                workloads::COLD_EXPECTED,
                starlark::cold(reuse),
            );
        }
    }
    group.finish();
}

fn budget(c: &mut Criterion) {
    let mut group = group(c, "loop_limits");
    case(
        &mut group,
        "ptc-metered",
        workloads::LOOP_EXPECTED,
        ptc_runner(programs::LOOP, true),
    );
    case(
        &mut group,
        "ptc-unmetered",
        workloads::LOOP_EXPECTED,
        ptc_runner(programs::LOOP, false),
    );
    #[cfg(any(feature = "peers", feature = "luau"))]
    {
        use ptc_benches::peers::{lua, rhai};
        case(
            &mut group,
            &format!("{}-off", lua::NAME),
            workloads::LOOP_EXPECTED,
            lua::runner("loop_sum"),
        );
        let (name, runner, fuel) = lua::loop_limited();
        case(&mut group, &name, workloads::LOOP_EXPECTED, runner);
        assert!(fuel.get() > 0, "{name}: the limit callback never ran");
        case(
            &mut group,
            &format!("{}-off", rhai::NAME),
            workloads::LOOP_EXPECTED,
            rhai::runner("loop_sum"),
        );
        let (name, runner, fuel) = rhai::loop_limited();
        case(&mut group, &name, workloads::LOOP_EXPECTED, runner);
        assert!(fuel.get() > 0, "{name}: the limit callback never ran");
    }
    group.finish();
}

fn scaling(c: &mut Criterion) {
    let mut group = group(c, "shared_list");
    let limits = ptc::scaling_limits();
    let host = Host::new();
    for n in [2_500_i64, 5_000, 10_000, 20_000] {
        let program = ptc::compile_program(&ptc::shared_list_source(n), &limits)
            .unwrap_or_else(|e| panic!("{e}"));
        let host = host.clone();
        let runner =
            move || ptc::run(&program, limits, &host, true).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(runner(), workloads::shared_list_expected(n));
        group.bench_with_input(BenchmarkId::new("ptc", n), &n, |b, _| {
            b.iter(|| black_box(runner()));
        });
    }
    group.finish();
}

fn fanout(c: &mut Criterion) {
    let mut group = group(c, "fanout256");
    let limits = ptc::bench_limits();
    let program = ptc::compile_program(programs::FANOUT, &limits).unwrap_or_else(|e| panic!("{e}"));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap_or_else(|e| panic!("{e}"));
    let expected = i64::try_from(workloads::FANOUT_CALLS).unwrap_or(i64::MAX);
    let answer = runtime.block_on(ptc::fanout(&program, limits));
    assert_eq!(answer, Ok(expected));
    group.bench_function("ptc-joinset", |b| {
        b.iter(|| runtime.block_on(ptc::fanout(&program, limits)));
    });
    // Through ptc-runtime's driver: with tokio's timer (the sleep itself takes ~2 ms) and
    // with a precise OS sleep on the blocking pool (the ideal 16 ms is reachable).
    for (name, sleep) in [("ptc", Sleep::Timer), ("ptc-precise", Sleep::Precise)] {
        let driver = ptc::fanout_runner(sleep).unwrap_or_else(|e| panic!("{e}"));
        let answer = runtime.block_on(ptc::fanout_runtime(&driver, &program));
        assert_eq!(answer, Ok(expected));
        group.bench_function(name, |b| {
            b.iter(|| runtime.block_on(ptc::fanout_runtime(&driver, &program)));
        });
    }
    // The same JoinSet and semaphore without a machine: what the sleep alone allows.
    let permits = Arc::new(tokio::sync::Semaphore::new(workloads::FANOUT_CONCURRENCY));
    for (name, sleep) in [
        ("tokio-baseline", Sleep::Timer),
        ("precise-baseline", Sleep::Precise),
    ] {
        group.bench_function(name, |b| {
            b.iter(|| runtime.block_on(ptc::sleep_all(workloads::FANOUT_CALLS, &permits, sleep)));
        });
    }
    group.finish();
}

criterion_group!(benches, compute, cold, budget, scaling, fanout);
criterion_main!(benches);
