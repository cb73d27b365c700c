//! Sequence primitives that models reach for beside the original's list primitives
//! (issue 18): `1+`/`1-`, the `car-safe` family, `butlast`, `nreverse`, `number-sequence`,
//! the pure `seq-` functions, `delete-dups`, `remove`/`delete`, `copy-sequence`, `vector`,
//! `vconcat`, `aref`/`elt`, `flatten-tree`, `string-to-list`, `cl-evenp`/`cl-oddp`, `zerop`.
//!
//! Invariants: nothing here mutates an argument. The "destructive" Emacs functions
//! (`nreverse`, `delete`, `delete-dups`) return a fresh result and leave their argument
//! as it was, so shared structure is never changed; since guest values are immutable no
//! script can tell the difference except by looking at the old binding, which Emacs
//! leaves unspecified. Sequences are lists, vectors or strings (characters as integers).
//! Work is one fuel unit per element visited plus the comparison work of `equal`; every
//! fresh cons or vector slot is allocated; `number-sequence` checks its length against the
//! value budget before building anything.

use super::PrimCtx;
use super::string::{new_string, out_of_range, wrong_type};
use crate::equal;
use crate::error::{Error, Result};
use crate::heap;
use crate::number::arith_error;
use crate::value::Value;

fn arg(args: &[Value], index: usize) -> &Value {
    args.get(index).unwrap_or(&Value::Nil)
}

fn count_u64(n: usize) -> u64 {
    u64::try_from(n).unwrap_or(u64::MAX)
}

/// The elements of a list, vector or string (characters as integers), charged one unit
/// each; `sequencep`/`listp` errors as Emacs names them.
pub(super) fn elements(ctx: &mut PrimCtx<'_>, sequence: &Value) -> Result<Vec<Value>> {
    let items: Vec<Value> = match sequence {
        Value::Nil => Vec::new(),
        Value::Cons(_) => {
            let mut walk = sequence.iter();
            let items: Vec<Value> = walk.by_ref().cloned().collect();
            if !walk.rest().is_nil() {
                ctx.charge(count_u64(items.len()));
                return Err(wrong_type(ctx, "listp", sequence));
            }
            items
        }
        Value::Vector(vector) => vector.items().to_vec(),
        Value::Str(text) => text
            .as_str()
            .chars()
            .map(|c| Value::Int(i64::from(u32::from(c))))
            .collect(),
        other => return Err(wrong_type(ctx, "sequencep", other)),
    };
    ctx.charge(count_u64(items.len()));
    Ok(items)
}

/// A fresh list of `items`, allocated.
fn fresh_list(ctx: &mut PrimCtx<'_>, items: Vec<Value>) -> Value {
    ctx.alloc(heap::conses(count_u64(items.len())));
    Value::list(items)
}

/// An integer argument as `i64`, or an `integerp` error (`fixnump` for big ones).
fn int_arg(ctx: &PrimCtx<'_>, value: &Value, predicate: &str) -> Result<i64> {
    match value {
        Value::Int(n) => Ok(*n),
        other => Err(wrong_type(ctx, predicate, other)),
    }
}

/// `(1+ NUMBER)`
pub(super) fn one_plus(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    step(ctx, arg(args, 0), 1)
}

/// `(1- NUMBER)`
pub(super) fn one_minus(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    step(ctx, arg(args, 0), -1)
}

fn step(ctx: &mut PrimCtx<'_>, value: &Value, delta: i64) -> Result<Value> {
    super::number::add(ctx, &[value.clone(), Value::Int(delta)])
}

/// `(car-safe OBJECT)`
pub(super) fn car_safe(_ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    Ok(match arg(args, 0) {
        Value::Cons(cell) => cell.car().clone(),
        _ => Value::Nil,
    })
}

/// `(cdr-safe OBJECT)`
pub(super) fn cdr_safe(_ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    Ok(match arg(args, 0) {
        Value::Cons(cell) => cell.cdr().clone(),
        _ => Value::Nil,
    })
}

/// `(butlast LIST &optional N)`: a copy without the last N (default 1) elements.
pub(super) fn butlast(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let n = match arg(args, 1) {
        Value::Nil => 1,
        other => int_arg(ctx, other, "integerp")?,
    };
    let items = elements(ctx, arg(args, 0))?;
    let keep = if n <= 0 {
        items.len()
    } else {
        items
            .len()
            .saturating_sub(usize::try_from(n).unwrap_or(usize::MAX))
    };
    Ok(fresh_list(ctx, items.into_iter().take(keep).collect()))
}

/// `(nreverse SEQUENCE)`: the reversed sequence, freshly built; the argument is not changed.
pub(super) fn nreverse(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    super::list::reverse(ctx, args)
}

/// `(number-sequence FROM &optional TO SEP)`: FROM, FROM+SEP, ... up to TO inclusive.
/// Integers only in ptc; the length is checked against the value budget first.
pub(super) fn number_sequence(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let from = int_arg(ctx, arg(args, 0), "integerp")?;
    let to = match arg(args, 1) {
        Value::Nil => return Ok(fresh_list(ctx, vec![Value::Int(from)])),
        other => int_arg(ctx, other, "integerp")?,
    };
    let sep = match arg(args, 2) {
        Value::Nil => 1,
        other => int_arg(ctx, other, "integerp")?,
    };
    if sep == 0 {
        if from == to {
            return Ok(fresh_list(ctx, vec![Value::Int(from)]));
        }
        return Err(Error::script("The increment can not be zero"));
    }
    let span = i128::from(to) - i128::from(from);
    let count = if (span >= 0) == (sep > 0) {
        span / i128::from(sep) + 1
    } else {
        0
    };
    let count = u64::try_from(count).unwrap_or(u64::MAX);
    let nodes = count.saturating_mul(2).saturating_add(1);
    if nodes > ctx.limits.value_nodes || count.saturating_mul(2) > ctx.limits.value_bytes {
        return Err(Error::new(
            crate::error::ErrorKind::Value,
            format!(
                "'number-sequence': {count} elements would exceed the value budget of {} nodes",
                ctx.limits.value_nodes
            ),
        ));
    }
    // Reserve no more than a small block up front: `count` is guest-controlled and only as
    // bounded as the host's value budget.
    let mut items = Vec::with_capacity(usize::try_from(count.min(4_096)).unwrap_or(0));
    let mut n = i128::from(from);
    for _ in 0..count {
        items.push(Value::Int(i64::try_from(n).map_err(|_| arith_error())?));
        n += i128::from(sep);
    }
    ctx.charge(count);
    Ok(fresh_list(ctx, items))
}

/// `(seq-take SEQUENCE N)`: the first N elements as a list (a vector for a vector, a string
/// for a string, as `seq-take` gives).
pub(super) fn seq_take(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let n = int_arg(ctx, arg(args, 1), "integerp")?;
    let sequence = arg(args, 0);
    let items = elements(ctx, sequence)?;
    let keep = usize::try_from(n.max(0))
        .unwrap_or(usize::MAX)
        .min(items.len());
    rebuild(ctx, sequence, items.into_iter().take(keep).collect())
}

/// `(seq-drop SEQUENCE N)`: all but the first N elements.
pub(super) fn seq_drop(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let n = int_arg(ctx, arg(args, 1), "integerp")?;
    let sequence = arg(args, 0);
    if n <= 0 {
        return Ok(sequence.clone());
    }
    let items = elements(ctx, sequence)?;
    let skip = usize::try_from(n).unwrap_or(usize::MAX).min(items.len());
    rebuild(ctx, sequence, items.into_iter().skip(skip).collect())
}

/// `items` as a sequence of the same type as `like` (lists for lists).
fn rebuild(ctx: &mut PrimCtx<'_>, like: &Value, items: Vec<Value>) -> Result<Value> {
    match like {
        Value::Vector(_) => {
            ctx.alloc(heap::vector(count_u64(items.len())));
            Ok(Value::vector(items))
        }
        Value::Str(_) => {
            let mut text = String::new();
            for item in &items {
                text.push(
                    super::string::char_of(item)
                        .ok_or_else(|| wrong_type(ctx, "characterp", item))?,
                );
            }
            Ok(new_string(ctx, text))
        }
        _ => Ok(fresh_list(ctx, items)),
    }
}

/// The distinct elements of `items` by `equal`, first occurrences kept, in order.
fn distinct(ctx: &mut PrimCtx<'_>, items: Vec<Value>) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::new();
    let mut work: u64 = 0;
    for item in items {
        let mut seen = false;
        for kept in &out {
            let (same, cost) = equal::equal_counting(&item, kept);
            work = work.saturating_add(cost.max(1));
            if same {
                seen = true;
                break;
            }
        }
        if !seen {
            out.push(item);
        }
    }
    ctx.charge(work);
    out
}

/// `(seq-uniq SEQUENCE)`: the distinct elements by `equal`, as a list.
pub(super) fn seq_uniq(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    super::alist::equal_testfn(ctx, "seq-uniq", arg(args, 1))?;
    let items = elements(ctx, arg(args, 0))?;
    let kept = distinct(ctx, items);
    Ok(fresh_list(ctx, kept))
}

/// `(delete-dups LIST)`: the distinct elements by `equal`, first occurrences kept; a fresh
/// list (the argument is not changed).
pub(super) fn delete_dups(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let list = arg(args, 0);
    if !matches!(list, Value::Nil | Value::Cons(_)) {
        return Err(wrong_type(ctx, "listp", list));
    }
    let items = elements(ctx, list)?;
    let kept = distinct(ctx, items);
    Ok(fresh_list(ctx, kept))
}

/// `(remove ELT SEQUENCE)` and `(delete ELT SEQUENCE)`: the elements not `equal` to ELT, a
/// fresh sequence of the same type (neither changes its argument).
pub(super) fn remove(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let target = arg(args, 0);
    let sequence = arg(args, 1);
    let items = elements(ctx, sequence)?;
    let mut work: u64 = 0;
    let kept: Vec<Value> = items
        .into_iter()
        .filter(|item| {
            let (same, cost) = equal::equal_counting(target, item);
            work = work.saturating_add(cost);
            !same
        })
        .collect();
    ctx.charge(work);
    rebuild(ctx, sequence, kept)
}

/// `(copy-sequence SEQUENCE)`: a fresh copy of a list, vector or string.
pub(super) fn copy_sequence(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let sequence = arg(args, 0);
    let items = elements(ctx, sequence)?;
    rebuild(ctx, sequence, items)
}

/// `(vector &rest OBJECTS)`
pub(super) fn vector(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    ctx.charge(count_u64(args.len()));
    ctx.alloc(heap::vector(count_u64(args.len())));
    Ok(Value::vector(args.to_vec()))
}

/// `(vconcat &rest SEQUENCES)`: the elements of every sequence in one vector.
pub(super) fn vconcat(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let mut items = Vec::new();
    for sequence in args {
        items.extend(elements(ctx, sequence)?);
    }
    ctx.alloc(heap::vector(count_u64(items.len())));
    Ok(Value::vector(items))
}

/// The element at `index` of a vector or string (`aref`), or of a list too (`elt`).
fn element_at(
    ctx: &mut PrimCtx<'_>,
    sequence: &Value,
    index: &Value,
    lists: bool,
) -> Result<Value> {
    let n = int_arg(ctx, index, "integerp")?;
    match sequence {
        Value::Vector(vector) => usize::try_from(n)
            .ok()
            .and_then(|i| vector.items().get(i))
            .cloned()
            .ok_or_else(|| out_of_range(ctx, &[sequence, index])),
        Value::Str(text) => usize::try_from(n)
            .ok()
            .and_then(|i| text.as_str().chars().nth(i))
            .map(|c| Value::Int(i64::from(u32::from(c))))
            .ok_or_else(|| out_of_range(ctx, &[sequence, index])),
        Value::Nil | Value::Cons(_) if lists => {
            // Emacs `elt` on a list is `(car (nthcdr N LIST))`: nil past the end.
            let mut rest = sequence;
            let mut steps: u64 = 0;
            for _ in 0..n.max(0) {
                match rest {
                    Value::Cons(cell) => rest = cell.cdr(),
                    _ => break,
                }
                steps += 1;
            }
            ctx.charge(steps);
            match rest {
                Value::Cons(cell) => Ok(cell.car().clone()),
                Value::Nil => Ok(Value::Nil),
                other => Err(wrong_type(ctx, "listp", other)),
            }
        }
        other => Err(wrong_type(
            ctx,
            if lists { "sequencep" } else { "arrayp" },
            other,
        )),
    }
}

/// `(aref ARRAY IDX)`: vectors and strings.
pub(super) fn aref(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    element_at(ctx, arg(args, 0), arg(args, 1), false)
}

/// `(elt SEQUENCE N)`: lists, vectors and strings.
pub(super) fn elt(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    element_at(ctx, arg(args, 0), arg(args, 1), true)
}

/// `(flatten-tree TREE)`: the non-nil atoms of TREE, depth first, as one list. Iterative.
pub(super) fn flatten_tree(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let mut out = Vec::new();
    let mut stack = vec![arg(args, 0).clone()];
    let mut work: u64 = 0;
    while let Some(item) = stack.pop() {
        work = work.saturating_add(1);
        match item {
            Value::Nil => {}
            Value::Cons(cell) => {
                stack.push(cell.cdr().clone());
                stack.push(cell.car().clone());
            }
            atom => out.push(atom),
        }
    }
    ctx.charge(work);
    Ok(fresh_list(ctx, out))
}

/// `(string-to-list STRING)`: the characters of STRING as integers.
pub(super) fn string_to_list(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let string = arg(args, 0);
    if !matches!(string, Value::Str(_)) {
        return Err(wrong_type(ctx, "stringp", string));
    }
    let items = elements(ctx, string)?;
    Ok(fresh_list(ctx, items))
}

/// `(seq-position SEQUENCE ELT)`: the index of the first element `equal` to ELT, or nil.
pub(super) fn seq_position(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    super::alist::equal_testfn(ctx, "seq-position", arg(args, 2))?;
    let items = elements(ctx, arg(args, 0))?;
    let target = arg(args, 1);
    let mut work: u64 = 0;
    let found = items.iter().position(|item| {
        let (same, cost) = equal::equal_counting(target, item);
        work = work.saturating_add(cost);
        same
    });
    ctx.charge(work);
    Ok(found.map_or(Value::Nil, |i| {
        Value::Int(i64::try_from(i).unwrap_or(i64::MAX))
    }))
}

/// `(seq-contains-p SEQUENCE ELT)`: t when an element is `equal` to ELT.
pub(super) fn seq_contains_p(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let position = seq_position(ctx, args)?;
    Ok(Value::bool(!position.is_nil()))
}

/// `(seq-max SEQUENCE)` / `(seq-min SEQUENCE)`: `max`/`min` over the elements.
pub(super) fn seq_max(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let items = elements(ctx, arg(args, 0))?;
    if items.is_empty() {
        return Err(Error::script("Wrong number of arguments: max, 0"));
    }
    super::number::max(ctx, &items)
}

/// `(seq-min SEQUENCE)`
pub(super) fn seq_min(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let items = elements(ctx, arg(args, 0))?;
    if items.is_empty() {
        return Err(Error::script("Wrong number of arguments: min, 0"));
    }
    super::number::min(ctx, &items)
}

/// `(seq-first SEQUENCE)`: the first element (nil for an empty sequence).
pub(super) fn seq_first(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let zero = Value::Int(0);
    match arg(args, 0) {
        Value::Nil => Ok(Value::Nil),
        sequence => element_at(ctx, sequence, &zero, true),
    }
}

/// `(seq-rest SEQUENCE)`: all but the first element.
pub(super) fn seq_rest(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    match arg(args, 0) {
        Value::Cons(cell) => Ok(cell.cdr().clone()),
        Value::Nil => Ok(Value::Nil),
        sequence => {
            let items = elements(ctx, sequence)?;
            rebuild(ctx, sequence, items.into_iter().skip(1).collect())
        }
    }
}

/// `(seq-empty-p SEQUENCE)`
pub(super) fn seq_empty_p(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    Ok(Value::bool(match arg(args, 0) {
        Value::Nil => true,
        Value::Cons(_) => false,
        Value::Vector(vector) => vector.items().is_empty(),
        Value::Str(text) => text.as_str().is_empty(),
        other => return Err(wrong_type(ctx, "sequencep", other)),
    }))
}

fn integer_parity(ctx: &PrimCtx<'_>, value: &Value) -> Result<bool> {
    match value {
        Value::Int(n) => Ok(n % 2 == 0),
        Value::Big(n) => Ok(!n.bit(0)),
        other => Err(wrong_type(ctx, "integerp", other)),
    }
}

/// `(cl-evenp INTEGER)`
pub(super) fn cl_evenp(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    Ok(Value::bool(integer_parity(ctx, arg(args, 0))?))
}

/// `(cl-oddp INTEGER)`
pub(super) fn cl_oddp(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    Ok(Value::bool(!integer_parity(ctx, arg(args, 0))?))
}

/// `(zerop NUMBER)`
pub(super) fn zerop(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    Ok(Value::bool(match arg(args, 0) {
        Value::Int(n) => *n == 0,
        Value::Float(f) => *f == 0.0,
        Value::Big(_) => false,
        other => return Err(wrong_type(ctx, "numberp", other)),
    }))
}
