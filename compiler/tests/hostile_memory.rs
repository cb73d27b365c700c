//! Hostile inputs, classes B4 and B5 (reliability notes §b): memory amplification through
//! shared structure, string doubling, huge integers, format widths, deep data, numeric
//! edges and index errors.

mod hostile_support;

use hostile_support::{assert_error, assert_value, hostile, hostile_with, limits, ok_host};
use ptc_vm::Limits;

const NODES: &str = "Guest value exceeds its 50000 node budget";
const BYTES: &str = "Guest value exceeds its value byte budget of 262144";

/// A host that converts the arguments to JSON as the runtime does, answering the
/// conversion error as a guest error value.
fn json_host(machine: &mut ptc_vm::Machine, request: &ptc_vm::ToolRequest) -> ptc_vm::Value {
    let limits = *machine.limits();
    match ptc_vm::json::to_json(&request.args, machine.symbols(), &limits) {
        Ok(_) => ptc_vm::Value::string("sent"),
        Err(error) => {
            assert_eq!(error.kind().as_str(), "value");
            let message = error.message().to_owned();
            machine.error_value(&message)
        }
    }
}

fn laughs(rounds: u32, then: &str) -> String {
    format!("(let ((x (list 1 2))) (dotimes (i {rounds}) (setq x (list x x))) {then})")
}

#[test]
fn h32_sixty_four_rounds_of_sharing_fail_while_building_whatever_follows() {
    // Sharing is counted per use, so the DAG's tree size trips the node budget during the
    // loop, long before 2^64 leaves; what the script meant to do next never runs.
    for then in [
        "x",
        "(format \"%S\" x)",
        "(equal x x)",
        "(Read :file_path x)",
        "(length x)",
    ] {
        let report = hostile(&laughs(64, then));
        assert_error(&report, "value", NODES);
        assert!(report.calls.is_empty(), "a tool saw the bomb");
        assert_eq!(report.stats.fuel_used, 57, "{then}");
    }
    let report = hostile(&laughs(64, "(length x)").replace("(list x x)", "(append x x)"));
    assert_error(&report, "value", NODES);
}

#[test]
fn h32_shared_structure_within_budget_is_returned_printed_compared_and_sent() {
    // 2^12 leaves: within the node budget, every traversal is bounded.
    let report = hostile(&laughs(11, "(length (format \"%S\" x))"));
    assert_value(&report, "16381");
    let two = "(let ((x (list 1 2)) (y (list 1 2))) (dotimes (i 11) (setq x (list x x)) \
               (setq y (list y y))) (equal x y))";
    assert_value(&hostile(two), "t");
    let report = hostile(&laughs(11, "(Read :file_path x)"));
    assert_value(&report, "\"ok\"");
    assert_eq!(report.calls.len(), 1);
    let report = hostile(&laughs(11, "x"));
    assert_eq!(report.outcome.kind(), "ok");
    assert_eq!(report.outcome.text().len(), 16381);
    let report = hostile(&laughs(14, "x"));
    assert_error(&report, "value", NODES);
}

#[test]
fn h29_string_doubling_stops_at_the_value_budget() {
    let report = hostile("(let ((x \"a\")) (dotimes (i 60) (setq x (concat x x))) (length x))");
    assert_error(&report, "value", BYTES);
    // The text of every doubling, plus each string's own header (real bytes, budgets.md).
    let bound = 2 * 262_144 + 60 * ptc_vm::heap::string(0);
    assert!(
        report.stats.retained_bytes <= bound,
        "{}",
        report.stats.retained_bytes
    );
}

#[test]
fn h30_h31_size_arguments_are_checked_before_allocating() {
    // The dialect has no make-string / make-list / string-repeat; format widths are the
    // only primitive whose size comes from an integer argument.
    for source in [
        "(format \"%1000000000d\" 1)",
        "(format \"%.1000000f\" 1.0)",
        "(format \"%99999999999999999999d\" 1)",
        "(format \"%9223372036854775807s\" \"a\")",
    ] {
        let report = hostile(source);
        assert_error(
            &report,
            "value",
            "'format': field size exceeds the guest value byte budget",
        );
        assert_eq!(report.stats.retained_bytes, 0, "{source}");
    }
}

#[test]
fn h34_deep_data_built_iteratively_is_bounded_and_dropped_safely() {
    let report = hostile("(let ((x nil)) (dotimes (i 100000) (setq x (list x))) (length x))");
    assert_error(&report, "value", NODES);
    // 20 000 levels: within the node budget; printed, compared, sent and dropped on a
    // 256 KiB host stack.
    let deep = |then: &str| {
        format!(
            "(let ((x nil) (y nil)) (dotimes (i 20000) (setq x (list x)) (setq y (list y))) {then})"
        )
    };
    assert_value(&hostile(&deep("(length (format \"%S\" x))")), "40003");
    // The arguments of one call are budgeted together: two 20 000-deep lists are too many.
    assert_error(&hostile(&deep("(equal x y)")), "value", NODES);
    let shallower = deep("(equal x y)").replace("20000", "10000");
    assert_value(&hostile(&shallower), "t");
    // The machine hands the deep argument to the host as a value; converting it to JSON
    // (the runtime's job) refuses it at 128 levels with a typed error.
    let report = hostile_with(&deep("(Read :file_path x)"), limits(), json_host);
    assert_value(
        &report,
        "(:error \"Guest value nests deeper than the 128 levels JSON allows\")",
    );
    assert_eq!(report.calls.len(), 1);
    let report = hostile(&deep("x"));
    assert_eq!(report.outcome.kind(), "ok");
    assert_eq!(report.outcome.text().len(), 40003);
}

#[test]
fn h37_repeated_squaring_hits_the_number_bit_budget() {
    let report = hostile("(let ((x 2)) (dotimes (i 20) (setq x (* x x))) x)");
    assert_error(
        &report,
        "value",
        "Guest integer exceeds its 4096 bit budget",
    );
    let limits = Limits {
        number_bits: 64,
        ..limits()
    };
    let report = hostile_with("(* 4611686018427387904 2)", limits, ok_host);
    assert_value(&report, "9223372036854775808");
    let report = hostile_with("(* 9223372036854775807 4)", limits, ok_host);
    assert_error(&report, "value", "Guest integer exceeds its 64 bit budget");
}

#[test]
fn h38_decimal_conversions_are_bounded() {
    let report =
        hostile("(let ((x 2)) (dotimes (i 11) (setq x (* x x))) (length (number-to-string x)))");
    assert_value(&report, "617");
    let report =
        hostile("(let ((s \"9\")) (dotimes (i 14) (setq s (concat s s))) (string-to-number s))");
    assert_error(
        &report,
        "atomic-work",
        "'string-to-number': input exceeds its atomic work budget",
    );
}

#[test]
fn h39_format_widths_within_budget_are_charged() {
    let report = hostile("(length (format \"%100000d\" 1))");
    assert_value(&report, "100000");
    assert!(report.stats.fuel_used >= 100_000 / 32);
    assert_value(&hostile("(length (format \"%.300f\" 1.0))"), "302");
}

/// Issue 11.1: std's float formatting panics above a precision of 65535, and `format`
/// passed guest precisions straight to it. Every guest-controlled width and precision of
/// every conversion, at and past that edge: exact output like Emacs 28.2 (whose lengths
/// these are), or the typed value-budget error, and never a panic.
#[test]
fn h39_format_precisions_past_std_limits_do_not_panic() {
    for (script, length) in [
        ("(length (format \"%.65536f\" 1.0))", "65538"),
        ("(length (format \"%.65535e\" 1.0))", "65541"),
        ("(format \"%.65536g\" 1.0)", "\"1\""),
        ("(length (format \"%.65535g\" 0.0001))", "68"),
        ("(length (format \"%#.65536g\" 1.0))", "65537"),
        ("(length (format \"%.65536e\" 5e-324))", "65543"),
        ("(length (format \"%.200000f\" 5e-324))", "200002"),
        ("(length (format \"%.70000f\" 12))", "70003"),
        ("(length (format \"%.70000e\" 12))", "70006"),
        ("(length (format \"%#.70000g\" 12))", "70001"),
        ("(length (format \"%70000.3f|\" 1.5))", "70001"),
        ("(length (format \"%.70000d\" 7))", "70000"),
        ("(length (format \"%70000s\" \"\u{4e2d}\"))", "69999"),
        (
            "(substring (format \"%.65536f\" 0.1) 0 60)",
            "\"0.1000000000000000055511151231257827021181583404541015625000\"",
        ),
    ] {
        let report = hostile(script);
        assert_value(&report, length);
    }
    let report = hostile("(format \"%.70000f\" 1.0)");
    assert!(report.stats.fuel_used >= 70_000 / 32, "{:?}", report.stats);
    for script in [
        "(format \"%.262144f\" 1.0)",
        "(format \"%.262144e\" 1.0)",
        "(format \"%#.262144g\" 1.0)",
        "(format \"%.262144f\" 1)",
    ] {
        assert_error(&hostile(script), "value", BYTES);
    }
}

#[test]
fn h40_case_conversion_growth_is_accounted() {
    // ß (2 bytes) upcases to SS (2 bytes); ŉ (2 bytes) to ʼN (3 bytes).
    let report = hostile(
        "(let ((s \"\u{df}\")) (dotimes (i 17) (setq s (concat s s))) (length (upcase s)))",
    );
    assert_value(&report, "262144");
    let report = hostile(
        "(let ((s \"\u{149}\")) (dotimes (i 16) (setq s (concat s s))) (length (upcase s)))",
    );
    assert_value(&report, "131072");
    let report = hostile(
        "(let ((s \"\u{149}\")) (dotimes (i 17) (setq s (concat s s))) (length (upcase s)))",
    );
    assert_error(&report, "value", BYTES);
}

#[test]
fn h41_most_negative_fixnum_edges_promote_to_big_integers() {
    for (source, printed) in [
        ("(/ -9223372036854775808 -1)", "9223372036854775808"),
        ("(% -9223372036854775808 -1)", "0"),
        ("(mod -9223372036854775808 -1)", "0"),
        ("(abs -9223372036854775808)", "9223372036854775808"),
        ("(- -9223372036854775808)", "9223372036854775808"),
        ("(* -9223372036854775808 -1)", "9223372036854775808"),
        ("(+ 9223372036854775807 1)", "9223372036854775808"),
    ] {
        assert_value(&hostile(source), printed);
    }
}

#[test]
fn h42_division_by_zero_and_float_conversions() {
    for source in ["(/ 1 0)", "(% 1 0)", "(mod 1 0)", "(floor 1 0)"] {
        assert_error(&hostile(source), "script", "Arithmetic error");
    }
    for source in [
        "(truncate 1.0e+INF)",
        "(round 0.0e+NaN)",
        "(floor -1.0e+INF)",
    ] {
        assert_error(&hostile(source), "script", "Arithmetic overflow error");
    }
    let report = hostile("(truncate 1e300)");
    assert_eq!(report.outcome.kind(), "ok");
    assert_eq!(report.outcome.text().len(), 301);
}

#[test]
fn h43_h45_indices_are_characters_and_bounds_are_checked() {
    assert_value(&hostile("(substring \"h\u{e9}llo\" 0 2)"), "\"h\u{e9}\"");
    assert_value(
        &hostile("(substring \"\u{65e5}\u{672c}\" 1)"),
        "\"\u{672c}\"",
    );
    assert_error(
        &hostile("(substring \"abc\" 5 2)"),
        "script",
        "Args out of range: \"abc\", 5, 2",
    );
    assert_error(
        &hostile("(substring \"abc\" -100)"),
        "script",
        "Args out of range: \"abc\", -100, nil",
    );
    assert_error(
        &hostile("(string-to-number \"10\" 37)"),
        "script",
        "Args out of range: 37",
    );
    assert_error(
        &hostile("(string-to-number \"10\" 1)"),
        "script",
        "Args out of range: 1",
    );
    assert_value(&hostile("(nth -9223372036854775808 '(1 2))"), "1");
    assert_value(&hostile("(nth 9223372036854775807 '(1 2))"), "nil");
}

#[test]
fn h33_h35_h46_h48_data_is_immutable_so_cycles_and_tables_cannot_be_built() {
    let suffix = ".  Callable names are limited to the documented special forms and conveniences, \
                  the pure data primitives, this script's definitions, and this request's tools";
    for (source, names) in [
        ("(let ((l (list 1))) (setcdr l l) (length l))", "setcdr"),
        ("(setcar '(1 2) 3)", "setcar"),
        ("(nconc (list 1) (list 2))", "nconc"),
        // Hash tables exist since issue 46; conses and vectors stay immutable.
        (
            "(aset (vector 1) 0 2)",
            "aset (not in this dialect: vectors are immutable",
        ),
    ] {
        let report = hostile(source);
        assert_eq!(report.outcome.kind(), "preflight", "{source}");
        assert!(
            report
                .outcome
                .text()
                .starts_with(&format!("Unknown functions: {names}")),
            "{:?}",
            report.outcome
        );
        assert!(report.outcome.text().ends_with(suffix));
    }
    // A literal is one shared, immutable object: evaluating it twice gives `eq` data.
    assert_value(
        &hostile("(let ((a nil)) (dotimes (i 2) (push '(1 2) a)) (eq (car a) (car (cdr a))))"),
        "t",
    );
}
