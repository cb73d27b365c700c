//! The hash-table primitives (issue 46): `make-hash-table`, `gethash`, `puthash`, `remhash`,
//! `clrhash`, `hash-table-count`, `hash-table-keys`, `hash-table-values`, `hash-table-p`,
//! `copy-hash-table`. (`maphash` calls a function, so it is a transformer over
//! `hash-table-keys` and `gethash`, compiler/src/sugar.rs.)
//!
//! Semantics are Emacs 28's ([`crate::value::table`] keeps the entry order and the printed
//! size). What the budgets see (spec/reference/budgets.md, "Mutable data"):
//! - `make-hash-table` charges [`heap::TABLE`] retained bytes; every `puthash` of a new key
//!   charges [`heap::TABLE_ENTRY`] more (the key and value were charged when they were
//!   built), so filling, emptying and refilling a table keeps charging: retained bytes are
//!   never given back.
//! - `puthash` refuses (kind `value`) to grow a table's live weight past the value budget,
//!   and refuses a key or value that holds the table itself (tables stay acyclic).
//! - Fuel: one unit per call plus the key's node count (hashing and comparing it), and one
//!   per entry for the primitives that copy or list entries.

use super::PrimCtx;
use crate::error::{Error, ErrorKind, Result};
use crate::heap;
use crate::json::check_weight;
use crate::number::wrong_type;
use crate::value::Value;
use crate::value::table::{DEFAULT_SIZE, HashTable, Put, Test};
use std::sync::Arc;

fn arg(args: &[Value], index: usize) -> &Value {
    args.get(index).unwrap_or(&Value::Nil)
}

/// The table argument, or Emacs's `(wrong-type-argument hash-table-p X)`.
fn table_arg<'v>(ctx: &PrimCtx<'_>, value: &'v Value) -> Result<&'v Arc<HashTable>> {
    match value {
        Value::Hash(table) => Ok(table),
        other => Err(wrong_type("hash-table-p", other, &*ctx.symbols)),
    }
}

/// Fuel for hashing and comparing `key`: its node count, at least one.
fn key_work(key: &Value) -> u64 {
    key.weight().nodes.max(1)
}

/// `(make-hash-table &rest KEYWORD-ARGS)`: `:test` (`eq`, `eql`, `equal`), `:size` (a
/// natural number or nil); `:weakness`, `:rehash-size`, `:rehash-threshold` and `:purecopy`
/// are accepted and ignored, as a script cannot observe them.
pub(super) fn make_hash_table(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    ctx.charge(1 + args.len() as u64);
    let mut test = Test::Eql;
    let mut size = DEFAULT_SIZE;
    let mut rest = args;
    while let [key, tail @ ..] = rest {
        let name = match key {
            Value::Sym(symbol) => ctx.symbols.name(*symbol).to_owned(),
            other => return Err(invalid_args(ctx, other)),
        };
        let Some((value, tail)) = tail.split_first() else {
            return Err(invalid_args(ctx, key));
        };
        match name.as_str() {
            ":test" => {
                test = match value {
                    Value::Sym(symbol) => match ctx.symbols.name(*symbol) {
                        "eq" => Test::Eq,
                        "eql" => Test::Eql,
                        "equal" => Test::Equal,
                        _ => return Err(invalid_test(ctx, value)),
                    },
                    Value::Nil => Test::Eql,
                    other => return Err(invalid_test(ctx, other)),
                }
            }
            ":size" => {
                size = match value {
                    Value::Nil => DEFAULT_SIZE,
                    Value::Int(n) if *n >= 0 => u64::try_from(*n).unwrap_or(0).min(1 << 32),
                    other => {
                        return Err(Error::script(format!(
                            "Invalid hash table size: {}",
                            super::string::prin1(ctx, other)
                        )));
                    }
                }
            }
            ":weakness" | ":rehash-size" | ":rehash-threshold" | ":purecopy" => {}
            _ => return Err(invalid_args(ctx, key)),
        }
        rest = tail;
    }
    ctx.alloc(heap::TABLE);
    Ok(Value::Hash(Arc::new(HashTable::new(test, size))))
}

fn invalid_args(ctx: &PrimCtx<'_>, value: &Value) -> Error {
    Error::script(format!(
        "Invalid argument list: {}",
        super::string::prin1(ctx, value)
    ))
}

fn invalid_test(ctx: &PrimCtx<'_>, value: &Value) -> Error {
    Error::script(format!(
        "Invalid hash table test: {} (ptc knows eq, eql and equal)",
        super::string::prin1(ctx, value)
    ))
}

/// `(gethash KEY TABLE &optional DFLT)`
pub(super) fn gethash(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let key = arg(args, 0);
    let table = table_arg(ctx, arg(args, 1))?;
    ctx.charge(key_work(key));
    Ok(table.get(key).unwrap_or_else(|| arg(args, 2).clone()))
}

/// `(puthash KEY VALUE TABLE)`: VALUE.
pub(super) fn puthash(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let (key, value) = (arg(args, 0), arg(args, 1));
    let table = table_arg(ctx, arg(args, 2))?;
    ctx.charge(key_work(key));
    for item in [key, value] {
        let (cycle, work) = table.reaches(item);
        ctx.charge(work);
        if cycle {
            return Err(Error::new(
                ErrorKind::Value,
                "A hash table cannot hold itself (ptc keeps data acyclic); store a key that names it instead",
            ));
        }
    }
    let after = table.weight_after_put(key, value);
    check_weight(after, ctx.limits).map_err(|e| {
        Error::new(
            ErrorKind::Value,
            format!(
                "puthash: the hash table would pass the value budget: {}",
                e.message()
            ),
        )
    })?;
    match table.put(key.clone(), value.clone()) {
        Put::Added => ctx.alloc(heap::TABLE_ENTRY),
        // Dropped here, outside the table's lock.
        Put::Replaced(old) => drop(old),
    }
    Ok(value.clone())
}

/// `(remhash KEY TABLE)`: nil.
pub(super) fn remhash(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let key = arg(args, 0);
    let table = table_arg(ctx, arg(args, 1))?;
    ctx.charge(key_work(key));
    drop(table.remove(key));
    Ok(Value::Nil)
}

/// `(clrhash TABLE)`: TABLE.
pub(super) fn clrhash(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let table = table_arg(ctx, arg(args, 0))?;
    let entries = table.clear();
    ctx.charge(1 + entries.len() as u64);
    drop(entries);
    Ok(arg(args, 0).clone())
}

/// `(hash-table-count TABLE)`
pub(super) fn hash_table_count(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let table = table_arg(ctx, arg(args, 0))?;
    Ok(Value::Int(i64::try_from(table.count()).unwrap_or(i64::MAX)))
}

/// `(hash-table-p OBJECT)`
pub(super) fn hash_table_p(_ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    Ok(Value::bool(matches!(arg(args, 0), Value::Hash(_))))
}

/// The keys (`keys`) or values of TABLE as a fresh list, in entry order.
fn listing(ctx: &mut PrimCtx<'_>, args: &[Value], keys: bool) -> Result<Value> {
    let table = table_arg(ctx, arg(args, 0))?;
    let entries = table.entries();
    let count = entries.len() as u64;
    ctx.charge(1 + count);
    ctx.alloc(heap::conses(count));
    Ok(Value::list(
        entries
            .into_iter()
            .map(|(k, v)| if keys { k } else { v })
            .collect::<Vec<_>>(),
    ))
}

/// `(hash-table-keys TABLE)`
pub(super) fn hash_table_keys(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    listing(ctx, args, true)
}

/// `(hash-table-values TABLE)`
pub(super) fn hash_table_values(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    listing(ctx, args, false)
}

/// `(copy-hash-table TABLE)`: a new table with the same entries (keys and values shared).
pub(super) fn copy_hash_table(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let table = table_arg(ctx, arg(args, 0))?;
    let count = table.count() as u64;
    ctx.charge(1 + count);
    ctx.alloc(heap::TABLE.saturating_add(count.saturating_mul(heap::TABLE_ENTRY)));
    Ok(Value::Hash(Arc::new(table.copy())))
}
