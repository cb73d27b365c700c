//! The load-time verifier.
//!
//! Checks every reference an instruction makes — registers against the function's window,
//! argument blocks, jump targets, constants (and that `Fail`/`AssertList` messages are
//! strings), functions, tools, primitives, captures — and that no function can fall off the
//! end of its code. Every error it reports is something a correct compiler cannot produce;
//! the machine relies on these facts and indexes unchecked in one place only,
//! `machine/regs.rs`: the running frame's register window, on the invariant stated at
//! `reg` and `block` below, and the code cursor, on the invariant stated at `jump` and at
//! the terminator check in `verify`.

use crate::isa::{ConstIdx, FuncIdx, Op, PrimIdx, Reg, ToolIdx};
use crate::prims::PRIMITIVES;
use crate::program::{Capture, Function, ProgramParts, VerifyError};
use crate::value::Value;

struct Checker<'a> {
    parts: &'a ProgramParts,
    function: &'a Function,
    index: usize,
    pc: usize,
}

impl Checker<'_> {
    fn fail(&self, problem: impl Into<String>) -> VerifyError {
        VerifyError {
            function: self.index,
            pc: self.pc,
            problem: problem.into(),
        }
    }

    /// INVARIANT relied on by `machine/regs.rs` (unchecked register access): every
    /// register operand of every instruction of a function is `< function.registers`.
    /// Every instruction's register operands go through here (or `block`); an operand
    /// left unchecked would be undefined behaviour in the dispatch loop, not an error.
    fn reg(&self, reg: Reg) -> Result<(), VerifyError> {
        if reg.0 < self.function.registers {
            Ok(())
        } else {
            Err(self.fail(format!(
                "register r{} outside a window of {}",
                reg.0, self.function.registers
            )))
        }
    }

    /// INVARIANT relied on by `machine/regs.rs` (`Window::block`): an argument block
    /// `args .. args + argc` lies within `0 .. function.registers`.
    fn block(&self, args: Reg, argc: u8) -> Result<(), VerifyError> {
        let end = u32::from(args.0) + u32::from(argc);
        if end <= u32::from(self.function.registers) {
            Ok(())
        } else {
            Err(self.fail(format!(
                "argument block r{}..r{end} outside the window",
                args.0
            )))
        }
    }

    fn constant(&self, idx: ConstIdx) -> Result<&Value, VerifyError> {
        self.parts
            .constants
            .get(idx.as_usize())
            .ok_or_else(|| self.fail(format!("constant {} out of range", idx.0)))
    }

    fn message(&self, idx: ConstIdx) -> Result<(), VerifyError> {
        match self.constant(idx)? {
            Value::Str(_) => Ok(()),
            _ => Err(self.fail("message constant is not a string")),
        }
    }

    fn func(&self, func: FuncIdx) -> Result<&Function, VerifyError> {
        match func.as_usize() {
            0 => Err(self.fail("the script body cannot be called")),
            i => self
                .parts
                .functions
                .get(i)
                .ok_or_else(|| self.fail(format!("function {i} out of range"))),
        }
    }

    fn tool(&self, tool: ToolIdx) -> Result<(), VerifyError> {
        if tool.as_usize() < self.parts.tools.len() {
            Ok(())
        } else {
            Err(self.fail("tool out of range"))
        }
    }

    fn prim(&self, prim: PrimIdx) -> Result<(), VerifyError> {
        if prim.as_usize() < PRIMITIVES.len() {
            Ok(())
        } else {
            Err(self.fail("primitive out of range"))
        }
    }

    /// A primitive index in range whose primitive accepts `count` arguments (the
    /// fixed-operand calls skip the arity check at run time).
    fn prim_arity(&self, prim: PrimIdx, count: usize) -> Result<(), VerifyError> {
        match PRIMITIVES.get(prim.as_usize()) {
            Some(p) if p.accepts(count) => Ok(()),
            Some(_) => Err(self.fail("primitive arity")),
            None => Err(self.fail("primitive out of range")),
        }
    }

    /// INVARIANT relied on by `machine/regs.rs` (`Cursor::fetch`, unchecked): every jump
    /// target `pc + 1 + offset` lies in `0 .. code.len()`. Every jump operand of every
    /// instruction goes through here.
    fn jump(&self, offset: i64) -> Result<(), VerifyError> {
        let target = i64::try_from(self.pc)
            .unwrap_or(i64::MAX)
            .saturating_add(1)
            .saturating_add(offset);
        let len = i64::try_from(self.function.code.len()).unwrap_or(i64::MAX);
        if (0..len).contains(&target) {
            Ok(())
        } else {
            Err(self.fail(format!("jump target {target} out of range")))
        }
    }

    fn upval(&self, idx: u16) -> Result<(), VerifyError> {
        if usize::from(idx) < self.function.captures.len() {
            Ok(())
        } else {
            Err(self.fail("capture index out of range"))
        }
    }

    fn op(&self, op: Op) -> Result<(), VerifyError> {
        match op {
            Op::Move { dst, src }
            | Op::NewCell { dst, src }
            | Op::Car { dst, src }
            | Op::Cdr { dst, src } => {
                self.reg(dst)?;
                self.reg(src)
            }
            Op::Not { dst, src } | Op::ReverseList { dst, src } => {
                self.reg(dst)?;
                self.reg(src)
            }
            Op::LoadCell { dst, cell } => {
                self.reg(dst)?;
                self.reg(cell)
            }
            Op::StoreCell { cell, src } => {
                self.reg(cell)?;
                self.reg(src)
            }
            Op::LoadConst { dst, idx } => {
                self.reg(dst)?;
                self.constant(idx).map(|_| ())
            }
            Op::LoadNil { dst }
            | Op::LoadT { dst }
            | Op::LoadInt { dst, .. }
            | Op::BatchEnd { dst } => self.reg(dst),
            Op::Parallel { dst, func, list } => {
                self.reg(dst)?;
                self.reg(func)?;
                self.reg(list)
            }
            Op::LoadUpval { dst, idx } => {
                self.reg(dst)?;
                self.upval(idx)
            }
            Op::StoreUpval { idx, src } => {
                self.reg(src)?;
                self.upval(idx)
            }
            Op::Jump { offset } => self.jump(i64::from(offset)),
            Op::JumpIfNil { src, offset } | Op::JumpIfNotNil { src, offset } => {
                self.reg(src)?;
                self.jump(i64::from(offset))
            }
            Op::JumpIfNotLess { lhs, rhs, offset } | Op::JumpIfLess { lhs, rhs, offset } => {
                self.reg(lhs)?;
                self.reg(rhs)?;
                self.jump(i64::from(offset))
            }
            Op::JumpIfNotLessImm { lhs, offset, .. } => {
                self.reg(lhs)?;
                self.jump(i64::from(offset))
            }
            Op::AddImmJumpIfLess {
                reg, rhs, offset, ..
            } => {
                self.reg(reg)?;
                self.reg(rhs)?;
                self.jump(i64::from(offset))
            }
            Op::Return { src } | Op::CheckCallable { src } => self.reg(src),
            Op::Fail { msg } => self.message(msg),
            Op::PushHandler { dst, clauses } => {
                self.reg(dst)?;
                self.reg(Reg(dst.0.saturating_add(1)))?;
                self.constant(clauses).map(|_| ())?;
                // The handler code starts two instructions on, after the jump to the body.
                self.jump(1)
            }
            Op::PopHandler => Ok(()),
            Op::AssertList { src, msg } => {
                self.reg(src)?;
                self.message(msg)
            }
            Op::CallFn {
                dst,
                func,
                args,
                argc,
            } => {
                self.reg(dst)?;
                self.func(func)?;
                self.block(args, argc)
            }
            Op::TailCallFn { func, args, argc } => {
                self.func(func)?;
                self.block(args, argc)
            }
            Op::CallPrim {
                dst,
                prim,
                args,
                argc,
            } => {
                self.reg(dst)?;
                self.prim(prim)?;
                self.block(args, argc)
            }
            Op::CallPrim1 { dst, prim, a } => {
                self.reg(dst)?;
                self.reg(a)?;
                self.prim_arity(prim, 1)
            }
            Op::CallPrim2 { dst, prim, a, b } => {
                self.reg(dst)?;
                self.reg(a)?;
                self.reg(b)?;
                self.prim_arity(prim, 2)
            }
            Op::CallPrimRK { dst, prim, a, k } | Op::CallPrimKR { dst, prim, k, b: a } => {
                self.reg(dst)?;
                self.reg(a)?;
                self.constant(ConstIdx(u32::from(k)))?;
                self.prim_arity(prim, 2)
            }
            Op::CallValue {
                dst,
                callee,
                args,
                argc,
            }
            | Op::ApplyValue {
                dst,
                callee,
                args,
                argc,
            } => {
                self.reg(dst)?;
                self.reg(callee)?;
                self.block(args, argc)
            }
            Op::MakeClosure { dst, func } => {
                self.reg(dst)?;
                let child = self.func(func)?;
                for capture in &child.captures {
                    match *capture {
                        Capture::Cell(reg) => self.reg(reg)?,
                        Capture::Upvalue(idx) => self.upval(idx)?,
                    }
                }
                Ok(())
            }
            Op::CallTool {
                dst,
                tool,
                args,
                argc,
            } => {
                self.reg(dst)?;
                self.tool(tool)?;
                self.block(args, argc)
            }
            Op::BatchBegin => Ok(()),
            Op::BatchPush { tool, args, argc } => {
                self.tool(tool)?;
                self.block(args, argc)
            }
            Op::Add { dst, lhs, rhs }
            | Op::Sub { dst, lhs, rhs }
            | Op::Mul { dst, lhs, rhs }
            | Op::Rem { dst, lhs, rhs }
            | Op::Less { dst, lhs, rhs }
            | Op::NumEq { dst, lhs, rhs }
            | Op::Eq { dst, lhs, rhs }
            | Op::Cons { dst, lhs, rhs } => {
                self.reg(dst)?;
                self.reg(lhs)?;
                self.reg(rhs)
            }
            Op::AddImm { dst, lhs, .. } => {
                self.reg(dst)?;
                self.reg(lhs)
            }
        }
    }
}

/// Verifies every function of `parts`.
pub(crate) fn verify(parts: &ProgramParts) -> Result<(), VerifyError> {
    if parts.functions.is_empty() {
        return Err(VerifyError {
            function: 0,
            pc: 0,
            problem: "no script body".into(),
        });
    }
    for (index, function) in parts.functions.iter().enumerate() {
        let mut checker = Checker {
            parts,
            function,
            index,
            pc: 0,
        };
        if function.spans.len() != function.code.len() {
            return Err(checker.fail("span table length differs from code length"));
        }
        if function.param_count() > usize::from(function.registers) {
            return Err(checker.fail("parameters exceed the register window"));
        }
        // INVARIANT relied on by `machine/regs.rs` (`Cursor::fetch`, unchecked): the last
        // instruction is one that never continues at the next, so no fetch runs past the
        // end (and the code is not empty).
        match function.code.last() {
            Some(Op::Return { .. } | Op::Fail { .. } | Op::Jump { .. } | Op::TailCallFn { .. }) => {
            }
            _ => return Err(checker.fail("function can fall off its end")),
        }
        // The body's required parameters are the script's declared inputs, bound by the
        // host before the first step (`Machine::bind_input`), nil otherwise.
        if index == 0 && (function.optional > 0 || function.rest || !function.captures.is_empty()) {
            return Err(checker.fail("the script body takes only required parameters, no captures"));
        }
        for (pc, op) in function.code.iter().enumerate() {
            checker.pc = pc;
            checker.op(*op)?;
        }
    }
    Ok(())
}
