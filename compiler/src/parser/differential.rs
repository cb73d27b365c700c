//! The hand-written parser against the chumsky grammar it replaced (kept as a test-only
//! module, `parser_chumsky`): every token sequence up to a length, and random longer ones,
//! must give the same data and the same diagnostics.

use super::chumsky_oracle as parser_chumsky;
use super::parse;
use crate::ast::SexpKind;
use crate::token::Token;
use chumsky::input::Input as _;
use chumsky::prelude::{Parser as _, SimpleSpan};
use ptc_vm::{Interner, Span};
use std::borrow::Cow;

fn alphabet() -> Vec<Token> {
    let mut interner = Interner::new();
    let quote = interner.intern("quote");
    vec![
        Token::Open,
        Token::Close,
        Token::OpenVector,
        Token::CloseVector,
        Token::Prefix(quote),
        Token::Dot,
        Token::Atom(SexpKind::Int(1)),
        Token::Atom(SexpKind::Str("s".into())),
        Token::Error,
        Token::OpenUnsupported {
            type_name: Cow::Borrowed("record"),
            bracket: false,
        },
        Token::OpenUnsupported {
            type_name: Cow::Borrowed("bool-vector"),
            bracket: true,
        },
        Token::OpenPropertized,
    ]
}

fn check(tokens: &[Token]) {
    let spanned: Vec<(Token, Span)> = tokens
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let start = u32::try_from(i * 3).unwrap();
            (t.clone(), Span::new(start, start + 2))
        })
        .collect();
    let end = u32::try_from(tokens.len() * 3 + 1).unwrap();
    let old: Vec<(Token, SimpleSpan)> = spanned
        .iter()
        .map(|(t, s)| (t.clone(), SimpleSpan::from(s.range())))
        .collect();
    let (old_forms, old_errors) = parser_chumsky::script()
        .parse(
            old.as_slice()
                .split_token_span(SimpleSpan::from(end as usize..end as usize)),
        )
        .into_output_errors();
    let (new_forms, new_errors) = parse(spanned, end);
    let mut old_errors: Vec<_> = old_errors
        .into_iter()
        .map(|e| e.into_diagnostic())
        .collect();
    let mut new_errors: Vec<_> = new_errors
        .into_iter()
        .map(|e| e.into_diagnostic())
        .collect();
    old_errors.sort_by_key(|d| d.span.start);
    new_errors.sort_by_key(|d| d.span.start);
    assert_eq!(old_errors, new_errors, "errors of {tokens:?}");
    assert_eq!(old_forms, new_forms, "forms of {tokens:?}");
}

#[test]
fn every_short_sequence_parses_as_before() {
    let alphabet = alphabet();
    let n = alphabet.len();
    // Up to 4 tokens here (22,621 sequences); up to 5 (271,453) was run once.
    for length in 0..=4u32 {
        for mut code in 0..n.pow(length) {
            let mut tokens = Vec::new();
            for _ in 0..length {
                tokens.push(alphabet[code % n].clone());
                code /= n;
            }
            check(&tokens);
        }
    }
}

#[test]
fn random_longer_sequences_parse_as_before() {
    let alphabet = alphabet();
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    // PTC_DIFF_CASES raises the count for a longer run.
    let cases = std::env::var("PTC_DIFF_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(30_000);
    for _ in 0..cases {
        let length = usize::try_from(next() % 60).unwrap();
        // Bias towards well-formed shapes: brackets and atoms more often than the rest.
        let tokens: Vec<Token> = (0..length)
            .map(|_| {
                let pick = usize::try_from(next() % 20).unwrap();
                alphabet[match pick {
                    12..=14 => 0,
                    15..=16 => 1,
                    17..=19 => 6,
                    other => other,
                }]
                .clone()
            })
            .collect();
        check(&tokens);
    }
}
