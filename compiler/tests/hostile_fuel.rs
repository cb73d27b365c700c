//! Hostile inputs, class B2 (reliability notes §b): CPU, fuel, recursion and re-entry.
//! Every run happens on a 256 KiB thread stack (`hostile_support`), so a recursion that
//! reached the host stack would abort the test binary.

mod hostile_support;

use hostile_support::{
    MAX_FUEL_OVERSHOOT, assert_error, assert_error_prefix, assert_value, hostile, hostile_with,
    limits, ok_host,
};
use ptc_vm::Limits;

const STEP_MESSAGE: &str =
    "Script exceeded its step budget of 500000 after 500000 steps; narrow the script";
const STACK_MESSAGE: &str =
    "Script exceeded its stack budget of 2000 frames; recursion is too deep";

#[test]
fn h13_an_infinite_while_runs_out_of_fuel_at_exactly_the_budget() {
    let report = hostile("(while t)");
    assert_error(&report, "step", STEP_MESSAGE);
    assert_eq!(report.stats.fuel_used, 500_000);
    let report = hostile("(let ((n 0)) (while t (setq n (+ n 1))))");
    assert_error(&report, "step", STEP_MESSAGE);
    assert_eq!(report.stats.fuel_used, 500_000);
}

#[test]
fn h13_fuel_is_deterministic_and_monotone_in_the_budget() {
    for steps in [1u64, 2, 3, 10, 999, 1_000, 1_001, 77_777] {
        let limits = Limits { steps, ..limits() };
        let report = hostile_with("(let ((n 0)) (while t (setq n (+ n 1))))", limits, ok_host);
        assert_eq!(report.outcome.kind(), "step", "steps {steps}");
        assert_eq!(report.stats.fuel_used, steps);
    }
}

#[test]
fn h14_tail_mutual_recursion_runs_out_of_fuel_and_deep_mutual_recursion_out_of_stack() {
    let report = hostile("(defun f (n) (g n)) (defun g (n) (f n)) (f 1)");
    assert_error(&report, "step", STEP_MESSAGE);
    let report = hostile("(defun f (n) (+ 1 (g n))) (defun g (n) (+ 1 (f n))) (f 1)");
    assert_error(&report, "stack", STACK_MESSAGE);
}

#[test]
fn h14_recursion_just_inside_the_stack_budget_succeeds_on_a_small_host_stack() {
    let source = "(defun f (n) (if (= n 0) 0 (+ 1 (f (- n 1))))) (f 1990)";
    assert_value(&hostile(source), "1990");
    let source = "(defun f (n) (if (= n 0) 0 (+ 1 (f (- n 1))))) (f 5000)";
    assert_error(&hostile(source), "stack", STACK_MESSAGE);
    let limits = Limits {
        stack_depth: 100_000,
        ..limits()
    };
    let source = "(defun f (n) (if (= n 0) 0 (+ 1 (f (- n 1))))) (f 50000)";
    assert_value(&hostile_with(source, limits, ok_host), "50000");
}

#[test]
fn h15_reentry_through_mapcar_apply_and_funcall_is_bounded_by_the_guest_stack() {
    for source in [
        "(defun f (x) (mapcar 'f (list x))) (f 1)",
        "(defun f (x) (mapcar (lambda (y) (f y)) (list x))) (f 1)",
        "(defun f (x) (apply 'f (list x))) (f 1)",
        "(defun f (x) (+ 1 (funcall 'f x))) (f 1)",
    ] {
        assert_error(&hostile(source), "stack", STACK_MESSAGE);
    }
}

#[test]
fn h16_h17_sort_rejects_incomparable_elements_and_never_panics_on_nan() {
    assert_error(
        &hostile("(sort (list 1.0 0.0e+NaN 2.0 \"a\" nil))"),
        "script",
        "Types do not match: \"a\", 2.0",
    );
    let report = hostile("(length (sort (list 1.0 0.0e+NaN 2.0 0.5 0.0e+NaN -1.0e+INF 3)))");
    assert_value(&report, "7");
    let report =
        hostile("(let ((l nil)) (dotimes (i 2000) (push (% (* i 7919) 10007) l)) (car (sort l)))");
    assert_value(&report, "0");
}

#[test]
fn h18_substring_search_over_long_strings_is_charged() {
    let source = "(let ((a \"a\") (b \"a\")) (dotimes (i 15) (setq a (concat a a))) \
                  (dotimes (i 16) (setq b (concat b b))) (string-search (concat a \"b\") (concat b \"b\")))";
    assert_value(&hostile(source), "32768");
}

#[test]
fn h19_quadratic_concatenation_hits_the_retained_budget() {
    // Under the default 64 MiB the step budget stops this loop first (its fuel grows
    // quadratically too), so the retained budget is the original's 4 MiB here.
    let limits = Limits {
        retained_bytes: 4_194_304,
        ..hostile_support::limits()
    };
    let report = hostile_with(
        "(let ((s \"\")) (dotimes (i 100000) (setq s (concat s \"x\"))) (length s))",
        limits,
        ok_host,
    );
    assert_error(
        &report,
        "retained-value",
        "Script exceeded its retained value budget of 4194304 bytes",
    );
}

#[test]
fn h20_nth_in_a_loop_is_charged_per_element_walked() {
    let source = "(let ((l nil) (n 0)) (dotimes (i 20000) (push i l)) \
                  (dotimes (i 20000) (setq n (+ n (nth i l)))) n)";
    let report = hostile(source);
    assert_error_prefix(
        &report,
        "step",
        "Script exceeded its step budget of 500000 after ",
    );
    let overshoot = report.stats.fuel_used - 500_000;
    assert!(
        overshoot > 0 && overshoot <= 20_000,
        "overshoot {overshoot}"
    );
    assert!(overshoot <= MAX_FUEL_OVERSHOOT);
}

#[test]
fn h21_a_long_primitive_started_at_the_end_of_the_budget_overshoots_by_its_own_work_only() {
    // Build a 10 000-element list, then spend the rest of the budget; the last `length`
    // starts just before the budget ends.
    let source = "(let ((l nil)) (dotimes (i 10000) (push i l)) (while t (length l)))";
    let report = hostile(source);
    assert_error_prefix(
        &report,
        "step",
        "Script exceeded its step budget of 500000 after ",
    );
    let overshoot = report.stats.fuel_used - 500_000;
    assert!(overshoot <= 10_000, "overshoot {overshoot}");
    // `sort` charges n·log n in one call: the largest single overshoot the suite has seen.
    let source = "(let ((l nil)) (dotimes (i 20000) (push (% (* i 7919) 10007) l)) \
                  (while t (sort l)))";
    let report = hostile(source);
    assert_error_prefix(
        &report,
        "step",
        "Script exceeded its step budget of 500000 after ",
    );
    let overshoot = report.stats.fuel_used - 500_000;
    assert!(overshoot <= 20_000 * 15, "overshoot {overshoot}");
}

#[test]
fn h52_a_tool_loop_hits_the_tool_call_budget() {
    let report = hostile("(while t (Read :file_path \"x\"))");
    assert_error(
        &report,
        "tool-call",
        "Script exceeded its budget of 1000 tool calls before nested call Read at call 1001",
    );
    assert_eq!(report.calls.len(), 1000);
    assert_eq!(report.stats.tool_calls, 1000);
}

#[test]
fn slices_end_by_the_host_clock_and_the_machine_never_enforces_seconds() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::time::Duration;
    // A clock the test moves: a second per reading, so every clock reading passes the
    // slice's `slice-seconds`, which the machine reads every 1024 instructions.
    let readings = Arc::new(AtomicU64::new(0));
    let clock = {
        let readings = Arc::clone(&readings);
        move || Duration::from_secs(readings.fetch_add(1, Ordering::Relaxed))
    };
    let limits = Limits {
        seconds: Some(0.05),
        slice_seconds: Some(0.5),
        slice_steps: 1_000_000,
        steps: 20_000,
        ..limits()
    };
    let compiled =
        ptc_compiler::compile("(while t)", &hostile_support::roster(), &limits).expect("compiles");
    let mut machine = ptc_vm::Machine::new(compiled.program, limits);
    machine.set_clock(Arc::new(clock));
    let mut pauses = 0;
    let step = loop {
        match machine.step() {
            ptc_vm::Step::Pause => pauses += 1,
            other => break other,
        }
    };
    // Slices of about 1024 instructions each, not of a million steps: the clock ended them.
    assert!(pauses >= 10, "{pauses} pauses");
    assert!(readings.load(Ordering::Relaxed) > 10);
    // `seconds` long past on that clock, yet the machine ran to its step budget: the
    // whole-run budget is its driver's (the runtime's envelope), not the machine's.
    let ptc_vm::Step::Error(error) = step else {
        panic!("expected the step budget")
    };
    assert_eq!(error.kind().as_str(), "step");
    // Without a clock only fuel ends a slice.
    let mut machine = ptc_vm::Machine::new(
        ptc_compiler::compile("(while t)", &hostile_support::roster(), &limits)
            .expect("compiles")
            .program,
        limits,
    );
    assert!(matches!(machine.step(), ptc_vm::Step::Error(_)));
    // The budget also covers compilation (deviation 61): no time at all fails there.
    let limits = Limits {
        seconds: Some(0.0),
        ..limits
    };
    let report = hostile_with("(while t)", limits, ok_host);
    assert!(report.static_error);
    assert_eq!(
        report.outcome.text(),
        "Script exceeded its time budget of 0 seconds while compiling"
    );
}

#[test]
fn huge_wall_clock_budgets_do_not_panic() {
    for (key, value) in [("seconds", "1e300"), ("slice-seconds", "1e300")] {
        let mut limits = limits();
        assert!(limits.set(key, value).is_ok(), "{key}={value} is accepted");
        let outcome = std::panic::catch_unwind(|| {
            hostile_support::hostile_with("(+ 1 2)", limits, ok_host).outcome
        });
        assert!(
            matches!(&outcome, Ok(hostile_support::Outcome::Value(v)) if v == "3"),
            "{key}={value}: {outcome:?}"
        );
    }
}
