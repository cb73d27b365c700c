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
//!
//! The machine is split by seam: this module holds the state and the public surface;
//! [`fuel`] the slices, clocks and the step budget; [`dispatch`] the hot loop with its
//! inline fast paths; [`exec`] the general path of every instruction; [`frames`] the
//! frame stack; [`calls`] entering frames, argument binding and primitive calls;
//! [`tools`] tool calls, batches and resumption; [`branches`] the branches of `parallel`
//! and `parallel-map` (one context per branch, scheduled in rounds); [`regs`] the running
//! frame's register window (the crate's one `unsafe` module).

use crate::clock::Clock;
use crate::error::{Error, ErrorKind, Result};
use crate::limits::Limits;
use crate::print::{self, Style};
use crate::program::Program;
use crate::regexp::RegexCache;
use crate::step::{Stats, Step, ToolRequest};
use crate::symbol::{Symbols, well_known};
use crate::value::Value;
use smallvec::SmallVec;
use std::sync::Arc;
use std::time::Duration;

#[forbid(unsafe_code)]
mod branches;
#[forbid(unsafe_code)]
mod calls;
#[forbid(unsafe_code)]
mod dispatch;
#[forbid(unsafe_code)]
mod exec;
#[forbid(unsafe_code)]
mod frames;
#[forbid(unsafe_code)]
mod fuel;
#[allow(unsafe_code)]
mod regs;
#[forbid(unsafe_code)]
mod tools;

use frames::{Frame, FrameStack};

#[derive(Debug)]
enum State {
    Ready,
    WaitingTool {
        dst: usize,
    },
    WaitingBatch {
        dst: usize,
        count: usize,
    },
    /// Branches of a `parallel` wait on a round of `count` calls ([`branches`]).
    WaitingBranches {
        count: usize,
    },
    Done(Value),
    Failed(Error),
    Closed,
}

type Args = SmallVec<[Value; 8]>;

/// An installed `condition-case` handler ([`crate::isa::Op::PushHandler`]).
#[derive(Debug, Clone)]
struct Handler {
    /// `frames.len()` when it was installed: its frame is `frames[depth - 1]`.
    depth: usize,
    /// The handler code's first instruction in that frame's function.
    pc: usize,
    /// Absolute register receiving `(SYMBOL . DATA)`; the next one the clause index.
    dst: usize,
    /// The clauses' condition lists.
    clauses: Value,
}

/// One run of a program. `Send`, so a host may move it between threads between steps.
#[derive(Debug)]
pub struct Machine {
    program: Arc<Program>,
    /// The budgets, shared with the host (and every other run under the same budgets).
    limits: Arc<Limits>,
    symbols: Symbols,
    regs: Vec<Value>,
    frames: FrameStack,
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
    /// With a clock and `slice-seconds`: the clock reading at which the slice ends.
    slice_deadline: Option<Duration>,
    /// The host's time source ([`Machine::set_clock`]); without one only fuel ends slices.
    clock: Option<Arc<dyn Clock>>,
    started: bool,
    metered: bool,
    /// Integers must stay below this magnitude (`2^number_bits`, saturated).
    int_bound: u64,
    regexps: RegexCache,
    /// The step a suspending instruction hands back, boxed: a suspended machine holds none,
    /// and inline it was 48 of a suspended run's bytes. While a `parallel` collects its
    /// requests it is that batch ([`Machine::batch_mut`]).
    pending: Option<Box<Step>>,
    /// Installed `condition-case` handlers, innermost last.
    handlers: Vec<Handler>,
    /// The branches of a `parallel` in progress ([`branches`]).
    branches: Option<Box<branches::Branches>>,
}

impl Machine {
    /// A fresh run of `program` under `limits` (a `Limits`, or an `Arc<Limits>` shared with
    /// other runs, which the machine then holds without a copy).
    #[must_use]
    pub fn new(program: Arc<Program>, limits: impl Into<Arc<Limits>>) -> Machine {
        let limits: Arc<Limits> = limits.into();
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
            frames: FrameStack::with(Frame {
                func: 0,
                pc: 0,
                base: 0,
                ret: 0,
                closure: None,
            }),
            cells: Vec::new(),
            state: State::Ready,
            stats: Stats::default(),
            next_check: 0,
            fuel_mark: 0,
            slice_end: 0,
            slice_deadline: None,
            clock: None,
            started: false,
            metered: true,
            int_bound,
            regexps: RegexCache::new(),
            pending: None,
            handlers: Vec::new(),
            branches: None,
        }
    }

    /// Gives the machine the host's time source (the time since the run started): each
    /// slice then also ends once `slice-seconds` have passed by it, read every 1024
    /// instructions. Without a clock a slice ends after `slice-steps` alone. The machine
    /// never enforces the whole-run `seconds` budget itself: its driver does, between
    /// slices, by the same clock.
    pub fn set_clock(&mut self, clock: Arc<dyn Clock>) {
        self.clock = Some(clock);
    }

    /// Binds the body function's parameter `index` — a declared input of the script — to
    /// `value` before the first step. Returns false, changing nothing, once the machine has
    /// started or when the body has no such parameter. The caller gives plain data already
    /// checked against the value budget (a JSON conversion).
    pub fn bind_input(&mut self, index: usize, value: Value) -> bool {
        let params = self
            .program
            .functions
            .first()
            .map_or(0, |f| f.param_count());
        if self.started || index >= params {
            return false;
        }
        match self.regs.get_mut(index) {
            Some(slot) => {
                *slot = value;
                true
            }
            None => false,
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
            State::WaitingTool { .. }
            | State::WaitingBatch { .. }
            | State::WaitingBranches { .. } => {
                Step::Error(Error::script("The machine is waiting for a tool result"))
            }
            State::Done(value) => Step::Done(value.clone()),
            State::Failed(error) => Step::Error(error.clone()),
            State::Closed => Step::Error(Error::new(ErrorKind::Closed, "Interpreter is closed")),
        }
    }

    /// The `parallel` batch being collected, if any.
    fn batch_mut(&mut self) -> Option<&mut Vec<ToolRequest>> {
        match self.pending.as_deref_mut() {
            Some(Step::Batch(batch)) => Some(batch),
            _ => None,
        }
    }

    /// Drops the run's state; every later step answers kind `closed`.
    pub fn close(&mut self) {
        self.regs = Vec::new();
        self.frames = FrameStack::default();
        self.cells = Vec::new();
        self.pending = None;
        self.branches = None;
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

    /// Unwinds to the innermost handler that catches `error`: drops the frames and handlers
    /// above it, stores `(SYMBOL . DATA)` and the clause index, and resumes at its code.
    /// `Err(error)` when no handler catches it (or it is not catchable).
    pub(super) fn catch(&mut self, error: Error) -> Result<()> {
        if self.handlers.is_empty() || !crate::prims::signal::catchable(&error) {
            return Err(error);
        }
        let (symbol, data) = crate::prims::signal::condition_of(&error);
        while let Some(handler) = self.handlers.pop() {
            let mut chosen = None;
            for (index, clause) in handler.clauses.iter().enumerate() {
                let matches = clause.iter().any(|condition| match condition {
                    Value::T => true,
                    Value::Sym(name) => {
                        crate::prims::signal::inherits(&symbol, self.symbols.name(*name))
                    }
                    _ => false,
                });
                if matches {
                    chosen = Some(index);
                    break;
                }
            }
            let Some(index) = chosen else { continue };
            if handler.depth == 0 || handler.depth > self.frames.len() {
                return Err(internal("handler frame vanished"));
            }
            self.frames.truncate(handler.depth);
            if let Some(top) = self.frames.last_mut() {
                top.pc = handler.pc;
            }
            let condition = Value::cons(Value::Sym(self.symbols.intern(&symbol)), data);
            self.charge_retained(crate::heap::of(&condition))?;
            let Some([symbol_slot, index_slot]) = self
                .regs
                .get_mut(handler.dst..handler.dst + 2)
                .and_then(|slot| <&mut [Value; 2]>::try_from(slot).ok())
            else {
                return Err(internal("handler registers"));
            };
            *symbol_slot = condition;
            *index_slot = Value::Int(i64::try_from(index).unwrap_or(i64::MAX));
            // A batch being collected is abandoned.
            self.pending = None;
            return Ok(());
        }
        Err(error)
    }

    fn settle_error(&mut self, error: Error) -> Step {
        self.pending = None;
        self.branches = None;
        self.state = State::Failed(error.clone());
        Step::Error(error)
    }

    pub(super) fn charge_retained(&mut self, bytes: u64) -> Result<()> {
        retain(&mut self.stats, &self.limits, bytes)
    }
}

/// Charges `bytes` of fresh structure to the retained budget; over it is an error.
pub(super) fn retain(stats: &mut Stats, limits: &Limits, bytes: u64) -> Result<()> {
    stats.retained_bytes = stats.retained_bytes.saturating_add(bytes);
    if stats.retained_bytes > limits.retained_bytes {
        return Err(Error::new(
            ErrorKind::RetainedValue,
            format!(
                "Script exceeded its retained value budget of {} bytes",
                limits.retained_bytes
            ),
        ));
    }
    Ok(())
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

/// A failure the verifier should have made impossible: reported as a script error rather
/// than a panic, so even a compiler bug cannot take the host down.
#[cold]
pub(super) fn internal(what: &str) -> Error {
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
