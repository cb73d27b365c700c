//! Audit records: one per nested call, in dispatch order (dialect notes §12.8).
//!
//! A record carries the call's id `ENVELOPE/N`, its tool, its arguments (bounded for
//! composed scripts), its status, its batch number (batches of more than one call only),
//! a bounded preview of its text result, its media references without payload bytes and
//! the context notes its result carried.
//!
//! Invariants:
//! - Bounded arguments hold no string longer than [`MAX_ARG_STRING_CHARS`] characters plus
//!   `...`, and are dropped whole when they still exceed [`MAX_ARGS_BYTES`] bytes or
//!   [`MAX_ARGS_NODES`] nodes.
//! - A preview is at most [`PREVIEW_CHARS`] characters plus `...`.
//! - Media references never carry payload bytes.

use crate::tool::MediaRef;
use serde::{Deserialize, Serialize};
use serde_json::Value as Json;

/// Longest argument string kept in a composed script's audit, in characters.
pub const MAX_ARG_STRING_CHARS: usize = 500;
/// Bounded arguments larger than this (compact JSON bytes) are dropped.
pub const MAX_ARGS_BYTES: usize = 4000;
/// Bounded arguments with more nodes than this are dropped.
pub const MAX_ARGS_NODES: usize = 200;
/// Length of a result preview, in characters.
pub const PREVIEW_CHARS: usize = 200;

/// Where a nested call stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Status {
    /// Waiting in a batch for a free slot.
    Queued,
    /// Dispatched; no result yet.
    Running,
    /// Finished successfully.
    Success,
    /// Finished with a failure (including refused arguments, timeouts and panics).
    Error,
    /// Refused by the permission policy.
    Denied,
    /// Stopped by a sibling's denial or by the host's cancellation.
    Cancelled,
    /// Unfinished when the script failed or the process stopped.
    Interrupted,
}

impl Status {
    /// The wire name.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Queued => "queued",
            Status::Running => "running",
            Status::Success => "success",
            Status::Error => "error",
            Status::Denied => "denied",
            Status::Cancelled => "cancelled",
            Status::Interrupted => "interrupted",
        }
    }

    /// Whether the call has finished one way or another.
    #[must_use]
    pub fn is_terminal(self) -> bool {
        !matches!(self, Status::Queued | Status::Running)
    }
}

/// One nested call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AuditRecord {
    /// `ENVELOPE/N`.
    pub id: String,
    /// N: dispatch order across the whole script, from 1.
    pub order: u64,
    /// The tool's name.
    pub tool: String,
    /// The arguments (bounded for composed scripts); `None` when dropped for size or when
    /// the guest's list did not convert.
    pub args: Option<Json>,
    /// Whether the arguments were dropped for exceeding the bounds.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub args_omitted: bool,
    /// Where the call stands.
    pub status: Status,
    /// The batch number, for batches of more than one call.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub batch: Option<u64>,
    /// A bounded preview of the text result, or the failure message.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preview: Option<String>,
    /// Media references, without payload.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub media: Vec<MediaRef>,
    /// Context notes the result carried.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

impl AuditRecord {
    /// A record for a call just created, before it runs.
    #[must_use]
    pub fn new(envelope: &str, order: u64, tool: &str, status: Status) -> Self {
        AuditRecord {
            id: format!("{envelope}/{order}"),
            order,
            tool: tool.to_owned(),
            args: None,
            args_omitted: false,
            status,
            batch: None,
            preview: None,
            media: Vec::new(),
            notes: Vec::new(),
        }
    }

    /// The record's line in a partial audit summary: `- ID TOOL ARGS (STATUS)`.
    #[must_use]
    pub fn summary_line(&self) -> String {
        let args = match &self.args {
            Some(args) => preview(&args.to_string(), 80),
            None if self.args_omitted => "(arguments omitted)".to_owned(),
            None => "()".to_owned(),
        };
        format!(
            "- {} {} {} ({})",
            self.id,
            self.tool,
            args,
            self.status.as_str()
        )
    }
}

/// "\n\nNested call audit:\n" followed by one summary line per record.
#[must_use]
pub fn summary(records: &[AuditRecord]) -> String {
    let mut out = String::from("\n\nNested call audit:");
    for record in records {
        out.push('\n');
        out.push_str(&record.summary_line());
    }
    out
}

/// `text` cut to `limit` characters, with `...` appended when cut.
#[must_use]
pub fn preview(text: &str, limit: usize) -> String {
    match text.char_indices().nth(limit) {
        Some((byte, _)) => {
            let mut out = text.get(..byte).unwrap_or_default().to_owned();
            out.push_str("...");
            out
        }
        None => text.to_owned(),
    }
}

/// The audit form of composed-script arguments: strings cut to
/// [`MAX_ARG_STRING_CHARS`] characters, the whole dropped (`None`) when it still exceeds
/// [`MAX_ARGS_BYTES`] bytes or [`MAX_ARGS_NODES`] nodes.
#[must_use]
pub fn bound_args(args: &Json) -> Option<Json> {
    let mut nodes = 0usize;
    let bounded = bound_value(args, &mut nodes)?;
    if nodes > MAX_ARGS_NODES {
        return None;
    }
    if bounded.to_string().len() > MAX_ARGS_BYTES {
        return None;
    }
    Some(bounded)
}

/// Bounds one value; `None` as soon as the node count passes the limit, so the walk never
/// goes deeper than [`MAX_ARGS_NODES`] levels.
fn bound_value(value: &Json, nodes: &mut usize) -> Option<Json> {
    *nodes += 1;
    if *nodes > MAX_ARGS_NODES {
        return None;
    }
    Some(match value {
        Json::String(s) => Json::String(preview(s, MAX_ARG_STRING_CHARS)),
        Json::Array(items) => Json::Array(
            items
                .iter()
                .map(|item| bound_value(item, nodes))
                .collect::<Option<_>>()?,
        ),
        Json::Object(object) => Json::Object(
            object
                .iter()
                .map(|(key, item)| Some((key.clone(), bound_value(item, nodes)?)))
                .collect::<Option<_>>()?,
        ),
        other => other.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn long_strings_are_cut_and_big_args_dropped() {
        let long = "x".repeat(600);
        let bounded = bound_args(&json!({"text": long})).unwrap();
        let kept = bounded["text"].as_str().unwrap();
        assert_eq!(kept.chars().count(), 503);
        assert!(kept.ends_with("x..."));
        // Nine 500-char strings pass the string bound but exceed 4000 bytes.
        let many: Vec<String> = (0..9).map(|_| "y".repeat(500)).collect();
        assert_eq!(bound_args(&json!({ "items": many })), None);
        let nodes: Vec<u32> = (0..200).collect();
        assert_eq!(bound_args(&json!({ "n": nodes })), None);
        let nodes: Vec<u32> = (0..198).collect();
        assert!(bound_args(&json!({ "n": nodes })).is_some());
    }

    #[test]
    fn previews_and_summaries() {
        assert_eq!(preview("héllo", 2), "hé...");
        assert_eq!(preview("hi", 2), "hi");
        let mut record = AuditRecord::new("ptc-1", 2, "Read", Status::Denied);
        record.args = Some(json!({"file_path": "a.rs"}));
        assert_eq!(
            summary(&[record]),
            "\n\nNested call audit:\n- ptc-1/2 Read {\"file_path\":\"a.rs\"} (denied)"
        );
        assert_eq!(
            serde_json::to_value(Status::Cancelled).unwrap(),
            json!("cancelled")
        );
    }
}
