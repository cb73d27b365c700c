//! Preflight (§10): unknown operators with suggestions, misplaced unquote, nested
//! definitions, standalone-only tools, literal regexps, and what is not walked.

mod static_support;

use ptc_compiler::internals::preflight::{STANDALONE_MESSAGE, UNKNOWN_TAIL};
use ptc_compiler::roster::Roster;
use ptc_vm::{ErrorKind, Interner, Limits};
use static_support::{check, messages};

fn roster() -> Roster {
    Roster::new()
        .tool("Read")
        .tool("Glob")
        .standalone("Skill")
        .standalone("Ask")
}

fn unknown(names: &str) -> String {
    format!("Unknown functions: {names}.  {UNKNOWN_TAIL}")
}

fn diagnostics(src: &str) -> Vec<(ErrorKind, &'static str, String)> {
    let mut interner = Interner::new();
    match check(src, &roster(), &Limits::default(), &mut interner) {
        Ok(_) => Vec::new(),
        Err(all) => all
            .into_iter()
            .map(|d| (d.kind, d.code, d.message))
            .collect(),
    }
}

#[test]
fn the_unknown_message_is_exact() {
    assert_eq!(
        messages("(seq-reverse xs)", &roster()),
        [
            "Unknown functions: seq-reverse (try: reverse).  Callable names are limited to the documented special forms and conveniences, the pure data primitives, this script's definitions, and this request's tools"
        ]
    );
}

#[test]
fn accepted_scripts() {
    for src in [
        "(Read :file_path \"a\")",
        "(let ((x (Read :file_path \"a\"))) (when x (length x)))",
        "(defun sq (x) (* x x)) (mapcar 'sq '(1 2))",
        "(defmacro m (x) x) (m (anything-goes here))",
        "'(undefined-fn 1)",
        "(let ((undefined-var 1) (other (car '(1)))) undefined-var)",
        "(lambda (a b) (+ a b))",
        "(dolist (item '(1 2)) (identity item))",
        "(dotimes (i 3) i)",
        "(cond ((null x) 1) (t 2))",
        "`(a ,(car xs) ,@(cdr xs))",
        "(parallel (Read :file_path \"a\") (Glob :pattern \"*\"))",
        "(parallel-map (lambda (f) (Read :file_path f)) '(\"a\"))",
        "(Skill :name \"frontend\")",
        "(string-match-p \"^[0-9]+$\" s)",
    ] {
        assert_eq!(diagnostics(src), [], "{src}");
    }
}

#[test]
fn unknowns_are_collected_once_in_first_seen_order_with_suggestions() {
    assert_eq!(
        messages(
            "(progn (cl-append 'f xs) (lenght xs) (frobnicate) (cl-append 'g xs) (seq-reverse xs))",
            &roster()
        ),
        [unknown(
            "cl-append (try: append), lenght (try: length), frobnicate, seq-reverse (try: reverse)"
        )]
    );
}

#[test]
fn dead_branches_and_nested_arguments_are_not_exempt() {
    assert_eq!(
        messages("(if nil (zorkmid (quuxly 1)) 2)", &roster()),
        [unknown("zorkmid, quuxly")]
    );
    assert_eq!(
        messages("(cond ((foo) (bar)))", &roster()),
        // "foo" is not similar enough to "or" (distance 2, 3 characters).
        [unknown("foo, bar (try: car)")]
    );
    assert_eq!(
        messages(
            "(let ((x (mystery-op))) (let* ((y 1)) (another-op)))",
            &roster()
        ),
        [unknown("mystery-op, another-op")]
    );
    assert_eq!(
        messages("(dolist (x (mystery-op)) (another-op x))", &roster()),
        [unknown("mystery-op, another-op")]
    );
    assert_eq!(
        messages("((lambda (x) (mystery-op x)) 1)", &roster()),
        [unknown("mystery-op")]
    );
}

#[test]
fn definition_bodies_are_checked_and_definitions_are_known() {
    assert_eq!(
        messages("(defun f (x) (undefined x)) (f 1)", &roster()),
        [unknown("undefined")]
    );
    assert_eq!(
        messages("(defmacro m (x) (build x)) (m 1)", &roster()),
        [unknown("build")]
    );
    assert_eq!(
        messages("(defun helper () 1) (helpr)", &roster()),
        [unknown("helpr (try: helper)")]
    );
    assert_eq!(
        messages("(defmacro mac () 1) (mak)", &roster()),
        [unknown("mak (try: max)")]
    );
}

#[test]
fn suggestion_ranking_follows_the_candidate_order() {
    // Special forms come first: `iff` is 1 from `if`.
    assert_eq!(messages("(iff 1)", &roster()), [unknown("iff (try: if)")]);
    // A namespace-stripped match (distance 1) beats a later exact-length neighbour.
    assert_eq!(
        messages("(cl-push x y)", &roster()),
        [unknown("cl-push (try: push)")]
    );
    // Roster tools are candidates; standalone tools are not offered in a composed script.
    assert_eq!(
        messages("(progn (Reed) 1)", &roster()),
        [unknown("Reed (try: Read)")]
    );
    assert_eq!(messages("(progn (Skil) 1)", &roster()), [unknown("Skil")]);
    // Nothing within distance 2: no suggestion.
    assert_eq!(messages("(xyzzy)", &roster()), [unknown("xyzzy")]);
    // Ties keep the first candidate: `cdr` and `car` are both 1 from `cxr`; car is first.
    assert_eq!(messages("(cxr x)", &roster()), [unknown("cxr (try: car)")]);
}

#[test]
fn unquote_outside_backquote() {
    let mut interner = Interner::new();
    let form = static_support::read_raw("(list (COMMA x) (SPLICE y))", &mut interner);
    let definitions = ptc_compiler::internals::definitions::Definitions {
        items: Vec::new(),
        body: vec![form],
    };
    let all = ptc_compiler::internals::preflight::preflight(
        &definitions,
        &roster(),
        None,
        &Limits::default(),
        &mut interner,
        None,
        ptc_compiler::internals::preflight::Keep::Nothing,
    )
    .unwrap_err();
    let got: Vec<_> = all
        .iter()
        .map(|d| (d.kind, d.code, d.message.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            (
                ErrorKind::Preflight,
                "E0302",
                "',' is only valid inside a backquote template"
            ),
            (
                ErrorKind::Preflight,
                "E0302",
                "',@' is only valid inside a backquote template"
            ),
        ]
    );
    assert_eq!(
        messages(",x", &roster()),
        ["',' is only valid inside a backquote template"]
    );
}

#[test]
fn malformed_backquote_fails_in_preflight_with_its_own_message() {
    assert_eq!(
        diagnostics("(if nil `(a `(b)) 1)"),
        [(
            ErrorKind::Script,
            "E0211",
            "Nested backquote is not supported".to_owned()
        )]
    );
    // The expansion is walked: unknown operators inside unquotes are found.
    assert_eq!(
        messages("`(a ,(mystery-op))", &roster()),
        [unknown("mystery-op")]
    );
}

#[test]
fn nested_definitions() {
    assert_eq!(
        diagnostics("(progn (defun f () 1) (defmacro g () 2))"),
        [
            (
                ErrorKind::Preflight,
                "E0303",
                "'defun' is only allowed as a top-level form of the script".to_owned()
            ),
            (
                ErrorKind::Preflight,
                "E0303",
                "'defmacro' is only allowed as a top-level form of the script".to_owned()
            ),
        ]
    );
    assert_eq!(
        messages("(defun f () (defun g () 1)) (f)", &roster()),
        ["'defun' is only allowed as a top-level form of the script"]
    );
}

#[test]
fn standalone_tools_in_a_composed_script() {
    let standalone = || (ErrorKind::Preflight, "E0304", STANDALONE_MESSAGE.to_owned());
    assert_eq!(
        diagnostics("(progn (Skill :name \"frontend\") (Read :file_path \"build\"))"),
        [standalone()]
    );
    assert_eq!(diagnostics("(funcall 'Ask \"q\")"), [standalone()]);
    assert_eq!(diagnostics("(apply 'Skill nil)"), [standalone()]);
    assert_eq!(diagnostics("(mapcar 'Ask '(\"a\"))"), [standalone()]);
    assert_eq!(diagnostics("(Skill) 1"), [standalone()]);
    assert_eq!(diagnostics("(Read :x (Ask))"), [standalone()]);
    // A direct call may name one; computed names are only caught at dispatch.
    assert_eq!(diagnostics("(Ask :question \"q\")"), []);
    assert_eq!(diagnostics("(funcall (car '(Ask)))"), []);
    assert_eq!(
        STANDALONE_MESSAGE,
        "Standalone-only tools require one direct call as the entire expression"
    );
}

#[test]
fn every_diagnostic_is_reported_with_unknowns_last() {
    let got = diagnostics("(progn (mystery-op) ,x (Ask) (defun g () 1) (another-op))");
    let codes: Vec<_> = got.iter().map(|(_, code, _)| *code).collect();
    assert_eq!(codes, ["E0302", "E0304", "E0303", "E0301"]);
    assert_eq!(got[3].2, unknown("mystery-op, another-op"));
}

#[test]
fn macro_arguments_and_quoted_data_are_not_walked() {
    assert_eq!(
        diagnostics("(defmacro m (&rest xs) nil) (m (a) (b ,c))"),
        []
    );
    assert_eq!(diagnostics("(quote (a (b)))"), []);
    assert_eq!(diagnostics("(lambda ((bad)) 1)"), []);
}

#[test]
fn literal_regexps_are_validated() {
    let limits = Limits {
        regexp_bytes: 4,
        ..Limits::default()
    };
    let mut interner = Interner::new();
    let all = check(
        "(list (string-match-p \"abcde\" s) (split-string s \"abcde\" nil \"vwxyz\") (string-trim s \"12345\" \"ok\") (string-match-p s \"long text is input\"))",
        &roster(),
        &limits,
        &mut interner,
    )
    .unwrap_err();
    let got: Vec<_> = all
        .iter()
        .map(|d| (d.kind, d.code, d.message.as_str(), d.span.start))
        .collect();
    let message = "Guest regexp exceeds its 4 byte budget";
    assert_eq!(
        got,
        [
            (ErrorKind::AtomicWork, "E0305", message, 22),
            (ErrorKind::AtomicWork, "E0305", message, 49),
            (ErrorKind::AtomicWork, "E0305", message, 61),
            (ErrorKind::AtomicWork, "E0305", message, 85),
        ]
    );
    assert_eq!(
        messages("(split-string s \"\")", &roster()),
        ["'split-string': an empty separator is forbidden"]
    );
}

/// Many distinct heads, each called twice (more than preflight's cache of recent heads
/// holds): every unknown name is reported once, in first-seen order, and every tool call
/// and primitive is judged on each call, whatever the cache held.
#[test]
fn many_recurring_heads_are_judged_each_time() {
    let unknowns: Vec<String> = (0..40).map(|i| format!("unknown-{i}")).collect();
    let calls: String = unknowns
        .iter()
        .chain(unknowns.iter())
        .map(|name| format!("({name} 1) (Skill :name \"x\") (length '(1)) (Read :file_path \"a\")"))
        .collect::<Vec<_>>()
        .join(" ");
    let all = diagnostics(&format!("(list {calls})"));
    let standalone = all
        .iter()
        .filter(|(_, code, message)| *code == "E0304" && message == STANDALONE_MESSAGE)
        .count();
    assert_eq!(standalone, 80, "{all:?}");
    let (kind, code, message) = all.last().expect("the unknown-functions diagnostic");
    assert_eq!((*kind, *code), (ErrorKind::Preflight, "E0301"));
    assert!(
        message.starts_with("Unknown functions: unknown-0"),
        "{message}"
    );
    assert_eq!(all.len(), 81, "{all:?}");
}
