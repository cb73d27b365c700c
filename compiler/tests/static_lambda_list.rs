//! Lambda-list parsing: every accepted shape and every §6.3 message, exactly.

mod static_support;

use ptc_compiler::internals::lambda_list::{self, LambdaList};
use ptc_vm::{ErrorKind, Interner};
use static_support::read_one;

fn parse(src: &str) -> (Result<LambdaList, (String, &'static str)>, Interner) {
    let mut interner = Interner::new();
    let params = read_one(src, &mut interner);
    let result = lambda_list::parse(&params, &interner).map_err(|d| {
        assert_eq!(d.kind, ErrorKind::Script);
        (d.message, d.code)
    });
    (result, interner)
}

fn error(src: &str) -> (String, &'static str) {
    parse(src).0.expect_err(src)
}

#[test]
fn accepts_plain_optional_and_rest() {
    let (list, interner) = parse("(a b &optional c d &rest e)");
    let list = list.unwrap();
    let names = |symbols: &[ptc_vm::Symbol]| {
        symbols
            .iter()
            .map(|s| interner.name(*s).unwrap().to_owned())
            .collect::<Vec<_>>()
    };
    assert_eq!(names(&list.required), ["a", "b"]);
    assert_eq!(names(&list.optional), ["c", "d"]);
    assert_eq!(interner.name(list.rest.unwrap()), Some("e"));
    assert_eq!(list.min_args(), 2);
    assert_eq!(list.max_args(), None);
    assert_eq!(list.names().count(), 5);
}

#[test]
fn accepts_empty_lists_and_rest_alone() {
    assert_eq!(parse("()").0.unwrap(), LambdaList::default());
    assert_eq!(parse("nil").0.unwrap(), LambdaList::default());
    let list = parse("(&rest xs)").0.unwrap();
    assert!(list.required.is_empty() && list.rest.is_some());
    let list = parse("(a &optional)").0.unwrap();
    assert_eq!(list.max_args(), Some(1));
    let list = parse("(&optional &rest r)").0.unwrap();
    assert_eq!(list.min_args(), 0);
}

#[test]
fn not_a_list() {
    assert_eq!(
        error("x"),
        ("Parameter list must be a list, not x".into(), "E0110")
    );
    assert_eq!(
        error("\"ab\""),
        ("Parameter list must be a list, not \"ab\"".into(), "E0110")
    );
    assert_eq!(
        error("[a]"),
        ("Parameter list must be a list, not [a]".into(), "E0110")
    );
}

#[test]
fn bad_names() {
    assert_eq!(
        error("(a nil)"),
        ("Bad parameter name: nil".into(), "E0111")
    );
    assert_eq!(error("(t)"), ("Bad parameter name: t".into(), "E0111"));
    assert_eq!(
        error("(:key)"),
        ("Bad parameter name: :key".into(), "E0111")
    );
    assert_eq!(error("(1)"), ("Bad parameter name: 1".into(), "E0111"));
    assert_eq!(
        error("((a b))"),
        ("Bad parameter name: (a b)".into(), "E0111")
    );
    assert_eq!(
        error("(\"s\")"),
        ("Bad parameter name: \"s\"".into(), "E0111")
    );
}

#[test]
fn rest_rules() {
    assert_eq!(
        error("(&rest a b)"),
        ("Nothing may follow the '&rest' parameter".into(), "E0112")
    );
    assert_eq!(
        error("(&rest a &optional)"),
        ("Nothing may follow the '&rest' parameter".into(), "E0112")
    );
    assert_eq!(
        error("(&rest &rest a)"),
        ("Duplicate '&rest' in parameter list".into(), "E0114")
    );
    assert_eq!(
        error("(a &rest)"),
        (
            "'&rest' must be followed by one parameter name".into(),
            "E0117"
        )
    );
    assert_eq!(
        error("(&rest :k)"),
        ("Bad parameter name: :k".into(), "E0111")
    );
}

#[test]
fn optional_rules() {
    assert_eq!(
        error("(&optional a &optional b)"),
        ("Misplaced '&optional' in parameter list".into(), "E0113")
    );
    assert_eq!(
        error("(&rest &optional a)"),
        ("Misplaced '&optional' in parameter list".into(), "E0113")
    );
}

#[test]
fn unsupported_markers_and_duplicates() {
    assert_eq!(
        error("(a &key b)"),
        (
            "Unsupported lambda-list marker '&key'; only '&optional' and '&rest' exist".into(),
            "E0115"
        )
    );
    assert_eq!(
        error("(&aux)"),
        (
            "Unsupported lambda-list marker '&aux'; only '&optional' and '&rest' exist".into(),
            "E0115"
        )
    );
    assert_eq!(error("(a b a)"), ("Duplicate parameter: a".into(), "E0116"));
    assert_eq!(
        error("(a &optional b &rest a)"),
        ("Duplicate parameter: a".into(), "E0116")
    );
}

/// Lists longer than the duplicate check's scanned prefix find duplicates the same way,
/// before and after the point where it switches to a set.
#[test]
fn duplicates_in_long_lists() {
    let names: Vec<String> = (0..40).map(|i| format!("p{i}")).collect();
    for at in [3, 15, 16, 17, 39] {
        let mut list = names.clone();
        list.insert(at + 1, format!("p{at}"));
        let source = format!("({})", list.join(" "));
        assert_eq!(
            error(&source),
            (format!("Duplicate parameter: p{at}"), "E0116"),
            "{source}"
        );
        let source = format!("({} &optional q &rest p{at})", names.join(" "));
        assert_eq!(
            error(&source),
            (format!("Duplicate parameter: p{at}"), "E0116"),
            "{source}"
        );
    }
    let source = format!("({} &optional q &rest r)", names.join(" "));
    assert!(parse(&source).0.is_ok(), "{source}");
}

#[test]
fn error_span_points_at_the_element() {
    let mut interner = Interner::new();
    let params = read_one("(a :k)", &mut interner);
    let diagnostic = lambda_list::parse(&params, &interner).unwrap_err();
    assert_eq!((diagnostic.span.start, diagnostic.span.end), (3, 5));
}
