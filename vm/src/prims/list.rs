//! List primitives: accessors, construction, search, `sort`.
//!
//! Each follows the Emacs C or Lisp definition of the same name, including which value a
//! `wrong-type-argument` error names (for `nthcdr`, `member`, `assoc` and friends the whole
//! list; for `take`, `append` and `reverse` the offending tail). Every walk is a loop, so
//! long lists never touch the host stack. Work: one unit per list element visited, plus
//! the comparison work of `member`, `assoc` and `sort`. Allocation: one weight byte per
//! fresh cons (its own byte; the elements are shared, not copied), string bytes and vector
//! slots for `reverse`.
//!
//! The optional TESTFN/PREDICATE arguments of `assoc`, `plist-get` and `plist-member` exist
//! for signature compatibility but must be nil: a guest function cannot be called from
//! inside a primitive (in the original, a guest symbol or closure is not a host function).

use super::PrimCtx;
use crate::equal;
use crate::error::{Error, Result};
use crate::heap;
use crate::number::wrong_type;
use crate::value::Value;
use std::cmp::Ordering;

/// The argument at `index` (arity is checked by the machine; missing optionals are nil).
fn arg(args: &[Value], index: usize) -> &Value {
    args.get(index).unwrap_or(&Value::Nil)
}

fn listp_error(ctx: &PrimCtx<'_>, value: &Value) -> Error {
    wrong_type("listp", value, &*ctx.symbols)
}

/// Emacs `car`: nil for nil, the car of a cons, else `listp` error.
fn car_of(ctx: &PrimCtx<'_>, value: &Value) -> Result<Value> {
    match value {
        Value::Nil => Ok(Value::Nil),
        Value::Cons(cell) => Ok(cell.car().clone()),
        other => Err(listp_error(ctx, other)),
    }
}

/// Emacs `cdr`: nil for nil, the cdr of a cons, else `listp` error.
fn cdr_of(ctx: &PrimCtx<'_>, value: &Value) -> Result<Value> {
    match value {
        Value::Nil => Ok(Value::Nil),
        Value::Cons(cell) => Ok(cell.cdr().clone()),
        other => Err(listp_error(ctx, other)),
    }
}

/// `(car LIST)`
pub(super) fn car(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    car_of(ctx, arg(args, 0))
}

/// `(cdr LIST)`
pub(super) fn cdr(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    cdr_of(ctx, arg(args, 0))
}

/// `(caar LIST)`
pub(super) fn caar(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let inner = car_of(ctx, arg(args, 0))?;
    car_of(ctx, &inner)
}

/// `(cadr LIST)`
pub(super) fn cadr(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let inner = cdr_of(ctx, arg(args, 0))?;
    car_of(ctx, &inner)
}

/// `(cdar LIST)`
pub(super) fn cdar(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let inner = car_of(ctx, arg(args, 0))?;
    cdr_of(ctx, &inner)
}

/// `(cddr LIST)`
pub(super) fn cddr(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let inner = cdr_of(ctx, arg(args, 0))?;
    cdr_of(ctx, &inner)
}

/// `(cons CAR CDR)`
pub(super) fn cons(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    ctx.alloc(heap::CONS);
    Ok(Value::cons(arg(args, 0).clone(), arg(args, 1).clone()))
}

/// `(list &rest OBJECTS)`
pub(super) fn list(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let count = args.len() as u64;
    ctx.charge(count);
    ctx.alloc(heap::conses(count));
    Ok(Value::list(args.iter().cloned()))
}

/// `(append &rest SEQUENCES)`: every argument but the last is copied (lists, vectors, and
/// strings as lists of character codes); the last is shared as the tail, whatever it is.
pub(super) fn append(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let Some((last, copied)) = args.split_last() else {
        return Ok(Value::Nil);
    };
    let mut items: Vec<Value> = Vec::new();
    for sequence in copied {
        match sequence {
            Value::Nil => {}
            Value::Cons(_) => {
                let mut walk = sequence.iter();
                items.extend(walk.by_ref().cloned());
                if !walk.rest().is_nil() {
                    return Err(listp_error(ctx, walk.rest()));
                }
            }
            Value::Vector(vector) => items.extend(vector.items().iter().cloned()),
            Value::Str(text) => {
                items.extend(
                    text.as_str()
                        .chars()
                        .map(|c| Value::Int(i64::from(u32::from(c)))),
                );
            }
            other => return Err(wrong_type("sequencep", other, &*ctx.symbols)),
        }
    }
    let count = items.len() as u64;
    ctx.charge(count.saturating_add(args.len() as u64));
    ctx.alloc(heap::conses(count));
    Ok(Value::list_with_tail(items, last.clone()))
}

/// `(length SEQUENCE)`: elements of a list or vector, characters of a string.
pub(super) fn length(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let sequence = arg(args, 0);
    let count = match sequence {
        Value::Nil => 0,
        Value::Cons(_) => {
            let mut walk = sequence.iter();
            let count = walk.by_ref().count();
            ctx.charge(count as u64);
            if !walk.rest().is_nil() {
                return Err(listp_error(ctx, sequence));
            }
            count
        }
        Value::Str(text) => text.char_len(),
        Value::Vector(vector) => vector.items().len(),
        other => return Err(wrong_type("sequencep", other, &*ctx.symbols)),
    };
    Ok(Value::Int(i64::try_from(count).unwrap_or(i64::MAX)))
}

/// A count argument of `nth`, `nthcdr` and `take`: negative counts clamp to 0 and huge
/// ones to `u64::MAX` (no list is that long); non-integers are an `integerp` error.
fn count_arg(ctx: &PrimCtx<'_>, value: &Value) -> Result<Option<u64>> {
    match value {
        Value::Int(n) => Ok(u64::try_from(*n).ok()),
        Value::Big(n) => Ok((n.sign() == num_bigint::Sign::Plus).then_some(u64::MAX)),
        other => Err(wrong_type("integerp", other, &*ctx.symbols)),
    }
}

/// Emacs `nthcdr`: drops `n` conses; running out on nil gives nil, on another atom a
/// `listp` error naming the whole list. A negative `n` gives the list itself.
fn nthcdr_of(ctx: &mut PrimCtx<'_>, n: &Value, list: &Value) -> Result<Value> {
    let Some(count) = count_arg(ctx, n)? else {
        return Ok(list.clone());
    };
    let mut rest = list;
    let mut visited: u64 = 0;
    while visited < count {
        match rest {
            Value::Cons(cell) => rest = cell.cdr(),
            Value::Nil => break,
            _ => {
                ctx.charge(visited);
                return Err(listp_error(ctx, list));
            }
        }
        visited += 1;
    }
    ctx.charge(visited);
    Ok(rest.clone())
}

/// `(nth N LIST)`: `(car (nthcdr N LIST))`.
pub(super) fn nth(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let tail = nthcdr_of(ctx, arg(args, 0), arg(args, 1))?;
    car_of(ctx, &tail)
}

/// `(nthcdr N LIST)`
pub(super) fn nthcdr(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    nthcdr_of(ctx, arg(args, 0), arg(args, 1))
}

/// `(last LIST &optional N)`: the last N conses (default 1), as `subr.el` defines it with
/// `safe-length` (an improper tail is kept, never an error).
pub(super) fn last(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let list = arg(args, 0);
    let length = list.iter().count() as u64;
    ctx.charge(length);
    let drop = match arg(args, 1) {
        Value::Nil => {
            if list.is_nil() {
                return Ok(Value::Nil);
            }
            // `(nthcdr (1- (safe-length list)) list)`; for an atom that is (nthcdr -1 x).
            length.saturating_sub(1)
        }
        Value::Int(n) => match u64::try_from(*n) {
            Err(_) => return Ok(Value::Nil),
            Ok(n) => length.saturating_sub(n),
        },
        Value::Big(n) => {
            if n.sign() == num_bigint::Sign::Minus {
                return Ok(Value::Nil);
            }
            0
        }
        Value::Float(f) => {
            if f.is_nan() || *f < 0.0 {
                return Ok(Value::Nil);
            }
            if *f < length as f64 {
                // `(nthcdr (- m n) list)` with a float count.
                return Err(wrong_type(
                    "integerp",
                    &Value::Float(length as f64 - f),
                    &*ctx.symbols,
                ));
            }
            0
        }
        other => return Err(wrong_type("number-or-marker-p", other, &*ctx.symbols)),
    };
    let mut rest = list;
    for _ in 0..drop {
        if let Value::Cons(cell) = rest {
            rest = cell.cdr();
        }
    }
    Ok(rest.clone())
}

/// `(take N LIST)`: a fresh list of the first N elements. An improper tail reached before N
/// elements is a `listp` error naming that tail.
pub(super) fn take(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let count = match count_arg(ctx, arg(args, 0))? {
        None | Some(0) => return Ok(Value::Nil),
        Some(count) => count,
    };
    let list = arg(args, 1);
    if !list.is_list() {
        return Err(listp_error(ctx, list));
    }
    let mut items = Vec::new();
    let mut rest = list;
    while (items.len() as u64) < count {
        match rest {
            Value::Cons(cell) => {
                items.push(cell.car().clone());
                rest = cell.cdr();
            }
            Value::Nil => break,
            tail => {
                ctx.charge(items.len() as u64);
                return Err(listp_error(ctx, tail));
            }
        }
    }
    let built = items.len() as u64;
    ctx.charge(built);
    ctx.alloc(heap::conses(built));
    Ok(Value::list(items))
}

/// `(reverse SEQUENCE)`: a reversed copy of a list, vector or string.
pub(super) fn reverse(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let sequence = arg(args, 0);
    match sequence {
        Value::Nil => Ok(Value::Nil),
        Value::Cons(_) => {
            let mut walk = sequence.iter();
            let mut reversed = Value::Nil;
            let mut count: u64 = 0;
            for item in walk.by_ref() {
                reversed = Value::cons(item.clone(), reversed);
                count += 1;
            }
            ctx.charge(count);
            if !walk.rest().is_nil() {
                return Err(listp_error(ctx, walk.rest()));
            }
            ctx.alloc(heap::conses(count));
            Ok(reversed)
        }
        Value::Vector(vector) => {
            let items: Vec<Value> = vector.items().iter().rev().cloned().collect();
            let count = items.len() as u64;
            ctx.charge(count);
            ctx.alloc(heap::vector(count));
            Ok(Value::vector(items))
        }
        Value::Str(text) => {
            let reversed: String = text.as_str().chars().rev().collect();
            let bytes = reversed.len() as u64;
            ctx.charge(bytes / 32 + 1);
            ctx.alloc(heap::string(bytes));
            Ok(Value::string(reversed))
        }
        other => Err(wrong_type("sequencep", other, &*ctx.symbols)),
    }
}

/// `(sort LIST)`: the ptc wrapper `(sort (copy-sequence LIST) #'value<)` after a `listp`
/// check. A sorted copy, ascending by `value<`, stable; no comparator argument.
pub(super) fn sort(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let list = arg(args, 0);
    if !list.is_list() {
        return Err(Error::script("'sort': expects a list"));
    }
    // The wrapper copies with `copy-sequence`, which names an improper tail.
    let mut walk = list.iter();
    let items: Vec<Value> = walk.by_ref().cloned().collect();
    if !walk.rest().is_nil() {
        ctx.charge(items.len() as u64);
        return Err(listp_error(ctx, walk.rest()));
    }
    let count = items.len() as u64;
    ctx.charge(count);
    let mut work: u64 = 0;
    let sorted = merge_sort(items, ctx, &mut work);
    ctx.charge(work);
    let sorted = sorted?;
    ctx.alloc(heap::conses(count));
    Ok(Value::list(sorted))
}

/// Bottom-up stable merge sort with a fallible comparison (Rust's `sort_by` may panic on an
/// inconsistent order, and `value<` is not total on NaN).
fn merge_sort(mut items: Vec<Value>, ctx: &PrimCtx<'_>, work: &mut u64) -> Result<Vec<Value>> {
    let mut width: usize = 1;
    while width < items.len() {
        let mut merged = Vec::with_capacity(items.len());
        for chunk in items.chunks(width.saturating_mul(2)) {
            let (left, right) = chunk.split_at(width.min(chunk.len()));
            let mut left = left.iter().peekable();
            let mut right = right.iter().peekable();
            while let (Some(a), Some(b)) = (left.peek(), right.peek()) {
                // Take from the right only when it is strictly smaller: stability.
                if equal::value_compare(b, a, &*ctx.symbols, work)? == Ordering::Less {
                    merged.push((*b).clone());
                    right.next();
                } else {
                    merged.push((*a).clone());
                    left.next();
                }
            }
            merged.extend(left.cloned());
            merged.extend(right.cloned());
        }
        items = merged;
        width = width.saturating_mul(2);
    }
    Ok(items)
}

/// Walks `list` for the first tail whose car satisfies `found`; a non-nil improper end is
/// a `listp` error naming the whole list.
fn find_tail(
    ctx: &mut PrimCtx<'_>,
    list: &Value,
    mut found: impl FnMut(&Value, &mut u64) -> bool,
) -> Result<Value> {
    let mut rest = list;
    let mut work: u64 = 0;
    while let Value::Cons(cell) = rest {
        work = work.saturating_add(1);
        if found(cell.car(), &mut work) {
            ctx.charge(work);
            return Ok(rest.clone());
        }
        rest = cell.cdr();
    }
    ctx.charge(work);
    if rest.is_nil() {
        Ok(Value::Nil)
    } else {
        Err(listp_error(ctx, list))
    }
}

/// `(member ELT LIST)`: the first tail whose car is `equal` to ELT.
pub(super) fn member(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let element = arg(args, 0);
    find_tail(ctx, arg(args, 1), |item, work| {
        let (same, cost) = equal::equal_counting(element, item);
        *work = work.saturating_add(cost);
        same
    })
}

/// `(memq ELT LIST)`: the first tail whose car is `eq` to ELT.
pub(super) fn memq(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    with_eq_test!(arg(args, 0), |test| find_tail(
        ctx,
        arg(args, 1),
        |item, _| test(item)
    ))
}

/// Rejects a non-nil TESTFN/PREDICATE argument.
fn no_function(name: &str, what: &str, value: &Value) -> Result<()> {
    if value.is_nil() {
        Ok(())
    } else {
        Err(Error::script(format!(
            "'{name}': the {what} argument must be nil; a guest function cannot be called from a primitive"
        )))
    }
}

/// The first element of `alist` that is a cons whose car satisfies `found`.
fn find_pair(
    ctx: &mut PrimCtx<'_>,
    alist: &Value,
    mut found: impl FnMut(&Value, &mut u64) -> bool,
) -> Result<Value> {
    let mut rest = alist;
    let mut work: u64 = 0;
    while let Value::Cons(cell) = rest {
        work = work.saturating_add(1);
        if let Value::Cons(pair) = cell.car()
            && found(pair.car(), &mut work)
        {
            ctx.charge(work);
            return Ok(cell.car().clone());
        }
        rest = cell.cdr();
    }
    ctx.charge(work);
    if rest.is_nil() {
        Ok(Value::Nil)
    } else {
        Err(listp_error(ctx, alist))
    }
}

/// `(assoc KEY ALIST &optional TESTFN)`: the first pair whose car is `equal` to KEY (or
/// satisfies TESTFN, which must name a pure equality primitive: `prims/alist.rs`);
/// elements that are not conses are skipped.
pub(super) fn assoc(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let test = super::alist::test_fn(ctx, "assoc", arg(args, 2), super::alist::Test::Equal)?;
    let key = arg(args, 0);
    find_pair(ctx, arg(args, 1), |candidate, work| {
        test.holds(candidate, key, work)
    })
}

/// `(assq KEY ALIST)`: the first pair whose car is `eq` to KEY.
pub(super) fn assq(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    with_eq_test!(arg(args, 0), |test| find_pair(
        ctx,
        arg(args, 1),
        |candidate, _| test(candidate)
    ))
}

/// `(plist-get PLIST PROP &optional PREDICATE)`: the value after the first `eq` property;
/// never an error on a malformed plist (Emacs's `FOR_EACH_TAIL_SAFE` walk).
pub(super) fn plist_get(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    no_function("plist-get", "PREDICATE", arg(args, 2))?;
    let (found, work) = with_eq_test!(arg(args, 1), |test| super::fast::plist_find(
        arg(args, 0),
        test
    ));
    ctx.charge(work);
    Ok(found.cloned().unwrap_or(Value::Nil))
}

/// `(plist-member PLIST PROP &optional PREDICATE)`: the tail starting at the first `eq`
/// property; a plist ending in a non-nil atom is a `plistp` error naming the plist.
pub(super) fn plist_member(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    no_function("plist-member", "PREDICATE", arg(args, 2))?;
    let plist = arg(args, 0);
    let property = arg(args, 1);
    let mut rest = plist;
    let mut work: u64 = 0;
    while let Value::Cons(cell) = rest {
        work = work.saturating_add(1);
        if equal::eq(cell.car(), property) {
            ctx.charge(work);
            return Ok(rest.clone());
        }
        rest = cell.cdr();
        match rest {
            Value::Cons(value_cell) => rest = value_cell.cdr(),
            _ => break,
        }
    }
    ctx.charge(work);
    if rest.is_nil() {
        Ok(Value::Nil)
    } else {
        Err(wrong_type("plistp", plist, &*ctx.symbols))
    }
}
