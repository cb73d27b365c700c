//! Per-thread spare buffers for the compiler's working vectors (the lexer's tokens, the
//! parser's element stack, the reader's open-bracket stack, the lowering's operator and
//! function stacks), so that compiling script after script on one thread allocates none of
//! them again (issue #19).
//!
//! Each slot is declared with [`slots!`] (vectors) or `thread_local!` (the hash tables of
//! preflight's expansions and of capture sets) and holds at most one spare ([`Reusable`]):
//! [`take`] hands it out (cleared) or a fresh one, [`give`] puts one back when its room is
//! at most [`MAX_BYTES`] bytes (a larger one is freed, so one huge script does not pin its
//! buffers). A vector that is never given back is simply freed: the slots are an
//! optimization, never required for correctness. A slot's type has no borrows, so a taken
//! vector may live as long as the caller likes.

use rustc_hash::{FxHashMap, FxHashSet};
use std::cell::RefCell;
use std::thread::LocalKey;

/// The most bytes of capacity a spare buffer may keep.
pub const MAX_BYTES: usize = 64 * 1024;

/// One slot: the spare container of one working stack or table.
pub type Slot<C> = LocalKey<RefCell<C>>;

/// Declares thread-local vector slots: `slots! { static NAME: ELEMENT; ... }` (a table slot
/// is a plain `thread_local!` of `RefCell<TABLE>`).
macro_rules! slots {
    ($($(#[$attr:meta])* $vis:vis static $name:ident: $item:ty;)+) => {
        thread_local! {
            $($(#[$attr])* $vis static $name: ::std::cell::RefCell<Vec<$item>> =
                const { ::std::cell::RefCell::new(Vec::new()) };)+
        }
    };
}
pub(crate) use slots;

/// A container a slot can keep: its capacity in bytes, and emptying it without freeing.
pub trait Reusable: Default {
    /// The bytes of element room it holds.
    fn room_bytes(&self) -> usize;
    /// Drops the elements, keeping the room.
    fn clear(&mut self);
    /// Makes room for `additional` more elements.
    fn reserve(&mut self, additional: usize);
}

impl<T> Reusable for Vec<T> {
    fn room_bytes(&self) -> usize {
        self.capacity().saturating_mul(size_of::<T>())
    }
    fn clear(&mut self) {
        Vec::clear(self);
    }
    fn reserve(&mut self, additional: usize) {
        Vec::reserve(self, additional);
    }
}

impl<T: Eq + std::hash::Hash> Reusable for FxHashSet<T> {
    fn room_bytes(&self) -> usize {
        self.capacity().saturating_mul(size_of::<T>())
    }
    fn clear(&mut self) {
        std::collections::HashSet::clear(self);
    }
    fn reserve(&mut self, additional: usize) {
        std::collections::HashSet::reserve(self, additional);
    }
}

impl<K: Eq + std::hash::Hash, V> Reusable for FxHashMap<K, V> {
    fn room_bytes(&self) -> usize {
        self.capacity().saturating_mul(size_of::<(K, V)>())
    }
    fn clear(&mut self) {
        std::collections::HashMap::clear(self);
    }
    fn reserve(&mut self, additional: usize) {
        std::collections::HashMap::reserve(self, additional);
    }
}

/// The slot's spare (empty, with room for at least `len` more elements), or a fresh one.
#[must_use]
pub fn take<C: Reusable>(slot: &'static Slot<C>, len: usize) -> C {
    let mut spare = slot.with(|spare| std::mem::take(&mut *spare.borrow_mut()));
    spare.clear();
    spare.reserve(len);
    spare
}

/// Keeps `container` (cleared) as the slot's spare when it holds more room than the spare
/// and at most [`MAX_BYTES`].
pub fn give<C: Reusable>(slot: &'static Slot<C>, mut container: C) {
    let room = container.room_bytes();
    if room == 0 || room > MAX_BYTES {
        return;
    }
    container.clear();
    slot.with(|spare| {
        let mut spare = spare.borrow_mut();
        if room > spare.room_bytes() {
            *spare = container;
        }
    });
}

#[cfg(test)]
mod tests {
    use super::{MAX_BYTES, give, take};

    slots! {
        static NUMBERS: u64;
    }

    #[test]
    fn a_given_vector_is_taken_again_and_a_huge_one_is_not_kept() {
        let mut numbers = take(&NUMBERS, 10);
        numbers.extend(0..10);
        let capacity = numbers.capacity();
        give(&NUMBERS, numbers);
        let again = take(&NUMBERS, 4);
        assert!(again.is_empty());
        assert_eq!(again.capacity(), capacity);
        give(&NUMBERS, Vec::with_capacity(MAX_BYTES / 8 + 1));
        assert_eq!(take(&NUMBERS, 0).capacity(), 0);
    }

    thread_local! {
        static SEEN: std::cell::RefCell<rustc_hash::FxHashSet<u32>> = Default::default();
    }

    #[test]
    fn a_table_slot_keeps_its_room_and_not_its_entries() {
        let mut seen = take(&SEEN, 0);
        seen.extend(0..100);
        let capacity = seen.capacity();
        give(&SEEN, seen);
        let again = take(&SEEN, 0);
        assert!(again.is_empty());
        assert_eq!(again.capacity(), capacity);
        // An empty table (no room) is not kept over nothing; a huge one is freed.
        give(&SEEN, rustc_hash::FxHashSet::default());
        let mut huge = rustc_hash::FxHashSet::default();
        huge.reserve(MAX_BYTES);
        give(&SEEN, huge);
        assert_eq!(take(&SEEN, 0).capacity(), 0);
    }
}
