//! The former chumsky parser, kept only to check the hand-written one against (tests).
//!
//! The grammar is the Emacs reader's: atoms, proper lists with an optional dotted tail,
//! vectors, reader-sugar prefixes (`'x` is `(quote x)`), propertized strings `#("s" ...)`
//! (read as the plain string) and the refused literals (`#s(...)`, `#[...]`, `#^[...]`),
//! which are parsed through so that later problems are still found.
//!
//! Dotted tails follow Emacs: `(a . (b c))` is `(a b c)`, `(a . nil)` is `(a)`, `(. x)` is
//! `x`; any other tail makes a dotted list ([`SexpKind::Dotted`]), which is data: the
//! lowering refuses it in an evaluated position.
//!
//! Invariants:
//! - The parser recurses once per nesting level; the reader runs it only after the depth
//!   pre-scan has bounded the nesting (see [`crate::reader`]), so it cannot exhaust the stack.
//! - Every rejection is one [`Diagnostic`] with the original's message; semantic rejections
//!   (improper lists, refused literals) are emitted without stopping the parse, stray
//!   closing brackets at top level are reported and skipped, and lists left open at the end
//!   of the input are closed with one "End of file" error, so the problems inside them are
//!   reported too. A mismatched closing bracket inside a list stops the parse (as in Emacs).

use crate::ast::{Sexp, SexpKind};
use crate::codes;
use crate::diagnostic::Diagnostic;
use crate::token::Token;
use chumsky::error::LabelError;
use chumsky::input::ValueInput;
use chumsky::prelude::*;
use chumsky::util::MaybeRef;
use ptc_vm::{ErrorKind, Span};

/// A parse failure: exactly the diagnostic the reader reports.
#[derive(Debug, Clone, PartialEq)]
pub struct ParseError(Lazy);

/// A parse error as cheap as possible to build: chumsky makes one for every alternative it
/// backtracks out of, so the message is only formatted when the error is reported.
#[derive(Debug, Clone, PartialEq)]
enum Lazy {
    InvalidSyntax(&'static str, SimpleSpan),
    EndOfFile(SimpleSpan),
    Reported(Box<Diagnostic>),
}

impl ParseError {
    /// A parse error carrying a ready diagnostic.
    #[must_use]
    pub fn new(diagnostic: Diagnostic) -> Self {
        ParseError(Lazy::Reported(Box::new(diagnostic)))
    }

    /// The diagnostic this error reports.
    #[must_use]
    pub fn into_diagnostic(self) -> Diagnostic {
        match self.0 {
            Lazy::InvalidSyntax(what, span) => Diagnostic::new(
                codes::INVALID_SYNTAX,
                ErrorKind::Script,
                format!("Invalid read syntax: {what}"),
                script_span(span),
            ),
            Lazy::EndOfFile(span) => Diagnostic::new(
                codes::END_OF_FILE,
                ErrorKind::Script,
                "End of file during parsing",
                script_span(span),
            ),
            Lazy::Reported(diagnostic) => *diagnostic,
        }
    }
}

/// A chumsky span as a script span.
#[must_use]
pub fn script_span(span: SimpleSpan) -> Span {
    let clamp = |offset: usize| u32::try_from(offset).unwrap_or(u32::MAX);
    Span::new(clamp(span.start), clamp(span.end))
}

fn invalid_syntax(what: &'static str, span: SimpleSpan) -> ParseError {
    ParseError(Lazy::InvalidSyntax(what, span))
}

fn end_of_file(span: SimpleSpan) -> ParseError {
    ParseError(Lazy::EndOfFile(span))
}

/// The closing `token` of a list or vector. At the end of the input the list is closed
/// anyway, with an "End of file" error, so the problems found inside it are still reported.
fn closing<'a, I>(token: Token) -> impl Parser<'a, I, (), Extra> + Clone
where
    I: ValueInput<'a, Token = Token, Span = SimpleSpan>,
{
    just(token).ignored().or(end().validate(|(), e, emitter| {
        emitter.emit(end_of_file(e.span()));
    }))
}

impl<'a, I> chumsky::error::Error<'a, I> for ParseError where
    I: chumsky::input::Input<'a, Token = Token, Span = SimpleSpan>
{
}

impl<'a, I, L> LabelError<'a, I, L> for ParseError
where
    I: chumsky::input::Input<'a, Token = Token, Span = SimpleSpan>,
{
    fn expected_found<E: IntoIterator<Item = L>>(
        _expected: E,
        found: Option<MaybeRef<'a, Token>>,
        span: SimpleSpan,
    ) -> Self {
        match found.as_deref() {
            None => end_of_file(span),
            Some(Token::Close) => invalid_syntax(")", span),
            Some(Token::CloseVector) => invalid_syntax("]", span),
            Some(Token::Dot) => invalid_syntax(".", span),
            // Only a second datum after a dotted tail is unexpected.
            Some(_) => invalid_syntax(". in wrong context", span),
        }
    }
}

type Extra = extra::Err<ParseError>;

/// A list's elements and dotted tail as one datum (Emacs's splicing rules).
fn dotted_list(
    mut items: Vec<Sexp>,
    tail: Option<Sexp>,
    span: SimpleSpan,
    emitter: &mut chumsky::input::Emitter<ParseError>,
) -> Sexp {
    let span_of_list = script_span(span);
    let Some(tail) = tail else {
        return if items.is_empty() {
            Sexp::new(SexpKind::Nil, span_of_list)
        } else {
            Sexp::new(SexpKind::List(items), span_of_list)
        };
    };
    if items.is_empty() {
        return tail;
    }
    let _ = emitter;
    match tail.kind {
        SexpKind::Nil => {}
        SexpKind::List(more) => items.extend(more),
        SexpKind::Dotted(more, last) => {
            items.extend(more);
            return Sexp::new(SexpKind::Dotted(items, last), span_of_list);
        }
        _ => return Sexp::new(SexpKind::Dotted(items, Box::new(tail)), span_of_list),
    }
    Sexp::new(SexpKind::List(items), span_of_list)
}

fn unsupported(type_name: &str, span: SimpleSpan) -> ParseError {
    ParseError::new(Diagnostic::new(
        codes::UNSUPPORTED_LITERAL,
        ErrorKind::Script,
        format!("Unsupported literal of type {type_name} in script"),
        script_span(span),
    ))
}

/// The parser of a whole script: its top-level data, in order.
pub fn script<'a, I>() -> impl Parser<'a, I, Vec<Sexp>, Extra>
where
    I: ValueInput<'a, Token = Token, Span = SimpleSpan>,
{
    let datum = recursive(|datum| {
        let atom = select! {
            Token::Atom(kind) => kind,
            Token::Error => SexpKind::Nil,
        }
        .map_with(|kind, e| Sexp::new(kind, script_span(e.span())));

        let items = datum.clone().repeated().collect::<Vec<Sexp>>();

        let list = items
            .clone()
            .then(just(Token::Dot).ignore_then(datum.clone()).or_not())
            .delimited_by(just(Token::Open), closing(Token::Close))
            .validate(|(items, tail), e, emitter| dotted_list(items, tail, e.span(), emitter));

        let vector = items
            .clone()
            .delimited_by(just(Token::OpenVector), closing(Token::CloseVector))
            .map_with(|items, e| Sexp::new(SexpKind::Vector(items), script_span(e.span())));

        let prefixed = select! { Token::Prefix(symbol) => symbol }
            .map_with(|symbol, e| Sexp::new(SexpKind::Sym(symbol), script_span(e.span())))
            .then(datum.clone().or(end().validate(|(), e, emitter| {
                emitter.emit(end_of_file(e.span()));
                Sexp::new(SexpKind::Nil, script_span(e.span()))
            })))
            .map_with(|(head, body), e| {
                Sexp::new(SexpKind::List(vec![head, body]), script_span(e.span()))
            });

        let unsupported_list = select! {
            Token::OpenUnsupported { type_name, bracket: false } => type_name,
        }
        .then_ignore(items.clone())
        .then_ignore(closing(Token::Close));
        let unsupported_vector = select! {
            Token::OpenUnsupported { type_name, bracket: true } => type_name,
        }
        .then_ignore(items.clone())
        .then_ignore(closing(Token::CloseVector));
        let refused = unsupported_list
            .or(unsupported_vector)
            .validate(|type_name, e, emitter| {
                emitter.emit(unsupported(&type_name, e.span()));
                Sexp::new(SexpKind::Nil, script_span(e.span()))
            });

        let propertized = items
            .delimited_by(just(Token::OpenPropertized), closing(Token::Close))
            .validate(|items, e, emitter| {
                let span = script_span(e.span());
                match items.into_iter().next() {
                    Some(Sexp {
                        kind: SexpKind::Str(text),
                        ..
                    }) => Sexp::new(SexpKind::Str(text), span),
                    _ => {
                        emitter.emit(invalid_syntax("#", e.span()));
                        Sexp::new(SexpKind::Nil, span)
                    }
                }
            });

        choice((atom, list, vector, prefixed, refused, propertized))
    });

    let stray = select! {
        Token::Close => ")",
        Token::CloseVector => "]",
        Token::Dot => ".",
    }
    .validate(|what, e, emitter| {
        emitter.emit(invalid_syntax(what, e.span()));
        None
    });

    datum
        .map(Some)
        .or(stray)
        .repeated()
        .collect::<Vec<Option<Sexp>>>()
        .map(|forms| forms.into_iter().flatten().collect())
        .then_ignore(end())
}
