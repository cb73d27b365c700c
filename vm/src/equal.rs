//! Equality (`eq`, `eql`, `equal`) and the total-ish ordering `value<` used by `sort`.
//!
//! The VM calls these directly for its fast paths; the primitives wrap them.
//!
//! Semantics, and where they differ from Emacs:
//! - `eq`: `nil`, `t`, symbols and 64-bit integers by value; strings, conses, vectors and
//!   closures by identity (the same allocation). Floats and big integers have no object
//!   identity in this VM (they are immediates or shared immutable numbers), so `eq` on them
//!   is `eql`: `(eq 1.0 1.0)` is `t` here, `nil` in Emacs, and `(eq BIG BIG)` for equal
//!   big integers is `t` here, usually `nil` in Emacs. Scripts that relied on that `nil`
//!   were relying on an allocation accident.
//! - `eql`: `eq`, with numbers compared by type and value; floats by bit pattern, so
//!   `(eql 0.0 -0.0)` is `nil` and a NaN is `eql` to the same NaN. Identical to `eq` here.
//! - `equal`: structural; strings by content, conses and vectors element-wise, numbers as
//!   `eql`, closures and hash tables by identity (as Emacs compares hash tables).
//! - `value<` (Emacs 30): numbers numerically (a NaN is neither less nor greater), strings
//!   and symbols by name (code-point order), `nil` before any cons, lists and vectors
//!   lexicographically (a proper prefix first). Other pairs of types fail with Emacs's
//!   `type-mismatch` text "Types do not match: A, B". Unlike Emacs there is no 200-level
//!   depth cap (the walk is iterative).
//!
//! Invariants: every walk uses an explicit stack, so 50 000-deep values never touch the host
//! stack; shared substructure is short-cut by identity; the work reported (pairs visited) is
//! bounded by the smaller operand's node count.

use crate::error::{Error, Result};
use crate::number::{self, Number};
use crate::print::{self, Style, SymbolNames};
use crate::value::Value;
use std::cmp::Ordering;
use std::sync::Arc;

/// `(eq A B)`: identity (see the module docs for numbers).
#[inline]
#[must_use]
pub fn eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Nil, Value::Nil) | (Value::T, Value::T) => true,
        (Value::Int(x), Value::Int(y)) => x == y,
        (Value::Float(x), Value::Float(y)) => x.to_bits() == y.to_bits(),
        (Value::Big(x), Value::Big(y)) => Arc::ptr_eq(x, y) || x == y,
        // Emacs has one empty string and one empty vector, so those are always `eq`.
        (Value::Str(x), Value::Str(y)) => {
            Arc::ptr_eq(x, y) || (x.as_str().is_empty() && y.as_str().is_empty())
        }
        (Value::Sym(x), Value::Sym(y)) => x == y,
        (Value::Cons(x), Value::Cons(y)) => Arc::ptr_eq(x, y),
        (Value::Vector(x), Value::Vector(y)) => {
            Arc::ptr_eq(x, y) || (x.items().is_empty() && y.items().is_empty())
        }
        (Value::Closure(x), Value::Closure(y)) => Arc::ptr_eq(x, y),
        (Value::Hash(x), Value::Hash(y)) => Arc::ptr_eq(x, y),
        _ => false,
    }
}

/// `(eql A B)`: `eq`, numbers by type and value (floats bitwise).
#[must_use]
pub fn eql(a: &Value, b: &Value) -> bool {
    eq(a, b)
}

/// `(equal A B)`: structural equality.
#[must_use]
pub fn equal(a: &Value, b: &Value) -> bool {
    equal_counting(a, b).0
}

/// [`equal_counting`] when neither value is a cons or a vector: the same answer and work
/// without the walk's set-up; `None` for containers. Two strings compare by length first.
#[inline(always)]
#[must_use]
pub fn equal_atoms_counting(a: &Value, b: &Value) -> Option<(bool, u64)> {
    match (a, b) {
        (Value::Cons(_) | Value::Vector(_), _) | (_, Value::Cons(_) | Value::Vector(_)) => None,
        (Value::Str(x), Value::Str(y)) if !eq(a, b) => {
            let (x, y) = (x.as_str(), y.as_str());
            let work = 1 + x.len() as u64 / 32;
            Some((x.len() == y.len() && x == y, work))
        }
        _ => Some((eq(a, b), 1)),
    }
}

/// `(equal A B)` and the work it took: one unit per pair of values visited plus one per 32
/// bytes of string content compared.
#[must_use]
pub fn equal_counting(a: &Value, b: &Value) -> (bool, u64) {
    let mut work: u64 = 0;
    // The pair in hand stays in a local, so comparing two atoms never allocates; the
    // stack holds only the pairs still to visit (cdrs, later vector elements).
    let mut stack: Vec<(&Value, &Value)> = Vec::new();
    let mut pair = (a, b);
    loop {
        let (a, b) = pair;
        work = work.saturating_add(1);
        if !eq(a, b) {
            match (a, b) {
                (Value::Str(x), Value::Str(y)) => {
                    work = work.saturating_add(x.as_str().len() as u64 / 32);
                    if x.as_str() != y.as_str() {
                        return (false, work);
                    }
                }
                (Value::Cons(x), Value::Cons(y)) => {
                    stack.push((x.cdr(), y.cdr()));
                    pair = (x.car(), y.car());
                    continue;
                }
                (Value::Vector(x), Value::Vector(y)) => {
                    if x.items().len() != y.items().len() {
                        return (false, work);
                    }
                    stack.extend(x.items().iter().zip(y.items()).rev());
                }
                _ => return (false, work),
            }
        }
        match stack.pop() {
            Some(next) => pair = next,
            None => return (true, work),
        }
    }
}

/// `(value< A B)`: whether `a` sorts before `b`.
pub fn value_less(a: &Value, b: &Value, names: &dyn SymbolNames) -> Result<bool> {
    let mut work = 0;
    Ok(value_compare(a, b, names, &mut work)? == Ordering::Less)
}

enum Task<'a> {
    Pair(&'a Value, &'a Value),
    /// After equal common elements of two vectors, the shorter sorts first.
    Lengths(usize, usize),
}

/// Emacs 30's `value_cmp`: the ordering of `a` and `b`, adding the pairs visited to `work`.
pub fn value_compare(
    a: &Value,
    b: &Value,
    names: &dyn SymbolNames,
    work: &mut u64,
) -> Result<Ordering> {
    let mut stack = vec![Task::Pair(a, b)];
    while let Some(task) = stack.pop() {
        *work = work.saturating_add(1);
        let (a, b) = match task {
            Task::Lengths(x, y) => match x.cmp(&y) {
                Ordering::Equal => continue,
                other => return Ok(other),
            },
            Task::Pair(a, b) => (a, b),
        };
        if eq(a, b) {
            continue;
        }
        let order = match (a, b) {
            (Value::Cons(x), Value::Cons(y)) => {
                stack.push(Task::Pair(x.cdr(), y.cdr()));
                stack.push(Task::Pair(x.car(), y.car()));
                continue;
            }
            (Value::Vector(x), Value::Vector(y)) => {
                stack.push(Task::Lengths(x.items().len(), y.items().len()));
                for (p, q) in x.items().iter().zip(y.items()).rev() {
                    stack.push(Task::Pair(p, q));
                }
                continue;
            }
            (Value::Nil, Value::Cons(_)) => Ordering::Less,
            (Value::Cons(_), Value::Nil) => Ordering::Greater,
            (Value::Str(x), Value::Str(y)) => {
                *work = work.saturating_add(x.as_str().len().min(y.as_str().len()) as u64 / 32);
                x.as_str().cmp(y.as_str())
            }
            _ => {
                if let (Some(x), Some(y)) = (Number::of(a), Number::of(b)) {
                    number::compare(&x, &y).unwrap_or(Ordering::Equal)
                } else if let (Some(x), Some(y)) = (symbol_name(a, names), symbol_name(b, names)) {
                    x.cmp(y)
                } else {
                    return Err(type_mismatch(a, b, names));
                }
            }
        };
        if order != Ordering::Equal {
            return Ok(order);
        }
    }
    Ok(Ordering::Equal)
}

fn symbol_name<'a>(value: &Value, names: &'a dyn SymbolNames) -> Option<&'a str> {
    match value {
        Value::Nil => Some("nil"),
        Value::T => Some("t"),
        Value::Sym(symbol) => Some(names.symbol_name(*symbol)),
        _ => None,
    }
}

/// Emacs's `type-mismatch` error text.
#[cold]
fn type_mismatch(a: &Value, b: &Value, names: &dyn SymbolNames) -> Error {
    Error::script(format!(
        "Types do not match: {}, {}",
        print::to_string(a, Style::Prin1, names),
        print::to_string(b, Style::Prin1, names)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::symbol::Interner;

    #[test]
    fn the_atom_shortcut_agrees_with_the_walk() {
        let long = Value::string("x".repeat(100));
        let values = [
            Value::Nil,
            Value::T,
            Value::Int(3),
            Value::Int(4),
            Value::Float(0.5),
            Value::Float(-0.0),
            Value::Float(0.0),
            Value::string(""),
            Value::string(""),
            Value::string("ab"),
            Value::string("ab"),
            Value::string("ac"),
            Value::string("abc"),
            long.clone(),
            long,
            Value::string("x".repeat(100)),
            Value::string("x".repeat(99) + "y"),
            Value::list([Value::Int(1)]),
            Value::vector(vec![Value::Int(1)]),
        ];
        for a in &values {
            for b in &values {
                match equal_atoms_counting(a, b) {
                    Some(shortcut) => assert_eq!(shortcut, equal_counting(a, b), "{a:?} {b:?}"),
                    None => assert!(matches!(
                        (a, b),
                        (Value::Cons(_) | Value::Vector(_), _)
                            | (_, Value::Cons(_) | Value::Vector(_))
                    )),
                }
            }
        }
    }

    #[test]
    fn deep_values_compare_without_recursion() {
        std::thread::Builder::new()
            .stack_size(64 * 1024)
            .spawn(|| {
                let build = || {
                    let mut v = Value::Int(1);
                    for _ in 0..200_000 {
                        v = Value::list([v, Value::string("x")]);
                    }
                    v
                };
                let (a, b) = (build(), build());
                assert!(equal(&a, &b));
                let names = Interner::new();
                let mut work = 0;
                assert_eq!(
                    value_compare(&a, &b, &names, &mut work).ok(),
                    Some(Ordering::Equal)
                );
            })
            .expect("spawn")
            .join()
            .expect("no stack overflow");
    }
}
