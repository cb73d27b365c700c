//! Hostile inputs, class B1 (reliability notes §b): parser and source-text bombs. Each case
//! asserts the exact outcome and the suite invariants (`hostile_support`).

mod hostile_support;

use hostile_support::{assert_error, assert_value, hostile, hostile_with, limits, ok_host};
use ptc_vm::Limits;

/// Limits with a source cap large enough that the depth and node checks are reached.
fn big_input() -> Limits {
    Limits {
        input_bytes: 50_000_000,
        ..limits()
    }
}

#[test]
fn h01_hundred_thousand_parens_hit_the_byte_cap_then_the_depth_cap() {
    let source = format!("{}{}", "(".repeat(100_000), ")".repeat(100_000));
    let report = hostile(&source);
    assert_error(&report, "input", "Script exceeds the 20000 byte limit");
    assert!(report.static_error);
    let report = hostile_with(&source, big_input(), ok_host);
    assert_error(
        &report,
        "input",
        "Script nesting exceeds the depth limit of 100",
    );
}

#[test]
fn h02_deep_quote_and_backquote_chains_count_as_depth() {
    let quotes = format!("{}x", "'".repeat(100_000));
    let report = hostile_with(&quotes, big_input(), ok_host);
    assert_error(
        &report,
        "input",
        "Script nesting exceeds the depth limit of 100",
    );
    let backquotes = format!("{}x", "`,".repeat(50_000));
    let report = hostile_with(&backquotes, big_input(), ok_host);
    assert_error(
        &report,
        "input",
        "Script nesting exceeds the depth limit of 100",
    );
    let commas = format!("`{}x", ",@".repeat(50_000));
    let report = hostile_with(&commas, big_input(), ok_host);
    assert_error(
        &report,
        "input",
        "Script nesting exceeds the depth limit of 100",
    );
}

#[test]
fn h03_deep_not_chains_are_rejected_or_run_within_the_limit() {
    let deep = format!("{}x{}", "(not ".repeat(100_000), ")".repeat(100_000));
    let report = hostile_with(&deep, big_input(), ok_host);
    assert_error(
        &report,
        "input",
        "Script nesting exceeds the depth limit of 100",
    );
    // Just inside the limit: compiles (on a large stack) and runs on the small one.
    let inside = format!("(let ((x 1)) {}x{})", "(not ".repeat(98), ")".repeat(98));
    assert_value(&hostile(&inside), "t");
    let sums = format!("{}0{}", "(+ 1 ".repeat(99), ")".repeat(99));
    assert_value(&hostile(&sums), "99");
}

#[test]
fn h04_huge_string_literals_are_bounded_by_the_value_budget() {
    let source = format!("(length \"{}\")", "a".repeat(10_000_000));
    assert_error(
        &hostile(&source),
        "input",
        "Script exceeds the 20000 byte limit",
    );
    let report = hostile_with(&source, big_input(), ok_host);
    assert_error(
        &report,
        "value",
        "Guest value exceeds its value byte budget of 262144",
    );
    let fits = format!("(length \"{}\")", "é".repeat(100_000));
    assert_value(&hostile_with(&fits, big_input(), ok_host), "100000");
}

#[test]
fn h05_integer_literals_beyond_the_bit_budget_are_rejected_statically() {
    let source = format!("(+ 1 {})", "9".repeat(1_000_000));
    let report = hostile_with(&source, big_input(), ok_host);
    assert_error(
        &report,
        "value",
        "Guest integer exceeds its 4096 bit budget",
    );
    assert!(report.static_error);
    let source = format!("(+ 1 {})", "9".repeat(1_300));
    assert_error(
        &hostile(&source),
        "value",
        "Guest integer exceeds its 4096 bit budget",
    );
    let source = format!("(- {} 1)", "9".repeat(1_200));
    let report = hostile(&source);
    assert_eq!(report.outcome.kind(), "ok");
    assert!(
        report.outcome.text().ends_with("98"),
        "{:?}",
        report.outcome
    );
}

#[test]
fn h06_float_edge_literals_read_as_emacs_does() {
    let cases = [
        ("1e999999", "1.0e+INF"),
        ("-0.0", "-0.0"),
        ("1e-400", "0.0"),
        ("1.", "1"),
        ("0.0e+NaN", "0.0e+NaN"),
        ("-1.0e+INF", "-1.0e+INF"),
        ("(/ 0.0 0)", "-0.0e+NaN"),
        ("(/ 1.0 0)", "1.0e+INF"),
        ("?\\C-a", "1"),
    ];
    for (source, printed) in cases {
        assert_value(&hostile(source), printed);
    }
    assert_error(&hostile("0x"), "script", "Unbound variable: 0x");
    assert_error(&hostile(".e5"), "script", "Unbound variable: .e5");
    assert_error(
        &hostile("#x"),
        "script",
        "Invalid read syntax: integer, radix 16",
    );
    assert_error(
        &hostile("#b2"),
        "script",
        "Invalid read syntax: integer, radix 2",
    );
}

#[test]
fn h07_non_unicode_escapes_are_read_errors() {
    assert_error(
        &hostile("\"\\uD800\""),
        "script",
        "Non-Unicode character: 0xd800",
    );
    assert_error(
        &hostile("\"\\U00110000\""),
        "script",
        "Non-Unicode character: 0x110000",
    );
    // Invalid UTF-8 cannot reach `compile` (it takes `&str`); lossy decoding gives U+FFFD.
    let lossy = String::from_utf8_lossy(b"(length \"\xff\xfe\xc0\x80\")").into_owned();
    assert_value(&hostile(&lossy), "4");
}

#[test]
fn h08_nul_bytes_are_data_inside_strings() {
    assert_value(&hostile("(length \"a\u{0}b\")"), "3");
    assert_value(&hostile("(string-search \"\u{0}\" \"a\u{0}b\")"), "1");
}

#[test]
fn h08_nul_bytes_outside_strings_are_refused_and_inside_strings_are_data() {
    // Emacs skips NUL as whitespace, which would read `'a<NUL>b` as `'a b`; ptc refuses it
    // so a symbol (or a tool name) can never be split silently. Inside a string it is data.
    for script in [
        "(length (list 'a\u{0}b))",
        "(Re\u{0}ad)",
        "\u{0}1",
        "(+ 1 2)\u{0}",
    ] {
        assert_error(
            &hostile(script),
            "script",
            "Invalid read syntax: NUL byte outside a string",
        );
    }
    assert_value(&hostile("(length \"a\u{0}b\")"), "3");
}

#[test]
fn h09_look_alike_and_bidi_tool_names_are_unknown_functions() {
    let suffix = ".  Callable names are limited to the documented special forms and conveniences, \
                  the pure data primitives, this script's definitions, and this request's tools";
    let report = hostile("(R\u{435}ad :file_path \"a\")");
    assert_error(
        &report,
        "preflight",
        &format!("Unknown functions: R\u{435}ad (try: Read){suffix}"),
    );
    assert!(report.calls.is_empty());
    let report = hostile("(Read\u{202e} :file_path \"a\")");
    assert_error(
        &report,
        "preflight",
        &format!("Unknown functions: Read\u{202e} (try: Read){suffix}"),
    );
}

#[test]
fn h10_many_tiny_forms_hit_the_node_cap() {
    let source = "(a)".repeat(100_000);
    assert_error(
        &hostile_with(&source, big_input(), ok_host),
        "input",
        "Script exceeds the 10000 node limit",
    );
    let source = "(list)".repeat(1_000);
    assert_value(&hostile(&source), "nil");
}

#[test]
fn h11_a_parse_error_on_a_megabyte_line_renders_a_clipped_snippet() {
    let source = format!("(list {} ))", "a".repeat(1_000_000));
    let report = hostile_with(&source, big_input(), ok_host);
    assert_error(&report, "script", "Invalid read syntax: )");
    let limits = big_input();
    let roster = hostile_support::roster();
    let Err(diagnostics) = ptc_compiler::compile(&source, &roster, &limits) else {
        panic!("expected a read error");
    };
    let rendered = ptc_compiler::render::render(&source, "script", &diagnostics);
    assert!(rendered.len() < 4_000, "rendered {} bytes", rendered.len());
}

#[test]
fn h12_seventy_thousand_constants_in_one_call_are_a_static_error() {
    let constants: Vec<String> = (0..70_000).map(|i| format!("\"c{i}\"")).collect();
    let source = format!("(length (list {}))", constants.join(" "));
    let limits = Limits {
        input_bytes: 50_000_000,
        nodes: 10_000_000,
        ..limits()
    };
    let report = hostile_with(&source, limits, ok_host);
    assert_error(
        &report,
        "input",
        "A call has 70000 arguments; at most 255 are supported",
    );
    // Many distinct constants spread over calls stay within the operand widths.
    let chunks: Vec<String> = constants
        .chunks(250)
        .map(|chunk| format!("(length (list {}))", chunk.join(" ")))
        .collect();
    let source = format!(
        "(+ {})",
        chunks
            .iter()
            .take(200)
            .cloned()
            .collect::<Vec<_>>()
            .join(" ")
    );
    let report = hostile_with(&source, limits, ok_host);
    assert_value(&report, "50000");
}

#[test]
fn h66_many_nested_lets_compile_and_run() {
    let lets: String = (0..300).map(|i| format!("(let ((v{i} {i})) ")).collect();
    let source = format!("{lets}v0{}", ")".repeat(300));
    let limits = Limits {
        depth: 1_000,
        ..big_input()
    };
    assert_value(&hostile_with(&source, limits, ok_host), "0");
}

/// Found by the `lex_parse` fuzz target (artifact `crash-27ed3bd3…`, minimized by hand):
/// the datum `(, @a)` — read from `, @a` — prints as `,@a`, which reads back as the
/// splice `(,@ a)`.
#[test]
fn fuzz_lex_parse_unquote_of_an_at_symbol_round_trips() {
    use ptc_compiler::internals::read_script;
    use ptc_compiler::internals::sexp_print::forms_to_string;
    let (forms, interner) = read_script("`(x , @a)", &limits()).expect("reads");
    let printed = forms_to_string(&forms, &interner);
    let (again, _) = read_script(&printed, &limits()).expect("reads back");
    assert_eq!(again.len(), forms.len());
    // Both reads intern `x` then `a`, so equal data means equal values.
    let (Some(first), Some(second)) = (forms.first(), again.first()) else {
        panic!("no forms");
    };
    assert!(
        ptc_vm::equal::equal(&first.to_value(), &second.to_value()),
        "{printed:?} read back as different data"
    );
    // The machine's printer has the same ambiguity.
    let report = hostile("(format \"%S\" (car '(, @a)))");
    assert_ne!(report.outcome.text(), "\",@a\"");
}

#[test]
fn fuzz_lex_parse_unquote_of_an_at_symbol_reads_as_two_elements() {
    // The half of the finding that holds today: the reader itself is right.
    assert_value(&hostile("(length (car '(, @a)))"), "2");
    assert_value(&hostile("(length (car '(,@ a)))"), "2");
    assert_value(
        &hostile("(eq (car (car '(, @a))) (car (car '(,@ a))))"),
        "nil",
    );
}

/// `count` symbol names whose interner hashes ([`ptc_vm::symbol::name_hash`], unkeyed) agree
/// in their low `bits` bits, found by search as a guest could.
fn colliding_names(count: usize, bits: u32) -> Vec<String> {
    let mask = (1u64 << bits) - 1;
    (0u64..)
        .map(|n| format!("c{n}"))
        .filter(|name| ptc_vm::symbol::name_hash(name) & mask == 0)
        .take(count)
        .collect()
}

#[test]
fn h67_names_crafted_to_collide_in_the_symbol_table_compile_run_and_stay_distinct() {
    // 1,000 quoted names sharing their home entry in the symbol table's index at every size
    // it reaches (2,048 entries): unbounded probing would examine ~n²/2 entries; the
    // interner's bounded window (`vm/src/symbol.rs`, whose unit test counts the probes) keeps
    // each name's cost fixed. Here: the script reads, compiles and runs, and every name is
    // its own symbol.
    let names = colliding_names(1_000, 11);
    let source = format!("(length '({}))", names.join(" "));
    let report = hostile(&source);
    assert_value(&report, "1000");
    let compiled =
        ptc_compiler::compile(&source, &ptc_compiler::Roster::new(), &limits()).expect("compiles");
    let symbols = compiled.program.symbols();
    let distinct: std::collections::BTreeSet<u32> = names
        .iter()
        .map(|name| symbols.lookup(name).expect("interned").id())
        .collect();
    assert_eq!(distinct.len(), names.len());
}
