//! The envelope's `tracing` spans (spec/reference/observability.md): one `ptc.tool_call`
//! span per run, opened when the envelope starts (under the caller's current span) and
//! closed when it settles, and one child span per nested call, opened when the call is
//! launched and closed when it ends, so that parallel calls overlap as they really ran.
//!
//! Only `tracing` is used here; exporting (OpenTelemetry) is the binaries' business. The
//! span fields follow the OpenTelemetry GenAI conventions (`gen_ai.*`, `error.type`) and
//! the names `tracing-opentelemetry` reads (`otel.name`, `otel.kind`, `otel.status_code`).
//!
//! Invariants:
//! - With no subscriber interested (the usual case), nothing is allocated: the envelope
//!   keeps no [`Trace`] at all.
//! - A call's span is closed exactly once, at the first terminal status it reaches (or at
//!   settlement, for a call the settlement ended).
//! - Arguments and results are recorded only when the host opted in
//!   ([`Envelope::record_tool_content`](super::Envelope::record_tool_content)), and then
//!   bounded like the audit (arguments as the audit keeps them, results as its preview).

use crate::audit::{AuditRecord, Status};
use crate::outcome::Outcome;
use tracing::Span;
use tracing::field::Empty;

/// The span name of a run (the OpenTelemetry name is the same).
pub const RUN_SPAN: &str = "ptc.tool_call";
/// The `tracing` name of a nested call's span; its OpenTelemetry name (`otel.name`) is
/// `execute_tool {tool}`.
pub const CALL_SPAN: &str = "execute_tool";

/// The spans of one run.
#[derive(Debug)]
pub(super) struct Trace {
    run: Span,
    /// By call index: the open span of each call launched and not yet ended.
    calls: Vec<Option<Span>>,
    /// By call index: an `error.type` more precise than the status (a timeout).
    error_types: Vec<Option<&'static str>>,
    /// Record arguments and results.
    pub(super) content: bool,
}

impl Trace {
    /// The run's span, under the current span; `None` when no subscriber wants it.
    pub(super) fn start(id: &str) -> Option<Box<Trace>> {
        let run = tracing::info_span!(
            target: "ptc",
            "ptc.tool_call",
            otel.kind = "internal",
            ptc.envelope.id = id,
            ptc.outcome = Empty,
            error.type = Empty,
            otel.status_code = Empty,
            ptc.fuel_used = Empty,
            ptc.tool_calls = Empty,
            ptc.retained_bytes = Empty,
            ptc.elapsed_ms = Empty,
        );
        if run.is_disabled() {
            return None;
        }
        Some(Box::new(Trace {
            run,
            calls: Vec::new(),
            error_types: Vec::new(),
            content: false,
        }))
    }

    /// Opens call `call`'s span (it was just launched).
    pub(super) fn open(&mut self, call: usize, record: &AuditRecord) {
        let span = tracing::info_span!(
            target: "ptc",
            parent: &self.run,
            "execute_tool",
            otel.name = format!("execute_tool {}", record.tool),
            otel.kind = "internal",
            gen_ai.operation.name = "execute_tool",
            gen_ai.tool.name = &*record.tool,
            gen_ai.tool.call.id = &*record.id,
            gen_ai.tool.call.arguments = Empty,
            gen_ai.tool.call.result = Empty,
            ptc.call.status = Empty,
            error.type = Empty,
            otel.status_code = Empty,
        );
        if self.content
            && let Some(args) = &record.args
        {
            span.record("gen_ai.tool.call.arguments", args.to_string());
        }
        if self.calls.len() <= call {
            self.calls.resize_with(call + 1, || None);
        }
        if let Some(slot) = self.calls.get_mut(call) {
            *slot = Some(span);
        }
    }

    /// Call `call` timed out (it ends as an error next).
    pub(super) fn timed_out(&mut self, call: usize) {
        if self.error_types.len() <= call {
            self.error_types.resize(call + 1, None);
        }
        if let Some(slot) = self.error_types.get_mut(call) {
            *slot = Some("timeout");
        }
    }

    /// Closes call `call`'s span, if open, with its record's final state.
    pub(super) fn close(&mut self, call: usize, record: &AuditRecord) {
        let Some(span) = self.calls.get_mut(call).and_then(Option::take) else {
            return;
        };
        span.record("ptc.call.status", record.status.as_str());
        let error_type = match record.status {
            Status::Success | Status::Queued | Status::Running => None,
            Status::Error => Some(
                self.error_types
                    .get(call)
                    .copied()
                    .flatten()
                    .unwrap_or("tool_error"),
            ),
            Status::Denied => Some("denied"),
            Status::Cancelled => Some("cancelled"),
            Status::Interrupted => Some("interrupted"),
            Status::Paused => Some("paused"),
        };
        if let Some(error_type) = error_type {
            span.record("error.type", error_type);
            span.record("otel.status_code", "ERROR");
        }
        if self.content
            && let Some(preview) = &record.preview
        {
            span.record("gen_ai.tool.call.result", preview.as_str());
        }
    }

    /// Closes every call span still open and records the run's outcome on its span, which
    /// closes when the trace is dropped.
    pub(super) fn settle(&mut self, outcome: &Outcome, retained_bytes: u64) {
        for (call, record) in outcome.calls.iter().enumerate() {
            self.close(call, record);
        }
        // Recorded, then closed here: the envelope may be kept after it settled.
        let run = std::mem::replace(&mut self.run, Span::none());
        run.record("ptc.outcome", outcome.kind.as_str());
        if let Some(error) = &outcome.error {
            run.record("error.type", error.kind.as_str());
            run.record("otel.status_code", "ERROR");
        }
        run.record("ptc.fuel_used", outcome.stats.fuel_used);
        run.record("ptc.tool_calls", outcome.stats.tool_calls);
        run.record("ptc.retained_bytes", retained_bytes);
        run.record("ptc.elapsed_ms", outcome.stats.elapsed_ms);
    }
}
