//! What the `retained-bytes` budget charges: the heap bytes a fresh value really takes
//! (spec/reference/budgets.md, "What the byte budgets count").
//!
//! Each amount is the size of the allocations the representation makes, computed from the
//! types themselves (`size_of` plus the reference-count header of an `Arc`), so a change to
//! [`crate::value`]'s representation changes the charge with it:
//!
//! | fresh structure | bytes charged |
//! |---|---|
//! | a cons | [`CONS`]: the `Arc` header and the cell (car, cdr, cached weight) |
//! | a string of `n` bytes | [`string`]: header and the `Str` (text inline up to 24 bytes), plus a buffer of `n` bytes beyond that |
//! | a vector of `n` elements | [`vector`]: header, the `Vector` and `n` value slots |
//! | a big integer | [`big`]: header, the `BigInt` and its 64-bit digits |
//! | a closure capturing `c` cells | [`closure`]: header, the `Closure` (cells inline up to 4), and `c` indices beyond |
//! | a variable cell | [`CELL`]: two value slots (the cell heap grows by doubling) |
//! | a symbol name of `n` bytes | [`symbol_name`]: the name and its table entries |
//! | a hash table | [`TABLE`]: header, the table, its lock and empty index |
//! | a new hash-table key | [`TABLE_ENTRY`]: its slot (key and value) and its index entry, twice over for the slot vector's and the index's doubling |
//! | a tool result or parsed JSON | [`of`]: every node above, walked once per use |
//!
//! Invariant: for every fresh value the machine or a primitive builds, the bytes charged are
//! at least the bytes the global allocator is asked for (the allocator's own rounding, at
//! most 16 bytes per block with glibc, is what the stated factor in budgets.md covers).

use crate::value::{Closure, Cons, INLINE_CAPTURES, INLINE_STRING_BYTES, Str, Value, Vector};
use num_bigint::BigInt;
use std::mem::size_of;

/// The strong and weak counts in front of every `Arc`'s value.
const ARC_HEADER: u64 = 2 * size_of::<usize>() as u64;

/// One value slot (a list element, a vector element, a register).
pub const VALUE: u64 = size_of::<Value>() as u64;

/// A fresh cons cell.
pub const CONS: u64 = ARC_HEADER + size_of::<Cons>() as u64;

/// A variable cell: a value slot in the machine's cell heap, which doubles as it grows.
pub const CELL: u64 = 2 * VALUE;

/// A fresh, empty hash table.
pub const TABLE: u64 = ARC_HEADER + size_of::<crate::value::HashTable>() as u64;

/// One more key in a hash table: a slot of two values (with its `Option` tag) and an
/// index entry (hash, slot list), each counted twice because both grow by doubling.
pub const TABLE_ENTRY: u64 = 2 * (size_of::<Option<(Value, Value)>>() as u64 + 48);

/// `count` fresh cons cells.
#[must_use]
pub fn conses(count: u64) -> u64 {
    count.saturating_mul(CONS)
}

/// A fresh string of `len` bytes: its text is inline in the `Str` up to
/// [`INLINE_STRING_BYTES`], in an exactly sized buffer of its own beyond.
#[must_use]
pub fn string(len: u64) -> u64 {
    let buffer = if len > INLINE_STRING_BYTES as u64 {
        len
    } else {
        0
    };
    (ARC_HEADER + size_of::<Str>() as u64).saturating_add(buffer)
}

/// A fresh vector of `len` elements.
#[must_use]
pub fn vector(len: u64) -> u64 {
    (ARC_HEADER + size_of::<Vector>() as u64).saturating_add(len.saturating_mul(VALUE))
}

/// A fresh big integer (its digits at twice their count: products and sums keep spare
/// capacity).
#[must_use]
pub fn big(n: &BigInt) -> u64 {
    let digits = n.bits().div_ceil(64).saturating_add(1);
    (ARC_HEADER + size_of::<BigInt>() as u64).saturating_add(digits.saturating_mul(16))
}

/// A fresh closure capturing `captures` cells: one allocation, plus a second for the cells
/// when there are more than [`INLINE_CAPTURES`].
#[must_use]
pub fn closure(captures: u64) -> u64 {
    let spilled = if captures > INLINE_CAPTURES as u64 {
        captures.saturating_mul(size_of::<u32>() as u64)
    } else {
        0
    };
    (ARC_HEADER + size_of::<Closure>() as u64).saturating_add(spilled)
}

/// A symbol name of `len` bytes interned for the rest of the run (the name, its table slot
/// and its lookup entry).
#[must_use]
pub fn symbol_name(len: u64) -> u64 {
    len.saturating_add(64)
}

/// Every heap byte of `value` as if all of it were fresh (a tool result, parsed JSON):
/// shared structure is counted once per use, like [`Value::weight`]. Iterative: a long or
/// deep value never recurses on the host stack.
#[must_use]
pub fn of(value: &Value) -> u64 {
    let mut total: u64 = 0;
    // Inline room for the usual tool result (a plist of atoms and a few nested lists): no
    // heap allocation to measure it.
    let mut stack: smallvec::SmallVec<[&Value; 16]> = smallvec::smallvec![value];
    while let Some(value) = stack.pop() {
        let bytes = match value {
            Value::Nil | Value::T | Value::Int(_) | Value::Float(_) | Value::Sym(_) => 0,
            Value::Big(n) => big(n),
            Value::Str(s) => string(s.as_str().len() as u64),
            Value::Cons(c) => {
                stack.push(c.car());
                stack.push(c.cdr());
                CONS
            }
            Value::Vector(v) => {
                stack.extend(v.items());
                vector(v.items().len() as u64)
            }
            Value::Closure(c) => closure(c.captures.len() as u64),
            // Tables never come from tool results or JSON; their entries are charged as
            // they are stored, not here.
            Value::Hash(t) => TABLE.saturating_add((t.count() as u64).saturating_mul(TABLE_ENTRY)),
        };
        total = total.saturating_add(bytes);
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts_cover_the_representation() {
        // An `Arc<T>` allocates its two counts and the `T`.
        assert!(CONS >= 2 * 8 + size_of::<Cons>() as u64);
        assert_eq!(string(0), 16 + size_of::<Str>() as u64);
        assert_eq!(string(INLINE_STRING_BYTES as u64), string(0));
        assert_eq!(string(INLINE_STRING_BYTES as u64 + 1), string(0) + 25);
        assert_eq!(vector(2) - vector(1), size_of::<Value>() as u64);
        let list = Value::list([Value::string("abc"), Value::Int(1)]);
        assert_eq!(of(&list), 2 * CONS + string(3));
        // The amounts budgets.md tables for 64-bit hosts.
        #[cfg(target_pointer_width = "64")]
        {
            assert_eq!(CONS, 72);
            assert_eq!(INLINE_STRING_BYTES, 24);
            assert_eq!(string(10), 48);
            assert_eq!(string(100), 48 + 100);
            assert_eq!(vector(3), 56 + 3 * 16);
            assert_eq!(closure(0), 48);
            assert_eq!(closure(4), 48);
            assert_eq!(closure(5), 48 + 5 * 4);
            assert_eq!(CELL, 32);
            assert_eq!(big(&(BigInt::from(1) << 100u32)), 48 + 16 * 3);
            // budgets.md, "Mutable data".
            assert_eq!((TABLE, TABLE_ENTRY), (168, 160));
        }
        let shared = Value::string("xy");
        let twice = Value::list([shared.clone(), shared]);
        assert_eq!(of(&twice), 2 * CONS + 2 * string(2));
    }
}
