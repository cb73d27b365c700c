//! Guest values and their cached sizes.
//!
//! A [`Value`] is two words. Aggregates (strings, conses, vectors, big integers, closures)
//! are immutable and reference counted; the one exception is the hash table
//! ([`table::HashTable`], issue 46), mutable in place and kept acyclic by `puthash` (see
//! its module), so no guest operation can build a cycle.
//!
//! Every aggregate caches its [`Weight`]: the size the dialect's value accounting gives it
//! *with shared structure counted once per use* (a tree walk, not a graph walk). Because
//! aggregates are immutable the weight is computed once, at construction, from the
//! children's weights, so checking an operand or a final value against the value budget is
//! O(1) however much sharing it holds. Weights saturate instead of overflowing
//! (`(setq x (list x x))` sixty-four times has a weight of "too big", not a wrapped one).
//!
//! Size units follow the original (spec/reference/budgets.md): nil 0 bytes; a string its UTF-8
//! byte length; an integer the length of its decimal text; a float 8; a symbol its name's
//! byte length; a cons 1 plus its car and cdr; a vector its length plus its elements; a
//! closure 8. Every visited item, including the nil that ends a list, is one node.
//!
//! Dropping a long or deep list never recurses on the host stack: [`Cons`] and [`Vector`]
//! unlink their children iteratively (the `pool` module, which also keeps each thread's
//! recycled cons allocations).

use crate::symbol::Symbol;
use compact_str::CompactString;
use num_bigint::BigInt;
pub use pool::release_closure;
use pool::{closure_allocation, recycle_one, recycled_cons};
use std::sync::Arc;
pub use table::HashTable;

mod pool;
pub mod table;

/// A guest value.
#[derive(Debug, Clone, Default)]
pub enum Value {
    /// `nil`: false and the empty list.
    #[default]
    Nil,
    /// `t`.
    T,
    /// An integer that fits in 64 bits (the fast path).
    Int(i64),
    /// A float.
    Float(f64),
    /// An integer outside the 64-bit range (never one inside it).
    Big(Arc<BigInt>),
    /// A string.
    Str(Arc<Str>),
    /// A symbol or keyword.
    Sym(Symbol),
    /// A cons cell; proper lists are chains of these ending in `Nil`.
    Cons(Arc<Cons>),
    /// A vector (from a `[...]` literal or a tool result).
    Vector(Arc<Vector>),
    /// A guest closure: opaque, cannot cross a tool or result boundary.
    Closure(Arc<Closure>),
    /// A hash table: the one mutable aggregate (issue 46).
    Hash(Arc<HashTable>),
}

/// The size of a value under the dialect's accounting, shared structure counted per use.
///
/// Both counts saturate at [`Weight::MAX_COUNT`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Weight {
    /// Approximate bytes.
    pub bytes: u64,
    /// Nodes: every visited item, including the nil ending a list.
    pub nodes: u64,
    /// Whether a closure occurs anywhere inside.
    pub has_closure: bool,
    /// Whether a hash table occurs anywhere inside: then the weight is the one the tables
    /// had when this value was built, and walks that expand tables count for themselves.
    pub has_table: bool,
}

impl Weight {
    /// The saturation point of both counts.
    pub const MAX_COUNT: u64 = u64::MAX / 4;

    /// A leaf of `bytes` bytes and one node.
    #[must_use]
    pub const fn leaf(bytes: u64) -> Weight {
        Weight {
            bytes,
            nodes: 1,
            has_closure: false,
            has_table: false,
        }
    }

    /// The sum of two weights, saturating.
    ///
    #[inline]
    #[must_use]
    pub fn plus(self, other: Weight) -> Weight {
        Weight {
            bytes: clamp_sum(self.bytes, other.bytes),
            nodes: clamp_sum(self.nodes, other.nodes),
            has_closure: self.has_closure | other.has_closure,
            has_table: self.has_table | other.has_table,
        }
    }

    /// The weight of a cons of a car weighing `car` and a cdr weighing `cdr`: one byte and
    /// one node for the cell, plus both.
    #[inline]
    #[must_use]
    pub fn cons_of(car: Weight, cdr: Weight) -> Weight {
        Weight {
            bytes: clamp_sum(car.bytes.saturating_add(1), cdr.bytes),
            nodes: clamp_sum(car.nodes.saturating_add(1), cdr.nodes),
            has_closure: car.has_closure | cdr.has_closure,
            has_table: car.has_table | cdr.has_table,
        }
    }
}

/// `a + b` clamped to [`Weight::MAX_COUNT`], saturating for any inputs.
#[inline(always)]
fn clamp_sum(a: u64, b: u64) -> u64 {
    a.saturating_add(b).min(Weight::MAX_COUNT)
}

/// An immutable string with its character count cached (guest indices are characters).
///
/// The text is a [`CompactString`]: up to [`INLINE_STRING_BYTES`] bytes live inside the
/// `Str` itself, so a short string value is one allocation (the `Arc`); a longer one
/// holds an exactly sized heap buffer besides ([`crate::heap::string`] charges both).
#[derive(Debug)]
pub struct Str {
    text: CompactString,
    char_len: usize,
}

/// The longest text a [`Str`] holds without a heap buffer of its own.
pub const INLINE_STRING_BYTES: usize = std::mem::size_of::<CompactString>();

/// `text` as a [`Str`]'s text: inline when it fits, otherwise in a heap buffer of exactly
/// its length (so the retained-bytes charge is the real one).
fn exact_text(text: impl Into<CompactString>) -> CompactString {
    let mut text = text.into();
    if text.is_heap_allocated() && text.capacity() != text.len() {
        text.shrink_to_fit();
    }
    text
}

impl Str {
    /// The text.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The length in characters (Unicode scalar values).
    #[must_use]
    pub fn char_len(&self) -> usize {
        self.char_len
    }

    /// Whether every character is ASCII, so character and byte indices agree.
    #[must_use]
    pub fn is_ascii(&self) -> bool {
        self.char_len == self.text.len()
    }
}

/// An immutable cons cell with its cached weight.
#[derive(Debug)]
pub struct Cons {
    car: Value,
    cdr: Value,
    weight: Weight,
}

impl Cons {
    /// The first element.
    #[must_use]
    pub fn car(&self) -> &Value {
        &self.car
    }

    /// The rest.
    #[must_use]
    pub fn cdr(&self) -> &Value {
        &self.cdr
    }
}

/// An immutable vector with its cached weight.
#[derive(Debug)]
pub struct Vector {
    items: Box<[Value]>,
    weight: Weight,
}

impl Vector {
    /// The elements.
    #[must_use]
    pub fn items(&self) -> &[Value] {
        &self.items
    }
}

/// How many captured cells a [`Closure`] holds inline, in its own allocation: as many as
/// fit the room a heap pointer and length take anyway (16 bytes), so a closure capturing
/// at most this many cells is one allocation.
pub const INLINE_CAPTURES: usize = 4;

/// A closure's captured cells: inline up to [`INLINE_CAPTURES`], on the heap beyond.
pub type Captures = smallvec::SmallVec<[u32; INLINE_CAPTURES]>;

/// A guest closure: the function it runs and the variable cells it captured.
///
/// Cells are indices into the owning machine's cell heap; a closure is meaningless outside
/// the run that made it, which is why closures cannot cross a tool or result boundary.
#[derive(Debug)]
pub struct Closure {
    /// Index of the function in the program.
    pub function: u32,
    /// Captured variable cells, in the function's capture order.
    pub captures: Captures,
}

impl Value {
    /// A string value (`&str`, `String`, `Box<str>`, `Cow<str>` or a [`CompactString`]).
    #[must_use]
    pub fn string(text: impl Into<CompactString>) -> Value {
        let text = exact_text(text);
        let char_len = if text.is_ascii() {
            text.len()
        } else {
            text.chars().count()
        };
        Value::Str(Arc::new(Str { text, char_len }))
    }

    /// A string value whose character count `char_len` the caller already knows (from the
    /// cached counts of the parts it was built from), so the text is not scanned again.
    /// A wrong count is a caller bug: debug builds assert it.
    #[must_use]
    pub(crate) fn counted_string(text: impl Into<CompactString>, char_len: usize) -> Value {
        let text = exact_text(text);
        debug_assert_eq!(char_len, text.chars().count());
        Value::Str(Arc::new(Str { text, char_len }))
    }

    /// A cons of `car` and `cdr`; its weight is computed here, in O(1).
    #[must_use]
    pub fn cons(car: Value, cdr: Value) -> Value {
        let cell = Cons {
            weight: Weight::cons_of(car.weight(), cdr.weight()),
            car,
            cdr,
        };
        match recycled_cons() {
            Some(mut recycled) => match Arc::get_mut(&mut recycled) {
                Some(slot) => {
                    // The pooled cell holds nil twice: nothing to drop (see `recycle`).
                    std::mem::forget(std::mem::replace(slot, cell));
                    Value::Cons(recycled)
                }
                None => Value::Cons(Arc::new(cell)),
            },
            None => Value::Cons(Arc::new(cell)),
        }
    }

    /// Drops `self`, keeping its cons cells for this thread's later conses: the first cell
    /// too when `self` held the last reference to it, which a plain drop frees (only the
    /// cells after it are kept). For values that die in bulk at the end of a run, such as
    /// its registers, its final value and the arguments of its tool requests. Allocation
    /// reuse only: what a value holds and what budgets charge are the same either way.
    #[inline]
    pub fn release(self) {
        pool::release_value(self);
    }

    /// A closure of function `function` capturing `captures`, in a recycled allocation
    /// when this thread has one.
    #[must_use]
    pub fn closure(function: u32, captures: Captures) -> Value {
        Value::Closure(closure_allocation(Closure { function, captures }))
    }

    /// A vector of `items`.
    #[must_use]
    pub fn vector(items: impl Into<Box<[Value]>>) -> Value {
        let items: Box<[Value]> = items.into();
        let len = items.len() as u64;
        let weight = items
            .iter()
            .fold(Weight::leaf(len), |w, item| w.plus(item.weight()));
        Value::Vector(Arc::new(Vector { items, weight }))
    }

    /// A proper list of `items`, built from the end.
    #[must_use]
    pub fn list(items: impl IntoIterator<Item = Value, IntoIter: DoubleEndedIterator>) -> Value {
        Value::list_with_tail(items, Value::Nil)
    }

    /// `items` consed onto `tail`, built from the end.
    #[must_use]
    pub fn list_with_tail(
        items: impl IntoIterator<Item = Value, IntoIter: DoubleEndedIterator>,
        tail: Value,
    ) -> Value {
        items
            .into_iter()
            .rev()
            .fold(tail, |acc, item| Value::cons(item, acc))
    }

    /// The elements of the list `self` in reverse order, and how many there are; iteration
    /// stops at the first non-cons tail, as [`Value::iter`] does.
    ///
    /// Takes the list by value so that every cell the caller held the only reference to is
    /// reused in place (its cdr and cached weight rewritten) instead of copied and freed:
    /// no allocation and no drop for a uniquely owned list. Cells someone else can still
    /// see are never written; from the first shared cell on, the rest is copied. Either
    /// way the result is the fresh list [`Value::list`] of the reversed elements would be.
    #[must_use]
    pub fn reversed(self) -> (Value, u64) {
        let mut out = Value::Nil;
        let mut count: u64 = 0;
        let mut rest = self;
        loop {
            match rest {
                Value::Cons(mut cell) => match Arc::get_mut(&mut cell) {
                    Some(owned) => {
                        count += 1;
                        rest = std::mem::take(&mut owned.cdr);
                        owned.weight = Weight::cons_of(owned.car.weight(), out.weight());
                        // The cdr is nil after the take: nothing to drop.
                        std::mem::forget(std::mem::replace(&mut owned.cdr, out));
                        out = Value::Cons(cell);
                    }
                    None => {
                        let shared = Value::Cons(cell);
                        for item in shared.iter() {
                            out = Value::cons(item.clone(), out);
                            count += 1;
                        }
                        return (out, count);
                    }
                },
                _ => return (out, count),
            }
        }
    }

    /// Replaces the list in `slot` by its cdr (`(setq rest (cdr rest))`, the step of every
    /// `dolist`), and whether `slot` held a list (nil stays nil; anything else is left
    /// alone and `false` returned).
    ///
    /// When `slot` held the only reference to its cons, the cell is emptied and kept for
    /// reuse by this thread's pool instead of being freed: walking a fresh list that only
    /// the loop holds neither frees nor, later, allocates.
    #[inline]
    pub fn step_to_cdr(slot: &mut Value) -> bool {
        match slot {
            Value::Cons(c) => {
                match Arc::get_mut(c) {
                    Some(cell) => {
                        let car = std::mem::take(&mut cell.car);
                        let rest = std::mem::take(&mut cell.cdr);
                        if let Value::Cons(emptied) = std::mem::replace(slot, rest) {
                            recycle_one(emptied);
                        }
                        if !car.is_immediate() {
                            drop(car);
                        } else {
                            std::mem::forget(car);
                        }
                    }
                    None => {
                        let rest = c.cdr.clone();
                        *slot = rest;
                    }
                }
                true
            }
            Value::Nil => true,
            _ => false,
        }
    }

    /// An integer, normalised: values that fit in 64 bits use the fast path.
    #[must_use]
    pub fn integer(n: BigInt) -> Value {
        match i64::try_from(&n) {
            Ok(small) => Value::Int(small),
            Err(_) => Value::Big(Arc::new(n)),
        }
    }

    /// The boolean `b` as `t` or `nil`.
    #[must_use]
    pub fn bool(b: bool) -> Value {
        if b { Value::T } else { Value::Nil }
    }

    /// Everything except nil is true.
    #[must_use]
    pub fn is_true(&self) -> bool {
        !matches!(self, Value::Nil)
    }

    /// Whether this value holds no reference count (nil, t, numbers that fit a word,
    /// symbols): copying or dropping it is free.
    #[inline(always)]
    #[must_use]
    pub fn is_immediate(&self) -> bool {
        matches!(
            self,
            Value::Nil | Value::T | Value::Int(_) | Value::Float(_) | Value::Sym(_)
        )
    }

    /// Whether this is nil.
    #[must_use]
    pub fn is_nil(&self) -> bool {
        matches!(self, Value::Nil)
    }

    /// The weight of this value, in O(1).
    #[inline]
    #[must_use]
    pub fn weight(&self) -> Weight {
        match self {
            Value::Nil => Weight::leaf(0),
            Value::T => Weight::leaf(1),
            Value::Int(n) => Weight::leaf(decimal_len(*n)),
            Value::Float(_) => Weight::leaf(8),
            // Decimal digits of a big integer: bits · log10(2), rounded up, plus a sign.
            Value::Big(n) => Weight::leaf(n.bits() * 30_103 / 100_000 + 2),
            Value::Str(s) => Weight::leaf(s.text.len() as u64),
            Value::Sym(s) => Weight::leaf(s.name_len()),
            Value::Cons(c) => c.weight,
            Value::Vector(v) => v.weight,
            Value::Closure(_) => Weight {
                bytes: 8,
                nodes: 1,
                has_closure: true,
                has_table: false,
            },
            Value::Hash(table) => table.weight(),
        }
    }

    /// The string, if this is one.
    #[must_use]
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s.as_str()),
            _ => None,
        }
    }

    /// The cons cell, if this is one.
    #[must_use]
    pub fn as_cons(&self) -> Option<&Cons> {
        match self {
            Value::Cons(c) => Some(c),
            _ => None,
        }
    }

    /// Iterates the elements of a list. Iteration stops at the first non-cons tail; use
    /// [`Value::list_to_vec`] when an improper tail must be an error.
    #[must_use]
    pub fn iter(&self) -> ListIter<'_> {
        ListIter { rest: self }
    }

    /// The elements of a proper list, or `None` when this is not a proper list.
    #[must_use]
    pub fn list_to_vec(&self) -> Option<Vec<Value>> {
        let mut out = Vec::new();
        let mut rest = self;
        loop {
            match rest {
                Value::Nil => return Some(out),
                Value::Cons(c) => {
                    out.push(c.car.clone());
                    rest = &c.cdr;
                }
                _ => return None,
            }
        }
    }

    /// Whether this is a list (nil or a cons).
    #[must_use]
    pub fn is_list(&self) -> bool {
        matches!(self, Value::Nil | Value::Cons(_))
    }
}

/// Iterator over the elements of a list (see [`Value::iter`]).
#[derive(Debug, Clone)]
pub struct ListIter<'a> {
    rest: &'a Value,
}

impl<'a> ListIter<'a> {
    /// What is left: `Nil` after a proper list, the improper tail otherwise.
    #[must_use]
    pub fn rest(&self) -> &'a Value {
        self.rest
    }
}

impl<'a> Iterator for ListIter<'a> {
    type Item = &'a Value;

    fn next(&mut self) -> Option<&'a Value> {
        match self.rest {
            Value::Cons(c) => {
                self.rest = &c.cdr;
                Some(&c.car)
            }
            _ => None,
        }
    }
}

/// Powers of ten that fit in a `u64`: `POW10[k]` = 10^k.
const POW10: [u64; 20] = [
    1,
    10,
    100,
    1_000,
    10_000,
    100_000,
    1_000_000,
    10_000_000,
    100_000_000,
    1_000_000_000,
    10_000_000_000,
    100_000_000_000,
    1_000_000_000_000,
    10_000_000_000_000,
    100_000_000_000_000,
    1_000_000_000_000_000,
    10_000_000_000_000_000,
    100_000_000_000_000_000,
    1_000_000_000_000_000_000,
    10_000_000_000_000_000_000,
];

/// Length of the decimal text of `n`, with its sign. Branch-free (every integer car of a
/// fresh cons is measured): the bit length times log10(2), as 1233/4096, is the digit
/// count or one more, and one table compare decides which.
fn decimal_len(n: i64) -> u64 {
    let sign = u64::from(n < 0);
    let m = n.unsigned_abs() | 1;
    let bits = u64::from(u64::BITS - m.leading_zeros());
    // bits <= 64, so guess <= 19.
    let guess = (bits * 1233) >> 12;
    let below = POW10.get(guess as usize).map_or(0, |p| u64::from(m < *p));
    sign + guess + 1 - below
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_is_two_words() {
        assert_eq!(std::mem::size_of::<Value>(), 16);
    }

    #[test]
    fn inline_captures_cost_no_room_beyond_a_heap_slice() {
        // The inline cells share the room of the spilled vector's pointer and length.
        assert_eq!(
            std::mem::size_of::<Captures>(),
            std::mem::size_of::<Box<[u32]>>() + std::mem::size_of::<usize>()
        );
        assert_eq!(INLINE_CAPTURES * 4, std::mem::size_of::<Box<[u32]>>());
    }

    #[test]
    fn weights_follow_the_dialect_units() {
        assert_eq!(Value::Nil.weight(), Weight::leaf(0));
        assert_eq!(Value::Int(-120).weight().bytes, 4);
        assert_eq!(Value::Int(0).weight().bytes, 1);
        assert_eq!(Value::Int(i64::MIN).weight().bytes, 20);
        let list = Value::list([Value::Int(1), Value::string("ab")]);
        // two conses (1 byte each) + "1" + "ab"; nodes: 2 conses + 2 atoms + final nil
        assert_eq!(
            list.weight(),
            Weight {
                bytes: 5,
                nodes: 5,
                has_closure: false,
                has_table: false
            }
        );
        assert_eq!(Value::string("é").as_str().map(str::len), Some(2));
    }

    #[test]
    fn decimal_len_is_the_length_of_the_decimal_text() {
        let mut cases = vec![0, 1, -1, i64::MIN, i64::MAX, i64::MIN + 1];
        for k in 0..19 {
            let p = 10i64.pow(k);
            cases.extend([p - 1, p, p + 1, -(p - 1), -p, -(p + 1)]);
        }
        for n in cases {
            assert_eq!(decimal_len(n), n.to_string().len() as u64, "{n}");
        }
    }

    #[test]
    fn shared_structure_is_counted_per_use_and_saturates() {
        let mut x = Value::list([Value::Int(1)]);
        for _ in 0..200 {
            x = Value::list([x.clone(), x]);
        }
        assert_eq!(x.weight().nodes, Weight::MAX_COUNT);
    }

    /// The elements and the weight of every suffix, to compare a reuse with a fresh copy.
    fn shape(list: &Value) -> Vec<(i64, Weight)> {
        let mut out = Vec::new();
        let mut rest = list;
        while let Value::Cons(c) = rest {
            let n = match c.car() {
                Value::Int(n) => *n,
                Value::Str(s) => -(s.as_str().len() as i64),
                _ => i64::MIN,
            };
            out.push((n, c.weight));
            rest = c.cdr();
        }
        out
    }

    #[test]
    fn reversed_reuses_owned_cells_and_never_writes_shared_ones() {
        let fresh = |items: &[i64]| Value::list(items.iter().map(|n| Value::Int(*n)));
        // Uniquely owned: reversed in place, with the weights a fresh list would have.
        let (out, count) = fresh(&[1, 22, 333]).reversed();
        assert_eq!(count, 3);
        assert_eq!(shape(&out), shape(&fresh(&[333, 22, 1])));
        // Wholly shared: copied, the original untouched.
        let kept = fresh(&[1, 22, 333]);
        let (out, count) = kept.clone().reversed();
        assert_eq!(count, 3);
        assert_eq!(shape(&out), shape(&fresh(&[333, 22, 1])));
        assert_eq!(shape(&kept), shape(&fresh(&[1, 22, 333])));
        // A unique head on a shared tail: the head is reused, the tail copied.
        let tail = fresh(&[4, 5]);
        let list = Value::cons(
            Value::string("ab"),
            Value::cons(Value::Int(3), tail.clone()),
        );
        let (out, count) = list.reversed();
        assert_eq!(count, 4);
        let expected = Value::list(
            [5, 4, 3]
                .map(Value::Int)
                .into_iter()
                .chain([Value::string("ab")]),
        );
        assert_eq!(shape(&out), shape(&expected));
        assert_eq!(shape(&tail), shape(&fresh(&[4, 5])));
        // An improper tail ends the walk, as `Value::iter` does; atoms reverse to nil.
        let (out, count) = Value::cons(Value::Int(1), Value::Int(2)).reversed();
        assert_eq!((count, shape(&out)), (1, shape(&fresh(&[1]))));
        assert!(matches!(Value::Int(7).reversed(), (Value::Nil, 0)));
    }

    #[test]
    fn step_to_cdr_recycles_only_cells_nothing_else_holds() {
        let pooled = pool::pooled_conses;
        let mut rest = Value::list([Value::string("a"), Value::Int(2), Value::Int(3)]);
        let kept = match &rest {
            Value::Cons(c) => c.cdr().clone(),
            _ => Value::Nil,
        };
        let before = pooled();
        // The head is held only by `rest`: recycled.
        assert!(Value::step_to_cdr(&mut rest));
        assert_eq!(pooled(), before + 1);
        // The next cell is also held by `kept`: stepped over, not touched.
        assert!(Value::step_to_cdr(&mut rest));
        assert_eq!(pooled(), before + 1);
        assert_eq!(shape(&kept), shape(&Value::list([2, 3].map(Value::Int))));
        assert_eq!(shape(&rest), shape(&Value::list([Value::Int(3)])));
        assert!(Value::step_to_cdr(&mut rest));
        assert!(rest.is_nil());
        assert!(Value::step_to_cdr(&mut rest));
        let mut atom = Value::Int(1);
        assert!(!Value::step_to_cdr(&mut atom));
        assert!(matches!(atom, Value::Int(1)));
    }
}
