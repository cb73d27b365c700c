//! Audit records: one per nested call, in dispatch order (spec/reference/tool-calls.md).
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

use crate::catalog::MediaRef;
use serde::{Deserialize, Serialize};
use serde_json::Value as Json;
use std::sync::Arc;

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
    /// Awaiting a person's decision in a paused run (spec/reference/durable-runs.md).
    Paused,
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
            Status::Paused => "paused",
        }
    }

    /// Whether the call has finished one way or another.
    #[must_use]
    pub fn is_terminal(self) -> bool {
        !matches!(self, Status::Queued | Status::Running)
    }
}

/// One nested call.
///
/// A suspended call holds its record, so the rarely filled lists (media, notes) are boxed
/// slices rather than vectors: 128 bytes, not 144.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AuditRecord {
    /// `ENVELOPE/N` (shared with the call's [`CallRequest`](crate::CallRequest) and
    /// `ptc_runtime::ToolRequestCtx`).
    pub id: Arc<str>,
    /// N: dispatch order across the whole script, from 1.
    pub order: u64,
    /// The tool's name (shared with the program's tool table).
    pub tool: Arc<str>,
    /// The arguments (bounded for composed scripts); `None` when dropped for size or when
    /// the guest's list did not convert. Shared with the call's request when no bound
    /// cut it.
    pub args: Option<Arc<Json>>,
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
    #[serde(default, skip_serializing_if = "<[_]>::is_empty")]
    pub media: Box<[MediaRef]>,
    /// Context notes the result carried.
    #[serde(default, skip_serializing_if = "<[_]>::is_empty")]
    pub notes: Box<[String]>,
}

impl AuditRecord {
    /// A record for a call just created, before it runs.
    #[must_use]
    pub fn new(envelope: &str, order: u64, tool: impl Into<Arc<str>>, status: Status) -> Self {
        AuditRecord {
            id: shared_call_id(envelope, order),
            order,
            tool: tool.into(),
            args: None,
            args_omitted: false,
            status,
            batch: None,
            preview: None,
            media: Box::default(),
            notes: Box::default(),
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

/// `ENVELOPE/N` as one shared string: built on the stack when short, so the `Arc` is the
/// call's only allocation.
fn shared_call_id(envelope: &str, order: u64) -> Arc<str> {
    let mut buffer = [0u8; 96];
    let mut digits = itoa::Buffer::new();
    let digits = digits.format(order);
    let len = envelope.len() + 1 + digits.len();
    if let Some(room) = buffer.get_mut(..len) {
        let (head, tail) = room.split_at_mut(envelope.len());
        head.copy_from_slice(envelope.as_bytes());
        if let Some((slash, rest)) = tail.split_first_mut() {
            *slash = b'/';
            rest.copy_from_slice(digits.as_bytes());
        }
        if let Ok(id) = std::str::from_utf8(room) {
            return Arc::from(id);
        }
    }
    Arc::from(call_id(envelope, order))
}

/// `ENVELOPE/N`, built without the formatting machinery (one allocation per call).
#[must_use]
pub fn call_id(envelope: &str, order: u64) -> String {
    let mut digits = itoa::Buffer::new();
    let digits = digits.format(order);
    let mut id = String::with_capacity(envelope.len() + 1 + digits.len());
    id.push_str(envelope);
    id.push('/');
    id.push_str(digits);
    id
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
    // At most `limit` bytes is at most `limit` characters: no walk over them.
    if text.len() <= limit {
        return text.to_owned();
    }
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
    // Most arguments are small: when nothing needs cutting, a plain clone is the bounded
    // form (no rebuilt maps, no per-string scan past the first check).
    if within_bounds(args) {
        return Some(args.clone());
    }
    cut_args(args)
}

/// [`bound_args`] of a call's shared arguments: the same `Arc` when nothing needs cutting
/// (the usual case: the record and the request then share one copy), else a cut copy.
#[must_use]
pub fn bound_shared(args: &Arc<Json>) -> Option<Arc<Json>> {
    if within_bounds(args) {
        return Some(Arc::clone(args));
    }
    cut_args(args).map(Arc::new)
}

/// Whether `args` is its own bounded form: no string to cut, within both size bounds.
fn within_bounds(args: &Json) -> bool {
    let (mut nodes, mut most) = (0usize, 0usize);
    fits(args, &mut nodes, &mut most)
        && nodes <= MAX_ARGS_NODES
        && (most <= MAX_ARGS_BYTES || compact_len(args) <= MAX_ARGS_BYTES)
}

/// The cut form of arguments that [`within_bounds`] refused, or `None` when even that
/// exceeds the bounds.
fn cut_args(args: &Json) -> Option<Json> {
    let mut nodes = 0usize;
    let mut most = 0usize;
    let bounded = bound_value(args, &mut nodes, &mut most)?;
    if nodes > MAX_ARGS_NODES {
        return None;
    }
    // Serialise (into a counter, not a string) only when the cheap bound does not settle it.
    if most > MAX_ARGS_BYTES && compact_len(&bounded) > MAX_ARGS_BYTES {
        return None;
    }
    Some(bounded)
}

/// Whether `value` needs no string cut; counts its nodes (stopping past the limit) and an
/// upper bound of its compact JSON length as [`bound_value`] does.
fn fits(value: &Json, nodes: &mut usize, most: &mut usize) -> bool {
    *nodes += 1;
    if *nodes > MAX_ARGS_NODES {
        return false;
    }
    match value {
        Json::String(s) => {
            *most += string_most(s);
            s.len() <= MAX_ARG_STRING_CHARS || s.chars().count() <= MAX_ARG_STRING_CHARS
        }
        Json::Array(items) => {
            *most += 2 + items.len();
            items.iter().all(|item| fits(item, nodes, most))
        }
        Json::Object(object) => {
            *most += 2;
            object.iter().all(|(key, item)| {
                *most += string_most(key) + 2;
                fits(item, nodes, most)
            })
        }
        _ => {
            *most += 24;
            true
        }
    }
}

/// The length of `value`'s compact JSON text, counted without building it.
fn compact_len(value: &Json) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0 += bytes.len();
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    match serde_json::to_writer(&mut count, value) {
        Ok(()) => count.0,
        Err(_) => usize::MAX,
    }
}

/// An upper bound of the compact JSON length of a string: quotes, and at most six bytes
/// (`\u00XX`) per byte.
fn string_most(text: &str) -> usize {
    2 + 6 * text.len()
}

/// Bounds one value; `None` as soon as the node count passes the limit, so the walk never
/// goes deeper than [`MAX_ARGS_NODES`] levels. `most` gains an upper bound of the bounded
/// value's compact JSON length (a number is at most 24 bytes; a separator follows every
/// member).
fn bound_value(value: &Json, nodes: &mut usize, most: &mut usize) -> Option<Json> {
    *nodes += 1;
    if *nodes > MAX_ARGS_NODES {
        return None;
    }
    Some(match value {
        Json::String(s) => {
            let cut = preview(s, MAX_ARG_STRING_CHARS);
            *most += string_most(&cut);
            Json::String(cut)
        }
        Json::Array(items) => {
            *most += 2 + items.len();
            Json::Array(
                items
                    .iter()
                    .map(|item| bound_value(item, nodes, most))
                    .collect::<Option<_>>()?,
            )
        }
        Json::Object(object) => {
            *most += 2;
            Json::Object(
                object
                    .iter()
                    .map(|(key, item)| {
                        *most += string_most(key) + 2;
                        Some((key.clone(), bound_value(item, nodes, most)?))
                    })
                    .collect::<Option<_>>()?,
            )
        }
        other => {
            *most += 24;
            other.clone()
        }
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
        // Past the cheap bound, the exact length decides: 7 strings of 500 control
        // characters escape to 7 × 3 002 bytes (dropped); 7 of 500 letters fit.
        let escaped: Vec<String> = (0..7).map(|_| "\u{1}".repeat(500)).collect();
        assert_eq!(bound_args(&json!({ "e": escaped })), None);
        let plain: Vec<String> = (0..7).map(|_| "z".repeat(500)).collect();
        assert!(bound_args(&json!({ "p": plain })).is_some());
        // Exactly at the limit is kept, one byte past it dropped (both past the cheap
        // bound): {"a":[ … ]} is 8 bytes, seven 500-char strings 7 × 502, seven commas.
        let sized = |last: usize| {
            let mut items: Vec<String> = (0..7).map(|_| "x".repeat(500)).collect();
            items.push("x".repeat(last));
            json!({ "a": items })
        };
        assert_eq!(compact_len(&sized(469)), MAX_ARGS_BYTES);
        assert!(bound_args(&sized(469)).is_some());
        assert_eq!(bound_args(&sized(470)), None);
    }

    #[test]
    fn call_ids_are_envelope_slash_order() {
        assert_eq!(call_id("ptc-1", 1), "ptc-1/1");
        assert_eq!(call_id("t", 0), "t/0");
        assert_eq!(call_id("toolu_9", 1_234_567_890), "toolu_9/1234567890");
        assert_eq!(call_id("", u64::MAX), format!("/{}", u64::MAX));
        let long = "e".repeat(200);
        for (envelope, order) in [("ptc-1", 1), ("", u64::MAX), (long.as_str(), 7)] {
            assert_eq!(&*shared_call_id(envelope, order), call_id(envelope, order));
        }
    }

    #[test]
    fn previews_and_summaries() {
        assert_eq!(preview("héllo", 2), "hé...");
        assert_eq!(preview("hi", 2), "hi");
        let mut record = AuditRecord::new("ptc-1", 2, "Read", Status::Denied);
        record.args = Some(Arc::new(json!({"file_path": "a.rs"})));
        assert_eq!(
            summary(&[record]),
            "\n\nNested call audit:\n- ptc-1/2 Read {\"file_path\":\"a.rs\"} (denied)"
        );
        assert_eq!(
            serde_json::to_value(Status::Cancelled).unwrap(),
            json!("cancelled")
        );
    }

    #[test]
    fn shared_bound_shares_uncut_arguments_and_copies_cut_ones() {
        let small = Arc::new(json!({"file_path": "a.rs", "n": [1, 2]}));
        let kept = bound_shared(&small).unwrap();
        assert!(
            Arc::ptr_eq(&kept, &small),
            "an uncut bound is the same copy"
        );
        let long = Arc::new(json!({"v": "x".repeat(MAX_ARG_STRING_CHARS + 10)}));
        let cut = bound_shared(&long).unwrap();
        assert!(!Arc::ptr_eq(&cut, &long));
        assert_eq!(Some((*cut).clone()), bound_args(&long));
        assert!(cut["v"].as_str().unwrap().len() < MAX_ARG_STRING_CHARS + 10);
    }
}
