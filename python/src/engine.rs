//! The envelope as the Python package drives it: a compiled [`Program`] and, per run, a
//! [`Session`] that the host steps, feeds results and denials, and cancels.
//!
//! The session never runs a Python handler itself: every nested call the envelope
//! dispatches is handed to the host as a [`CallOut`] (id `ENVELOPE/N`, tool, validated JSON
//! arguments), and the host answers it with an [`Answer`]. Argument conversion and schema
//! validation, ids, batches and source order, the permission decision point, direct vs
//! composed results, the audit, notes and the result cap are the runtime's, never
//! re-implemented here.
//!
//! Invariants:
//! - An answer for an id that is not outstanding (unknown, answered twice, or arriving
//!   after cancellation or settlement) is a typed error for the host, never a wrong audit.
//! - A dropped session cancels its run; no thread or call outlives it.

use ptc_runtime::{
    BoxFuture, CancelToken, Decision, Outcome, PermissionPolicy, Registry, RunOptions, Runner,
    ToolContract, ToolRequestCtx, ToolResult,
};
use ptc_vm::Limits;
use serde_json::Value as Json;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Duration;
use tokio::sync::oneshot;

/// One nested call the host must answer.
#[derive(Debug, Clone)]
pub struct CallOut {
    /// `ENVELOPE/N`.
    pub id: String,
    /// The tool's name.
    pub tool: String,
    /// The validated argument object.
    pub arguments: Json,
}

/// The host's answer to one call.
#[derive(Debug)]
pub enum Answer {
    /// The handler's result (a failure is a result with `is_error`).
    Result(ToolResult),
    /// The permission decision refused the call: the script aborts.
    Denied(String),
}

/// What a step produced.
#[derive(Debug)]
pub enum Step {
    /// Calls dispatched since the last step (empty: the run waits for answers it is owed,
    /// or paused).
    Calls(Vec<CallOut>),
    /// The run settled.
    Settled(Box<Outcome>),
}

/// The tools' contracts from the package's JSON: a list of objects with `name`,
/// `description`, `input_schema` (or MCP's `inputSchema`), optional `standalone` and
/// `summary`.
///
/// # Errors
/// A message naming the malformed entry.
pub fn contracts_from_json(text: &str) -> Result<Vec<ToolContract>, String> {
    let value: Json = serde_json::from_str(text).map_err(|e| format!("tools: {e}"))?;
    let Json::Array(items) = value else {
        return Err("tools must be a list".to_owned());
    };
    items
        .iter()
        .enumerate()
        .map(|(index, item)| {
            let field = |name: &str| item.get(name);
            let name = field("name")
                .and_then(Json::as_str)
                .ok_or_else(|| format!("tool {index} has no string `name`"))?;
            let description = field("description").and_then(Json::as_str).unwrap_or("");
            let schema = field("input_schema")
                .or_else(|| field("inputSchema"))
                .cloned()
                .unwrap_or_else(|| serde_json::json!({"type": "object"}));
            let mut contract = ToolContract::new(name, description, schema)
                .standalone(field("standalone").and_then(Json::as_bool).unwrap_or(false));
            if let Some(summary) = field("summary").and_then(Json::as_str) {
                contract = contract.summary(summary);
            }
            Ok(contract)
        })
        .collect()
}

/// Budgets from the package's JSON object: keys as in `--limit` (`_` may stand for `-`),
/// values numbers, numeric strings, or `null`/`"off"` for the optional clocks.
///
/// # Errors
/// The runtime's message for an unknown key or a bad value.
pub fn limits_from_json(text: Option<&str>) -> Result<Limits, String> {
    let mut limits = Limits::default();
    let Some(text) = text else {
        return Ok(limits);
    };
    let value: Json = serde_json::from_str(text).map_err(|e| format!("limits: {e}"))?;
    let Json::Object(map) = value else {
        return Err("limits must be a dict".to_owned());
    };
    for (key, value) in &map {
        let text = match value {
            Json::Null => "off".to_owned(),
            Json::String(s) => s.clone(),
            Json::Number(n) => n.to_string(),
            Json::Bool(_) | Json::Array(_) | Json::Object(_) => {
                return Err(format!("limit `{key}` takes a number or None"));
            }
        };
        limits
            .set(&key.replace('_', "-"), &text)
            .map_err(|e| e.to_string())?;
    }
    Ok(limits)
}

/// Results the host delivered, waiting for the runtime to ask for them, by call id.
/// Process-wide because the registry (shared by every run of a program) looks them up.
static DELIVERED: Mutex<Option<HashMap<String, ToolResult>>> = Mutex::new(None);

fn delivered() -> MutexGuard<'static, Option<HashMap<String, ToolResult>>> {
    DELIVERED.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The registry's one handler: hands the runtime the result the host already delivered.
fn deliver_handler(request: ToolRequestCtx) -> BoxFuture<ToolResult> {
    let result = delivered()
        .as_mut()
        .and_then(|map| map.remove(&request.id))
        .unwrap_or_else(|| ToolResult::error("Error: the host delivered no result"));
    Box::pin(std::future::ready(result))
}

/// A compiled script with its roster: immutable, shareable across threads, started any
/// number of times.
#[derive(Debug)]
pub struct Program {
    runner: Runner,
    program: Arc<ptc_vm::Program>,
    direct: Option<String>,
    source: String,
}

/// Builds the registry for `contracts`.
///
/// # Errors
/// The registry's message (illegal or duplicate name, bad schema).
pub fn registry(contracts: Vec<ToolContract>) -> Result<Registry, String> {
    let mut registry = Registry::new();
    let handler: Arc<dyn ptc_runtime::ToolHandler> = Arc::new(deliver_handler);
    for contract in contracts {
        registry
            .register_arc(contract, handler.clone())
            .map_err(|e| e.to_string())?;
    }
    Ok(registry)
}

/// Why a program did not compile.
#[derive(Debug)]
pub enum CompileFailure {
    /// The roster or budgets were malformed: the host's error.
    Host(String),
    /// The script's diagnostics, and the outcome a run of it settles with.
    Script(Vec<ptc_compiler::Diagnostic>, Box<Outcome>),
}

impl Program {
    /// Compiles `source` for `contracts` under `limits`.
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
        let runner = Runner::new(registry.clone()).with_limits(limits);
        match ptc_compiler::compile(source, &registry.roster(), &limits) {
            Ok(compiled) => Ok(Program {
                runner,
                program: compiled.program,
                direct: compiled.direct,
                source: source.to_owned(),
            }),
            Err(diagnostics) => {
                // The runtime's own settlement of a script that never starts.
                let outcome = block_on(runner.run(
                    source,
                    RunOptions {
                        id,
                        ..RunOptions::default()
                    },
                ));
                Err(CompileFailure::Script(diagnostics, Box::new(outcome)))
            }
        }
    }

    /// The tool's name when the script is provably one direct call.
    #[must_use]
    pub fn direct(&self) -> Option<&str> {
        self.direct.as_deref()
    }

    /// Starts a run with envelope id `id` (a fresh `py-N` when absent).
    #[must_use]
    pub fn start(&self, id: Option<String>) -> Session {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        let id = id.unwrap_or_else(|| format!("py-{}", NEXT.fetch_add(1, Ordering::Relaxed)));
        let shared = Arc::new(Shared::default());
        let cancel = CancelToken::new();
        let runner = self
            .runner
            .clone()
            .with_policy(Arc::new(HostPolicy(shared.clone())));
        let program = self.program.clone();
        let direct = self.direct.clone();
        let source = self.source.clone();
        let options = RunOptions {
            id: Some(id),
            cancel: cancel.clone(),
            progress: None,
        };
        let finished = shared.clone();
        let thread = std::thread::Builder::new()
            .name("ptc-run".to_owned())
            .spawn(move || {
                let outcome = block_on(runner.run_program(program, direct, &source, options));
                let mut state = finished.lock();
                state.outcome = Some(outcome);
                state.owed.clear();
                drop(state);
                finished.changed.notify_all();
            });
        if let Err(error) = thread {
            shared.lock().failure = Some(format!("cannot start the run: {error}"));
        }
        Session { shared, cancel }
    }
}

fn block_on<F: std::future::Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map(|runtime| runtime.block_on(future))
        .unwrap_or_else(|error| panic!("cannot start a Tokio runtime: {error}"))
}

#[derive(Default)]
struct Shared {
    state: Mutex<State>,
    changed: Condvar,
}

#[derive(Default)]
struct State {
    /// Dispatched calls not yet handed to the host.
    fresh: Vec<CallOut>,
    /// Calls handed out and not yet answered, with the runtime's waiting receiver.
    owed: HashMap<String, oneshot::Sender<Answer>>,
    outcome: Option<Outcome>,
    /// The outcome was handed to the host.
    settled: bool,
    failure: Option<String>,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The permission decision point, answered by the host: the call is handed out, and the
/// host's answer either allows it (its result is already delivered) or denies it.
struct HostPolicy(Arc<Shared>);

impl PermissionPolicy for HostPolicy {
    fn check(&self, request: &ToolRequestCtx) -> BoxFuture<Decision> {
        let (sender, receiver) = oneshot::channel();
        let mut state = self.0.lock();
        state.fresh.push(CallOut {
            id: request.id.clone(),
            tool: request.tool.clone(),
            arguments: request.arguments.clone(),
        });
        state.owed.insert(request.id.clone(), sender);
        drop(state);
        self.0.changed.notify_all();
        let id = request.id.clone();
        Box::pin(async move {
            match receiver.await {
                Ok(Answer::Result(result)) => {
                    delivered()
                        .get_or_insert_with(HashMap::new)
                        .insert(id, result);
                    Decision::Allow
                }
                Ok(Answer::Denied(reason)) => Decision::Deny(reason),
                // The sender only goes when the host cancels (or the run ends): the
                // runner's cancellation settles the run, so this decision never comes.
                Err(_) => std::future::pending().await,
            }
        })
    }
}

/// One run, stepped by the host. `Send + Sync`: the host may answer from any thread.
#[derive(Debug)]
pub struct Session {
    shared: Arc<Shared>,
    cancel: CancelToken,
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shared").finish_non_exhaustive()
    }
}

/// A host's misuse of a session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Misuse(pub String);

impl Session {
    /// Advances the run: the calls dispatched since the last step, or the outcome. With
    /// `wait`, blocks until there is something new when the host owes nothing.
    ///
    /// # Errors
    /// [`Misuse`] when the run already settled and its outcome was taken.
    pub fn step(&self, wait: bool) -> Result<Step, Misuse> {
        let mut state = self.shared.lock();
        loop {
            if let Some(failure) = &state.failure {
                return Err(Misuse(failure.clone()));
            }
            if !state.fresh.is_empty() {
                return Ok(Step::Calls(std::mem::take(&mut state.fresh)));
            }
            if let Some(outcome) = state.outcome.clone() {
                state.settled = true;
                return Ok(Step::Settled(Box::new(outcome)));
            }
            if state.settled {
                return Err(Misuse("the run has settled".to_owned()));
            }
            if !wait || !state.owed.is_empty() {
                return Ok(Step::Calls(Vec::new()));
            }
            state = self
                .shared
                .changed
                .wait_timeout(state, Duration::from_millis(50))
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }

    /// Feeds the host's answers.
    ///
    /// # Errors
    /// [`Misuse`] naming every id that is not outstanding; the others are still applied.
    pub fn answer(&self, answers: Vec<(String, Answer)>) -> Result<(), Misuse> {
        let mut state = self.shared.lock();
        let mut unknown = Vec::new();
        for (id, answer) in answers {
            match state.owed.remove(&id) {
                Some(sender) => {
                    let _ = sender.send(answer);
                }
                None => unknown.push(id),
            }
        }
        if unknown.is_empty() {
            return Ok(());
        }
        let why = if state.outcome.is_some() || state.settled {
            "the run has settled"
        } else if self.cancel.is_cancelled() {
            "the run was cancelled"
        } else {
            "no such call is outstanding"
        };
        Err(Misuse(format!("{why}: {}", unknown.join(", "))))
    }

    /// Interrupts the run: it settles `interrupted` with its audit.
    pub fn cancel(&self) {
        self.cancel.cancel();
        let mut state = self.shared.lock();
        state.owed.clear();
        state.fresh.clear();
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        self.cancel();
    }
}
