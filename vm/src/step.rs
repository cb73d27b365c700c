//! What one run of the machine hands back to its host: the sans-IO protocol.

use crate::error::Error;
use crate::span::Span;
use crate::value::Value;
use std::sync::Arc;

/// Why the machine stopped running.
#[derive(Debug)]
pub enum Step {
    /// Suspended on one tool call; resume with [`crate::Machine::resume_tool`].
    Tool(ToolRequest),
    /// Suspended on an ordered `parallel` / `parallel-map` batch, or on one round of the
    /// calls of `parallel` branches in issue order (already charged to the tool-call
    /// budget); resume with [`crate::Machine::resume_batch`], one result per request in
    /// the same order.
    Batch(Vec<ToolRequest>),
    /// The fuel slice (or its wall-clock bound) is over: yield to your executor, then call
    /// [`crate::Machine::step`] again.
    Pause,
    /// Finished; the value was checked against the value budget and holds no closure.
    Done(Value),
    /// Failed with a typed kind, a message and, when known, a span.
    Error(Error),
}

/// One nested call the guest asked for.
#[derive(Debug, Clone)]
pub struct ToolRequest {
    /// The roster name.
    pub tool: Arc<str>,
    /// The evaluated argument list, e.g. `(:file_path "a.rs")`; positional when the tool
    /// was called through `funcall`/`apply`/`mapcar`.
    pub args: Value,
    /// The span of the calling form.
    pub span: Span,
}

/// Counters of one run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stats {
    /// Fuel units used: instructions plus primitive work.
    pub fuel_used: u64,
    /// Nested tool calls dispatched (a batch counts its size).
    pub tool_calls: u64,
    /// Bytes charged to the retained budget.
    pub retained_bytes: u64,
    /// Pauses returned so far.
    pub pauses: u64,
}
