//! Per-thread spare buffers for the compiler's working vectors (the lexer's tokens, the
//! parser's element stack, the reader's open-bracket stack, the lowering's operator and
//! function stacks), so that compiling script after script on one thread allocates none of
//! them again (issue #19).
//!
//! Each slot is declared with [`slots!`] and holds at most one spare vector: [`take`]
//! hands it out (cleared) or a fresh one, [`give`] puts a vector back when its capacity is
//! at most [`MAX_BYTES`] bytes (a larger one is freed, so one huge script does not pin its
//! buffers). A vector that is never given back is simply freed: the slots are an
//! optimization, never required for correctness. A slot's type has no borrows, so a taken
//! vector may live as long as the caller likes.

use std::cell::RefCell;
use std::thread::LocalKey;

/// The most bytes of capacity a spare buffer may keep.
pub const MAX_BYTES: usize = 64 * 1024;

/// One slot: the spare vector of one working stack.
pub type Slot<T> = LocalKey<RefCell<Vec<T>>>;

/// Declares thread-local scratch slots: `slots! { pub(crate) static NAME: Type; ... }`.
macro_rules! slots {
    ($($(#[$attr:meta])* $vis:vis static $name:ident: $item:ty;)+) => {
        thread_local! {
            $($(#[$attr])* $vis static $name: ::std::cell::RefCell<Vec<$item>> =
                const { ::std::cell::RefCell::new(Vec::new()) };)+
        }
    };
}
pub(crate) use slots;

/// The slot's spare vector (empty, with room for at least `len` elements), or a fresh one.
#[must_use]
pub fn take<T>(slot: &'static Slot<T>, len: usize) -> Vec<T> {
    let mut spare = slot.with(|spare| std::mem::take(&mut *spare.borrow_mut()));
    spare.clear();
    spare.reserve(len);
    spare
}

/// Keeps `vector` (cleared) as the slot's spare, unless it is larger than [`MAX_BYTES`].
pub fn give<T>(slot: &'static Slot<T>, mut vector: Vec<T>) {
    if vector.capacity().saturating_mul(std::mem::size_of::<T>()) > MAX_BYTES {
        return;
    }
    vector.clear();
    slot.with(|spare| {
        let mut spare = spare.borrow_mut();
        if vector.capacity() > spare.capacity() {
            *spare = vector;
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
}
