//! Fixed-arity fast paths for the hot small primitives (`nth`, `plist-get`, `assq`,
//! `memq`, `eq`, `equal`, `null`, `not`, `length`, `string=`), called by the machine before
//! the general path.
//!
//! A fast path needs no [`super::PrimCtx`]: it runs only on the argument shapes it
//! handles and otherwise returns `None`, and then the general path runs the primitive from
//! the start (a fast path has no side effect, so nothing is done twice that shows). Where
//! it runs, it computes exactly what the general primitive computes, with the same work.
//!
//! Invariants the machine relies on (see `call_primitive`): a fast path allocates nothing,
//! and its result is `nil`, `t`, a fixnum, or a part of one of its arguments. The
//! arguments were checked against the value budget before it ran, so a result that is a
//! part of an argument is within the budget too (its weight is at most the argument
//! list's); `t` and fixnums are still checked by the machine.

use super::string::text_units;
use crate::equal;
use crate::value::Value;

/// Indices in [`super::PRIMITIVES`] of the primitives with a fast path, pinned by a test.
pub(crate) mod index {
    /// `length`
    pub const LENGTH: usize = 9;
    /// `nth`
    pub const NTH: usize = 10;
    /// `memq`
    pub const MEMQ: usize = 17;
    /// `assq`
    pub const ASSQ: usize = 19;
    /// `plist-get`
    pub const PLIST_GET: usize = 20;
    /// `eq`
    pub const EQ: usize = 64;
    /// `equal`
    pub const EQUAL: usize = 66;
    /// `null`
    pub const NULL: usize = 67;
    /// `not`
    pub const NOT: usize = 68;
    /// `string=`
    pub const STRING_EQ: usize = 116;
    /// `string-equal`
    pub const STRING_EQUAL: usize = 117;
}

/// The result and the work of primitive `index` on `args`, when a fast path handles them.
#[inline(always)]
pub(crate) fn call(index: usize, args: &[Value]) -> Option<(Value, u64)> {
    match args {
        [a] => call1(index, a),
        [a, b] => call2(index, a, b),
        _ => None,
    }
}

/// [`call`] for one argument borrowed from wherever it lives.
#[inline(always)]
pub(crate) fn call1(index: usize, a: &Value) -> Option<(Value, u64)> {
    match (index, a) {
        (index::NULL | index::NOT, a) => Some((Value::bool(a.is_nil()), 0)),
        (index::LENGTH, Value::Str(text)) => Some((count(text.char_len()), 0)),
        (index::LENGTH, Value::Vector(vector)) => Some((count(vector.items().len()), 0)),
        (index::LENGTH, Value::Nil) => Some((Value::Int(0), 0)),
        (index::LENGTH, list @ Value::Cons(_)) => {
            let mut walk = list.iter();
            let n = walk.by_ref().count();
            walk.rest().is_nil().then(|| (count(n), n as u64))
        }
        _ => None,
    }
}

/// [`call`] for two arguments borrowed from wherever they live.
#[inline(always)]
pub(crate) fn call2(index: usize, a: &Value, b: &Value) -> Option<(Value, u64)> {
    match (index, a, b) {
        (index::PLIST_GET, plist, property) => {
            let (found, work) = with_eq_test!(property, |test| plist_find(plist, test));
            Some((found.cloned().unwrap_or(Value::Nil), work))
        }
        (index::ASSQ, key, alist) => with_eq_test!(key, |test| assq(alist, test)),
        (index::MEMQ, element, list) => with_eq_test!(element, |test| memq(list, test)),
        (index::NTH, Value::Int(n), list) => nth(*n, list),
        (index::EQ, a, b) => Some((Value::bool(equal::eq(a, b)), 0)),
        (index::EQUAL, a, b) => {
            let (same, work) =
                equal::equal_atoms_counting(a, b).unwrap_or_else(|| equal::equal_counting(a, b));
            Some((Value::bool(same), work))
        }
        (index::STRING_EQ | index::STRING_EQUAL, Value::Str(a), Value::Str(b)) => {
            let (a, b) = (a.as_str(), b.as_str());
            Some((Value::bool(a == b), text_units(a.len().min(b.len()))))
        }
        _ => None,
    }
}

fn count(n: usize) -> Value {
    Value::Int(i64::try_from(n).unwrap_or(i64::MAX))
}

/// The value after the first property of `plist` that satisfies `test`, and the pairs
/// visited (the work); a malformed tail ends the walk (`plist-get` never signals).
#[inline(always)]
pub(super) fn plist_find(plist: &Value, test: impl Fn(&Value) -> bool) -> (Option<&Value>, u64) {
    let mut rest = plist;
    let mut work: u64 = 0;
    while let Value::Cons(cell) = rest {
        work += 1;
        let Value::Cons(value_cell) = cell.cdr() else {
            break;
        };
        if test(cell.car()) {
            return (Some(value_cell.car()), work);
        }
        rest = value_cell.cdr();
    }
    (None, work)
}

/// `assq` on a proper alist; `None` for an improper one (the general path signals).
#[inline(always)]
fn assq(alist: &Value, test: impl Fn(&Value) -> bool) -> Option<(Value, u64)> {
    let mut rest = alist;
    let mut work: u64 = 0;
    while let Value::Cons(cell) = rest {
        work += 1;
        if let Value::Cons(pair) = cell.car()
            && test(pair.car())
        {
            return Some((cell.car().clone(), work));
        }
        rest = cell.cdr();
    }
    rest.is_nil().then_some((Value::Nil, work))
}

/// `memq` on a proper list; `None` for an improper one (the general path signals).
#[inline(always)]
fn memq(list: &Value, test: impl Fn(&Value) -> bool) -> Option<(Value, u64)> {
    let mut rest = list;
    let mut work: u64 = 0;
    while let Value::Cons(cell) = rest {
        work += 1;
        if test(cell.car()) {
            return Some((rest.clone(), work));
        }
        rest = cell.cdr();
    }
    rest.is_nil().then_some((Value::Nil, work))
}

/// `(nth N LIST)` for a fixnum N: `(car (nthcdr N LIST))`; `None` when the walk meets an
/// atom other than nil (the general path signals).
#[inline(always)]
fn nth(n: i64, list: &Value) -> Option<(Value, u64)> {
    // A negative N is nthcdr's "the list itself", then its car.
    let count = u64::try_from(n).unwrap_or(0);
    let mut rest = list;
    let mut visited: u64 = 0;
    while visited < count {
        match rest {
            Value::Cons(cell) => rest = cell.cdr(),
            Value::Nil => break,
            _ => return None,
        }
        visited += 1;
    }
    match rest {
        Value::Nil => Some((Value::Nil, visited)),
        Value::Cons(cell) => Some((cell.car().clone(), visited)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prims::lookup;

    #[test]
    fn fast_path_indices_name_their_primitives() {
        for (i, name) in [
            (index::LENGTH, "length"),
            (index::NTH, "nth"),
            (index::MEMQ, "memq"),
            (index::ASSQ, "assq"),
            (index::PLIST_GET, "plist-get"),
            (index::EQ, "eq"),
            (index::EQUAL, "equal"),
            (index::NULL, "null"),
            (index::NOT, "not"),
            (index::STRING_EQ, "string="),
            (index::STRING_EQUAL, "string-equal"),
        ] {
            assert_eq!(lookup(name), Some(i), "{name}");
        }
    }
}
