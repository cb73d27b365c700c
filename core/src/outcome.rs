//! How a run settles: the outcome kind, the model-facing text, the value, the audit and
//! the counters, plus the one-object JSON form the CLI prints with `--format json`.
//!
//! Invariant: the text of every outcome except a direct call's own result is at most
//! [`MAX_RESULT_CHARS`] characters ([`cap_text`]); a direct call keeps the underlying
//! tool's result and size limit (spec/reference/tool-calls.md).

use crate::audit::AuditRecord;
use crate::catalog::ToolResult;
use crate::errors::ErrorKind;
use serde::{Deserialize, Serialize};
use serde_json::{Value as Json, json};
use std::sync::Arc;

/// The ToolCall's max result size, in characters (spec/reference/budgets.md): the
/// model-facing text of a composed script (value, error or audit summary) is cut to this
/// length, truncation notice included. A direct call's result is not cut by ToolCall.
pub const MAX_RESULT_CHARS: usize = 30_000;

/// `text` unchanged when it has at most [`MAX_RESULT_CHARS`] characters; otherwise its
/// first characters followed by a truncation notice naming the original length, the whole
/// exactly [`MAX_RESULT_CHARS`] characters long.
#[must_use]
pub fn cap_text(text: String) -> String {
    let total = text.chars().count();
    if total <= MAX_RESULT_CHARS {
        return text;
    }
    let notice = format!(
        "\n\n[ToolCall result truncated: {total} characters exceed the \
         {MAX_RESULT_CHARS}-character limit]"
    );
    let keep = MAX_RESULT_CHARS.saturating_sub(notice.chars().count());
    let end = text.char_indices().nth(keep).map_or(text.len(), |(i, _)| i);
    let mut capped = text.get(..end).unwrap_or_default().to_owned();
    capped.push_str(&notice);
    capped
}

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum OutcomeKind {
    /// The script finished with a value (or a direct call succeeded).
    Completed,
    /// The script failed: compile diagnostics, a budget, a runtime error, a journal
    /// failure, or a malformed `{"expression": ...}` object.
    ScriptError,
    /// The permission policy refused a nested call.
    Denied,
    /// The host cancelled the run.
    Interrupted,
    /// A direct call's tool failed.
    ToolError,
    /// A nested call awaits a person's decision: [`Outcome::journal`] holds the pending
    /// calls and everything needed to resume (spec/reference/durable-runs.md).
    Paused,
    /// A resumed or replayed run made another call than its journal holds.
    ReplayDiverged,
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
            OutcomeKind::Paused => "paused",
            OutcomeKind::ReplayDiverged => "replay-diverged",
        }
    }
}

/// A failed run's typed error: a matchable [`ErrorKind`] and the model-facing message.
/// Serialises as `{"kind": WIRE-NAME, "message": ...}` (the kind's `Display`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[error("{kind}: {message}")]
#[non_exhaustive]
pub struct OutcomeError {
    /// Why the run failed.
    pub kind: ErrorKind,
    /// The message, without `Error: `.
    pub message: String,
}

impl OutcomeError {
    /// An error of `kind` with `message` (without `Error: `).
    #[must_use]
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        OutcomeError {
            kind,
            message: message.into(),
        }
    }
}

/// Counters of one run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunStats {
    /// Fuel units used.
    pub fuel_used: u64,
    /// Nested calls dispatched.
    pub tool_calls: u64,
    /// Wall-clock time of the run in milliseconds.
    pub elapsed_ms: u64,
}

/// A settled run. Serialises (serde) to exactly the object `ptc run --format json` prints:
/// `id`, `outcome`, `text`, `value`, `error`, `direct`, `calls`, `notes`, `stats`, and
/// `result` (a direct call's own result, without media payload bytes) when there is one,
/// and `journal` when the run recorded one.
///
/// An `Outcome` is what a spawned run's tokio task holds (its cell is rounded to 128 bytes
/// and sized by the larger of the run's future and its output), so it is kept small: the
/// rare or large parts are boxed, the names shared (160 bytes since the journal's box was
/// added on 2026-12-05; 152 before).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    /// The envelope id (shared with the envelope's calls).
    pub id: Arc<str>,
    /// How it ended.
    #[serde(rename = "outcome")]
    pub kind: OutcomeKind,
    /// What the model sees: the final value rendered (strings verbatim, other values
    /// printed Lisp-style), a direct call's own text, or `Error: ...` plus a partial audit.
    pub text: String,
    /// The final value as JSON, when completed. Boxed: inline, it made a spawned run's task
    /// 128 bytes larger.
    pub value: Option<Box<Json>>,
    /// The typed error, when not completed. Boxed like `direct_result`: a completed run has
    /// none, and the inline error made a spawned run's tokio task 128 bytes larger (its
    /// cell is rounded to 128 bytes).
    pub error: Option<Box<OutcomeError>>,
    /// The tool's name when the script was a provably direct call.
    pub direct: Option<Arc<str>>,
    /// One record per nested call, in dispatch order.
    pub calls: Vec<AuditRecord>,
    /// Context and repair notes from every child, in arrival order.
    #[serde(default)]
    pub notes: Box<[String]>,
    /// Counters.
    pub stats: RunStats,
    /// A direct call's own result (content, media, structured content), untouched. Boxed:
    /// most runs have none, and an `Outcome` is what a spawned run's task holds.
    #[serde(rename = "result", default, skip_serializing_if = "Option::is_none")]
    pub direct_result: Option<Box<ToolResult>>,
    /// The run's journal, when the host asked for one
    /// ([`EnvelopeOptions::record`](crate::EnvelopeOptions::record)): what
    /// [`Envelope::resume`](crate::Envelope::resume) needs to resume a paused run or
    /// replay any run. A paused run's pending calls are in it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub journal: Option<Box<crate::resume::RunJournal>>,
}

impl Outcome {
    /// Whether the run completed.
    #[must_use]
    pub fn is_completed(&self) -> bool {
        self.kind == OutcomeKind::Completed
    }

    /// The value of a completed run, or its error — so a host can `?` an outcome.
    ///
    /// # Errors
    /// The run's [`OutcomeError`] when it did not complete.
    pub fn into_result(self) -> Result<Outcome, OutcomeError> {
        match self.error.as_deref() {
            Some(error) if !self.is_completed() => Err(error.clone()),
            _ => Ok(self),
        }
    }

    /// The model-facing text followed, when any child left context or repair notes, by a
    /// `Notes:` block with one `- NOTE` line each (continuation lines indented two spaces):
    /// what `ptc run --format text` prints, so hook feedback reaches the model even when the
    /// script discarded the child's value (spec/reference/tool-calls.md).
    #[must_use]
    pub fn text_with_notes(&self) -> String {
        if self.notes.is_empty() {
            return self.text.clone();
        }
        let mut out = self.text.clone();
        out.push_str("\n\nNotes:");
        for note in &self.notes {
            out.push_str("\n- ");
            out.push_str(&note.replace('\n', "\n  "));
        }
        out
    }

    /// The single JSON object of `ptc run --format json`: `id`, `outcome`, `text`,
    /// `value`, `error`, `direct`, `calls`, `notes`, `stats`, and `result` for a direct
    /// call (the same object as the `Serialize` impl).
    #[must_use]
    pub fn to_json(&self) -> Json {
        serde_json::to_value(self).unwrap_or_else(|error| json!({"error": error.to_string()}))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_capped_by_characters_with_a_notice() {
        let short = "é".repeat(MAX_RESULT_CHARS);
        assert_eq!(cap_text(short.clone()), short);
        let long = "é".repeat(MAX_RESULT_CHARS + 1);
        let capped = cap_text(long);
        let notice = "\n\n[ToolCall result truncated: 30001 characters exceed the \
                      30000-character limit]";
        assert_eq!(capped.chars().count(), MAX_RESULT_CHARS);
        assert!(
            capped.ends_with(notice),
            "{}",
            &capped[capped.len() - 100..]
        );
        let kept = MAX_RESULT_CHARS - notice.chars().count();
        assert_eq!(capped.strip_suffix(notice), Some("é".repeat(kept).as_str()));
    }

    #[test]
    fn outcomes_round_trip_through_their_json_object() {
        use crate::audit::Status;
        let mut record = AuditRecord::new("ptc-7", 1, "Read", Status::Success);
        record.preview = Some("hello".into());
        let outcome = Outcome {
            id: "ptc-7".into(),
            kind: OutcomeKind::Completed,
            text: "hello".into(),
            value: Some(Box::new(json!("hello"))),
            error: None,
            direct: Some("Read".into()),
            calls: vec![record],
            notes: Box::new(["n".into()]),
            stats: RunStats {
                fuel_used: 3,
                tool_calls: 1,
                elapsed_ms: 0,
            },
            direct_result: Some(Box::new(ToolResult::text("hello"))),
            journal: None,
        };
        let object = outcome.to_json();
        let keys: Vec<&str> = object
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            keys,
            [
                "id", "outcome", "text", "value", "error", "direct", "calls", "notes", "stats",
                "result"
            ]
        );
        assert_eq!(object["outcome"], "completed");
        let back: Outcome = serde_json::from_value(object).unwrap();
        assert_eq!(back, outcome);
    }

    #[test]
    fn an_outcome_keeps_a_spawned_runs_task_small() {
        // A tokio task cell is 104 bytes plus the larger of the future and its output,
        // rounded to 128. It was 152 bytes until the journal's box (8 bytes) was added.
        assert!(std::mem::size_of::<Outcome>() <= 160);
    }
}
