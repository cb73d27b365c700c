//! ptc's sans-IO core for JavaScript (wasm-bindgen): an [`Engine`] built once from a roster
//! and budgets, and a [`Run`] the JS driver (`js/index.js`) steps with the host's clock.
//!
//! Everything crosses as JSON text: the roster, the budgets, each event and each answer, in
//! the shapes the Python package uses (`ptc_core::host_json`). The module keeps no global
//! state; every run owns its envelope, so one run's failure never touches another.
//!
//! Invariants: no method traps the instance on any input — a malformed roster, budget or
//! answer is a thrown `Error` with the reason, a host's misuse (an unknown call id, an
//! answer after settling) is a thrown `Error` that changes nothing, and every script ends
//! in an outcome. Time is the host's: every `now_ms` is milliseconds since the run began.

#![forbid(unsafe_code)]

use ptc_core::envelope::{CallRequest, Envelope, EnvelopeConfig, EnvelopeOptions, Event};
use ptc_core::{Catalog, Failure, host_json};
use ptc_vm::Limits;
use serde_json::{Value as Json, json};
use std::sync::Arc;
use std::time::Duration;
use wasm_bindgen::prelude::*;

/// A roster and budgets, built once; runs any number of scripts.
#[wasm_bindgen]
#[derive(Debug)]
pub struct Engine {
    catalog: Arc<Catalog>,
    limits: Arc<Limits>,
}

fn error(message: impl std::fmt::Display) -> JsError {
    JsError::new(&message.to_string())
}

fn duration(now_ms: f64) -> Duration {
    if now_ms.is_finite() && now_ms > 0.0 {
        Duration::from_secs_f64(now_ms / 1000.0)
    } else {
        Duration::ZERO
    }
}

#[wasm_bindgen]
impl Engine {
    /// The engine of `tools` (a JSON list of `{name, description, inputSchema}`) under
    /// `limits` (a JSON object keyed like `ptc run --limit`, or undefined).
    ///
    /// # Errors
    /// A malformed roster or budget, an illegal or duplicate tool name, a bad schema.
    #[wasm_bindgen(constructor)]
    pub fn new(tools: &str, limits: Option<String>) -> Result<Engine, JsError> {
        let contracts = host_json::contracts_from_json(tools).map_err(error)?;
        let limits = host_json::limits_from_json(limits.as_deref()).map_err(error)?;
        let mut catalog = Catalog::new();
        for contract in contracts {
            catalog.add(contract).map_err(error)?;
        }
        Ok(Engine {
            catalog: Arc::new(catalog),
            limits: Arc::new(limits),
        })
    }

    /// The ToolCall tool's name, description and input schema, and the tool listing (JSON).
    #[must_use]
    pub fn describe(&self) -> String {
        json!({
            "name": ptc_core::listing::TOOL_NAME,
            "description": ptc_core::listing::DESCRIPTION,
            "input_schema": ptc_core::listing::input_schema(),
            "listing": ptc_core::listing::tool_listing(&self.catalog),
        })
        .to_string()
    }

    /// The static pipeline's diagnostics for `expression` (a JSON list, empty when it
    /// compiles).
    #[must_use]
    pub fn check(&self, expression: &str) -> String {
        let diagnostics = ptc_compiler::check(expression, &self.catalog.roster(), &self.limits);
        Json::Array(
            diagnostics
                .iter()
                .map(|d| {
                    json!({"code": d.code, "kind": d.kind.to_string(), "message": d.message,
                           "span": {"start": d.span.start, "end": d.span.end}})
                })
                .collect(),
        )
        .to_string()
    }

    /// Starts `expression` as envelope `id`; with `ask_permission` every call is first
    /// offered as a `permission` event. Compile errors settle the run at once.
    #[must_use]
    pub fn start(&self, expression: &str, id: &str, ask_permission: bool) -> Run {
        let config = EnvelopeConfig {
            catalog: Arc::clone(&self.catalog),
            limits: Arc::clone(&self.limits),
            id: Arc::from(id),
            options: EnvelopeOptions {
                ask_permission,
                journal: false,
                progress: false,
                record: false,
            },
            clock: None,
        };
        Run {
            envelope: Envelope::compile(config, expression, Duration::ZERO),
        }
    }
}

/// One run, stepped by the JS driver.
#[wasm_bindgen]
#[derive(Debug)]
pub struct Run {
    envelope: Envelope,
}

/// `{"kind":KIND,"calls":[{id, name, arguments, batch, position}, ...]}`, written straight
/// into the text (no JSON tree per event: this is every nested call's path).
fn calls_event(kind: &str, calls: &[CallRequest], envelope: &Envelope) -> String {
    let mut out = String::with_capacity(64 + calls.len() * 96);
    out.push_str(r#"{"kind":""#);
    out.push_str(kind);
    out.push_str(r#"","calls":["#);
    for (i, call) in calls.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(r#"{"id":"#);
        push_string(&mut out, &call.id);
        out.push_str(r#","name":"#);
        push_string(&mut out, &call.tool);
        out.push_str(r#","arguments":"#);
        out.push_str(&call.arguments.to_string());
        out.push_str(r#","batch":"#);
        match call.batch {
            Some(batch) => out.push_str(itoa::Buffer::new().format(batch)),
            None => out.push_str("null"),
        }
        out.push_str(r#","position":"#);
        out.push_str(itoa::Buffer::new().format(call.position));
        // The call's index in the envelope: what the `*_at` answers take.
        if let Some(index) = envelope.index_of(&call.id) {
            out.push_str(r#","index":"#);
            out.push_str(itoa::Buffer::new().format(index));
        }
        out.push('}');
    }
    out.push_str("]}");
    out
}

/// Appends `text` as a JSON string literal.
fn push_string(out: &mut String, text: &str) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if u32::from(c) < 0x20 => {
                out.push_str("\\u00");
                out.push(char::from(
                    b"0123456789abcdef"[(u32::from(c) >> 4) as usize & 0xf],
                ));
                out.push(char::from(b"0123456789abcdef"[u32::from(c) as usize & 0xf]));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[wasm_bindgen]
impl Run {
    /// Polls until the host must act; the event as JSON `{kind, ...}`: `permission` or
    /// `dispatch` with `calls` ({id, name, arguments, batch, position}), `cancel` with `ids`,
    /// `pause` (a fuel slice ended: yield, then step again), `waiting` with `ms` until the
    /// next deadline (or null), `settled` with `outcome` (the object `ptc run --format
    /// json` prints).
    #[must_use]
    pub fn step(&mut self, now_ms: f64) -> String {
        let now = duration(now_ms);
        loop {
            let event = match self.envelope.poll(now) {
                Event::Permission(requests) => {
                    return calls_event("permission", &requests, &self.envelope);
                }
                Event::Dispatch(requests) => {
                    return calls_event("dispatch", &requests, &self.envelope);
                }
                Event::Cancel(ids) => json!({"kind": "cancel", "ids": ids}),
                Event::Pause => json!({"kind": "pause"}),
                Event::Waiting { deadline } => {
                    let ms = deadline.map(|d| d.saturating_sub(now).as_secs_f64() * 1000.0);
                    json!({"kind": "waiting", "ms": ms})
                }
                Event::Settled(outcome) => json!({"kind": "settled", "outcome": outcome.to_json()}),
                // No journal is asked for; a newer core's event: poll again.
                _ => continue,
            };
            return event.to_string();
        }
    }

    /// Allows call `id` at the permission point.
    ///
    /// # Errors
    /// An id not awaiting a decision.
    pub fn allow(&mut self, id: &str) -> Result<(), JsError> {
        self.envelope.allow(id).map_err(error)
    }

    /// Denies call `id`: the script aborts `denied` with `reason`.
    ///
    /// # Errors
    /// An id not awaiting a decision.
    pub fn deny(&mut self, id: &str, reason: &str) -> Result<(), JsError> {
        self.envelope.deny(id, reason).map_err(error)
    }

    /// Answers call `id` with `answer` (JSON `{"value": ...}`, `{"text": ...}` or
    /// `{"error": ...}`, optional `notes`). An answer after the call's deadline counts as
    /// its timeout.
    ///
    /// # Errors
    /// A malformed answer (the call is then failed with the reason), or an id not running.
    pub fn complete(&mut self, now_ms: f64, id: &str, answer: &str) -> Result<(), JsError> {
        let now = duration(now_ms);
        let parsed = serde_json::from_str::<Json>(answer)
            .map_err(|e| e.to_string())
            .and_then(host_json::answer_to_result);
        match parsed {
            Ok(result) => self.envelope.complete(now, id, result).map_err(error),
            Err(why) => {
                let message = format!("returned data ptc cannot read: {why}");
                self.envelope
                    .fail(now, id, Failure::Host(message))
                    .map_err(error)
            }
        }
    }

    /// Answers call `id` with a text result (a handler that returned a string): the fast
    /// path, no JSON.
    ///
    /// # Errors
    /// An id not running.
    pub fn complete_text(&mut self, now_ms: f64, id: &str, text: &str) -> Result<(), JsError> {
        let result = ptc_core::ToolResult::text(text);
        self.envelope
            .complete(duration(now_ms), id, result)
            .map_err(error)
    }

    /// [`Run::complete_text`] for the call at `index` (the event's `index`): no id to look
    /// up.
    ///
    /// # Errors
    /// An index not running.
    pub fn complete_text_at(
        &mut self,
        now_ms: f64,
        index: usize,
        text: &str,
    ) -> Result<(), JsError> {
        let result = ptc_core::ToolResult::text(text);
        self.envelope
            .complete_at(duration(now_ms), index, result)
            .map_err(error)
    }

    /// Answers call `id` with structured data, `value` its JSON text (a handler that
    /// returned plain data); text that is not JSON fails the call with the reason.
    ///
    /// # Errors
    /// An id not running.
    pub fn complete_value(&mut self, now_ms: f64, id: &str, value: &str) -> Result<(), JsError> {
        let now = duration(now_ms);
        match serde_json::from_str::<Json>(value) {
            Ok(json) => self
                .envelope
                .complete(now, id, ptc_core::ToolResult::structured(json))
                .map_err(error),
            Err(why) => self
                .envelope
                .fail(
                    now,
                    id,
                    Failure::Host(format!("returned data ptc cannot read: {why}")),
                )
                .map_err(error),
        }
    }

    /// Fails call `id` on the host's side (the handler threw): the guest gets
    /// `(:error "Error: TOOL failed: MESSAGE")`.
    ///
    /// # Errors
    /// An id not running.
    pub fn fail(&mut self, now_ms: f64, id: &str, message: &str) -> Result<(), JsError> {
        self.envelope
            .fail(duration(now_ms), id, Failure::Host(message.to_owned()))
            .map_err(error)
    }

    /// Interrupts the run; the next step settles `interrupted` with the audit.
    pub fn cancel(&mut self) {
        self.envelope.cancel();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_are_json_literals() {
        for text in [
            "plain",
            "q\"uote",
            "back\\slash",
            "tab\tnew\nline\u{1}",
            "ünï ☃",
        ] {
            let mut out = String::new();
            push_string(&mut out, text);
            assert_eq!(serde_json::from_str::<String>(&out).unwrap(), text, "{out}");
        }
    }
}
