//! The envelope's public vocabulary: what a host configures ([`EnvelopeConfig`],
//! [`EnvelopeOptions`]), what it is asked ([`Event`], each [`CallRequest`]) and what it may
//! answer or be refused with ([`Failure`], [`EnvelopeError`]), and the shape of the model's
//! ToolCall arguments ([`expression_of`]). Plain data, no behaviour: the
//! state machine that produces and consumes these lives in the parent module.

use crate::catalog::Catalog;
use crate::journal::JournalRecord;
use crate::outcome::Outcome;
use ptc_vm::{Clock, Limits};
use serde_json::Value as Json;
use std::sync::Arc;
use std::time::Duration;

/// What the envelope does besides the script's own semantics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EnvelopeOptions {
    /// Ask the host's permission for every call ([`Event::Permission`]); when false every
    /// call is allowed and goes straight to [`Event::Dispatch`].
    pub ask_permission: bool,
    /// Emit [`Event::Journal`] for the start and settled records.
    pub journal: bool,
    /// Keep [`Progress`](crate::Progress) snapshots for [`Envelope::take_progress`](crate::Envelope::take_progress).
    pub progress: bool,
    /// Record the run's journal (every answer, kept until the run settles) into
    /// [`Outcome::journal`](crate::Outcome::journal), so that the run can pause
    /// ([`Envelope::pause`](crate::Envelope::pause)) and be resumed or replayed
    /// (spec/reference/durable-runs.md). Costs a copy of every tool result.
    pub record: bool,
}

impl Default for EnvelopeOptions {
    fn default() -> Self {
        EnvelopeOptions {
            ask_permission: true,
            journal: false,
            progress: false,
            record: false,
        }
    }
}

/// What every envelope is started with besides its program.
#[derive(Debug, Clone)]
pub struct EnvelopeConfig {
    /// The tools: their contracts name them for the compiler and validate arguments. The
    /// envelope never calls their handlers ([`crate::Catalog::add`] adds a contract
    /// alone).
    pub catalog: Arc<Catalog>,
    /// The budgets, shared: a host starting many envelopes under one budget set passes one
    /// `Arc` (the envelope and its machine keep no copy of their own).
    pub limits: Arc<Limits>,
    /// The envelope id (the host's tool-use id); calls are `ID/1`, `ID/2`, ... Shared
    /// (`Arc<str>` since 2026-12-03): the envelope, its outcome and every call's request
    /// hold this one string.
    pub id: Arc<str>,
    /// Checkpoints, permission asks, progress.
    pub options: EnvelopeOptions,
    /// The host's clock (the same monotonic time as the `now` it passes), if it can be read
    /// at any moment:
    /// compilation then stops at `seconds` (E0031) and a fuel slice ends at `slice-seconds`
    /// between polls. It must agree with the `now` the host passes to
    /// [`Envelope::poll`](super::Envelope::poll) and the answering methods. `None` (a host
    /// with time only at its polls): compilation and slices are bounded by their budgets
    /// of work alone, and `seconds` is still enforced at every poll and answer.
    pub clock: Option<Arc<dyn Clock>>,
}

impl EnvelopeConfig {
    /// A config with default options; `limits` is a `Limits` or an `Arc<Limits>` shared
    /// with other envelopes.
    #[must_use]
    pub fn new(
        catalog: Arc<Catalog>,
        limits: impl Into<Arc<Limits>>,
        id: impl Into<Arc<str>>,
    ) -> Self {
        EnvelopeConfig {
            catalog,
            limits: limits.into(),
            id: id.into(),
            options: EnvelopeOptions::default(),
            clock: None,
        }
    }

    /// The config with the host's clock ([`EnvelopeConfig::clock`]).
    #[must_use]
    pub fn with_clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = Some(clock);
        self
    }
}

/// One nested call, as the host's permission point and tool see it.
#[derive(Debug, Clone, PartialEq)]
pub struct CallRequest {
    /// The call's id, `ENVELOPE/N` (shared with its audit record).
    pub id: Arc<str>,
    /// The envelope id (shared by every call of the envelope).
    pub parent_id: Arc<str>,
    /// The tool (shared with the program's tool table).
    pub tool: Arc<str>,
    /// The converted, schema-validated argument object (one copy per call, shared with
    /// the handler's `ptc_runtime::ToolRequestCtx` and, when it needs no
    /// cut, the audit record).
    pub arguments: Arc<Json>,
    /// The batch number, for `parallel` batches of more than one call.
    pub batch: Option<u64>,
    /// The call's position in its batch (source order), from 0; 0 for a single call.
    pub position: usize,
    /// When the envelope will time the call out (set once
    /// dispatched), on the host's clock. An answer that arrives later is refused as the
    /// call's timeout.
    pub deadline: Option<Duration>,
}

/// What the envelope needs next; see the module docs for the host's answer to each.
#[derive(Debug)]
#[non_exhaustive]
pub enum Event {
    /// Decide these calls: [`Envelope::allow`](crate::Envelope::allow) or [`Envelope::deny`](crate::Envelope::deny) each, in any order.
    Permission(Vec<CallRequest>),
    /// Start these calls; answer each with [`Envelope::complete`](crate::Envelope::complete) or [`Envelope::fail`](crate::Envelope::fail).
    Dispatch(Vec<CallRequest>),
    /// Stop these calls (ids): they timed out or were abandoned. Answers for them are
    /// refused from now on.
    Cancel(Vec<String>),
    /// A fuel slice ended: yield to other work, then poll again.
    Pause,
    /// Nothing to do until an answer arrives or `deadline` passes; poll again then.
    Waiting {
        /// The earliest per-call timeout or the envelope's deadline, if any, on the host's
        /// clock.
        deadline: Option<Duration>,
    },
    /// Write this record durably, then call [`Envelope::journal_written`](crate::Envelope::journal_written).
    Journal(JournalRecord),
    /// The envelope settled; later polls repeat it.
    Settled(Box<Outcome>),
}

/// How a dispatched call failed on the host's side (not a tool's own `isError` result).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Failure {
    /// The handler panicked. The text is for the host's log only: the guest and the model
    /// get a fixed message.
    Panicked(String),
    /// The host's own timer fired after `ms` milliseconds.
    TimedOut {
        /// The timeout.
        ms: u64,
    },
    /// The host could not run the tool; the message reaches the guest.
    Host(String),
}

/// A host's misuse of the envelope; nothing changed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EnvelopeError {
    /// No call with this id was ever issued by this envelope.
    #[error("no call `{0}` was issued by this envelope")]
    UnknownCall(String),
    /// The call exists but does not await this answer.
    #[error("call `{id}` is not awaiting {expected} (it is {state})")]
    NotAwaiting {
        /// The call.
        id: String,
        /// What the host tried to give: `a permission decision` or `a result`.
        expected: &'static str,
        /// Where the call stands: `queued`, `awaiting permission`, `allowed`, `running`,
        /// or its terminal audit status (`success`, `cancelled`, ...).
        state: String,
    },
    /// The envelope has settled; it takes no more answers.
    #[error("the envelope has settled")]
    Settled,
    /// No journal record was asked for.
    #[error("no journal record is awaiting acknowledgement")]
    NoJournalRecord,
    /// Only a run that records its journal can pause ([`EnvelopeOptions::record`]).
    #[error("the run keeps no journal, so it cannot pause (EnvelopeOptions::record)")]
    NotRecorded,
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
