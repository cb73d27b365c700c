//! The general path: every instruction executed out of the dispatch loop, with register
//! access checked and every operand's slow case (non-fixnum arithmetic, type errors,
//! budgets) handled.
//!
//! Invariant: a register index the verifier should have bounded but did not becomes an
//! internal error, never a panic.

use super::calls::{PrimRun, call_primitive};
use super::dispatch::{Flow, put};
use super::{Args, Machine, State, fast, internal};
use crate::error::{Error, ErrorKind, Result};
use crate::isa::{Op, Reg};
use crate::json::check_weight;
use crate::program::Program;
use crate::step::Step;
use crate::value::Value;

impl Machine {
    #[inline(always)]
    pub(super) fn reg(&self, base: usize, reg: Reg) -> Result<&Value> {
        self.regs
            .get(base + reg.as_usize())
            .ok_or_else(|| internal("register out of range"))
    }

    #[inline(always)]
    pub(super) fn set(&mut self, base: usize, reg: Reg, value: Value) -> Result<()> {
        if put(&mut self.regs, base + reg.as_usize(), value) {
            Ok(())
        } else {
            Err(internal("register out of range"))
        }
    }

    pub(super) fn args(&self, base: usize, args: Reg, argc: u8) -> Result<Args> {
        let start = base + args.as_usize();
        let slice = self
            .regs
            .get(start..start + usize::from(argc))
            .ok_or_else(|| internal("argument block out of range"))?;
        Ok(slice.iter().cloned().collect())
    }

    /// Executes one instruction. `pc` is already advanced past it. Inlined into its one
    /// caller, the dispatch loop's out-of-line general path.
    #[inline(always)]
    #[allow(clippy::too_many_lines)]
    pub(super) fn exec(
        &mut self,
        program: &Program,
        op: Op,
        base: usize,
        pc: usize,
    ) -> Result<Flow> {
        match op {
            Op::Move { dst, src } => {
                let value = self.reg(base, src)?.clone();
                self.set(base, dst, value)?;
            }
            Op::LoadConst { dst, idx } => {
                let value = program
                    .constants
                    .get(idx.as_usize())
                    .ok_or_else(|| internal("constant"))?
                    .clone();
                self.set(base, dst, value)?;
            }
            Op::LoadNil { dst } => self.set(base, dst, Value::Nil)?,
            Op::LoadT { dst } => self.set(base, dst, Value::T)?,
            Op::LoadInt { dst, value } => self.set(base, dst, Value::Int(i64::from(value)))?,
            Op::NewCell { dst, src } => {
                let value = self.reg(base, src)?.clone();
                self.charge_retained(crate::heap::CELL)?;
                let index = i64::try_from(self.cells.len()).map_err(|_| internal("cell heap"))?;
                self.cells.push(value);
                self.set(base, dst, Value::Int(index))?;
            }
            Op::LoadCell { dst, cell } => {
                let index = cell_index(self.reg(base, cell)?)?;
                let value = self
                    .cells
                    .get(index)
                    .ok_or_else(|| internal("cell"))?
                    .clone();
                self.set(base, dst, value)?;
            }
            Op::StoreCell { cell, src } => {
                let index = cell_index(self.reg(base, cell)?)?;
                let value = self.reg(base, src)?.clone();
                *self.cells.get_mut(index).ok_or_else(|| internal("cell"))? = value;
            }
            Op::LoadUpval { dst, idx } => {
                let index = self.upvalue(idx)?;
                let value = self
                    .cells
                    .get(index)
                    .ok_or_else(|| internal("cell"))?
                    .clone();
                self.set(base, dst, value)?;
            }
            Op::StoreUpval { idx, src } => {
                let index = self.upvalue(idx)?;
                let value = self.reg(base, src)?.clone();
                *self.cells.get_mut(index).ok_or_else(|| internal("cell"))? = value;
            }
            Op::Jump { offset } => return Ok(Flow::Jump(offset)),
            Op::JumpIfNil { src, offset } => {
                if self.reg(base, src)?.is_nil() {
                    return Ok(Flow::Jump(offset));
                }
            }
            Op::JumpIfNotNil { src, offset } => {
                if !self.reg(base, src)?.is_nil() {
                    return Ok(Flow::Jump(offset));
                }
            }
            Op::JumpIfNotLess { lhs, rhs, offset } | Op::JumpIfLess { lhs, rhs, offset } => {
                let less = match (self.reg(base, lhs)?, self.reg(base, rhs)?) {
                    (Value::Int(a), Value::Int(b)) => a < b,
                    (a, b) => {
                        let args: Args = [a.clone(), b.clone()].into_iter().collect();
                        self.primitive(fast::LESS, &args)?.is_true()
                    }
                };
                if less == matches!(op, Op::JumpIfLess { .. }) {
                    return Ok(Flow::Jump(i32::from(offset)));
                }
            }
            Op::JumpIfNotLessImm { lhs, imm, offset } => {
                let less = match self.reg(base, lhs)? {
                    Value::Int(a) => *a < i64::from(imm),
                    a => {
                        let args: Args = [a.clone(), Value::Int(i64::from(imm))]
                            .into_iter()
                            .collect();
                        self.primitive(fast::LESS, &args)?.is_true()
                    }
                };
                if !less {
                    return Ok(Flow::Jump(i32::from(offset)));
                }
            }
            Op::AddImmJumpIfLess {
                reg,
                rhs,
                imm,
                offset,
            } => {
                let sum = match self.reg(base, reg)? {
                    Value::Int(a) => match a.checked_add(i64::from(imm)) {
                        Some(n) if n.unsigned_abs() < self.int_bound => Value::Int(n),
                        _ => self
                            .primitive(fast::ADD, &[Value::Int(*a), Value::Int(i64::from(imm))])?,
                    },
                    other => {
                        let args = [other.clone(), Value::Int(i64::from(imm))];
                        self.primitive(fast::ADD, &args)?
                    }
                };
                self.set(base, reg, sum)?;
                let less = match (self.reg(base, reg)?, self.reg(base, rhs)?) {
                    (Value::Int(a), Value::Int(b)) => a < b,
                    (a, b) => {
                        let args: Args = [a.clone(), b.clone()].into_iter().collect();
                        self.primitive(fast::LESS, &args)?.is_true()
                    }
                };
                if less {
                    return Ok(Flow::Jump(i32::from(offset)));
                }
            }
            Op::Mul { dst, lhs, rhs } => {
                let value = match (self.reg(base, lhs)?, self.reg(base, rhs)?) {
                    (Value::Int(a), Value::Int(b)) => match a.checked_mul(*b) {
                        Some(n) if n.unsigned_abs() < self.int_bound => Value::Int(n),
                        _ => self.binary(fast::MUL, base, lhs, rhs)?,
                    },
                    _ => self.binary(fast::MUL, base, lhs, rhs)?,
                };
                self.set(base, dst, value)?;
            }
            Op::Rem { dst, lhs, rhs } => {
                let value = match (self.reg(base, lhs)?, self.reg(base, rhs)?) {
                    (Value::Int(a), Value::Int(b)) => match a.checked_rem(*b) {
                        Some(n) => Value::Int(n),
                        None => self.binary(fast::REM, base, lhs, rhs)?,
                    },
                    _ => self.binary(fast::REM, base, lhs, rhs)?,
                };
                self.set(base, dst, value)?;
            }
            Op::Return { src } => {
                let value = std::mem::take(
                    self.regs
                        .get_mut(base + src.as_usize())
                        .ok_or_else(|| internal("return"))?,
                );
                return self.return_value(value);
            }
            Op::PushHandler { dst, clauses } => {
                let clauses = program
                    .constants
                    .get(clauses.as_usize())
                    .cloned()
                    .ok_or_else(|| internal("handler clauses"))?;
                self.handlers.push(super::Handler {
                    depth: self.frames.len(),
                    pc: pc + 1,
                    dst: base + dst.as_usize(),
                    clauses,
                });
            }
            Op::PopHandler => {
                self.handlers.pop();
            }
            Op::Fail { msg } => {
                let message = program
                    .constants
                    .get(msg.as_usize())
                    .and_then(Value::as_str)
                    .unwrap_or("Script error");
                return Err(Error::script(message));
            }
            Op::CallFn {
                dst,
                func,
                args,
                argc,
            } => {
                let callee = program
                    .functions
                    .get(func.as_usize())
                    .ok_or_else(|| internal("function index"))?;
                if callee.optional == 0
                    && !callee.rest
                    && usize::from(argc) == usize::from(callee.required)
                {
                    let (args, ret) = (base + args.as_usize(), base + dst.as_usize());
                    self.enter_direct(program, func.as_usize(), args, argc, ret, pc)?;
                } else {
                    let args = self.args(base, args, argc)?;
                    self.enter(
                        program,
                        func.as_usize(),
                        None,
                        args,
                        base + dst.as_usize(),
                        pc,
                    )?;
                }
                return Ok(Flow::Enter);
            }
            Op::TailCallFn { func, args, argc } => {
                let args = self.args(base, args, argc)?;
                self.tail_enter(program, func.as_usize(), args)?;
                return Ok(Flow::Enter);
            }
            Op::CallPrim {
                dst,
                prim,
                args,
                argc,
            } => {
                // The arguments are passed in place, from their registers.
                let start = base + args.as_usize();
                let args = self
                    .regs
                    .get(start..start + usize::from(argc))
                    .ok_or_else(|| internal("argument block out of range"))?;
                let run = PrimRun {
                    limits: &self.limits,
                    symbols: &mut self.symbols,
                    regexps: &mut self.regexps,
                    stats: &mut self.stats,
                    metered: self.metered,
                };
                let value = call_primitive(run, prim.as_usize(), args)?;
                self.set(base, dst, value)?;
            }
            Op::CallPrim1 { dst, prim, a } => {
                let args = [self.reg(base, a)?.clone()];
                let value = self.primitive(prim.as_usize(), &args)?;
                self.set(base, dst, value)?;
            }
            Op::CallPrim2 { dst, prim, a, b } => {
                let args = [self.reg(base, a)?.clone(), self.reg(base, b)?.clone()];
                let value = self.primitive(prim.as_usize(), &args)?;
                self.set(base, dst, value)?;
            }
            Op::CallPrimRK { dst, prim, a, k } | Op::CallPrimKR { dst, prim, k, b: a } => {
                let constant = program
                    .constants
                    .get(usize::from(k))
                    .ok_or_else(|| internal("constant out of range"))?
                    .clone();
                let register = self.reg(base, a)?.clone();
                let args = if matches!(op, Op::CallPrimRK { .. }) {
                    [register, constant]
                } else {
                    [constant, register]
                };
                let value = self.primitive(prim.as_usize(), &args)?;
                self.set(base, dst, value)?;
            }
            Op::CallValue {
                dst,
                callee,
                args,
                argc,
            } => {
                let callee = self.reg(base, callee)?.clone();
                let args = self.args(base, args, argc)?;
                return self.call_value(program, &callee, args, base + dst.as_usize(), pc);
            }
            Op::ApplyValue {
                dst,
                callee,
                args,
                argc,
            } => {
                let callee = self.reg(base, callee)?.clone();
                let mut args = self.args(base, args, argc)?;
                let last = args.pop().unwrap_or(Value::Nil);
                let Some(spread) = last.list_to_vec() else {
                    return Err(Error::script("'apply': last argument must be a list"));
                };
                self.stats.fuel_used = self.stats.fuel_used.saturating_add(spread.len() as u64);
                args.extend(spread);
                return self.call_value(program, &callee, args, base + dst.as_usize(), pc);
            }
            Op::CheckCallable { src } => {
                let value = self.reg(base, src)?.clone();
                self.resolve_callable(program, &value)?;
            }
            Op::MakeClosure { dst, func } => {
                let closure = self.make_closure(program, base, func.0)?;
                self.set(base, dst, closure)?;
            }
            Op::CallTool {
                dst,
                tool,
                args,
                argc,
            } => {
                let args = self.args(base, args, argc)?;
                let span = self.current_span(program, pc);
                return self.call_tool(program, tool.as_usize(), args, base + dst.as_usize(), span);
            }
            Op::Parallel { dst, func, list } => {
                let func = self.reg(base, func)?.clone();
                let list = self.reg(base, list)?.clone();
                if self.parallel(base + dst.as_usize(), func, list)? {
                    return Ok(Flow::Suspend);
                }
            }
            Op::BatchBegin => {
                if self.branches.is_some() {
                    return Err(super::branches::nested());
                }
                if self.batch_mut().is_some() {
                    return Err(Error::script(
                        "A parallel call argument may not call another tool",
                    ));
                }
                self.pending = Some(Box::new(Step::Batch(Vec::new())));
            }
            Op::BatchPush { tool, args, argc } => {
                let args = self.args(base, args, argc)?;
                let span = self.current_span(program, pc);
                let request = self.request(program, tool.as_usize(), args, span)?;
                self.batch_mut()
                    .ok_or_else(|| internal("batch push outside a batch"))?
                    .push(request);
            }
            Op::BatchEnd { dst } => {
                let Some(mut pending) = self.pending.take() else {
                    return Err(internal("batch end outside a batch"));
                };
                let Step::Batch(batch) = &mut *pending else {
                    return Err(internal("batch end outside a batch"));
                };
                if batch.is_empty() {
                    self.set(base, dst, Value::Nil)?;
                    return Ok(Flow::Next);
                }
                let count = batch.len() as u64;
                if self.stats.tool_calls.saturating_add(count) > self.limits.tool_calls {
                    return Err(Error::new(
                        ErrorKind::ToolCall,
                        format!(
                            "Script exceeded its budget of {} tool calls before a {}-call parallel batch at call {}",
                            self.limits.tool_calls,
                            count,
                            self.stats.tool_calls + 1
                        ),
                    ));
                }
                self.stats.tool_calls += count;
                self.state = State::WaitingBatch {
                    dst: base + dst.as_usize(),
                    count: batch.len(),
                };
                // The collected batch is the step handed back.
                self.pending = Some(pending);
                return Ok(Flow::Suspend);
            }
            Op::Add { dst, lhs, rhs } => {
                let value = match (self.reg(base, lhs)?, self.reg(base, rhs)?) {
                    (Value::Int(a), Value::Int(b)) => match a.checked_add(*b) {
                        Some(n) if n.unsigned_abs() < self.int_bound => Value::Int(n),
                        _ => self.binary(fast::ADD, base, lhs, rhs)?,
                    },
                    _ => self.binary(fast::ADD, base, lhs, rhs)?,
                };
                self.set(base, dst, value)?;
            }
            Op::Sub { dst, lhs, rhs } => {
                let value = match (self.reg(base, lhs)?, self.reg(base, rhs)?) {
                    (Value::Int(a), Value::Int(b)) => match a.checked_sub(*b) {
                        Some(n) if n.unsigned_abs() < self.int_bound => Value::Int(n),
                        _ => self.binary(fast::SUB, base, lhs, rhs)?,
                    },
                    _ => self.binary(fast::SUB, base, lhs, rhs)?,
                };
                self.set(base, dst, value)?;
            }
            Op::AddImm { dst, lhs, imm } => {
                let value = match self.reg(base, lhs)? {
                    Value::Int(a) => match a.checked_add(i64::from(imm)) {
                        Some(n) if n.unsigned_abs() < self.int_bound => Value::Int(n),
                        _ => self
                            .primitive(fast::ADD, &[Value::Int(*a), Value::Int(i64::from(imm))])?,
                    },
                    other => {
                        let args = [other.clone(), Value::Int(i64::from(imm))];
                        self.primitive(fast::ADD, &args)?
                    }
                };
                self.set(base, dst, value)?;
            }
            Op::Less { dst, lhs, rhs } => {
                let value = match (self.reg(base, lhs)?, self.reg(base, rhs)?) {
                    (Value::Int(a), Value::Int(b)) => Value::bool(a < b),
                    _ => self.binary(fast::LESS, base, lhs, rhs)?,
                };
                self.set(base, dst, value)?;
            }
            Op::NumEq { dst, lhs, rhs } => {
                let value = match (self.reg(base, lhs)?, self.reg(base, rhs)?) {
                    (Value::Int(a), Value::Int(b)) => Value::bool(a == b),
                    _ => self.binary(fast::NUM_EQ, base, lhs, rhs)?,
                };
                self.set(base, dst, value)?;
            }
            Op::Eq { dst, lhs, rhs } => {
                let value =
                    Value::bool(crate::equal::eq(self.reg(base, lhs)?, self.reg(base, rhs)?));
                self.set(base, dst, value)?;
            }
            Op::Car { dst, src } => {
                let value = match self.reg(base, src)? {
                    Value::Cons(cell) => cell.car().clone(),
                    Value::Nil => Value::Nil,
                    other => {
                        let args = [other.clone()];
                        self.primitive(fast::CAR, &args)?
                    }
                };
                self.set(base, dst, value)?;
            }
            Op::Cdr { dst, src } => {
                let value = match self.reg(base, src)? {
                    Value::Cons(cell) => cell.cdr().clone(),
                    Value::Nil => Value::Nil,
                    other => {
                        let args = [other.clone()];
                        self.primitive(fast::CDR, &args)?
                    }
                };
                self.set(base, dst, value)?;
            }
            Op::Cons { dst, lhs, rhs } => {
                let car = self.reg(base, lhs)?.clone();
                let cdr = self.reg(base, rhs)?.clone();
                let value = Value::cons(car, cdr);
                check_weight(value.weight(), &self.limits)?;
                self.charge_retained(crate::heap::CONS)?;
                self.set(base, dst, value)?;
            }
            Op::Not { dst, src } => {
                let value = Value::bool(self.reg(base, src)?.is_nil());
                self.set(base, dst, value)?;
            }
            Op::AssertList { src, msg } => {
                if !self.reg(base, src)?.is_list() {
                    let message = program
                        .constants
                        .get(msg.as_usize())
                        .and_then(Value::as_str)
                        .unwrap_or("Expected a list");
                    return Err(Error::script(message));
                }
            }
            Op::ReverseList { dst, src } => {
                // The source is the compiler's accumulator, dead after this instruction:
                // taken, so its cells are reused in place (`Value::reversed`).
                let slot = self
                    .regs
                    .get_mut(base + src.as_usize())
                    .ok_or_else(|| internal("register out of range"))?;
                let (out, count) = std::mem::take(slot).reversed();
                self.stats.fuel_used = self.stats.fuel_used.saturating_add(count);
                check_weight(out.weight(), &self.limits)?;
                self.charge_retained(crate::heap::conses(count))?;
                self.set(base, dst, out)?;
            }
        }
        Ok(Flow::Next)
    }

    pub(super) fn upvalue(&self, idx: u16) -> Result<usize> {
        let closure = self
            .frames
            .last()
            .and_then(|f| f.closure.as_ref())
            .ok_or_else(|| internal("no closure"))?;
        closure
            .captures
            .get(usize::from(idx))
            .map(|&i| i as usize)
            .ok_or_else(|| internal("capture"))
    }

    pub(super) fn binary(&mut self, prim: usize, base: usize, lhs: Reg, rhs: Reg) -> Result<Value> {
        let args: Args = [self.reg(base, lhs)?.clone(), self.reg(base, rhs)?.clone()]
            .into_iter()
            .collect();
        self.primitive(prim, &args)
    }
}

pub(super) fn cell_index(value: &Value) -> Result<usize> {
    match value {
        Value::Int(n) => usize::try_from(*n).map_err(|_| internal("cell register")),
        _ => Err(internal("cell register")),
    }
}
