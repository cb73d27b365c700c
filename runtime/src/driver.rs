//! The driver: one script through the pipeline (dialect notes §12).
//!
//! [`Runner::run_program`] steps a [`Machine`] and services its suspensions: a single call
//! ([`Step::Tool`]) or an ordered batch ([`Step::Batch`]). Each nested call gets the id
//! `ENVELOPE/N` (N in dispatch order across the whole script), has its guest arguments
//! converted and validated against its tool's schema (a refusal is a guest
//! `(:error "Error: ...")` value), passes the permission policy, and runs its handler under
//! the per-call timeout with panics contained. A batch runs at most `limits.parallelism`
//! calls at once and joins results in source order.
//!
//! Invariants:
//! - The driver yields to the executor at every [`Step::Pause`] and after every completion
//!   inside a batch, so one busy script never starves other tasks.
//! - No task is spawned: every call in flight is a future owned by this run, so none
//!   outlives it; abandoned calls also have their cancellation token cancelled.
//! - A denial aborts the script: running and queued siblings are cancelled, nothing more is
//!   launched, and the run settles `denied`. Host cancellation settles `interrupted`.
//!   Earlier effects are never rolled back.
//! - Every outcome text except a direct call's own result is capped at
//!   [`crate::MAX_RESULT_CHARS`] characters; the host's JSON `value` is never cut.
//! - With a checkpoint store, the start record is durable before any child runs, and the
//!   settled record is written (one retry) before the outcome is returned.

use crate::audit::{self, AuditRecord, Status};
use crate::cancel::CancelToken;
use crate::checkpoint::{Checkpoint, CheckpointState, CheckpointStore};
use crate::dispatch::{self, ChildEnd, settle_result};
use crate::outcome::{Outcome, OutcomeError, OutcomeKind, RunStats, cap_text};
use crate::policy::{AllowAll, Decision, PermissionPolicy};
use crate::progress::{self, Progress, ProgressSink};
use crate::tool::{Registry, ToolRequestCtx, ToolResult};
use crate::{args, convert};
use futures::FutureExt as _;
use futures::StreamExt as _;
use futures::stream::FuturesUnordered;
use ptc_vm::{Limits, Machine, Program, Step, ToolRequest, Value};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// Runs scripts against one registry with one policy, budget set and checkpoint store.
/// Cheap to share; every run is independent.
#[derive(Clone)]
pub struct Runner {
    registry: Arc<Registry>,
    limits: Limits,
    policy: Arc<dyn PermissionPolicy>,
    checkpoints: Option<Arc<dyn CheckpointStore>>,
}

impl std::fmt::Debug for Runner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runner")
            .field("tools", &self.registry.len())
            .field("limits", &self.limits)
            .field("checkpoints", &self.checkpoints.is_some())
            .finish_non_exhaustive()
    }
}

/// Per-run options.
#[derive(Clone, Default)]
pub struct RunOptions {
    /// The envelope id (the host's tool-use id); a fresh `ptc-N` when absent.
    pub id: Option<String>,
    /// Cancelling it interrupts the run.
    pub cancel: CancelToken,
    /// Receives a [`Progress`] snapshot after every change to the nested calls, and a
    /// final one when the run settles (see [`crate::progress`]).
    pub progress: Option<Arc<dyn ProgressSink>>,
}

impl std::fmt::Debug for RunOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunOptions")
            .field("id", &self.id)
            .field("cancel", &self.cancel)
            .field("progress", &self.progress.is_some())
            .finish()
    }
}

static NEXT_ENVELOPE: AtomicU64 = AtomicU64::new(1);

/// Why a batch stopped early.
enum Abort {
    Denied { tool: String, reason: String },
    Interrupted,
}

impl Runner {
    /// A runner over `registry` with default budgets, allowing every call, without
    /// checkpoints.
    #[must_use]
    pub fn new(registry: Arc<Registry>) -> Self {
        Runner {
            registry,
            limits: Limits::default(),
            policy: Arc::new(AllowAll),
            checkpoints: None,
        }
    }

    /// Uses `limits`.
    #[must_use]
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Uses `policy` for every nested call.
    #[must_use]
    pub fn with_policy(mut self, policy: Arc<dyn PermissionPolicy>) -> Self {
        self.policy = policy;
        self
    }

    /// Persists envelopes in `store`.
    #[must_use]
    pub fn with_checkpoints(mut self, store: Arc<dyn CheckpointStore>) -> Self {
        self.checkpoints = Some(store);
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

    /// Compiles and runs `script`. Compile diagnostics settle as `script-error` with every
    /// message (the first diagnostic's kind is the error kind); nothing runs.
    pub async fn run(&self, script: &str, options: RunOptions) -> Outcome {
        match ptc_compiler::compile(script, &self.registry.roster(), &self.limits) {
            Ok(compiled) => {
                self.run_program(compiled.program, compiled.direct, script, options)
                    .await
            }
            Err(diagnostics) => {
                let kind = diagnostics
                    .first()
                    .map_or("script", |d| d.kind.as_str())
                    .to_owned();
                let message = diagnostics
                    .iter()
                    .map(|d| d.message.as_str())
                    .collect::<Vec<_>>()
                    .join("\n");
                self.refused(options, &kind, &message)
            }
        }
    }

    /// Runs the model's raw ToolCall argument object, which must be exactly
    /// `{"expression": "..."}`; any other shape settles as `script-error` (kind
    /// `arguments`) with a message saying what was expected.
    pub async fn run_tool_call(
        &self,
        arguments: &serde_json::Value,
        options: RunOptions,
    ) -> Outcome {
        match expression_of(arguments) {
            Ok(script) => self.run(script, options).await,
            Err(message) => self.refused(options, "arguments", &message),
        }
    }

    /// An outcome for a script that never started.
    fn refused(&self, options: RunOptions, kind: &str, message: &str) -> Outcome {
        Outcome {
            id: options.id.unwrap_or_else(|| {
                format!("ptc-{}", NEXT_ENVELOPE.fetch_add(1, Ordering::Relaxed))
            }),
            kind: OutcomeKind::ScriptError,
            text: cap_text(format!("Error: {message}")),
            value: None,
            error: Some(OutcomeError {
                kind: kind.to_owned(),
                message: message.to_owned(),
            }),
            direct: None,
            direct_result: None,
            calls: Vec::new(),
            notes: Vec::new(),
            stats: RunStats::default(),
        }
    }

    /// Runs a compiled `program` (`direct` names the tool when the script is a provably
    /// direct call); `script` is recorded in checkpoints.
    pub async fn run_program(
        &self,
        program: Arc<Program>,
        direct: Option<String>,
        script: &str,
        options: RunOptions,
    ) -> Outcome {
        let id = options
            .id
            .unwrap_or_else(|| format!("ptc-{}", NEXT_ENVELOPE.fetch_add(1, Ordering::Relaxed)));
        let mut run = Run {
            runner: self,
            id,
            script: script.to_owned(),
            cancel: options.cancel,
            direct,
            direct_result: None,
            calls: Vec::new(),
            waiting: Vec::new(),
            progress: options.progress,
            notes: Vec::new(),
            next_batch: 1,
            started: Instant::now(),
        };
        let mut machine = Machine::new(program, self.limits);
        if let Some(store) = &self.checkpoints
            && store.write(&Checkpoint::running(&run.id, script)).is_err()
        {
            return run.settle_error(
                &machine,
                OutcomeKind::ScriptError,
                "checkpoint",
                "ToolCall audit checkpoint could not be persisted",
                String::new(),
            );
        }
        run.drive(&mut machine).await
    }
}

struct Run<'a> {
    runner: &'a Runner,
    id: String,
    script: String,
    cancel: CancelToken,
    direct: Option<String>,
    direct_result: Option<ToolResult>,
    calls: Vec<AuditRecord>,
    /// By call: whether it awaits its permission decision (for progress snapshots).
    waiting: Vec<bool>,
    progress: Option<Arc<dyn ProgressSink>>,
    notes: Vec<String>,
    next_batch: u64,
    started: Instant,
}

/// A batch slot before launch.
enum Prepared {
    Ready(ToolRequestCtx),
    Refused(String),
}

impl Run<'_> {
    async fn drive(&mut self, machine: &mut Machine) -> Outcome {
        let mut step = machine.step();
        loop {
            if self.cancel.is_cancelled() {
                return self.interrupted(machine);
            }
            step = match step {
                Step::Pause => {
                    tokio::task::yield_now().await;
                    machine.step()
                }
                Step::Done(value) => return self.completed(machine, &value),
                Step::Error(error) => {
                    return self.settle_error(
                        machine,
                        OutcomeKind::ScriptError,
                        error.kind().as_str(),
                        error.message(),
                        String::new(),
                    );
                }
                Step::Tool(request) => {
                    let is_direct =
                        self.calls.is_empty() && self.direct.as_deref() == Some(&*request.tool);
                    if !is_direct {
                        self.direct = None;
                    }
                    match self.run_calls(machine, vec![request], is_direct).await {
                        Ok(mut values) if is_direct => {
                            let value = values.pop().unwrap_or_default();
                            return self.direct_completed(machine, &value);
                        }
                        Ok(mut values) => machine.resume_tool(values.pop().unwrap_or_default()),
                        Err(abort) => return self.aborted(machine, abort, "script"),
                    }
                }
                Step::Batch(requests) => {
                    self.direct = None;
                    let kind = if requests.len() > 1 {
                        "batch"
                    } else {
                        "script"
                    };
                    match self.run_calls(machine, requests, false).await {
                        Ok(values) => machine.resume_batch(values),
                        Err(abort) => return self.aborted(machine, abort, kind),
                    }
                }
            };
        }
    }

    /// Records and prepares one request: audit entry, argument conversion, request context.
    fn prepare(
        &mut self,
        machine: &Machine,
        request: &ToolRequest,
        batch: Option<u64>,
        direct: bool,
    ) -> Prepared {
        let order = self.calls.len() as u64 + 1;
        let mut record = AuditRecord::new(&self.id, order, &request.tool, Status::Queued);
        record.batch = batch;
        let prepared = match self.runner.registry.get(&request.tool) {
            None => Prepared::Refused(format!("Tool {} is unavailable", request.tool)),
            Some(tool) => {
                match args::prepare(tool, &request.args, machine.symbols(), &self.runner.limits) {
                    Err(error) => {
                        // Keep what the guest sent, for the audit, when it converts at all.
                        record.args =
                            convert::to_json(&request.args, machine.symbols(), &self.runner.limits)
                                .ok()
                                .and_then(|json| audit::bound_args(&json));
                        Prepared::Refused(error.0)
                    }
                    Ok(arguments) => {
                        if direct {
                            record.args = Some(arguments.clone());
                        } else {
                            record.args = audit::bound_args(&arguments);
                            record.args_omitted = record.args.is_none();
                        }
                        Prepared::Ready(ToolRequestCtx {
                            id: record.id.clone(),
                            parent_id: self.id.clone(),
                            source: "ptc",
                            tool: request.tool.to_string(),
                            arguments,
                            cancel: CancelToken::new(),
                        })
                    }
                }
            }
        };
        self.calls.push(record);
        self.waiting.push(false);
        prepared
    }

    /// Runs `requests` (one call, or a batch) with bounded concurrency; the guest values in
    /// source order, or why the script must stop.
    async fn run_calls(
        &mut self,
        machine: &mut Machine,
        requests: Vec<ToolRequest>,
        direct: bool,
    ) -> Result<Vec<Value>, Abort> {
        let count = requests.len();
        let batch = (count > 1).then(|| {
            let number = self.next_batch;
            self.next_batch += 1;
            number
        });
        let first = self.calls.len();
        let mut slots: Vec<Option<Prepared>> = requests
            .iter()
            .map(|request| Some(self.prepare(machine, request, batch, direct)))
            .collect();
        self.report(true);
        // Calls whose pending permission decision came back `Allow` (progress only).
        let (granted_tx, mut granted) = futures::channel::mpsc::unbounded::<usize>();
        let mut tokens: Vec<Option<CancelToken>> = vec![None; count];
        let mut results: Vec<Option<Value>> = vec![None; count];
        let parallelism = usize::try_from(self.runner.limits.parallelism.max(1)).unwrap_or(1);
        let timeout = self.runner.limits.tool_timeout_ms;
        let mut active = FuturesUnordered::new();
        let mut next = 0usize;
        let mut done = 0usize;
        while done < count {
            while active.len() < parallelism && next < count {
                let index = next;
                next += 1;
                let call = first + index;
                match slots.get_mut(index).and_then(Option::take) {
                    Some(Prepared::Refused(message)) => {
                        let message = format!("Error: {message}");
                        self.set(call, Status::Error, Some(message.clone()));
                        self.report(true);
                        set_slot(&mut results, index, machine.error_value(&message));
                        done += 1;
                    }
                    Some(Prepared::Ready(ctx)) => {
                        set_slot(&mut tokens, index, ctx.cancel.clone());
                        self.set(call, Status::Running, None);
                        let mut decision = dispatch::check_policy(&self.runner.policy, &ctx);
                        // A policy that answers at once is applied in launch order.
                        let decision = match decision.as_mut().now_or_never() {
                            Some(Decision::Deny(reason)) => {
                                self.deny(call, first, count, &tokens, reason.clone());
                                return Err(Abort::Denied {
                                    tool: ctx.tool,
                                    reason,
                                });
                            }
                            Some(Decision::Allow) => None,
                            None => {
                                self.set_waiting(call, true);
                                Some(decision)
                            }
                        };
                        self.report(true);
                        let granted_tx = granted_tx.clone();
                        let handler = self
                            .runner
                            .registry
                            .get(&ctx.tool)
                            .map(|tool| tool.handler.clone());
                        active.push(async move {
                            if let Some(decision) = decision {
                                if let Decision::Deny(reason) = decision.await {
                                    return (index, ChildEnd::Denied(reason));
                                }
                                // The receiver only goes away with the whole batch.
                                let _ = granted_tx.unbounded_send(index);
                            }
                            match handler {
                                Some(handler) => {
                                    (index, dispatch::run_handler(handler, ctx, timeout).await)
                                }
                                None => (index, ChildEnd::Failed("Error: tool vanished".into())),
                            }
                        });
                    }
                    None => done += 1,
                }
            }
            if done >= count || active.is_empty() {
                break;
            }
            let finished = tokio::select! {
                biased;
                () = self.cancel.cancelled() => None,
                Some(index) = granted.next() => {
                    self.set_waiting(first + index, false);
                    self.report(true);
                    continue;
                }
                finished = active.next() => finished,
            };
            let Some((index, end)) = finished else {
                drop(active);
                self.cancel_unfinished(first, count, &tokens, "Cancelled by request");
                return Err(Abort::Interrupted);
            };
            let call = first + index;
            match end {
                ChildEnd::Denied(reason) => {
                    drop(active);
                    let tool = self
                        .calls
                        .get(call)
                        .map(|c| c.tool.clone())
                        .unwrap_or_default();
                    self.deny(call, first, count, &tokens, reason.clone());
                    return Err(Abort::Denied { tool, reason });
                }
                ChildEnd::Failed(message) => {
                    self.set(call, Status::Error, Some(message.clone()));
                    set_slot(&mut results, index, machine.error_value(&message));
                }
                ChildEnd::Finished(result) => {
                    let settled = settle_result(machine, &result, &self.runner.limits);
                    if let Some(record) = self.calls.get_mut(call) {
                        record.media = result.media();
                        record.notes.clone_from(&result.notes);
                    }
                    self.notes.extend(result.notes.iter().cloned());
                    self.set(call, settled.status, settled.preview);
                    set_slot(&mut results, index, settled.value);
                    if direct {
                        self.direct_result = Some(result);
                    }
                }
            }
            done += 1;
            self.set_waiting(call, false);
            self.report(true);
            // Completions come in capped chunks with a yield in between, even when every
            // handler completes synchronously.
            tokio::task::yield_now().await;
        }
        Ok(results.into_iter().map(Option::unwrap_or_default).collect())
    }

    fn set_waiting(&mut self, call: usize, waiting: bool) {
        if let Some(slot) = self.waiting.get_mut(call) {
            *slot = waiting;
        }
    }

    /// Sends the current snapshot to the host's sink, if it gave one.
    fn report(&self, live: bool) {
        if let Some(sink) = &self.progress {
            let snapshot: Progress = progress::snapshot(
                &self.id,
                self.direct.as_deref(),
                live,
                &self.calls,
                &self.waiting,
            );
            sink.progress(&snapshot);
        }
    }

    fn set(&mut self, call: usize, status: Status, preview: Option<String>) {
        if let Some(record) = self.calls.get_mut(call) {
            record.status = status;
            if preview.is_some() {
                record.preview = preview;
            }
        }
    }

    /// Marks `call` denied and its unfinished siblings cancelled.
    fn deny(
        &mut self,
        call: usize,
        first: usize,
        count: usize,
        tokens: &[Option<CancelToken>],
        reason: String,
    ) {
        self.set(call, Status::Denied, Some(reason));
        self.cancel_unfinished(first, count, tokens, "Cancelled after sibling denial");
    }

    fn cancel_unfinished(
        &mut self,
        first: usize,
        count: usize,
        tokens: &[Option<CancelToken>],
        why: &str,
    ) {
        for token in tokens.iter().flatten() {
            token.cancel();
        }
        for record in self.calls.iter_mut().skip(first).take(count) {
            if !record.status.is_terminal() {
                record.status = Status::Cancelled;
                record.preview = Some(why.to_owned());
            }
        }
    }

    fn stats(&self, machine: &Machine) -> RunStats {
        let stats = machine.stats();
        RunStats {
            fuel_used: stats.fuel_used,
            tool_calls: stats.tool_calls,
            elapsed_ms: u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX),
        }
    }

    fn outcome(&self, machine: &Machine, kind: OutcomeKind, text: String) -> Outcome {
        Outcome {
            id: self.id.clone(),
            kind,
            text,
            value: None,
            error: None,
            direct: self.direct.clone(),
            direct_result: None,
            calls: self.calls.clone(),
            notes: self.notes.clone(),
            stats: self.stats(machine),
        }
    }

    fn completed(&mut self, machine: &Machine, value: &Value) -> Outcome {
        let text = cap_text(machine.render(value));
        let mut outcome = self.outcome(machine, OutcomeKind::Completed, text);
        outcome.direct = None;
        outcome.value = Some(
            convert::to_json(value, machine.symbols(), &self.runner.limits).unwrap_or_default(),
        );
        self.finish(outcome)
    }

    fn direct_completed(&mut self, machine: &Machine, value: &Value) -> Outcome {
        let result = self.direct_result.take();
        let failed = self
            .calls
            .first()
            .is_some_and(|c| c.status != Status::Success);
        let text = match &result {
            Some(result) => result.joined_text(),
            None => self
                .calls
                .first()
                .and_then(|c| c.preview.clone())
                .unwrap_or_else(|| machine.render(value)),
        };
        let kind = if failed {
            OutcomeKind::ToolError
        } else {
            OutcomeKind::Completed
        };
        let mut outcome = self.outcome(machine, kind, text.clone());
        if failed {
            let message = text.strip_prefix("Error: ").unwrap_or(&text).to_owned();
            outcome.error = Some(OutcomeError {
                kind: "tool-error".to_owned(),
                message,
            });
        } else {
            outcome.value = Some(match result.as_ref().and_then(|r| r.structured.clone()) {
                Some(json) => json,
                None => serde_json::Value::String(text),
            });
        }
        outcome.direct_result = result;
        self.finish(outcome)
    }

    fn aborted(&mut self, machine: &Machine, abort: Abort, scope: &str) -> Outcome {
        match abort {
            Abort::Interrupted => self.interrupted(machine),
            Abort::Denied { tool, reason } => {
                let message = format!("{scope} aborted because nested {tool} was denied: {reason}");
                let summary = audit::summary(&self.calls);
                self.settle_error(machine, OutcomeKind::Denied, "denied", &message, summary)
            }
        }
    }

    fn interrupted(&mut self, machine: &Machine) -> Outcome {
        for record in &mut self.calls {
            if !record.status.is_terminal() {
                record.status = Status::Cancelled;
                record.preview = Some("Cancelled by request".to_owned());
            }
        }
        let summary = if self.calls.is_empty() {
            String::new()
        } else {
            audit::summary(&self.calls)
        };
        self.settle_error(
            machine,
            OutcomeKind::Interrupted,
            "interrupted",
            "script interrupted",
            summary,
        )
    }

    fn settle_error(
        &mut self,
        machine: &Machine,
        kind: OutcomeKind,
        error_kind: &str,
        message: &str,
        suffix: String,
    ) -> Outcome {
        for record in &mut self.calls {
            if !record.status.is_terminal() {
                record.status = Status::Interrupted;
                record.preview = Some("Interrupted after script failure".to_owned());
            }
        }
        let message = message.to_owned();
        let text = cap_text(format!("Error: {message}{suffix}"));
        let mut outcome = self.outcome(machine, kind, text);
        outcome.error = Some(OutcomeError {
            kind: error_kind.to_owned(),
            message,
        });
        if kind == OutcomeKind::ScriptError && error_kind == "checkpoint" {
            self.report(false);
            return outcome;
        }
        self.finish(outcome)
    }

    /// Writes the settled checkpoint (one retry; a failure turns the outcome into a
    /// `checkpoint` script error that still carries the audit), then sends the final
    /// progress snapshot.
    fn finish(&mut self, outcome: Outcome) -> Outcome {
        let outcome = self.persist(outcome);
        self.report(false);
        outcome
    }

    fn persist(&mut self, mut outcome: Outcome) -> Outcome {
        let Some(store) = &self.runner.checkpoints else {
            return outcome;
        };
        let record = Checkpoint {
            id: self.id.clone(),
            state: CheckpointState::Settled,
            expression: self.script.clone(),
            outcome: Some(outcome.kind.as_str().to_owned()),
            result: Some(outcome.text.clone()),
            calls: outcome.calls.clone(),
        };
        if store.write(&record).is_err() && store.write(&record).is_err() {
            let message = "ToolCall final audit could not be persisted";
            outcome.kind = OutcomeKind::ScriptError;
            outcome.text = format!("Error: {message}");
            outcome.value = None;
            outcome.error = Some(OutcomeError {
                kind: "checkpoint".to_owned(),
                message: message.to_owned(),
            });
        }
        outcome
    }
}

fn set_slot<T>(slots: &mut [Option<T>], index: usize, value: T) {
    if let Some(slot) = slots.get_mut(index) {
        *slot = Some(value);
    }
}

/// The script of a raw ToolCall argument object, or why the object is malformed.
///
/// # Errors
/// A message naming the expected shape `{"expression": "<script>"}`.
pub fn expression_of(arguments: &serde_json::Value) -> Result<&str, String> {
    const EXPECTED: &str = "ToolCall expects {\"expression\": \"<script>\"}";
    let Some(object) = arguments.as_object() else {
        return Err(format!("{EXPECTED}, not a JSON {}", json_type(arguments)));
    };
    if let Some(key) = object.keys().find(|k| k.as_str() != "expression") {
        return Err(format!(
            "ToolCall has no argument `{key}'; it accepts: expression"
        ));
    }
    match object.get("expression") {
        None => Err(format!("{EXPECTED}: the expression is missing")),
        Some(serde_json::Value::String(script)) => Ok(script),
        Some(other) => Err(format!(
            "{EXPECTED}: the expression must be a string, not a JSON {}",
            json_type(other)
        )),
    }
}

fn json_type(value: &serde_json::Value) -> &'static str {
    match value {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "boolean",
        serde_json::Value::Number(_) => "number",
        serde_json::Value::String(_) => "string",
        serde_json::Value::Array(_) => "array",
        serde_json::Value::Object(_) => "object",
    }
}

/// Runs `script` once against `registry` with `limits` and `policy`: the one-call entry for
/// hosts that need nothing else (no checkpoints, no cancellation, a fresh envelope id).
pub async fn run(
    script: &str,
    registry: Arc<Registry>,
    limits: Limits,
    policy: Arc<dyn PermissionPolicy>,
) -> Outcome {
    Runner::new(registry)
        .with_limits(limits)
        .with_policy(policy)
        .run(script, RunOptions::default())
        .await
}
