//! Capture analysis for lowering: which symbols a `lambda` inside a scope mentions (those
//! variables live in heap cells, so closures capture variables, not values) and which are
//! targets of `setq`.
//!
//! Both sets are conservative — any mention inside any nested lambda, any `setq` anywhere,
//! quoted data included — which only costs speed. Invariant: the walks recurse once per
//! nested list (never per atom) to [`WALK_DEPTH`] levels and continue iteratively past it,
//! so no input depth can overflow the host stack.

use crate::ast::{Sexp, SexpKind};
use ptc_vm::symbol::Symbol;
use rustc_hash::FxHashSet;

/// Every symbol mentioned inside any `lambda` form within `forms` (the conservative
/// capture set). Recursive to [`WALK_DEPTH`] levels, then iterative, so deep forms cannot
/// overflow the host stack; the set is only allocated once a symbol is found.
pub(crate) fn lambda_symbols(forms: &[Sexp]) -> FxHashSet<Symbol> {
    let mut found = FxHashSet::default();
    lambda_walk(forms, false, 0, &mut found);
    found
}

/// Whether a list or vector within `items` is headed by `lambda` (what makes
/// [`lambda_symbols`] non-empty); past [`WALK_DEPTH`] levels it answers yes without
/// looking further (the capture sets are then computed by walking).
pub(super) fn has_lambda(items: &[Sexp], depth: u32) -> bool {
    items.iter().any(|item| match &item.kind {
        SexpKind::List(_) | SexpKind::Vector(_) | SexpKind::Dotted(..) if depth >= WALK_DEPTH => {
            true
        }
        SexpKind::List(inner) | SexpKind::Vector(inner) => {
            inner
                .first()
                .and_then(Sexp::as_symbol)
                .is_some_and(|s| s == ptc_vm::symbol::well_known::LAMBDA)
                || has_lambda(inner, depth + 1)
        }
        SexpKind::Dotted(inner, tail) => {
            has_lambda(inner, depth + 1) || has_lambda(std::slice::from_ref(tail), depth + 1)
        }
        _ => false,
    })
}

/// Room a capture set takes on its first symbol: a lambda's mentions usually fit, so the
/// set grows once instead of doubling from its smallest size.
const FIRST_ROOM: usize = 16;

/// Inserts `symbol`, giving an empty set [`FIRST_ROOM`] first.
fn insert_sized(found: &mut FxHashSet<Symbol>, symbol: Symbol) {
    if found.capacity() == 0 {
        found.reserve(FIRST_ROOM);
    }
    found.insert(symbol);
}

/// How deep the recursive walks of this module go before they continue iteratively.
const WALK_DEPTH: u32 = 64;

/// [`lambda_symbols`] over `items` (the elements of one list, `inside` a lambda or not):
/// one call per nested list, none per atom.
fn lambda_walk(items: &[Sexp], inside: bool, depth: u32, found: &mut FxHashSet<Symbol>) {
    for item in items {
        match &item.kind {
            SexpKind::Sym(symbol) if inside => {
                insert_sized(found, *symbol);
            }
            SexpKind::List(_) | SexpKind::Vector(_) | SexpKind::Dotted(..)
                if depth >= WALK_DEPTH =>
            {
                lambda_walk_iterative(item, inside, found);
            }
            SexpKind::List(inner) | SexpKind::Vector(inner) => {
                let inside = inside
                    || inner
                        .first()
                        .and_then(Sexp::as_symbol)
                        .is_some_and(|s| s == ptc_vm::symbol::well_known::LAMBDA);
                lambda_walk(inner, inside, depth + 1, found);
            }
            SexpKind::Dotted(inner, tail) => {
                lambda_walk(inner, inside, depth + 1, found);
                lambda_walk(std::slice::from_ref(tail), inside, depth + 1, found);
            }
            _ => {}
        }
    }
}

fn lambda_walk_iterative(form: &Sexp, inside: bool, found: &mut FxHashSet<Symbol>) {
    let mut stack: Vec<(&Sexp, bool)> = vec![(form, inside)];
    while let Some((form, inside)) = stack.pop() {
        match &form.kind {
            SexpKind::Sym(symbol) if inside => {
                found.insert(*symbol);
            }
            SexpKind::Dotted(items, tail) => {
                stack.push((tail, inside));
                stack.extend(items.iter().map(|item| (item, inside)));
            }
            SexpKind::List(items) | SexpKind::Vector(items) => {
                let is_lambda = items
                    .first()
                    .and_then(Sexp::as_symbol)
                    .is_some_and(|s| s == ptc_vm::symbol::well_known::LAMBDA);
                for item in items {
                    stack.push((item, inside || is_lambda));
                }
            }
            _ => {}
        }
    }
}

/// Every symbol that is the target of a `setq` somewhere within `forms` (conservative:
/// nested lambdas and quoted data included). Recursive to [`WALK_DEPTH`], then iterative.
pub(crate) fn assigned_symbols(forms: &[Sexp], setq: Option<Symbol>) -> FxHashSet<Symbol> {
    let mut found = FxHashSet::default();
    let Some(setq) = setq else { return found };
    assigned_walk(forms, setq, 0, &mut found);
    found
}

/// [`assigned_symbols`] over the elements of one list: one call per nested list.
fn assigned_walk(items: &[Sexp], setq: Symbol, depth: u32, found: &mut FxHashSet<Symbol>) {
    for item in items {
        if let SexpKind::List(inner) | SexpKind::Vector(inner) = &item.kind {
            if depth >= WALK_DEPTH {
                assigned_walk_iterative(item, setq, found);
                continue;
            }
            if inner.first().and_then(Sexp::as_symbol) == Some(setq) {
                found.extend(inner.iter().skip(1).step_by(2).filter_map(Sexp::as_symbol));
            }
            assigned_walk(inner, setq, depth + 1, found);
        }
    }
}

fn assigned_walk_iterative(form: &Sexp, setq: Symbol, found: &mut FxHashSet<Symbol>) {
    let mut stack: Vec<&Sexp> = vec![form];
    while let Some(form) = stack.pop() {
        if let SexpKind::List(items) | SexpKind::Vector(items) = &form.kind {
            if items.first().and_then(Sexp::as_symbol) == Some(setq) {
                found.extend(items.iter().skip(1).step_by(2).filter_map(Sexp::as_symbol));
            }
            stack.extend(items.iter());
        }
    }
}
