//! The tokio driver: a thin loop over the sans-IO [`Envelope`] (spec/reference/tool-calls.md).
//!
//! [`Runner::run`] starts an [`Envelope`] and answers its events: permission asks
//! go to the host's [`PermissionPolicy`] (a policy that answers at once is applied in
//! launch order), dispatched calls run their handlers (in isolation from the driver, see
//! [`crate::dispatch::Isolation`]), cancellations cancel the calls' tokens, journal
//! records go to the [`JournalStore`], pauses yield to the executor, and waits race the
//! handlers, pending decisions, the host's [`CancelToken`] and the envelope's next deadline.
//! Every semantic rule — ids, batches, source order, the audit, timeouts, the wall-clock
//! bound, the result cap — lives in the envelope.
//!
//! Invariants:
//! - The driver yields to the executor at every [`Event::Pause`], and every completion
//!   spends a unit of tokio's cooperative budget (it yields once the budget is spent), so one
//!   busy script never starves other tasks — without a yield, and a chance for another
//!   worker to steal the run, after every call.
//! - A run's state (the envelope, its calls) is one allocation, plus one for what only some
//!   runs have (a host token, a progress sink, a permission round's policy, a journal
//!   guard, host data); the future is small. The envelope hands dispatched calls over one
//!   by one (no list per batch). A call whose inline handler answers at once
//!   ([`crate::ToolHandler::call_now`]) ends at its dispatch and is never held; otherwise
//!   a lone call is polled in place, a batch of up to eight calls in flight shares one
//!   vector, and only a larger one uses a `FuturesUnordered`. Each held call's
//!   cancellation lives with its future; its token is made only when the handler asks for
//!   it, a handler on the blocking pool is watched, or the call is cancelled
//!   ([`crate::cancel`]).
//! - Every call still held when the run settles is cancelled (its token, made then if
//!   nobody asked for it, fires), and the driver waits for a handler at most
//!   [`crate::dispatch::CANCEL_GRACE`] after that.
//! - Progress snapshots reach the host's sink in the order the envelope took them.
//!
//! Split by seam: this module holds the [`Runner`] and the drive loop; `options` the
//! per-run [`RunOptions`]; `held` the calls a run holds (being decided,
//! running); `in_flight` the container of the calls' futures.

mod clock;
mod held;
mod in_flight;
mod options;
mod source;

pub use options::{InputsError, RunOptions};
pub use source::Source;

use crate::cancel::CancelToken;
use crate::context::RunData;
use crate::dispatch::{self, ChildEnd, Isolation, Launch};
use crate::policy::{AllowAll, Decision, PermissionPolicy};
use crate::tool::Registry;
use futures::FutureExt as _;
use held::{Calls, Launched};
use in_flight::InFlight;
use ptc_core::ToolFilter;
use ptc_core::envelope::{Envelope, EnvelopeConfig, EnvelopeOptions, Event};
use ptc_core::journal::JournalStore;
use ptc_core::outcome::Outcome;
use ptc_core::progress::ProgressSink;
use ptc_core::script::Script;
use ptc_vm::Limits;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

/// Runs scripts against one registry with one policy, budget set and journal.
/// Cheap to share; every run is independent.
#[derive(Clone)]
pub struct Runner {
    registry: Arc<Registry>,
    /// Shared by every run's envelope and machine (no copy per run).
    limits: Arc<Limits>,
    policy: Arc<dyn PermissionPolicy>,
    journal: Option<Arc<dyn JournalStore>>,
    isolation: Isolation,
    /// The policy is [`Runner::new`]'s [`AllowAll`]: no permission round per call.
    allows_all: bool,
    /// Record nested calls' arguments and results on their spans.
    trace_content: bool,
}

impl std::fmt::Debug for Runner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runner")
            .field("tools", &self.registry.len())
            .field("limits", &self.limits)
            .field("journal", &self.journal.is_some())
            .field("isolation", &self.isolation)
            .finish_non_exhaustive()
    }
}

/// Settles a run's `running` journal record as interrupted when the run's future is
/// dropped before the run settles.
struct JournalGuard {
    store: Option<Arc<dyn JournalStore>>,
    running: Option<Box<ptc_core::journal::JournalRecord>>,
}

impl Drop for JournalGuard {
    fn drop(&mut self) {
        let (Some(store), Some(record)) = (&self.store, self.running.take()) else {
            return;
        };
        let record = record.interrupted(ptc_core::journal::INTERRUPTED_BY_DROP);
        let mut write = store.write(&record);
        // A store whose write completes at once (the file store) is done here; another
        // finishes on the runtime, when there is one.
        if (&mut write).now_or_never().is_none()
            && let Ok(handle) = tokio::runtime::Handle::try_current()
        {
            handle.spawn(write);
        }
    }
}

impl Runner {
    /// A runner over `registry` with default budgets, allowing every call, without
    /// a journal, running handlers with [`Isolation::Thread`].
    #[must_use]
    pub fn new(registry: Arc<Registry>) -> Self {
        Runner {
            registry,
            limits: Arc::new(Limits::default()),
            policy: Arc::new(AllowAll),
            journal: None,
            isolation: Isolation::default(),
            allows_all: true,
            trace_content: false,
        }
    }

    /// Records each nested call's arguments and result (bounded like the audit) on its
    /// `execute_tool` span when `on` (`gen_ai.tool.call.arguments` / `.result`;
    /// spec/reference/observability.md). Off by default: they may hold sensitive data.
    #[must_use]
    pub fn with_traced_tool_content(mut self, on: bool) -> Self {
        self.trace_content = on;
        self
    }

    /// Uses `limits`.
    #[must_use]
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = Arc::new(limits);
        self
    }

    /// Uses `policy` for every nested call.
    #[must_use]
    pub fn with_policy(mut self, policy: Arc<dyn PermissionPolicy>) -> Self {
        self.policy = policy;
        self.allows_all = false;
        self
    }

    /// Persists envelopes in `store`.
    #[must_use]
    pub fn with_journal(mut self, store: Arc<dyn JournalStore>) -> Self {
        self.journal = Some(store);
        self
    }

    /// Runs handlers as `isolation` says.
    #[must_use]
    pub fn with_isolation(mut self, isolation: Isolation) -> Self {
        self.isolation = isolation;
        self
    }

    /// The registry.
    #[must_use]
    pub fn registry(&self) -> &Arc<Registry> {
        &self.registry
    }

    /// The budgets.
    #[must_use]
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    fn config(&self, options: &RunOptions) -> EnvelopeConfig {
        let limits = options.limits.as_ref().map_or_else(
            || Arc::clone(&self.limits),
            |limits| Arc::new(crate::context::tighten(&self.limits, limits)),
        );
        EnvelopeConfig {
            catalog: Arc::clone(self.registry.catalog()),
            limits,
            id: options
                .id
                .clone()
                .unwrap_or_else(ptc_core::ids::fresh_shared_id),
            clock: Some(clock::shared()),
            options: EnvelopeOptions {
                // Allowing everything needs no permission round: the calls go straight to
                // dispatch (no policy future, no second copy of each request).
                ask_permission: !(self.allows_all && options.policy.is_none()),
                journal: self.journal.is_some(),
                progress: options.progress.is_some(),
                record: options.record,
            },
        }
    }

    /// Compiles `source` once against the runner's tools (those `tools` allows, all without
    /// a filter) and budgets, with `inputs` declared as read-only variables
    /// (`ptc_core::script`): the one compile entry point. Run the [`Script`] as often as
    /// wanted, on any thread, with [`Runner::run`] (and a [`RunOptions::tools`] of an equal
    /// filter).
    ///
    /// ```
    /// use ptc_runtime::{Registry, RunOptions, Runner, ToolContract, ToolRequestCtx, ToolResult};
    /// use serde_json::json;
    /// use std::sync::Arc;
    ///
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let mut registry = Registry::new();
    /// let schema = json!({"type": "object", "properties": {"city": {"type": "string"}}});
    /// registry.register(
    ///     ToolContract::new("Weather", "Gives the weather.", schema),
    ///     |request: ToolRequestCtx| async move {
    ///         let temp = if request.arguments["city"] == "Rome" { 24 } else { 11 };
    ///         ToolResult::json(json!({"temp": temp}))
    ///     },
    /// )?;
    /// let runner = Runner::new(Arc::new(registry));
    /// let script = runner.compile("(plist-get (Weather :city city) :temp)", &["city"], None)?;
    /// let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    /// for (city, temp) in [("Rome", "24"), ("Oslo", "11")] {
    ///     let options = RunOptions::new().inputs(&json!({"city": city}))?;
    ///     let outcome = rt.block_on(runner.run(&script, options)).into_result()?;
    ///     assert_eq!(outcome.text, temp);
    /// }
    /// // Assigning an input is a compile error with a code.
    /// let refused = runner.compile("(setq city \"Paris\")", &["city"], None).unwrap_err();
    /// assert_eq!(refused.diagnostics[0].code, "E0904");
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    /// Every diagnostic, with the source, when the script is rejected; a `setq` of an input
    /// is E0904.
    pub fn compile(
        &self,
        source: &str,
        inputs: &[&str],
        tools: Option<&ToolFilter>,
    ) -> Result<Script, ptc_compiler::Diagnostics> {
        let catalog = self.registry.catalog();
        let clock = Some(clock::shared());
        Script::compile(catalog, source, inputs, tools, &self.limits, clock)
    }

    /// The tool listing a run with `options` sees (its tool filter applied).
    #[must_use]
    pub fn listing(&self, options: &RunOptions) -> String {
        ptc_core::listing::tool_listing_for(self.registry.catalog(), options.tools.as_ref())
    }

    /// Runs `source` — script text, a compiled [`Script`], the model's raw ToolCall
    /// arguments or a host-compiled program ([`Source`]) — with `options` (its id, inputs,
    /// data, limits, policy, tools, cancellation, progress): the one run entry point. The
    /// run (and its clock) starts when this is called, compiling text at once; the future
    /// drives it and settles with the [`Outcome`] (never an `Err`: every failure is an
    /// outcome kind).
    pub fn run<'s>(
        &self,
        source: impl Into<Source<'s>>,
        options: RunOptions,
    ) -> impl Future<Output = Outcome> + Send + '_ {
        let source = source.into();
        // The run's span is opened when its envelope starts, under the current span or the
        // one the host gave.
        let envelope = match &options.parent {
            Some(parent) => parent.in_scope(|| self.start(source, &options)),
            None => self.start(source, &options),
        };
        self.drive(envelope, options)
    }

    /// The envelope of `source` under `options`, started now.
    fn start(&self, source: Source<'_>, options: &RunOptions) -> Envelope {
        let config = self.config(options);
        let now = clock::now();
        match source {
            Source::Text(script) => self.start_text(config, script, options, now),
            Source::Script(script) => {
                let empty = serde_json::Map::new();
                let inputs = options.inputs.as_ref().unwrap_or(&empty);
                Envelope::from_script(config, script, options.tools.as_ref(), inputs, now)
            }
            Source::ToolCall(arguments) => match ptc_core::envelope::expression_of(arguments) {
                Ok(script) => self.start_text(config, script, options, now),
                Err(_) => Envelope::from_tool_call(config, arguments, now),
            },
            Source::Program {
                program,
                direct,
                text,
            } => Envelope::start(
                config,
                Arc::clone(program),
                direct.map(str::to_owned),
                text,
                now,
            ),
            Source::Resume { journal, decisions } => {
                Envelope::resume(config, journal, options.tools.as_ref(), decisions, now)
            }
            Source::Replay(journal) => {
                Envelope::replay(config, journal, options.tools.as_ref(), now)
            }
        }
    }

    fn start_text(
        &self,
        config: EnvelopeConfig,
        script: &str,
        options: &RunOptions,
        now: Duration,
    ) -> Envelope {
        if options.inputs.is_none() && options.tools.is_none() {
            return Envelope::compile(config, script, now);
        }
        let roster = self.registry.catalog().roster_cow(options.tools.as_ref());
        let names: Vec<&str> = options
            .inputs
            .iter()
            .flat_map(|inputs| inputs.keys().map(String::as_str))
            .collect();
        let compiled = ptc_compiler::compile_with_clock(
            script,
            &roster,
            &config.limits,
            &names,
            config.clock.clone(),
        );
        let inputs = compiled.as_ref().map(|c| c.inputs.clone()).ok();
        let mut envelope = Envelope::from_compiled(config, compiled, script, now);
        if let (Some(declared), Some(values)) = (inputs, &options.inputs) {
            envelope.bind_inputs(&declared, values);
        }
        envelope
    }

    /// Answers `envelope`'s events until it settles. Everything the run holds lives in one
    /// allocation made here; the future itself stays small.
    fn drive(
        &self,
        envelope: Envelope,
        options: RunOptions,
    ) -> impl Future<Output = Outcome> + Send + '_ {
        let RunOptions {
            cancel,
            progress,
            data,
            policy,
            ..
        } = options;
        let cancel = cancel.into_inner();
        // A run under the runner's `AllowAll`, with no token, sink, journal or data (the
        // usual one) boxes none of these.
        let asks = !(self.allows_all && policy.is_none());
        let rare = (asks
            || cancel.is_some()
            || progress.is_some()
            || self.journal.is_some()
            || !data.is_empty())
        .then(|| {
            Box::new(Rare {
                cancel,
                cancelled: None,
                progress,
                data,
                policy: match policy {
                    Some(run) => Arc::new(crate::policy::Both(self.policy.clone(), run)) as _,
                    None => self.policy.clone(),
                },
                journal: JournalGuard {
                    store: self.journal.clone(),
                    running: None,
                },
            })
        });
        let mut state = Box::new(RunState {
            envelope,
            calls: Calls {
                asking: None,
                running: InFlight::Idle,
            },
            timer: None,
            rare,
        });
        state.envelope.hand_over_outcome();
        state.envelope.record_tool_content(self.trace_content);
        state.envelope.pull_dispatches();
        self.drive_state(state)
    }

    async fn drive_state(&self, mut state: Box<RunState>) -> Outcome {
        loop {
            match self.answer(&mut state) {
                Next::Again => {}
                Next::Ended(calls) => {
                    for _ in 0..calls {
                        tokio::task::coop::consume_budget().await;
                    }
                }
                Next::Pause => tokio::task::yield_now().await,
                Next::Journal(record) => {
                    let written = match &self.journal {
                        Some(store) => store.write(&record).await.is_ok(),
                        None => true,
                    };
                    state.journal_written(record, written);
                }
                Next::Wait(deadline) => {
                    let woke = std::future::poll_fn(|cx| state.poll_wait(cx, deadline)).await;
                    if state.woke(woke) {
                        // Completions spend the task's cooperative budget: a run whose
                        // handlers all complete synchronously yields once the budget is
                        // spent, not after every call.
                        tokio::task::coop::consume_budget().await;
                    }
                }
                Next::Settled(outcome) => {
                    if let Some(rare) = state.rare.as_mut() {
                        rare.journal.running = None;
                    }
                    state.calls.cancel_all();
                    // Each cancelled call ends within the grace period.
                    while state.calls.running.next().await.is_some() {}
                    return *outcome;
                }
            }
        }
    }

    /// Polls the envelope once and answers what needs no waiting (cancellations,
    /// permission asks a policy decides at once, dispatches); what is left to await.
    /// Kept out of [`Runner::drive_state`] so that its future holds no [`Event`].
    fn answer(&self, state: &mut RunState) -> Next {
        let RunState {
            envelope,
            calls,
            rare,
            ..
        } = state;
        let rare = rare.as_deref();
        let progress = rare.and_then(|rare| rare.progress.as_ref());
        if rare
            .and_then(|rare| rare.cancel.as_ref())
            .is_some_and(CancelToken::is_cancelled)
        {
            envelope.cancel();
        }
        let event = envelope.poll(clock::now());
        report(envelope, progress);
        match event {
            Event::Settled(outcome) => return Next::Settled(outcome),
            Event::Pause => return Next::Pause,
            Event::Journal(record) => return Next::Journal(Box::new(record)),
            Event::Waiting { deadline } => return Next::Wait(deadline),
            Event::Cancel(ids) => calls.cancel(envelope, &ids),
            Event::Permission(requests) => {
                for request in requests {
                    let ctx = calls.ask(&request, run_data(rare));
                    // Only a run with a permission round is asked (`Rare::policy`).
                    let policy = rare.map_or(&self.policy, |rare| &rare.policy);
                    let mut decision = dispatch::check_policy(policy, &ctx);
                    match decision.as_mut().now_or_never() {
                        Some(Decision::Allow) => {
                            let _ = envelope.allow(&request.id);
                        }
                        Some(Decision::Deny(reason)) => {
                            let _ = envelope.deny(&request.id, reason);
                            break;
                        }
                        Some(Decision::Pause) => {
                            if pause(envelope, &request.id) {
                                break;
                            }
                        }
                        None => calls
                            .asking()
                            .deciding
                            .push(Box::pin(decision.map(move |d| (request.id, d)))),
                    }
                    report(envelope, progress);
                }
            }
            Event::Dispatch(_) => {
                // The envelope hands the requests over one by one, with their indices
                // (`Envelope::pull_dispatches`): no list per batch.
                let mut ended = 0;
                while let Some((call, request)) = envelope.next_dispatch() {
                    let Some(handler) = self.registry.handler(&request.tool) else {
                        continue;
                    };
                    let ctx = calls.dispatching(request, run_data(rare));
                    match dispatch::launch(handler, ctx, self.isolation) {
                        // Answered at once: nothing to hold or poll.
                        Launch::Ended(end) => {
                            end_call(envelope, call, end, progress);
                            ended += 1;
                        }
                        Launch::Running(cancel, future) => calls.running.push(Launched {
                            call,
                            cancel,
                            future,
                        }),
                    }
                }
                if ended > 0 {
                    return Next::Ended(ended);
                }
            }
            // An event a newer core added: this driver knows none, so it polls again.
            _ => {}
        }
        Next::Again
    }
}

/// What the drive loop awaits next ([`Runner::answer`]).
enum Next {
    /// Poll the envelope again.
    Again,
    /// This many calls answered at once at their dispatch: spend a unit of the cooperative
    /// budget for each (as for a call that ends during a wait), then poll again.
    Ended(usize),
    /// Yield to the executor, then poll again.
    Pause,
    /// Write this record, then acknowledge it.
    Journal(Box<ptc_core::journal::JournalRecord>),
    /// Wait for a call, a decision, the host's cancellation or the deadline.
    Wait(Option<Duration>),
    /// The run is over.
    Settled(Box<Outcome>),
}

/// What ended a wait, in the order [`RunState::poll_wait`] looks (the host's cancellation
/// first).
enum Woke {
    Cancelled,
    Decision(Arc<str>, Decision),
    Ended(usize, ChildEnd),
    Deadline,
}

/// What one run holds while it is driven (one allocation, see [`Runner::drive`]).
struct RunState {
    envelope: Envelope,
    calls: Calls,
    /// The timer of the envelope's next deadline, made on the first wait that could not
    /// end at once and reset for later ones (a run whose calls all answer at once has
    /// none).
    timer: Option<Pin<Box<tokio::time::Sleep>>>,
    /// See [`Rare`]; last, so that the calls are cancelled before the journal guard acts.
    rare: Option<Box<Rare>>,
}

/// What only some runs have: boxed apart so that a suspended run under the defaults stays
/// small.
struct Rare {
    /// The host's token, if it made one.
    cancel: Option<CancelToken>,
    /// Its cancellation, registered on the first wait that could not end at once and kept
    /// for the run's later waits.
    cancelled: Option<Pin<Box<tokio_util::sync::WaitForCancellationFutureOwned>>>,
    progress: Option<Arc<dyn ProgressSink>>,
    /// The host's data for every handler and policy of the run.
    data: RunData,
    /// The policy of a run with a permission round (the runner's, and the run's own).
    policy: Arc<dyn PermissionPolicy>,
    journal: JournalGuard,
}

impl RunState {
    /// Polls what a wait races, in order: the host's cancellation, a pending permission
    /// decision, a call's end, then the deadline (only when nothing else is ready).
    fn poll_wait(&mut self, cx: &mut Context<'_>, deadline: Option<Duration>) -> Poll<Woke> {
        if let Some(rare) = self.rare.as_deref_mut()
            && let Some(token) = &rare.cancel
        {
            let cancelled = rare
                .cancelled
                .get_or_insert_with(|| Box::pin(token.clone().cancelled_owned()));
            if cancelled.as_mut().poll(cx).is_ready() {
                return Poll::Ready(Woke::Cancelled);
            }
        }
        if let Some(asking) = self.calls.asking.as_mut()
            && let Poll::Ready(Some((id, decision))) = asking.deciding.poll_next(cx)
        {
            return Poll::Ready(Woke::Decision(id, decision));
        }
        if let Poll::Ready(Some((call, end))) = self.calls.running.poll_next(cx) {
            return Poll::Ready(Woke::Ended(call, end));
        }
        let Some(deadline) =
            deadline.map(|deadline| tokio::time::Instant::from_std(clock::instant_of(deadline)))
        else {
            return Poll::Pending;
        };
        let timer = self
            .timer
            .get_or_insert_with(|| Box::pin(tokio::time::sleep_until(deadline)));
        if timer.deadline() != deadline {
            timer.as_mut().reset(deadline);
        }
        timer.as_mut().poll(cx).map(|()| Woke::Deadline)
    }

    /// Feeds what ended a wait to the envelope; whether it was a call's end.
    fn woke(&mut self, woke: Woke) -> bool {
        let envelope = &mut self.envelope;
        match woke {
            Woke::Cancelled => envelope.cancel(),
            Woke::Decision(id, decision) => {
                envelope.advance(clock::now());
                // A decision for a call the envelope abandoned is refused; fine.
                let _ = match decision {
                    Decision::Allow => envelope.allow(&id),
                    Decision::Deny(reason) => envelope.deny(&id, reason),
                    Decision::Pause => {
                        pause(envelope, &id);
                        Ok(())
                    }
                };
            }
            Woke::Ended(call, end) => {
                let progress = self.rare.as_ref().and_then(|rare| rare.progress.as_ref());
                end_call(envelope, call, end, progress);
                return true;
            }
            Woke::Deadline => {}
        }
        false
    }

    /// Acknowledges a journal record the store took (`written`) or refused; a written
    /// `running` record is kept for [`JournalGuard`].
    fn journal_written(&mut self, record: Box<ptc_core::journal::JournalRecord>, written: bool) {
        // Only a run with a journal is asked to write records, and it has a `Rare`.
        if let Some(rare) = self.rare.as_mut() {
            rare.journal.running = (written
                && record.state == ptc_core::journal::JournalState::Running)
                .then_some(record);
        }
        // The envelope asked for this record, so the acknowledgement fits.
        let _ = self.envelope.journal_written(written);
    }
}

/// Feeds how call `call` ended to the envelope, and reports the snapshots it took.
fn end_call(
    envelope: &mut Envelope,
    call: usize,
    end: ChildEnd,
    progress: Option<&Arc<dyn ProgressSink>>,
) {
    let now = clock::now();
    envelope.advance(now);
    // An answer for a call that timed out meanwhile, or that arrives after its deadline,
    // is refused (as its timeout).
    let _ = match end {
        ChildEnd::Finished(result) => envelope.complete_at(now, call, result),
        ChildEnd::Failed(failure) => envelope.fail_at(now, call, failure),
        ChildEnd::Cancelled => Ok(()),
    };
    report(envelope, progress);
}

/// The run's host data, for a call's context (none unless the run has a [`Rare`]).
fn run_data(rare: Option<&Rare>) -> RunData {
    rare.map(|rare| rare.data.clone()).unwrap_or_default()
}

/// Sends the envelope's new snapshots to the host's sink.
fn report(envelope: &mut Envelope, sink: Option<&Arc<dyn ProgressSink>>) {
    if let Some(sink) = sink {
        for snapshot in envelope.take_progress() {
            sink.progress(&snapshot);
        }
    }
}

/// Pauses call `id` for a person; a run that keeps no journal cannot pause, so the call is
/// denied, saying so. Whether the call was denied (the run is over).
fn pause(envelope: &mut Envelope, id: &str) -> bool {
    match envelope.pause(id) {
        Err(ptc_core::EnvelopeError::NotRecorded) => {
            let reason = "the policy paused the call, but the run keeps no journal to resume \
                          it from (RunOptions::record)";
            let _ = envelope.deny(id, reason);
            true
        }
        _ => false,
    }
}
