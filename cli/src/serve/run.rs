//! One `run` request of `ptc serve`: its task drives a sans-IO [`Envelope`], turning each
//! dispatched call into a `tool/call` request to the host and each call the envelope
//! abandons into a `notifications/cancelled`, and decodes the host's answers (a
//! `CallToolResult`, a bare JSON value, `{"denied": ...}` or a JSON-RPC error) into what
//! the envelope is fed.
//!
//! Invariants: a run's pending `tool/call` ids are forgotten when it settles, so a late
//! answer is ignored (with a log line) rather than fed to another run; every run answers
//! its `run` request exactly once, with the settled outcome.

use super::params::{Refusal, TraceContext, expression, limits, registry, trace_context};
use super::{Answer, INVALID_REQUEST, MAX_RUNS, RpcId, Shared, request_id};
use ptc_runtime::core::MediaRef;
use ptc_runtime::core::envelope::{Envelope, EnvelopeConfig, EnvelopeOptions, Event, Failure};
use ptc_runtime::{CancelToken, Content, ToolResult};
use serde_json::{Value as Json, json};
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;
use tokio::sync::mpsc;

/// Validates a `run` request and returns its task.
pub(super) fn start_run(
    shared: &Arc<Shared>,
    id: &RpcId,
    params: &Json,
) -> Result<impl Future<Output = ()> + Send + 'static, Refusal> {
    let source = expression(params)?.to_owned();
    let registry = Arc::new(registry(params)?);
    let limits = limits(params)?;
    let trace = trace_context(params)?;
    let key = id.clone();
    let cancel = CancelToken::new();
    {
        let Ok(mut runs) = shared.runs.lock() else {
            return Err((INVALID_REQUEST, "the server is shutting down".into()));
        };
        if runs.contains_key(&key) {
            return Err((
                INVALID_REQUEST,
                format!("Invalid Request: run {} is already active", key.text()),
            ));
        }
        if runs.len() >= MAX_RUNS {
            return Err((
                INVALID_REQUEST,
                format!("Invalid Request: {MAX_RUNS} runs are already active"),
            ));
        }
        runs.insert(key.clone(), cancel.clone());
    }
    let envelope_id = params
        .get("id")
        .and_then(Json::as_str)
        .map_or_else(ptc_runtime::core::fresh_id, str::to_owned);
    // The run's clock: the envelope reads none; it is told durations since `started`.
    let started = Instant::now();
    let config = EnvelopeConfig {
        catalog: registry,
        limits: limits.into(),
        id: envelope_id.into(),
        options: EnvelopeOptions {
            ask_permission: false,
            ..EnvelopeOptions::default()
        },
        clock: Some(Arc::new(move || started.elapsed())),
    };
    // The run's span opens here, under the host's context when the engine exports.
    let envelope = crate::otel::with_remote_parent(
        trace.as_ref().map(|t| t.traceparent.as_str()),
        trace.as_ref().and_then(|t| t.tracestate.as_deref()),
        || match &shared.cache {
            Some(cache) => Envelope::compile_cached(config, &source, cache, started.elapsed()),
            None => Envelope::compile(config, &source, started.elapsed()),
        },
    );
    let shared = shared.clone();
    let id = id.clone();
    Ok(async move {
        let outcome = drive(&shared, &id, envelope, &cancel, started, trace.as_ref()).await;
        if let Ok(mut runs) = shared.runs.lock() {
            runs.remove(&key);
        }
        shared.respond(&id, outcome.to_json());
    })
}

/// Drives one run's envelope, exchanging `tool/call` frames with the host.
async fn drive(
    shared: &Shared,
    run: &RpcId,
    mut envelope: Envelope,
    cancel: &CancelToken,
    started: Instant,
    trace: Option<&TraceContext>,
) -> ptc_runtime::Outcome {
    let (answers_tx, mut answers) = mpsc::unbounded_channel::<(String, Answer)>();
    // Our JSON-RPC id for each call the host holds.
    let mut held: HashMap<String, u64> = HashMap::new();
    loop {
        if cancel.is_cancelled() {
            envelope.cancel();
        }
        match envelope.poll(started.elapsed()) {
            Event::Settled(outcome) => {
                forget(shared, held.values());
                return *outcome;
            }
            Event::Pause => tokio::task::yield_now().await,
            Event::Journal(_) => {
                let _ = envelope.journal_written(true);
            }
            Event::Permission(calls) => {
                for call in calls {
                    let _ = envelope.allow(&call.id);
                }
            }
            Event::Dispatch(calls) => {
                for call in calls {
                    let request = shared.next_request.fetch_add(1, Ordering::Relaxed);
                    if let Ok(mut pending) = shared.pending.lock() {
                        pending.insert(request, (answers_tx.clone(), call.id.to_string()));
                    }
                    held.insert(call.id.to_string(), request);
                    // Built as text so that the run's id is exactly the host's.
                    shared.out.send(format!(
                        r#"{{"jsonrpc":"2.0","id":{},"method":"tool/call","params":{{"run":{},"id":{},"name":{},"arguments":{}{}}}}}"#,
                        json!(request_id(request)),
                        run.text(),
                        json!(call.id),
                        json!(call.tool),
                        json!(call.arguments),
                        call_trace(&call.id, trace),
                    ));
                }
            }
            Event::Cancel(ids) => {
                for call in ids {
                    if let Some(request) = held.remove(&call) {
                        forget(shared, [&request]);
                        shared.send(&json!({
                            "jsonrpc": "2.0", "method": "notifications/cancelled",
                            "params": {"requestId": request_id(request),
                                       "reason": "the run no longer needs this call"},
                        }));
                    }
                }
            }
            Event::Waiting { deadline } => {
                let sleep = async move {
                    match deadline {
                        Some(deadline) => {
                            let at = started.checked_add(deadline).unwrap_or(started);
                            tokio::time::sleep_until(at.into()).await;
                        }
                        None => std::future::pending().await,
                    }
                };
                tokio::select! {
                    biased;
                    () = cancel.cancelled() => envelope.cancel(),
                    Some((call, answer)) = answers.recv() => {
                        held.remove(&call);
                        let now = started.elapsed();
                        if let Err(error) = feed(&mut envelope, now, &call, answer) {
                            log_line!("ptc serve: answer for {call} ignored: {error}");
                        }
                    }
                    () = sleep => {}
                }
            }
            // An event added after this loop was written: yield, then poll again.
            _ => tokio::task::yield_now().await,
        }
    }
}

/// The `traceparent` (and `tracestate`) fields of a `tool/call`: the context of the call's
/// `execute_tool` span when the engine exports; otherwise the run's own, forwarded unchanged
/// (as a W3C intermediary that does not trace does); nothing when the run had none.
fn call_trace(call: &str, run: Option<&TraceContext>) -> String {
    let context = crate::otel::context_of_call(call)
        .or_else(|| run.map(|t| (t.traceparent.clone(), t.tracestate.clone())));
    match context {
        Some((traceparent, Some(tracestate))) => format!(
            r#","traceparent":{},"tracestate":{}"#,
            json!(traceparent),
            json!(tracestate)
        ),
        Some((traceparent, None)) => format!(r#","traceparent":{}"#, json!(traceparent)),
        None => String::new(),
    }
}

fn forget<'a>(shared: &Shared, requests: impl IntoIterator<Item = &'a u64>) {
    if let Ok(mut pending) = shared.pending.lock() {
        for request in requests {
            pending.remove(request);
        }
    }
}

/// Feeds the host's answer for `call`.
fn feed(
    envelope: &mut Envelope,
    now: std::time::Duration,
    call: &str,
    answer: Answer,
) -> Result<(), ptc_runtime::core::EnvelopeError> {
    match answer {
        Answer::Error(message) => envelope.fail(now, call, Failure::Host(message)),
        Answer::Result(Json::Object(object))
            if object.len() == 1 && object.get("denied").is_some_and(Json::is_string) =>
        {
            let reason = object
                .get("denied")
                .and_then(Json::as_str)
                .unwrap_or_default();
            envelope.deny(call, reason)
        }
        Answer::Result(value) => envelope.complete(now, call, tool_result(value)),
    }
}

/// A `CallToolResult` (an object with `content`, `structuredContent` or `isError`), or a
/// bare JSON value as shorthand for `structuredContent`.
fn tool_result(value: Json) -> ToolResult {
    let is_call_result = value.as_object().is_some_and(|o| {
        o.get("content").is_some_and(Json::is_array)
            || o.contains_key("structuredContent")
            || o.get("isError").is_some_and(Json::is_boolean)
    });
    if !is_call_result {
        return ToolResult::json(value);
    }
    let mut result = ToolResult {
        structured: value.get("structuredContent").cloned(),
        is_error: value
            .get("isError")
            .and_then(Json::as_bool)
            .unwrap_or(false),
        ..ToolResult::default()
    };
    for block in value
        .get("content")
        .and_then(Json::as_array)
        .into_iter()
        .flatten()
    {
        if let Some(content) = content_block(block) {
            result.content.push(content);
        }
    }
    if result.content.is_empty()
        && let Some(structured) = &result.structured
    {
        result.content.push(Content::Text {
            text: structured.to_string(),
        });
    }
    for note in value
        .get("notes")
        .and_then(Json::as_array)
        .into_iter()
        .flatten()
    {
        if let Some(note) = note.as_str() {
            result.notes.push(note.to_owned());
        }
    }
    result
}

/// One MCP content block: text, or a media reference (image, audio, resource link,
/// embedded resource) without its payload.
fn content_block(block: &Json) -> Option<Content> {
    let text = |key: &str| block.get(key).and_then(Json::as_str).map(str::to_owned);
    match block.get("type").and_then(Json::as_str)? {
        "text" => Some(Content::Text {
            text: text("text")?,
        }),
        "image" | "audio" => Some(Content::Media(MediaRef {
            mime: text("mimeType").unwrap_or_else(|| "application/octet-stream".into()),
            uri: None,
            name: text("name"),
            data: None,
        })),
        "resource_link" => Some(Content::Media(MediaRef {
            mime: text("mimeType").unwrap_or_else(|| "application/octet-stream".into()),
            uri: text("uri"),
            name: text("name"),
            data: None,
        })),
        "resource" => {
            let resource = block.get("resource")?;
            let field = |key: &str| resource.get(key).and_then(Json::as_str).map(str::to_owned);
            match field("text") {
                Some(text) => Some(Content::Text { text }),
                None => Some(Content::Media(MediaRef {
                    mime: field("mimeType").unwrap_or_else(|| "application/octet-stream".into()),
                    uri: field("uri"),
                    name: None,
                    data: None,
                })),
            }
        }
        _ => None,
    }
}
