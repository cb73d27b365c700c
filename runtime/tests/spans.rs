//! The runtime's `tracing` spans (spec/reference/observability.md), seen by a real
//! `tracing-subscriber` registry with a small recording layer: a `ptc.tool_call` span per
//! run with its settlement attributes, and one `execute_tool` child per nested call with
//! the GenAI attributes, whose lifetimes overlap for the calls of a `parallel`; arguments
//! and results only when the host opts in; `error.type` for a failed and a timed-out call.

use ptc_runtime::{Registry, RunOptions, Runner, ToolContract, ToolRequestCtx, ToolResult};
use ptc_vm::Limits;
use serde_json::json;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing_subscriber::layer::{Context, SubscriberExt as _};
use tracing_subscriber::registry::LookupSpan;

/// One span as the layer saw it.
#[derive(Debug, Clone)]
struct Seen {
    name: &'static str,
    parent: Option<u64>,
    fields: HashMap<String, String>,
    opened: Instant,
    closed: Option<Instant>,
}

#[derive(Default, Clone)]
struct Recorder(Arc<Mutex<HashMap<u64, Seen>>>);

struct Fields<'a>(&'a mut HashMap<String, String>);

impl Visit for Fields<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.insert(field.name().to_owned(), format!("{value:?}"));
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.to_owned());
    }
}

impl<S: tracing::Subscriber + for<'a> LookupSpan<'a>> tracing_subscriber::Layer<S> for Recorder {
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        let parent = ctx
            .span(id)
            .and_then(|s| s.parent())
            .map(|p| p.id().into_u64());
        let mut fields = HashMap::new();
        attrs.record(&mut Fields(&mut fields));
        let seen = Seen {
            name: attrs.metadata().name(),
            parent,
            fields,
            opened: Instant::now(),
            closed: None,
        };
        self.0.lock().unwrap().insert(id.into_u64(), seen);
    }
    fn on_record(&self, id: &Id, values: &Record<'_>, _ctx: Context<'_, S>) {
        if let Some(seen) = self.0.lock().unwrap().get_mut(&id.into_u64()) {
            values.record(&mut Fields(&mut seen.fields));
        }
    }
    fn on_close(&self, id: Id, _ctx: Context<'_, S>) {
        if let Some(seen) = self.0.lock().unwrap().get_mut(&id.into_u64()) {
            seen.closed = Some(Instant::now());
        }
    }
}

fn schema() -> serde_json::Value {
    json!({"type": "object", "properties": {"ms": {"type": "integer"}, "value": {"type": "string"}}})
}

/// `Probe` answers its :value after :ms; `Fails` answers an error after :ms.
fn runner() -> Runner {
    let mut registry = Registry::new();
    registry
        .register(
            ToolContract::new("Probe", "Echoes its value.", schema()),
            |request: ToolRequestCtx| async move {
                let ms = request.arguments["ms"].as_u64().unwrap_or(0);
                tokio::time::sleep(Duration::from_millis(ms)).await;
                ToolResult::text(request.arguments["value"].as_str().unwrap_or("").to_owned())
            },
        )
        .unwrap();
    registry
        .register(
            ToolContract::new("Fails", "Fails.", schema()),
            |request: ToolRequestCtx| async move {
                let ms = request.arguments["ms"].as_u64().unwrap_or(0);
                tokio::time::sleep(Duration::from_millis(ms)).await;
                ToolResult::error("no such thing")
            },
        )
        .unwrap();
    Runner::new(Arc::new(registry))
}

/// Runs `script` under a subscriber with the recording layer; every span it saw.
async fn traced(runner: &Runner, script: &str, id: &str) -> Vec<(u64, Seen)> {
    let recorder = Recorder::default();
    let subscriber = tracing_subscriber::registry().with(recorder.clone());
    let _guard = tracing::subscriber::set_default(subscriber);
    let outcome = runner.run(script, RunOptions::new().id(id)).await;
    drop(outcome);
    let mut spans: Vec<_> = recorder.0.lock().unwrap().clone().into_iter().collect();
    spans.sort_by_key(|(_, seen)| seen.opened);
    spans
}

fn field<'a>(seen: &'a Seen, name: &str) -> Option<&'a str> {
    seen.fields.get(name).map(String::as_str)
}

#[tokio::test(flavor = "current_thread")]
async fn a_parallel_of_two_calls_is_a_run_span_with_two_overlapping_children() {
    let runner = runner();
    let spans = traced(
        &runner,
        r#"(parallel (Probe :value "a" :ms 120) (Fails :ms 60))"#,
        "env-1",
    )
    .await;
    let runs: Vec<_> = spans
        .iter()
        .filter(|(_, s)| s.name == "ptc.tool_call")
        .collect();
    assert_eq!(runs.len(), 1, "{spans:#?}");
    let (run_id, run) = runs[0];
    assert_eq!(field(run, "ptc.envelope.id"), Some("env-1"));
    assert_eq!(field(run, "ptc.outcome"), Some("completed"));
    assert_eq!(field(run, "ptc.tool_calls"), Some("2"));
    assert!(
        field(run, "ptc.fuel_used").is_some_and(|f| f != "0"),
        "{run:?}"
    );
    assert!(field(run, "ptc.retained_bytes").is_some(), "{run:?}");
    assert_eq!(field(run, "error.type"), None);
    assert!(run.closed.is_some());

    let calls: Vec<_> = spans
        .iter()
        .filter(|(_, s)| s.name == "execute_tool")
        .collect();
    assert_eq!(calls.len(), 2, "{spans:#?}");
    let by_tool = |tool: &str| {
        calls
            .iter()
            .map(|(_, s)| s)
            .find(|s| field(s, "gen_ai.tool.name") == Some(tool))
            .unwrap()
    };
    let (probe, fails) = (by_tool("Probe"), by_tool("Fails"));
    for (span, n) in [(probe, 1), (fails, 2)] {
        assert_eq!(span.parent, Some(*run_id));
        assert_eq!(field(span, "gen_ai.operation.name"), Some("execute_tool"));
        assert_eq!(
            field(span, "gen_ai.tool.call.id"),
            Some(&*format!("env-1/{n}"))
        );
        // Content is opt-in.
        assert_eq!(field(span, "gen_ai.tool.call.arguments"), None);
        assert_eq!(field(span, "gen_ai.tool.call.result"), None);
    }
    assert_eq!(field(probe, "otel.name"), Some("execute_tool Probe"));
    assert_eq!(field(probe, "ptc.call.status"), Some("success"));
    assert_eq!(field(probe, "error.type"), None);
    assert_eq!(field(fails, "ptc.call.status"), Some("error"));
    assert_eq!(field(fails, "error.type"), Some("tool_error"));
    assert_eq!(field(fails, "otel.status_code"), Some("ERROR"));

    // They ran side by side: each opened before the other closed; each lasted its sleep.
    let (p_close, f_close) = (probe.closed.unwrap(), fails.closed.unwrap());
    assert!(probe.opened < f_close && fails.opened < p_close);
    assert!(p_close.duration_since(probe.opened) >= Duration::from_millis(120));
    let fails_took = f_close.duration_since(fails.opened);
    assert!(fails_took >= Duration::from_millis(60) && fails_took < Duration::from_millis(115));
    // The run span encloses both.
    assert!(run.opened <= probe.opened && run.closed.unwrap() >= p_close);
}

#[tokio::test(flavor = "current_thread")]
async fn content_is_recorded_on_opt_in_and_timeouts_and_failures_are_typed() {
    let runner = runner().with_traced_tool_content(true).with_limits(Limits {
        tool_timeout_ms: Some(50),
        ..Limits::default()
    });
    let spans = traced(
        &runner,
        r#"(list (Probe :value "hello" :ms 0) (Probe :value "late" :ms 500))"#,
        "env-2",
    )
    .await;
    let calls: Vec<_> = spans
        .iter()
        .map(|(_, s)| s)
        .filter(|s| s.name == "execute_tool")
        .collect();
    assert_eq!(calls.len(), 2, "{spans:#?}");
    assert_eq!(
        field(calls[0], "gen_ai.tool.call.arguments"),
        Some(r#"{"value":"hello","ms":0}"#)
    );
    assert_eq!(field(calls[0], "gen_ai.tool.call.result"), Some("hello"));
    assert_eq!(field(calls[1], "error.type"), Some("timeout"));
    assert!(field(calls[1], "gen_ai.tool.call.result").is_some_and(|r| r.contains("timed out")));
    assert!(calls.iter().all(|c| c.closed.is_some()));

    // A script that does not compile is still one settled run span, with its error kind.
    let spans = traced(&runner, "(Probe", "env-3").await;
    let run = &spans
        .iter()
        .find(|(_, s)| s.name == "ptc.tool_call")
        .unwrap()
        .1;
    assert_eq!(field(run, "ptc.outcome"), Some("script-error"));
    assert!(field(run, "error.type").is_some());
    assert_eq!(field(run, "otel.status_code"), Some("ERROR"));
}

/// `RunOptions::parent_span`: the run's span is a child of the given span, not of the span
/// current at the call; without it, of the current one.
#[tokio::test(flavor = "current_thread")]
async fn a_host_given_parent_span_is_the_run_spans_parent() {
    let runner = runner();
    let recorder = Recorder::default();
    let subscriber = tracing_subscriber::registry().with(recorder.clone());
    let _guard = tracing::subscriber::set_default(subscriber);
    let turn = tracing::info_span!("model.turn");
    let other = tracing::info_span!("elsewhere");
    let turn_id = turn.id().unwrap().into_u64();
    let other_id = other.id().unwrap().into_u64();
    let script = r#"(Probe :value "a" :ms 1)"#;
    {
        let _entered = other.enter();
        let options = RunOptions::new().id("given").parent_span(turn.clone());
        drop(runner.run(script, options).await);
        drop(runner.run(script, RunOptions::new().id("current")).await);
    }
    let spans = recorder.0.lock().unwrap().clone();
    let run_of = |id: &str| {
        spans
            .iter()
            .find(|(_, s)| {
                s.name == "ptc.tool_call" && s.fields.values().any(|v| v.trim_matches('"') == id)
            })
            .map(|(k, s)| (*k, s.clone()))
            .unwrap_or_else(|| panic!("no run span for {id}: {spans:#?}"))
    };
    let (given, given_span) = run_of("given");
    assert_eq!(given_span.parent, Some(turn_id));
    let (_, current_span) = run_of("current");
    assert_eq!(current_span.parent, Some(other_id));
    let calls: Vec<_> = spans
        .values()
        .filter(|s| s.name == "execute_tool" && s.parent == Some(given))
        .collect();
    assert_eq!(
        calls.len(),
        1,
        "the nested call stays under the run: {spans:#?}"
    );
}
