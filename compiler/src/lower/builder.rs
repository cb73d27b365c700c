//! Per-function emission state: the instruction buffer with its span side table, the
//! stack-discipline register allocator, lexical scopes, and the capture list.
//!
//! Invariants:
//! - Registers are allocated as a stack: `alloc` takes the next free register, `release`
//!   returns to a mark. A call's argument block is always allocated last, so nothing live
//!   sits above it. `high_water` is the window size the function needs.
//! - Every emitted instruction records the span of the form being lowered.
//! - Jumps are emitted with placeholder offsets and patched once their target is known.

use ptc_vm::Span;
use ptc_vm::isa::{Op, Reg};
use ptc_vm::program::{Capture, Function};
use ptc_vm::symbol::Symbol;
use smallvec::SmallVec;
use std::borrow::Cow;

/// Where a variable lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Location {
    /// Directly in a register.
    Register(Reg),
    /// In a heap cell named by a register (captured by some closure).
    Cell(Reg),
    /// In a cell captured by the enclosing closure.
    Upvalue(u16),
}

/// A label for a jump whose target is not known yet.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Patch(usize);

/// The function being emitted.
#[derive(Debug)]
pub(crate) struct FunctionBuilder {
    pub(crate) name: Cow<'static, str>,
    pub(crate) code: Vec<Op>,
    pub(crate) spans: Vec<Span>,
    next_register: u32,
    high_water: u32,
    /// The bindings in scope, innermost last: inline up to 8 (a function's usual load).
    scopes: SmallVec<[(Symbol, Location); 8]>,
    /// Captured outer variables: the variable's symbol, the binding's identity in the
    /// enclosing function, and where the enclosing function holds it.
    pub(crate) captures: Vec<(Symbol, usize, Capture)>,
    /// The greatest pc some jump lands on, so peepholes never merge across a label. Every
    /// target is at or before the end of the code when it is recorded, and the code never
    /// shrinks below a recorded target, so the next pc is a target exactly when it is
    /// this one.
    last_target: Option<usize>,
    pub(crate) span: Span,
    pub(crate) required: u8,
    pub(crate) optional: u8,
    pub(crate) rest: bool,
}

/// The register window of one function may not exceed this many registers.
pub(crate) const MAX_REGISTERS: u32 = u16::MAX as u32;

/// Instructions a function's code vector holds at least before it first grows.
pub(crate) const INITIAL_CODE: usize = 32;

/// Most instructions a code vector is given room for up front, whatever the hint.
const MAX_INITIAL_CODE: usize = 4096;

impl FunctionBuilder {
    /// A builder whose code vectors have room for `expected` instructions (at least
    /// [`INITIAL_CODE`], at most [`MAX_INITIAL_CODE`]), so a function of about that size
    /// is emitted without regrowing them.
    pub(crate) fn new(name: Cow<'static, str>, span: Span, expected: usize) -> Self {
        let room = expected.clamp(INITIAL_CODE, MAX_INITIAL_CODE);
        FunctionBuilder {
            name,
            code: Vec::with_capacity(room),
            spans: Vec::with_capacity(room),
            next_register: 0,
            high_water: 0,
            scopes: SmallVec::new(),
            captures: Vec::new(),
            last_target: None,
            span,
            required: 0,
            optional: 0,
            rest: false,
        }
    }

    /// Emits `op` at the current span and returns its pc.
    pub(crate) fn emit(&mut self, op: Op) -> usize {
        self.code.push(op);
        self.spans.push(self.span);
        self.code.len() - 1
    }

    /// The pc the next instruction will get.
    pub(crate) fn here(&self) -> usize {
        self.code.len()
    }

    /// Emits a jump-like op whose offset is patched later with [`FunctionBuilder::patch`].
    pub(crate) fn emit_jump(&mut self, op: Op) -> Patch {
        Patch(self.emit(op))
    }

    /// Points the jump at `patch` to the next instruction emitted.
    pub(crate) fn patch_here(&mut self, patch: Patch) -> Result<(), EmitError> {
        let target = self.here();
        self.patch_to(patch, target)
    }

    /// Points the jump at `patch` to `target`.
    pub(crate) fn patch_to(&mut self, patch: Patch, target: usize) -> Result<(), EmitError> {
        let offset = offset_between(patch.0, target)?;
        let Some(op) = self.code.get_mut(patch.0) else {
            return Err(EmitError::Internal("patch out of range"));
        };
        match op {
            Op::Jump { offset: o }
            | Op::JumpIfNil { offset: o, .. }
            | Op::JumpIfNotNil { offset: o, .. } => *o = offset,
            Op::JumpIfNotLess { offset: o, .. }
            | Op::JumpIfLess { offset: o, .. }
            | Op::JumpIfNotLessImm { offset: o, .. }
            | Op::AddImmJumpIfLess { offset: o, .. } => {
                *o = i16::try_from(offset)
                    .map_err(|_| EmitError::Limit("jump too far for a fused compare".to_owned()))?;
            }
            _ => return Err(EmitError::Internal("patched instruction is not a jump")),
        }
        self.target(target);
        Ok(())
    }

    /// Records that a jump lands on `target` (at or before the next pc).
    fn target(&mut self, target: usize) {
        debug_assert!(target <= self.here(), "a jump target past the code");
        self.last_target = Some(self.last_target.map_or(target, |last| last.max(target)));
    }

    /// Whether the next instruction emitted will be a jump target.
    pub(crate) fn here_is_target(&self) -> bool {
        self.last_target == Some(self.here())
    }

    /// Emits the return of `src`. A trailing `MOVE src → x` before `RETURN x` becomes
    /// `RETURN src` in its place when no jump lands after the move (a jump onto the move
    /// itself still returns the same value).
    pub(crate) fn emit_return(&mut self, src: Reg) {
        if !self.here_is_target()
            && let Some(last) = self.code.last_mut()
            && let Op::Move { dst, src: from } = *last
            && dst == src
        {
            *last = Op::Return { src: from };
            return;
        }
        self.emit(Op::Return { src });
    }

    /// Fuses a counting loop's trailing increment with its bottom test: replaces a last
    /// `ADDI reg reg imm` (inside the body, at or after `top`) with `ADDI.JLT reg imm rhs`
    /// jumping back to `top`. Only when no jump lands after the increment (the test's own
    /// position), so every path through the increment still reaches the test. False, with
    /// nothing changed, when the shape does not match.
    pub(crate) fn fuse_increment_test(&mut self, reg: Reg, rhs: Reg, top: usize) -> bool {
        if self.here_is_target() {
            return false;
        }
        let Some(at) = self.here().checked_sub(1) else {
            return false;
        };
        if at < top {
            return false;
        }
        let Some(&Op::AddImm { dst, lhs, imm }) = self.code.get(at) else {
            return false;
        };
        let Ok(imm) = i8::try_from(imm) else {
            return false;
        };
        let Some(offset) = offset_between(at, top)
            .ok()
            .and_then(|o| i16::try_from(o).ok())
        else {
            return false;
        };
        if dst != reg || lhs != reg {
            return false;
        }
        let Some(slot) = self.code.get_mut(at) else {
            return false;
        };
        *slot = Op::AddImmJumpIfLess {
            reg,
            rhs,
            imm,
            offset,
        };
        self.target(top);
        true
    }

    /// Emits a backward jump to `target`.
    pub(crate) fn jump_back(&mut self, target: usize) -> Result<(), EmitError> {
        let pc = self.here();
        let offset = offset_between(pc, target)?;
        self.emit(Op::Jump { offset });
        self.target(target);
        Ok(())
    }

    /// A fresh register.
    pub(crate) fn alloc(&mut self) -> Result<Reg, EmitError> {
        let reg = self.next_register;
        if reg >= MAX_REGISTERS {
            return Err(EmitError::Limit(format!(
                "Script needs more than {MAX_REGISTERS} registers in one function"
            )));
        }
        self.next_register += 1;
        self.high_water = self.high_water.max(self.next_register);
        Ok(Reg(
            u16::try_from(reg).map_err(|_| EmitError::Internal("register overflow"))?
        ))
    }

    /// `count` fresh contiguous registers; the first one.
    pub(crate) fn alloc_block(&mut self, count: usize) -> Result<Reg, EmitError> {
        let first = self.alloc()?;
        for _ in 1..count {
            self.alloc()?;
        }
        Ok(first)
    }

    /// The current allocation mark.
    pub(crate) fn mark(&self) -> u32 {
        self.next_register
    }

    /// Frees every register allocated after `mark`.
    pub(crate) fn release(&mut self, mark: u32) {
        self.next_register = mark.min(self.next_register);
    }

    /// The register window size.
    pub(crate) fn registers(&self) -> u16 {
        u16::try_from(self.high_water).unwrap_or(u16::MAX)
    }

    /// Binds `symbol` at `location` in the innermost scope.
    pub(crate) fn bind(&mut self, symbol: Symbol, location: Location) {
        self.scopes.push((symbol, location));
    }

    /// The scope depth, to restore with [`FunctionBuilder::unbind_to`].
    pub(crate) fn scope_mark(&self) -> usize {
        self.scopes.len()
    }

    /// Drops bindings made after `mark`.
    pub(crate) fn unbind_to(&mut self, mark: usize) {
        self.scopes.truncate(mark);
    }

    /// The innermost binding of `symbol` in this function, with its identity (its index in
    /// the scope stack).
    pub(crate) fn lookup(&self, symbol: Symbol) -> Option<(usize, Location)> {
        self.scopes
            .iter()
            .enumerate()
            .rev()
            .find(|(_, (s, _))| *s == symbol)
            .map(|(i, (_, l))| (i, *l))
    }

    /// Makes sure the binding `identity` of the enclosing function, held there at `from`,
    /// is captured; returns its upvalue index.
    pub(crate) fn capture(
        &mut self,
        symbol: Symbol,
        identity: usize,
        from: Capture,
    ) -> Result<u16, EmitError> {
        if let Some(index) = self
            .captures
            .iter()
            .position(|(s, i, _)| *s == symbol && *i == identity)
        {
            return u16::try_from(index)
                .map_err(|_| EmitError::Limit("too many captures".to_owned()));
        }
        self.captures.push((symbol, identity, from));
        u16::try_from(self.captures.len() - 1)
            .map_err(|_| EmitError::Limit("too many captures".to_owned()))
    }

    /// The finished function.
    pub(crate) fn finish(self) -> Function {
        Function {
            registers: self.registers().max(1),
            name: self.name,
            code: self.code,
            spans: self.spans,
            required: self.required,
            optional: self.optional,
            rest: self.rest,
            captures: self.captures.into_iter().map(|(_, _, c)| c).collect(),
        }
    }
}

/// Why the emitter could not go on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum EmitError {
    /// A structural limit of the program (registers, jump distance, captures): the
    /// script's, E0903.
    Limit(String),
    /// A broken invariant of the emitter (never for a correct compiler): the compiler's
    /// fault, E0900.
    Internal(&'static str),
}

fn offset_between(from: usize, target: usize) -> Result<i32, EmitError> {
    let from = i64::try_from(from).map_err(|_| EmitError::Internal("pc overflow"))? + 1;
    let target = i64::try_from(target).map_err(|_| EmitError::Internal("pc overflow"))?;
    i32::try_from(target - from).map_err(|_| EmitError::Limit("jump too far".to_owned()))
}
