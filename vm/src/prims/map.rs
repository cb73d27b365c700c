//! map.el's accessors over hash tables, alists, plists and vectors (issue 46): `map-elt`,
//! `map-nested-elt`, `map-keys`, `map-values`, `map-put!`, `map-into`; and `delq`/`remq`.
//!
//! Emacs 28's map.el decides a list's kind as `map--plist-p` does: a list whose first
//! element is an atom is a plist (keys compared with `eq`), any other list an alist (keys
//! compared with `equal`, as `alist-get` with map.el's default test). Every walk is a loop
//! charged one fuel unit per element; fresh lists are charged to the retained budget.

use super::PrimCtx;
use crate::equal;
use crate::error::{Error, Result};
use crate::heap;
use crate::number::wrong_type;
use crate::value::Value;
use crate::value::table::{DEFAULT_SIZE, HashTable, Test};
use std::sync::Arc;

fn arg(args: &[Value], index: usize) -> &Value {
    args.get(index).unwrap_or(&Value::Nil)
}

/// map.el's `map--plist-p`: a cons whose car is an atom.
fn is_plist(map: &Value) -> bool {
    matches!(map, Value::Cons(cell) if !matches!(cell.car(), Value::Cons(_)))
}

/// The key/value pairs of MAP in map.el's order, one fuel unit per element.
fn pairs(ctx: &mut PrimCtx<'_>, map: &Value) -> Result<Vec<(Value, Value)>> {
    let out = match map {
        Value::Hash(table) => table.entries(),
        Value::Nil => Vec::new(),
        Value::Cons(_) if is_plist(map) => {
            let items: Vec<&Value> = map.iter().collect();
            items
                .chunks(2)
                .map(|pair| {
                    (
                        pair.first().map_or(Value::Nil, |v| (*v).clone()),
                        pair.get(1).map_or(Value::Nil, |v| (*v).clone()),
                    )
                })
                .collect()
        }
        Value::Cons(_) => map
            .iter()
            .map(|item| match item {
                Value::Cons(pair) => (pair.car().clone(), pair.cdr().clone()),
                other => (other.clone(), Value::Nil),
            })
            .collect(),
        Value::Vector(vector) => vector
            .items()
            .iter()
            .enumerate()
            .map(|(i, v)| (Value::Int(i64::try_from(i).unwrap_or(i64::MAX)), v.clone()))
            .collect(),
        other => return Err(wrong_type("mapp", other, &*ctx.symbols)),
    };
    ctx.charge(1 + out.len() as u64);
    Ok(out)
}

/// The value under KEY in MAP, if present.
fn lookup(ctx: &mut PrimCtx<'_>, map: &Value, key: &Value) -> Result<Option<Value>> {
    Ok(match map {
        Value::Hash(table) => {
            ctx.charge(key.weight().nodes.max(1));
            table.get(key)
        }
        Value::Vector(vector) => {
            ctx.charge(1);
            match key {
                Value::Int(i) => usize::try_from(*i)
                    .ok()
                    .and_then(|i| vector.items().get(i).cloned()),
                _ => None,
            }
        }
        Value::Nil => None,
        Value::Cons(_) if is_plist(map) => {
            let mut rest = map;
            let mut found = None;
            while let Value::Cons(cell) = rest {
                ctx.charge(1);
                let Value::Cons(next) = cell.cdr() else { break };
                if equal::eq(cell.car(), key) {
                    found = Some(next.car().clone());
                    break;
                }
                rest = next.cdr();
            }
            found
        }
        Value::Cons(_) => {
            let mut found = None;
            for item in map.iter() {
                ctx.charge(1);
                if let Value::Cons(pair) = item {
                    let (same, work) = equal::equal_counting(pair.car(), key);
                    ctx.charge(work);
                    if same {
                        found = Some(pair.cdr().clone());
                        break;
                    }
                }
            }
            found
        }
        other => return Err(wrong_type("mapp", other, &*ctx.symbols)),
    })
}

/// `(map-elt MAP KEY &optional DEFAULT)`
pub(super) fn map_elt(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    Ok(lookup(ctx, arg(args, 0), arg(args, 1))?.unwrap_or_else(|| arg(args, 2).clone()))
}

/// `(map-nested-elt MAP KEYS &optional DEFAULT)`: `map-elt` down the path KEYS.
pub(super) fn map_nested_elt(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let mut current = arg(args, 0).clone();
    for key in arg(args, 1).iter() {
        match current {
            Value::Nil | Value::Cons(_) | Value::Vector(_) | Value::Hash(_) => {}
            _ => return Ok(arg(args, 2).clone()),
        }
        match lookup(ctx, &current, key)? {
            Some(next) => current = next,
            None => return Ok(arg(args, 2).clone()),
        }
    }
    Ok(current)
}

/// The keys (`keys`) or the values of MAP as a fresh list.
fn listing(ctx: &mut PrimCtx<'_>, args: &[Value], keys: bool) -> Result<Value> {
    let pairs = pairs(ctx, arg(args, 0))?;
    ctx.alloc(heap::conses(pairs.len() as u64));
    Ok(Value::list(
        pairs
            .into_iter()
            .map(|(k, v)| if keys { k } else { v })
            .collect::<Vec<_>>(),
    ))
}

/// `(map-keys MAP)`
pub(super) fn map_keys(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    listing(ctx, args, true)
}

/// `(map-values MAP)`
pub(super) fn map_values(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    listing(ctx, args, false)
}

/// `(map-put! MAP KEY VALUE)`: in place, on a hash table only (lists are immutable:
/// Emacs's `map-not-inplace` error, as Emacs gives for a list without the key).
pub(super) fn map_put(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    match arg(args, 0) {
        Value::Hash(_) => {
            let put = [
                arg(args, 1).clone(),
                arg(args, 2).clone(),
                arg(args, 0).clone(),
            ];
            super::hash::puthash(ctx, &put)
        }
        other => Err(Error::signal(
            "map-not-inplace",
            Value::list([other.clone()]),
            format!(
                "Cannot modify map in-place: {} (ptc changes only hash tables in place; use (setf (alist-get ...)) or rebuild the list)",
                super::string::prin1(ctx, other)
            ),
        )),
    }
}

/// `(map-into MAP TYPE)`: MAP's pairs as an `alist`, a `plist` or a `hash-table` (TYPE
/// `(hash-table :test TEST)` chooses the test; the default is `equal`, as map.el's; the
/// printed size is Emacs 28's).
pub(super) fn map_into(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let kind = arg(args, 1);
    let type_name = |value: &Value, ctx: &PrimCtx<'_>| match value {
        Value::Sym(symbol) => ctx.symbols.name(*symbol).to_owned(),
        _ => String::new(),
    };
    let (name, options) = match kind {
        Value::Cons(cell) => (type_name(cell.car(), ctx), cell.cdr().clone()),
        other => (type_name(other, ctx), Value::Nil),
    };
    let pairs = pairs(ctx, arg(args, 0))?;
    let count = pairs.len() as u64;
    match name.as_str() {
        "list" | "alist" => {
            ctx.alloc(heap::conses(count.saturating_mul(2)));
            Ok(Value::list(
                pairs
                    .into_iter()
                    .map(|(k, v)| Value::cons(k, v))
                    .collect::<Vec<_>>(),
            ))
        }
        "plist" => {
            ctx.alloc(heap::conses(count.saturating_mul(2)));
            Ok(Value::list(
                pairs
                    .into_iter()
                    .flat_map(|(k, v)| [k, v])
                    .collect::<Vec<_>>(),
            ))
        }
        "hash-table" => {
            let mut test = Test::Equal;
            let options: Vec<&Value> = options.iter().collect();
            for pair in options.chunks(2) {
                if let [Value::Sym(key), Value::Sym(value)] = pair
                    && ctx.symbols.name(*key) == ":test"
                {
                    test = match ctx.symbols.name(*value) {
                        "eq" => Test::Eq,
                        "eql" => Test::Eql,
                        _ => Test::Equal,
                    };
                }
            }
            ctx.alloc(heap::TABLE);
            // Emacs 28 sizes the table by MAP's length for a bare `hash-table`, and leaves
            // the default when TYPE carries arguments.
            let size = if options.is_empty() {
                count
            } else {
                DEFAULT_SIZE
            };
            let table = Arc::new(HashTable::new(test, size));
            let value = Value::Hash(Arc::clone(&table));
            for (k, v) in pairs {
                let put = [k, v, value.clone()];
                super::hash::puthash(ctx, &put)?;
            }
            Ok(value)
        }
        _ => Err(Error::script(format!(
            "map-into: unknown map type {} (ptc knows alist, plist and hash-table)",
            super::string::prin1(ctx, kind)
        ))),
    }
}

/// `(delq ELT LIST)` and `(remq ELT LIST)`: the elements of LIST not `eq` to ELT, a fresh
/// list (`delq` does not change LIST: deviation 41).
pub(super) fn delq(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let target = arg(args, 0);
    let list = arg(args, 1);
    let mut kept = Vec::new();
    let mut visited: u64 = 0;
    let mut items = list.iter();
    for item in items.by_ref() {
        visited += 1;
        if !equal::eq(target, item) {
            kept.push(item.clone());
        }
    }
    if !items.rest().is_nil() {
        return Err(wrong_type("listp", list, &*ctx.symbols));
    }
    ctx.charge(1 + visited);
    ctx.alloc(heap::conses(kept.len() as u64));
    Ok(Value::list(kept))
}
