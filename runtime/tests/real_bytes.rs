//! The byte budgets bound real memory (issue 19): a counting global allocator measures the
//! peak heap of allocation-heavy scripts — cons growth, closures capturing large values,
//! strings, vectors, big integers, tool results kept in a list — each run until its
//! retained budget stops it (or it completes), and holds that peak to the rule
//! `spec/reference/budgets.md` states:
//!
//! peak heap of a run ≤ `FACTOR` × `retained-bytes` + `ALLOWANCE`
//!
//! where the allowance covers the machine's own fixed structures (program, frames and
//! registers, symbol table) that the budget does not count. One test in this binary: the
//! allocator's counters are process-wide, so the scripts run one after another.

use peak_alloc::PeakAlloc;
use ptc_compiler::{Roster, compile};
use ptc_vm::{Limits, Machine, Step, Value};
use serde_json::json;
use std::sync::Arc;

#[global_allocator]
static HEAP: PeakAlloc = PeakAlloc;

/// Peak heap over the retained budget: the stated factor.
const FACTOR: f64 = 1.25;
/// Fixed bytes besides what the retained budget counts (program, frames, registers).
const ALLOWANCE: usize = 256 * 1024;
/// Every run's retained budget.
const RETAINED: u64 = 4 << 20;

/// What the test tool answers: 200 strings of 100 bytes, as a host's JSON.
fn tool_answer() -> serde_json::Value {
    json!((0..200).map(|i| format!("{i:0>100}")).collect::<Vec<_>>())
}

/// Runs `script` to its end under `limits` and returns (peak heap above the start, retained
/// bytes charged, how it ended).
fn measure(script: &str, limits: Limits) -> (usize, u64, String) {
    let roster = Roster::new().tool("Fetch");
    let compiled = compile(script, &roster, &limits).unwrap_or_else(|d| panic!("{d:?}"));
    let answer = tool_answer();
    let base = HEAP.current_usage();
    HEAP.reset_peak_usage();
    let mut machine = Machine::new(Arc::clone(&compiled.program), limits);
    let mut step = machine.step();
    let end = loop {
        step = match step {
            Step::Pause => machine.step(),
            Step::Tool(_) => {
                let value = ptc_vm::json::from_json(&answer, machine.symbols_mut(), &limits)
                    .unwrap_or_else(|e| panic!("{e:?}"));
                machine.resume_tool(value)
            }
            Step::Batch(requests) => {
                let mut values = Vec::new();
                for _ in &requests {
                    values.push(
                        ptc_vm::json::from_json(&answer, machine.symbols_mut(), &limits)
                            .unwrap_or_else(|e| panic!("{e:?}")),
                    );
                }
                machine.resume_batch(values)
            }
            Step::Done(value) => break format!("done {}", summary(&value)),
            Step::Error(error) => break format!("{}: {}", error.kind().as_str(), error.message()),
        };
    };
    let peak = HEAP.peak_usage().saturating_sub(base);
    let retained = machine.stats().retained_bytes;
    drop(machine);
    (peak, retained, end)
}

fn summary(value: &Value) -> String {
    match value {
        Value::Int(n) => n.to_string(),
        _ => "a value".to_owned(),
    }
}

const SCRIPTS: &[(&str, &str)] = &[
    (
        "cons growth",
        "(let ((l nil)) (dotimes (i 10000000) (push i l)) (length l))",
    ),
    (
        "closures capturing large strings",
        "(let ((fs nil)) (dotimes (i 100000)
           (let ((s (make-string 2000 ?a))) (push (lambda () s) fs))) (length fs))",
    ),
    (
        "closures capturing lists",
        "(let ((fs nil)) (dotimes (i 100000)
           (let ((l (list i i i i i i i i))) (push (lambda () (car l)) fs))) (length fs))",
    ),
    (
        "many small strings",
        "(let ((l nil)) (dotimes (i 10000000) (push (number-to-string i) l)) (length l))",
    ),
    (
        "large strings kept",
        "(let ((l nil)) (dotimes (i 100000) (push (make-string 5000 ?x) l)) (length l))",
    ),
    (
        "vectors",
        "(let ((l nil)) (dotimes (i 1000000) (push (vector i i i i i i i i i i i i i i i i i i i i) l)) (length l))",
    ),
    (
        "big integers",
        "(let ((l nil) (x 1)) (dotimes (i 1000000) (setq x (* x 7)) (push x l)) (length l))",
    ),
    (
        "tool results kept",
        "(let ((l nil)) (dotimes (i 150) (push (Fetch) l)) (length l))",
    ),
    (
        "split-string pieces kept",
        "(let ((l nil) (s (mapconcat #'number-to-string (number-sequence 1 2000) \",\")))
           (dotimes (i 100000) (push (split-string s \",\") l)) (length l))",
    ),
];

#[test]
fn peak_heap_stays_within_the_stated_factor_of_the_retained_budget() {
    let limits = Limits {
        steps: 200_000_000,
        retained_bytes: RETAINED,
        tool_calls: 1_000,
        seconds: None,
        slice_seconds: None,
        number_bits: 65_536,
        // Only the retained budget may stop these runs.
        value_bytes: 1 << 40,
        value_nodes: 1 << 40,
        ..Limits::default()
    };
    let bound = FACTOR * RETAINED as f64 + ALLOWANCE as f64;
    let mut over = Vec::new();
    for (name, script) in SCRIPTS {
        let (peak, retained, end) = measure(script, limits);
        let ratio = peak as f64 / RETAINED as f64;
        println!(
            "{name:<34} peak {peak:>11} B = {ratio:>6.2} x budget; retained {retained:>9}; {end}"
        );
        if peak as f64 > bound {
            over.push(format!("{name}: peak {peak} B > {bound} B ({end})"));
        }
    }
    assert!(
        over.is_empty(),
        "over the stated bound:\n{}",
        over.join("\n")
    );
}
