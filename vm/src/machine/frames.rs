//! The frame stack: one [`Frame`] per active guest function, innermost last.
//!
//! The stack keeps the slots of popped frames (their closures dropped) and reuses them on
//! the next push, so a call at a depth reached before is a store into an existing slot
//! rather than `Vec::push` (whose growth check stayed an out-of-line call of ~20
//! instructions per guest call in the dispatch loop, callgrind fib25).
//!
//! Invariants: `depth <= slots.len()`; the frames are `slots[..depth]`; every slot at or
//! above `depth` holds no closure (popping or truncating drops it), so a stale slot keeps
//! nothing alive. Only `push` appends a slot, and every caller of `push` has checked the
//! stack budget first (`calls.rs`, `enter` and `enter_direct`), so `slots.len()` never
//! exceeds `max(1, stack_depth)`: the fast path of a call ([`FrameStack::call`]) uses only
//! kept slots and needs no budget test of its own.

use crate::value::Closure;
use std::sync::Arc;

/// One activation of a guest function.
#[derive(Debug, Clone)]
pub(super) struct Frame {
    pub(super) func: usize,
    /// The next instruction (while the frame is not running).
    pub(super) pc: usize,
    /// First register of the window.
    pub(super) base: usize,
    /// Absolute register receiving the result in the caller's window.
    pub(super) ret: usize,
    pub(super) closure: Option<Arc<Closure>>,
}

/// The frames of a run, with the slots of popped frames kept for reuse.
#[derive(Debug, Default)]
pub(super) struct FrameStack {
    slots: Vec<Frame>,
    depth: usize,
}

impl FrameStack {
    /// A stack holding the one frame `frame`.
    pub(super) fn with(frame: Frame) -> FrameStack {
        FrameStack {
            slots: vec![frame],
            depth: 1,
        }
    }

    /// The number of frames.
    #[inline(always)]
    pub(super) fn len(&self) -> usize {
        self.depth
    }

    pub(super) fn is_empty(&self) -> bool {
        self.depth == 0
    }

    /// The innermost frame.
    #[inline(always)]
    pub(super) fn last(&self) -> Option<&Frame> {
        self.slots.get(self.depth.checked_sub(1)?)
    }

    /// The innermost frame, mutably.
    #[inline(always)]
    pub(super) fn last_mut(&mut self) -> Option<&mut Frame> {
        self.slots.get_mut(self.depth.checked_sub(1)?)
    }

    /// Pushes `frame`, into a kept slot when there is one.
    #[inline(always)]
    pub(super) fn push(&mut self, frame: Frame) {
        match self.slots.get_mut(self.depth) {
            Some(slot) => {
                // A kept slot holds no closure (the invariant), so the old value needs no
                // drop glue; were it to hold one, forgetting it would only leak.
                debug_assert!(slot.closure.is_none());
                std::mem::forget(std::mem::replace(slot, frame));
            }
            // `depth == slots.len()` here (the invariant), so this appends at `depth`.
            None => self.slots.push(frame),
        }
        self.depth += 1;
    }

    /// Pops the innermost frame; its slot is kept, without its closure.
    #[inline(always)]
    pub(super) fn pop(&mut self) -> Option<Frame> {
        let depth = self.depth.checked_sub(1)?;
        let slot = self.slots.get_mut(depth)?;
        self.depth = depth;
        Some(Frame {
            func: slot.func,
            pc: slot.pc,
            base: slot.base,
            ret: slot.ret,
            closure: slot.closure.take(),
        })
    }

    /// A call's frame pushed into the kept slot at `depth` (the fast path of a call at a
    /// depth reached before): saves `caller_pc` in the caller and writes the callee's frame
    /// with its window just past the caller's `caller_registers` registers and its result
    /// register `dst` of the caller's window, once `window()` (the callee's window and
    /// arguments) has succeeded. False, changing nothing, when there is no kept slot (a new
    /// depth: the general path checks the stack budget and appends) or `window()` fails.
    /// Every slot was appended under the stack budget, so a kept slot is within it.
    #[inline(always)]
    pub(super) fn call(
        &mut self,
        caller_pc: usize,
        func: usize,
        caller_registers: u16,
        dst: usize,
        closure: Option<Arc<Closure>>,
        window: impl FnOnce() -> bool,
    ) -> bool {
        let depth = self.depth;
        if depth == 0 || depth >= self.slots.len() {
            return false;
        }
        let (below, above) = self.slots.split_at_mut(depth);
        let (Some(caller), Some(slot)) = (below.last_mut(), above.first_mut()) else {
            return false;
        };
        if !window() {
            return false;
        }
        caller.pc = caller_pc;
        slot.func = func;
        slot.pc = 0;
        slot.base = caller.base + usize::from(caller_registers);
        slot.ret = caller.base + dst;
        // A kept slot holds no closure (the invariant); were it to hold one, forgetting
        // it would only leak.
        debug_assert!(slot.closure.is_none());
        std::mem::forget(std::mem::replace(&mut slot.closure, closure));
        self.depth = depth + 1;
        true
    }

    /// Leaves the innermost frame for its caller: drops the frame's closure and gives its
    /// result register and the caller's `(func, pc, base)`. `None`, changing nothing, when
    /// fewer than two frames remain.
    #[inline(always)]
    pub(super) fn leave(&mut self) -> Option<(usize, usize, usize, usize)> {
        let depth = self.depth.checked_sub(1)?;
        let [caller, top] = self.slots.get_mut(depth.checked_sub(1)?..=depth)? else {
            return None;
        };
        if let Some(closure) = top.closure.take() {
            crate::value::release_closure(closure);
        }
        let out = (top.ret, caller.func, caller.pc, caller.base);
        self.depth = depth;
        Some(out)
    }

    /// Pops frames until `depth` remain (no change when fewer do).
    pub(super) fn truncate(&mut self, depth: usize) {
        while self.depth > depth {
            let _ = self.pop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(func: usize) -> Frame {
        Frame {
            func,
            pc: func + 1,
            base: func + 2,
            ret: func + 3,
            closure: None,
        }
    }

    #[test]
    fn reused_slots_behave_like_a_vector() {
        let mut stack = FrameStack::with(frame(0));
        stack.push(frame(1));
        stack.push(frame(2));
        assert_eq!(stack.len(), 3);
        assert_eq!(stack.pop().map(|f| f.func), Some(2));
        assert_eq!(stack.last().map(|f| f.ret), Some(4));
        stack.push(frame(7));
        assert_eq!(
            stack.last().map(|f| (f.func, f.pc, f.base)),
            Some((7, 8, 9))
        );
        stack.truncate(1);
        assert_eq!(stack.len(), 1);
        assert_eq!(stack.last().map(|f| f.func), Some(0));
        stack.truncate(5);
        // Three kept slots: the caller (base 2) and two above it.
        assert!(stack.call(40, 5, 4, 3, None, || true));
        assert_eq!(stack.len(), 2);
        assert_eq!(
            stack.last().map(|f| (f.func, f.pc, f.base, f.ret)),
            Some((5, 0, 6, 5))
        );
        assert_eq!(stack.leave(), Some((5, 0, 40, 2)));
        assert_eq!(stack.leave(), None);
        assert_eq!(stack.len(), 1);
        assert!(stack.call(41, 8, 4, 1, None, || true));
        // A failing window leaves the stack as it was.
        assert!(!stack.call(99, 9, 1, 1, None, || false));
        assert!(stack.call(42, 11, 7, 2, None, || true));
        assert_eq!(
            stack.last().map(|f| (f.func, f.pc, f.base)),
            Some((11, 0, 13))
        );
        // No slot is kept at depth 3: a new depth is the general path's.
        assert!(!stack.call(43, 12, 1, 1, None, || true));
        assert_eq!(stack.leave(), Some((8, 8, 42, 6)));
        assert_eq!(stack.leave(), Some((3, 0, 41, 2)));
        assert_eq!(stack.len(), 1);
        assert!(stack.pop().is_some());
        assert!(stack.is_empty());
        assert!(stack.pop().is_none());
        assert!(stack.last().is_none());
        stack.push(frame(3));
        assert_eq!(stack.last().map(|f| f.func), Some(3));
    }
}
