//! The six transformers: exact one-level expansions, shape errors and the size limit.

mod static_support;

use ptc_compiler::diagnostic::Diagnostic;
use ptc_compiler::internals::ast::Sexp;
use ptc_compiler::internals::transform::{self, Transformer, count_nodes};
use ptc_compiler::tables::prin1;
use ptc_vm::{ErrorKind, Interner, Limits};
use static_support::{read_one, read_raw};

fn expand_with(src: &str, limits: &Limits) -> (Result<Sexp, Diagnostic>, Interner) {
    let mut interner = Interner::new();
    let form = read_raw(src, &mut interner);
    let transformer = Transformer::of(&form, &interner).expect("a transformer call");
    let result = transform::expand(transformer, &form, limits, &mut interner);
    (result, interner)
}

fn expansion(src: &str) -> String {
    let (result, interner) = expand_with(src, &Limits::default());
    prin1(&result.expect(src), &interner)
}

fn error(src: &str) -> (String, &'static str) {
    let diagnostic = expand_with(src, &Limits::default()).0.expect_err(src);
    assert_eq!(diagnostic.kind, ErrorKind::Script, "{src}");
    (diagnostic.message, diagnostic.code)
}

#[test]
fn when_and_unless() {
    assert_eq!(expansion("(when c a b)"), "(if c (progn a b))");
    assert_eq!(expansion("(when c)"), "(if c (progn))");
    assert_eq!(expansion("(unless c a)"), "(if c nil (progn a))");
    assert_eq!(
        error("(when)"),
        ("'when': expects (when CONDITION BODY...)".into(), "E0201")
    );
    assert_eq!(
        error("(unless)"),
        (
            "'unless': expects (unless CONDITION BODY...)".into(),
            "E0202"
        )
    );
}

#[test]
fn push() {
    assert_eq!(expansion("(push (f x) acc)"), "(setq acc (cons (f x) acc))");
    for bad in ["(push 1)", "(push)", "(push 1 x y)"] {
        assert_eq!(
            error(bad),
            ("'push': expects (push VALUE VARIABLE)".into(), "E0203")
        );
    }
    assert_eq!(
        error("(push 1 (symbol-name x))"),
        (
            "'push': PLACE must be a variable name or a supported place, not (symbol-name x)"
                .into(),
            "E0204"
        )
    );
    assert_eq!(
        error("(push 1 nil)"),
        (
            "'push': PLACE must be a variable name, not nil".into(),
            "E0204"
        )
    );
    assert_eq!(
        error("(push 1 :k)"),
        (
            "'push': PLACE must be a variable name, not :k".into(),
            "E0204"
        )
    );
}

#[test]
fn dolist_binds_a_hidden_tail_and_a_fresh_variable() {
    let (result, interner) = expand_with("(dolist (x xs) (f x) (g))", &Limits::default());
    let form = result.unwrap();
    assert_eq!(
        prin1(&form, &interner),
        "(let ((tail xs)) (while tail (let ((x (car tail))) (f x) (g)) (setq tail (cdr tail))))"
    );
    // The hidden variable is uninterned: not the symbol a script writes as `tail`.
    let items = form.as_list().unwrap();
    let binding = items[1].as_list().unwrap()[0].as_list().unwrap();
    let hidden = binding[0].as_symbol().unwrap();
    assert_ne!(Some(hidden), interner.lookup("tail"));
    // Every new node carries the form's span; the user's forms keep theirs.
    assert_eq!((form.span.start, form.span.end), (0, 25));
    assert_eq!((binding[1].span.start, binding[1].span.end), (11, 13));
}

#[test]
fn dotimes_counts_from_zero_below_a_hidden_limit() {
    assert_eq!(
        expansion("(dotimes (i 3) (push i acc))"),
        "(let ((limit 3) (i 0)) (while (< i limit) (let ((i i)) (push i acc)) (setq i (+ i 1))))"
    );
    let (result, interner) = expand_with("(dotimes (i n) i)", &Limits::default());
    let form = result.unwrap();
    let items = form.as_list().unwrap();
    let counter = items[1].as_list().unwrap()[1].as_list().unwrap()[0]
        .as_symbol()
        .unwrap();
    assert_ne!(
        Some(counter),
        interner.lookup("i"),
        "hidden counter is fresh"
    );
}

#[test]
fn loop_shape_errors() {
    let dolist = "'dolist': expects (dolist (VAR LIST [RESULT]) BODY...)";
    for bad in [
        "(dolist)",
        "(dolist x)",
        "(dolist (x))",
        "(dolist (x xs r s) 1)",
        "(dolist nil)",
    ] {
        assert_eq!(error(bad), (dolist.into(), "E0205"), "{bad}");
    }
    assert_eq!(
        error("(dolist (:k xs))"),
        (
            "'dolist': VAR must be a variable name, not :k".into(),
            "E0206"
        )
    );
    assert_eq!(
        error("(dolist ((a) xs))"),
        (
            "'dolist': VAR must be a variable name, not (a)".into(),
            "E0206"
        )
    );
    let dotimes = "'dotimes': expects (dotimes (VAR COUNT [RESULT]) BODY...)";
    for bad in ["(dotimes)", "(dotimes (i))", "(dotimes (i 3 r s))"] {
        assert_eq!(error(bad), (dotimes.into(), "E0207"), "{bad}");
    }
    assert_eq!(
        error("(dotimes (nil 3))"),
        (
            "'dotimes': VAR must be a variable name, not nil".into(),
            "E0208"
        )
    );
}

#[test]
fn backquote_expansions() {
    assert_eq!(expansion("`(a b)"), "'(a b)");
    assert_eq!(expansion("`x"), "'x");
    assert_eq!(expansion("`,x"), "x");
    assert_eq!(expansion("`(a ,b c)"), "(list 'a b 'c)");
    assert_eq!(expansion("`(,@xs)"), "xs");
    assert_eq!(expansion("`(a ,@xs b)"), "(append (list 'a) xs (list 'b))");
    assert_eq!(expansion("`(,@xs ,@ys)"), "(append xs ys)");
    assert_eq!(
        expansion("`(a (b ,c) (d e))"),
        "(list 'a (list 'b c) '(d e))"
    );
    assert_eq!(expansion("`(a ',x)"), "(list 'a (list 'quote x))");
    assert_eq!(
        expansion("`(1 \"s\" [a ,b])"),
        "(list '1 '\"s\" (apply 'vector (list 'a b)))"
    );
    assert_eq!(expansion("`(1 [a b])"), "'(1 [a b])");
}

#[test]
fn backquote_errors() {
    assert_eq!(error("(BQ a b)"), ("Malformed backquote".into(), "E0209"));
    assert_eq!(error("(BQ)"), ("Malformed backquote".into(), "E0209"));
    assert_eq!(
        error("`,@x"),
        (
            "',@' is only valid as a list element inside a backquote".into(),
            "E0210"
        )
    );
    assert_eq!(
        error("`(a `(b ,c))"),
        ("Nested backquote is not supported".into(), "E0211")
    );
    assert_eq!(
        error("``a"),
        ("Nested backquote is not supported".into(), "E0211")
    );
    assert_eq!(
        error("`(a (COMMA b c))"),
        (
            "Malformed ',': expects exactly one expression".into(),
            "E0212"
        )
    );
    assert_eq!(
        error("`(a (SPLICE))"),
        (
            "Malformed ',@': expects exactly one expression".into(),
            "E0212"
        )
    );
}

#[test]
fn dotted_unquote_is_rejected() {
    // `(a . ,b)` reads as a list holding a bare `,` symbol second to last: the tail.
    assert_eq!(expansion("`(a . ,b)"), "(append (list 'a) b)");
    assert_eq!(
        error("`(a . ,@b)"),
        (
            "Dotted ',@' is not supported inside a backquote".into(),
            "E0213"
        )
    );
    // A bare `,` second to last is the dotted tail; anywhere else it is still refused.
    assert_eq!(expansion("`(a COMMA b)"), "(append (list 'a) b)");
    assert_eq!(
        error("`(a COMMA b c)"),
        (
            "Dotted ',' is not supported inside a backquote".into(),
            "E0213"
        )
    );
    assert_eq!(
        error("`(a SPLICE b)"),
        (
            "Dotted ',@' is not supported inside a backquote".into(),
            "E0213"
        )
    );
}

#[test]
fn expansion_size_limit() {
    let limits = Limits {
        expansion_nodes: 6,
        ..Limits::default()
    };
    // (if c (progn a b)) = 3 + 1 + 1 + 3 + 1 + 1 + 1 = 11 nodes.
    let (result, _) = expand_with("(when c a b)", &limits);
    let diagnostic = result.unwrap_err();
    assert_eq!(diagnostic.kind, ErrorKind::Expansion);
    assert_eq!(
        diagnostic.message,
        "Expansion of when exceeded its size limit"
    );
    assert_eq!(diagnostic.code, "E0220");
    let (result, _) = expand_with("`(a ,b)", &limits);
    assert_eq!(
        result.unwrap_err().message,
        "Expansion of ` exceeded its size limit"
    );
    let limits = Limits {
        expansion_nodes: 11,
        ..Limits::default()
    };
    assert!(expand_with("(when c a b)", &limits).0.is_ok());
}

#[test]
fn node_count_is_cons_cells_plus_atoms() {
    let mut interner = Interner::new();
    assert_eq!(count_nodes(&read_one("x", &mut interner), 100), 1);
    assert_eq!(count_nodes(&read_one("(a b)", &mut interner), 100), 4);
    assert_eq!(
        count_nodes(&read_one("(a (b c) [d])", &mut interner), 100),
        10
    );
    assert!(count_nodes(&read_one("(a b c d e f)", &mut interner), 3) > 3);
}

#[test]
fn deep_templates_are_a_typed_error() {
    let limits = Limits {
        depth: 5,
        ..Limits::default()
    };
    let (result, _) = expand_with("`(((((((,x)))))))", &limits);
    let diagnostic = result.unwrap_err();
    assert_eq!(diagnostic.kind, ErrorKind::Input);
    assert_eq!(
        diagnostic.message,
        "Script nesting exceeds the depth limit of 5"
    );
}
