//! The envelope as a sans-IO machine: one ToolCall's semantics with no executor, no clock
//! and no I/O of its own (spec/reference/tool-calls.md).
//!
//! An [`Envelope`] is started with a compiled program (or a script it compiles), the
//! registry whose contracts describe the tools (their schemas validate arguments; their
//! handlers are never called here), the budgets, the envelope id and [`EnvelopeOptions`].
//! The host then alternates between [`Envelope::poll`], which says what the envelope needs
//! next as an [`Event`], and the feeding methods, which report what happened:
//!
//! | [`Event`] | the host does | then feeds |
//! |---|---|---|
//! | [`Event::Permission`] | decides each call | [`Envelope::allow`] / [`Envelope::deny`] |
//! | [`Event::Dispatch`] | starts each call | [`Envelope::complete`] / [`Envelope::fail`] |
//! | [`Event::Cancel`] | stops those calls (timed out or abandoned) | nothing |
//! | [`Event::Journal`] | writes the record durably | [`Envelope::journal_written`] |
//! | [`Event::Pause`] | yields to its own scheduler | nothing |
//! | [`Event::Waiting`] | waits for an answer, its own cancellation or the deadline | whatever came |
//! | [`Event::Settled`] | returns the [`Outcome`] | nothing more |
//!
//! Every constructor, `poll` and answer takes the caller's `now`: a [`Duration`] on the
//! host's monotonic clock, since an origin of the host's choosing (the run's start, the
//! process's); the deadlines the envelope reports are on that clock too. The envelope reads
//! no clock. A host that can read its clock at any moment also hands it over as a
//! [`ptc_vm::Clock`]
//! ([`EnvelopeConfig::clock`]) so that compilation stops at `seconds` and a fuel slice at
//! `slice-seconds` between two polls; without one they are bounded by their budgets of
//! work alone. `seconds` is enforced here and only here: before every slice, while calls
//! are out, and when an answer arrives. It owns
//! argument conversion and schema validation, the permission decision point, the
//! `ENVELOPE/N` ids, batches and source order, bounded parallelism, direct vs composed
//! results, the audit and its bounds, notes, the result cap, journal record timing, progress
//! snapshots, fuel pauses, per-call timeouts (`tool-timeout-ms`) and the whole-envelope
//! wall-clock bound (`seconds`, which counts tool time: budgets.md).
//!
//! Invariants:
//! - No feeding method panics. Misuse by a buggy host — an unknown or duplicate call id,
//!   an answer for a call that was never dispatched, that timed out or was cancelled, any
//!   answer after the envelope settled, a journal acknowledgement nobody asked for —
//!   is an [`EnvelopeError`] and changes nothing: the audit stays what it was.
//! - Answers are addressed by call id, never by position, so a batch cannot be resumed
//!   with the wrong number of results: it resumes when every member has ended.
//! - Every call the envelope abandons (a timeout, a denial, the host's cancellation, the
//!   deadline) is named in one [`Event::Cancel`] before the next event.
//! - With the journal on, the start record is acknowledged before any call is dispatched,
//!   and the settled record (one retry) before [`Event::Settled`].
//! - The type is `Send`, so a binding may keep it behind a mutex.
//!
//! Split by seam: this module holds the state and polling; `types` the public vocabulary
//! (config, events, requests, errors); `batch` the suspension being serviced; `calls`
//! launching and answering calls; `settle` the outcome and journal records.
//!
//! A complete stepping loop, answering every call synchronously:
//!
//! ```
//! use ptc_core::{Catalog, Envelope, EnvelopeConfig, Event, ToolContract, ToolResult};
//! use serde_json::json;
//! use std::sync::Arc;
//! use std::time::Instant;
//!
//! // The host's clock: the envelope reads none; every time it is given is a `Duration`
//! // since an origin of the host's (a native host measures it from an `Instant`, a
//! // browser from `performance.now()`).
//! let started = Instant::now();
//! let mut registry = Catalog::new();
//! let schema = json!({"type": "object", "properties": {"city": {"type": "string"}}});
//! registry.add(ToolContract::new("Weather", "Gives the weather.", schema)).unwrap();
//! let script = r#"(mapcar (lambda (r) (plist-get r :temp))
//!                         (parallel (Weather :city "Oslo") (Weather :city "Rome")))"#;
//! let config = EnvelopeConfig::new(Arc::new(registry), ptc_vm::Limits::default(), "toolu_1");
//! let mut envelope = Envelope::compile(config, script, started.elapsed());
//! let outcome = loop {
//!     match envelope.poll(started.elapsed()) {
//!         Event::Permission(calls) => {
//!             for call in calls {
//!                 envelope.allow(&call.id).unwrap();
//!             }
//!         }
//!         Event::Dispatch(calls) => {
//!             for call in calls {
//!                 let temp = if call.arguments["city"] == "Rome" { 24 } else { 11 };
//!                 let result = ToolResult::json(json!({"temp": temp}));
//!                 envelope.complete(started.elapsed(), &call.id, result).unwrap();
//!             }
//!         }
//!         Event::Journal(_record) => envelope.journal_written(true).unwrap(),
//!         Event::Cancel(_ids) => {}  // nothing of ours is still running
//!         Event::Pause => {}         // a real host yields to its scheduler here
//!         Event::Waiting { .. } => unreachable!("every call was answered at once"),
//!         Event::Settled(outcome) => break outcome,
//!         _ => {}                    // an event added later: poll again
//!     }
//! };
//! assert_eq!(outcome.text, "(11 24)");
//! assert_eq!(&*outcome.calls[1].id, "toolu_1/2");
//! assert_eq!(outcome.calls[1].batch, Some(1));
//! // The envelope has settled: a late answer is a typed error, not a changed audit.
//! assert!(envelope.complete(started.elapsed(), "toolu_1/1", ToolResult::text("late")).is_err());
//! ```

mod batch;
mod calls;
mod replay;
mod settle;
mod trace;
mod types;

pub use trace::{CALL_SPAN, RUN_SPAN};

pub use types::{
    CallRequest, EnvelopeConfig, EnvelopeError, EnvelopeOptions, Event, Failure, expression_of,
};

use batch::{Batch, CallState};

use crate::audit::{AuditRecord, Status};
use crate::catalog::{Catalog, ToolResult};
use crate::journal::JournalRecord;
use crate::outcome::Outcome;
use crate::progress::{self, Progress};
use ptc_vm::{Limits, Machine, Program, Step};
use serde_json::Value as Json;
use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

#[derive(Debug)]
enum Phase {
    /// The start record awaits acknowledgement.
    StartRecord,
    /// The machine runs next; a step it already returned, if any.
    Ready(Option<Step>),
    /// A suspension is being serviced.
    Calls(Batch),
    /// The settled record awaits acknowledgement (`failures` so far).
    Persisting { outcome: Box<Outcome>, failures: u8 },
    /// Done.
    Settled(Box<Outcome>),
    /// Done, and the outcome was moved out by the one [`Event::Settled`] a driver that
    /// asked for it ([`Envelope::hand_over_outcome`]) receives.
    HandedOver,
}

/// What few runs need, boxed only when first needed: a run's state stays small (a
/// suspended run holds the envelope) and most runs never allocate it.
#[derive(Debug, Default)]
struct Cold {
    /// The script text, kept only for journal records.
    script: String,
    /// A direct call's own result.
    direct_result: Option<ToolResult>,
    /// Context notes from the calls' results.
    notes: Vec<String>,
    /// Events queued for the next polls (cancellations).
    outbox: VecDeque<Event>,
    /// Progress snapshots not yet taken.
    snapshots: Vec<Progress>,
    /// By call: whether it awaits its permission decision, when it started running and
    /// finished (for progress snapshots; empty unless `options.progress`).
    tracks: Vec<progress::Track>,
    /// Queued calls whose arguments were refused, by index, with the message (without
    /// `Error: `) their launch ends them with.
    refusals: Vec<(usize, String)>,
    /// The run's `tracing` spans, when a subscriber wants them.
    trace: Option<Box<trace::Trace>>,
    /// The journal being recorded ([`EnvelopeOptions::record`]).
    recorder: Option<Box<replay::Recorder>>,
    /// The journal a resumed or replayed run answers from.
    replay: Option<Box<crate::resume::Replay>>,
    /// Milliseconds the run was live before it was resumed.
    prior_ms: u64,
}

/// One ToolCall envelope; see the module docs.
#[derive(Debug)]
pub struct Envelope {
    /// The envelope id, shared with every [`CallRequest`].
    id: Arc<str>,
    catalog: Arc<Catalog>,
    /// The budgets, shared with the machine (and, from a runner, with its other runs).
    limits: Arc<Limits>,
    options: EnvelopeOptions,
    machine: Option<Machine>,
    phase: Phase,
    /// The tool of the script's provably direct call, until a call shows otherwise.
    direct: Option<Arc<str>>,
    /// See [`Cold`].
    cold: Option<Box<Cold>>,
    calls: Vec<AuditRecord>,
    /// The next `parallel` batch's number (u32: a run makes far fewer batches than its
    /// calls budget allows, and the envelope stays small).
    next_batch: u32,
    /// The host's time when the envelope started, in nanoseconds since the host's origin.
    started_ns: u64,
    /// [`REFUSED_UNTIMED`], [`UNREPORTED`], [`HAND_OVER`], [`PULL_DISPATCHES`]: bits, so
    /// that the envelope's small fields share one word.
    flags: u8,
    /// The caller's latest time, in nanoseconds since the envelope started
    /// ([`Envelope::now`]).
    elapsed_ns: u64,
    /// The wall-clock bound, in nanoseconds since the envelope started (at most
    /// `u64::MAX - 1`);
    /// `u64::MAX` when there is none (no `seconds`, or a refused envelope).
    deadline_ns: u64,
}

/// A refused envelope whose elapsed time the first poll sets.
const REFUSED_UNTIMED: u8 = 1;
/// A change not yet in a snapshot (a permission ask).
const UNREPORTED: u8 = 2;
/// See [`Envelope::hand_over_outcome`].
const HAND_OVER: u8 = 4;
/// See [`Envelope::pull_dispatches`].
const PULL_DISPATCHES: u8 = 8;

const fn assert_send<T: Send>() {}
const _: () = assert_send::<Envelope>();

impl Envelope {
    /// Starts an envelope over a compiled `program`; `direct` names the tool when the
    /// script is a provably direct call; `script` is recorded in the journal.
    #[must_use]
    pub fn start(
        config: EnvelopeConfig,
        program: Arc<Program>,
        direct: Option<String>,
        script: &str,
        now: Duration,
    ) -> Envelope {
        let EnvelopeConfig {
            catalog,
            limits,
            id,
            options,
            clock,
        } = config;
        let deadline_ns =
            deadline_of(&limits).map_or(u64::MAX, |deadline| nanos(deadline).min(u64::MAX - 1));
        let phase = if options.journal {
            Phase::StartRecord
        } else {
            Phase::Ready(None)
        };
        // Only journal records carry the script text.
        let trace = trace::Trace::start(&id);
        let recorder = options
            .record
            .then(|| replay::Recorder::new(script, catalog.fingerprint_for(None)));
        let cold = (options.journal || trace.is_some() || recorder.is_some()).then(|| {
            Box::new(Cold {
                script: if options.journal {
                    script.to_owned()
                } else {
                    String::new()
                },
                trace,
                recorder,
                ..Cold::default()
            })
        });
        let mut machine = Machine::new(program, Arc::clone(&limits));
        if let Some(clock) = clock {
            machine.set_clock(clock);
        }
        Envelope {
            id,
            machine: Some(machine),
            catalog,
            limits,
            options,
            phase,
            direct: direct.map(Arc::from),
            cold,
            calls: Vec::new(),
            next_batch: 1,
            started_ns: nanos(now),
            flags: 0,
            elapsed_ns: 0,
            deadline_ns,
        }
    }

    /// Compiles `script` against the registry's roster and starts it. Compile
    /// diagnostics settle at once as `script-error` with every message (the first
    /// diagnostic's kind is the error kind); nothing runs and no journal record is written.
    #[must_use]
    pub fn compile(config: EnvelopeConfig, script: &str, now: Duration) -> Envelope {
        let compiled = ptc_compiler::compile_with_clock(
            script,
            config.catalog.whole_roster(),
            &config.limits,
            &[],
            config.clock.clone(),
        );
        Envelope::from_compiled(config, compiled, script, now)
    }

    /// Starts a compiled [`Script`](crate::Script) — the sans-IO host's way to run a script
    /// compiled once ([`crate::Script::compile`]) against this catalog with the same tool
    /// filter `tools`, binding its declared inputs from `inputs` (exactly declared names;
    /// a missing one is nil). A script compiled for other tools settles at once with kind
    /// `roster`; inputs that do not fit, with kind `input`. Nothing runs before the first
    /// poll.
    #[must_use]
    pub fn from_script(
        config: EnvelopeConfig,
        script: &crate::Script,
        tools: Option<&crate::ToolFilter>,
        inputs: &serde_json::Map<String, Json>,
        now: Duration,
    ) -> Envelope {
        if config.catalog.fingerprint_for(tools) != script.roster() {
            let message = "The script was compiled for other tools than this run's \
                           (another registry or tool filter); compile it with this runner";
            return Envelope::refused(config, now, crate::ErrorKind::Roster, message);
        }
        let compiled = script.compiled();
        let mut envelope = Envelope::start(
            config,
            compiled.program.clone(),
            compiled.direct.clone(),
            script.source(),
            now,
        );
        envelope.bind_inputs(script.inputs(), inputs);
        envelope.record_roster(script.roster());
        envelope
    }

    /// Starts a compilation's result: the program, or an envelope settled with every
    /// diagnostic (the first one's kind, code and span are the error kind).
    pub fn from_compiled(
        config: EnvelopeConfig,
        compiled: Result<ptc_compiler::Compiled, Vec<ptc_compiler::Diagnostic>>,
        script: &str,
        now: Duration,
    ) -> Envelope {
        match compiled {
            Ok(compiled) => Envelope::start(config, compiled.program, compiled.direct, script, now),
            Err(diagnostics) => Envelope::rejected(config, now, &diagnostics),
        }
    }

    /// [`Envelope::compile`] through `cache`: a script compiled before for an equal roster
    /// under equal budgets starts without compiling (`crate::cache`).
    #[must_use]
    pub fn compile_cached(
        config: EnvelopeConfig,
        script: &str,
        cache: &crate::cache::ProgramCache,
        now: Duration,
    ) -> Envelope {
        let compiled = cache.get_or_compile(
            script,
            config.catalog.whole_roster(),
            &config.limits,
            config.clock.clone(),
        );
        match compiled {
            Ok(compiled) => Envelope::start(
                config,
                Arc::clone(&compiled.program),
                compiled.direct.clone(),
                script,
                now,
            ),
            Err(diagnostics) => Envelope::rejected(config, now, &diagnostics),
        }
    }

    /// Settled at once as `script-error` with every diagnostic's message.
    fn rejected(
        config: EnvelopeConfig,
        now: Duration,
        diagnostics: &[ptc_compiler::Diagnostic],
    ) -> Envelope {
        let kind = diagnostics.first().map_or(
            crate::ErrorKind::Script(ptc_vm::ErrorKind::Script),
            crate::ErrorKind::of_diagnostic,
        );
        let message = diagnostics
            .iter()
            .map(|d| d.message.as_str())
            .collect::<Vec<_>>()
            .join("\n");
        Envelope::refused(config, now, kind, &message)
    }

    /// Starts from the model's raw ToolCall argument object, which must be exactly
    /// `{"expression": "..."}`; any other shape settles at once as `script-error` (kind
    /// `arguments`).
    #[must_use]
    pub fn from_tool_call(config: EnvelopeConfig, arguments: &Json, now: Duration) -> Envelope {
        match expression_of(arguments) {
            Ok(script) => Envelope::compile(config, script, now),
            Err(message) => Envelope::refused(config, now, crate::ErrorKind::Arguments, &message),
        }
    }

    /// An envelope that settled before running.
    pub fn refused(
        config: EnvelopeConfig,
        now: Duration,
        kind: crate::ErrorKind,
        message: &str,
    ) -> Envelope {
        let EnvelopeConfig {
            catalog,
            limits,
            id,
            options,
            clock: _,
        } = config;
        let outcome = settle::refused_outcome(&id, kind, message);
        if let Some(mut trace) = trace::Trace::start(&id) {
            trace.settle(&outcome, 0);
        }
        Envelope {
            id,
            catalog,
            limits,
            options,
            machine: None,
            phase: Phase::Settled(Box::new(outcome)),
            direct: None,
            cold: None,
            calls: Vec::new(),
            next_batch: 1,
            started_ns: nanos(now),
            flags: REFUSED_UNTIMED,
            elapsed_ns: 0,
            deadline_ns: u64::MAX,
        }
    }

    /// Binds the declared inputs `names` (in the program's order) from `values` before
    /// the first poll, each converted by the JSON mapping under the value budget; an input
    /// `values` lacks is nil. A wrong set of names or a value that does not convert settles
    /// the envelope at once with kind `input` (nothing runs).
    pub fn bind_inputs(&mut self, names: &[String], values: &serde_json::Map<String, Json>) {
        let problem = crate::script::bind(self.machine.as_mut(), names, values);
        self.record_inputs(names, values);
        if let Some(message) = problem {
            self.machine = None;
            self.phase = Phase::Settled(Box::new(settle::refused_outcome(
                &self.id,
                crate::ErrorKind::Input,
                &message,
            )));
        }
    }

    /// The envelope id.
    #[must_use]
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The audit so far, one record per call issued, in dispatch order.
    #[must_use]
    pub fn calls(&self) -> &[AuditRecord] {
        match &self.phase {
            Phase::Settled(outcome) => &outcome.calls,
            _ => &self.calls,
        }
    }

    /// Whether the envelope has settled.
    #[must_use]
    pub fn is_settled(&self) -> bool {
        matches!(self.phase, Phase::Settled(_) | Phase::HandedOver)
    }

    /// Makes the first [`Event::Settled`] move the outcome out instead of copying it, for a
    /// driver that polls no more after it: later polls settle with a placeholder.
    pub fn hand_over_outcome(&mut self) {
        self.flags |= HAND_OVER;
    }

    /// Makes [`Event::Dispatch`] carry no requests, for a driver that takes each one with
    /// `Envelope::next_dispatch` (its index beside it, and no list per batch).
    pub fn pull_dispatches(&mut self) {
        self.flags |= PULL_DISPATCHES;
    }

    /// The envelope's wall-clock deadline (`seconds` after it started), if any, on the
    /// host's clock.
    #[must_use]
    pub fn deadline(&self) -> Option<Duration> {
        if self.deadline_ns == u64::MAX {
            return None;
        }
        Some(self.host_time(self.deadline_ns))
    }

    /// `ns` since the envelope started, on the host's clock.
    fn host_time(&self, ns: u64) -> Duration {
        Duration::from_nanos(self.started_ns.saturating_add(ns))
    }

    /// The snapshot of the calls right now (whether or not progress is kept).
    #[must_use]
    pub fn progress(&self) -> Progress {
        let mut tracks = if self.options.progress {
            self.cold
                .as_ref()
                .map(|cold| cold.tracks.clone())
                .unwrap_or_default()
        } else {
            // Without progress kept, no timings were stamped: a call awaits its permission
            // exactly while its state is `Asking`.
            (0..self.calls.len())
                .map(|call| {
                    progress::Track::waiting(matches!(self.state_of(call), CallState::Asking))
                })
                .collect()
        };
        progress::stamp(&mut tracks, &self.calls, self.elapsed_ms());
        progress::snapshot(
            &self.id,
            self.direct.as_deref(),
            !self.is_settled(),
            self.calls(),
            &tracks,
        )
    }

    /// Tells the envelope the caller's time without polling, so that the progress timings
    /// of an answer fed next are exact ([`Envelope::poll`] and the answering methods do
    /// the same). A time earlier than one given before is ignored.
    pub fn advance(&mut self, now: Duration) {
        let elapsed = nanos(now).saturating_sub(self.started_ns);
        if elapsed > self.elapsed_ns {
            self.elapsed_ns = elapsed;
        }
    }

    /// The caller's latest time since the envelope started (the latest `now` given to
    /// [`Envelope::poll`], [`Envelope::advance`] or an answer).
    fn now(&self) -> Duration {
        Duration::from_nanos(self.elapsed_ns)
    }

    /// Milliseconds since the envelope started, by the caller's clock.
    fn elapsed_ms(&self) -> u64 {
        self.elapsed_ns / 1_000_000
    }

    /// The snapshots taken since the last call, oldest first (with
    /// [`EnvelopeOptions::progress`]; see [`crate::progress`] for when they are taken).
    pub fn take_progress(&mut self) -> Vec<Progress> {
        self.cold
            .as_mut()
            .map(|cold| std::mem::take(&mut cold.snapshots))
            .unwrap_or_default()
    }

    /// The run's budgets (shared with the machine, not copied).
    pub(crate) fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Where call `call` stands: its state in the suspension being serviced, else ended.
    fn state_of(&self, call: usize) -> CallState {
        match &self.phase {
            Phase::Calls(batch) => batch.state(call).cloned().unwrap_or(CallState::Ended),
            _ => CallState::Ended,
        }
    }

    /// Sets the state of call `call` of the suspension being serviced (in the phase).
    fn set_state(&mut self, call: usize, state: CallState) {
        if let Phase::Calls(batch) = &mut self.phase {
            batch.set_state(call, state);
        }
    }

    /// [`Cold`], made on first use.
    fn cold(&mut self) -> &mut Cold {
        self.cold.get_or_insert_default()
    }

    /// The next queued event, if any.
    fn queued(&mut self) -> Option<Event> {
        self.cold.as_mut()?.outbox.pop_front()
    }

    /// The script text (empty unless the journal is on).
    fn script(&self) -> &str {
        self.cold.as_ref().map_or("", |cold| cold.script.as_str())
    }

    /// What the envelope needs next, at the caller's time `now`.
    pub fn poll(&mut self, now: Duration) -> Event {
        self.advance(now);
        if let Some(event) = self.queued() {
            return event;
        }
        if self.flags & UNREPORTED != 0 {
            self.report(true);
        }
        loop {
            let phase = std::mem::replace(&mut self.phase, Phase::Ready(None));
            match phase {
                Phase::Settled(mut outcome) => {
                    if self.flags & REFUSED_UNTIMED != 0 {
                        self.flags &= !REFUSED_UNTIMED;
                        // Refused at its start: the compile time, to the first poll, counts.
                        outcome.stats.elapsed_ms = self.elapsed_ms();
                    }
                    if self.flags & HAND_OVER != 0 {
                        self.phase = Phase::HandedOver;
                        return Event::Settled(outcome);
                    }
                    let event = Event::Settled(outcome.clone());
                    self.phase = Phase::Settled(outcome);
                    return event;
                }
                Phase::HandedOver => {
                    self.phase = Phase::HandedOver;
                    return Event::Settled(Box::new(settle::refused_outcome(
                        &self.id,
                        crate::ErrorKind::Script(ptc_vm::ErrorKind::Script),
                        "the outcome was handed to the driver",
                    )));
                }
                Phase::StartRecord => {
                    self.phase = Phase::StartRecord;
                    return Event::Journal(JournalRecord::running(&self.id, self.script()));
                }
                Phase::Persisting { outcome, failures } => {
                    let record =
                        settle::settled_record(&self.id, self.script(), &outcome, &self.calls);
                    self.phase = Phase::Persisting { outcome, failures };
                    return Event::Journal(record);
                }
                Phase::Ready(step) => {
                    if let Some(event) = self.run_machine(step) {
                        return event;
                    }
                }
                Phase::Calls(batch) => {
                    if let Some(event) = self.service(batch) {
                        return event;
                    }
                }
            }
            if let Some(event) = self.queued() {
                return event;
            }
        }
    }

    /// Steps the machine (unless it already returned `step`); an event to return, or
    /// `None` when the phase moved on.
    fn run_machine(&mut self, step: Option<Step>) -> Option<Event> {
        if self.past_deadline() {
            self.time_out_envelope();
            return None;
        }
        let Some(machine) = self.machine.as_mut() else {
            // Only a refused envelope has no machine, and it starts settled.
            self.settle_error(
                crate::OutcomeKind::ScriptError,
                crate::ErrorKind::Script(ptc_vm::ErrorKind::Script),
                "the envelope has no program to run",
                String::new(),
            );
            return None;
        };
        let step = step.unwrap_or_else(|| machine.step());
        match step {
            Step::Pause => {
                self.phase = Phase::Ready(None);
                Some(Event::Pause)
            }
            Step::Done(value) => {
                if self.diverged_at_end() {
                    return None;
                }
                self.completed(&value);
                // Its cells kept for this thread's next run.
                value.release();
                None
            }
            Step::Error(error) => {
                if self.diverged_at_end() {
                    return None;
                }
                self.settle_error(
                    crate::OutcomeKind::ScriptError,
                    crate::ErrorKind::of_run(error.kind()),
                    error.message(),
                    String::new(),
                );
                None
            }
            Step::Tool(request) => {
                let direct =
                    self.calls.is_empty() && self.direct.as_deref() == Some(&*request.tool);
                if !direct {
                    self.direct = None;
                }
                self.begin(std::iter::once(request), direct, true);
                None
            }
            Step::Batch(requests) => {
                self.direct = None;
                self.begin(requests.into_iter(), false, false);
                None
            }
        }
    }

    fn past_deadline(&self) -> bool {
        self.deadline_ns != u64::MAX && self.elapsed_ns >= self.deadline_ns
    }

    /// Acknowledges the journal record of the last [`Event::Journal`]: `written`
    /// says whether it is durable.
    ///
    /// # Errors
    /// [`EnvelopeError::NoJournalRecord`] when no record awaits acknowledgement.
    pub fn journal_written(&mut self, written: bool) -> Result<(), EnvelopeError> {
        let phase = std::mem::replace(&mut self.phase, Phase::Ready(None));
        match phase {
            Phase::StartRecord if written => Ok(()),
            Phase::StartRecord => {
                settle::start_failed(self);
                Ok(())
            }
            Phase::Persisting { outcome, .. } if written => {
                self.finish(outcome);
                Ok(())
            }
            Phase::Persisting {
                outcome,
                failures: 0,
            } => {
                self.phase = Phase::Persisting {
                    outcome,
                    failures: 1,
                };
                Ok(())
            }
            Phase::Persisting { outcome, .. } => {
                self.finish(Box::new(settle::persist_failed(*outcome)));
                Ok(())
            }
            other => {
                self.phase = other;
                Err(EnvelopeError::NoJournalRecord)
            }
        }
    }

    /// Cancels the whole envelope (the host's interrupt): unfinished calls are marked
    /// `cancelled` and named in an [`Event::Cancel`], and the envelope settles
    /// `interrupted`. Answers for those calls are refused from now on. Idempotent; does
    /// nothing once the envelope has settled or is persisting its settled record.
    pub fn cancel(&mut self) {
        if matches!(
            self.phase,
            Phase::Settled(_) | Phase::HandedOver | Phase::Persisting { .. }
        ) {
            return;
        }
        // The batch stays in the phase: `abandon` names the calls the host holds.
        self.interrupted();
    }

    /// Sends the current snapshot to the kept list (with progress on).
    fn report(&mut self, live: bool) {
        self.flags &= !UNREPORTED;
        if self.options.progress {
            let now = self.elapsed_ms();
            let cold = self.cold.get_or_insert_default();
            progress::stamp(&mut cold.tracks, &self.calls, now);
            let snapshot = progress::snapshot(
                &self.id,
                self.direct.as_deref(),
                live,
                &self.calls,
                &cold.tracks,
            );
            cold.snapshots.push(snapshot);
        }
    }

    fn set(&mut self, call: usize, status: Status, preview: Option<String>) {
        if let Some(record) = self.calls.get_mut(call) {
            record.status = status;
            if preview.is_some() {
                record.preview = preview;
            }
            if let Some(trace) = self.cold.as_mut().and_then(|cold| cold.trace.as_mut()) {
                if status == Status::Running {
                    trace.open(call, record);
                } else if status.is_terminal() {
                    trace.close(call, record);
                }
            }
        }
    }

    /// Records nested calls' arguments and results on their spans
    /// (`gen_ai.tool.call.arguments` / `.result`, bounded like the audit) when `on`; off by
    /// default, since they may hold sensitive data. Only calls launched afterwards are
    /// affected.
    pub fn record_tool_content(&mut self, on: bool) {
        if let Some(trace) = self.cold.as_mut().and_then(|cold| cold.trace.as_mut()) {
            trace.content = on;
        }
    }

    /// Marks call `call`'s span as timed out (`error.type = timeout`).
    fn trace_timeout(&mut self, call: usize) {
        if let Some(trace) = self.cold.as_mut().and_then(|cold| cold.trace.as_mut()) {
            trace.timed_out(call);
        }
    }

    fn set_waiting(&mut self, call: usize, waiting: bool) {
        if let Some(track) = self
            .cold
            .as_mut()
            .and_then(|cold| cold.tracks.get_mut(call))
        {
            track.waiting = waiting;
        }
    }
}

/// The wall-clock bound of an envelope under `limits` (`seconds` since the run started).
fn deadline_of(limits: &Limits) -> Option<Duration> {
    ptc_vm::clock::budget(limits.seconds)
}

/// `time` in nanoseconds, saturated at `u64::MAX` (584 years).
fn nanos(time: Duration) -> u64 {
    u64::try_from(time.as_nanos()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod replay_tests;
