//! The spanned syntax tree the reader produces and every static pass consumes.
//!
//! A script is read into [`Sexp`] data: the dialect is a Lisp, so code and data share one
//! shape, and quoted data, macro arguments and macro expansions move between [`Sexp`] and
//! [`ptc_vm::Value`] with [`Sexp::to_value`] (data out) and the compile-time macro runner (values back in).
//!
//! Invariants (established by the reader, re-established for every macro expansion):
//! - lists are non-empty (the empty list reads as [`SexpKind::Nil`]); a list whose dotted
//!   tail is an atom is [`SexpKind::Dotted`], every other list is proper;
//! - `nil` and `t` are never symbols, always [`SexpKind::Nil`] / [`SexpKind::T`];
//! - integers that fit in 64 bits are [`SexpKind::Int`], others [`SexpKind::Big`] within the
//!   number-bit budget;
//! - nesting depth and node count are within the input budget, so passes over a `Sexp` may
//!   recurse (depth ≤ [`ptc_vm::Limits::depth`]).
//! - Reader sugar is already desugared: `'x` is `(quote x)`, `` `x `` is `(\` x)`, `,x` is
//!   `(, x)`, `,@x` is `(,@ x)`, with the operator symbols of [`ptc_vm::symbol::well_known`].

use num_bigint::BigInt;
use ptc_vm::symbol::Symbol;
use ptc_vm::{Span, Value};
use std::sync::Arc;

/// One datum of the script with the span of its source text.
#[derive(Debug, Clone, PartialEq)]
pub struct Sexp {
    /// What the datum is.
    pub kind: SexpKind,
    /// Where it was read from (for macro expansions: the macro call's span).
    pub span: Span,
}

/// The kinds of datum.
#[derive(Debug, PartialEq)]
pub enum SexpKind {
    /// `nil` or `()`.
    Nil,
    /// `t`.
    T,
    /// An integer literal that fits in 64 bits: `42`, `-7`, `?a`, `#x1F`, `#b101`, `#o17`.
    Int(i64),
    /// An integer literal outside the 64-bit range, within the number-bit budget.
    Big(Arc<BigInt>),
    /// A float literal: `1.5`, `1e3`, `.5`, `1.0e+INF`.
    Float(f64),
    /// A string literal, escapes resolved: `"a\nb"`.
    Str(Arc<str>),
    /// A symbol or keyword: `foo`, `:key`, `seq-take`, `+`.
    Sym(Symbol),
    /// A proper, non-empty list: `(f a b)`.
    List(Vec<Sexp>),
    /// A vector literal: `[1 2 (a b)]` — data, elements never evaluated.
    Vector(Vec<Sexp>),
    /// A list with a dotted tail that is not a list: `(a . 1)`, `(a b . c)`. The elements
    /// are non-empty and the tail is an atom or a vector (never nil or a list, which the
    /// reader splices). Data only: quoted, backquoted or macro-built; a dotted form in an
    /// evaluated position is a compile error ("Improper list in script").
    Dotted(Vec<Sexp>, Box<Sexp>),
}

impl Sexp {
    /// A datum of `kind` at `span`.
    #[must_use]
    pub fn new(kind: SexpKind, span: Span) -> Self {
        Sexp { kind, span }
    }

    /// The symbol, if this datum is one.
    #[must_use]
    pub fn as_symbol(&self) -> Option<Symbol> {
        match self.kind {
            SexpKind::Sym(s) => Some(s),
            _ => None,
        }
    }

    /// The elements, if this datum is a list.
    #[must_use]
    pub fn as_list(&self) -> Option<&[Sexp]> {
        match &self.kind {
            SexpKind::List(items) => Some(items),
            _ => None,
        }
    }

    /// The operator symbol, if this datum is a list whose first element is a symbol.
    #[must_use]
    pub fn head_symbol(&self) -> Option<Symbol> {
        self.as_list()
            .and_then(|items| items.first())
            .and_then(Sexp::as_symbol)
    }

    /// The datum as a guest value (for `quote` and macro arguments).
    #[must_use]
    pub fn to_value(&self) -> Value {
        match &self.kind {
            SexpKind::Nil => Value::Nil,
            SexpKind::T => Value::T,
            SexpKind::Int(n) => Value::Int(*n),
            SexpKind::Big(n) => Value::Big(n.clone()),
            SexpKind::Float(f) => Value::Float(*f),
            SexpKind::Str(s) => Value::string(&**s),
            SexpKind::Sym(s) => Value::Sym(*s),
            // Consed from the last element on, with no intermediate vector (the elements
            // are independent: converting them in either order gives the same list).
            SexpKind::List(items) => Value::list(items.iter().map(Sexp::to_value)),
            SexpKind::Vector(items) => {
                Value::vector(items.iter().map(Sexp::to_value).collect::<Vec<_>>())
            }
            SexpKind::Dotted(items, tail) => {
                Value::list_with_tail(items.iter().map(Sexp::to_value), tail.to_value())
            }
        }
    }
}
