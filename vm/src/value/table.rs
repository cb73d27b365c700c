//! Hash tables: the dialect's one mutable aggregate (issue 46).
//!
//! A [`HashTable`] is shared by reference like every aggregate (`Arc`), and mutated in place
//! by `puthash`, `remhash` and `clrhash`, so a change made through one reference is seen
//! through every other, as in Emacs. Its entries sit behind a `Mutex` (a value must be
//! `Send`; no lock is ever held while another table is locked or a guest function runs).
//!
//! Emacs 28 semantics kept here:
//! - `:test` `eq`, `eql` (the default) or `equal`; keys compare with [`crate::equal`]'s
//!   functions and hash consistently with them ([`key_hash`]).
//! - Entry order (what `maphash`, `hash-table-keys` and printing show) is Emacs's slot
//!   order: a new key takes the slot freed most recently by `remhash`, else the next
//!   never-used slot; `clrhash` frees every slot and starts again from the first.
//! - The printed `size` is Emacs's: `:size` (65 by default, at least 1), grown by the
//!   rehash size 1.5 (at least by one) whenever a new key finds no free slot.
//!
//! Invariants (spec/reference/budgets.md, "Mutable data"):
//! - A table never contains itself, directly or through other values or tables: `puthash`
//!   refuses a key or value that reaches the table ([`HashTable::reaches`]), so tables form
//!   no cycles and reference counting frees them. The walk only enters values whose cached
//!   weight says a table is inside (`has_table`), so storing table-free data costs O(1).
//! - The table's live [`Weight`] (one node and 8 bytes for the table, plus every stored
//!   key's and value's weight at the time it was stored) is kept up to date by every
//!   mutation and is what [`crate::value::Value::weight`] reports; `puthash` refuses to grow
//!   it past the value budget. Containers cache a table's weight as of when they were built,
//!   so the walks that expand tables (printing, JSON) count what they expand themselves.

use super::{Value, Weight};
use crate::equal;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::{Mutex, MutexGuard, PoisonError};

/// A table's key test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Test {
    /// `eq`.
    Eq,
    /// `eql` (the default).
    Eql,
    /// `equal`.
    Equal,
}

impl Test {
    /// The test's name as Emacs prints it.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Test::Eq => "eq",
            Test::Eql => "eql",
            Test::Equal => "equal",
        }
    }

    fn same(self, a: &Value, b: &Value) -> bool {
        match self {
            Test::Eq => equal::eq(a, b),
            Test::Eql => equal::eql(a, b),
            Test::Equal => equal::equal(a, b),
        }
    }
}

/// The weight a table has with no entries: one node, 8 bytes.
const EMPTY: Weight = Weight {
    bytes: 8,
    nodes: 1,
    has_closure: false,
    has_table: true,
};

/// Emacs's default `:size`.
pub const DEFAULT_SIZE: u64 = 65;

/// A guest hash table.
#[derive(Debug)]
pub struct HashTable {
    test: Test,
    inner: Mutex<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    /// Emacs's reported size.
    size: u64,
    /// Slots in Emacs's order; `None` is a freed slot.
    slots: Vec<Option<(Value, Value)>>,
    /// Freed slots, the most recently freed last.
    free: Vec<usize>,
    /// Key hash → the slots holding keys with that hash.
    index: HashMap<u64, smallvec::SmallVec<[usize; 1]>>,
    count: usize,
    weight: Weight,
}

impl Inner {
    fn find(&self, test: Test, hash: u64, key: &Value) -> Option<usize> {
        self.index.get(&hash)?.iter().copied().find(|&slot| {
            self.slots
                .get(slot)
                .and_then(Option::as_ref)
                .is_some_and(|(k, _)| test.same(k, key))
        })
    }
}

fn minus(a: Weight, b: Weight) -> Weight {
    Weight {
        bytes: a.bytes.saturating_sub(b.bytes),
        nodes: a.nodes.saturating_sub(b.nodes),
        has_closure: a.has_closure,
        has_table: true,
    }
}

/// What [`HashTable::put`] did.
#[derive(Debug)]
pub enum Put {
    /// The key was new: one more slot is in use.
    Added,
    /// The key was there: its value was replaced (the old value is returned for the caller
    /// to drop outside the lock).
    Replaced(Value),
}

impl HashTable {
    /// An empty table with `test`, reporting Emacs's size for `:size size`.
    #[must_use]
    pub fn new(test: Test, size: u64) -> HashTable {
        HashTable {
            test,
            inner: Mutex::new(Inner {
                size: size.max(1),
                weight: EMPTY,
                ..Inner::default()
            }),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // Nothing panics while the lock is held; a poisoned lock still holds valid data.
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The key test.
    #[must_use]
    pub fn test(&self) -> Test {
        self.test
    }

    /// The live weight (see the module docs).
    #[must_use]
    pub fn weight(&self) -> Weight {
        self.lock().weight
    }

    /// The number of entries.
    #[must_use]
    pub fn count(&self) -> usize {
        self.lock().count
    }

    /// Emacs's reported size.
    #[must_use]
    pub fn size(&self) -> u64 {
        self.lock().size
    }

    /// The value stored under `key`.
    #[must_use]
    pub fn get(&self, key: &Value) -> Option<Value> {
        let hash = key_hash(self.test, key);
        let inner = self.lock();
        let slot = inner.find(self.test, hash, key)?;
        inner
            .slots
            .get(slot)
            .and_then(Option::as_ref)
            .map(|(_, v)| v.clone())
    }

    /// The weight the table would have after `(puthash key value)`, without changing it.
    #[must_use]
    pub fn weight_after_put(&self, key: &Value, value: &Value) -> Weight {
        let hash = key_hash(self.test, key);
        let inner = self.lock();
        match inner
            .find(self.test, hash, key)
            .and_then(|slot| inner.slots.get(slot).and_then(Option::as_ref))
        {
            Some((_, old)) => minus(inner.weight, old.weight()).plus(value.weight()),
            None => inner.weight.plus(key.weight()).plus(value.weight()),
        }
    }

    /// `(puthash key value)`. The caller has checked the budget and the cycle rule.
    pub fn put(&self, key: Value, value: Value) -> Put {
        let hash = key_hash(self.test, &key);
        let mut inner = self.lock();
        let added = value.weight();
        if let Some(slot) = inner.find(self.test, hash, &key) {
            let old = inner
                .slots
                .get_mut(slot)
                .and_then(Option::as_mut)
                .map(|(_, v)| std::mem::replace(v, value))
                .unwrap_or_default();
            inner.weight = minus(inner.weight, old.weight()).plus(added);
            drop(inner);
            return Put::Replaced(old);
        }
        inner.weight = inner.weight.plus(key.weight()).plus(added);
        let slot = match inner.free.pop() {
            Some(slot) => slot,
            None => {
                let slot = inner.slots.len();
                inner.slots.push(None);
                if slot as u64 >= inner.size {
                    // Emacs 28's maybe_resize_hash_table with rehash-size 1.5.
                    let old = inner.size;
                    let grown = (old as f64 * 1.5) as u64;
                    inner.size = if grown <= old { old + 1 } else { grown };
                }
                slot
            }
        };
        if let Some(place) = inner.slots.get_mut(slot) {
            *place = Some((key, value));
        }
        inner.index.entry(hash).or_default().push(slot);
        inner.count += 1;
        Put::Added
    }

    /// `(remhash key)`: the removed entry, if there was one (for the caller to drop outside
    /// the lock).
    pub fn remove(&self, key: &Value) -> Option<(Value, Value)> {
        let hash = key_hash(self.test, key);
        let mut inner = self.lock();
        let slot = inner.find(self.test, hash, key)?;
        let entry = inner.slots.get_mut(slot).and_then(Option::take)?;
        if let Some(slots) = inner.index.get_mut(&hash) {
            slots.retain(|s| *s != slot);
            if slots.is_empty() {
                inner.index.remove(&hash);
            }
        }
        inner.free.push(slot);
        inner.count -= 1;
        inner.weight = minus(minus(inner.weight, entry.0.weight()), entry.1.weight());
        Some(entry)
    }

    /// `(clrhash)`: every entry, for the caller to drop outside the lock.
    pub fn clear(&self) -> Vec<(Value, Value)> {
        let mut inner = self.lock();
        let slots = std::mem::take(&mut inner.slots);
        inner.free.clear();
        inner.index.clear();
        inner.count = 0;
        inner.weight = Weight {
            has_closure: false,
            ..EMPTY
        };
        drop(inner);
        slots.into_iter().flatten().collect()
    }

    /// The entries in Emacs's order (clones: no lock is held while the caller uses them).
    #[must_use]
    pub fn entries(&self) -> Vec<(Value, Value)> {
        self.lock().slots.iter().flatten().cloned().collect()
    }

    /// A table with the same test, size and entries (`copy-hash-table`: keys and values are
    /// shared, not copied).
    #[must_use]
    pub fn copy(&self) -> HashTable {
        let inner = self.lock();
        HashTable {
            test: self.test,
            inner: Mutex::new(Inner {
                size: inner.size,
                slots: inner.slots.clone(),
                free: inner.free.clone(),
                index: inner.index.clone(),
                count: inner.count,
                weight: inner.weight,
            }),
        }
    }

    /// Every entry, leaving the table empty without touching its size (for the iterative
    /// drop, which releases the entries on its own stack).
    pub(super) fn take_entries(&mut self) -> Vec<(Value, Value)> {
        let inner = self.inner.get_mut().unwrap_or_else(PoisonError::into_inner);
        inner.index.clear();
        inner.free.clear();
        inner.count = 0;
        std::mem::take(&mut inner.slots)
            .into_iter()
            .flatten()
            .collect()
    }

    /// Whether `value` is or holds `self` (through conses, vectors and other tables), and
    /// the values visited. Only values whose weight says a table is inside are entered, and
    /// tables form no cycles, so the walk ends; each table is entered once.
    #[must_use]
    pub fn reaches(self: &std::sync::Arc<Self>, value: &Value) -> (bool, u64) {
        if !value.weight().has_table {
            return (false, 1);
        }
        let mut work: u64 = 0;
        let mut seen: Vec<*const HashTable> = Vec::new();
        let mut stack = vec![value.clone()];
        while let Some(value) = stack.pop() {
            work = work.saturating_add(1);
            match value {
                Value::Hash(table) => {
                    if std::sync::Arc::ptr_eq(&table, self) {
                        return (true, work);
                    }
                    let at = std::sync::Arc::as_ptr(&table);
                    if seen.contains(&at) {
                        continue;
                    }
                    seen.push(at);
                    for (k, v) in table.entries() {
                        work = work.saturating_add(1);
                        for item in [k, v] {
                            if item.weight().has_table {
                                stack.push(item);
                            }
                        }
                    }
                }
                Value::Cons(cell) => {
                    for item in [cell.car(), cell.cdr()] {
                        if item.weight().has_table {
                            stack.push(item.clone());
                        }
                    }
                }
                Value::Vector(vector) => {
                    for item in vector.items() {
                        work = work.saturating_add(1);
                        if item.weight().has_table {
                            stack.push(item.clone());
                        }
                    }
                }
                _ => {}
            }
        }
        (false, work)
    }
}

/// How deep and how wide [`key_hash`] looks into an `equal` key (Emacs's `sxhash` limits):
/// keys that are `equal` hash equally whatever is cut off, so the cut only costs collisions.
const HASH_DEPTH: u32 = 3;
const HASH_WIDTH: usize = 7;

/// The hash of `key` under `test`, consistent with the test: `eq`-equal keys (and under
/// `equal`, `equal` keys) hash equally. Bounded work: identity for aggregates under
/// `eq`/`eql`, at most [`HASH_DEPTH`] levels of [`HASH_WIDTH`] elements under `equal`.
#[must_use]
pub fn key_hash(test: Test, key: &Value) -> u64 {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    hash_into(test, key, HASH_DEPTH, &mut hasher);
    hasher.finish()
}

fn hash_into(test: Test, key: &Value, depth: u32, h: &mut impl Hasher) {
    std::mem::discriminant(key).hash(h);
    match key {
        Value::Nil | Value::T => {}
        Value::Int(n) => n.hash(h),
        Value::Float(f) => f.to_bits().hash(h),
        Value::Big(n) => n.hash(h),
        Value::Sym(s) => s.hash(h),
        // The empty string and the empty vector are each one object (see `equal::eq`).
        Value::Str(s) if test == Test::Equal || s.as_str().is_empty() => s.as_str().hash(h),
        Value::Vector(v) if test != Test::Equal && v.items().is_empty() => 0u8.hash(h),
        Value::Str(s) => std::sync::Arc::as_ptr(s).hash(h),
        Value::Cons(_) if test == Test::Equal => {
            if depth > 0 {
                let mut rest = key;
                let mut n = 0;
                while let Value::Cons(cell) = rest {
                    if n == HASH_WIDTH {
                        return;
                    }
                    hash_into(test, cell.car(), depth - 1, h);
                    rest = cell.cdr();
                    n += 1;
                }
                hash_into(test, rest, depth - 1, h);
            }
        }
        Value::Vector(v) if test == Test::Equal => {
            v.items().len().hash(h);
            if depth > 0 {
                for item in v.items().iter().take(HASH_WIDTH) {
                    hash_into(test, item, depth - 1, h);
                }
            }
        }
        Value::Cons(c) => std::sync::Arc::as_ptr(c).hash(h),
        Value::Vector(v) => std::sync::Arc::as_ptr(v).hash(h),
        Value::Closure(c) => std::sync::Arc::as_ptr(c).hash(h),
        Value::Hash(t) => std::sync::Arc::as_ptr(t).hash(h),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn keys(table: &HashTable) -> Vec<i64> {
        table
            .entries()
            .iter()
            .map(|(k, _)| match k {
                Value::Int(n) => *n,
                _ => -1,
            })
            .collect()
    }

    #[test]
    fn order_reuses_the_slot_freed_last_and_size_grows_like_emacs() {
        let table = HashTable::new(Test::Eql, 1);
        for n in 0..3 {
            table.put(Value::Int(n), Value::Int(n));
        }
        assert_eq!(table.size(), 3);
        assert!(table.remove(&Value::Int(0)).is_some());
        assert!(table.remove(&Value::Int(2)).is_some());
        table.put(Value::Int(7), Value::Nil);
        table.put(Value::Int(8), Value::Nil);
        assert_eq!(keys(&table), [8, 1, 7]);
        assert_eq!(table.count(), 3);
        drop(table.clear());
        assert_eq!((table.count(), table.weight()), (0, EMPTY));
    }

    #[test]
    fn live_weight_follows_every_mutation() {
        let table = HashTable::new(Test::Equal, 65);
        let key = Value::string("abc");
        let value = Value::list([Value::Int(1), Value::Int(2)]);
        let expected = EMPTY.plus(key.weight()).plus(value.weight());
        assert_eq!(table.weight_after_put(&key, &value), expected);
        table.put(key.clone(), value);
        assert_eq!(table.weight(), expected);
        table.put(Value::string("abc"), Value::Int(5));
        assert_eq!(
            table.weight(),
            EMPTY.plus(key.weight()).plus(Value::Int(5).weight())
        );
        drop(table.remove(&key));
        assert_eq!(table.weight(), EMPTY);
    }

    #[test]
    fn equal_keys_hash_alike_and_eq_keys_by_identity() {
        let a = Value::list([Value::Int(1), Value::string("x")]);
        let b = Value::list([Value::Int(1), Value::string("x")]);
        assert_eq!(key_hash(Test::Equal, &a), key_hash(Test::Equal, &b));
        let table = HashTable::new(Test::Equal, 65);
        table.put(a.clone(), Value::T);
        assert!(table.get(&b).is_some());
        let table = HashTable::new(Test::Eq, 65);
        table.put(a.clone(), Value::T);
        assert!(table.get(&b).is_none());
        assert!(table.get(&a).is_some());
        // Long lists past the hash's width still find their entry.
        let long = Value::list((0..50).map(Value::Int));
        let table = HashTable::new(Test::Equal, 65);
        table.put(long, Value::T);
        assert!(table.get(&Value::list((0..50).map(Value::Int))).is_some());
        assert!(table.get(&Value::list((0..49).map(Value::Int))).is_none());
    }

    #[test]
    fn reaches_finds_the_table_through_lists_vectors_and_tables() {
        let outer = Arc::new(HashTable::new(Test::Eql, 65));
        let inner = Arc::new(HashTable::new(Test::Eql, 65));
        inner.put(
            Value::Int(1),
            Value::vector(vec![Value::Hash(Arc::clone(&outer))]),
        );
        let holder = Value::list([Value::Int(0), Value::Hash(Arc::clone(&inner))]);
        assert!(outer.reaches(&holder).0);
        assert!(!inner.reaches(&Value::list([Value::Int(1)])).0);
        assert!(
            !outer
                .reaches(&Value::Hash(Arc::new(HashTable::new(Test::Eq, 1))))
                .0
        );
    }

    #[test]
    fn a_long_chain_of_tables_drops_without_recursion() {
        std::thread::Builder::new()
            .stack_size(64 * 1024)
            .spawn(|| {
                let mut chain = Value::Nil;
                for _ in 0..100_000 {
                    let table = HashTable::new(Test::Eq, 1);
                    table.put(Value::Int(0), chain);
                    chain = Value::Hash(Arc::new(table));
                }
                drop(chain);
            })
            .unwrap()
            .join()
            .unwrap();
    }
}
