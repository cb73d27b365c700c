//! Unit tests of the lexer: token shapes, spans and diagnostics.

use super::{Raw, cook_raw, ends_symbol, lex, plain_atom_end, push, span_of};
use crate::diagnostic::Diagnostic;
use crate::token::Token;
use logos::Logos;
use proptest::prelude::*;
use ptc_vm::{Interner, Limits, Span};

/// Every token through the logos lexer: what [`lex`] did before its byte fast path.
fn lex_by_logos(
    source: &str,
    limits: &Limits,
    interner: &mut Interner,
) -> (Vec<(Token, Span)>, Vec<Diagnostic>) {
    let mut raw = Raw::lexer(source);
    let mut tokens = Vec::new();
    let mut diagnostics = Vec::new();
    while let Some(token) = raw.next() {
        let span = span_of(&raw.span());
        if let Some(cooked) = cook_raw(&token, span, &raw, limits, interner, &mut diagnostics) {
            push(&mut tokens, &mut diagnostics, cooked, span);
        }
    }
    (tokens, diagnostics)
}

fn agree(source: &str) {
    let limits = Limits::default();
    let (mut fast, mut slow) = (Interner::new(), Interner::new());
    let by_bytes = lex(source, &limits, &mut fast);
    let by_logos = lex_by_logos(source, &limits, &mut slow);
    assert_eq!(by_bytes, by_logos, "{source:?}");
}

#[test]
fn the_fast_path_lexes_as_logos_does_on_samples() {
    for source in [
        "",
        "(a b)",
        " \t(f 'x `(,y ,@z)) ; c\n[1 2.5 -3 .5 1e3 +1 .]",
        "\"plain\" \"esc\\n\" \"open",
        "foo\\ bar é x\u{a0}y ?a ?\\n #x1F #s(hash-table) #s(rec) #'f #1= #:g",
        "a\0b ; tail without newline",
        "\u{a0}(\u{a0}) ,\\",
        "99999999999999999999999 1.0e+INF nil t",
    ] {
        agree(source);
    }
}

proptest! {
    #[test]
    fn the_fast_path_lexes_as_logos_does(
        pieces in prop::collection::vec(prop::sample::select(&[
            "(", ")", "[", "]", "'", "`", ",", ",@", "@", " ", "\n", "\t", ";", "\"",
            "\\", "?", "#", "#s(", "#x", "a", "foo", "1", "-2", ".", "1.5", "e3", "é",
            "\u{a0}", "\0", "nil", "t", ":k", "\u{1}", "\u{7f}", "日",
        ][..]), 0..40)
    ) {
        agree(&pieces.concat());
    }
}

#[test]
fn the_byte_scan_finds_what_the_character_scan_finds() {
    let by_chars = |text: &str| {
        text.char_indices()
            .find(|&(_, c)| ends_symbol(c) || c == '\\')
            .map_or(text.len(), |(at, _)| at)
    };
    for text in [
        "",
        "abc",
        "seq-take)",
        "a b",
        "é(",
        "x\u{a0}y",
        "\u{a0}",
        "日本語 x",
        "🦀;",
        "a\\b",
        "a\0b",
        "ab\"c",
        "a'b",
        "a`b",
        "a,b",
        "a#b",
        "a[b",
        "a]b",
        "a?b",
        "ÿ\u{a1}z",
        "\u{c2}\u{a0}",
    ] {
        assert_eq!(plain_atom_end(text), by_chars(text), "{text:?}");
    }
}
