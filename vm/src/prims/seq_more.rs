//! Issue 46's set and search functions over sequences that take no function argument:
//! `seq-difference`, `seq-intersection`, `seq-union` (`equal`, Emacs 28's seq.el),
//! `seq-partition`, and cl-lib's `cl-find`, `cl-position`, `cl-count`, `cl-remove` and
//! `cl-set-difference` (`eql`, no keyword arguments: a primitive cannot call a `:key` or
//! `:test` function). Results are fresh lists (a vector argument to `seq-partition` gives
//! vectors). Comparisons charge the pairs they visit, so the quadratic set functions cost
//! what they do.

use super::PrimCtx;
use super::seq::elements;
use crate::equal;
use crate::error::Result;
use crate::heap;
use crate::value::Value;

fn arg(args: &[Value], index: usize) -> &Value {
    args.get(index).unwrap_or(&Value::Nil)
}

/// Whether `item` is in `items` by `equal` (`eql` when `eql` is set), charging the work.
fn contains(ctx: &mut PrimCtx<'_>, items: &[Value], item: &Value, eql: bool) -> bool {
    for other in items {
        if eql {
            ctx.charge(1);
            if equal::eql(other, item) {
                return true;
            }
        } else {
            let (same, work) = equal::equal_counting(other, item);
            ctx.charge(work);
            if same {
                return true;
            }
        }
    }
    false
}

fn fresh_list(ctx: &mut PrimCtx<'_>, items: Vec<Value>) -> Value {
    ctx.alloc(heap::conses(items.len() as u64));
    Value::list(items)
}

/// The elements of the first sequence kept (`keep_found`) or dropped when they are in the
/// second.
fn filter_by(ctx: &mut PrimCtx<'_>, args: &[Value], keep_found: bool, eql: bool) -> Result<Value> {
    let first = elements(ctx, arg(args, 0))?;
    let second = elements(ctx, arg(args, 1))?;
    let mut kept = Vec::new();
    for item in first {
        if contains(ctx, &second, &item, eql) == keep_found {
            kept.push(item);
        }
    }
    Ok(fresh_list(ctx, kept))
}

/// `(seq-difference SEQUENCE1 SEQUENCE2)`
pub(super) fn seq_difference(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    filter_by(ctx, args, false, false)
}

/// `(seq-intersection SEQUENCE1 SEQUENCE2)`
pub(super) fn seq_intersection(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    filter_by(ctx, args, true, false)
}

/// `(cl-set-difference LIST1 LIST2)`: `eql`, LIST1's order.
pub(super) fn cl_set_difference(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    filter_by(ctx, args, false, true)
}

/// `(seq-union SEQUENCE1 SEQUENCE2)`: the distinct elements of both, in order.
pub(super) fn seq_union(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let mut all = elements(ctx, arg(args, 0))?;
    all.extend(elements(ctx, arg(args, 1))?);
    let mut out: Vec<Value> = Vec::new();
    for item in all {
        if !contains(ctx, &out, &item, false) {
            out.push(item);
        }
    }
    Ok(fresh_list(ctx, out))
}

/// `(seq-partition SEQUENCE N)`: consecutive chunks of N elements (the last may be
/// shorter); nil when N ≤ 0. Chunks of a vector are vectors, of a string strings.
pub(super) fn seq_partition(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let sequence = arg(args, 0);
    let n = match arg(args, 1) {
        Value::Int(n) => *n,
        other => return Err(crate::number::wrong_type("integerp", other, &*ctx.symbols)),
    };
    let items = elements(ctx, sequence)?;
    let Ok(size) = usize::try_from(n) else {
        return Ok(Value::Nil);
    };
    if size == 0 {
        return Ok(Value::Nil);
    }
    let mut chunks = Vec::new();
    for chunk in items.chunks(size) {
        let part = match sequence {
            Value::Vector(_) => {
                ctx.alloc(heap::vector(chunk.len() as u64));
                Value::vector(chunk.to_vec())
            }
            Value::Str(_) => {
                let text: String = chunk
                    .iter()
                    .filter_map(|c| match c {
                        Value::Int(c) => u32::try_from(*c).ok().and_then(char::from_u32),
                        _ => None,
                    })
                    .collect();
                ctx.alloc(heap::string(text.len() as u64));
                Value::string(text)
            }
            _ => fresh_list(ctx, chunk.to_vec()),
        };
        chunks.push(part);
    }
    Ok(fresh_list(ctx, chunks))
}

/// The index of the first element of SEQUENCE `eql` to ITEM.
fn position(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<(Vec<Value>, Option<usize>)> {
    let item = arg(args, 0);
    let items = elements(ctx, arg(args, 1))?;
    let found = items.iter().position(|other| equal::eql(item, other));
    ctx.charge(found.map_or(items.len(), |i| i + 1) as u64);
    Ok((items, found))
}

/// `(cl-find ITEM SEQUENCE)`: the element `eql` to ITEM, else nil.
pub(super) fn cl_find(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let (items, found) = position(ctx, args)?;
    Ok(found
        .and_then(|i| items.get(i).cloned())
        .unwrap_or(Value::Nil))
}

/// `(cl-position ITEM SEQUENCE)`: the index of the first element `eql` to ITEM, else nil.
pub(super) fn cl_position(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let (_, found) = position(ctx, args)?;
    Ok(found.map_or(Value::Nil, |i| {
        Value::Int(i64::try_from(i).unwrap_or(i64::MAX))
    }))
}

/// `(cl-count ITEM SEQUENCE)`: how many elements are `eql` to ITEM.
pub(super) fn cl_count(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let item = arg(args, 0);
    let items = elements(ctx, arg(args, 1))?;
    ctx.charge(items.len() as u64);
    let count = items.iter().filter(|other| equal::eql(item, other)).count();
    Ok(Value::Int(i64::try_from(count).unwrap_or(i64::MAX)))
}

/// `(cl-remove ITEM SEQUENCE)`: the elements not `eql` to ITEM, a fresh list (a list
/// argument; vectors and strings give lists too: deviation 42's rule).
pub(super) fn cl_remove(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let item = arg(args, 0);
    let items = elements(ctx, arg(args, 1))?;
    ctx.charge(items.len() as u64);
    let kept: Vec<Value> = items
        .into_iter()
        .filter(|other| !equal::eql(item, other))
        .collect();
    Ok(fresh_list(ctx, kept))
}
