//! How an envelope settles: the outcome of a completed, direct, failed, denied,
//! interrupted or timed-out script, the result cap, and the settled journal record.
//!
//! Invariants:
//! - Every outcome text except a direct call's own result is capped at
//!   [`crate::MAX_RESULT_CHARS`] characters; the host's JSON `value` is never cut.
//! - When the envelope settles no call is left `queued` or `running` in the audit.
//! - Exactly one final (`live: false`) progress snapshot is taken, after the settled
//!   record was acknowledged.

use super::{Envelope, Phase};
use crate::audit::{self, Status};
use crate::convert;
use crate::errors::ErrorKind;
use crate::journal::{JournalRecord, JournalState};
use crate::outcome::{Outcome, OutcomeError, OutcomeKind, RunStats, cap_text};
use ptc_vm::Value;
use std::sync::Arc;

/// The outcome of a script that never started.
pub(super) fn refused_outcome(id: &str, kind: ErrorKind, message: &str) -> Outcome {
    Outcome {
        id: id.into(),
        kind: OutcomeKind::ScriptError,
        text: cap_text(format!("Error: {message}")),
        value: None,
        error: Some(Box::new(OutcomeError::new(kind, message))),
        direct: None,
        direct_result: None,
        journal: None,
        calls: Vec::new(),
        notes: Box::default(),
        stats: RunStats::default(),
    }
}

/// The settled record of `outcome`, whose audit is `calls`.
pub(super) fn settled_record(
    id: &str,
    script: &str,
    outcome: &Outcome,
    calls: &[crate::audit::AuditRecord],
) -> JournalRecord {
    JournalRecord {
        id: id.to_owned(),
        state: JournalState::Settled,
        expression: script.to_owned(),
        outcome: Some(outcome.kind.as_str().to_owned()),
        result: Some(outcome.text.clone()),
        calls: calls.to_vec(),
    }
}

/// `outcome` turned into the `checkpoint` script error of a settled record that could not
/// be written twice; it keeps the audit.
pub(super) fn persist_failed(mut outcome: Outcome) -> Outcome {
    let message = "ToolCall final audit could not be persisted";
    outcome.kind = OutcomeKind::ScriptError;
    outcome.text = format!("Error: {message}");
    outcome.value = None;
    outcome.error = Some(Box::new(OutcomeError::new(ErrorKind::Journal, message)));
    outcome
}

/// The start record could not be written: the script never runs.
pub(super) fn start_failed(envelope: &mut Envelope) {
    let mut outcome = envelope.outcome(
        OutcomeKind::ScriptError,
        "Error: ToolCall audit checkpoint could not be persisted".to_owned(),
    );
    outcome.error = Some(Box::new(OutcomeError::new(
        ErrorKind::Journal,
        "ToolCall audit checkpoint could not be persisted",
    )));
    envelope.finish(Box::new(outcome));
}

impl Envelope {
    fn stats(&self) -> RunStats {
        let stats = self.machine.as_ref().map(ptc_vm::Machine::stats);
        RunStats {
            fuel_used: stats.map_or(0, |s| s.fuel_used),
            tool_calls: stats.map_or(0, |s| s.tool_calls),
            elapsed_ms: self.elapsed_ms().saturating_add(self.prior_ms()),
        }
    }

    /// An outcome without its audit and notes: [`Envelope::finish`] moves them in.
    pub(super) fn outcome(&self, kind: OutcomeKind, text: String) -> Outcome {
        Outcome {
            id: Arc::clone(&self.id),
            kind,
            text,
            value: None,
            error: None,
            direct: self.direct.clone(),
            direct_result: None,
            journal: None,
            calls: Vec::new(),
            notes: Box::default(),
            stats: self.stats(),
        }
    }

    /// The script finished with `value`.
    pub(super) fn completed(&mut self, value: &Value) {
        let Some(machine) = self.machine.as_ref() else {
            return;
        };
        let text = cap_text(machine.render(value));
        let json = convert::to_json(value, machine.symbols(), machine.limits()).unwrap_or_default();
        let mut outcome = self.outcome(OutcomeKind::Completed, text);
        outcome.direct = None;
        outcome.value = Some(Box::new(json));
        self.conclude(outcome);
    }

    /// The script's one direct call ended with guest value `value`.
    pub(super) fn direct_completed(&mut self, value: &Value) {
        let mut result = self
            .cold
            .as_mut()
            .and_then(|cold| cold.direct_result.take());
        let failed = self
            .calls
            .first()
            .is_some_and(|c| c.status != Status::Success);
        // A result the tool called a success but the runtime refused (over the value
        // budget, unconvertible) reports the refusal, not the refused output.
        if failed && result.as_ref().is_some_and(|r| !r.is_error) {
            result = None;
        }
        let text = match &result {
            Some(result) => result.joined_text(),
            None => self
                .calls
                .first()
                .and_then(|c| c.preview.clone())
                .or_else(|| self.machine.as_ref().map(|m| m.render(value)))
                .unwrap_or_default(),
        };
        let kind = if failed {
            OutcomeKind::ToolError
        } else {
            OutcomeKind::Completed
        };
        let mut outcome = self.outcome(kind, text.clone());
        if failed {
            let message = text.strip_prefix("Error: ").unwrap_or(&text).to_owned();
            outcome.error = Some(Box::new(OutcomeError::new(ErrorKind::ToolError, message)));
        } else {
            outcome.value = Some(Box::new(
                match result.as_ref().and_then(|r| r.structured.clone()) {
                    Some(json) => json,
                    None => serde_json::Value::String(text),
                },
            ));
        }
        outcome.direct_result = result.map(Box::new);
        self.conclude(outcome);
    }

    /// The host cancelled the envelope.
    pub(super) fn interrupted(&mut self) {
        self.abandon("Cancelled by request");
        let summary = if self.calls.is_empty() {
            String::new()
        } else {
            audit::summary(&self.calls)
        };
        self.settle_error(
            OutcomeKind::Interrupted,
            ErrorKind::Interrupted,
            "script interrupted",
            summary,
        );
    }

    /// The envelope's wall-clock bound (`seconds`, tool time included) ran out.
    pub(super) fn time_out_envelope(&mut self) {
        self.abandon("Cancelled: the script's time budget ran out");
        let summary = if self.calls.is_empty() {
            String::new()
        } else {
            audit::summary(&self.calls)
        };
        let seconds = self.limits().seconds.unwrap_or_default();
        let steps = self.stats().fuel_used;
        let message =
            format!("Script exceeded its time budget of {seconds} seconds after {steps} steps");
        self.settle_error(
            OutcomeKind::ScriptError,
            ErrorKind::Budget(crate::Budget::Time),
            &message,
            summary,
        );
    }

    /// Settles with a typed error; unfinished calls become `interrupted`.
    pub(super) fn settle_error(
        &mut self,
        kind: OutcomeKind,
        error_kind: ErrorKind,
        message: &str,
        suffix: String,
    ) {
        for record in &mut self.calls {
            if !record.status.is_terminal() {
                record.status = Status::Interrupted;
                record.preview = Some("Interrupted after script failure".to_owned());
            }
        }
        let text = cap_text(format!("Error: {message}{suffix}"));
        let mut outcome = self.outcome(kind, text);
        outcome.error = Some(Box::new(OutcomeError::new(error_kind, message)));
        self.conclude(outcome);
    }

    /// Settles with `outcome`, through the settled journal record when the journal is on.
    pub(super) fn conclude(&mut self, outcome: Outcome) {
        // Whatever suspension was being serviced is over (the phase changes below).
        if self.options.journal {
            self.phase = Phase::Persisting {
                outcome: Box::new(outcome),
                failures: 0,
            };
        } else {
            self.finish(Box::new(outcome));
        }
    }

    /// The final state: the last snapshot, then [`Phase::Settled`] with the audit and the
    /// notes moved into the outcome (nothing changes them any more).
    pub(super) fn finish(&mut self, mut outcome: Box<Outcome>) {
        self.report(false);
        outcome.journal = self.take_journal(&outcome);
        outcome.calls = std::mem::take(&mut self.calls);
        outcome.notes = self
            .cold
            .as_mut()
            .map(|cold| std::mem::take(&mut cold.notes).into_boxed_slice())
            .unwrap_or_default();
        if let Some(mut trace) = self.cold.as_mut().and_then(|cold| cold.trace.take()) {
            let retained = self
                .machine
                .as_ref()
                .map_or(0, |m| m.stats().retained_bytes);
            trace.settle(&outcome, retained);
        }
        self.phase = Phase::Settled(outcome);
        if let Some(machine) = self.machine.as_mut() {
            machine.close();
        }
    }
}
