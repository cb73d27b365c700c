//! Runs one ptc workload a few times, for profilers: `valgrind --tool=callgrind
//! --toggle-collect='*profile_measure*' target/release/examples/profile fib25 1`.
//! Workloads: fib25 loop loop-unmetered list strings host cold shared-N fanout closures
//! plist build prim-CASE (`workloads::PRIM_CASES`); with feature `peers`, `lua-NAME` runs
//! Lua 5.4's `NAME` (fib loop_sum list strings closures plist build cold); `disasm-NAME`
//! prints a program's bytecode instead.

use ptc_benches::ptc::{self, Host};
use ptc_benches::workloads::programs;
use std::hint::black_box;

#[inline(never)]
fn profile_measure(run: &mut dyn FnMut() -> i64) -> i64 {
    run()
}

fn main() {
    let mut arguments = std::env::args().skip(1);
    let workload = arguments.next().unwrap_or_else(|| "fib25".to_owned());
    let times: u32 = arguments.next().and_then(|t| t.parse().ok()).unwrap_or(1);
    let host = Host::new();
    let limits = ptc::bench_limits();
    let compiled =
        |source: &str| ptc::compile_program(source, &limits).unwrap_or_else(|e| panic!("{e}"));
    if let Some(name) = workload.strip_prefix("disasm-") {
        let source = source_of(name).map_or_else(|| programs::COLD.to_owned(), |(s, _)| s);
        print!("{}", ptc_vm::disasm::disassemble(&compiled(&source)));
        println!(
            "size_of Step {} Value {} Error {}",
            std::mem::size_of::<ptc_vm::Step>(),
            std::mem::size_of::<ptc_vm::Value>(),
            std::mem::size_of::<ptc_vm::Error>()
        );
        return;
    }
    let mut run: Box<dyn FnMut() -> i64> = match workload.as_str() {
        #[cfg(feature = "peers")]
        lua if lua.starts_with("lua-") => match lua.strip_prefix("lua-").unwrap_or(lua) {
            "cold" => ptc_benches::peers::lua::cold(true),
            name => ptc_benches::peers::lua::runner(name),
        },
        "cold" => Box::new(|| ptc::cold(programs::COLD, &host).unwrap_or_else(|e| panic!("{e}"))),
        "fanout" => {
            let program = compiled(programs::FANOUT);
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_time()
                .build()
                .unwrap_or_else(|e| panic!("{e}"));
            Box::new(move || {
                runtime
                    .block_on(ptc::fanout(&program, limits))
                    .unwrap_or_else(|e| panic!("{e}"))
            })
        }
        name => {
            let (source, metered) =
                source_of(name).unwrap_or_else(|| panic!("unknown workload {name}"));
            let program = compiled(&source);
            let host = host.clone();
            Box::new(move || {
                ptc::run(&program, limits, &host, metered).unwrap_or_else(|e| panic!("{e}"))
            })
        }
    };
    // One warm-up call outside the measured function, as the anchors did.
    let first = run();
    let mut best = std::time::Duration::MAX;
    for _ in 0..times {
        let started = std::time::Instant::now();
        assert_eq!(black_box(profile_measure(&mut run)), first);
        best = best.min(started.elapsed());
    }
    println!("{workload}: {first} ({times} measured calls, best {best:?})");
}

/// The program text of workload `name` and whether it runs metered.
fn source_of(name: &str) -> Option<(String, bool)> {
    Some(match name {
        "fib25" => (programs::FIB.to_owned(), true),
        "loop" => (programs::LOOP.to_owned(), true),
        "loop-unmetered" => (programs::LOOP.to_owned(), false),
        "list" => (programs::LIST.to_owned(), true),
        "strings" => (programs::STRINGS.to_owned(), true),
        "host" => (programs::HOST.to_owned(), true),
        "cold" => (programs::COLD.to_owned(), true),
        "closures" => (ptc_benches::workloads::closures_source(), true),
        "plist" => (ptc_benches::workloads::plist_source(), true),
        "build" => (ptc_benches::workloads::build_source(), true),
        other => match other.strip_prefix("shared-").and_then(|n| n.parse().ok()) {
            Some(n) => (ptc::shared_list_source(n), true),
            None => {
                let (_, expr) = ptc_benches::workloads::PRIM_CASES
                    .iter()
                    .find(|(name, _)| other.strip_prefix("prim-") == Some(*name))?;
                (ptc_benches::workloads::prim_source(expr), true)
            }
        },
    })
}
