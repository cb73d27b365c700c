//! Suspension and resumption from every place a tool call can hide: inside `mapcar` over a
//! lambda, `funcall`, `apply`, a user function, a macro expansion and a `parallel-map`
//! argument; and pauses at every slice size give the same result, fuel and tool trace.

mod run_support;
use ptc_compiler::{Roster, compile};
use ptc_vm::{Limits, Machine, Stats, Step, Value};
use run_support::{run_with, value};

fn roster() -> Roster {
    Roster::new().tool("Read")
}

#[test]
fn tool_calls_suspend_inside_higher_order_calls_and_functions() {
    let limits = Limits::default();
    for (script, expected, calls) in [
        (
            "(mapcar (lambda (f) (length (Read :file_path f))) '(\"a\" \"bb\"))",
            "(23 24)",
            2,
        ),
        (
            "(funcall (lambda () (Read :file_path \"x\")))",
            "\"<Read (:file_path \\\"x\\\")>\"",
            1,
        ),
        (
            "(apply (lambda (a b) (list (Read :file_path a) b)) '(\"p\" 2))",
            "(\"<Read (:file_path \\\"p\\\")>\" 2)",
            1,
        ),
        (
            "(defun get (f) (Read :file_path f)) (defun twice (f) (list (get f) (get f))) (length (twice \"z\"))",
            "2",
            2,
        ),
        (
            "(defmacro with-read (f) `(Read :file_path ,f)) (with-read \"m\")",
            "\"<Read (:file_path \\\"m\\\")>\"",
            1,
        ),
        ("(mapcar 'Read '(\"q\"))", "(\"<Read (\\\"q\\\")>\")", 1),
    ] {
        let (outcome, trace) = run_with(script, &roster(), limits);
        assert_eq!(outcome, value(expected), "{script}");
        assert_eq!(trace.len(), calls, "{script}");
    }
}

/// Runs `script`, answering every call with the length of its printed arguments, and
/// records the outcome, the stats and the tool trace.
fn traced(script: &str, limits: Limits) -> (String, Stats, Vec<String>) {
    let compiled = compile(script, &roster(), &limits).expect("compiles");
    let mut machine = Machine::new(compiled.program, limits);
    let mut trace = Vec::new();
    let mut step = machine.step();
    let outcome = loop {
        step = match step {
            Step::Pause => machine.step(),
            Step::Tool(request) => {
                let args = machine.render(&request.args);
                trace.push(args.clone());
                machine.resume_tool(Value::Int(i64::try_from(args.len()).unwrap()))
            }
            Step::Batch(requests) => {
                let results = requests
                    .iter()
                    .map(|r| {
                        let args = machine.render(&r.args);
                        trace.push(args.clone());
                        Value::Int(i64::try_from(args.len()).unwrap())
                    })
                    .collect();
                machine.resume_batch(results)
            }
            Step::Done(value) => break machine.render(&value),
            Step::Error(error) => break format!("{}: {}", error.kind(), error.message()),
        };
    };
    (outcome, machine.stats(), trace)
}

#[test]
fn pauses_at_any_slice_size_change_nothing_observable() {
    let script = "(defun walk (n acc) (if (= n 0) acc (walk (- n 1) (cons (Read :file_path (number-to-string n)) acc))))
                  (let ((xs (walk 20 nil)))
                    (list (apply '+ xs) (parallel-map (lambda (x) (Read :file_path (format \"%d\" x))) xs)))";
    let base = Limits {
        slice_seconds: None,
        ..Limits::default()
    };
    let (reference, stats, trace) = traced(
        script,
        Limits {
            slice_steps: 1_000_000,
            ..base
        },
    );
    assert!(reference.starts_with('('), "{reference}");
    let mut pauses = Vec::new();
    for slice in [1, 2, 3, 7, 64, 1000] {
        let (outcome, other, other_trace) = traced(
            script,
            Limits {
                slice_steps: slice,
                ..base
            },
        );
        assert_eq!(outcome, reference, "slice {slice}");
        assert_eq!(other.fuel_used, stats.fuel_used, "slice {slice}");
        assert_eq!(other.tool_calls, stats.tool_calls, "slice {slice}");
        assert_eq!(other_trace, trace, "slice {slice}");
        // Primitive work counts as fuel but runs within one instruction, so a slice of N
        // units pauses at most once per unit of fuel, and less often as slices grow.
        assert!(other.pauses <= other.fuel_used, "slice {slice}");
        pauses.push(other.pauses);
    }
    assert!(pauses.windows(2).all(|w| w[0] >= w[1]), "{pauses:?}");
    assert!(pauses.first().is_some_and(|&p| p > 100), "{pauses:?}");
}

#[test]
fn a_run_leaves_nothing_behind_for_the_next() {
    let script = "(let ((n 0)) (dotimes (i 50) (setq n (+ n (Read :file_path \"f\")))) n)";
    let limits = Limits::default();
    let first = traced(script, limits);
    let second = traced(script, limits);
    assert_eq!(first, second);
}

#[test]
fn a_settled_machine_repeats_its_outcome_and_refuses_resumption() {
    let compiled = compile("(Read :file_path \"a\")", &roster(), &Limits::default()).unwrap();
    let mut machine = Machine::new(compiled.program, Limits::default());
    assert!(matches!(machine.step(), Step::Tool(_)));
    assert!(matches!(
        machine.resume_tool(Value::Int(1)),
        Step::Done(Value::Int(1))
    ));
    assert!(matches!(machine.step(), Step::Done(Value::Int(1))));
    assert!(matches!(
        machine.resume_tool(Value::Int(2)),
        Step::Done(Value::Int(1))
    ));
    machine.close();
    assert!(matches!(machine.step(), Step::Error(e) if e.kind() == ptc_vm::ErrorKind::Closed));
}
