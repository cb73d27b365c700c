//! Calls and frames: entering script functions (exact, optional and rest parameters,
//! tail calls), returning, resolving callable values, and calling primitives with the
//! dialect's operand accounting.
//!
//! Invariants: the frame stack never exceeds the stack budget; a new window starts just
//! past the caller's registers and the register file only grows during a run; a
//! primitive's work, fresh structure and result size are charged before its value is used.

use super::dispatch::{Flow, put};
use super::exec::cell_index;
use super::fuel::step_budget;
use super::tools::closure_boundary;
use super::{Args, Frame, Machine, State, internal, retain};
use crate::error::{Error, ErrorKind, Result};
use crate::json::check_weight;
use crate::limits::Limits;
use crate::prims::{PRIMITIVES, PrimCtx, fast};
use crate::print::{self, Style};
use crate::program::{Callable, Capture, Function, Program};
use crate::regexp::RegexCache;
use crate::step::Stats;
use crate::symbol::Symbols;
use crate::value::{Captures, Closure, Value, Weight};
use std::sync::Arc;

impl Machine {
    /// Calls a primitive with the operand accounting of the dialect (see [`call_primitive`]).
    pub(super) fn primitive(&mut self, index: usize, args: &[Value]) -> Result<Value> {
        call_primitive(
            PrimRun {
                limits: &self.limits,
                symbols: &mut self.symbols,
                regexps: &mut self.regexps,
                stats: &mut self.stats,
                metered: self.metered,
            },
            index,
            args,
        )
    }

    /// The general path of a fixed-operand primitive call: [`Machine::primitive`] on
    /// copies of the operands. Out of line, so the dispatch loop keeps only the fast path.
    #[cold]
    #[inline(never)]
    pub(super) fn primitive_on_copies(
        &mut self,
        index: usize,
        a: &Value,
        b: Option<&Value>,
    ) -> Result<Value> {
        match b {
            Some(b) => self.primitive(index, &[a.clone(), b.clone()]),
            None => self.primitive(index, std::slice::from_ref(a)),
        }
    }

    /// A fresh closure of function `func`, capturing the cells its capture list names from
    /// the making frame (window at `base`): one allocation for up to
    /// [`crate::value::INLINE_CAPTURES`] cells, its retained bytes charged first.
    pub(super) fn make_closure(
        &mut self,
        program: &Program,
        base: usize,
        func: u16,
    ) -> Result<Value> {
        let child = program
            .functions
            .get(usize::from(func))
            .ok_or_else(|| internal("closure function"))?;
        let mut captures = Captures::with_capacity(child.captures.len());
        for capture in &child.captures {
            let index = match *capture {
                Capture::Cell(reg) => cell_index(self.reg(base, reg)?)?,
                Capture::Upvalue(idx) => self.upvalue(idx)?,
            };
            captures.push(u32::try_from(index).map_err(|_| internal("cell index"))?);
        }
        self.charge_retained(crate::heap::closure(captures.len() as u64))?;
        Ok(Value::closure(u32::from(func), captures))
    }

    /// The fuel countdown left after a primitive or the general path charged work beyond
    /// the instruction itself: the instructions before the next check at `fuel_mark` (0 when
    /// the work reached it, so the next instruction checks the budgets first).
    #[inline(always)]
    pub(super) fn left_after_work(&mut self) -> u64 {
        let fuel = self.stats.fuel_used;
        if fuel >= self.fuel_mark {
            self.fuel_mark = fuel;
            0
        } else {
            self.fuel_mark - fuel
        }
    }

    /// What a callable value names, or the dialect's error for a value that is not one.
    pub(super) fn resolve_callable(&self, program: &Program, value: &Value) -> Result<Target> {
        match value {
            Value::Closure(closure) => Ok(Target::Closure(Arc::clone(closure))),
            Value::Sym(symbol) => match program.callable(*symbol) {
                Some(Callable::Function(f)) => Ok(Target::Function(f.as_usize())),
                Some(Callable::Primitive(p)) => Ok(Target::Primitive(p.as_usize())),
                Some(Callable::Tool(t)) => Ok(Target::Tool(t.as_usize())),
                Some(Callable::Macro) => Err(Error::script(format!(
                    "Macro {} cannot be used as a function value",
                    self.symbols.name(*symbol)
                ))),
                None => Err(Error::script(format!(
                    "Void or forbidden function: {}",
                    self.symbols.name(*symbol)
                ))),
            },
            Value::Nil => Err(Error::script("Void or forbidden function: nil")),
            Value::T => Err(Error::script("Void or forbidden function: t")),
            other => Err(Error::script(format!(
                "Not callable: {}",
                print::to_string(other, Style::Prin1, &self.symbols)
            ))),
        }
    }

    pub(super) fn call_value(
        &mut self,
        program: &Program,
        callee: &Value,
        args: Args,
        ret: usize,
        pc: usize,
    ) -> Result<Flow> {
        match self.resolve_callable(program, callee)? {
            Target::Closure(closure) => {
                let func = closure.function as usize;
                self.enter(program, func, Some(closure), args, ret, pc)?;
                Ok(Flow::Enter)
            }
            Target::Function(func) => {
                self.enter(program, func, None, args, ret, pc)?;
                Ok(Flow::Enter)
            }
            Target::Primitive(prim) => {
                let value = self.primitive(prim, &args)?;
                *self
                    .regs
                    .get_mut(ret)
                    .ok_or_else(|| internal("result register"))? = value;
                Ok(Flow::Next)
            }
            Target::Tool(tool) => {
                let span = self.current_span(program, pc);
                self.call_tool(program, tool, args, ret, span)
            }
        }
    }

    /// Makes the register file at least `len` long. The file only grows during a run:
    /// a returning frame leaves its registers as they are, and the lowering writes every
    /// register before reading it, so stale values are never observed. They only delay
    /// the release of values whose allocation was already charged to the retained budget.
    #[inline(always)]
    pub(super) fn ensure_registers(&mut self, len: usize) {
        if self.regs.len() < len {
            self.regs.resize(len, Value::Nil);
        }
    }

    /// Binds `args` to `func`'s parameters in a new window at `base`.
    pub(super) fn bind(&mut self, func: &Function, base: usize, args: Args) -> Result<()> {
        let required = usize::from(func.required);
        let optional = usize::from(func.optional);
        let given = args.len();
        if given < required || (!func.rest && given > required + optional) {
            return Err(arity_error(func, given));
        }
        self.ensure_registers(base + usize::from(func.registers));
        let mut args = args.into_iter();
        for slot in 0..required + optional {
            let value = args.next().unwrap_or(Value::Nil);
            if !put(&mut self.regs, base + slot, value) {
                return Err(internal("parameter window"));
            }
        }
        if func.rest {
            let rest: Vec<Value> = args.collect();
            self.charge_retained(crate::heap::conses(rest.len() as u64))?;
            let list = Value::list(rest);
            *self
                .regs
                .get_mut(base + required + optional)
                .ok_or_else(|| internal("rest register"))? = list;
        }
        Ok(())
    }

    pub(super) fn enter(
        &mut self,
        program: &Program,
        func: usize,
        closure: Option<Arc<Closure>>,
        args: Args,
        ret: usize,
        pc: usize,
    ) -> Result<()> {
        let callee = program
            .functions
            .get(func)
            .ok_or_else(|| internal("function index"))?;
        if self.frames.len() as u64 >= self.limits.stack_depth {
            return Err(stack_budget(&self.limits));
        }
        let top = self
            .frames
            .last_mut()
            .ok_or_else(|| internal("no caller"))?;
        top.pc = pc;
        let caller = program
            .functions
            .get(top.func)
            .ok_or_else(|| internal("caller"))?;
        let base = top.base + usize::from(caller.registers);
        self.bind(callee, base, args)?;
        self.frames.push(Frame {
            func,
            pc: 0,
            base,
            ret,
            closure,
        });
        Ok(())
    }

    /// Enters `func` (exact arity, no optional or rest parameters) copying the arguments
    /// straight from the caller's block into the new window.
    pub(super) fn enter_direct(
        &mut self,
        program: &Program,
        func: usize,
        args: usize,
        argc: u8,
        ret: usize,
        pc: usize,
    ) -> Result<()> {
        let callee = program
            .functions
            .get(func)
            .ok_or_else(|| internal("function index"))?;
        if self.frames.len() as u64 >= self.limits.stack_depth {
            return Err(stack_budget(&self.limits));
        }
        let top = self
            .frames
            .last_mut()
            .ok_or_else(|| internal("no caller"))?;
        top.pc = pc;
        let caller = program
            .functions
            .get(top.func)
            .ok_or_else(|| internal("caller"))?;
        let base = top.base + usize::from(caller.registers);
        self.ensure_registers(base + usize::from(callee.registers));
        let argc = usize::from(argc);
        let (below, window) = self.regs.split_at_mut(base);
        let source = below
            .get(args..args + argc)
            .ok_or_else(|| internal("argument block out of range"))?;
        window
            .get_mut(..argc)
            .ok_or_else(|| internal("parameter window"))?
            .clone_from_slice(source);
        self.frames.push(Frame {
            func,
            pc: 0,
            base,
            ret,
            closure: None,
        });
        Ok(())
    }

    pub(super) fn tail_enter(&mut self, program: &Program, func: usize, args: Args) -> Result<()> {
        let callee = program
            .functions
            .get(func)
            .ok_or_else(|| internal("function index"))?;
        let base = self.frames.last().ok_or_else(|| internal("no frame"))?.base;
        self.bind(callee, base, args)?;
        let top = self.frames.last_mut().ok_or_else(|| internal("no frame"))?;
        top.func = func;
        top.pc = 0;
        top.closure = None;
        Ok(())
    }

    pub(super) fn return_value(&mut self, value: Value) -> Result<Flow> {
        let frame = self
            .frames
            .pop()
            .ok_or_else(|| internal("return without frame"))?;
        if self.frames.is_empty() {
            if let Some(branches) = self.branches.as_deref_mut() {
                // A branch's value goes to its element's place ([`super::branches`]).
                branches.event = Some(super::branches::Event::Done(value));
                return Ok(Flow::Suspend);
            }
            let weight = value.weight();
            check_weight(weight, &self.limits)?;
            if weight.has_closure {
                return Err(closure_boundary());
            }
            // The run's values die here: their cells kept for this thread's next run.
            for value in self.regs.drain(..) {
                value.release();
            }
            self.state = State::Done(value);
            return Ok(Flow::Finish);
        }
        *self
            .regs
            .get_mut(frame.ret)
            .ok_or_else(|| internal("return register"))? = value;
        Ok(Flow::Leave)
    }
}

/// A resolved callable value.
pub(super) enum Target {
    Closure(Arc<Closure>),
    Function(usize),
    Primitive(usize),
    Tool(usize),
}

pub(super) fn stack_budget(limits: &Limits) -> Error {
    Error::new(
        ErrorKind::Stack,
        format!(
            "Script exceeded its stack budget of {} frames; recursion is too deep",
            limits.stack_depth
        ),
    )
}

pub(super) fn arity_error(func: &Function, given: usize) -> Error {
    let required = usize::from(func.required);
    let optional = usize::from(func.optional);
    let expected = if func.rest {
        format!("at least {required}")
    } else if optional == 0 {
        format!("{required}")
    } else {
        format!("{required} to {}", required + optional)
    };
    Error::script(format!(
        "Wrong number of arguments: expected {expected}, got {given}"
    ))
}

/// The parts of the machine a primitive call touches, borrowed apart from the register
/// file so the arguments can be passed straight from their registers.
pub(super) struct PrimRun<'m> {
    pub(super) limits: &'m Limits,
    pub(super) symbols: &'m mut Symbols,
    pub(super) regexps: &'m mut RegexCache,
    pub(super) stats: &'m mut Stats,
    pub(super) metered: bool,
}

/// Calls primitive `index` with the operand accounting of the dialect: arity, the value
/// budget of the argument list with shared structure counted per use, the call, then the
/// primitive's work (fuel), its fresh structure (retained) and its result's size. The hot
/// small primitives take their fixed-arity fast path ([`fast::call`]) when it applies.
#[inline]
pub(super) fn call_primitive(run: PrimRun<'_>, index: usize, args: &[Value]) -> Result<Value> {
    let prim = PRIMITIVES
        .get(index)
        .ok_or_else(|| internal("primitive index"))?;
    if !prim.accepts(args.len()) {
        return Err(Error::script(format!(
            "Wrong number of arguments: {}, {}",
            prim.name,
            args.len()
        )));
    }
    check_arguments(args, run.limits)?;
    if let Some((value, work)) = fast::call(index, args) {
        // No allocation; the result is nil, t, a fixnum or a part of an argument, and
        // the arguments are within the value budget, so only t and fixnums need checking.
        run.stats.fuel_used = run.stats.fuel_used.saturating_add(work);
        if run.metered && run.stats.fuel_used > run.limits.steps {
            return Err(step_budget(run.limits, run.stats.fuel_used));
        }
        if matches!(value, Value::T | Value::Int(_)) {
            check_result(&value, run.limits)?;
        }
        return Ok(value);
    }
    let mut ctx = PrimCtx::new(run.limits, run.symbols).with_regexps(run.regexps);
    let result = (prim.run)(&mut ctx, args);
    let (work, allocated) = (ctx.work(), ctx.allocated());
    run.stats.fuel_used = run.stats.fuel_used.saturating_add(work);
    let value = result?;
    if run.metered && run.stats.fuel_used > run.limits.steps {
        return Err(step_budget(run.limits, run.stats.fuel_used));
    }
    if allocated != 0 {
        retain(run.stats, run.limits, allocated)?;
    }
    check_result(&value, run.limits)?;
    Ok(value)
}

/// The fast path of a fixed-operand primitive call ([`crate::isa::Op::CallPrim1`] and
/// [`crate::isa::Op::CallPrim2`], whose arity the verifier checked): the result and the
/// work of primitive `index` on operands borrowed from their registers, when it has a
/// fast path for them, their weights plainly fit the value budget and a `t` or fixnum
/// result surely fits it. Otherwise `None`, and the caller runs [`call_primitive`] from
/// the start on copies of the operands (a fast path has no side effect), which makes the
/// exact checks and raises their errors. No [`PrimRun`] is built: a fast path touches
/// no symbols, regexps or retained bytes, and its result is nil, `t`, a fixnum or a part
/// of an argument (see [`fast`]); the caller charges the work.
#[inline(always)]
pub(super) fn fast_operands(
    index: usize,
    a: &Value,
    b: Option<&Value>,
    limits: &Limits,
) -> Option<(Value, u64)> {
    let (mut bytes, mut nodes) = operand_weight(a);
    if let Some(b) = b {
        let (more_bytes, more_nodes) = operand_weight(b);
        bytes = bytes.saturating_add(more_bytes);
        nodes = nodes.saturating_add(more_nodes);
    }
    // The argument list's own node, and room for a `t` or fixnum result (at most 20
    // bytes, one node), so neither needs its exact check.
    if bytes > limits.value_bytes || nodes >= limits.value_nodes || limits.value_bytes < 20 {
        return None;
    }
    match b {
        Some(b) => fast::call2(index, a, b),
        None => fast::call1(index, a),
    }
}

/// An argument's bytes and nodes for the budget test of [`fast_operands`]: a fixnum at
/// its widest (20 bytes), which needs no logarithm.
#[inline(always)]
fn operand_weight(value: &Value) -> (u64, u64) {
    match value {
        Value::Int(_) => (20, 1),
        other => {
            let weight = other.weight();
            (weight.bytes, weight.nodes)
        }
    }
}

/// The value budget of a primitive's result. An integer is first counted at its widest
/// (20 decimal bytes, one node), which needs no logarithm; only when that bound is over
/// the budget is the exact weight checked, so the outcome is the exact check's.
#[inline(always)]
fn check_result(value: &Value, limits: &Limits) -> Result<()> {
    match value {
        Value::Int(_) if limits.value_bytes >= 20 && limits.value_nodes >= 1 => Ok(()),
        other => check_weight(other.weight(), limits),
    }
}

/// The value budget of an argument list (its weight, shared structure counted per use).
/// An integer is first counted at its widest (20 bytes), which needs no logarithm; only
/// when that bound is over the budget is the exact weight computed, so the outcome is
/// the exact check's.
#[inline]
fn check_arguments(args: &[Value], limits: &Limits) -> Result<()> {
    let (mut bytes, mut nodes) = (0u64, 1u64);
    for arg in args {
        let weight = match arg {
            Value::Int(_) => Weight::leaf(20),
            other => other.weight(),
        };
        bytes = bytes.saturating_add(weight.bytes);
        nodes = nodes.saturating_add(weight.nodes);
    }
    if bytes <= limits.value_bytes && nodes <= limits.value_nodes {
        return Ok(());
    }
    let total = args.iter().fold(Weight::leaf(0), |w, a| w.plus(a.weight()));
    check_weight(total, limits)
}
