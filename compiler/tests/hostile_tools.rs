//! Hostile inputs, classes B3, B7 and B8 (reliability notes §b) as far as the compiler and
//! the machine see them: regexp bombs, tool fan-out, tools returning enormous, deep or odd
//! results, capability probing, closures at the boundary, protocol misuse. The runtime's
//! cases (a tool that hangs or panics, host cancellation mid-batch, tool timeouts, error
//! text sanitising) need the tokio driver and are listed in the hardening report.

mod hostile_support;

use hostile_support::{assert_error, assert_value, hostile, hostile_with, limits, ok_host};
use ptc_vm::json::from_json;
use ptc_vm::{Machine, Step, ToolRequest, Value};

const BACKREFERENCE: &str = "uses the backreference";

#[test]
fn h22_h23_h24_catastrophic_patterns_run_in_linear_time_and_backreferences_are_refused() {
    // Issue 37: the full syntax runs on the linear engine; a backtracking bomb is a fast nil.
    for source in [
        "(string-match-p \"\\\\(x+y*\\\\)*a\" (make-string 100000 ?x))",
        "(string-match-p \"^\\\\(?:a\\\\|.b\\\\)*c\" (make-string 100000 ?a))",
        "(string-match-p (concat \"\\\\(x+y*\\\\)\" \"*a\") (make-string 100000 ?x))",
    ] {
        let report = hostile(source);
        assert_value(&report, "nil");
    }
    let report = hostile("(string-match-p \"\\\\(a+\\\\)\\\\1\" \"aa\")");
    assert_eq!(report.outcome.kind(), "atomic-work");
    assert!(report.outcome.text().contains(BACKREFERENCE));
    assert!(
        report.static_error,
        "literal regexps are checked before running"
    );
    let report = hostile("(string-match-p \"a\\\\{1000\\\\}\\\\{1000\\\\}\" \"a\")");
    assert_eq!(report.outcome.kind(), "atomic-work");
    assert!(report.outcome.text().contains("Regular expression too big"));
    let computed = "(string-match-p (concat \"\\\\(x\\\\)\" \"\\\\1\") \"xx\")";
    let report = hostile(computed);
    assert_eq!(report.outcome.kind(), "atomic-work");
    assert!(report.outcome.text().contains(BACKREFERENCE));
    assert!(!report.static_error);
}

#[test]
fn h25_h26_h28_regexp_size_bombs_are_refused() {
    let report = hostile("(string-match-p \"a\\\\{60000\\\\}\" \"aaa\")");
    assert_error(
        &report,
        "atomic-work",
        "Invalid guest regexp \"a\\\\{60000\\\\}\": Regular expression too big",
    );
    // A large counted repetition over a long input is metered, not refused (issue 37).
    let report = hostile(
        "(string-match-p \"a\\\\{1000\\\\}\" (let ((s \"a\")) (dotimes (i 13) (setq s (concat s s))) s))",
    );
    assert_value(&report, "0");
    let nested = format!(
        "(string-match-p \"{}a{}\" \"a\")",
        "\\\\(".repeat(1000),
        "\\\\)".repeat(1000)
    );
    let limits = ptc_vm::Limits {
        input_bytes: 1_000_000,
        ..limits()
    };
    let report = hostile_with(&nested, limits, ok_host);
    assert_error(
        &report,
        "atomic-work",
        "Guest regexp exceeds its 2048 byte budget",
    );
    let report = hostile(
        "(let ((p \"a\")) (dotimes (i 12) (setq p (concat p p))) (string-match-p p \"a\"))",
    );
    assert_error(
        &report,
        "atomic-work",
        "Guest regexp exceeds its 2048 byte budget",
    );
}

#[test]
fn h27_empty_separators_cannot_make_split_string_quadratic() {
    let report = hostile(
        "(let ((s \"A\")) (dotimes (i 17) (setq s (concat s s))) (length (split-string s \"[^A-Z]*\")))",
    );
    assert_error(
        &report,
        "atomic-work",
        "'split-string': an empty separator is forbidden",
    );
}

#[test]
fn h51_fan_out_over_ten_thousand_items_fails_before_any_dispatch() {
    let report = hostile(
        "(let ((l nil)) (dotimes (i 10000) (push \"a\" l)) \
         (length (parallel-map (lambda (f) (Read :file_path f)) l)))",
    );
    assert_error(
        &report,
        "tool-call",
        "Script exceeded its budget of 1000 tool calls before a 10000-call parallel batch at call 1",
    );
    assert!(report.calls.is_empty());
    assert_eq!(report.stats.tool_calls, 0);
    let report = hostile(
        "(let ((l nil)) (dotimes (i 1000) (push \"a\" l)) \
         (length (parallel-map (lambda (f) (Read :file_path f)) l)))",
    );
    assert_value(&report, "1000");
    assert_eq!(report.calls.len(), 1000);
}

fn huge_string(_: &mut Machine, _: &ToolRequest) -> Value {
    Value::string("x".repeat(10_000_000))
}

fn deep_list(_: &mut Machine, _: &ToolRequest) -> Value {
    let mut value = Value::Nil;
    for _ in 0..200_000 {
        value = Value::list([value]);
    }
    value
}

fn wide_list(_: &mut Machine, _: &ToolRequest) -> Value {
    Value::list((0..1_000_000).map(Value::Int).collect::<Vec<_>>())
}

fn odd_text(_: &mut Machine, _: &ToolRequest) -> Value {
    let bytes = b"a\0b\xff\xfe\xed\xa0\x80 /etc/passwd";
    Value::string(String::from_utf8_lossy(bytes).into_owned())
}

fn json_result(machine: &mut Machine, _: &ToolRequest) -> Value {
    let json = serde_json::json!({"a": [1, {"b": null, "c": false}], "d": true, "e": 18_446_744_073_709_551_615u64});
    let limits = *machine.limits();
    match from_json(&json, machine.symbols_mut(), &limits) {
        Ok(value) => value,
        Err(error) => machine.error_value(error.message()),
    }
}

fn deep_json(machine: &mut Machine, _: &ToolRequest) -> Value {
    // 100 000 nested arrays as text: serde_json refuses beyond 128 levels.
    let text = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    match serde_json::from_str::<serde_json::Value>(&text) {
        Ok(_) => Value::string("parsed"),
        Err(_) => machine.error_value("tool result is not valid JSON"),
    }
}

fn failing(machine: &mut Machine, _: &ToolRequest) -> Value {
    machine.error_value("boom")
}

const REJECTED_BYTES: &str =
    "(:error \"Nested tool result rejected: Guest value exceeds its value byte budget of 262144\")";
const REJECTED_NODES: &str =
    "(:error \"Nested tool result rejected: Guest value exceeds its 50000 node budget\")";

#[test]
fn h55_an_enormous_tool_result_becomes_a_guest_error_value_on_entry() {
    // As in the original: an over-budget result is rejected at the boundary and the
    // script sees `(:error "Nested tool result rejected: ...")`, which it may handle.
    let report = hostile_with("(Read :file_path \"a\")", limits(), huge_string);
    assert_value(&report, REJECTED_BYTES);
    assert_eq!(report.calls.len(), 1);
    let report = hostile_with("(length (Read :file_path \"a\"))", limits(), huge_string);
    assert_value(&report, "2");
    // A million small integers: the byte budget trips before the node budget.
    let report = hostile_with("(Read :file_path \"a\")", limits(), wide_list);
    assert_value(&report, REJECTED_BYTES);
}

#[test]
fn h56_a_deeply_nested_tool_result_is_rejected_and_dropped_safely() {
    // 200 000 levels are built, rejected and dropped on the 256 KiB run thread.
    let report = hostile_with("(Read :file_path \"a\")", limits(), deep_list);
    assert_value(&report, REJECTED_NODES);
    let report = hostile_with("(Read :file_path \"a\")", limits(), deep_json);
    assert_value(&report, "(:error \"tool result is not valid JSON\")");
}

#[test]
fn h57_odd_text_and_json_results_are_plain_data() {
    let report = hostile_with("(length (Read :file_path \"a\"))", limits(), odd_text);
    assert_value(&report, "20");
    let report = hostile_with(
        "(let ((r (Read :file_path \"a\"))) (list (plist-get r :d) (plist-get (car (cdr (plist-get r :a))) :c) (plist-get r :e)))",
        limits(),
        json_result,
    );
    assert_value(&report, "(t :json-false 18446744073709551615)");
    let report = hostile_with("(Read :file_path \"a\")", limits(), failing);
    assert_value(&report, "(:error \"boom\")");
}

#[test]
fn h58_h62_capability_probes_are_unknown_functions() {
    let suffix = ".  Callable names are limited to the documented special forms and conveniences, \
                  the pure data primitives, this script's definitions, and this request's tools";
    assert_error(
        &hostile("(eval (read (Read :file_path \"x\")))"),
        "preflight",
        &format!(
            "Unknown functions: eval (not in this dialect: there is no eval; write the form \
             itself, or define a macro), read (try: Read){suffix}"
        ),
    );
    assert_error(
        &hostile("(getenv \"HOME\")"),
        "preflight",
        &format!("Unknown functions: getenv{suffix}"),
    );
    // `intern` is a pure primitive now (issue 18): the symbol it makes names nothing.
    assert_error(
        &hostile("(funcall (intern (concat \"shell\" \"-command\")) \"id\")"),
        "script",
        "Void or forbidden function: shell-command",
    );
    let report = hostile("(funcall (car (list 'getenv)) \"HOME\")");
    assert_error(&report, "script", "Void or forbidden function: getenv");
    // A standalone tool cannot be reached indirectly either.
    let report = hostile("(funcall (car (list 'Ask)) :q 1)");
    assert_error(&report, "script", "Void or forbidden function: Ask");
    assert!(report.calls.is_empty());
}

#[test]
fn h65_a_tool_name_computed_at_run_time_still_goes_through_the_roster() {
    let report = hostile("(funcall (car (list 'Read 'x)) :file_path \"a\")");
    assert_value(&report, "\"ok\"");
    assert_eq!(report.calls, vec!["Read (:file_path \"a\")".to_owned()]);
    let report = hostile("(funcall (car (list 'Write)) :file_path \"a\")");
    assert_error(&report, "script", "Void or forbidden function: Write");
    assert!(report.calls.is_empty());
}

#[test]
fn h49_h63_closures_never_cross_the_boundary_and_print_without_addresses() {
    let closure = "Guest closures cannot cross a tool or result boundary";
    assert_error(&hostile("(lambda (x) x)"), "value", closure);
    let report = hostile("(Read :file_path (lambda (x) x))");
    assert_error(&report, "value", closure);
    assert!(report.calls.is_empty());
    assert_value(&hostile("(format \"%S\" (lambda (x) x))"), "\"#<closure>\"");
}

#[test]
fn h61_an_oversized_tool_argument_fails_before_dispatch() {
    let report = hostile(
        "(let ((s \"x\")) (dotimes (i 17) (setq s (concat s s))) (Read :file_path s :other s))",
    );
    assert_error(
        &report,
        "value",
        "Guest value exceeds its value byte budget of 262144",
    );
    assert!(report.calls.is_empty());
}

#[test]
fn h64_no_state_survives_a_run() {
    // hostile() runs every script twice on one program and compares; here the program
    // mutates a binding that a second run must see fresh.
    let report = hostile("(let ((n 0)) (setq n (+ n 1)) (Read :file_path (number-to-string n)))");
    assert_value(&report, "\"ok\"");
    assert_eq!(report.calls, vec!["Read (:file_path \"1\")".to_owned()]);
}

#[test]
fn protocol_misuse_is_a_typed_error_not_a_panic() {
    let compiled = ptc_compiler::compile(
        "(list (Read :file_path \"a\") (parallel (Read :file_path \"b\") (Grep :pattern \"c\")))",
        &hostile_support::roster(),
        &limits(),
    )
    .expect("compiles");
    let mut machine = Machine::new(compiled.program, limits());
    let Step::Tool(_) = machine.step() else {
        panic!("expected a tool call")
    };
    let Step::Error(error) = machine.step() else {
        panic!("stepping while waiting must fail")
    };
    assert_eq!(error.message(), "The machine is waiting for a tool result");
    let Step::Batch(requests) = machine.resume_tool(Value::string("a")) else {
        panic!("expected a batch")
    };
    assert_eq!(requests.len(), 2);
    let Step::Error(error) = machine.resume_batch(vec![Value::Nil]) else {
        panic!("a short batch must fail")
    };
    assert_eq!(error.kind().as_str(), "script");
    assert_eq!(
        error.message(),
        "A parallel batch of 2 calls was resumed with 1 results"
    );
    machine.close();
    let Step::Error(error) = machine.step() else {
        panic!("a closed machine must fail")
    };
    assert_eq!(error.kind().as_str(), "closed");
    assert_eq!(error.message(), "Interpreter is closed");
}

#[test]
fn h59_each_oversized_batch_result_is_rejected_in_its_own_slot() {
    let report = hostile_with(
        "(parallel (Read :file_path \"a\") (Grep :pattern \"b\"))",
        limits(),
        huge_string,
    );
    assert_value(&report, &format!("({REJECTED_BYTES} {REJECTED_BYTES})"));
    assert_eq!(report.calls.len(), 2);
}
