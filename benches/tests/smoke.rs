//! Smoke mode: each ptc workload runs once and must give its expected answer. Cheap, no
//! peers; this is what CI runs (`cargo test -p ptc-benches`).

use ptc_benches::ptc::{self, Host};
use ptc_benches::workloads::{self, programs};

fn once(source: &str) -> i64 {
    let limits = ptc::bench_limits();
    let program = ptc::compile_program(source, &limits).expect("compiles");
    ptc::run(&program, limits, &Host::new(), true).expect("runs")
}

#[test]
fn fib25() {
    assert_eq!(once(programs::FIB), workloads::FIB_EXPECTED);
}

#[test]
fn loop_sum_metered_and_unmetered() {
    assert_eq!(once(programs::LOOP), workloads::LOOP_EXPECTED);
    let limits = ptc::bench_limits();
    let program = ptc::compile_program(programs::LOOP, &limits).expect("compiles");
    assert_eq!(
        ptc::run(&program, limits, &Host::new(), false),
        Ok(workloads::LOOP_EXPECTED)
    );
}

#[test]
fn list_map_filter_sum() {
    assert_eq!(once(programs::LIST), workloads::LIST_EXPECTED);
}

#[test]
fn string_lines() {
    let text = workloads::text();
    assert_eq!(text.len(), 104_086);
    assert_eq!(workloads::strings_expected(&text), 10_786);
    assert_eq!(text.lines().count(), 1_427);
    assert_eq!(once(programs::STRINGS), workloads::strings_expected(&text));
}

#[test]
fn host_read_x100() {
    assert_eq!(once(programs::HOST), workloads::HOST_EXPECTED);
    assert_eq!(workloads::paths().len(), workloads::HOST_CALLS);
    for path in workloads::paths() {
        assert!(programs::HOST.contains(&format!("\"{path}\"")), "{path}");
    }
}

#[test]
fn cold_request() {
    assert_eq!(
        ptc::cold(programs::COLD, &Host::new()),
        Ok(workloads::COLD_EXPECTED)
    );
    assert!(programs::COLD.trim_end().lines().count() <= 10);
}

#[test]
fn shared_list_fits_the_default_retained_budget() {
    let limits = ptc::scaling_limits();
    for n in [1_000, 10_000] {
        let program = ptc::compile_program(&ptc::shared_list_source(n), &limits).expect("compiles");
        assert_eq!(
            ptc::run(&program, limits, &Host::new(), true),
            Ok(workloads::shared_list_expected(n))
        );
    }
}

#[test]
fn fanout() {
    let limits = ptc::bench_limits();
    let program = ptc::compile_program(programs::FANOUT, &limits).expect("compiles");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("runtime");
    assert_eq!(
        runtime.block_on(ptc::fanout(&program, limits)),
        Ok(workloads::FANOUT_CALLS as i64)
    );
    for sleep in [ptc::Sleep::Timer, ptc::Sleep::Precise] {
        let driver = ptc::fanout_runner(sleep).expect("registry");
        let started = std::time::Instant::now();
        assert_eq!(
            runtime.block_on(ptc::fanout_runtime(&driver, &program)),
            Ok(workloads::FANOUT_CALLS as i64)
        );
        // 256 calls of 1 ms, 16 at a time: at least 16 ms, and nowhere near serial (256 ms).
        let elapsed = started.elapsed();
        assert!(
            elapsed >= std::time::Duration::from_millis(16),
            "{sleep:?} {elapsed:?}"
        );
        assert!(
            elapsed < std::time::Duration::from_millis(200),
            "{sleep:?} {elapsed:?}"
        );
    }
}

#[test]
fn closures() {
    assert_eq!(
        once(&workloads::closures_source()),
        workloads::CLOSURES_EXPECTED
    );
}

#[test]
fn plist_get() {
    assert_eq!(once(&workloads::plist_source()), workloads::PLIST_EXPECTED);
}

#[test]
fn string_build() {
    let expected = workloads::build_expected();
    assert!(expected > 100 * 1024, "{expected}");
    assert_eq!(once(&workloads::build_source()), expected);
}

#[test]
fn primitive_calls() {
    for (name, expr) in workloads::PRIM_CASES {
        assert_eq!(
            once(&workloads::prim_source(expr)),
            workloads::PRIM_CALLS,
            "{name}"
        );
    }
}
