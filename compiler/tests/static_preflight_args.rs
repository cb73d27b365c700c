//! Preflight of tool arguments (spec/reference/preflight.md, "Tool arguments"): every
//! statically visible call of a tool with a contract, through the whole static pipeline.

use ptc_compiler::roster::{Allowed, ArgContract, ArgSpec, JsonType, Roster};
use ptc_compiler::{Diagnostic, check};
use ptc_vm::{ErrorKind, Limits};

fn spec(name: &str, types: &[JsonType]) -> ArgSpec {
    ArgSpec {
        name: name.to_owned(),
        types: types.to_vec(),
        allowed: None,
    }
}

fn roster() -> Roster {
    use JsonType::{Array, Boolean, Integer, Null, Object, String};
    let read = ArgContract {
        args: vec![
            spec("file_path", &[String]),
            spec("offset", &[Integer]),
            spec("limit", &[Integer]),
        ],
        required: vec!["file_path".into()],
        closed: true,
    };
    let grep = ArgContract {
        args: vec![
            spec("pattern", &[String]),
            spec("path", &[String]),
            spec("ignore_case", &[Boolean]),
            ArgSpec {
                allowed: Some(vec![
                    Allowed::Str("content".into()),
                    Allowed::Str("files".into()),
                    Allowed::Str("count".into()),
                ]),
                ..spec("mode", &[String])
            },
            ArgSpec {
                allowed: Some(vec![Allowed::Int(1), Allowed::Int(5), Allowed::Int(10)]),
                ..spec("context", &[])
            },
            spec("tags", &[Array]),
            spec("options", &[Object]),
            spec("note", &[String, Null]),
        ],
        required: vec!["pattern".into()],
        closed: true,
    };
    let open = ArgContract {
        args: vec![spec("n", &[Integer])],
        required: vec![],
        closed: false,
    };
    Roster::new()
        .tool("Read")
        .with_args(read)
        .tool("Grep")
        .with_args(grep)
        .tool("Open")
        .with_args(open)
        .tool("Bare")
}

fn diagnostics(src: &str) -> Vec<Diagnostic> {
    check(src, &roster(), &Limits::default())
}

fn messages(src: &str) -> Vec<String> {
    diagnostics(src).into_iter().map(|d| d.message).collect()
}

#[track_caller]
fn accepted(src: &str) {
    assert_eq!(messages(src), Vec::<String>::new(), "{src}");
}

#[test]
fn the_issue_messages() {
    assert_eq!(
        messages(r#"(Read :file_pth "a")"#),
        [
            "Read has no argument :file_pth (try :file_path); it accepts: :file_path, :offset, :limit",
            "Read needs :file_path"
        ]
    );
    assert_eq!(messages(r#"(Grep :path "src")"#), ["Grep needs :pattern"]);
    assert_eq!(
        messages(r#"(Read :file_path "a" :limit "10")"#),
        [r#"Read :limit expects an integer, got the string "10""#]
    );
    assert_eq!(
        messages(r#"(Grep :pattern "x" :mode "contnet")"#),
        [r#"Grep :mode expects one of "content", "files", "count", got "contnet" (try "content")"#]
    );
    assert_eq!(
        messages(r#"(Read "a.rs")"#),
        [
            r#"Read: arguments must be :keyword value pairs; "a.rs" is not a keyword (try :file_path "a.rs")"#
        ]
    );
    assert_eq!(
        messages(r#"(Read :file_path "a" :limit)"#),
        ["Read: argument :limit has no value"]
    );
}

#[test]
fn every_problem_is_reported_at_once_with_the_unknown_operators_last() {
    let src = r#"(progn (Read :file_pth "a") (frobnicate) (Grep :pattern 3) (Read :file_path "b" :limit "x"))"#;
    let all = diagnostics(src);
    let codes: Vec<&str> = all.iter().map(|d| d.code).collect();
    assert_eq!(codes, ["E0320", "E0321", "E0322", "E0322", "E0301"]);
    assert!(all.iter().all(|d| d.kind == ErrorKind::Preflight));
    // Spans: the key, the whole call, each value literal.
    let text = |d: &Diagnostic| &src[d.span.start as usize..d.span.end as usize];
    assert_eq!(text(&all[0]), ":file_pth");
    assert_eq!(text(&all[1]), r#"(Read :file_pth "a")"#);
    assert_eq!(text(&all[2]), "3");
    assert_eq!(text(&all[3]), r#""x""#);
    assert_eq!(text(&all[4]), "frobnicate");
}

#[test]
fn every_statically_visible_call_is_judged() {
    let bad = r#"(Read :file_path 1)"#;
    for src in [
        bad.to_owned(),
        format!("(parallel {bad} (Read :file_path \"b\"))"),
        "(parallel-map (lambda (f) (Read :file_path f :limit \"2\")) '(\"a\"))".to_owned(),
        format!("(defun f () {bad}) (f)"),
        format!("(if nil {bad})"),
        format!("(let ((x {bad})) x)"),
        format!("(defmacro m () '{bad}) (m)"),
        format!("(defmacro m (x) x) (m {bad})"),
        "(defmacro m (p) `(Read :file_path ,p)) (m 1)".to_owned(),
    ] {
        let codes: Vec<&str> = diagnostics(&src).iter().map(|d| d.code).collect();
        assert_eq!(codes, ["E0322"], "{src}");
    }
}

#[test]
fn types_follow_the_runtime_conversion() {
    // nil is false for a boolean, [] for an array, {} for an object, else null.
    accepted(r#"(Grep :pattern "x" :ignore_case nil :tags nil :options nil :note nil)"#);
    accepted(r#"(Grep :pattern "x" :ignore_case :json-false :note :null)"#);
    accepted(r#"(Grep :pattern "x" :ignore_case t :tags [1 2] :tags "ignored: not the first")"#);
    accepted(r#"(Grep :pattern "x" :tags '(1 2) :options '(:a 1) :options 7)"#);
    accepted(r#"(Read :file_path "a" :limit 3.0)"#);
    assert_eq!(
        messages(r#"(Read :file_path nil)"#),
        ["Read :file_path expects a string, got nil (JSON null)"]
    );
    assert_eq!(
        messages(r#"(Grep :pattern :json-false :note 2.5 :ignore_case "yes")"#),
        [
            "Grep :pattern expects a string, got :json-false (JSON false)",
            "Grep :note expects a string or null, got the number 2.5",
            r#"Grep :ignore_case expects a boolean, got the string "yes""#
        ]
    );
    assert_eq!(
        messages(r#"(Read :file_path '(a b) :limit [1])"#),
        [
            "Read :file_path expects a string, got '(a b) (a JSON array or object)",
            "Read :limit expects an integer, got the vector [1] (a JSON array)"
        ]
    );
    // Keywords and quoted symbols are strings.
    accepted(r#"(Read :file_path :a-keyword) (Read :file_path 'a-symbol)"#);
    assert_eq!(
        messages(r#"(Read :file_path "a" :limit :ten)"#),
        ["Read :limit expects an integer, got :ten (a JSON string)"]
    );
}

#[test]
fn enums_compare_the_converted_value() {
    accepted(r#"(Grep :pattern "x" :mode "files" :context 5)"#);
    assert_eq!(
        messages(r#"(Grep :pattern "x" :context 4 :mode "zzzzzz")"#),
        [
            "Grep :context expects one of 1, 5, 10, got 4 (try 5)",
            r#"Grep :mode expects one of "content", "files", "count", got "zzzzzz""#
        ]
    );
    // A keyword is the string ":files", not "files".
    assert_eq!(
        diagnostics(r#"(Grep :pattern "x" :mode :files)"#)[0].code,
        "E0323"
    );
}

#[test]
fn computed_arguments_are_left_to_dispatch() {
    accepted(r#"(let ((p 1)) (Read :file_path p :limit (car '("x"))))"#);
    // A computed key may be any key: nothing after it is judged, no key is missing.
    accepted(r#"(let ((k :file_path)) (Read k "a" :file_path 3))"#);
    accepted(r#"(let ((k :pattern)) (Grep k "a"))"#);
    // But an undeclared literal key is refused wherever it is.
    assert_eq!(
        diagnostics(r#"(let ((k :file_path)) (Read k "a" :bogus 1))"#)[0].code,
        "E0320"
    );
    // A quoted keyword in a key position is not judged; other literals are positional.
    accepted(r#"(Read ':file_path "a")"#);
    assert_eq!(
        diagnostics(r#"(Read :file_path "a" 'x 1)"#)[0].code,
        "E0324"
    );
    assert_eq!(
        messages(r#"(Read :file_path "a" 3 4)"#),
        ["Read: arguments must be :keyword value pairs; 3 is not a keyword (try :offset 3)"]
    );
}

#[test]
fn open_contracts_and_tools_without_a_contract_check_less() {
    accepted("(Open :n 1 :anything \"goes\")");
    assert_eq!(diagnostics("(Open :n \"1\")")[0].code, "E0322");
    accepted("(Bare \"positional\" 1 2)");
    accepted("(Bare :x)");
    let none = Roster::new().tool("T").with_args(ArgContract {
        closed: true,
        ..ArgContract::default()
    });
    assert_eq!(
        check("(T :x 1)", &none, &Limits::default())
            .into_iter()
            .map(|d| d.message)
            .collect::<Vec<_>>(),
        ["T has no argument :x; it takes no arguments"]
    );
}

#[test]
fn valid_calls_are_accepted() {
    accepted(r#"(Read :file_path "a")"#);
    accepted(r#"(Read :limit 2 :file_path "a" :offset 1)"#);
    accepted(r#"(Grep :pattern "^fn " :path "src" :ignore_case t :note "n")"#);
    accepted(r#"(parallel (Read :file_path "a") (Grep :pattern "b"))"#);
}
