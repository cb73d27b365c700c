//! Top-level definition collection: hoisting, shapes, names, collisions, the body rule.

mod static_support;

use ptc_compiler::diagnostic::Diagnostic;
use ptc_compiler::internals::definitions::{self, DefinitionKind, Definitions};
use ptc_compiler::roster::Roster;
use ptc_vm::{ErrorKind, Interner};
use static_support::{read, show};

fn collect(src: &str, roster: &Roster) -> (Result<Definitions, Vec<Diagnostic>>, Interner) {
    let mut interner = Interner::new();
    let forms = read(src, &mut interner);
    (definitions::collect(forms, roster, &interner), interner)
}

fn errors(src: &str) -> Vec<(String, &'static str)> {
    collect(src, &Roster::new().tool("Read"))
        .0
        .expect_err(src)
        .into_iter()
        .map(|d| {
            assert_eq!(d.kind, ErrorKind::Script);
            (d.message, d.code)
        })
        .collect()
}

#[test]
fn definitions_are_hoisted_and_body_kept_in_order() {
    let (result, interner) = collect(
        "(sq 3) (defun sq (x) (* x x)) (defmacro twice (f) (list 'progn f f)) (sq 4)",
        &Roster::new(),
    );
    let definitions = result.unwrap();
    assert_eq!(definitions.items.len(), 2);
    let sq = &definitions.items[0];
    assert_eq!(interner.name(sq.name), Some("sq"));
    assert_eq!(sq.kind, DefinitionKind::Function);
    assert_eq!(sq.params.required.len(), 1);
    assert_eq!(show(&sq.body, &interner), "(* x x)");
    assert_eq!((sq.span.start, sq.span.end), (7, 29));
    let twice = &definitions.items[1];
    assert_eq!(twice.kind, DefinitionKind::Macro);
    assert!(definitions.is_macro(twice.name));
    assert!(!definitions.is_function(twice.name));
    assert!(definitions.is_function(sq.name));
    assert_eq!(show(&definitions.body, &interner), "(sq 3) (sq 4)");
}

#[test]
fn missing_parameters_and_body_are_lenient() {
    let (result, _) = collect("(defun f) (f)", &Roster::new());
    let definitions = result.unwrap();
    assert!(definitions.items[0].body.is_empty());
    assert_eq!(definitions.items[0].params.max_args(), Some(0));
}

#[test]
fn bad_definition_names() {
    assert_eq!(
        errors("(defun nil () 1) 1"),
        vec![("'defun': bad definition name nil".into(), "E0101")]
    );
    assert_eq!(
        errors("(defmacro t () 1) 1"),
        vec![("'defmacro': bad definition name t".into(), "E0101")]
    );
    assert_eq!(
        errors("(defun :k () 1) 1"),
        vec![("'defun': bad definition name :k".into(), "E0101")]
    );
    assert_eq!(
        errors("(defun \"f\" () 1) 1"),
        vec![("'defun': bad definition name \"f\"".into(), "E0101")]
    );
    assert_eq!(
        errors("(defun (f) () 1) 1"),
        vec![("'defun': bad definition name (f)".into(), "E0101")]
    );
    assert_eq!(
        errors("(defun) 1"),
        vec![("'defun': bad definition name nil".into(), "E0101")]
    );
}

#[test]
fn collisions_with_every_callable_table() {
    for name in [
        "if",
        "parallel-map",
        "when",
        "dotimes",
        "defun",
        "defmacro",
        "car",
        "string-match-p",
        "Read",
    ] {
        assert_eq!(
            errors(&format!("(defun {name} () 1) 1")),
            vec![(
                format!("'defun': {name} collides with an existing callable name"),
                "E0102"
            )],
            "{name}"
        );
    }
    assert_eq!(
        errors("(defun \\` () 1) 1"),
        vec![(
            "'defun': ` collides with an existing callable name".into(),
            "E0102"
        )]
    );
    assert_eq!(
        errors("(defun f () 1) (defmacro f () 2) 1"),
        vec![(
            "'defmacro': f collides with an existing callable name".into(),
            "E0102"
        )]
    );
}

#[test]
fn standalone_tools_filtered_out_do_not_collide() {
    // The caller passes the effective roster: a filtered standalone tool is not in it.
    let (result, _) = collect("(defun Ask () 1) (Ask)", &Roster::new());
    assert!(result.is_ok());
}

#[test]
fn lambda_list_errors_of_definitions() {
    assert_eq!(
        errors("(defun f (a a) a) 1"),
        vec![("Duplicate parameter: a".into(), "E0116")]
    );
    assert_eq!(
        errors("(defmacro m x x) 1"),
        vec![("Parameter list must be a list, not x".into(), "E0110")]
    );
}

#[test]
fn every_definition_error_is_reported() {
    assert_eq!(
        errors("(defun car () 1) (defun :k () 1) (defun g (&key) 1) 1"),
        vec![
            (
                "'defun': car collides with an existing callable name".into(),
                "E0102"
            ),
            ("'defun': bad definition name :k".into(), "E0101"),
            (
                "Unsupported lambda-list marker '&key'; only '&optional' and '&rest' exist".into(),
                "E0115"
            ),
        ]
    );
}

#[test]
fn a_script_needs_a_body() {
    assert_eq!(
        errors("(defun f () 1)"),
        vec![(
            "Script has no body form after its definitions".into(),
            "E0103"
        )]
    );
    let (result, _) = collect("(defun f () 1)\n(defmacro g () 2)", &Roster::new());
    let diagnostic = &result.unwrap_err()[0];
    assert_eq!((diagnostic.span.start, diagnostic.span.end), (0, 32));
}

#[test]
fn nested_definitions_stay_in_the_body() {
    let (result, interner) = collect("(progn (defun f () 1))", &Roster::new());
    let definitions = result.unwrap();
    assert!(definitions.items.is_empty());
    assert_eq!(
        show(&definitions.body, &interner),
        "(progn (defun f nil 1))"
    );
}
