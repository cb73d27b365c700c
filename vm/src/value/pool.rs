//! Releasing aggregates: the iterative drop of lists and vectors, and each thread's pools of
//! recycled cons and closure allocations.
//!
//! Owns every `Drop` of [`Value`]'s aggregates that has children, [`Value::release`], and
//! the thread-local pools [`Value::cons`] and [`Value::closure`] draw from. A dropped cons
//! keeps every uniquely owned cell under it (nested lists' first cells too) but not its own
//! allocation, which its `Arc` frees; [`Value::release`] keeps that one as well. Invariants: dropping a long or deep
//! structure never recurses on the host stack (children are unlinked in a loop, aggregate
//! cars go on an explicit stack); every pooled allocation is unique (one strong reference,
//! no weak one) and holds nothing to drop (a cons `nil` twice, a closure no cells and no
//! heap buffer), so reusing it drops nothing; no pool holds more than its cap. Guest
//! budgets do not see the pools: a value is charged when it is made, whether its memory is
//! fresh or recycled (spec/reference/budgets.md states the pools' real-memory bound).

use super::{Closure, Cons, HashTable, Value, Vector};
use std::cell::RefCell;
use std::sync::Arc;

/// The most cons allocations one thread keeps for reuse: 4.5 MiB of 72-byte cells, enough
/// for a run that drops a few lists of ten thousand elements to build them again without
/// `malloc` (list workload: 27.59 M instructions at 16 384 cells, 21.67 M at this cap).
const CONS_POOL_CAP: usize = 65_536;

thread_local! {
    /// Cons allocations released by [`Cons`]'s iterative drop and [`release_value`], each
    /// unique (one strong reference, no weak one) and holding `nil` car and cdr, for
    /// [`Value::cons`] to reuse instead of a `malloc`/`free` pair. Guest budgets are unaffected: a cons is charged
    /// when it is made, whether its memory is fresh or recycled.
    static CONS_POOL: RefCell<Vec<Arc<Cons>>> = const { RefCell::new(Vec::new()) };
}

/// A recycled cons allocation, if this thread has one.
#[inline]
pub(super) fn recycled_cons() -> Option<Arc<Cons>> {
    CONS_POOL
        .try_with(|pool| pool.try_borrow_mut().ok().and_then(|mut pool| pool.pop()))
        .ok()
        .flatten()
}

/// Keeps the emptied, unique cons allocation `cell` in `pool` for reuse, or frees it when
/// there is no pool (this thread is exiting or already in one) or it is full.
#[inline]
fn recycle(cell: Arc<Cons>, pool: &mut Option<std::cell::RefMut<'_, Vec<Arc<Cons>>>>) {
    match pool {
        // The pool grows by doubling, so its capacity never passes the (power of two) cap.
        Some(pool) if pool.len() < CONS_POOL_CAP => pool.push(cell),
        // `cell`'s fields are nil, so its drop is O(1) and touches no pool.
        _ => drop(cell),
    }
}

/// Keeps one emptied, unique cons allocation for reuse (see [`recycle`]).
#[inline]
pub(super) fn recycle_one(cell: Arc<Cons>) {
    let mut cell = Some(cell);
    let _ = CONS_POOL.try_with(|pool| {
        if let Some(cell) = cell.take() {
            recycle(cell, &mut pool.try_borrow_mut().ok());
        }
    });
    // The thread is exiting: `cell`, if still here, is freed in O(1).
    drop(cell);
}

/// The most closure allocations one thread keeps for reuse: 768 KiB of 48-byte closures
/// (plus the pool's 128 KiB index), enough for a run that drops ten thousand closures to
/// make them again without `malloc`.
const CLOSURE_POOL_CAP: usize = 16_384;

thread_local! {
    /// Closure allocations released while unlinking a list or leaving a frame, each unique
    /// and holding no cells and no heap buffer, for [`Value::closure`] to reuse.
    static CLOSURE_POOL: RefCell<Vec<Arc<Closure>>> = const { RefCell::new(Vec::new()) };
}

/// An allocation holding `closure`: a recycled one when this thread has one.
#[inline]
pub(super) fn closure_allocation(closure: Closure) -> Arc<Closure> {
    let recycled = CLOSURE_POOL
        .try_with(|pool| pool.try_borrow_mut().ok().and_then(|mut pool| pool.pop()))
        .ok()
        .flatten();
    match recycled {
        Some(mut recycled) => match Arc::get_mut(&mut recycled) {
            Some(slot) => {
                // The pooled closure holds no heap buffer: nothing to drop (see below).
                std::mem::forget(std::mem::replace(slot, closure));
                recycled
            }
            None => Arc::new(closure),
        },
        None => Arc::new(closure),
    }
}

/// Releases one reference to a closure: the last one of a closure whose cells are inline
/// keeps its allocation, emptied, in this thread's pool (when it has room); any other is
/// an ordinary drop.
#[inline]
pub fn release_closure(mut closure: Arc<Closure>) {
    let Some(owned) = Arc::get_mut(&mut closure) else {
        return;
    };
    if owned.captures.spilled() {
        return;
    }
    // Inline cells are plain integers: clearing them frees nothing.
    owned.captures.clear();
    owned.function = 0;
    let mut closure = Some(closure);
    let _ = CLOSURE_POOL.try_with(|pool| {
        if let Ok(mut pool) = pool.try_borrow_mut()
            && pool.len() < CLOSURE_POOL_CAP
            && let Some(closure) = closure.take()
        {
            // The pool grows by doubling, so its capacity never passes the cap.
            pool.push(closure);
        }
    });
    // No room (or the thread is exiting): freed here.
    drop(closure);
}

/// Releases `value`, an aggregate that is neither a cons nor a vector: a closure through
/// [`release_closure`], anything else by its drop.
#[inline]
fn release_leaf(value: Value) {
    match value {
        Value::Closure(closure) => release_closure(closure),
        other => drop(other),
    }
}

/// Moves `value` onto `stack` if dropping it would free an aggregate with children, so the
/// children are released by the loop in [`drop_iteratively`] instead of by recursion.
fn defer(value: Value, stack: &mut Vec<Value>) {
    match &value {
        Value::Cons(c) if Arc::strong_count(c) == 1 => stack.push(value),
        Value::Vector(v) if Arc::strong_count(v) == 1 && !v.items.is_empty() => stack.push(value),
        Value::Hash(t) if Arc::strong_count(t) == 1 => stack.push(value),
        _ => drop(value),
    }
}

fn drop_iteratively(mut stack: Vec<Value>) {
    while let Some(value) = stack.pop() {
        match value {
            Value::Cons(mut c) => {
                if let Some(cell) = Arc::get_mut(&mut c) {
                    defer(std::mem::take(&mut cell.car), &mut stack);
                    defer(std::mem::take(&mut cell.cdr), &mut stack);
                    // The cell now holds nil twice: reused, or freed in O(1).
                    recycle_one(c);
                }
            }
            Value::Vector(v) => {
                if let Some(mut vector) = Arc::into_inner(v) {
                    for item in std::mem::take(&mut vector.items) {
                        defer(item, &mut stack);
                    }
                }
            }
            Value::Hash(t) => {
                if let Some(mut table) = Arc::into_inner(t) {
                    for (key, value) in table.take_entries() {
                        defer(key, &mut stack);
                        defer(value, &mut stack);
                    }
                }
            }
            other => drop(other),
        }
    }
}

/// Whether dropping `value` may free an aggregate with children.
#[inline(always)]
fn is_branch(value: &Value) -> bool {
    matches!(value, Value::Cons(_) | Value::Vector(_) | Value::Hash(_))
}

impl Drop for HashTable {
    /// Releases the entries through the explicit stack of [`drop_iteratively`]: a chain of
    /// tables, each holding the next, never recurses on the host stack.
    fn drop(&mut self) {
        let entries = self.take_entries();
        if entries.iter().all(|(k, v)| !is_branch(k) && !is_branch(v)) {
            return;
        }
        let mut stack = Vec::new();
        for (key, value) in entries {
            defer(key, &mut stack);
            defer(value, &mut stack);
        }
        drop_iteratively(stack);
    }
}

impl Drop for Cons {
    /// Unlinks the cdr chain in a loop (no allocation for a list of atoms); only cars that
    /// are themselves aggregates go on the explicit stack of [`drop_iteratively`].
    fn drop(&mut self) {
        release_children(self);
    }
}

/// Releases `value`, keeping its own allocation in this thread's pool when it is the last
/// reference to a cons (or a closure with inline cells), and every uniquely owned cons
/// under it, as dropping it would not: a dropped cons is freed by its `Arc` (only the cells
/// after it are pooled). For values that die in bulk and are often list heads: a finished
/// run's registers, its final value, a tool request's arguments.
pub(super) fn release_value(value: Value) {
    match value {
        Value::Cons(mut c) => {
            if let Some(cell) = Arc::get_mut(&mut c) {
                release_children(cell);
                // `release_children` left nil twice: reused, or freed in O(1).
                recycle_one(c);
            }
        }
        other => release_leaf(other),
    }
}

/// Empties `cell`: its cdr chain unlinked in a loop and recycled, aggregate cars released
/// through the explicit stack of [`drop_iteratively`]; afterwards it holds nil twice.
fn release_children(cell: &mut Cons) {
    let car = std::mem::take(&mut cell.car);
    if !is_branch(&car) && !is_branch(&cell.cdr) {
        // Atoms (nil, a number, a string, a closure...): nothing to unlink.
        release_leaf(car);
        release_leaf(std::mem::take(&mut cell.cdr));
        return;
    }
    let mut stack = Vec::new();
    if is_branch(&car) {
        defer(car, &mut stack);
    } else {
        release_leaf(car);
    }
    let mut next = Some(std::mem::take(&mut cell.cdr));
    // One borrow of this thread's pool for the whole chain (none inside a drop that
    // already holds it: then cells are simply freed).
    let _ = CONS_POOL.try_with(|pool| {
        if let Some(next) = next.take() {
            unlink(next, &mut stack, pool.try_borrow_mut().ok());
        }
    });
    // The thread is exiting and its pool is gone: still iterative, nothing kept.
    if let Some(next) = next {
        unlink(next, &mut stack, None);
    }
    if !stack.is_empty() {
        drop_iteratively(stack);
    }
}

/// Unlinks the cdr chain starting at `next` in a loop: each uniquely owned cell is emptied
/// (aggregate cars deferred to `stack`) and recycled into `pool`; the walk stops at the
/// first shared cell, whose other owners keep the rest alive.
fn unlink(
    mut next: Value,
    stack: &mut Vec<Value>,
    mut pool: Option<std::cell::RefMut<'_, Vec<Arc<Cons>>>>,
) {
    loop {
        match next {
            Value::Cons(mut c) => match Arc::get_mut(&mut c) {
                Some(cell) => {
                    let car = std::mem::take(&mut cell.car);
                    if is_branch(&car) {
                        defer(car, stack);
                    } else if car.is_immediate() {
                        std::mem::forget(car);
                    } else {
                        release_leaf(car);
                    }
                    next = std::mem::take(&mut cell.cdr);
                    // The cell now holds nil twice: reused, or freed in O(1).
                    recycle(c, &mut pool);
                }
                None => break,
            },
            Value::Vector(_) | Value::Hash(_) => {
                defer(next, stack);
                break;
            }
            _ => break,
        }
    }
}

impl Drop for Vector {
    fn drop(&mut self) {
        if self.items.iter().all(|v| !is_branch(v)) {
            return;
        }
        let mut stack = Vec::new();
        for item in std::mem::take(&mut self.items) {
            defer(item, &mut stack);
        }
        drop_iteratively(stack);
    }
}

/// The number of cons allocations this thread's pool holds (tests).
#[cfg(test)]
pub(super) fn pooled_conses() -> usize {
    CONS_POOL.with(|pool| pool.borrow().len())
}

/// The number of closure allocations this thread's pool holds (tests).
#[cfg(test)]
fn pooled_closures() -> usize {
    CLOSURE_POOL.with(|pool| pool.borrow().len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Weight;

    #[test]
    fn dropped_cells_are_recycled_with_fresh_fields_and_weights() {
        let pooled = pooled_conses;
        let list = Value::list((0..100).map(Value::Int));
        let after_build = pooled();
        drop(list);
        // The head cell is freed by its `Arc`; the 99 after it are kept.
        assert_eq!(pooled(), after_build + 99);
        let again = Value::list([Value::string("ab"), Value::Int(-7)]);
        assert_eq!(pooled(), after_build + 97);
        // two conses + "ab" + "-7"; nodes: two conses, two atoms, the final nil
        assert_eq!(
            again.weight(),
            Weight {
                bytes: 6,
                nodes: 5,
                has_closure: false,
                has_table: false,
            }
        );
        let items: Vec<&Value> = again.iter().collect();
        assert_eq!(items.first().and_then(|v| v.as_str()), Some("ab"));
        assert!(matches!(items.get(1), Some(Value::Int(-7))));
        assert_eq!(items.len(), 2);
    }

    #[test]
    fn a_released_value_keeps_every_cell_it_owned_the_head_too() {
        let pooled = pooled_conses;
        // A list of three plists of two pairs: 3 + 3 × 4 cells.
        let plist = |n: i64| {
            Value::list([
                Value::Int(n),
                Value::string("a"),
                Value::Int(n + 1),
                Value::list([Value::Int(n)]),
            ])
        };
        let shared = Value::list([Value::Int(9)]);
        let list = Value::list([plist(1), plist(2), plist(3)]);
        let before = pooled();
        list.release();
        // Every cell: the outer list's three, each plist's four and its inner list's one.
        assert_eq!(pooled(), before + 3 + 3 * 5);
        // A plain drop frees the head (and keeps the rest, nested lists' heads included).
        let list = Value::list([plist(1), plist(2), plist(3)]);
        let before = pooled();
        drop(list);
        assert_eq!(pooled(), before + 3 + 3 * 5 - 1);
        // A value someone else holds stays whole.
        let holder = Value::list([shared.clone(), Value::Nil]);
        let before = pooled();
        shared.release();
        assert_eq!(pooled(), before);
        let first = holder.iter().next().and_then(|v| v.iter().next().cloned());
        assert!(matches!(first, Some(Value::Int(9))));
        // Atoms, vectors and closures release as they drop.
        Value::Int(1).release();
        Value::string("x").release();
        Value::vector(vec![Value::list([Value::Int(1)])]).release();
    }

    #[test]
    fn long_and_deep_structures_drop_without_recursion() {
        // Run on a small stack so a recursive drop would overflow.
        std::thread::Builder::new()
            .stack_size(64 * 1024)
            .spawn(|| {
                let mut long = Value::Nil;
                for i in 0..1_000_000 {
                    long = Value::cons(Value::Int(i), long);
                }
                drop(long);
                let mut deep = Value::Nil;
                for _ in 0..1_000_000 {
                    deep = Value::list([deep]);
                }
                drop(deep);
                let mut nested = Value::Nil;
                for _ in 0..100_000 {
                    nested = Value::vector(vec![nested]);
                }
                drop(nested);
            })
            .unwrap()
            .join()
            .unwrap();
    }

    #[test]
    fn dropped_closures_are_recycled_empty_and_reused() {
        let closure = |function: u32, cells: &[u32]| {
            Value::closure(function, cells.iter().copied().collect())
        };
        // Made first: making a closure draws on the pool.
        let kept = closure(4, &[1]);
        let spilled = closure(5, &[1, 2, 3, 4, 5]);
        let list = Value::list([closure(1, &[]), closure(2, &[7, 8]), closure(3, &[9])]);
        let before = pooled_closures();
        // A list of closures: every cell is emptied (the head by its drop), its closure
        // pooled.
        drop(list);
        assert_eq!(pooled_closures(), before + 3);
        // A closure someone else still holds is not pooled; one with spilled cells is not.
        drop(Value::list([Value::Nil, kept.clone()]));
        drop(Value::list([Value::Nil, spilled]));
        assert_eq!(pooled_closures(), before + 3);
        // Reuse writes the new function and cells.
        let again = closure(6, &[10, 11, 12]);
        assert_eq!(pooled_closures(), before + 2);
        match (&again, &kept) {
            (Value::Closure(a), Value::Closure(k)) => {
                assert_eq!((a.function, a.captures.as_slice()), (6, &[10, 11, 12][..]));
                assert_eq!((k.function, k.captures.as_slice()), (4, &[1][..]));
            }
            _ => panic!("closures expected"),
        }
        if let Value::Closure(c) = again {
            release_closure(c);
        }
        assert_eq!(pooled_closures(), before + 3);
    }
}
