//! Property tests: printed data reads back equal, and the reader never panics.
//!
//! Case counts follow proptest's defaults (256, or `PROPTEST_CASES`).

use num_bigint::BigInt;
use proptest::prelude::*;
use ptc_compiler::internals::ast::{Sexp, SexpKind};
use ptc_compiler::internals::reader::read;
use ptc_compiler::internals::sexp_print::forms_to_string;
use ptc_vm::{Interner, Limits, Span};
use std::sync::Arc;

/// A datum to generate, before its symbols are interned.
#[derive(Debug, Clone)]
enum Datum {
    Nil,
    T,
    Int(i64),
    Big(i128),
    Float(f64),
    Str(String),
    Sym(String),
    List(Vec<Datum>),
    Vector(Vec<Datum>),
}

fn symbol_name() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z][a-z0-9-]{0,8}",
        ":[a-z]{1,6}",
        Just(String::new()),
        prop::sample::select(vec![
            ".", ":", "1", "-1", "1.", ".5", "1e3", "1.0e+INF", "?a", "#x", "a#b", "a b", "nil ",
            "quote", "function", "`", ",", ",@", "\\", "é", "a\u{a0}b", "\u{1}", "+", "-",
        ])
        .prop_map(str::to_owned),
        any::<String>(),
    ]
    .prop_filter("nil and t are constants", |name| {
        name != "nil" && name != "t"
    })
}

fn datum() -> impl Strategy<Value = Datum> {
    let leaf = prop_oneof![
        Just(Datum::Nil),
        Just(Datum::T),
        any::<i64>().prop_map(Datum::Int),
        any::<i128>()
            .prop_filter("outside i64", |n| i64::try_from(*n).is_err())
            .prop_map(Datum::Big),
        any::<f64>()
            .prop_filter("NaN is never equal", |f| !f.is_nan())
            .prop_map(Datum::Float),
        any::<String>().prop_map(Datum::Str),
        symbol_name().prop_map(Datum::Sym),
    ];
    leaf.prop_recursive(6, 64, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 1..6).prop_map(Datum::List),
            prop::collection::vec(inner, 0..6).prop_map(Datum::Vector),
        ]
    })
}

fn to_sexp(datum: &Datum, interner: &mut Interner) -> Sexp {
    let kind = match datum {
        Datum::Nil => SexpKind::Nil,
        Datum::T => SexpKind::T,
        Datum::Int(n) => SexpKind::Int(*n),
        Datum::Big(n) => SexpKind::Big(Arc::new(BigInt::from(*n))),
        Datum::Float(f) => SexpKind::Float(*f),
        Datum::Str(s) => SexpKind::Str(Arc::from(s.as_str())),
        Datum::Sym(name) => SexpKind::Sym(interner.intern(name)),
        Datum::List(items) => {
            SexpKind::List(items.iter().map(|item| to_sexp(item, interner)).collect())
        }
        Datum::Vector(items) => {
            SexpKind::Vector(items.iter().map(|item| to_sexp(item, interner)).collect())
        }
    };
    Sexp::new(kind, Span::default())
}

/// Equality ignoring spans (float equality is exact, and `-0.0` is `0.0`'s twin).
fn same(left: &Sexp, right: &Sexp) -> bool {
    match (&left.kind, &right.kind) {
        (SexpKind::List(a), SexpKind::List(b)) | (SexpKind::Vector(a), SexpKind::Vector(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same(x, y))
        }
        (SexpKind::Float(a), SexpKind::Float(b)) => a.to_bits() == b.to_bits(),
        (a, b) => a == b,
    }
}

fn big_limits() -> Limits {
    Limits {
        input_bytes: u64::MAX,
        nodes: u64::MAX,
        ..Limits::default()
    }
}

fn check_never_panics(source: &str, limits: &Limits) {
    let mut interner = Interner::new();
    if let Err(diagnostics) = read(source, limits, &mut interner) {
        assert!(!diagnostics.is_empty());
        for diagnostic in &diagnostics {
            let range = diagnostic.span.range();
            assert!(
                range.start <= range.end && range.end <= source.len(),
                "{diagnostic:?}"
            );
            assert!(source.is_char_boundary(range.start) && source.is_char_boundary(range.end));
        }
        let rendered = ptc_compiler::render::render(source, "s", &diagnostics);
        assert!(rendered.contains(diagnostics[0].code));
    }
}

proptest! {
    #[test]
    fn printed_data_reads_back_equal(forms in prop::collection::vec(datum(), 1..4)) {
        let mut interner = Interner::new();
        let sexps: Vec<Sexp> = forms.iter().map(|form| to_sexp(form, &mut interner)).collect();
        let text = forms_to_string(&sexps, &interner);
        let read_back = read(&text, &big_limits(), &mut interner);
        let read_back = match read_back {
            Ok(read_back) => read_back,
            Err(diagnostics) => return Err(TestCaseError::fail(format!("{text:?}: {diagnostics:?}"))),
        };
        prop_assert_eq!(read_back.len(), sexps.len(), "{:?}", text);
        for (original, again) in sexps.iter().zip(&read_back) {
            prop_assert!(same(original, again), "{:?} read back as {:?}", original, again);
        }
    }

    #[test]
    fn read_never_panics_on_arbitrary_text(source in any::<String>()) {
        check_never_panics(&source, &Limits::default());
    }

    #[test]
    fn read_never_panics_on_arbitrary_bytes(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        check_never_panics(&String::from_utf8_lossy(&bytes), &Limits::default());
    }

    #[test]
    fn read_never_panics_on_lisp_shaped_soup(
        pieces in prop::collection::vec(prop::sample::select(vec![
            "(", ")", "[", "]", "'", "`", ",", ",@", "#'", "#s(", "#s(hash-table", "#(", "\"",
            "\\", "?", "?\\C-", "?\\M-\\", "#x", "#24r", "#99r", ".", " ", "\n", "a", "1", "1.5",
            "-", "#1=", "#1#", ";", "#&", "#&2\"", "#^[", "#^^[", "#[", "nil", "t", ":k", "##",
            "#:", "\\u", "\\x", "\\N{U+", "é", "\u{a0}", "1e+INF", "99999999999999999999",
        ]), 0..80),
        depth in 0u64..6,
        nodes in 0u64..40,
        number_bits in 0u64..80,
    ) {
        let source: String = pieces.concat();
        check_never_panics(&source, &Limits::default());
        let tight = Limits { depth, nodes, number_bits, ..Limits::default() };
        check_never_panics(&source, &tight);
    }
}
