//! The register machine: one run of one program.
//!
//! [`Machine`] owns everything a run mutates — the register file, the explicit frame stack,
//! the cell heap for captured variables, the run's symbol table and every counter — and
//! nothing else. Guest calls push [`Frame`]s on a heap vector; the host stack depth is
//! constant whatever the guest does. A tool call, a batch, a fuel pause, the end and a
//! failure all return a [`Step`] to the host, which resumes the machine when it has what
//! the machine asked for.
//!
//! Invariants:
//! - Fuel is charged before an instruction executes; when a slice or the budget is spent
//!   the saved `pc` still points at that instruction. The step budget is never exceeded by
//!   more than one primitive's reported work.
//! - Every value that crosses the boundary (tool arguments, final value) has been checked
//!   against the value budget with shared structure counted per use, and holds no closure.
//! - After `Done`/`Error` the machine is settled: further steps repeat the same outcome.

use crate::error::{Error, ErrorKind, Result};
use crate::isa::{Op, Reg};
use crate::json::check_weight;
use crate::limits::Limits;
use crate::prims::{PRIMITIVES, PrimCtx};
use crate::print::{self, Style};
use crate::program::{Callable, Capture, Function, Program};
use crate::regexp::RegexCache;
use crate::step::{Stats, Step, ToolRequest};
use crate::symbol::{Symbols, well_known};
use crate::value::{Closure, Value, Weight};
use smallvec::SmallVec;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Instructions between wall-clock checks inside a slice.
const CLOCK_INTERVAL: u64 = 1024;

/// One activation of a guest function.
#[derive(Debug, Clone)]
struct Frame {
    func: usize,
    /// The next instruction (while the frame is not running).
    pc: usize,
    /// First register of the window.
    base: usize,
    /// Absolute register receiving the result in the caller's window.
    ret: usize,
    closure: Option<Arc<Closure>>,
}

#[derive(Debug)]
enum State {
    Ready,
    WaitingTool { dst: usize },
    WaitingBatch { dst: usize, count: usize },
    Done(Value),
    Failed(Error),
    Closed,
}

type Args = SmallVec<[Value; 8]>;

/// One run of a program. `Send`, so a host may move it between threads between steps.
#[derive(Debug)]
pub struct Machine {
    program: Arc<Program>,
    limits: Limits,
    symbols: Symbols,
    regs: Vec<Value>,
    frames: Vec<Frame>,
    cells: Vec<Value>,
    state: State,
    stats: Stats,
    /// Fuel mark at which the slow path runs next (slice end, budget, clock check).
    next_check: u64,
    /// While dispatching: the fuel used when the loop's countdown `left` reaches zero, so
    /// fuel used = `fuel_mark - left`. Kept here rather than in a local to keep the
    /// dispatch loop's live state small.
    fuel_mark: u64,
    slice_end: u64,
    slice_deadline: Option<Instant>,
    deadline: Option<Instant>,
    started: bool,
    batch: Option<Vec<ToolRequest>>,
    metered: bool,
    /// Integers must stay below this magnitude (`2^number_bits`, saturated).
    int_bound: u64,
    regexps: RegexCache,
    /// The step a suspending instruction hands back.
    pending: Option<Step>,
    /// The final value, between the returning instruction and the dispatch loop.
    outcome_value: Value,
}

impl Machine {
    /// A fresh run of `program` under `limits`.
    #[must_use]
    pub fn new(program: Arc<Program>, limits: Limits) -> Machine {
        let symbols = Symbols::new(Arc::clone(&program.symbols));
        let int_bound = if limits.number_bits >= 64 {
            u64::MAX
        } else {
            1u64 << limits.number_bits
        };
        let main = program
            .functions
            .first()
            .map_or(0, |f| usize::from(f.registers));
        Machine {
            program,
            limits,
            symbols,
            regs: vec![Value::Nil; main],
            frames: vec![Frame {
                func: 0,
                pc: 0,
                base: 0,
                ret: 0,
                closure: None,
            }],
            cells: Vec::new(),
            state: State::Ready,
            stats: Stats::default(),
            next_check: 0,
            fuel_mark: 0,
            slice_end: 0,
            slice_deadline: None,
            deadline: None,
            started: false,
            batch: None,
            metered: true,
            int_bound,
            regexps: RegexCache::new(),
            pending: None,
            outcome_value: Value::Nil,
        }
    }

    /// Turns fuel metering off. Only for measuring the metering's overhead: an unmetered
    /// run is bounded by nothing but its host.
    pub fn set_unmetered(&mut self) {
        self.metered = false;
    }

    /// Runs until the next event. Call it to start, and again after [`Step::Pause`].
    pub fn step(&mut self) -> Step {
        match &self.state {
            State::Ready => self.run(),
            State::WaitingTool { .. } | State::WaitingBatch { .. } => {
                Step::Error(Error::script("The machine is waiting for a tool result"))
            }
            State::Done(value) => Step::Done(value.clone()),
            State::Failed(error) => Step::Error(error.clone()),
            State::Closed => Step::Error(Error::new(ErrorKind::Closed, "Interpreter is closed")),
        }
    }

    /// Resumes after [`Step::Tool`] with the tool's result.
    pub fn resume_tool(&mut self, result: Value) -> Step {
        let State::WaitingTool { dst } = self.state else {
            return self.misuse("resume_tool");
        };
        let value = self.admit_result(result);
        if let Err(error) = value.and_then(|v| self.store(dst, v)) {
            return self.settle_error(error);
        }
        self.state = State::Ready;
        self.run()
    }

    /// Resumes after [`Step::Batch`] with the results in source order.
    pub fn resume_batch(&mut self, results: Vec<Value>) -> Step {
        let State::WaitingBatch { dst, count } = self.state else {
            return self.misuse("resume_batch");
        };
        if results.len() != count {
            return self.settle_error(Error::script(format!(
                "A parallel batch of {count} calls was resumed with {} results",
                results.len()
            )));
        }
        let mut admitted = Vec::with_capacity(count);
        for result in results {
            match self.admit_result(result) {
                Ok(value) => admitted.push(value),
                Err(error) => return self.settle_error(error),
            }
        }
        let list = Value::list(admitted);
        if let Err(error) = self
            .charge_retained(count as u64)
            .and_then(|()| self.store(dst, list))
        {
            return self.settle_error(error);
        }
        self.state = State::Ready;
        self.run()
    }

    /// Drops the run's state; every later step answers kind `closed`.
    pub fn close(&mut self) {
        self.regs = Vec::new();
        self.frames = Vec::new();
        self.cells = Vec::new();
        self.batch = None;
        self.state = State::Closed;
    }

    /// The run's symbol table.
    #[must_use]
    pub fn symbols(&self) -> &Symbols {
        &self.symbols
    }

    /// The run's symbol table, for converting tool results into values.
    pub fn symbols_mut(&mut self) -> &mut Symbols {
        &mut self.symbols
    }

    /// The run's budgets.
    #[must_use]
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// The program this machine runs.
    #[must_use]
    pub fn program(&self) -> &Arc<Program> {
        &self.program
    }

    /// The counters so far.
    #[must_use]
    pub fn stats(&self) -> Stats {
        self.stats
    }

    /// `(:error "message")`, the value a failed tool call gives the guest.
    #[must_use]
    pub fn error_value(&mut self, message: &str) -> Value {
        Value::list([Value::Sym(well_known::ERROR), Value::string(message)])
    }

    /// `value` printed as the model sees a final value: strings verbatim, everything else
    /// `prin1`.
    #[must_use]
    pub fn render(&self, value: &Value) -> String {
        match value {
            Value::Str(s) => s.as_str().to_owned(),
            other => print::to_string(other, Style::Prin1, &self.symbols),
        }
    }

    fn misuse(&mut self, what: &str) -> Step {
        match &self.state {
            State::Done(_) | State::Failed(_) | State::Closed => self.step(),
            _ => Step::Error(Error::script(format!(
                "The machine is not waiting for {what}"
            ))),
        }
    }

    fn settle_error(&mut self, error: Error) -> Step {
        self.batch = None;
        self.state = State::Failed(error.clone());
        Step::Error(error)
    }

    /// Checks a tool result at the boundary: over-budget results become
    /// `(:error "Nested tool result rejected: REASON")`, as in the original.
    fn admit_result(&mut self, result: Value) -> Result<Value> {
        let weight = result.weight();
        let value = match check_weight(weight, &self.limits) {
            Ok(()) if !weight.has_closure => result,
            Ok(()) => self
                .error_value("Nested tool result rejected: closures cannot cross a tool boundary"),
            Err(error) => {
                self.error_value(&format!("Nested tool result rejected: {}", error.message()))
            }
        };
        self.charge_retained(value.weight().bytes)?;
        Ok(value)
    }

    fn store(&mut self, dst: usize, value: Value) -> Result<()> {
        let slot = self
            .regs
            .get_mut(dst)
            .ok_or_else(|| internal("resume register out of range"))?;
        *slot = value;
        Ok(())
    }

    fn charge_retained(&mut self, bytes: u64) -> Result<()> {
        self.stats.retained_bytes = self.stats.retained_bytes.saturating_add(bytes);
        if self.stats.retained_bytes > self.limits.retained_bytes {
            return Err(Error::new(
                ErrorKind::RetainedValue,
                format!(
                    "Script exceeded its retained value budget of {} bytes",
                    self.limits.retained_bytes
                ),
            ));
        }
        Ok(())
    }

    /// Starts a slice: checks the whole-script clock and sets the next pause point.
    fn begin_slice(&mut self) -> Result<()> {
        let now = Instant::now();
        if !self.started {
            self.started = true;
            self.deadline = self
                .limits
                .seconds
                .and_then(|s| now.checked_add(Duration::try_from_secs_f64(s).ok()?));
        } else if self.deadline.is_some_and(|d| now >= d) {
            let seconds = self.limits.seconds.unwrap_or_default();
            return Err(Error::new(
                ErrorKind::Time,
                format!(
                    "Script exceeded its time budget of {} seconds after {} steps",
                    seconds, self.stats.fuel_used
                ),
            ));
        }
        self.slice_end = self
            .stats
            .fuel_used
            .saturating_add(self.limits.slice_steps.max(1));
        self.slice_deadline = self
            .limits
            .slice_seconds
            .and_then(|s| now.checked_add(Duration::try_from_secs_f64(s).ok()?));
        self.next_check = self.next_mark();
        Ok(())
    }

    fn next_mark(&self) -> u64 {
        let clock = if self.slice_deadline.is_some() {
            self.stats.fuel_used.saturating_add(CLOCK_INTERVAL)
        } else {
            u64::MAX
        };
        self.slice_end.min(self.limits.steps).min(clock)
    }

    /// The slow path of fuel accounting, when `fuel_used` reached `next_check`: fails when
    /// the budget is spent, pauses when the slice is, and otherwise sets the next mark.
    fn fuel_check(&mut self) -> Result<bool> {
        if !self.metered {
            self.next_check = u64::MAX;
            return Ok(false);
        }
        if self.stats.fuel_used >= self.limits.steps {
            return Err(step_budget(&self.limits, self.stats.fuel_used));
        }
        if self.stats.fuel_used >= self.slice_end
            || self.slice_deadline.is_some_and(|d| Instant::now() >= d)
        {
            return Ok(true);
        }
        self.next_check = self.next_mark();
        Ok(false)
    }

    fn run(&mut self) -> Step {
        if let Err(error) = self.begin_slice() {
            return self.settle_error(error);
        }
        let program = Arc::clone(&self.program);
        match self.execute(&program) {
            Ok(step) => step,
            Err(error) => self.settle_error(error),
        }
    }

    /// Runs the dispatch loop with the register file moved into a local, so the hot loop
    /// keeps its pointer and length in machine registers; `exec` (the slow path) sees it
    /// back in `self.regs`.
    fn execute(&mut self, program: &Program) -> Result<Step> {
        let mut regs = std::mem::take(&mut self.regs);
        let outcome = self.dispatch(program, &mut regs);
        self.regs = regs;
        outcome
    }

    /// The dispatch loop. `regs` is the register file (taken out of `self`); it is put back
    /// around every call of `exec`.
    #[allow(clippy::too_many_lines)]
    fn dispatch(&mut self, program: &Program, regs: &mut Vec<Value>) -> Result<Step> {
        let Some(top) = self.frames.last() else {
            return Err(internal("no frame to run"));
        };
        let mut func: &Function = program
            .functions
            .get(top.func)
            .ok_or_else(|| internal("bad function"))?;
        let mut pc = top.pc;
        let mut base = top.base;
        // Fuel counts down in a local: `left` instructions remain before the next check at
        // `self.fuel_mark`, so the fuel used is always `fuel_mark - left`. `self.stats.fuel_used` is
        // synchronised (`sync!`) before any slow path runs and on every exit.
        self.fuel_mark = self.next_check.max(self.stats.fuel_used);
        let mut left = self.fuel_mark - self.stats.fuel_used;
        macro_rules! sync {
            () => {
                self.stats.fuel_used = self.fuel_mark - left
            };
        }
        // Takes a verified relative jump; an out-of-range target (a verifier bug) ends the run
        // with an internal error rather than a panic.
        macro_rules! take_jump {
            ($offset:expr) => {
                match jump_target(pc, i64::from($offset)) {
                    Some(target) => pc = target,
                    None => {
                        sync!();
                        return Err(internal("jump out of range"));
                    }
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
                        self.save_pc(pc);
                        self.stats.pauses += 1;
                        return Ok(Step::Pause);
                    }
                    Err(error) => {
                        self.save_pc(pc);
                        return Err(error.with_span(span_at(func, pc)));
                    }
                }
            }
            left -= 1;
            let Some(&op) = func.code.get(pc) else {
                sync!();
                return Err(internal("pc out of range"));
            };
            pc += 1;
            // The hot instructions on their integer fast paths, without leaving the loop.
            match op {
                Op::Jump { offset } => {
                    if let Some(target) = jump_target(pc, i64::from(offset)) {
                        pc = target;
                        continue;
                    }
                }
                Op::JumpIfNotLess { lhs, rhs, offset } => {
                    if let Some((a, b)) = ints(regs, base, lhs, rhs) {
                        if a >= b {
                            take_jump!(offset);
                        }
                        continue;
                    }
                }
                Op::JumpIfNil { src, offset } => {
                    if let Some(value) = regs.get(base + src.as_usize()) {
                        if value.is_nil() {
                            take_jump!(offset);
                        }
                        continue;
                    }
                }
                Op::JumpIfNotNil { src, offset } => {
                    if let Some(value) = regs.get(base + src.as_usize()) {
                        if !value.is_nil() {
                            take_jump!(offset);
                        }
                        continue;
                    }
                }
                Op::LoadNil { dst } if put(regs, base + dst.as_usize(), Value::Nil) => {
                    continue;
                }
                // List walking: `car`/`cdr` of a cons or nil; anything else takes the
                // general path (and its type error).
                Op::Car { dst, src } | Op::Cdr { dst, src } => {
                    let part = match regs.get(base + src.as_usize()) {
                        Some(Value::Cons(cell)) if matches!(op, Op::Car { .. }) => {
                            Some(cell.car().clone())
                        }
                        Some(Value::Cons(cell)) => Some(cell.cdr().clone()),
                        Some(Value::Nil) => Some(Value::Nil),
                        _ => None,
                    };
                    if let Some(part) = part
                        && put(regs, base + dst.as_usize(), part)
                    {
                        continue;
                    }
                }
                // A fresh cons within the value and retained budgets; over either budget
                // the general path builds it again and fails.
                Op::Cons { dst, lhs, rhs } => {
                    if let (Some(car), Some(cdr)) = (
                        regs.get(base + lhs.as_usize()),
                        regs.get(base + rhs.as_usize()),
                    ) {
                        let value = Value::cons(car.clone(), cdr.clone());
                        let retained = self.stats.retained_bytes.saturating_add(1);
                        if value.weight().bytes <= self.limits.value_bytes
                            && value.weight().nodes <= self.limits.value_nodes
                            && retained <= self.limits.retained_bytes
                            && put(regs, base + dst.as_usize(), value)
                        {
                            self.stats.retained_bytes = retained;
                            continue;
                        }
                    }
                }
                Op::JumpIfLess { lhs, rhs, offset } => {
                    if let Some((a, b)) = ints(regs, base, lhs, rhs) {
                        if a < b {
                            take_jump!(offset);
                        }
                        continue;
                    }
                }
                Op::JumpIfNotLessImm { lhs, imm, offset } => {
                    if let Some(&Value::Int(a)) = regs.get(base + lhs.as_usize()) {
                        if a >= i64::from(imm) {
                            take_jump!(offset);
                        }
                        continue;
                    }
                }
                Op::AddImmJumpIfLess {
                    reg,
                    rhs,
                    imm,
                    offset,
                } => {
                    if let Some((a, b)) = ints(regs, base, reg, rhs)
                        && let Some(n) = a.checked_add(i64::from(imm))
                        && n.unsigned_abs() < self.int_bound
                        && put_int(regs, base + reg.as_usize(), n)
                    {
                        if n < b {
                            take_jump!(offset);
                        }
                        continue;
                    }
                }
                Op::Mul { dst, lhs, rhs } => {
                    if let Some((a, b)) = ints(regs, base, lhs, rhs)
                        && let Some(n) = a.checked_mul(b)
                        && n.unsigned_abs() < self.int_bound
                        && put_int(regs, base + dst.as_usize(), n)
                    {
                        continue;
                    }
                }
                Op::Rem { dst, lhs, rhs } => {
                    if let Some((a, b)) = ints(regs, base, lhs, rhs)
                        && let Some(n) = a.checked_rem(b)
                        && put_int(regs, base + dst.as_usize(), n)
                    {
                        continue;
                    }
                }
                Op::AddImm { dst, lhs, imm } => {
                    if let Some(Value::Int(a)) = regs.get(base + lhs.as_usize())
                        && let Some(n) = a.checked_add(i64::from(imm))
                        && n.unsigned_abs() < self.int_bound
                        && put_int(regs, base + dst.as_usize(), n)
                    {
                        continue;
                    }
                }
                Op::Add { dst, lhs, rhs } => {
                    if let Some((a, b)) = ints(regs, base, lhs, rhs)
                        && let Some(n) = a.checked_add(b)
                        && n.unsigned_abs() < self.int_bound
                        && put_int(regs, base + dst.as_usize(), n)
                    {
                        continue;
                    }
                }
                Op::Sub { dst, lhs, rhs } => {
                    if let Some((a, b)) = ints(regs, base, lhs, rhs)
                        && let Some(n) = a.checked_sub(b)
                        && n.unsigned_abs() < self.int_bound
                        && put_int(regs, base + dst.as_usize(), n)
                    {
                        continue;
                    }
                }
                Op::LoadInt { dst, value }
                    if put_int(regs, base + dst.as_usize(), i64::from(value)) =>
                {
                    continue;
                }
                Op::Move { dst, src } => {
                    if let Some(&Value::Int(n)) = regs.get(base + src.as_usize())
                        && put_int(regs, base + dst.as_usize(), n)
                    {
                        continue;
                    }
                }
                Op::CallFn {
                    dst,
                    func: callee_index,
                    args,
                    argc,
                } => {
                    let call = CallSite {
                        dst,
                        callee: callee_index.as_usize(),
                        args,
                        argc,
                    };
                    if let Some((callee, new_base)) =
                        self.push_call(program, regs, func, base, pc, call, None)
                    {
                        func = callee;
                        pc = 0;
                        base = new_base;
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
                    if let Some(Value::Closure(closure)) = regs.get(base + callee.as_usize()) {
                        let call = CallSite {
                            dst,
                            callee: closure.function as usize,
                            args,
                            argc,
                        };
                        let closure = Some(Arc::clone(closure));
                        if let Some((callee, new_base)) =
                            self.push_call(program, regs, func, base, pc, call, closure)
                        {
                            func = callee;
                            pc = 0;
                            base = new_base;
                            continue;
                        }
                    }
                }
                Op::Return { src } if self.frames.len() > 1 => {
                    // Return to a guest caller (the script body's return runs the final checks).
                    if let Some((caller, caller_pc, caller_base)) =
                        self.pop_return(program, regs, base, src)
                    {
                        func = caller;
                        pc = caller_pc;
                        base = caller_base;
                        continue;
                    }
                    sync!();
                    return Err(internal("return to a missing frame"));
                }
                _ => {}
            }
            sync!();
            std::mem::swap(&mut self.regs, regs);
            let outcome = self.exec(program, op, base, pc);
            std::mem::swap(&mut self.regs, regs);
            // The instruction may have charged work beyond the instruction itself.
            let fuel = self.stats.fuel_used;
            if fuel >= self.fuel_mark {
                self.fuel_mark = fuel;
                left = 0;
            } else {
                left = self.fuel_mark - fuel;
            }
            match outcome {
                Ok(Flow::Next) => {}
                Ok(Flow::Jump(offset)) => {
                    pc = jump_target(pc, i64::from(offset))
                        .ok_or_else(|| internal("jump out of range"))?;
                }
                Ok(Flow::Enter | Flow::Leave) => {
                    let Some(top) = self.frames.last() else {
                        return Err(internal("no frame after call"));
                    };
                    func = program
                        .functions
                        .get(top.func)
                        .ok_or_else(|| internal("bad function"))?;
                    pc = top.pc;
                    base = top.base;
                }
                Ok(Flow::Finish) => {
                    let value = std::mem::take(&mut self.outcome_value);
                    self.state = State::Done(value.clone());
                    return Ok(Step::Done(value));
                }
                Ok(Flow::Suspend) => {
                    self.save_pc(pc);
                    return self
                        .pending
                        .take()
                        .ok_or_else(|| internal("suspension without a request"));
                }
                Err(error) => {
                    self.save_pc(pc);
                    return Err(error.with_span(span_at(func, pc.saturating_sub(1))));
                }
            }
        }
    }

    /// The fast path of `CALL` (and of `CALLV` on a closure) for an exact-arity call of a
    /// script function: copies the arguments into the callee's window and pushes its
    /// frame. `None` (nothing changed) sends the instruction to the general path.
    #[inline(never)]
    #[allow(clippy::too_many_arguments)]
    fn push_call<'p>(
        &mut self,
        program: &'p Program,
        regs: &mut Vec<Value>,
        func: &Function,
        base: usize,
        pc: usize,
        call: CallSite,
        closure: Option<Arc<Closure>>,
    ) -> Option<(&'p Function, usize)> {
        let callee = program.functions.get(call.callee)?;
        if callee.optional != 0
            || callee.rest
            || call.argc != callee.required
            || (self.frames.len() as u64) >= self.limits.stack_depth
        {
            return None;
        }
        let new_base = base + usize::from(func.registers);
        let needed = new_base + usize::from(callee.registers);
        if regs.len() < needed {
            regs.resize(needed, Value::Nil);
        }
        let start = base + call.args.as_usize();
        let argc = usize::from(call.argc);
        let (below, window) = regs.split_at_mut(new_base);
        let (source, target) = (below.get(start..start + argc)?, window.get_mut(..argc)?);
        for (slot, value) in target.iter_mut().zip(source) {
            // Integers (the common argument) are copied without the generic clone.
            match (slot, value) {
                (Value::Int(slot), Value::Int(n)) => *slot = *n,
                (slot, value) => *slot = value.clone(),
            }
        }
        if let Some(top) = self.frames.last_mut() {
            top.pc = pc;
        }
        self.frames.push(Frame {
            func: call.callee,
            pc: 0,
            base: new_base,
            ret: base + call.dst.as_usize(),
            closure,
        });
        Some((callee, new_base))
    }

    /// The fast path of `RETURN` to a guest caller: pops the frame and stores the value in
    /// the caller's destination. The caller's function, pc and base; `None` when the frame
    /// stack is inconsistent (a machine bug, reported as internal).
    #[inline(always)]
    fn pop_return<'p>(
        &mut self,
        program: &'p Program,
        regs: &mut [Value],
        base: usize,
        src: Reg,
    ) -> Option<(&'p Function, usize, usize)> {
        let value = match regs.get_mut(base + src.as_usize()) {
            Some(Value::Int(n)) => Value::Int(*n),
            Some(slot) => std::mem::take(slot),
            None => Value::Nil,
        };
        let frame = self.frames.pop()?;
        let caller = self.frames.last()?;
        let function = program.functions.get(caller.func)?;
        put(regs, frame.ret, value).then_some((function, caller.pc, caller.base))
    }

    fn save_pc(&mut self, pc: usize) {
        if let Some(top) = self.frames.last_mut() {
            top.pc = pc;
        }
    }

    #[inline(always)]
    fn reg(&self, base: usize, reg: Reg) -> Result<&Value> {
        self.regs
            .get(base + reg.as_usize())
            .ok_or_else(|| internal("register out of range"))
    }

    #[inline(always)]
    fn set(&mut self, base: usize, reg: Reg, value: Value) -> Result<()> {
        if put(&mut self.regs, base + reg.as_usize(), value) {
            Ok(())
        } else {
            Err(internal("register out of range"))
        }
    }

    fn args(&self, base: usize, args: Reg, argc: u8) -> Result<Args> {
        let start = base + args.as_usize();
        let slice = self
            .regs
            .get(start..start + usize::from(argc))
            .ok_or_else(|| internal("argument block out of range"))?;
        Ok(slice.iter().cloned().collect())
    }

    /// Executes one instruction. `pc` is already advanced past it.
    #[inline(never)]
    #[allow(clippy::too_many_lines)]
    fn exec(&mut self, program: &Program, op: Op, base: usize, pc: usize) -> Result<Flow> {
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
                self.charge_retained(8)?;
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
                let args = self.args(base, args, argc)?;
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
                let child = program
                    .functions
                    .get(func.as_usize())
                    .ok_or_else(|| internal("closure function"))?;
                let mut captures = Vec::with_capacity(child.captures.len());
                for capture in &child.captures {
                    let index = match *capture {
                        Capture::Cell(reg) => cell_index(self.reg(base, reg)?)?,
                        Capture::Upvalue(idx) => self.upvalue(idx)?,
                    };
                    captures.push(u32::try_from(index).map_err(|_| internal("cell index"))?);
                }
                self.charge_retained(8 + 4 * captures.len() as u64)?;
                let closure = Closure {
                    function: u32::from(func.0),
                    captures: captures.into_boxed_slice(),
                };
                self.set(base, dst, Value::Closure(Arc::new(closure)))?;
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
            Op::BatchBegin => {
                if self.batch.is_some() {
                    return Err(Error::script(
                        "A parallel call argument may not call another tool",
                    ));
                }
                self.batch = Some(Vec::new());
            }
            Op::BatchPush { tool, args, argc } => {
                let args = self.args(base, args, argc)?;
                let span = self.current_span(program, pc);
                let request = self.request(program, tool.as_usize(), args, span)?;
                self.batch
                    .as_mut()
                    .ok_or_else(|| internal("batch push outside a batch"))?
                    .push(request);
            }
            Op::BatchEnd { dst } => {
                let batch = self
                    .batch
                    .take()
                    .ok_or_else(|| internal("batch end outside a batch"))?;
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
                self.pending = Some(Step::Batch(batch));
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
                self.charge_retained(1)?;
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
                let list = self.reg(base, src)?.clone();
                let mut out = Value::Nil;
                let mut count = 0u64;
                for item in list.iter() {
                    out = Value::cons(item.clone(), out);
                    count += 1;
                }
                self.stats.fuel_used = self.stats.fuel_used.saturating_add(count);
                check_weight(out.weight(), &self.limits)?;
                self.charge_retained(count)?;
                self.set(base, dst, out)?;
            }
        }
        Ok(Flow::Next)
    }

    fn upvalue(&self, idx: u16) -> Result<usize> {
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

    fn current_span(&self, program: &Program, pc: usize) -> crate::Span {
        self.frames
            .last()
            .and_then(|f| program.functions.get(f.func))
            .map_or_else(crate::Span::default, |f| span_at(f, pc.saturating_sub(1)))
    }

    fn binary(&mut self, prim: usize, base: usize, lhs: Reg, rhs: Reg) -> Result<Value> {
        let args: Args = [self.reg(base, lhs)?.clone(), self.reg(base, rhs)?.clone()]
            .into_iter()
            .collect();
        self.primitive(prim, &args)
    }

    /// Calls a primitive with the operand accounting of the dialect: arity, the value budget
    /// of the argument list with shared structure counted per use, the call, then the
    /// primitive's work (fuel), its fresh structure (retained) and its result's size.
    fn primitive(&mut self, index: usize, args: &[Value]) -> Result<Value> {
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
        let total = args.iter().fold(Weight::leaf(0), |w, a| w.plus(a.weight()));
        check_weight(total, &self.limits)?;
        let mut ctx = PrimCtx::new(&self.limits, &mut self.symbols).with_regexps(&mut self.regexps);
        let result = (prim.run)(&mut ctx, args);
        let (work, allocated) = (ctx.work(), ctx.allocated());
        self.stats.fuel_used = self.stats.fuel_used.saturating_add(work);
        let value = result?;
        if self.metered && self.stats.fuel_used > self.limits.steps {
            return Err(step_budget(&self.limits, self.stats.fuel_used));
        }
        self.charge_retained(allocated)?;
        check_weight(value.weight(), &self.limits)?;
        Ok(value)
    }

    /// What a callable value names, or the dialect's error for a value that is not one.
    fn resolve_callable(&self, program: &Program, value: &Value) -> Result<Target> {
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

    fn call_value(
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

    fn request(
        &mut self,
        program: &Program,
        tool: usize,
        args: Args,
        span: crate::Span,
    ) -> Result<ToolRequest> {
        let name = program
            .tools
            .get(tool)
            .ok_or_else(|| internal("tool index"))?;
        let count = args.len() as u64;
        let list = Value::list(args);
        let weight = list.weight();
        check_weight(weight, &self.limits)?;
        if weight.has_closure {
            return Err(closure_boundary());
        }
        self.charge_retained(count)?;
        Ok(ToolRequest {
            tool: Arc::clone(name),
            args: list,
            span,
        })
    }

    fn call_tool(
        &mut self,
        program: &Program,
        tool: usize,
        args: Args,
        ret: usize,
        span: crate::Span,
    ) -> Result<Flow> {
        if self.batch.is_some() {
            return Err(Error::script(
                "A parallel call argument may not call another tool",
            ));
        }
        let name = program
            .tools
            .get(tool)
            .ok_or_else(|| internal("tool index"))?;
        if self.stats.tool_calls >= self.limits.tool_calls {
            return Err(Error::new(
                ErrorKind::ToolCall,
                format!(
                    "Script exceeded its budget of {} tool calls before nested call {} at call {}",
                    self.limits.tool_calls,
                    name,
                    self.stats.tool_calls + 1
                ),
            ));
        }
        let request = self.request(program, tool, args, span)?;
        self.stats.tool_calls += 1;
        self.state = State::WaitingTool { dst: ret };
        self.pending = Some(Step::Tool(request));
        Ok(Flow::Suspend)
    }

    /// Makes the register file at least `len` long. The file only grows during a run:
    /// a returning frame leaves its registers as they are, and the lowering writes every
    /// register before reading it, so stale values are never observed. They only delay
    /// the release of values whose allocation was already charged to the retained budget.
    #[inline(always)]
    fn ensure_registers(&mut self, len: usize) {
        if self.regs.len() < len {
            self.regs.resize(len, Value::Nil);
        }
    }

    /// Binds `args` to `func`'s parameters in a new window at `base`.
    fn bind(&mut self, func: &Function, base: usize, args: Args) -> Result<()> {
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
            self.charge_retained(rest.len() as u64)?;
            let list = Value::list(rest);
            *self
                .regs
                .get_mut(base + required + optional)
                .ok_or_else(|| internal("rest register"))? = list;
        }
        Ok(())
    }

    fn enter(
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
            return Err(Error::new(
                ErrorKind::Stack,
                format!(
                    "Script exceeded its stack budget of {} frames; recursion is too deep",
                    self.limits.stack_depth
                ),
            ));
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
    fn enter_direct(
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

    fn tail_enter(&mut self, program: &Program, func: usize, args: Args) -> Result<()> {
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

    fn return_value(&mut self, value: Value) -> Result<Flow> {
        let frame = self
            .frames
            .pop()
            .ok_or_else(|| internal("return without frame"))?;
        if self.frames.is_empty() {
            let weight = value.weight();
            check_weight(weight, &self.limits)?;
            if weight.has_closure {
                return Err(closure_boundary());
            }
            self.regs.clear();
            self.outcome_value = value;
            return Ok(Flow::Finish);
        }
        *self
            .regs
            .get_mut(frame.ret)
            .ok_or_else(|| internal("return register"))? = value;
        Ok(Flow::Leave)
    }
}

/// The two registers' values when both are fixnums (the fast paths' operand test).
#[inline(always)]
fn ints(regs: &[Value], base: usize, lhs: Reg, rhs: Reg) -> Option<(i64, i64)> {
    match (
        regs.get(base + lhs.as_usize()),
        regs.get(base + rhs.as_usize()),
    ) {
        (Some(Value::Int(a)), Some(Value::Int(b))) => Some((*a, *b)),
        _ => None,
    }
}

/// Stores the integer `n` in absolute register `index`; false when out of range. When
/// the register already holds an integer only its payload is written, which keeps the
/// store a single word (no partial-then-wide store-forwarding stall).
#[inline(always)]
fn put_int(regs: &mut [Value], index: usize, n: i64) -> bool {
    match regs.get_mut(index) {
        Some(Value::Int(slot)) => {
            *slot = n;
            true
        }
        Some(slot) => {
            *slot = Value::Int(n);
            true
        }
        None => false,
    }
}

/// Stores `value` in absolute register `index`; false when out of range. Immediate
/// old values are forgotten rather than dropped, skipping the out-of-line drop glue.
#[inline(always)]
fn put(regs: &mut [Value], index: usize, value: Value) -> bool {
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

/// The operands of a call instruction whose callee function is known.
#[derive(Clone, Copy)]
struct CallSite {
    dst: Reg,
    /// Index of the callee in the program's function table.
    callee: usize,
    args: Reg,
    argc: u8,
}

/// What to do after one instruction.
#[derive(Clone, Copy)]
enum Flow {
    Next,
    Jump(i32),
    /// A frame was pushed or replaced.
    Enter,
    /// A frame was popped.
    Leave,
    /// The run finished; the value is in `outcome_value`.
    Finish,
    /// The run suspended; the step is in `pending`.
    Suspend,
}

/// A resolved callable value.
enum Target {
    Closure(Arc<Closure>),
    Function(usize),
    Primitive(usize),
    Tool(usize),
}

/// Indices of the primitives behind the fast-path instructions, pinned by a test.
pub(crate) mod fast {
    pub const CAR: usize = 0;
    pub const CDR: usize = 1;
    pub const ADD: usize = 44;
    pub const SUB: usize = 45;
    pub const MUL: usize = 46;
    pub const REM: usize = 48;
    pub const NUM_EQ: usize = 58;
    pub const LESS: usize = 60;
}

fn jump_target(pc: usize, offset: i64) -> Option<usize> {
    let target = i64::try_from(pc).ok()?.checked_add(offset)?;
    usize::try_from(target).ok()
}

fn span_at(func: &Function, pc: usize) -> crate::Span {
    func.spans
        .get(pc)
        .or_else(|| func.spans.last())
        .copied()
        .unwrap_or_default()
}

fn cell_index(value: &Value) -> Result<usize> {
    match value {
        Value::Int(n) => usize::try_from(*n).map_err(|_| internal("cell register")),
        _ => Err(internal("cell register")),
    }
}

fn closure_boundary() -> Error {
    Error::new(
        ErrorKind::Value,
        "Guest closures cannot cross a tool or result boundary",
    )
}

fn step_budget(limits: &Limits, used: u64) -> Error {
    Error::new(
        ErrorKind::Step,
        format!(
            "Script exceeded its step budget of {} after {} steps; narrow the script",
            limits.steps, used
        ),
    )
}

fn stack_budget(limits: &Limits) -> Error {
    Error::new(
        ErrorKind::Stack,
        format!(
            "Script exceeded its stack budget of {} frames; recursion is too deep",
            limits.stack_depth
        ),
    )
}

fn arity_error(func: &Function, given: usize) -> Error {
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

/// A failure the verifier should have made impossible: reported as a script error rather
/// than a panic, so even a compiler bug cannot take the host down.
#[cold]
fn internal(what: &str) -> Error {
    Error::script(format!("Internal machine error: {what}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fast_path_indices_name_their_primitives() {
        for (index, name) in [
            (fast::CAR, "car"),
            (fast::CDR, "cdr"),
            (fast::ADD, "+"),
            (fast::SUB, "-"),
            (fast::MUL, "*"),
            (fast::REM, "%"),
            (fast::NUM_EQ, "="),
            (fast::LESS, "<"),
        ] {
            assert_eq!(crate::prims::lookup(name), Some(index), "{name}");
        }
    }

    fn assert_send<T: Send>() {}

    #[test]
    fn machine_is_send() {
        assert_send::<Machine>();
    }
}
