//! The running frame's register window, read and written without a bounds check per
//! operand, and its code cursor, fetched without a bounds check per instruction: the
//! crate's one audited `unsafe` module.
//!
//! A [`Window`] is made from the register file once per frame entry (a call, a return, the
//! end of a slow-path instruction), checked then: `base + registers <= regs.len()`. It
//! mutably borrows the register file for its lifetime, so the file cannot be resized or
//! touched otherwise while the window lives (the borrow checker enforces it).
//!
//! Invariant relied on (`SAFETY` below): every register operand `r` of every instruction
//! of a function satisfies `r < function.registers`, and every argument block
//! `args .. args + argc` lies within `0 .. function.registers`: the load-time verifier
//! proves both for every function of a [`crate::program::Program`] (`verify.rs`, `reg` and
//! `block`), and a program can only be built through the verifier. The dispatch loop only
//! ever hands a window operands of the function the window was made for (it is remade
//! whenever the running function changes). Debug builds (every test, Miri) assert the
//! bound on every access.
//!
//! Measured (callgrind, `loop`/`fib25`/`closures`, see benches/README.md "dispatch and
//! call path round 3"): the checked form costs a reload of the file's length and base and
//! a compare-and-branch per operand.
//!
//! A window also keeps the end of the file, so a call makes its callee's window just past
//! its own (`Window::call`) with one test (`ptr + len + registers <= end`) and copies the
//! arguments across without further checks: the argument block lies in the caller's window
//! (verified, as above) and the callee's registers past it, so the two never overlap.
//!
//! A [`Cursor`] points at the running function's next instruction. It is made once per
//! frame entry from the function's code and a `pc`, checked then: `pc < code.len()`.
//! Invariant relied on (`SAFETY` at `fetch` and `jump`): the last instruction of every
//! function is a terminator (`RETURN`, `FAIL`, `JUMP`, `TAILCALL`, none of which continues
//! at the next instruction), and every jump target `pc + 1 + offset` lies in
//! `0 .. code.len()`: the verifier proves both (`verify.rs`, `jump` and the terminator
//! check in `verify`). So a fetch after an instruction that continues, or after a taken
//! jump, is always within the code. The dispatch loop only jumps by the offset of the
//! instruction it just fetched, and remakes the cursor (checked) whenever the running
//! function or `pc` changes otherwise (calls, returns, handlers, resumption).

// `unsafe` is allowed here by the module's declaration in `machine/mod.rs`, and only here.

use crate::isa::{Op, Reg};
use crate::value::Value;
use std::marker::PhantomData;

/// The running function's next instruction, within its code `start .. start + len`.
/// Only the pointer is kept in release builds (one loop value fewer for the dispatch
/// loop's registers); `pc` takes the code slice the cursor was made from.
pub(super) struct Cursor<'a> {
    ptr: *const Op,
    /// The code's first instruction and length, for the debug assertions.
    #[cfg(debug_assertions)]
    start: *const Op,
    #[cfg(debug_assertions)]
    len: usize,
    code: PhantomData<&'a [Op]>,
}

impl<'a> Cursor<'a> {
    /// The cursor at instruction `pc` of `code`; `None` when `pc` is not an instruction.
    #[inline(always)]
    pub(super) fn new(code: &'a [Op], pc: usize) -> Option<Cursor<'a>> {
        let op = code.get(pc)?;
        Some(Cursor {
            ptr: std::ptr::from_ref(op),
            #[cfg(debug_assertions)]
            start: code.as_ptr(),
            #[cfg(debug_assertions)]
            len: code.len(),
            code: PhantomData,
        })
    }

    /// The index of the next instruction in `code`, the slice the cursor was made from.
    #[inline(always)]
    pub(super) fn pc(&self, code: &'a [Op]) -> usize {
        #[cfg(debug_assertions)]
        debug_assert!(
            std::ptr::eq(code.as_ptr(), self.start),
            "a cursor of other code"
        );
        // `ptr` points into (or one past) `code`, at or after its start; were `code`
        // another slice the result would only be a wrong index, which every user checks.
        self.ptr.addr().wrapping_sub(code.as_ptr().addr()) / std::mem::size_of::<Op>()
    }

    /// The index of the next instruction (debug assertions).
    #[cfg(debug_assertions)]
    fn index(&self) -> usize {
        (self.ptr.addr() - self.start.addr()) / std::mem::size_of::<Op>()
    }

    /// The next instruction; the cursor moves past it.
    #[inline(always)]
    pub(super) fn fetch(&mut self) -> &'a Op {
        #[cfg(debug_assertions)]
        debug_assert!(
            self.index() < self.len,
            "fetch at {} of {}",
            self.index(),
            self.len
        );
        // SAFETY: `ptr < start + len` (the code's) by the terminator and jump invariants (module doc):
        // the cursor was made at a checked `pc`, and moves only past an instruction that is
        // not the last (the last is a terminator, which never continues) or by a jump to a
        // verified target. The slice is borrowed for `'a`, so it is live and unchanged.
        // The result may be one past the end, which `add` allows.
        unsafe {
            let op = &*self.ptr;
            self.ptr = self.ptr.add(1);
            op
        }
    }

    /// Takes the jump of the instruction just fetched: `offset` relative to the next one.
    #[inline(always)]
    pub(super) fn jump(&mut self, offset: i32) {
        #[cfg(debug_assertions)]
        debug_assert!(
            i64::try_from(self.index())
                .ok()
                .and_then(|pc| pc.checked_add(i64::from(offset)))
                .and_then(|t| usize::try_from(t).ok())
                .is_some_and(|t| t < self.len),
            "jump {offset} from {} of {}",
            self.index(),
            self.len
        );
        // SAFETY: the offset is that of the instruction just fetched, whose target
        // `pc + offset` lies in `0 .. len` by the verifier's jump invariant (module doc),
        // so the result points at an instruction of the same slice. `i32` to `isize`
        // is lossless on the 32- and 64-bit targets the crate builds for.
        unsafe {
            self.ptr = self.ptr.offset(offset as isize);
        }
    }
}

/// The registers `base .. base + len` of the register file, borrowed mutably, with the
/// end of the file (`end >= ptr + len`), before which a call makes its callee's window.
/// Only the pointers are kept in release builds (one loop value fewer for the dispatch
/// loop's registers; the length is the running function's `registers`).
pub(super) struct Window<'a> {
    ptr: *mut Value,
    end: *mut Value,
    #[cfg(debug_assertions)]
    len: usize,
    file: PhantomData<&'a mut [Value]>,
}

impl<'a> Window<'a> {
    /// The window of `registers` registers at `base`; `None` when the file is too short.
    #[inline(always)]
    pub(super) fn new(regs: &'a mut [Value], base: usize, registers: u16) -> Option<Window<'a>> {
        let rest = regs.get_mut(base..)?;
        let end = rest.as_mut_ptr_range().end;
        let window = rest.get_mut(..usize::from(registers))?;
        Some(Window {
            ptr: window.as_mut_ptr(),
            end,
            #[cfg(debug_assertions)]
            len: window.len(),
            file: PhantomData,
        })
    }

    /// Enters a call from the window of `len` registers (the running function's): copies
    /// the argument block `args .. args + argc` into the first `argc` registers just past
    /// the window, and moves the window to the `registers` registers there (the callee's
    /// window, `len` past the caller's base). False, changing nothing, when the file holds
    /// fewer than `registers` registers past the window (the general path grows it).
    ///
    /// `len` must be the window's length (the dispatch loop passes the registers of the
    /// function the window was made for) and `argc <= registers` must hold: the callee's
    /// parameters are exactly `argc` (the `CALL` and `CALLV` fast paths test it) and the
    /// verifier proves every function's parameters fit its window (`verify.rs`).
    #[inline(always)]
    pub(super) fn call(&mut self, len: u16, args: Reg, argc: u8, registers: u16) -> bool {
        let (len, start, count) = (usize::from(len), args.as_usize(), usize::from(argc));
        let registers = usize::from(registers);
        #[cfg(debug_assertions)]
        debug_assert_eq!(len, self.len, "a call from a window of another function");
        debug_assert!(start + count <= len, "block {start}+{count} of {len}");
        debug_assert!(
            count <= registers,
            "{count} arguments for {registers} registers"
        );
        // `end >= ptr` (made so by `new`, kept by this move), so the distance is exact.
        let room = (self.end.addr() - self.ptr.addr()) / std::mem::size_of::<Value>();
        if room < len + registers {
            return false;
        }
        // SAFETY: the source `start .. start + count` lies within the window (the verified
        // argument-block invariant, module doc, `len` being the window's length); the
        // target `len .. len + count` lies within `len .. len + registers <= room`
        // (tested above, `count <= registers` as stated), so both are in the exclusively
        // borrowed file and do not overlap. The new window `len .. len + registers` is
        // within `room` likewise, and the old one is given up (this borrow is its only
        // user).
        unsafe {
            let target = self.ptr.add(len);
            if count == 1 {
                copy_argument(&*self.ptr.add(start), &mut *target);
            } else {
                for i in 0..count {
                    copy_argument(&*self.ptr.add(start + i), &mut *target.add(i));
                }
            }
            self.ptr = target;
        }
        #[cfg(debug_assertions)]
        {
            self.len = registers;
        }
        true
    }

    /// Register `r`. `r` must be an operand of the window's function (verified).
    #[inline(always)]
    pub(super) fn get(&self, r: Reg) -> &Value {
        #[cfg(debug_assertions)]
        debug_assert!(r.as_usize() < self.len, "register {} of {}", r.0, self.len);
        // SAFETY: `r < len` by the verifier's register invariant (module doc), and
        // `ptr .. ptr + len` is the live, exclusively borrowed slice the window was made
        // from; the shared borrow of `self` keeps `get_mut` from aliasing it.
        unsafe { &*self.ptr.add(r.as_usize()) }
    }

    /// Register `r`, mutably. `r` must be an operand of the window's function (verified).
    #[inline(always)]
    pub(super) fn get_mut(&mut self, r: Reg) -> &mut Value {
        #[cfg(debug_assertions)]
        debug_assert!(r.as_usize() < self.len, "register {} of {}", r.0, self.len);
        // SAFETY: as in `get`; the exclusive borrow of `self` makes this the only reference.
        unsafe { &mut *self.ptr.add(r.as_usize()) }
    }

    /// The argument block `args .. args + argc` (verified to lie within the window).
    #[inline(always)]
    pub(super) fn block(&self, args: Reg, argc: u8) -> &[Value] {
        let (start, count) = (args.as_usize(), usize::from(argc));
        #[cfg(debug_assertions)]
        debug_assert!(
            start + count <= self.len,
            "block {start}+{count} of {}",
            self.len
        );
        // SAFETY: `args + argc <= len` by the verifier's argument-block invariant (module
        // doc); the slice lies within the borrowed window and is shared with `self`.
        unsafe { std::slice::from_raw_parts(self.ptr.add(start), count) }
    }

    /// Both registers' values when both are fixnums (the fast paths' operand test).
    #[inline(always)]
    pub(super) fn ints(&self, lhs: Reg, rhs: Reg) -> Option<(i64, i64)> {
        match (self.get(lhs), self.get(rhs)) {
            (Value::Int(a), Value::Int(b)) => Some((*a, *b)),
            _ => None,
        }
    }

    /// The payload of register `r` when it holds a fixnum, to overwrite in place (an
    /// arithmetic fast path's destination; any other value takes the general path).
    #[inline(always)]
    pub(super) fn int_slot(&mut self, r: Reg) -> Option<&mut i64> {
        match self.get_mut(r) {
            Value::Int(slot) => Some(slot),
            _ => None,
        }
    }

    /// Stores the integer `n` in `r`; an integer already there has only its payload
    /// written (a single-word store).
    #[inline(always)]
    pub(super) fn set_int(&mut self, r: Reg, n: i64) {
        match self.get_mut(r) {
            Value::Int(slot) => *slot = n,
            slot => *slot = Value::Int(n),
        }
    }

    /// Stores `value` in `r`; an immediate old value is forgotten rather than dropped,
    /// skipping the out-of-line drop glue.
    #[inline(always)]
    pub(super) fn set(&mut self, r: Reg, value: Value) {
        let old = std::mem::replace(self.get_mut(r), value);
        if old.is_immediate() {
            std::mem::forget(old);
        }
    }
}

/// One argument into its parameter register: an integer (the common argument) without
/// the generic clone, written as its payload alone when the register holds an integer.
#[inline(always)]
fn copy_argument(value: &Value, slot: &mut Value) {
    match (value, slot) {
        (&Value::Int(n), Value::Int(old)) => *old = n,
        (value, slot) => *slot = value.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_window_reads_and_writes_its_own_registers() {
        let mut regs = vec![Value::Nil; 6];
        let mut window = Window::new(&mut regs, 2, 3).expect("window fits");
        window.set_int(Reg(0), 5);
        window.set(Reg(2), Value::string("x"));
        window.set_int(Reg(2), 7);
        assert_eq!(window.ints(Reg(0), Reg(2)), Some((5, 7)));
        assert!(window.get(Reg(1)).is_nil());
        assert_eq!(window.block(Reg(0), 3).len(), 3);
        assert!(window.block(Reg(3), 0).is_empty());
        assert!(matches!(regs[2], Value::Int(5)));
        assert!(matches!(regs[4], Value::Int(7)));
    }

    #[test]
    fn a_cursor_fetches_in_order_and_jumps_by_offset() {
        let code = [
            Op::LoadNil { dst: Reg(0) },
            Op::Jump { offset: 1 },
            Op::LoadT { dst: Reg(0) },
            Op::Jump { offset: -3 },
        ];
        let mut cursor = Cursor::new(&code, 0).expect("pc 0 is an instruction");
        assert_eq!(*cursor.fetch(), code[0]);
        assert_eq!(cursor.pc(&code), 1);
        assert_eq!(*cursor.fetch(), Op::Jump { offset: 1 });
        cursor.jump(1);
        assert_eq!(cursor.pc(&code), 3);
        assert_eq!(*cursor.fetch(), Op::Jump { offset: -3 });
        assert_eq!(cursor.pc(&code), 4);
        cursor.jump(-3);
        assert_eq!(cursor.pc(&code), 1);
        assert!(Cursor::new(&code, 4).is_none());
        assert!(Cursor::new(&[], 0).is_none());
    }

    #[test]
    fn a_call_copies_its_arguments_into_the_window_past_the_callers() {
        // Caller window 1..4 (3 registers); callee of 3 registers at 4..7.
        let mut regs = vec![Value::Nil; 8];
        regs[5] = Value::Int(99);
        regs[6] = Value::string("old");
        regs[7] = Value::Int(1);
        let mut window = Window::new(&mut regs, 1, 3).expect("window fits");
        window.set_int(Reg(1), 4);
        window.set(Reg(2), Value::string("s"));
        // Four registers would end past the file: refused, nothing changed.
        assert!(!window.call(3, Reg(1), 2, 5));
        assert!(window.call(3, Reg(1), 2, 3));
        assert_eq!(window.ints(Reg(0), Reg(0)), Some((4, 4)));
        assert_eq!(window.get(Reg(1)).as_str(), Some("s"));
        // A one-argument call from the callee's window onwards: 7..8 is the last register.
        assert!(!window.call(3, Reg(0), 1, 2));
        assert!(window.call(3, Reg(0), 1, 1));
        assert!(matches!(window.get(Reg(0)), Value::Int(4)));
        assert!(matches!(regs[4], Value::Int(4)));
        assert_eq!(regs[5].as_str(), Some("s"));
        assert_eq!(regs[6].as_str(), Some("old"));
        assert!(matches!(regs[7], Value::Int(4)));
    }

    #[test]
    fn a_window_past_the_file_is_refused() {
        let mut regs = vec![Value::Nil; 4];
        assert!(Window::new(&mut regs, 2, 3).is_none());
        assert!(Window::new(&mut regs, usize::MAX, 2).is_none());
        assert!(Window::new(&mut regs, 4, 0).is_some());
    }
}
