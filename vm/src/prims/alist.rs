//! Association-list and property-list primitives beside `assoc`/`plist-get` (issue 18):
//! `alist-get`, `assoc-default`, `rassoc`, `rassq`, `assoc-delete-all`, `plist-put`.
//!
//! Invariants: nothing here mutates an argument. `plist-put` returns a fresh plist with
//! the property set (replaced in place when present, appended at the end when not, as
//! Emacs does), so `(setq p (plist-put p :k v))` — the idiom models use — works exactly as
//! in Emacs, while other bindings of the old plist keep seeing the old value (Emacs would
//! have changed a shared plist in place; ptc values are immutable, deviation 41).
//!
//! A TESTFN argument must be nil or name one of the pure equality primitives (`eq`, `eql`,
//! `equal`, `string=`, `string-equal`), given as `'f` or `#'f`: a guest function cannot be
//! called from inside a primitive. Work: one unit per element visited plus the comparison
//! work of `equal`; fresh conses are allocated.

use super::PrimCtx;
use super::string::wrong_type;
use crate::equal;
use crate::error::{Error, Result};
use crate::heap;
use crate::value::Value;

fn arg(args: &[Value], index: usize) -> &Value {
    args.get(index).unwrap_or(&Value::Nil)
}

/// The equality a TESTFN names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Test {
    Eq,
    Eql,
    Equal,
    StringEqual,
}

impl Test {
    pub(super) fn holds(self, a: &Value, b: &Value, work: &mut u64) -> bool {
        *work = work.saturating_add(1);
        match self {
            Test::Eq => equal::eq(a, b),
            Test::Eql => equal::eql(a, b),
            Test::Equal => {
                let (same, cost) = equal::equal_counting(a, b);
                *work = work.saturating_add(cost);
                same
            }
            Test::StringEqual => match (text_of(a), text_of(b)) {
                (Some(x), Some(y)) => x == y,
                _ => false,
            },
        }
    }
}

/// A string's text or a symbol's name is what `string=` compares; here only strings.
fn text_of(value: &Value) -> Option<&str> {
    value.as_str()
}

/// The test TESTFN names; nil gives `default`.
pub(super) fn test_fn(ctx: &PrimCtx<'_>, who: &str, value: &Value, default: Test) -> Result<Test> {
    match value {
        Value::Nil => Ok(default),
        Value::Sym(symbol) => match ctx.symbols.name(*symbol) {
            "eq" => Ok(Test::Eq),
            "eql" => Ok(Test::Eql),
            "equal" => Ok(Test::Equal),
            "string=" | "string-equal" => Ok(Test::StringEqual),
            other => Err(Error::script(format!(
                "'{who}': TESTFN must be one of eq, eql, equal, string=, not {other}; a guest function cannot be called from a primitive"
            ))),
        },
        _ => Err(Error::script(format!(
            "'{who}': TESTFN must be one of eq, eql, equal, string=; a guest function cannot be called from a primitive"
        ))),
    }
}

/// A TESTFN that may only be nil or `equal` (the sequence functions' default).
pub(super) fn equal_testfn(ctx: &PrimCtx<'_>, who: &str, value: &Value) -> Result<()> {
    match test_fn(ctx, who, value, Test::Equal)? {
        Test::Equal => Ok(()),
        _ => Err(Error::script(format!(
            "'{who}': only the default TESTFN (equal) is supported"
        ))),
    }
}

/// The first cons element of `alist` whose car (or cdr, `by_cdr`) matches `key`.
fn find(
    ctx: &mut PrimCtx<'_>,
    alist: &Value,
    key: &Value,
    test: Test,
    by_cdr: bool,
) -> Result<Option<Value>> {
    let mut rest = alist;
    let mut work: u64 = 0;
    while let Value::Cons(cell) = rest {
        if let Value::Cons(pair) = cell.car() {
            let candidate = if by_cdr { pair.cdr() } else { pair.car() };
            if test.holds(key, candidate, &mut work) {
                ctx.charge(work);
                return Ok(Some(cell.car().clone()));
            }
        } else {
            work = work.saturating_add(1);
        }
        rest = cell.cdr();
    }
    ctx.charge(work);
    if rest.is_nil() {
        Ok(None)
    } else {
        Err(wrong_type(ctx, "listp", alist))
    }
}

fn cdr_of(pair: &Value) -> Value {
    match pair {
        Value::Cons(cell) => cell.cdr().clone(),
        _ => Value::Nil,
    }
}

/// `(alist-get KEY ALIST &optional DEFAULT REMOVE TESTFN)`: the cdr of the first pair whose
/// car matches KEY (`eq` unless TESTFN), else DEFAULT. REMOVE only matters to `setf`.
pub(super) fn alist_get(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let test = test_fn(ctx, "alist-get", arg(args, 4), Test::Eq)?;
    Ok(match find(ctx, arg(args, 1), arg(args, 0), test, false)? {
        Some(pair) => cdr_of(&pair),
        None => arg(args, 2).clone(),
    })
}

/// `(assoc-default KEY ALIST &optional TEST DEFAULT)`: the cdr of the first element whose
/// car is `equal` to KEY (an atom element equal to KEY gives DEFAULT).
pub(super) fn assoc_default(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let test = test_fn(ctx, "assoc-default", arg(args, 2), Test::Equal)?;
    let key = arg(args, 0);
    let mut rest = arg(args, 1);
    let mut work: u64 = 0;
    while let Value::Cons(cell) = rest {
        let element = cell.car();
        let (candidate, value) = match element {
            Value::Cons(pair) => (pair.car(), pair.cdr().clone()),
            atom => (atom, arg(args, 3).clone()),
        };
        if test.holds(key, candidate, &mut work) {
            ctx.charge(work);
            return Ok(value);
        }
        rest = cell.cdr();
    }
    ctx.charge(work);
    Ok(Value::Nil)
}

/// `(rassoc KEY ALIST)`: the first pair whose cdr is `equal` to KEY.
pub(super) fn rassoc(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    Ok(find(ctx, arg(args, 1), arg(args, 0), Test::Equal, true)?.unwrap_or(Value::Nil))
}

/// `(rassq KEY ALIST)`: the first pair whose cdr is `eq` to KEY.
pub(super) fn rassq(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    Ok(find(ctx, arg(args, 1), arg(args, 0), Test::Eq, true)?.unwrap_or(Value::Nil))
}

/// `(assoc-delete-all KEY ALIST &optional TEST)`: ALIST without the pairs whose car
/// matches KEY (`equal` unless TEST), a fresh list.
pub(super) fn assoc_delete_all(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let test = test_fn(ctx, "assoc-delete-all", arg(args, 2), Test::Equal)?;
    let key = arg(args, 0);
    let alist = arg(args, 1);
    let mut kept = Vec::new();
    let mut work: u64 = 0;
    let mut walk = alist.iter();
    for element in walk.by_ref() {
        let drop = match element {
            Value::Cons(pair) => test.holds(key, pair.car(), &mut work),
            _ => false,
        };
        if !drop {
            kept.push(element.clone());
        }
    }
    ctx.charge(work);
    if !walk.rest().is_nil() {
        return Err(wrong_type(ctx, "listp", alist));
    }
    ctx.alloc(heap::conses(u64::try_from(kept.len()).unwrap_or(u64::MAX)));
    Ok(Value::list(kept))
}

/// `(plist-put PLIST PROP VAL &optional PREDICATE)`: a fresh plist with PROP set to VAL —
/// replaced where PROP first occurs (`eq`), else appended. PLIST itself is not changed.
pub(super) fn plist_put(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let test = test_fn(ctx, "plist-put", arg(args, 3), Test::Eq)?;
    let plist = arg(args, 0);
    let property = arg(args, 1);
    let value = arg(args, 2);
    let mut items: Vec<Value> = Vec::new();
    let mut rest = plist;
    let mut work: u64 = 0;
    let mut replaced = false;
    while let Value::Cons(cell) = rest {
        let Value::Cons(value_cell) = cell.cdr() else {
            return Err(wrong_type(ctx, "plistp", plist));
        };
        let key = cell.car();
        items.push(key.clone());
        if !replaced && test.holds(key, property, &mut work) {
            items.push(value.clone());
            replaced = true;
        } else {
            items.push(value_cell.car().clone());
        }
        rest = value_cell.cdr();
    }
    ctx.charge(work.saturating_add(1));
    if !rest.is_nil() {
        return Err(wrong_type(ctx, "plistp", plist));
    }
    if !replaced {
        items.push(property.clone());
        items.push(value.clone());
    }
    ctx.alloc(heap::conses(u64::try_from(items.len()).unwrap_or(u64::MAX)));
    Ok(Value::list(items))
}
