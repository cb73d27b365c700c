//! The dispatch loop: the hot instructions' integer, list and call fast paths inline,
//! everything else handed to the general path in `exec`.
//!
//! Owns the loop's local state (function, the code cursor, the register window, the fuel
//! countdown `left`; the running frame's base is read from its frame when needed) and
//! the register file while it runs (moved out of the machine and put back around every
//! slow-path call). Invariants: the fuel used is always `fuel_mark - left`, synchronised
//! into `stats.fuel_used` before any slow path and on every exit; a fast path either
//! completes its instruction or changes nothing and falls through to the general path.

use super::calls::{PrimRun, call_primitive, fast_operands};
use super::regs::{Cursor, Window};
use super::{Machine, State, internal};
use crate::error::Result;
use crate::isa::Op;
use crate::program::{Function, Program};
use crate::step::Step;
use crate::value::Value;
use std::sync::Arc;

impl Machine {
    pub(super) fn run(&mut self) -> Step {
        if let Err(error) = self.begin_slice() {
            return self.settle_error(error);
        }
        let program = Arc::clone(&self.program);
        loop {
            match self.execute(&program) {
                Ok(_) if self.branches.as_ref().is_some_and(|b| b.event.is_some()) => {
                    // A branch stopped (or branches start): switch ([`super::branches`]).
                    match self.branch_event(&program) {
                        Ok(None) => {}
                        Ok(Some(step)) => return step,
                        Err(error) => return self.settle_error(error),
                    }
                }
                Ok(step) => return step,
                Err(error) => {
                    if let Err(error) = self.catch(error) {
                        return self.settle_error(error);
                    }
                }
            }
        }
    }

    /// Runs the dispatch loop with the register file moved into a local, so the hot loop
    /// keeps its pointer and length in machine registers; `exec` (the slow path) sees it
    /// back in `self.regs`.
    pub(super) fn execute(&mut self, program: &Program) -> Result<Step> {
        let mut regs = std::mem::take(&mut self.regs);
        let outcome = self.dispatch(program, &mut regs);
        self.regs = regs;
        outcome
    }

    /// The dispatch loop. `regs` is the register file (taken out of `self`); it is put back
    /// around every call of `exec`.
    #[allow(clippy::too_many_lines)]
    pub(super) fn dispatch(&mut self, program: &Program, regs: &mut Vec<Value>) -> Result<Step> {
        let Some(top) = self.frames.last() else {
            return Err(internal("no frame to run"));
        };
        let mut func: &Function = program
            .functions
            .get(top.func)
            .ok_or_else(|| internal("bad function"))?;
        // The next instruction; remade (checked) whenever the running function changes.
        let mut code =
            Cursor::new(&func.code, top.pc).ok_or_else(|| internal("pc out of range"))?;
        // `|n| < int_bound` as one add and one unsigned compare, on locals (the machine's
        // field would be reloaded through `self` on every arithmetic result).
        let (int_bias, int_limit) = int_range(self.int_bound);
        let fits = |n: i64| n.cast_unsigned().wrapping_add(int_bias) <= int_limit;
        // The running frame's registers; remade whenever the register file is used
        // otherwise (calls, returns, the general path) or the running function changes.
        let mut win = Window::new(regs, top.base, func.registers)
            .ok_or_else(|| internal("register window out of range"))?;
        // Fuel counts down in a local: `left` instructions remain before the next check at
        // `self.fuel_mark`, so the fuel used is always `fuel_mark - left`. `self.stats.fuel_used` is
        // synchronised (`sync!`) before any slow path runs and on every exit.
        self.fuel_mark = self.next_check.max(self.stats.fuel_used);
        let mut left = self.fuel_mark - self.stats.fuel_used;
        // The cursor at `pc` of the function just entered; a `pc` outside its code (a
        // machine bug) ends the run with an internal error rather than a panic.
        macro_rules! enter {
            ($func:expr, $pc:expr) => {
                match Cursor::new(&$func.code, $pc) {
                    Some(code) => code,
                    None => {
                        sync!();
                        return Err(internal("pc out of range"));
                    }
                }
            };
        }
        macro_rules! sync {
            () => {
                self.stats.fuel_used = self.fuel_mark - left
            };
        }
        // A primitive call's outcome: the value into `dst` and on to the next instruction,
        // or the error with the call's span.
        macro_rules! primitive_result {
            ($dst:expr, $outcome:expr) => {
                match $outcome {
                    Ok(value) => {
                        win.set($dst, value);
                        continue;
                    }
                    Err(error) => {
                        let pc = code.pc(&func.code);
                        self.save_pc(pc);
                        return Err(error.with_span(span_at(func, pc.saturating_sub(1))));
                    }
                }
            };
        }
        // Takes the verified relative jump of the instruction just fetched.
        macro_rules! take_jump {
            ($offset:expr) => {
                code.jump(i32::from($offset))
            };
        }
        // A conditional jump as a branch, with its static bias: the compiler emits a loop's
        // test as a backward `JLT`/`JNOTNIL`/`ADDI.JLT` (`likely`: taken) and an exit or an
        // `if`'s else as a forward `JNLT`/`JNLTI`/`JNIL` (`unlikely`). Either hint keeps the
        // jump a branch: without one LLVM makes the next `pc` a conditional move, so the
        // following fetch and its operand loads wait on the compared registers instead of
        // running ahead on the branch predictor (criterion `loop_sum_1e6`: 8.31 → 7.43 ms).
        macro_rules! jump_if {
            (likely $cond:expr, $offset:expr) => {
                if $cond {
                    take_jump!($offset);
                } else {
                    std::hint::cold_path();
                }
            };
            (unlikely $cond:expr, $offset:expr) => {
                if $cond {
                    std::hint::cold_path();
                    take_jump!($offset);
                }
            };
        }
        loop {
            if left == 0 {
                sync!();
                match self.fuel_check() {
                    Ok(false) => {
                        // At least one instruction runs between two checks, as before.
                        let fuel = self.stats.fuel_used;
                        left = self.next_check.saturating_sub(fuel).max(1);
                        self.fuel_mark = fuel + left;
                    }
                    Ok(true) => {
                        self.save_pc(code.pc(&func.code));
                        self.stats.pauses += 1;
                        return Ok(Step::Pause);
                    }
                    Err(error) => {
                        self.save_pc(code.pc(&func.code));
                        return Err(error.with_span(span_at(func, code.pc(&func.code))));
                    }
                }
            }
            left -= 1;
            // A reference, so each arm loads its own operands (a copy had every operand
            // field extracted into registers before the jump, spilling the loop's state).
            let op = code.fetch();
            // The hot instructions on their integer fast paths, without leaving the loop.
            match *op {
                Op::Jump { offset } => {
                    take_jump!(offset);
                    continue;
                }
                Op::JumpIfNotLess { lhs, rhs, offset } => {
                    if let Some((a, b)) = win.ints(lhs, rhs) {
                        jump_if!(unlikely a >= b, offset);
                        continue;
                    }
                }
                Op::JumpIfNil { src, offset } => {
                    jump_if!(unlikely win.get(src).is_nil(), offset);
                    continue;
                }
                Op::JumpIfNotNil { src, offset } => {
                    jump_if!(likely !win.get(src).is_nil(), offset);
                    continue;
                }
                Op::LoadNil { dst } => {
                    win.set(dst, Value::Nil);
                    continue;
                }
                // List walking: `car`/`cdr` of a cons or nil; anything else takes the
                // general path (and its type error).
                // `(setq rest (cdr rest))`: in place, recycling a cell only `rest` held.
                Op::Cdr { dst, src } if dst == src && Value::step_to_cdr(win.get_mut(src)) => {
                    continue;
                }
                Op::Car { dst, src } | Op::Cdr { dst, src } => {
                    let part = match win.get(src) {
                        Value::Cons(cell) if matches!(*op, Op::Car { .. }) => {
                            Some(cell.car().clone())
                        }
                        Value::Cons(cell) => Some(cell.cdr().clone()),
                        Value::Nil => Some(Value::Nil),
                        _ => None,
                    };
                    if let Some(part) = part {
                        win.set(dst, part);
                        continue;
                    }
                }
                // A fresh cons within the value and retained budgets; over either budget
                // the general path builds it again and fails.
                Op::Cons { dst, lhs, rhs } => {
                    let value = Value::cons(win.get(lhs).clone(), win.get(rhs).clone());
                    let retained = self.stats.retained_bytes.saturating_add(crate::heap::CONS);
                    if value.weight().bytes <= self.limits.value_bytes
                        && value.weight().nodes <= self.limits.value_nodes
                        && retained <= self.limits.retained_bytes
                    {
                        win.set(dst, value);
                        self.stats.retained_bytes = retained;
                        continue;
                    }
                }
                Op::JumpIfLess { lhs, rhs, offset } => {
                    if let Some((a, b)) = win.ints(lhs, rhs) {
                        jump_if!(likely a < b, offset);
                        continue;
                    }
                }
                Op::JumpIfNotLessImm { lhs, imm, offset } => {
                    if let &Value::Int(a) = win.get(lhs) {
                        jump_if!(unlikely a >= i64::from(imm), offset);
                        continue;
                    }
                }
                Op::AddImmJumpIfLess {
                    reg,
                    rhs,
                    imm,
                    offset,
                } => {
                    if let Some((a, b)) = win.ints(reg, rhs)
                        && let Some(n) = a.checked_add(i64::from(imm))
                        && fits(n)
                    {
                        win.set_int(reg, n);
                        jump_if!(likely n < b, offset);
                        continue;
                    }
                }
                Op::Mul { dst, lhs, rhs } => {
                    if let Some((a, b)) = win.ints(lhs, rhs)
                        && let Some(n) = a.checked_mul(b)
                        && fits(n)
                        && let Some(slot) = win.int_slot(dst)
                    {
                        *slot = n;
                        continue;
                    }
                }
                Op::Rem { dst, lhs, rhs } => {
                    if let Some((a, b)) = win.ints(lhs, rhs)
                        && let Some(n) = a.checked_rem(b)
                        && let Some(slot) = win.int_slot(dst)
                    {
                        *slot = n;
                        continue;
                    }
                }
                Op::AddImm { dst, lhs, imm } => {
                    if let Value::Int(a) = win.get(lhs)
                        && let Some(n) = a.checked_add(i64::from(imm))
                        && fits(n)
                    {
                        win.set_int(dst, n);
                        continue;
                    }
                }
                Op::NumEq { dst, lhs, rhs } | Op::Less { dst, lhs, rhs } => {
                    if let Some((a, b)) = win.ints(lhs, rhs) {
                        let holds = if matches!(*op, Op::NumEq { .. }) {
                            a == b
                        } else {
                            a < b
                        };
                        win.set(dst, Value::bool(holds));
                        continue;
                    }
                }
                // The arithmetic fast paths below store into a destination that already
                // holds a fixnum (`Window::int_slot`, one payload word; anything else takes
                // the general path). Written so, LLVM keeps the loop's cursor and window in
                // the registers `loop` needs (callgrind: with `set_int` here the sum took
                // the window's register and `ADD` gained moves, +1-2 M on `loop`). `ADDI`
                // keeps `set_int`: with `int_slot` its code equals `ADD`'s and LLVM merges
                // the two tails behind a jump (+1 M on `loop`).
                Op::Add { dst, lhs, rhs } => {
                    if let Some((a, b)) = win.ints(lhs, rhs)
                        && let Some(n) = a.checked_add(b)
                        && fits(n)
                        && let Some(slot) = win.int_slot(dst)
                    {
                        *slot = n;
                        continue;
                    }
                }
                Op::Sub { dst, lhs, rhs } => {
                    if let Some((a, b)) = win.ints(lhs, rhs)
                        && let Some(n) = a.checked_sub(b)
                        && fits(n)
                        && let Some(slot) = win.int_slot(dst)
                    {
                        *slot = n;
                        continue;
                    }
                }
                Op::LoadInt { dst, value } => {
                    win.set_int(dst, i64::from(value));
                    continue;
                }
                Op::Move { dst, src } => {
                    match win.get(src) {
                        &Value::Int(n) => win.set_int(dst, n),
                        value => {
                            let value = value.clone();
                            win.set(dst, value);
                        }
                    }
                    continue;
                }
                Op::LoadConst { dst, idx } => {
                    if let Some(value) = program.constants.get(idx.as_usize()) {
                        win.set(dst, value.clone());
                        continue;
                    }
                }
                // A call of a script function taking exactly `argc` parameters, at a depth
                // reached before and within the register file (`FrameStack::call`,
                // `Window::call`): the arguments are copied into the callee's window just
                // past the caller's and its frame is written into a kept slot. A new depth
                // or a short file takes the general path, which checks the stack budget and
                // grows both (once per depth).
                Op::CallFn {
                    dst,
                    func: callee_index,
                    args,
                    argc,
                } => {
                    if let Some(callee) = program.functions.get(callee_index.as_usize())
                        && callee.optional == 0
                        && !callee.rest
                        && argc == callee.required
                        && self.frames.call(
                            code.pc(&func.code),
                            callee_index.as_usize(),
                            func.registers,
                            dst.as_usize(),
                            None,
                            #[inline(always)]
                            || win.call(func.registers, args, argc, callee.registers),
                        )
                    {
                        func = callee;
                        code = enter!(func, 0);
                        continue;
                    }
                }
                // A closure called through a variable (`funcall`, `mapcar`'s function):
                // the same fast path, the frame holding the closure for its captures.
                Op::CallValue {
                    dst,
                    callee,
                    args,
                    argc,
                } => {
                    if let Value::Closure(closure) = win.get(callee)
                        && let Some(target) = program.functions.get(closure.function as usize)
                        && target.optional == 0
                        && !target.rest
                        && argc == target.required
                    {
                        let index = closure.function as usize;
                        let closure = Some(Arc::clone(closure));
                        if self.frames.call(
                            code.pc(&func.code),
                            index,
                            func.registers,
                            dst.as_usize(),
                            closure,
                            #[inline(always)]
                            || win.call(func.registers, args, argc, target.registers),
                        ) {
                            func = target;
                            code = enter!(func, 0);
                            continue;
                        }
                    }
                }
                // A primitive call, its arguments passed in place from their registers.
                Op::CallPrim {
                    dst,
                    prim,
                    args,
                    argc,
                } => {
                    {
                        let args = win.block(args, argc);
                        sync!();
                        let run = PrimRun {
                            limits: &self.limits,
                            symbols: &mut self.symbols,
                            regexps: &mut self.regexps,
                            stats: &mut self.stats,
                            metered: self.metered,
                        };
                        let outcome = call_primitive(run, prim.as_usize(), args);
                        // The primitive may have charged work beyond the instruction itself.
                        left = self.left_after_work();
                        primitive_result!(dst, outcome);
                    }
                }
                // A fixed-operand primitive call: the fast path on operands borrowed from
                // their registers or the constant pool (`calls::fast_operands`), else the
                // general path on copies.
                Op::CallPrim1 { dst, prim, .. }
                | Op::CallPrim2 { dst, prim, .. }
                | Op::CallPrimRK { dst, prim, .. }
                | Op::CallPrimKR { dst, prim, .. } => {
                    let constant = |k: u16| program.constants.get(usize::from(k));
                    let (x, y) = match *op {
                        Op::CallPrim2 { a, b, .. } => (win.get(a), Some(win.get(b))),
                        Op::CallPrimRK { a, k, .. } => match constant(k) {
                            Some(c) => (win.get(a), Some(c)),
                            None => {
                                sync!();
                                return Err(internal("constant out of range"));
                            }
                        },
                        Op::CallPrimKR { k, b, .. } => match constant(k) {
                            Some(c) => (c, Some(win.get(b))),
                            None => {
                                sync!();
                                return Err(internal("constant out of range"));
                            }
                        },
                        Op::CallPrim1 { a, .. } => (win.get(a), None),
                        _ => {
                            sync!();
                            return Err(internal("not a fixed-operand call"));
                        }
                    };
                    if let Some((value, work)) = fast_operands(prim.as_usize(), x, y, &self.limits)
                        && work < left
                    {
                        left -= work;
                        win.set(dst, value);
                        continue;
                    }
                    sync!();
                    let outcome = self.primitive_on_copies(prim.as_usize(), x, y);
                    left = self.left_after_work();
                    primitive_result!(dst, outcome);
                }
                Op::Return { src } if self.frames.len() > 1 => {
                    // Return to a guest caller (the script body's return runs the final checks).
                    let value = match win.get_mut(src) {
                        Value::Int(n) => Value::Int(*n),
                        slot => std::mem::take(slot),
                    };
                    if let Some((caller, caller_pc, window)) = self.pop_return(program, regs, value)
                    {
                        func = caller;
                        code = enter!(func, caller_pc);
                        win = window;
                        continue;
                    }
                    sync!();
                    return Err(internal("return to a missing frame"));
                }
                // Every other instruction, listed rather than matched by `_` so the match
                // is exhaustive: the jump table then covers every discriminant and the
                // dispatch head needs no range check (2 instructions per instruction,
                // callgrind `loop`), and a new instruction must be placed here or above.
                Op::LoadT { .. }
                | Op::NewCell { .. }
                | Op::LoadCell { .. }
                | Op::StoreCell { .. }
                | Op::LoadUpval { .. }
                | Op::StoreUpval { .. }
                | Op::Return { .. }
                | Op::Fail { .. }
                | Op::TailCallFn { .. }
                | Op::ApplyValue { .. }
                | Op::CheckCallable { .. }
                | Op::MakeClosure { .. }
                | Op::CallTool { .. }
                | Op::BatchBegin
                | Op::BatchPush { .. }
                | Op::BatchEnd { .. }
                | Op::Parallel { .. }
                | Op::Eq { .. }
                | Op::Not { .. }
                | Op::AssertList { .. }
                | Op::ReverseList { .. }
                | Op::PushHandler { .. }
                | Op::PopHandler => {}
            }
            sync!();
            let pc = code.pc(&func.code);
            match self.general(program, regs, *op, pc) {
                Ok(Flow::Next) => {}
                Ok(Flow::Jump(offset)) => code.jump(offset),
                Ok(Flow::Enter | Flow::Leave) => {
                    let Some(top) = self.frames.last() else {
                        return Err(internal("no frame after call"));
                    };
                    func = program
                        .functions
                        .get(top.func)
                        .ok_or_else(|| internal("bad function"))?;
                    code = enter!(func, top.pc);
                }
                Ok(flow @ (Flow::Finish | Flow::Suspend)) => {
                    return self.finish_or_suspend(flow, pc);
                }
                Err(error) => {
                    self.save_pc(pc);
                    return Err(error.with_span(span_at(func, pc.saturating_sub(1))));
                }
            }
            // The instruction may have charged work beyond the instruction itself.
            left = self.left_after_work();
            let base = self.frames.last().map_or(0, |top| top.base);
            win = Window::new(regs, base, func.registers)
                .ok_or_else(|| internal("register window out of range"))?;
        }
    }

    /// The general path of one instruction, out of line so the loop's own code stays
    /// small: `exec` with the register file put back into the machine around it.
    #[inline(never)]
    fn general(
        &mut self,
        program: &Program,
        regs: &mut Vec<Value>,
        op: Op,
        pc: usize,
    ) -> Result<Flow> {
        // The running frame's base: the loop keeps none of its own (one register fewer).
        let base = self.frames.last().map_or(0, |top| top.base);
        std::mem::swap(&mut self.regs, regs);
        let outcome = self.exec(program, op, base, pc);
        std::mem::swap(&mut self.regs, regs);
        outcome
    }

    /// The step after an instruction that finished the run or suspended it.
    #[cold]
    #[inline(never)]
    fn finish_or_suspend(&mut self, flow: Flow, pc: usize) -> Result<Step> {
        if let Flow::Suspend = flow {
            self.save_pc(pc);
            if self.branches.as_ref().is_some_and(|b| b.event.is_some()) {
                // Acted on by `run` (a branch switch); this step is never handed out.
                return Ok(Step::Pause);
            }
            return self
                .pending
                .take()
                .map(|step| *step)
                .ok_or_else(|| internal("suspension without a request"));
        }
        match &self.state {
            State::Done(value) => Ok(Step::Done(value.clone())),
            _ => Err(internal("a finished run without its value")),
        }
    }

    /// The fast path of `RETURN` to a guest caller: pops the frame and stores the value in
    /// the caller's destination. The caller's function, pc and base; `None` when the frame
    /// stack is inconsistent (a machine bug, reported as internal).
    #[inline(always)]
    pub(super) fn pop_return<'p, 'r>(
        &mut self,
        program: &'p Program,
        regs: &'r mut [Value],
        value: Value,
    ) -> Option<(&'p Function, usize, Window<'r>)> {
        let (ret, caller, caller_pc, caller_base) = self.frames.leave()?;
        let function = program.functions.get(caller)?;
        if !put(regs, ret, value) {
            return None;
        }
        let window = Window::new(regs, caller_base, function.registers)?;
        Some((function, caller_pc, window))
    }

    pub(super) fn save_pc(&mut self, pc: usize) {
        if let Some(top) = self.frames.last_mut() {
            top.pc = pc;
        }
    }
}

/// Stores `value` in absolute register `index`; false when out of range. Immediate
/// old values are forgotten rather than dropped, skipping the out-of-line drop glue.
#[inline(always)]
pub(super) fn put(regs: &mut [Value], index: usize, value: Value) -> bool {
    match regs.get_mut(index) {
        Some(slot) => {
            let old = std::mem::replace(slot, value);
            if old.is_immediate() {
                std::mem::forget(old);
            }
            true
        }
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::int_range;

    #[test]
    fn the_int_range_test_is_the_magnitude_bound() {
        let samples = [
            i64::MIN,
            i64::MIN + 1,
            -(1 << 62) - 1,
            -(1 << 62),
            -(1 << 62) + 1,
            -1025,
            -1024,
            -1023,
            -2,
            -1,
            0,
            1,
            2,
            1023,
            1024,
            1025,
            (1 << 62) - 1,
            1 << 62,
            i64::MAX - 1,
            i64::MAX,
        ];
        for bits in [0u32, 1, 2, 10, 11, 61, 62, 63, 64, 65, 4096] {
            let bound = if bits >= 64 { u64::MAX } else { 1u64 << bits };
            let (bias, limit) = int_range(bound);
            for n in samples {
                let fast = n.cast_unsigned().wrapping_add(bias) <= limit;
                assert_eq!(fast, n.unsigned_abs() < bound, "bits {bits} n {n}");
            }
        }
    }
}

/// What to do after one instruction.
#[derive(Clone, Copy)]
pub(super) enum Flow {
    Next,
    Jump(i32),
    /// A frame was pushed or replaced.
    Enter,
    /// A frame was popped.
    Leave,
    /// The run finished; the value is in the machine's `Done` state.
    Finish,
    /// The run suspended; the step is in `pending`.
    Suspend,
}

/// `(bias, limit)` such that `|n| < bound` exactly when `n + bias <= limit` in wrapping
/// unsigned arithmetic, for every `bound >= 1` (`bound` is `2^number_bits`, saturated).
/// For `bound <= 2^63`: `n` in `-(bound-1) ..= bound-1` maps onto `0 ..= 2*bound-2`, and
/// every other `i64` onto a value above it (below zero wraps above `2^63 + bound - 2`).
/// A larger bound admits every `i64`.
pub(super) fn int_range(bound: u64) -> (u64, u64) {
    if bound > 1 << 63 {
        (0, u64::MAX)
    } else {
        let bias = bound.saturating_sub(1);
        (bias, bias * 2)
    }
}

pub(super) fn span_at(func: &Function, pc: usize) -> crate::Span {
    func.spans
        .get(pc)
        .or_else(|| func.spans.last())
        .copied()
        .unwrap_or_default()
}
