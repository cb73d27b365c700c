//! The parser: [`Token`]s to [`Sexp`] data, by recursive descent over the lexer's tokens.
//!
//! The grammar is the Emacs reader's: atoms, proper lists with an optional dotted tail,
//! vectors, reader-sugar prefixes (`'x` is `(quote x)`), propertized strings `#("s" ...)`
//! (read as the plain string) and the refused literals (`#s(...)`, `#[...]`, `#^[...]`),
//! which are parsed through so that later problems are still found. Every construct is
//! told apart by its first token, so the parser never backtracks.
//!
//! Dotted tails follow Emacs: `(a . (b c))` is `(a b c)`, `(a . nil)` is `(a)`, `(. x)` is
//! `x`; any other tail makes a dotted list ([`SexpKind::Dotted`]), which is data: the
//! lowering refuses it in an evaluated position.
//!
//! Spans: an atom's is its token's; a list, vector or prefixed datum spans from its first
//! token to the end of the last token it consumed (a list left open at the end of the
//! input therefore ends at its last element); anything found at the end of the input has
//! the empty span at the input's end.
//!
//! Invariants:
//! - The parser recurses once per nesting level; the reader runs it only after the depth
//!   pre-scan has bounded the nesting (see [`crate::reader`]), so it cannot exhaust the stack.
//! - Every rejection is one [`ParseError`] with the original's message. Semantic rejections
//!   (refused literals, a propertized string without its string) are recorded without
//!   stopping the parse, stray closing brackets and dots at top level are reported and
//!   skipped, and lists left open at the end of the input are closed with one "End of file"
//!   error, so the problems inside them are reported too. Any other unexpected token (a
//!   mismatched closing bracket inside a list, a second datum after a dotted tail) stops the
//!   parse: the result is that one error plus the errors recorded for the top-level data
//!   read before the failing one (those recorded inside it are dropped, as in the chumsky
//!   grammar this parser replaced, whose messages and spans the diagnostics tests pin).

use crate::ast::{Sexp, SexpKind};
use crate::codes;
use crate::diagnostic::Diagnostic;
use crate::scratch::{self, slots};
use crate::token::Token;
use crate::{lexer, list_pool};
use ptc_vm::{ErrorKind, Span};

slots! {
    static ELEMENTS: Sexp;
}

/// A parse failure: exactly the diagnostic the reader reports.
#[derive(Debug, Clone, PartialEq)]
pub struct ParseError(Lazy);

/// A parse error as cheap as possible to build: the message is only formatted when the
/// error is reported.
#[derive(Debug, Clone, PartialEq)]
enum Lazy {
    InvalidSyntax(&'static str, Span),
    EndOfFile(Span),
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
                span,
            ),
            Lazy::EndOfFile(span) => Diagnostic::new(
                codes::END_OF_FILE,
                ErrorKind::Script,
                "End of file during parsing",
                span,
            ),
            Lazy::Reported(diagnostic) => *diagnostic,
        }
    }
}

fn invalid_syntax(what: &'static str, span: Span) -> ParseError {
    ParseError(Lazy::InvalidSyntax(what, span))
}

fn unsupported(type_name: &str, span: Span) -> ParseError {
    ParseError::new(Diagnostic::new(
        codes::UNSUPPORTED_LITERAL,
        ErrorKind::Script,
        format!("Unsupported literal of type {type_name} in script"),
        span,
    ))
}

/// What the parse produced: the top-level data (`None` when the parse stopped) and every
/// error, in the order found.
pub type Parsed = (Option<Vec<Sexp>>, Vec<ParseError>);

/// Parses a whole script's `tokens` into its top-level data; `end` is the input's length.
#[must_use]
pub fn parse(tokens: Vec<(Token, Span)>, end: u32) -> Parsed {
    parse_counted(tokens, end).0
}

/// What [`parse_counted`] counted of the data read, as they were built: meaningful only when
/// the parse found no error.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// One per datum plus one per cons cell of every list (the reader's node limit,
    /// [`crate::reader`], without a walk over the tree).
    pub nodes: u64,
    /// The lists among the data (proper and dotted): the nodes less the lists are the
    /// data's [`crate::transform::count_nodes`].
    pub lists: u64,
}

/// [`parse`], with the [`Counts`] of the data read.
#[must_use]
pub fn parse_counted(tokens: Vec<(Token, Span)>, end: u32) -> (Parsed, Counts) {
    let mut parser = Parser {
        tokens: tokens.into_iter(),
        last_end: None,
        eoi: Span::new(end, end),
        errors: Vec::new(),
        scratch: scratch::take(&ELEMENTS, 32),
        counts: Counts::default(),
    };
    let forms = parser.script();
    scratch::give(&ELEMENTS, parser.scratch);
    // The spent stream's buffer goes back to the lexer: collecting a `vec::IntoIter`
    // through `filter` reuses its allocation (dropping the tokens a stopped parse left).
    lexer::give_tokens(parser.tokens.filter(|_| false).collect());
    ((forms, parser.errors), parser.counts)
}

struct Parser {
    /// The tokens not consumed yet, the next first.
    tokens: std::vec::IntoIter<(Token, Span)>,
    /// Where the last token consumed ends (`None`: none was).
    last_end: Option<u32>,
    /// The empty span at the end of the input.
    eoi: Span,
    /// Errors recorded without stopping the parse.
    errors: Vec<ParseError>,
    /// The elements of the lists being read, innermost last: each list's elements are
    /// gathered here and moved into a buffer of [`list_pool`] when the list ends, so a list
    /// costs at most one allocation (none when the pool has a buffer) and no reallocation.
    scratch: Vec<Sexp>,
    /// The counts of the data built so far ([`parse_counted`]).
    counts: Counts,
}

/// Whether `token` can start a datum.
fn starts_datum(token: &Token) -> bool {
    !matches!(token, Token::Close | Token::CloseVector | Token::Dot)
}

/// The error for an unexpected `token` (one that cannot be where it is).
fn unexpected(token: &Token, span: Span) -> ParseError {
    invalid_syntax(
        match token {
            Token::Close => ")",
            Token::CloseVector => "]",
            Token::Dot => ".",
            // Only a second datum after a dotted tail is unexpected.
            _ => ". in wrong context",
        },
        span,
    )
}

impl Parser {
    fn count(&mut self, nodes: u64) {
        self.counts.nodes = self.counts.nodes.saturating_add(nodes);
    }

    fn peek(&self) -> Option<&Token> {
        self.tokens.as_slice().first().map(|(token, _)| token)
    }

    /// Takes the next token out of the stream.
    fn next(&mut self) -> Option<(Token, Span)> {
        let (token, span) = self.tokens.next()?;
        self.last_end = Some(span.end);
        Some((token, span))
    }

    /// The span from `first`'s start to the end of the last token consumed.
    fn since(&self, first: Span) -> Span {
        Span::new(first.start, self.last_end.unwrap_or(self.eoi.end))
    }

    fn script(&mut self) -> Option<Vec<Sexp>> {
        let mut forms = list_pool::take(0);
        while let Some(token) = self.peek() {
            if starts_datum(token) {
                let recorded = self.errors.len();
                match self.datum() {
                    Ok(form) => forms.push(form),
                    Err(error) => {
                        self.errors.truncate(recorded);
                        self.errors.push(error);
                        return None;
                    }
                }
            } else if let Some((token, span)) = self.next() {
                // A stray `)`, `]` or `.` at top level: reported and skipped.
                self.errors.push(unexpected(&token, span));
            }
        }
        Some(forms)
    }

    fn datum(&mut self) -> Result<Sexp, ParseError> {
        let Some((token, span)) = self.next() else {
            return Err(invalid_end(self.eoi));
        };
        match token {
            Token::Atom(kind) => {
                self.count(1);
                Ok(Sexp::new(kind, span))
            }
            Token::Error => Ok(Sexp::new(SexpKind::Nil, span)),
            Token::Open => {
                let items = self.items()?;
                let tail = if matches!(self.peek(), Some(Token::Dot)) {
                    self.next();
                    Some(self.datum()?)
                } else {
                    None
                };
                self.closing(&Token::Close)?;
                // The elements and the tail are counted already; the list adds itself and
                // its cons cells, and a spliced tail (nil, a list) stops being a datum of
                // its own: its cells become the list's (`dotted_list`).
                // A spliced list tail hands its list over, so the lists stay as counted.
                let cells = items.len() as u64;
                let (nodes, lists) = match &tail {
                    None if items.is_empty() => (1, 0),
                    Some(_) if items.is_empty() => (0, 0),
                    None => (1 + cells, 1),
                    Some(tail) => match tail.kind {
                        SexpKind::List(_) | SexpKind::Dotted(..) => (cells, 0),
                        SexpKind::Nil => (cells, 1),
                        _ => (1 + cells, 1),
                    },
                };
                self.count(nodes);
                self.counts.lists = self.counts.lists.saturating_add(lists);
                let whole = self.since(span);
                Ok(match tail {
                    // The usual proper list, built here without a call.
                    None if !items.is_empty() => Sexp::new(SexpKind::List(items), whole),
                    tail => dotted_list(items, tail, whole),
                })
            }
            Token::OpenVector => {
                let items = self.items()?;
                self.closing(&Token::CloseVector)?;
                self.count(1);
                Ok(Sexp::new(SexpKind::Vector(items), self.since(span)))
            }
            Token::Prefix(symbol) => {
                let head = Sexp::new(SexpKind::Sym(symbol), span);
                let body = if self.peek().is_none() {
                    self.errors.push(invalid_end(self.eoi));
                    Sexp::new(SexpKind::Nil, self.eoi)
                } else {
                    self.datum()?
                };
                // The head, the list and its two cons cells.
                self.count(4);
                self.counts.lists = self.counts.lists.saturating_add(1);
                let mut items = list_pool::take(2);
                items.push(head);
                items.push(body);
                Ok(Sexp::new(SexpKind::List(items), self.since(span)))
            }
            Token::OpenUnsupported { type_name, bracket } => {
                self.items()?;
                self.closing(if bracket {
                    &Token::CloseVector
                } else {
                    &Token::Close
                })?;
                let whole = self.since(span);
                self.errors.push(unsupported(&type_name, whole));
                Ok(Sexp::new(SexpKind::Nil, whole))
            }
            Token::OpenPropertized => {
                let before = self.counts;
                let items = self.items()?;
                self.closing(&Token::Close)?;
                // Read as its string alone: one datum.
                self.counts = before;
                self.count(1);
                let whole = self.since(span);
                match items.into_iter().next() {
                    Some(Sexp {
                        kind: SexpKind::Str(text),
                        ..
                    }) => Ok(Sexp::new(SexpKind::Str(text), whole)),
                    _ => {
                        self.errors.push(invalid_syntax("#", whole));
                        Ok(Sexp::new(SexpKind::Nil, whole))
                    }
                }
            }
            Token::Close | Token::CloseVector | Token::Dot => Err(unexpected(&token, span)),
        }
    }

    /// The data up to the next token that cannot start one.
    fn items(&mut self) -> Result<Vec<Sexp>, ParseError> {
        let mark = self.scratch.len();
        loop {
            // An atom, the common element, is taken here without a call of `datum`.
            match self.peek() {
                Some(Token::Atom(_)) => {
                    if let Some((Token::Atom(kind), span)) = self.next() {
                        self.count(1);
                        self.scratch.push(Sexp::new(kind, span));
                    }
                    continue;
                }
                Some(token) if starts_datum(token) => {}
                _ => break,
            }
            match self.datum() {
                Ok(item) => self.scratch.push(item),
                Err(error) => {
                    self.scratch.truncate(mark);
                    return Err(error);
                }
            }
        }
        if self.scratch.len() == mark {
            return Ok(Vec::new());
        }
        Ok(list_pool::collect(self.scratch.drain(mark..)))
    }

    /// The closing `token` of a list or vector. At the end of the input the list is closed
    /// anyway, with an "End of file" error, so the problems found inside it are still
    /// reported.
    fn closing(&mut self, token: &Token) -> Result<(), ParseError> {
        match self.tokens.as_slice().first() {
            None => {
                self.errors.push(invalid_end(self.eoi));
                Ok(())
            }
            Some((found, _)) if found == token => {
                self.next();
                Ok(())
            }
            Some((found, span)) => Err(unexpected(found, *span)),
        }
    }
}

fn invalid_end(span: Span) -> ParseError {
    ParseError(Lazy::EndOfFile(span))
}

/// A list's elements and dotted tail as one datum (Emacs's splicing rules).
fn dotted_list(mut items: Vec<Sexp>, tail: Option<Sexp>, span: Span) -> Sexp {
    let Some(tail) = tail else {
        return if items.is_empty() {
            Sexp::new(SexpKind::Nil, span)
        } else {
            Sexp::new(SexpKind::List(items), span)
        };
    };
    if items.is_empty() {
        return tail;
    }
    match tail.kind {
        SexpKind::Nil => {}
        SexpKind::List(more) => items.extend(more),
        SexpKind::Dotted(more, last) => {
            items.extend(more);
            return Sexp::new(SexpKind::Dotted(items, last), span);
        }
        _ => return Sexp::new(SexpKind::Dotted(items, Box::new(tail)), span),
    }
    Sexp::new(SexpKind::List(items), span)
}

#[cfg(test)]
#[path = "parser/chumsky_oracle.rs"]
mod chumsky_oracle;
#[cfg(test)]
#[path = "parser/differential.rs"]
mod differential;
