//! How a run settles: the outcome kind, the model-facing text, the value, the audit and
//! the counters, plus the one-object JSON form the CLI prints with `--format json`.

use crate::audit::AuditRecord;
use crate::tool::ToolResult;
use serde::Serialize;
use serde_json::{Value as Json, json};

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum OutcomeKind {
    /// The script finished with a value (or a direct call succeeded).
    Completed,
    /// The script failed: compile diagnostics, a budget, a runtime error, a checkpoint
    /// failure, or a malformed `{"expression": ...}` object.
    ScriptError,
    /// The permission policy refused a nested call.
    Denied,
    /// The host cancelled the run.
    Interrupted,
    /// A direct call's tool failed.
    ToolError,
}

impl OutcomeKind {
    /// The wire name.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            OutcomeKind::Completed => "completed",
            OutcomeKind::ScriptError => "script-error",
            OutcomeKind::Denied => "denied",
            OutcomeKind::Interrupted => "interrupted",
            OutcomeKind::ToolError => "tool-error",
        }
    }
}

/// A failed run's typed error.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OutcomeError {
    /// The dialect's error kind (`step`, `preflight`, ...), or `denied`, `interrupted`,
    /// `tool-error`, `checkpoint`, `arguments`.
    pub kind: String,
    /// The message, without `Error: `.
    pub message: String,
}

/// Counters of one run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct RunStats {
    /// Fuel units used.
    pub fuel_used: u64,
    /// Nested calls dispatched.
    pub tool_calls: u64,
    /// Wall-clock time of the run in milliseconds.
    pub elapsed_ms: u64,
}

/// A settled run.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The envelope id.
    pub id: String,
    /// How it ended.
    pub kind: OutcomeKind,
    /// What the model sees: the final value rendered (strings verbatim, other values
    /// printed Lisp-style), a direct call's own text, or `Error: ...` plus a partial audit.
    pub text: String,
    /// The final value as JSON, when completed.
    pub value: Option<Json>,
    /// The typed error, when not completed.
    pub error: Option<OutcomeError>,
    /// The tool's name when the script was a provably direct call.
    pub direct: Option<String>,
    /// A direct call's own result (content, media, structured content), untouched.
    pub direct_result: Option<ToolResult>,
    /// One record per nested call, in dispatch order.
    pub calls: Vec<AuditRecord>,
    /// Context and repair notes from every child, in arrival order.
    pub notes: Vec<String>,
    /// Counters.
    pub stats: RunStats,
}

impl Outcome {
    /// Whether the run completed.
    #[must_use]
    pub fn is_completed(&self) -> bool {
        self.kind == OutcomeKind::Completed
    }

    /// The single JSON object of `ptc run --format json`: `outcome`, `text`, `value`,
    /// `error`, `direct`, `calls`, `notes`, `stats`.
    #[must_use]
    pub fn to_json(&self) -> Json {
        json!({
            "id": self.id,
            "outcome": self.kind.as_str(),
            "text": self.text,
            "value": self.value,
            "error": self.error,
            "direct": self.direct,
            "calls": self.calls,
            "notes": self.notes,
            "stats": self.stats,
        })
    }
}
