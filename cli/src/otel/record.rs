//! The `tracing` layer that turns the runtime's spans into OpenTelemetry metrics when they
//! close, and that keeps, by audit id, the open `execute_tool` spans whose W3C context an
//! upstream call carries (spec/reference/observability.md). The runtime itself has no
//! OpenTelemetry dependency: everything here is read from its span fields.
//!
//! Metrics (names and attributes in spec/reference/observability.md):
//! `ptc.tool_call.duration`, `ptc.tool_call.active`, `ptc.tool.call.duration`,
//! `ptc.budget.exhausted`.

use opentelemetry::KeyValue;
use opentelemetry::metrics::{Counter, Histogram, Meter, UpDownCounter};
use opentelemetry::propagation::TextMapPropagator as _;
use opentelemetry_sdk::propagation::TraceContextPropagator;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing_opentelemetry::OpenTelemetrySpanExt as _;
use tracing_subscriber::layer::Context;
use tracing_subscriber::registry::LookupSpan;

/// The error kinds that mean a budget ran out (spec/reference/errors).
const BUDGETS: &[&str] = &[
    "step",
    "time",
    "tool-call",
    "value",
    "retained-value",
    "atomic-work",
    "stack",
];

/// The open `execute_tool` spans by audit id.
type Calls = Arc<Mutex<HashMap<String, Id>>>;

/// What a span of ours has told so far, kept in its extensions.
#[derive(Debug, Default)]
struct Seen {
    started: Option<Instant>,
    run: bool,
    call_id: Option<String>,
    tool: Option<String>,
    status: Option<String>,
    outcome: Option<String>,
    error_type: Option<String>,
}

impl Visit for Seen {
    fn record_str(&mut self, field: &Field, value: &str) {
        let slot = match field.name() {
            "gen_ai.tool.call.id" => &mut self.call_id,
            "gen_ai.tool.name" => &mut self.tool,
            "ptc.call.status" => &mut self.status,
            "ptc.outcome" => &mut self.outcome,
            "error.type" => &mut self.error_type,
            _ => return,
        };
        *slot = Some(value.to_owned());
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.record_str(field, &format!("{value:?}"));
    }
}

/// The metrics layer (see the module docs).
pub struct Recorder {
    calls: Calls,
    run_duration: Histogram<f64>,
    active: UpDownCounter<i64>,
    call_duration: Histogram<f64>,
    budget: Counter<u64>,
}

impl Recorder {
    /// The layer recording into `meter`, and the propagation hook sharing its call table.
    pub fn new(meter: &Meter) -> (Recorder, Hook) {
        let calls = Calls::default();
        let recorder = Recorder {
            calls: calls.clone(),
            run_duration: meter
                .f64_histogram("ptc.tool_call.duration")
                .with_unit("s")
                .with_description("Duration of ToolCall runs")
                .build(),
            active: meter
                .i64_up_down_counter("ptc.tool_call.active")
                .with_unit("{run}")
                .with_description("ToolCall runs in flight")
                .build(),
            call_duration: meter
                .f64_histogram("ptc.tool.call.duration")
                .with_unit("s")
                .with_description("Duration of nested tool calls, by tool and status")
                .build(),
            budget: meter
                .u64_counter("ptc.budget.exhausted")
                .with_unit("{run}")
                .with_description("ToolCall runs stopped by a budget, by kind")
                .build(),
        };
        (recorder, Hook { calls })
    }
}

impl<S> tracing_subscriber::Layer<S> for Recorder
where
    S: tracing::Subscriber + for<'a> LookupSpan<'a>,
{
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        let name = attrs.metadata().name();
        let run = name == "ptc.tool_call";
        if !run && name != "execute_tool" {
            return;
        }
        let Some(span) = ctx.span(id) else { return };
        let mut seen = Seen {
            started: Some(Instant::now()),
            run,
            ..Seen::default()
        };
        attrs.record(&mut seen);
        if run {
            self.active.add(1, &[]);
        } else if let (Some(call), Ok(mut calls)) = (&seen.call_id, self.calls.lock()) {
            calls.insert(call.clone(), id.clone());
        }
        span.extensions_mut().insert(seen);
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, ctx: Context<'_, S>) {
        if let Some(span) = ctx.span(id)
            && let Some(seen) = span.extensions_mut().get_mut::<Seen>()
        {
            values.record(seen);
        }
    }

    fn on_close(&self, id: Id, ctx: Context<'_, S>) {
        let Some(span) = ctx.span(&id) else { return };
        let Some(seen) = span.extensions_mut().remove::<Seen>() else {
            return;
        };
        let seconds = seen.started.map_or(0.0, |t| t.elapsed().as_secs_f64());
        let mut attributes = Vec::with_capacity(3);
        if let Some(error_type) = &seen.error_type {
            attributes.push(KeyValue::new("error.type", error_type.clone()));
        }
        if seen.run {
            self.active.add(-1, &[]);
            if let Some(outcome) = seen.outcome {
                attributes.push(KeyValue::new("ptc.outcome", outcome));
            }
            self.run_duration.record(seconds, &attributes);
            if let Some(kind) = seen.error_type.as_deref()
                && BUDGETS.contains(&kind)
            {
                self.budget
                    .add(1, &[KeyValue::new("ptc.budget.kind", kind.to_owned())]);
            }
        } else {
            // Only this span's entry: two runs with one host-given id may overlap.
            if let (Some(call), Ok(mut calls)) = (&seen.call_id, self.calls.lock())
                && calls.get(call) == Some(&id)
            {
                calls.remove(call);
            }
            if let Some(tool) = seen.tool {
                attributes.push(KeyValue::new("gen_ai.tool.name", tool));
            }
            if let Some(status) = seen.status {
                attributes.push(KeyValue::new("ptc.call.status", status));
            }
            self.call_duration.record(seconds, &attributes);
        }
    }
}

/// The W3C propagation hook of `ptc mcp` ([`ptc_mcp::propagation`]) and `ptc serve`.
#[derive(Debug, Clone)]
pub struct Hook {
    calls: Calls,
}

impl Hook {
    /// The `traceparent` / `tracestate` of the open span `id`, if it has a valid context.
    fn of_span(id: &Id) -> Option<(String, Option<String>)> {
        let cx =
            tracing::dispatcher::get_default(|d| tracing_opentelemetry::get_otel_context(id, d))?;
        let mut carrier = HashMap::new();
        TraceContextPropagator::new().inject_context(&cx, &mut carrier);
        let traceparent = carrier.remove("traceparent")?;
        let tracestate = carrier.remove("tracestate").filter(|s| !s.is_empty());
        Some((traceparent, tracestate))
    }

    /// The W3C context of `span` (for a `tool/call` made outside a nested call).
    pub fn of(span: &tracing::Span) -> Option<(String, Option<String>)> {
        Hook::of_span(&span.id()?)
    }
}

impl Hook {
    /// The OpenTelemetry context of a W3C `traceparent` / `tracestate` (empty when
    /// malformed).
    pub fn extract(traceparent: &str, tracestate: Option<&str>) -> opentelemetry::Context {
        let mut carrier = HashMap::new();
        carrier.insert("traceparent".to_owned(), traceparent.to_owned());
        if let Some(tracestate) = tracestate {
            carrier.insert("tracestate".to_owned(), tracestate.to_owned());
        }
        TraceContextPropagator::new().extract(&carrier)
    }
}

impl ptc_mcp::propagation::TraceContext for Hook {
    fn set_parent(&self, span: &tracing::Span, traceparent: &str, tracestate: Option<&str>) {
        let _ = span.set_parent(Hook::extract(traceparent, tracestate));
    }

    fn of_call(&self, call_id: &str) -> Option<(String, Option<String>)> {
        let id = self.calls.lock().ok()?.get(call_id)?.clone();
        Hook::of_span(&id)
    }
}
