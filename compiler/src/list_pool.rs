//! A per-thread pool of the element buffers of [`Sexp`] lists, so that a host compiling
//! script after script on one thread reuses the list buffers of the last compile instead of
//! allocating one per list (issue #19: a cold compile of the 8-line agent script made 71
//! allocations, 40 of them list buffers).
//!
//! The parser draws every list's buffer from here ([`collect`]), as do macro expansion's
//! clones ([`take`]) and the lowering's synthesized calls; the compiler hands a script's
//! forms back with [`recycle`] once they are lowered, and expansion hands back each form it
//! replaces with [`recycle_one`]. A list dropped any other way is freed as usual: the pool
//! is an optimization and never required for correctness.
//!
//! Invariants:
//! - every pooled buffer is empty and has a capacity of exactly [`POOLED_CAPACITY`]
//!   elements (buffers of any other capacity are freed, not pooled), so [`take`] of up to
//!   that many elements never reallocates;
//! - the pool holds at most [`MAX_BUFFERS`] buffers per thread: at most
//!   `MAX_BUFFERS × POOLED_CAPACITY × size_of::<Sexp>()` bytes (96 KiB) retained per thread
//!   that compiles;
//! - [`recycle`] recurses at most [`MAX_RECYCLE_DEPTH`] levels; lists nested deeper are
//!   dropped normally (the reader bounds nesting, and drop is as deep as recycle would be).

use crate::ast::{Sexp, SexpKind};
use std::cell::RefCell;

/// The capacity of every pooled buffer: most lists of a script are shorter.
pub const POOLED_CAPACITY: usize = 8;

/// The most buffers one thread keeps.
pub const MAX_BUFFERS: usize = 256;

/// How deep [`recycle`] follows nested lists before it lets the rest drop normally.
pub const MAX_RECYCLE_DEPTH: usize = 32;

thread_local! {
    static POOL: RefCell<Vec<Vec<Sexp>>> = const { RefCell::new(Vec::new()) };
}

/// An empty buffer for a list of `len` elements: a pooled one when `len` fits one and the
/// pool has one, a fresh one otherwise (fresh ones of a poolable length get the pooled
/// capacity, so they can be pooled later).
#[must_use]
pub fn take(len: usize) -> Vec<Sexp> {
    if len > POOLED_CAPACITY {
        return Vec::with_capacity(len);
    }
    POOL.with(|pool| pool.borrow_mut().pop())
        .unwrap_or_else(|| Vec::with_capacity(POOLED_CAPACITY))
}

/// The elements of `items` in a buffer from [`take`].
#[must_use]
pub fn collect<I>(items: I) -> Vec<Sexp>
where
    I: ExactSizeIterator<Item = Sexp>,
{
    let mut list = take(items.len());
    list.extend(items);
    list
}

/// A copy of `items` (the elements cloned, their lists drawn from the pool too).
#[must_use]
pub fn clone_list(items: &[Sexp]) -> Vec<Sexp> {
    collect(items.iter().cloned())
}

/// Hands `forms` and every list nested in them back to the pool.
pub fn recycle(forms: Vec<Sexp>) {
    recycle_at(forms, 0);
}

/// Hands the lists of one datum back to the pool.
pub fn recycle_one(form: Sexp) {
    if let Some(items) = into_items(form.kind) {
        recycle_at(items, 0);
    }
}

fn into_items(kind: SexpKind) -> Option<Vec<Sexp>> {
    match kind {
        SexpKind::List(items) | SexpKind::Vector(items) | SexpKind::Dotted(items, _) => Some(items),
        _ => None,
    }
}

fn recycle_at(mut items: Vec<Sexp>, depth: usize) {
    if depth < MAX_RECYCLE_DEPTH {
        for item in &mut items {
            if let SexpKind::List(inner) | SexpKind::Vector(inner) | SexpKind::Dotted(inner, _) =
                &mut item.kind
            {
                recycle_at(std::mem::take(inner), depth + 1);
            }
        }
    }
    items.clear();
    if items.capacity() != POOLED_CAPACITY {
        return;
    }
    POOL.with(|pool| {
        let mut pool = pool.borrow_mut();
        if pool.len() < MAX_BUFFERS {
            pool.push(items);
        }
    });
}

/// How many buffers this thread's pool holds (for tests).
/// A copy of a datum draws its lists' buffers from this pool (macro expansion copies forms
/// often), so it costs no allocation when the pool has buffers.
impl Clone for SexpKind {
    fn clone(&self) -> Self {
        match self {
            SexpKind::Nil => SexpKind::Nil,
            SexpKind::T => SexpKind::T,
            SexpKind::Int(n) => SexpKind::Int(*n),
            SexpKind::Big(n) => SexpKind::Big(std::sync::Arc::clone(n)),
            SexpKind::Float(f) => SexpKind::Float(*f),
            SexpKind::Str(s) => SexpKind::Str(std::sync::Arc::clone(s)),
            SexpKind::Sym(s) => SexpKind::Sym(*s),
            SexpKind::List(items) => SexpKind::List(clone_list(items)),
            SexpKind::Vector(items) => SexpKind::Vector(clone_list(items)),
            SexpKind::Dotted(items, tail) => SexpKind::Dotted(clone_list(items), tail.clone()),
        }
    }
}

#[cfg(test)]
pub(crate) fn retained() -> usize {
    POOL.with(|pool| pool.borrow().len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use ptc_vm::Span;

    fn list(items: Vec<Sexp>) -> Sexp {
        Sexp::new(SexpKind::List(collect(items.into_iter())), Span::new(0, 0))
    }

    fn int(n: i64) -> Sexp {
        Sexp::new(SexpKind::Int(n), Span::new(0, 0))
    }

    #[test]
    fn recycled_lists_are_taken_again_and_the_pool_is_bounded() {
        let before = retained();
        let nested = list(vec![int(1), list(vec![int(2), list(vec![int(3)])])]);
        recycle_one(nested);
        assert_eq!(retained(), before + 3);
        let reused = take(4);
        assert!(reused.is_empty());
        assert_eq!(reused.capacity(), POOLED_CAPACITY);
        assert_eq!(retained(), before + 2);
        // Long lists and odd capacities are freed, not pooled.
        recycle(Vec::with_capacity(POOLED_CAPACITY + 1));
        recycle(Vec::with_capacity(1));
        assert_eq!(retained(), before + 2);
        for _ in 0..MAX_BUFFERS + 10 {
            recycle(Vec::with_capacity(POOLED_CAPACITY));
        }
        assert_eq!(retained(), MAX_BUFFERS);
    }

    #[test]
    fn deep_nesting_is_recycled_to_the_depth_cap_and_dropped_below_it() {
        let mut form = int(0);
        for _ in 0..(MAX_RECYCLE_DEPTH * 4) {
            form = list(vec![form]);
        }
        POOL.with(|pool| pool.borrow_mut().clear());
        recycle_one(form);
        assert_eq!(retained(), MAX_RECYCLE_DEPTH + 1);
    }
}
