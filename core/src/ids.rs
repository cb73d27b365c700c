//! Fresh envelope ids (`ptc-TAG-N`) for hosts that do not bring their own.
//!
//! Invariant: ids of one process never repeat (a relaxed atomic counter); ids of two
//! native processes differ in their tag with overwhelming probability.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

static NEXT_ENVELOPE: AtomicU64 = AtomicU64::new(1);

/// A fresh envelope id, `ptc-TAG-N`: `TAG` (12 hex digits) is drawn once per process from
/// the standard library's per-process random hash keys (seeded from the operating system's
/// randomness), `N` counts from 1, so two processes sharing a journal do not pick the same
/// id (and the runtime's file journal refuses a `running` record a live run owns). On
/// `wasm32-unknown-unknown` those keys are not random: a WASM host passes its own ids.
#[must_use]
pub fn fresh_id() -> String {
    let mut id = String::with_capacity(ID_ROOM);
    push_fresh_id(&mut id);
    id
}

/// Room for `ptc-TAG-N` with any `N`: 4 + 12 + 1 + 20 bytes.
const ID_ROOM: usize = 37;

/// Appends a fresh `ptc-TAG-N` to `out` ([`fresh_id`]), built without the formatting
/// machinery.
fn push_fresh_id(out: &mut impl std::fmt::Write) {
    static TAG: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    let tag = TAG.get_or_init(|| {
        use std::hash::BuildHasher as _;
        // RandomState carries the standard library's per-process random keys.
        let hash = std::collections::hash_map::RandomState::new().hash_one(b"ptc");
        format!("{:012x}", hash & 0xffff_ffff_ffff)
    });
    let mut digits = itoa::Buffer::new();
    let digits = digits.format(NEXT_ENVELOPE.fetch_add(1, Ordering::Relaxed));
    // Writing to a string or a stack buffer with room cannot fail.
    let _ = out.write_str("ptc-");
    let _ = out.write_str(tag);
    let _ = out.write_char('-');
    let _ = out.write_str(digits);
}

/// [`fresh_id`] as the shared string a run keeps, built on the stack: one allocation.
#[must_use]
pub fn fresh_shared_id() -> Arc<str> {
    /// A stack buffer of [`ID_ROOM`] bytes.
    struct Stack {
        bytes: [u8; ID_ROOM],
        len: usize,
    }
    impl std::fmt::Write for Stack {
        fn write_str(&mut self, text: &str) -> std::fmt::Result {
            let end = self.len + text.len();
            let room = self.bytes.get_mut(self.len..end).ok_or(std::fmt::Error)?;
            room.copy_from_slice(text.as_bytes());
            self.len = end;
            Ok(())
        }
    }
    let mut stack = Stack {
        bytes: [0; ID_ROOM],
        len: 0,
    };
    push_fresh_id(&mut stack);
    let text = stack.bytes.get(..stack.len).unwrap_or_default();
    Arc::from(std::str::from_utf8(text).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    #[test]
    fn fresh_ids_are_tagged_and_counted() {
        let (first, second) = (super::fresh_id(), super::fresh_id());
        let parts = |id: &str| -> (String, u64) {
            let rest = id.strip_prefix("ptc-").expect("ptc- prefix");
            let (tag, n) = rest.rsplit_once('-').expect("a counter");
            assert_eq!(tag.len(), 12, "{id}");
            assert!(tag.chars().all(|c| c.is_ascii_hexdigit()), "{id}");
            (tag.to_owned(), n.parse().expect("a decimal counter"))
        };
        let ((tag1, n1), (tag2, n2)) = (parts(&first), parts(&second));
        assert_eq!(tag1, tag2);
        assert!(n2 > n1, "{first} then {second}");
        // The shared form is the same id, counted on.
        let shared = super::fresh_shared_id();
        let (tag3, n3) = parts(&shared);
        assert_eq!(tag3, tag1);
        assert!(n3 > n2, "{second} then {shared}");
    }
}
