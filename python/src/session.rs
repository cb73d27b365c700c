//! The envelope as the Python package drives it: a compiled [`Program`] and, per run, a
//! [`Session`] over the runtime's sans-IO [`Envelope`], which the host polls and feeds.
//!
//! The session runs no handler and keeps no rule of its own: argument conversion and
//! schema validation, the permission decision point, `ENVELOPE/N` ids, batches, bounded
//! parallelism and source order, direct vs composed results, the audit, notes, the result
//! cap, fuel pauses, per-call timeouts and the envelope's deadline are the envelope's. The
//! session only supplies the clock (its own `Instant`, read at every poll and answer, and
//! handed to the envelope for compilation and slices) and a mutex, so the
//! host may answer from any thread while another steps.
//!
//! Invariants:
//! - A host's misuse (unknown or repeated id, an answer after cancel or settlement) is the
//!   envelope's typed error, returned as a [`Misuse`]; nothing changes.
//! - A step polls until the envelope says something the host must act on; it never blocks
//!   on the host.

use ptc_core::{
    CallRequest, Catalog, Envelope, EnvelopeConfig, EnvelopeOptions, Event, Failure, Outcome,
    ToolContract, ToolResult,
};
use ptc_vm::Limits;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

/// The registry of `contracts`: declared contracts only (the envelope calls no handler).
///
/// # Errors
/// The registry's message (illegal or duplicate name, bad schema).
pub fn registry(contracts: Vec<ToolContract>) -> Result<Catalog, String> {
    let mut registry = Catalog::new();
    for contract in contracts {
        registry.add(contract).map_err(|e| e.to_string())?;
    }
    Ok(registry)
}

/// A roster's registry (its schema validators built once), its compile-time roster and
/// budgets: what every program compiled for the same tools shares.
#[derive(Debug)]
pub struct Engine {
    registry: Arc<Catalog>,
    roster: ptc_compiler::Roster,
    limits: Arc<Limits>,
}

impl Engine {
    /// The engine of `registry` under `limits`.
    #[must_use]
    pub fn new(registry: Arc<Catalog>, limits: Limits) -> Engine {
        let roster = registry.roster();
        Engine {
            registry,
            roster,
            limits: Arc::new(limits),
        }
    }

    /// The registry (for the listing).
    #[must_use]
    pub fn registry(&self) -> &Catalog {
        &self.registry
    }

    /// The compile-time roster.
    #[must_use]
    pub fn roster(&self) -> &ptc_compiler::Roster {
        &self.roster
    }

    /// The budgets.
    #[must_use]
    pub fn limits(&self) -> &Limits {
        &self.limits
    }
}

/// Why a program did not compile.
#[derive(Debug)]
pub enum CompileFailure {
    /// The roster or budgets were malformed: the host's error.
    Host(String),
    /// The script's diagnostics, and the outcome the envelope settles a run of it with.
    Script(Vec<ptc_compiler::Diagnostic>, Box<Outcome>),
}

/// A compiled script with its roster: immutable, shareable across threads, started any
/// number of times.
#[derive(Debug)]
pub struct Program {
    registry: Arc<Catalog>,
    /// Shared by every session started from this program.
    limits: Arc<Limits>,
    program: Arc<ptc_vm::Program>,
    direct: Option<String>,
    source: String,
}

impl Program {
    /// Compiles `source` for `contracts` under `limits`; `id` names the envelope of the
    /// refused outcome when it does not compile.
    ///
    /// # Errors
    /// [`CompileFailure`].
    pub fn compile(
        source: &str,
        contracts: Vec<ToolContract>,
        limits: Limits,
        id: Option<String>,
    ) -> Result<Program, CompileFailure> {
        let registry = Arc::new(registry(contracts).map_err(CompileFailure::Host)?);
        Self::compile_for(source, &Engine::new(registry, limits), id)
    }

    /// Compiles `source` for an [`Engine`]'s registry and budgets, built once and shared.
    ///
    /// # Errors
    /// [`CompileFailure::Script`] with the diagnostics.
    pub fn compile_for(
        source: &str,
        engine: &Engine,
        id: Option<String>,
    ) -> Result<Program, CompileFailure> {
        let registry = Arc::clone(&engine.registry);
        let limits = &engine.limits;
        let started = Instant::now();
        let clock = clock_from(started);
        let compiled =
            ptc_compiler::compile_with_clock(source, &engine.roster, limits, &[], Some(clock));
        match compiled {
            Ok(compiled) => Ok(Program {
                registry,
                limits: Arc::clone(limits),
                program: compiled.program,
                direct: compiled.direct,
                source: source.to_owned(),
            }),
            Err(diagnostics) => {
                // The envelope's own settlement of a script that never starts, from these
                // diagnostics (not a second compile).
                let id = id.unwrap_or_else(ptc_core::fresh_id);
                let config = EnvelopeConfig::new(registry, **limits, id);
                let now = started.elapsed();
                let mut envelope =
                    Envelope::from_compiled(config, Err(diagnostics.clone()), source, now);
                let outcome = loop {
                    if let Event::Settled(outcome) = envelope.poll(now) {
                        break outcome;
                    }
                };
                Err(CompileFailure::Script(diagnostics, outcome))
            }
        }
    }

    /// The tool's name when the script is provably one direct call.
    #[must_use]
    pub fn direct(&self) -> Option<&str> {
        self.direct.as_deref()
    }

    /// Starts a run with envelope id `id` (a fresh one when absent). With
    /// `ask_permission`, every call is first offered to the host's decision.
    #[must_use]
    pub fn start(&self, id: Option<String>, ask_permission: bool) -> Session {
        let started = Instant::now();
        let config = EnvelopeConfig {
            catalog: self.registry.clone(),
            limits: Arc::clone(&self.limits),
            id: id.unwrap_or_else(ptc_core::fresh_id).into(),
            options: EnvelopeOptions {
                ask_permission,
                journal: false,
                progress: false,
                record: false,
            },
            clock: Some(clock_from(started)),
        };
        let envelope = Envelope::start(
            config,
            self.program.clone(),
            self.direct.clone(),
            &self.source,
            Duration::ZERO,
        );
        Session {
            envelope: Mutex::new(envelope),
            started,
        }
    }
}

/// What the host must act on next.
#[derive(Debug)]
pub enum HostEvent {
    /// Decide these calls (allow or deny each).
    Permission(Vec<CallRequest>),
    /// Run these calls and answer each.
    Dispatch(Vec<CallRequest>),
    /// Stop these calls (timed out or abandoned); their answers are refused.
    Cancel(Vec<String>),
    /// A fuel slice ended: yield, then step again.
    Pause,
    /// Wait for an answer you owe, at most this long (None: no deadline).
    Waiting(Option<Duration>),
    /// The run settled.
    Settled(Box<Outcome>),
}

/// A host's misuse of a session: the envelope's typed message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Misuse(pub String);

/// One run, stepped by the host. `Send + Sync`.
#[derive(Debug)]
pub struct Session {
    envelope: Mutex<Envelope>,
    /// The run's clock: every time the envelope is told is the time since this.
    started: Instant,
}

/// The host's clock for the envelope and the compiler (which read none).
fn clock_from(started: Instant) -> Arc<dyn ptc_vm::Clock> {
    Arc::new(move || started.elapsed())
}

impl Session {
    fn lock(&self) -> MutexGuard<'_, Envelope> {
        self.envelope.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Polls the envelope until it says something the host must act on.
    pub fn step(&self) -> HostEvent {
        let mut envelope = self.lock();
        loop {
            let now = self.started.elapsed();
            match envelope.poll(now) {
                // Checkpoints are off; acknowledge defensively should one ever be asked.
                Event::Journal(_) => {
                    let _ = envelope.journal_written(true);
                }
                Event::Permission(calls) => return HostEvent::Permission(calls),
                Event::Dispatch(calls) => return HostEvent::Dispatch(calls),
                Event::Cancel(ids) => return HostEvent::Cancel(ids),
                Event::Pause => return HostEvent::Pause,
                Event::Waiting { deadline } => {
                    return HostEvent::Waiting(deadline.map(|d| d.saturating_sub(now)));
                }
                Event::Settled(outcome) => return HostEvent::Settled(outcome),
                // An event added after this binding was written: yield, then poll again.
                _ => return HostEvent::Pause,
            }
        }
    }

    /// Allows call `id` at the permission point.
    ///
    /// # Errors
    /// [`Misuse`] when `id` does not await a decision.
    pub fn allow(&self, id: &str) -> Result<(), Misuse> {
        self.lock().allow(id).map_err(|e| Misuse(e.to_string()))
    }

    /// Denies call `id`: the script aborts and settles `denied`.
    ///
    /// # Errors
    /// [`Misuse`] when `id` does not await a decision.
    pub fn deny(&self, id: &str, reason: String) -> Result<(), Misuse> {
        self.lock()
            .deny(id, reason)
            .map_err(|e| Misuse(e.to_string()))
    }

    /// Feeds the result of dispatched call `id`.
    ///
    /// # Errors
    /// [`Misuse`] when `id` is not running (unknown, answered, cancelled, timed out).
    pub fn complete(&self, id: &str, result: ToolResult) -> Result<(), Misuse> {
        let now = self.started.elapsed();
        self.lock()
            .complete(now, id, result)
            .map_err(|e| Misuse(e.to_string()))
    }

    /// Feeds the host's failure to run call `id` (a raising handler, non-JSON data).
    ///
    /// # Errors
    /// As [`Session::complete`].
    pub fn fail(&self, id: &str, message: String) -> Result<(), Misuse> {
        let now = self.started.elapsed();
        self.lock()
            .fail(now, id, Failure::Host(message))
            .map_err(|e| Misuse(e.to_string()))
    }

    /// Interrupts the run: it settles `interrupted` with its audit.
    pub fn cancel(&self) {
        self.lock().cancel();
    }
}
