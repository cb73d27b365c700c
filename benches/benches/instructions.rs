//! Callgrind instruction counts of issue #16's workloads (gungraun): ptc with fuel metering
//! on beside Lua 5.4 through mlua (feature `lua54`, or `peers`), so every ratio of the
//! issue's table is repeatable by anyone with valgrind and `gungraun-runner` (see
//! `benches/README.md`):
//!
//! ```sh
//! cargo bench -p ptc-benches --features lua54 --bench instructions
//! ```
//!
//! Without either feature only the ptc rows run (mlua is an optional dependency, so `cargo
//! test` and CI's clippy never build Lua). `cargo test` does not run this file (`test =
//! false`, the default for benches) and a plain `cargo bench -p ptc-benches` skips it
//! (`bench = false` in `Cargo.toml`). Run directly, without cargo's `--bench`, the binary
//! is in gungraun's test mode: every case once, natively (no valgrind), answers checked.
//!
//! Invariants: a case's setup builds everything outside the measured function (ptc: compile
//! once; Lua: a state with the chunk loaded), makes one warm-up call and asserts its answer
//! against the expected answer computed in `src/workloads.rs`; the measured function makes
//! one more call, asserts it again and hands the case back, so dropping the program or the
//! Lua state is not counted. `cold` alone compiles in the measured call (compile + run of the
//! 10-line request, roster and limits built per call; Lua: `load` + call on a reused state).
//! Benchmark ids are shared between the `ptc` and `lua54` functions (`compare_by_id`), so
//! gungraun prints each Lua row's difference from the ptc row of the same id, and
//! `benches/report.py --gungraun` turns the saved summaries into the README's table.

#![forbid(unsafe_code)]

use gungraun::{Callgrind, LibraryBenchmarkConfig, library_benchmark, library_benchmark_group};
use ptc_benches::ptc::{self as engine, Host};
use ptc_benches::workloads::{self, programs};
use std::hint::black_box;

/// One workload ready to run: the call to measure and the answer it must give.
struct Case {
    run: Box<dyn FnMut() -> i64>,
    expected: i64,
}

impl Case {
    /// Wraps `run`, making the warm-up call and checking its answer.
    fn warm(mut run: Box<dyn FnMut() -> i64>, expected: i64, name: &str) -> Case {
        let answer = run();
        assert_eq!(answer, expected, "{name}: wrong answer in setup");
        Case { run, expected }
    }

    /// The measured call: one run, its answer checked.
    fn call(mut self) -> Case {
        let answer = (self.run)();
        assert_eq!(black_box(answer), self.expected, "wrong answer");
        self
    }
}

/// The ptc program text of workload `name`, whether it runs metered, and its answer.
fn ptc_source(name: &str) -> (String, bool, i64) {
    match name {
        "fib25" => (programs::FIB.to_owned(), true, workloads::FIB_EXPECTED),
        "loop" => (programs::LOOP.to_owned(), true, workloads::LOOP_EXPECTED),
        "loop_unmetered" => (programs::LOOP.to_owned(), false, workloads::LOOP_EXPECTED),
        "list" => (programs::LIST.to_owned(), true, workloads::LIST_EXPECTED),
        "build" => (workloads::build_source(), true, workloads::build_expected()),
        "closures" => (
            workloads::closures_source(),
            true,
            workloads::CLOSURES_EXPECTED,
        ),
        "plist" => (workloads::plist_source(), true, workloads::PLIST_EXPECTED),
        prim => {
            let case = prim.strip_prefix("prim_").unwrap_or(prim).replace('_', "-");
            let (_, expr) = workloads::PRIM_CASES
                .iter()
                .find(|(name, _)| *name == case)
                .unwrap_or_else(|| panic!("unknown ptc workload {name}"));
            (workloads::prim_source(expr), true, workloads::PRIM_CALLS)
        }
    }
}

/// Setup of a ptc case: compiled once with the benchmark limits (fuel metering on unless
/// the name says otherwise); `cold` compiles inside the measured call instead.
fn ptc_setup(name: &str) -> Case {
    let host = Host::new();
    if name == "cold" {
        let run = move || engine::cold(programs::COLD, &host).unwrap_or_else(|e| panic!("{e}"));
        return Case::warm(Box::new(run), workloads::COLD_EXPECTED, name);
    }
    let (source, metered, expected) = ptc_source(name);
    let limits = engine::bench_limits();
    let program = engine::compile_program(&source, &limits).unwrap_or_else(|e| panic!("{e}"));
    let run =
        move || engine::run(&program, limits, &host, metered).unwrap_or_else(|e| panic!("{e}"));
    Case::warm(Box::new(run), expected, name)
}

#[library_benchmark]
#[bench::fib25(args = ("fib25"), setup = ptc_setup)]
#[bench::loop_1e6(args = ("loop"), setup = ptc_setup)]
#[bench::loop_1e6_unmetered(args = ("loop_unmetered"), setup = ptc_setup)]
#[bench::list_10k(args = ("list"), setup = ptc_setup)]
#[bench::string_build(args = ("build"), setup = ptc_setup)]
#[bench::closures_10k(args = ("closures"), setup = ptc_setup)]
#[bench::plist_get_100k(args = ("plist"), setup = ptc_setup)]
#[bench::cold_request(args = ("cold"), setup = ptc_setup)]
#[bench::prim_baseline(args = ("prim_baseline"), setup = ptc_setup)]
#[bench::prim_plist_get(args = ("prim_plist_get"), setup = ptc_setup)]
#[bench::prim_assq(args = ("prim_assq"), setup = ptc_setup)]
#[bench::prim_nth(args = ("prim_nth"), setup = ptc_setup)]
#[bench::prim_equal(args = ("prim_equal"), setup = ptc_setup)]
fn ptc(case: Case) -> Case {
    case.call()
}

/// Lua 5.4 through mlua (vendored): the chunk of `src/workloads.rs` (`lua_sources::CHUNK`,
/// the one the criterion bench runs) loaded once per state, its function called as
/// `peers::lua` calls it, and the cons-cell list of `lua/list_cons.lua`.
#[cfg(any(feature = "lua54", feature = "peers"))]
mod lua {
    use super::Case;
    use mlua::{Function, Lua};
    use ptc_benches::workloads::{self, lua_sources};

    /// The cons-cell variant of the list workload (`benches/lua/list_cons.lua`).
    const LIST_CONS: &str = include_str!("../lua/list_cons.lua");

    /// Setup of a Lua case: a state with the workload's function loaded (`cold`: a reused
    /// state that loads and runs the request's text in the measured call).
    pub fn setup(name: &str) -> Case {
        let (run, expected): (Box<dyn FnMut() -> i64>, i64) = match name {
            "fib" => (call(name, workloads::FIB_N), workloads::FIB_EXPECTED),
            "loop_sum" => (call(name, workloads::LOOP_N), workloads::LOOP_EXPECTED),
            "list" => (call(name, workloads::LIST_N), workloads::LIST_EXPECTED),
            "list_cons" => (list_cons(), workloads::LIST_EXPECTED),
            "build" => (
                call(name, workloads::BUILD_LINES),
                workloads::build_expected(),
            ),
            "closures" => (
                call(name, workloads::CLOSURES_N),
                workloads::CLOSURES_EXPECTED,
            ),
            "plist" => (plist(), workloads::PLIST_EXPECTED),
            "cold" => (cold(), workloads::COLD_EXPECTED),
            other => panic!("unknown Lua workload {other}"),
        };
        Case::warm(run, expected, name)
    }

    fn fail(error: &mlua::Error) -> i64 {
        panic!("lua54: {error}")
    }

    /// A state with the chunk loaded, and the chunk's function `name`.
    fn function(name: &str) -> (Lua, Function) {
        let state = Lua::new();
        let table: mlua::Table = state
            .load(lua_sources::CHUNK)
            .eval()
            .unwrap_or_else(|e| panic!("{e}"));
        let function = table.get(name).unwrap_or_else(|e| panic!("{e}"));
        (state, function)
    }

    /// Calls the chunk's `name` with one integer argument.
    fn call(name: &str, argument: i64) -> Box<dyn FnMut() -> i64> {
        let (state, function) = function(name);
        Box::new(move || {
            let _state = &state;
            function.call::<i64>(argument).unwrap_or_else(|e| fail(&e))
        })
    }

    fn plist() -> Box<dyn FnMut() -> i64> {
        let (state, function) = function("plist");
        let arguments = (workloads::PLIST_ROUNDS, workloads::PLIST_ENTRIES);
        Box::new(move || {
            let _state = &state;
            function.call::<i64>(arguments).unwrap_or_else(|e| fail(&e))
        })
    }

    fn list_cons() -> Box<dyn FnMut() -> i64> {
        let state = Lua::new();
        let function: Function = state
            .load(LIST_CONS)
            .set_name("list_cons.lua")
            .eval()
            .unwrap_or_else(|e| panic!("{e}"));
        Box::new(move || {
            let _state = &state;
            function
                .call::<i64>(workloads::LIST_N)
                .unwrap_or_else(|e| fail(&e))
        })
    }

    /// The 10-line request loaded (compiled) and run on a reused state, as `cold-reuse` in
    /// the criterion bench.
    fn cold() -> Box<dyn FnMut() -> i64> {
        let state = Lua::new();
        Box::new(move || {
            state
                .load(lua_sources::COLD)
                .eval::<i64>()
                .unwrap_or_else(|e| fail(&e))
        })
    }
}

#[cfg(any(feature = "lua54", feature = "peers"))]
#[library_benchmark]
#[bench::fib25(args = ("fib"), setup = lua::setup)]
#[bench::loop_1e6(args = ("loop_sum"), setup = lua::setup)]
#[bench::list_10k(args = ("list"), setup = lua::setup)]
#[bench::list_10k_cons(args = ("list_cons"), setup = lua::setup)]
#[bench::string_build(args = ("build"), setup = lua::setup)]
#[bench::closures_10k(args = ("closures"), setup = lua::setup)]
#[bench::plist_get_100k(args = ("plist"), setup = lua::setup)]
#[bench::cold_request(args = ("cold"), setup = lua::setup)]
fn lua54(case: Case) -> Case {
    case.call()
}

/// Callgrind without its cache simulation: the figure of issue #16 is instructions, and the
/// simulation only slows every case down.
fn config() -> LibraryBenchmarkConfig {
    let mut config = LibraryBenchmarkConfig::default();
    config.tool(Callgrind::with_args(["--cache-sim=no"]));
    config
}

#[cfg(any(feature = "lua54", feature = "peers"))]
library_benchmark_group!(
    name = issue16,
    config = config(),
    compare_by_id = true,
    benchmarks = [ptc, lua54]
);

#[cfg(not(any(feature = "lua54", feature = "peers")))]
library_benchmark_group!(
    name = issue16,
    config = config(),
    compare_by_id = true,
    benchmarks = [ptc]
);

/// gungraun's harness, in a module so that [`main`] can check for its tools first.
mod harness {
    use super::issue16;
    gungraun::main!(library_benchmark_groups = issue16);

    /// Runs gungraun's `main`.
    pub(super) fn run() {
        main();
    }
}

/// The programs the harness needs: valgrind runs each case, `gungraun-runner` (the same
/// version as the `gungraun` crate) drives them.
const TOOLS: [(&str, &str); 2] = [
    (
        "valgrind",
        "install valgrind (Debian: apt-get install valgrind)",
    ),
    (
        "gungraun-runner",
        "cargo install gungraun-runner --version 0.20.0 (or set GUNGRAUN_RUNNER at build time)",
    ),
];

/// Whether `program` is an executable file on `PATH`.
fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(program).is_file()))
}

fn main() {
    // gungraun runs this binary again under valgrind (`--gungraun-run ...`) with the
    // environment cleared: only the first, outer invocation checks the tools.
    // Without `--bench` (the binary run directly) gungraun is in test mode: each case runs
    // once natively, answers checked, and only the runner is needed.
    let inner = std::env::args().nth(1).as_deref() == Some("--gungraun-run");
    let bench = std::env::args().any(|argument| argument == "--bench");
    if !inner {
        let missing: Vec<_> = TOOLS
            .iter()
            .filter(|(program, _)| match *program {
                "gungraun-runner" => !on_path(program) && option_env!("GUNGRAUN_RUNNER").is_none(),
                _ => bench && !on_path(program),
            })
            .collect();
        if !missing.is_empty() {
            eprintln!("instructions bench: not run, missing on PATH:");
            for (program, how) in missing {
                eprintln!("  {program}: {how}");
            }
            std::process::exit(1);
        }
        if cfg!(not(any(feature = "lua54", feature = "peers"))) {
            eprintln!(
                "instructions bench: ptc rows only; the Lua 5.4 rows need `--features lua54`"
            );
        }
    }
    harness::run();
}
