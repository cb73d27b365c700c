//! Reader behaviour: what each syntax reads as, and every rejection's kind, code and message.

use ptc_compiler::internals::ast::{Sexp, SexpKind};
use ptc_compiler::internals::reader::{MAX_DEPTH, read};
use ptc_compiler::internals::sexp_print::forms_to_string;
use ptc_vm::{ErrorKind, Interner, Limits, Span};

/// The forms of `source` printed back, one per line.
fn printed(source: &str) -> String {
    let mut interner = Interner::new();
    match read(source, &Limits::default(), &mut interner) {
        Ok(forms) => forms_to_string(&forms, &interner),
        Err(diagnostics) => panic!("{source:?} was rejected: {diagnostics:?}"),
    }
}

fn only(source: &str) -> SexpKind {
    let mut interner = Interner::new();
    let mut forms = read(source, &Limits::default(), &mut interner).expect("reads");
    assert_eq!(forms.len(), 1, "{source:?}");
    forms.remove(0).kind
}

/// The single diagnostic of `source` under `limits`: (code, kind, message, span).
fn rejection_with(source: &str, limits: &Limits) -> (&'static str, ErrorKind, String, Span) {
    let mut interner = Interner::new();
    match read(source, limits, &mut interner) {
        Ok(forms) => panic!("{source:?} was accepted: {forms:?}"),
        Err(diagnostics) => {
            assert_eq!(diagnostics.len(), 1, "{source:?}: {diagnostics:?}");
            let d = &diagnostics[0];
            (d.code, d.kind, d.message.clone(), d.span)
        }
    }
}

fn rejection(source: &str) -> (&'static str, ErrorKind, String) {
    let (code, kind, message, _) = rejection_with(source, &Limits::default());
    (code, kind, message)
}

fn script(code: &'static str, message: &str) -> (&'static str, ErrorKind, String) {
    (code, ErrorKind::Script, message.to_owned())
}

#[test]
fn atoms_read_as_emacs_reads_them() {
    assert_eq!(only("42"), SexpKind::Int(42));
    assert_eq!(only("+1"), SexpKind::Int(1));
    assert_eq!(only("-1"), SexpKind::Int(-1));
    assert_eq!(only("1."), SexpKind::Int(1));
    assert_eq!(only("1.5"), SexpKind::Float(1.5));
    assert_eq!(only(".5"), SexpKind::Float(0.5));
    assert_eq!(only("1e3"), SexpKind::Float(1000.0));
    assert_eq!(only("1.0e+INF"), SexpKind::Float(f64::INFINITY));
    assert!(matches!(only("0.0e+NaN"), SexpKind::Float(f) if f.is_nan()));
    assert_eq!(only("?a"), SexpKind::Int(97));
    assert_eq!(only("?\\n"), SexpKind::Int(10));
    assert_eq!(only("?\\C-a"), SexpKind::Int(1));
    assert_eq!(only("?\\^?"), SexpKind::Int(127));
    assert_eq!(only("?\\M-a"), SexpKind::Int((1 << 27) | 97));
    assert_eq!(only("?\\C-\\M-a"), SexpKind::Int((1 << 27) | 1));
    assert_eq!(only("?\\x41"), SexpKind::Int(65));
    assert_eq!(only("?\\101"), SexpKind::Int(65));
    assert_eq!(only("?\\u00e9"), SexpKind::Int(0xe9));
    assert_eq!(only("?\\N{U+1F600}"), SexpKind::Int(0x1F600));
    assert_eq!(only("?\\s"), SexpKind::Int(32));
    assert_eq!(only("?é"), SexpKind::Int(0xe9));
    assert_eq!(only("?("), SexpKind::Int(40));
    assert_eq!(only("#x1F"), SexpKind::Int(31));
    assert_eq!(only("#X-1f"), SexpKind::Int(-31));
    assert_eq!(only("#b101"), SexpKind::Int(5));
    assert_eq!(only("#o17"), SexpKind::Int(15));
    assert_eq!(only("#24r1k"), SexpKind::Int(44));
    assert_eq!(only("nil"), SexpKind::Nil);
    assert_eq!(only("()"), SexpKind::Nil);
    assert_eq!(only("t"), SexpKind::T);
    assert_eq!(only("\"a\\nb\""), SexpKind::Str("a\nb".into()));
}

#[test]
fn string_escapes_follow_emacs() {
    let text = |source: &str| match only(source) {
        SexpKind::Str(s) => s.to_string(),
        other => panic!("{other:?}"),
    };
    assert_eq!(
        text(r#""\n\t\r\f\v\a\e\s\d\\\"""#),
        "\n\t\r\u{c}\u{b}\u{7}\u{1b} \u{7f}\\\""
    );
    assert_eq!(text(r#""\x41\ B""#), "AB");
    assert_eq!(text(r#""\u00e9\U0001F600""#), "é😀");
    assert_eq!(text(r#""\101\0""#), "A\0");
    assert_eq!(text("\"a\\\nb\""), "ab");
    assert_eq!(text(r#""\C-a\^@""#), "\u{1}\0");
    assert_eq!(text(r#""\q""#), "q");
    assert_eq!(text("\"raw\nline\""), "raw\nline");
    assert_eq!(text("#(\"bold\" 0 4 (face bold))"), "bold");
}

#[test]
fn symbols_and_keywords() {
    let mut interner = Interner::new();
    let forms = read(
        r"foo foo\ bar :key : \1 ## #:g \nil #_x a?b 1+ -",
        &Limits::default(),
        &mut interner,
    )
    .unwrap();
    let names: Vec<String> = forms
        .iter()
        .map(|form| match form.kind {
            SexpKind::Sym(s) => interner.name(s).unwrap().to_owned(),
            ref other => format!("{other:?}"),
        })
        .collect();
    assert_eq!(
        names,
        [
            "foo", "foo bar", ":key", ":", "1", "", "g", "Nil", "x", "a?b", "1+", "-"
        ]
    );
    let keyword = forms[2].as_symbol().unwrap();
    assert!(keyword.is_keyword());
    assert!(!forms[3].as_symbol().unwrap().is_keyword());
    // `#:g` is uninterned: not the symbol `g`.
    assert_ne!(forms[6].as_symbol(), interner.lookup("g"));
}

#[test]
fn lists_vectors_and_sugar() {
    assert_eq!(
        printed("(a b (c) [1 \"s\" (d)])"),
        "(a b (c) [1 \"s\" (d)])"
    );
    assert_eq!(printed("'x `(a ,b ,@c) #'f"), "'x\n`(a ,b ,@c)\n#'f");
    assert_eq!(printed("(quote x)"), "'x");
    assert_eq!(
        printed("(a . (b c)) (a . nil) (. x) (a . 'b)"),
        "(a b c)\n(a)\nx\n(a quote b)"
    );
    assert_eq!(printed("(a ; comment\n b) ; trailing"), "(a b)");
    assert_eq!(printed("[]"), "[]");
    assert_eq!(printed("(a\u{a0}b\u{1}c)"), "(a b c)");
}

#[test]
fn sugar_spans_cover_the_whole_form() {
    let mut interner = Interner::new();
    let forms = read(" 'x (a)", &Limits::default(), &mut interner).unwrap();
    assert_eq!(forms[0].span, Span::new(1, 3));
    let items = forms[0].as_list().unwrap();
    assert_eq!(items[0].span, Span::new(1, 2));
    assert_eq!(items[1].span, Span::new(2, 3));
    assert_eq!(forms[1].span, Span::new(4, 7));
}

#[test]
fn big_integers_up_to_the_bit_budget() {
    assert_eq!(only("9223372036854775807"), SexpKind::Int(i64::MAX));
    assert_eq!(only("-9223372036854775808"), SexpKind::Int(i64::MIN));
    match only("9223372036854775808") {
        SexpKind::Big(n) => assert_eq!(n.to_string(), "9223372036854775808"),
        other => panic!("{other:?}"),
    }
    let limits = Limits {
        number_bits: 8,
        ..Limits::default()
    };
    let mut interner = Interner::new();
    assert!(read("255 -255 #xff", &limits, &mut interner).is_ok());
    for source in ["256", "-256", "#x100", "0000000000000000256", "?\\M-a"] {
        let (code, kind, message, _) = rejection_with(source, &limits);
        assert_eq!(
            (code, kind, message.as_str()),
            (
                "E0010",
                ErrorKind::Value,
                "Guest integer exceeds its 8 bit budget"
            ),
            "{source}"
        );
    }
    let huge = "9".repeat(19_000);
    assert_eq!(
        rejection(&huge),
        (
            "E0010",
            ErrorKind::Value,
            "Guest integer exceeds its 4096 bit budget".into()
        )
    );
}

#[test]
fn rejections_carry_the_original_messages() {
    let cases: &[(&str, (&'static str, ErrorKind, String))] = &[
        (
            "#s(hash-table data (a 1))",
            script("E0008", "Unsupported literal of type hash-table in script"),
        ),
        (
            "#s(point 1 2)",
            script("E0008", "Unsupported literal of type point in script"),
        ),
        (
            "#s(7 1 2)",
            script("E0008", "Unsupported literal of type record in script"),
        ),
        (
            "a\u{0}b",
            script("E0006", "Invalid read syntax: NUL byte outside a string"),
        ),
        (
            "#&3\"a\"",
            script("E0008", "Unsupported literal of type bool-vector in script"),
        ),
        (
            "#^[nil nil x]",
            script("E0008", "Unsupported literal of type char-table in script"),
        ),
        (
            "#^^[3 0 x]",
            script(
                "E0008",
                "Unsupported literal of type sub-char-table in script",
            ),
        ),
        (
            "#[(x) \"\\300\" [] 2]",
            script(
                "E0008",
                "Unsupported literal of type compiled-function in script",
            ),
        ),
        (
            "(#1=a)",
            script(
                "E0009",
                "Reader labels (#N= and #N#) are not supported in script",
            ),
        ),
        (
            "(a #1#)",
            script(
                "E0009",
                "Reader labels (#N= and #N#) are not supported in script",
            ),
        ),
        ("(a (b)", script("E0005", "End of file during parsing")),
        ("\"abc", script("E0005", "End of file during parsing")),
        ("'", script("E0005", "End of file during parsing")),
        ("?", script("E0005", "End of file during parsing")),
        ("#", script("E0005", "End of file during parsing")),
        ("a\\", script("E0005", "End of file during parsing")),
        (")", script("E0006", "Invalid read syntax: )")),
        ("(a))", script("E0006", "Invalid read syntax: )")),
        ("(a ]", script("E0006", "Invalid read syntax: ]")),
        (".", script("E0006", "Invalid read syntax: .")),
        (
            "(a . b c)",
            script("E0006", "Invalid read syntax: . in wrong context"),
        ),
        ("(a . )", script("E0006", "Invalid read syntax: )")),
        ("?ab", script("E0006", "Invalid read syntax: ?")),
        ("#q", script("E0006", "Invalid read syntax: #")),
        (
            "#x1g",
            script("E0006", "Invalid read syntax: integer, radix 16"),
        ),
        (
            "#37r1",
            script("E0006", "Invalid read syntax: integer, radix 37"),
        ),
        ("#(a)", script("E0006", "Invalid read syntax: #")),
        ("\"\\M-a\"", script("E0012", "Invalid modifier in string")),
        (
            "\"\\uD800\"",
            script("E0013", "Non-Unicode character: 0xd800"),
        ),
        (
            "\"\\u12\"",
            script("E0011", "Invalid escape character syntax"),
        ),
        ("", script("E0004", "Script is empty")),
        (" ; only a comment\n", script("E0004", "Script is empty")),
    ];
    for (source, expected) in cases {
        assert_eq!(&rejection(source), expected, "{source:?}");
    }
}

#[test]
fn every_problem_is_reported_in_source_order() {
    let mut interner = Interner::new();
    let diagnostics = read(
        "(a . b) ) #s(x) \"\\M-a\" (c",
        &Limits::default(),
        &mut interner,
    )
    .unwrap_err();
    let summary: Vec<(&str, u32)> = diagnostics.iter().map(|d| (d.code, d.span.start)).collect();
    assert_eq!(
        summary,
        [("E0006", 8), ("E0008", 10), ("E0012", 16), ("E0005", 25)]
    );
    assert_eq!(
        diagnostics[3].labels,
        [(Span::new(23, 24), "opened here and never closed".to_owned())]
    );
}

#[test]
fn input_budgets() {
    let limits = Limits {
        input_bytes: 10,
        ..Limits::default()
    };
    assert_eq!(
        rejection_with("(list 1 2 3 4)", &limits),
        (
            "E0001",
            ErrorKind::Input,
            "Script exceeds the 10 byte limit".into(),
            Span::new(10, 10)
        )
    );
    assert!(read("(list 1 2)", &limits, &mut Interner::new()).is_ok());

    // (progn (a b)): wrapper 1 + progn 1 + 2 cells + list 1 + 2 cells + a + b = 9.
    let nodes = |n| Limits {
        nodes: n,
        ..Limits::default()
    };
    assert!(read("(a b)", &nodes(9), &mut Interner::new()).is_ok());
    assert_eq!(
        rejection_with("(a b)", &nodes(8)),
        (
            "E0003",
            ErrorKind::Input,
            "Script exceeds the 8 node limit".into(),
            Span::new(3, 4)
        )
    );
    let many = "(a) ".repeat(3000);
    assert_eq!(
        rejection(&many),
        (
            "E0003",
            ErrorKind::Input,
            "Script exceeds the 10000 node limit".into()
        )
    );
}

fn nested(depth: usize) -> String {
    format!("{}x{}", "(".repeat(depth), ")".repeat(depth))
}

#[test]
fn depth_budget_counts_atoms_and_prefixes() {
    let depth = |n| Limits {
        depth: n,
        ..Limits::default()
    };
    // Top-level forms are at depth 1: `((x))` has x at depth 3.
    assert!(read("((x))", &depth(3), &mut Interner::new()).is_ok());
    assert_eq!(
        rejection_with("((x))", &depth(2)),
        (
            "E0002",
            ErrorKind::Input,
            "Script nesting exceeds the depth limit of 2".into(),
            Span::new(2, 3)
        )
    );
    assert!(read("''x", &depth(3), &mut Interner::new()).is_ok());
    assert_eq!(rejection_with("''x", &depth(2)).0, "E0002");
    // A dotted tail splices: (a . (b)) is (a b), b at depth 2.
    assert!(read("(a . (b))", &depth(2), &mut Interner::new()).is_ok());
    assert!(read(&nested(99), &Limits::default(), &mut Interner::new()).is_ok());
    assert_eq!(
        rejection(&nested(100)),
        (
            "E0002",
            ErrorKind::Input,
            "Script nesting exceeds the depth limit of 100".into()
        )
    );
}

#[test]
fn hostile_nesting_is_a_fast_typed_error() {
    let limits = Limits {
        input_bytes: 10_000_000,
        ..Limits::default()
    };
    for source in [
        "(".repeat(100_000),
        "'".repeat(100_000),
        "[".repeat(100_000),
        "#s(".repeat(50_000),
    ] {
        let started = std::time::Instant::now();
        let (code, kind, _, _) = rejection_with(&source, &limits);
        assert_eq!((code, kind), ("E0002", ErrorKind::Input));
        assert!(started.elapsed().as_secs() < 5);
    }
}

#[test]
fn the_depth_clamp_keeps_the_parser_within_a_small_stack() {
    let limits = Limits {
        depth: u64::MAX,
        input_bytes: u64::MAX,
        nodes: u64::MAX,
        ..Limits::default()
    };
    let max = usize::try_from(MAX_DEPTH).unwrap();
    let source = nested(max - 1);
    let handle = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || {
            let forms = read(&source, &limits, &mut Interner::new()).map(|f| f.len());
            let too_deep = read(&nested(max), &limits, &mut Interner::new());
            (forms, too_deep.map_err(|d| d[0].message.clone()))
        })
        .unwrap();
    let (forms, too_deep) = handle.join().unwrap();
    assert_eq!(forms, Ok(1));
    assert_eq!(
        too_deep,
        Err("Script nesting exceeds the depth limit of 1000".to_owned())
    );
}

#[test]
fn forms_keep_their_spans() {
    let mut interner = Interner::new();
    let forms: Vec<Sexp> = read("(f 1)\n  \"s\"", &Limits::default(), &mut interner).unwrap();
    assert_eq!(forms[0].span, Span::new(0, 5));
    assert_eq!(forms[1].span, Span::new(8, 11));
}

#[test]
fn printer_escapes_what_the_reader_would_misread() {
    let mut interner = Interner::new();
    let names = [
        "?a", "a#b", "1", "1.0e+INF", ".", "", "a b", "x;y", "\\", "é", "-", ":k",
    ];
    let forms: Vec<Sexp> = names
        .iter()
        .map(|name| Sexp::new(SexpKind::Sym(interner.intern(name)), Span::default()))
        .collect();
    let text = forms_to_string(&forms, &interner);
    assert_eq!(
        text,
        "\\?a\na\\#b\n\\1\n\\1.0e+INF\n\\.\n##\na\\ b\nx\\;y\n\\\\\né\n-\n:k"
    );
    let again = read(&text, &Limits::default(), &mut interner).unwrap();
    let kinds: Vec<SexpKind> = again.into_iter().map(|form| form.kind).collect();
    let expected: Vec<SexpKind> = forms.into_iter().map(|form| form.kind).collect();
    assert_eq!(kinds, expected);
}

#[test]
fn problems_inside_an_unclosed_list_are_still_reported() {
    let mut interner = Interner::new();
    let diagnostics = read("(x #s(a) (b . c)\n(y", &Limits::default(), &mut interner).unwrap_err();
    let summary: Vec<(&str, u32)> = diagnostics.iter().map(|d| (d.code, d.span.start)).collect();
    // A dotted list is data now (issue 18); only the refused literal and the EOF remain.
    assert_eq!(summary, [("E0008", 3), ("E0005", 19)]);
    // One "End of file" for all the open lists, pointing at the innermost.
    assert_eq!(
        diagnostics[1].labels,
        [(Span::new(17, 18), "opened here and never closed".to_owned())]
    );
}
