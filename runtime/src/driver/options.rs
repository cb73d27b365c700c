//! Per-run options ([`RunOptions`]): what a host
//! may set for one run, read by the driver when it starts the run. The fields are private
//! (new options never break a host); the driver reads them within this crate.

use crate::cancel::CancelToken;
use crate::context::RunData;
use crate::policy::PermissionPolicy;
use ptc_core::ToolFilter;
use ptc_core::progress::ProgressSink;
use ptc_vm::Limits;
use std::sync::Arc;

/// Per-run options, built with the methods below (`RunOptions::new().id("toolu_1")...`);
/// the fields are private so that new options never break a host.
#[derive(Clone, Default)]
pub struct RunOptions {
    pub(super) id: Option<Arc<str>>,
    /// Made on first ask ([`RunOptions::cancel_token`]): a run nobody can cancel has none.
    pub(super) cancel: std::sync::OnceLock<CancelToken>,
    pub(super) progress: Option<Arc<dyn ProgressSink>>,
    pub(super) inputs: Option<serde_json::Map<String, serde_json::Value>>,
    pub(super) data: RunData,
    pub(super) limits: Option<Limits>,
    pub(super) policy: Option<Arc<dyn PermissionPolicy>>,
    pub(super) tools: Option<ToolFilter>,
    pub(super) record: bool,
    pub(super) parent: Option<tracing::Span>,
}

impl std::fmt::Debug for RunOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunOptions")
            .field("id", &self.id)
            .field("cancel", &self.cancel)
            .field("progress", &self.progress.is_some())
            .field("inputs", &self.inputs)
            .field("data", &self.data)
            .field("limits", &self.limits)
            .field("policy", &self.policy.is_some())
            .field("tools", &self.tools)
            .field("record", &self.record)
            .field("parent", &self.parent.as_ref().and_then(tracing::Span::id))
            .finish()
    }
}

impl RunOptions {
    /// Default options: a fresh id, a token nobody cancels, no progress, no inputs, no
    /// data, the runner's limits, policy and tools.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// The envelope id (the host's tool-use id); a fresh `ptc-TAG-N` when not set. Kept
    /// as one shared string (`impl Into<Arc<str>>` since 2026-12-03: a `&str` or `String`
    /// as before), which the run's envelope, outcome and calls share.
    #[must_use]
    pub fn id(mut self, id: impl Into<Arc<str>>) -> Self {
        self.id = Some(id.into());
        self
    }

    /// Records the run's journal (`ptc_core::resume`) into [`ptc_core::Outcome::journal`],
    /// so that a policy may pause it ([`crate::Decision::Pause`]) and a host may resume or
    /// replay it ([`crate::Source::Resume`], [`crate::Source::Replay`]). Costs a copy of
    /// every tool result, kept until the run settles.
    #[must_use]
    pub fn record(mut self, on: bool) -> Self {
        self.record = on;
        self
    }

    /// The span the run's `ptc.tool_call` span is a child of (spec/reference/observability.md),
    /// instead of the span current when [`Runner::run`](crate::Runner::run) is called: a
    /// host that runs ToolCalls from a task of its own passes the span of the model turn or
    /// request they belong to. Every `execute_tool` span stays a child of the run's span. A
    /// disabled span (`Span::none()`) leaves the current span the parent.
    #[must_use]
    pub fn parent_span(mut self, span: tracing::Span) -> Self {
        self.parent = Some(span);
        self
    }

    /// Cancelling `token` interrupts the run (every call's token is a child of it).
    #[must_use]
    pub fn cancel(mut self, token: CancelToken) -> Self {
        self.cancel = std::sync::OnceLock::from(token);
        self
    }

    /// Receives a [`ptc_core::Progress`] snapshot after every change to the nested calls, and
    /// a final one when the run settles (see `ptc_core::progress`).
    ///
    /// ```
    /// use ptc_runtime::core::{Progress, Status};
    /// use ptc_runtime::{Registry, RunOptions, Runner, ToolContract};
    /// use ptc_runtime::{ToolRequestCtx, ToolResult};
    /// use serde_json::json;
    /// use std::sync::{Arc, Mutex};
    /// use std::time::Duration;
    ///
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let mut registry = Registry::new();
    /// registry.register(
    ///     ToolContract::new("Nap", "Sleeps.", json!({"type": "object"})),
    ///     |_request: ToolRequestCtx| async move {
    ///         tokio::time::sleep(Duration::from_millis(30)).await;
    ///         ToolResult::text("rested")
    ///     },
    /// )?;
    /// let runner = Runner::new(Arc::new(registry));
    /// let seen: Arc<Mutex<Vec<Progress>>> = Arc::default();
    /// let sink = {
    ///     let seen = seen.clone();
    ///     move |snapshot: &Progress| seen.lock().unwrap().push(snapshot.clone())
    /// };
    /// let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    /// rt.block_on(runner.run("(list (Nap) (Nap))", RunOptions::new().progress(Arc::new(sink))));
    /// let seen = seen.lock().unwrap();
    /// let last = seen.last().unwrap();
    /// assert!(!last.live);
    /// let call = &last.calls[1];
    /// assert_eq!(call.status, Status::Success);
    /// assert_eq!(call.preview.as_deref(), Some("rested"));
    /// assert_eq!(call.args.as_deref(), Some("{}"));
    /// let (start, end) = (call.started_ms.unwrap(), call.finished_ms.unwrap());
    /// assert!(end >= start + 30, "{start}..{end}");
    /// assert!(start >= last.calls[0].finished_ms.unwrap());
    /// # Ok(())
    /// # }
    /// ```
    #[must_use]
    pub fn progress(mut self, sink: Arc<dyn ProgressSink>) -> Self {
        self.progress = Some(sink);
        self
    }

    /// The values of the script's declared inputs (`ptc_core::script`): `inputs` serialises
    /// to a JSON object whose keys are input names. Running text, the keys declare the
    /// inputs; running a compiled [`ptc_core::Script`], they must be names it declared.
    ///
    /// # Errors
    /// [`InputsError`] when `inputs` does not serialise to a JSON object.
    pub fn inputs<T: serde::Serialize + ?Sized>(mut self, inputs: &T) -> Result<Self, InputsError> {
        let value = serde_json::to_value(inputs).map_err(|error| InputsError::NotJson {
            reason: error.to_string(),
        })?;
        match value {
            serde_json::Value::Object(map) => {
                self.inputs = Some(map);
                Ok(self)
            }
            other => Err(InputsError::NotAnObject {
                found: other.to_string(),
            }),
        }
    }

    /// Host data every [`ToolRequestCtx`](crate::ToolRequestCtx) of the run reads with
    /// [`ToolRequestCtx::data`](crate::ToolRequestCtx::data) (and the policy too).
    #[must_use]
    pub fn data(mut self, data: RunData) -> Self {
        self.data = data;
        self
    }

    /// Budgets for this run: each is the smaller of these and the runner's
    /// (`context::tighten`) — a run can tighten, never loosen.
    #[must_use]
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = Some(limits);
        self
    }

    /// A policy for this run, asked after the runner's: a call runs only when both allow.
    #[must_use]
    pub fn policy(mut self, policy: Arc<dyn PermissionPolicy>) -> Self {
        self.policy = Some(policy);
        self
    }

    /// Only the registry's tools `filter` allows exist for this run: its compilation
    /// (preflight reports others as unknown functions) and [`Runner::listing`](crate::Runner::listing).
    #[must_use]
    pub fn tools(mut self, filter: ToolFilter) -> Self {
        self.tools = Some(filter);
        self
    }

    /// The token cancelling this run, made on the first call when [`RunOptions::cancel`]
    /// gave none (a run whose token nobody asked for allocates none). Ask before cloning
    /// the options if the clones should share it: a clone made earlier makes its own.
    #[must_use]
    pub fn cancel_token(&self) -> &CancelToken {
        self.cancel.get_or_init(CancelToken::new)
    }

    /// The tool filter, if any.
    #[must_use]
    pub fn tool_filter(&self) -> Option<&ToolFilter> {
        self.tools.as_ref()
    }
}

/// Inputs that are not a JSON object of name: value ([`RunOptions::inputs`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum InputsError {
    /// The value did not serialise to JSON.
    #[error("inputs do not serialise to JSON: {reason}")]
    NotJson {
        /// serde_json's reason.
        reason: String,
    },
    /// The value serialised to JSON other than an object.
    #[error("inputs must be a JSON object of name: value, not {found}")]
    NotAnObject {
        /// The JSON it serialised to.
        found: String,
    },
}
