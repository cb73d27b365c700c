//! Golden tests: every reader rejection rendered with its source excerpt and carets.
//!
//! Each snapshot holds the script and the rendered diagnostics exactly as `ptc check` will
//! print them. Review changes with `cargo insta review`.

use ptc_compiler::internals::reader::read;
use ptc_compiler::render::render;
use ptc_vm::{Interner, Limits};

fn rendered_with(source: &str, limits: &Limits) -> String {
    let mut interner = Interner::new();
    let diagnostics = match read(source, limits, &mut interner) {
        Ok(forms) => panic!("{source:?} was accepted: {forms:?}"),
        Err(diagnostics) => diagnostics,
    };
    format!(
        "--- script ---\n{source}\n--- diagnostics ---\n{}",
        render(source, "script.el", &diagnostics)
    )
}

/// Pins `text` as the snapshot `name` (the script is in the snapshot body, not its header).
fn golden(name: &str, text: &str) {
    insta::with_settings!({ omit_expression => true, prepend_module_to_snapshot => true }, {
        insta::assert_snapshot!(name, text);
    });
}

fn rendered(source: &str) -> String {
    rendered_with(source, &Limits::default())
}

macro_rules! golden {
    ($($name:ident: $source:expr;)*) => {
        $(
            #[test]
            fn $name() {
                golden(stringify!($name), &rendered($source));
            }
        )*
    };
}

golden! {
    hash_table_literal: "(gethash 'a #s(hash-table data (a 1)))";
    record_literal: "(list #s(point 1 2))";
    bool_vector_literal: "(length #&3\"\\5\")";
    char_table_literal: "(list #^[nil nil x])";
    byte_code_literal: "(funcall #[(x) \"\\300\" [] 2] 1)";
    reader_label_definition: "(list #1=(a) #1#)";
    unclosed_list: "(defun f (x)\n  (+ x 1)\n\n(f 2)";
    unterminated_string: "(concat \"abc";
    stray_close_paren: "(+ 1 2))";
    stray_close_bracket: "(list 1 ])";
    dot_in_wrong_context: "(a . b c)";
    dot_at_top_level: "(a) . (b)";
    bad_character_literal: "(list ?ab)";
    unknown_hash_syntax: "(list #q)";
    bad_radix_integer: "(list #x1g #37r1)";
    bad_propertized_string: "(list #(a 0 1 (face bold)))";
    invalid_escape: "(list \"\\u12\")";
    modifier_in_string: "(list \"\\M-a\")";
    non_unicode_escape: "(list \"\\uD800\")";
    integer_over_budget: &format!("(* 2 1{})", "0".repeat(1300));
    empty_script: "";
    comment_only_script: ";; nothing to see\n";
    several_problems: "(a . b)\n)\n(list #s(x) \"\\M-a\")\n(c";
    problems_inside_unclosed_list: "(let ((x #s(a)))\n  (list (b . c)";
}

#[test]
fn input_bytes_over_budget() {
    let limits = Limits {
        input_bytes: 16,
        ..Limits::default()
    };
    golden(
        "input_bytes_over_budget",
        &rendered_with("(list \"a long string\")", &limits),
    );
}

#[test]
fn nodes_over_budget() {
    let limits = Limits {
        nodes: 12,
        ..Limits::default()
    };
    golden(
        "nodes_over_budget",
        &rendered_with("(list 1 2)\n(list 3 4)", &limits),
    );
}

#[test]
fn depth_over_budget() {
    let limits = Limits {
        depth: 3,
        ..Limits::default()
    };
    golden(
        "depth_over_budget",
        &rendered_with("(a (b (c (d))))", &limits),
    );
}

#[test]
fn deep_nesting_attack() {
    let source = "(".repeat(100_000);
    let limits = Limits {
        input_bytes: 1_000_000,
        ..Limits::default()
    };
    let mut interner = Interner::new();
    let diagnostics = read(&source, &limits, &mut interner).unwrap_err();
    golden(
        "deep_nesting_attack",
        &render(&source, "script.el", &diagnostics),
    );
}
