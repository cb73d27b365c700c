//! The suspension being serviced ([`Batch`]): its calls' states ([`CallState`]), what
//! each holds ([`Held`]: the converted arguments until dispatch, the guest value once
//! ended) and their slots, inline for a lone call ([`Slots`]).
//!
//! Invariant: a call's state only moves forward (queued → asking → allowed → running →
//! ended), so every call before a batch's `first` is ended.

use ptc_vm::Value;
use serde_json::Value as Json;
use std::sync::Arc;
use std::time::Duration;

/// Where one call stands in the envelope's own bookkeeping.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum CallState {
    /// In a batch, not yet launched.
    Queued,
    /// Launched; its permission decision is pending.
    Asking,
    /// Allowed; not yet handed to the host in a [`Event::Dispatch`](super::Event::Dispatch).
    Allowed,
    /// Dispatched; no answer yet.
    Running { deadline: Option<Duration> },
    /// Paused for a person's decision: ended for this run, which settles `paused` once
    /// nothing else is out.
    Paused,
    /// Ended one way or another (the audit record says how).
    Ended,
}

impl CallState {
    pub(super) fn name(&self) -> &'static str {
        match self {
            CallState::Queued => "queued",
            CallState::Asking => "awaiting permission",
            CallState::Allowed => "allowed",
            CallState::Running { .. } => "running",
            CallState::Paused => "paused",
            CallState::Ended => "ended",
        }
    }
}

/// The suspension being serviced: one call or one batch.
///
/// Only its calls can be anything but ended (a suspension resumes when every member has
/// ended, and the next one starts after), so their states live here, beside their results
/// and their requests' arguments, and every call before `first` is ended. Positions are
/// `u32` (a run makes far fewer than 2^32 calls); a lone call's slot is inline and a
/// batch's are one boxed slice (made whole, never grown), which becomes the machine's list
/// of results in place.
#[derive(Debug)]
pub(super) struct Batch {
    /// Index of its first call in `Envelope::calls`.
    pub(super) first: u32,
    /// Next position to launch.
    pub(super) next: u32,
    /// Members ended.
    pub(super) done: u32,
    /// By position: the call's state, and what it is dispatched with or ended with.
    pub(super) slots: Slots,
    /// Whether this is the script's provably direct call.
    pub(super) direct: bool,
    /// A single call (`Step::Tool`), resumed with `resume_tool`.
    pub(super) single: bool,
}

/// One call of the suspension being serviced (32 bytes, so that a batch's slots become
/// the machine's list of results in place).
#[derive(Debug)]
pub(super) struct Slot {
    pub(super) state: CallState,
    pub(super) held: Held,
}

/// What a slot holds besides its state: the converted arguments until the call is
/// dispatched, then its guest value once it ended. (A call whose arguments were refused
/// holds nothing; its message waits in `Cold::refusals` for its launch.)
#[derive(Debug)]
pub(super) enum Held {
    Nothing,
    /// The converted, validated arguments; the rest of the call's [`CallRequest`](super::CallRequest) is its
    /// audit record's.
    Args(Arc<Json>),
    /// The guest value of a call that ended.
    Value(Value),
}

// A batch's slots become the machine's list of results in place only when a slot's size
// is a multiple of a value's (otherwise the allocation is shrunk: one more per batch).
const _: () = assert!(std::mem::size_of::<Slot>().is_multiple_of(std::mem::size_of::<Value>()));

impl Held {
    /// The guest value of an ended call (nil if it has none).
    pub(super) fn into_value(self) -> Value {
        match self {
            Held::Value(value) => value,
            Held::Nothing | Held::Args(_) => Value::default(),
        }
    }
}

/// The slots of a suspension: a lone call's inline (no allocation: most suspensions are
/// one call), a batch's boxed.
#[derive(Debug)]
pub(super) enum Slots {
    One(Slot),
    Many(Box<[Slot]>),
}

impl std::ops::Deref for Slots {
    type Target = [Slot];

    fn deref(&self) -> &[Slot] {
        match self {
            Slots::One(slot) => std::slice::from_ref(slot),
            Slots::Many(slots) => slots,
        }
    }
}

impl std::ops::DerefMut for Slots {
    fn deref_mut(&mut self) -> &mut [Slot] {
        match self {
            Slots::One(slot) => std::slice::from_mut(slot),
            Slots::Many(slots) => slots,
        }
    }
}

impl Batch {
    /// Its number of calls.
    pub(super) fn count(&self) -> usize {
        self.slots.len()
    }

    /// The next position to launch.
    pub(super) fn next(&self) -> usize {
        self.next as usize
    }

    /// Whether every member has ended.
    pub(super) fn finished(&self) -> bool {
        self.done as usize >= self.count()
    }

    /// The index in `Envelope::calls` of its first call.
    pub(super) fn first(&self) -> usize {
        self.first as usize
    }

    /// The state of call `call` (an index in `Envelope::calls`), if it is a member.
    pub(super) fn state(&self, call: usize) -> Option<&CallState> {
        let position = call.checked_sub(self.first())?;
        self.slots.get(position).map(|slot| &slot.state)
    }

    /// Sets the state of call `call`, if it is a member.
    pub(super) fn set_state(&mut self, call: usize, state: CallState) {
        if let Some(slot) = call
            .checked_sub(self.first())
            .and_then(|position| self.slots.get_mut(position))
        {
            slot.state = state;
        }
    }

    /// `script` or `batch` (several calls), for the denial message.
    pub(super) fn scope(&self) -> &'static str {
        if self.count() > 1 { "batch" } else { "script" }
    }
}
