//! `parallel` / `parallel-map` branches that run any code ([`crate::isa::Op::Parallel`]).
//!
//! Each branch is a fiber: its own register file, frame stack and handler list, swapped
//! into the machine while it runs (three `mem::swap`s, no copy). The cell heap, the
//! symbol table and every counter (fuel, retained bytes, tool calls, clocks) stay the
//! machine's, so every budget is shared by all branches.
//!
//! The schedule is deterministic and round-based:
//! - At most `parallelism` branches are live (started, not finished); the next elements
//!   start, in list order, as live branches finish.
//! - The machine runs the first runnable live branch (in start order) until it calls a
//!   tool (the call is recorded, the branch waits) or returns (its value is stored at its
//!   element's position, the branch ends, the next element starts).
//! - When no live branch can run, every recorded call goes out as one batch
//!   ([`crate::Step::Batch`]), in start order of the calling branches: that is the issue
//!   order, whatever order the host's results arrive in. The host answers with one
//!   result per call; each lands in its branch, and the round begins again.
//! - When no branch is live and no element is left, the parent resumes with the list of
//!   branch values in element order.
//!
//! Invariants: the parent's context is out of the machine exactly while branches exist;
//! the running branch's context is in the machine and every other branch's is in its
//! [`Fiber`]; a branch never starts another set of branches (nested `parallel` is a
//! script error); an uncaught error in a branch ends the run (the caller settles it), so
//! no branch outlives a failed run. Each branch's frame stack is bounded by `stack-depth`
//! on its own, so a run holds at most `parallelism + 1` stacks.

use super::frames::{Frame, FrameStack};
use super::{Args, Handler, Machine, State, internal};
use crate::error::{Error, Result};
use crate::program::Program;
use crate::step::{Step, ToolRequest};
use crate::value::Value;
use std::collections::VecDeque;

/// What a register file, frame stack and handler list the machine runs on.
#[derive(Debug, Default)]
struct Context {
    regs: Vec<Value>,
    frames: FrameStack,
    handlers: Vec<Handler>,
}

/// Where a live branch stands.
#[derive(Debug)]
enum FiberState {
    /// Can run (fresh, or its tool result has arrived).
    Runnable,
    /// Suspended on a tool call; its result goes to absolute register `dst`. `request`
    /// is the call until it has gone out in a round.
    Waiting {
        dst: usize,
        request: Option<ToolRequest>,
    },
}

/// One live branch.
#[derive(Debug)]
struct Fiber {
    /// The element position whose value the branch computes.
    index: usize,
    state: FiberState,
    /// Its context while it is not running.
    context: Context,
}

/// Why the running branch stopped (set by the instruction, acted on by [`Machine::run`]).
#[derive(Debug)]
pub(super) enum Event {
    /// `Op::Parallel` asked for its branches; the parent's pc is saved past it.
    Start,
    /// The running branch called a tool.
    Call { dst: usize, request: ToolRequest },
    /// The running branch returned this value.
    Done(Value),
}

/// The branches of one `parallel` / `parallel-map` in progress.
#[derive(Debug)]
pub(super) struct Branches {
    /// The parent's context while branches run.
    parent: Context,
    /// Absolute register of the parent receiving the list of values.
    dst: usize,
    /// `parallel-map`'s function, or `None` for `parallel` (each element is a closure).
    func: Option<Value>,
    /// Elements not started yet.
    rest: Value,
    /// How many elements have started.
    started: usize,
    /// The values so far, by element position.
    values: Vec<Value>,
    /// Live branches, in start order.
    live: VecDeque<Fiber>,
    /// Position in `live` of the running branch.
    running: Option<usize>,
    /// Most branches live at once.
    width: usize,
    /// Set by the instruction that stopped the running branch.
    pub(super) event: Option<Event>,
}

impl Context {
    /// Moves the machine's running context out (leaving empty ones).
    fn take(machine: &mut Machine) -> Context {
        Context {
            regs: std::mem::take(&mut machine.regs),
            frames: std::mem::take(&mut machine.frames),
            handlers: std::mem::take(&mut machine.handlers),
        }
    }

    /// Moves this context into the machine, dropping the machine's (empty or finished) one.
    fn put(self, machine: &mut Machine) {
        machine.regs = self.regs;
        machine.frames = self.frames;
        machine.handlers = self.handlers;
    }
}

impl Machine {
    /// `Op::Parallel`: checks its operands and asks [`Machine::run`] to start the branches
    /// (`Ok(true)`), or stores nil for an empty list (`Ok(false)`).
    pub(super) fn parallel(&mut self, dst: usize, func: Value, list: Value) -> Result<bool> {
        if self.branches.is_some() {
            return Err(nested());
        }
        if !list.is_list() {
            return Err(Error::script("'parallel-map': expects a list"));
        }
        if list.is_nil() {
            self.store(dst, Value::Nil)?;
            return Ok(false);
        }
        let width = usize::try_from(self.limits.parallelism.clamp(1, 64)).unwrap_or(1);
        self.branches = Some(Box::new(Branches {
            parent: Context::default(),
            dst,
            func: (!func.is_nil()).then_some(func),
            rest: list,
            started: 0,
            values: Vec::new(),
            live: VecDeque::with_capacity(width),
            running: None,
            width,
            event: Some(Event::Start),
        }));
        Ok(true)
    }

    /// Acts on the running branch's [`Event`]: switches to the next branch (`Ok(None)`:
    /// keep running), or hands back a round of calls (`Ok(Some(step))`).
    pub(super) fn branch_event(&mut self, program: &Program) -> Result<Option<Step>> {
        let mut branches = self
            .branches
            .take()
            .ok_or_else(|| internal("branch event without branches"))?;
        let outcome = self.on_event(program, &mut branches);
        self.branches = Some(branches);
        outcome?;
        self.next_branch()
    }

    fn on_event(&mut self, program: &Program, branches: &mut Branches) -> Result<()> {
        match branches.event.take() {
            Some(Event::Start) => {
                branches.parent = Context::take(self);
                self.refill(program, branches)
            }
            Some(Event::Call { dst, request }) => {
                let at = branches
                    .running
                    .take()
                    .ok_or_else(|| internal("call without a running branch"))?;
                let fiber = branches
                    .live
                    .get_mut(at)
                    .ok_or_else(|| internal("running branch"))?;
                fiber.state = FiberState::Waiting {
                    dst,
                    request: Some(request),
                };
                fiber.context = Context::take(self);
                Ok(())
            }
            Some(Event::Done(value)) => {
                let at = branches
                    .running
                    .take()
                    .ok_or_else(|| internal("return without a running branch"))?;
                let fiber = branches
                    .live
                    .remove(at)
                    .ok_or_else(|| internal("running branch"))?;
                drop(Context::take(self));
                *branches
                    .values
                    .get_mut(fiber.index)
                    .ok_or_else(|| internal("branch position"))? = value;
                self.refill(program, branches)
            }
            None => Err(internal("branch switch without an event")),
        }
    }

    /// Starts elements until `width` branches are live or none is left.
    fn refill(&mut self, program: &Program, branches: &mut Branches) -> Result<()> {
        while branches.live.len() < branches.width {
            let cell = match &branches.rest {
                Value::Cons(cell) => cell,
                Value::Nil => return Ok(()),
                // A dotted list's tail, as `cdr` would report it.
                tail => return Err(crate::number::wrong_type("listp", tail, &self.symbols)),
            };
            let (item, next) = (cell.car().clone(), cell.cdr().clone());
            branches.rest = next;
            let (callee, args) = match &branches.func {
                Some(func) => (func.clone(), Args::from_iter([item])),
                None => (item, Args::new()),
            };
            let context = self.fiber_context(program, &callee, args)?;
            branches.live.push_back(Fiber {
                index: branches.started,
                state: FiberState::Runnable,
                context,
            });
            branches.values.push(Value::Nil);
            branches.started += 1;
        }
        Ok(())
    }

    /// A fresh branch: `callee` (a closure) entered with `args` in an empty context.
    fn fiber_context(&mut self, program: &Program, callee: &Value, args: Args) -> Result<Context> {
        let Value::Closure(closure) = callee else {
            return Err(match self.resolve_callable(program, callee) {
                Err(error) => error,
                Ok(_) => Error::script("'parallel': a branch must be a function"),
            });
        };
        let func = closure.function as usize;
        let function = program
            .functions
            .get(func)
            .ok_or_else(|| internal("branch function"))?;
        let saved = Context::take(self);
        self.frames = FrameStack::with(Frame {
            func,
            pc: 0,
            base: 0,
            ret: 0,
            closure: Some(std::sync::Arc::clone(closure)),
        });
        let bound = self.bind(function, 0, args);
        let context = Context::take(self);
        saved.put(self);
        bound.map(|()| context)
    }

    /// Switches to the first runnable branch, or hands back the round's calls, or, when
    /// every branch has finished, resumes the parent with their values.
    fn next_branch(&mut self) -> Result<Option<Step>> {
        let branches = self
            .branches
            .as_deref_mut()
            .ok_or_else(|| internal("no branches"))?;
        if let Some(at) = branches
            .live
            .iter()
            .position(|f| matches!(f.state, FiberState::Runnable))
        {
            let fiber = branches
                .live
                .get_mut(at)
                .ok_or_else(|| internal("runnable branch"))?;
            let context = std::mem::take(&mut fiber.context);
            branches.running = Some(at);
            context.put(self);
            return Ok(None);
        }
        if !branches.live.is_empty() {
            let mut round = Vec::new();
            for fiber in &mut branches.live {
                if let FiberState::Waiting { request, .. } = &mut fiber.state
                    && let Some(request) = request.take()
                {
                    round.push(request);
                }
            }
            if round.is_empty() {
                return Err(internal("branches wait with no call"));
            }
            self.state = State::WaitingBranches { count: round.len() };
            return Ok(Some(Step::Batch(round)));
        }
        // Every branch has finished: the parent resumes past `Op::Parallel`.
        let Some(branches) = self.branches.take() else {
            return Err(internal("no branches"));
        };
        let Branches {
            parent,
            dst,
            values,
            ..
        } = *branches;
        parent.put(self);
        self.charge_retained(crate::heap::conses(values.len() as u64))?;
        self.store(dst, Value::list(values))?;
        Ok(None)
    }

    /// Resumes after a round of branch calls with one result per call, in issue order.
    pub(super) fn resume_branches(&mut self, results: Vec<Value>, count: usize) -> Step {
        if results.len() != count {
            return self.settle_error(Error::script(format!(
                "A parallel batch of {count} calls was resumed with {} results",
                results.len()
            )));
        }
        let mut results = results.into_iter();
        let Some(mut branches) = self.branches.take() else {
            return self.settle_error(internal("branch results without branches"));
        };
        let mut outcome = Ok(());
        for fiber in &mut branches.live {
            let FiberState::Waiting { dst, request: None } = fiber.state else {
                continue;
            };
            let Some(result) = results.next() else { break };
            match self.admit_result(result) {
                Ok(value) => match fiber.context.regs.get_mut(dst) {
                    Some(slot) => *slot = value,
                    None => outcome = Err(internal("branch result register")),
                },
                Err(error) => outcome = Err(error),
            }
            if outcome.is_err() {
                break;
            }
            fiber.state = FiberState::Runnable;
        }
        self.branches = Some(branches);
        if let Err(error) = outcome {
            return self.settle_error(error);
        }
        self.state = State::Ready;
        match self.next_branch() {
            Ok(None) => self.run(),
            Ok(Some(step)) => step,
            Err(error) => self.settle_error(error),
        }
    }
}

/// The error of a `parallel` inside a branch.
pub(super) fn nested() -> Error {
    Error::script("'parallel': a parallel branch may not run another parallel or parallel-map")
}
