//! OpenTelemetry export of the runtime's `tracing` spans and of metrics derived from them
//! (spec/reference/observability.md), for `ptc run`, `ptc serve` and `ptc-mcp`: built only
//! with the cargo feature `otel`, and configured only by the standard variables. Without
//! the feature, or when no variable asks for it, [`init`] installs nothing and returns
//! `None`.
//!
//! Traces are exported when `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` or
//! `OTEL_EXPORTER_OTLP_ENDPOINT` is set (or `OTEL_TRACES_EXPORTER=otlp`, to the default
//! `http://localhost:4318`), unless `OTEL_TRACES_EXPORTER=none`; metrics the same with
//! `OTEL_EXPORTER_OTLP_METRICS_ENDPOINT` and `OTEL_METRICS_EXPORTER`;
//! `OTEL_SDK_DISABLED=true` turns both off. Both go over OTLP/HTTP protobuf from the SDK's
//! own threads; the service name is `OTEL_SERVICE_NAME`, else `ptc`. Only spans of target
//! `ptc` at info and above are exported. The returned [`Exporting`] flushes and shuts the
//! exporters down when dropped (so a one-shot `ptc run` exports before it exits).

#[cfg(feature = "otel")]
mod record;

/// An OpenTelemetry signal ptc exports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signal {
    /// Spans.
    Traces,
    /// Metrics.
    Metrics,
}

/// Whether the environment asks for export of `signal` (see the module docs).
#[must_use]
pub fn wanted(signal: Signal, var: impl Fn(&str) -> Option<String>) -> bool {
    let set = |name: &str| var(name).is_some_and(|v| !v.trim().is_empty());
    if var("OTEL_SDK_DISABLED").is_some_and(|v| v.trim().eq_ignore_ascii_case("true")) {
        return false;
    }
    let (exporter, endpoint) = match signal {
        Signal::Traces => ("OTEL_TRACES_EXPORTER", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"),
        Signal::Metrics => (
            "OTEL_METRICS_EXPORTER",
            "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
        ),
    };
    match var(exporter).as_deref().map(str::trim) {
        Some("none") => false,
        Some("otlp") => true,
        _ => set(endpoint) || set("OTEL_EXPORTER_OTLP_ENDPOINT"),
    }
}

#[cfg(feature = "otel")]
mod enabled {
    use super::Signal;
    use opentelemetry::metrics::MeterProvider as _;
    use opentelemetry::trace::TracerProvider as _;
    use opentelemetry_otlp::{Protocol, WithExportConfig as _};
    use opentelemetry_sdk::Resource;
    use opentelemetry_sdk::metrics::SdkMeterProvider;
    use opentelemetry_sdk::trace::SdkTracerProvider;
    use tracing_subscriber::Layer;

    pub use super::record::Hook;

    /// The installed exporters; dropping them flushes every finished span and metric.
    #[derive(Debug)]
    pub struct Exporting {
        traces: Option<SdkTracerProvider>,
        metrics: Option<SdkMeterProvider>,
    }

    impl Drop for Exporting {
        fn drop(&mut self) {
            if let Some(traces) = &self.traces
                && let Err(error) = traces.shutdown()
            {
                crate::log_line!("ptc: OpenTelemetry trace export failed at exit: {error}");
            }
            if let Some(metrics) = &self.metrics
                && let Err(error) = metrics.shutdown()
            {
                crate::log_line!("ptc: OpenTelemetry metric export failed at exit: {error}");
            }
        }
    }

    fn env(name: &str) -> Option<String> {
        std::env::var(name).ok()
    }

    /// The exporters and the `tracing` layer feeding them (spans of target `ptc` at info
    /// and above), when the environment asks for export; a bad configuration is one stderr
    /// line, then that signal is off. Installs the `_meta` propagation hook of `ptc-mcp`.
    pub fn layer<S>() -> Option<(Exporting, impl Layer<S> + 'static)>
    where
        S: tracing::Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a>,
    {
        let traces = super::wanted(Signal::Traces, env);
        let metrics = super::wanted(Signal::Metrics, env);
        if !traces && !metrics {
            return None;
        }
        let mut resource = Resource::builder();
        if std::env::var_os("OTEL_SERVICE_NAME").is_none() {
            resource = resource.with_service_name("ptc");
        }
        let resource = resource.build();
        let tracer_provider = traces
            .then(|| {
                opentelemetry_otlp::SpanExporter::builder()
                    .with_http()
                    .with_protocol(Protocol::HttpBinary)
                    .build()
                    .inspect_err(|error| {
                        crate::log_line!("ptc: OpenTelemetry trace export is off: {error}");
                    })
                    .ok()
            })
            .flatten()
            .map(|exporter| {
                SdkTracerProvider::builder()
                    .with_batch_exporter(exporter)
                    .with_resource(resource.clone())
                    .build()
            });
        let meter_provider = metrics
            .then(|| {
                opentelemetry_otlp::MetricExporter::builder()
                    .with_http()
                    .with_protocol(Protocol::HttpBinary)
                    .build()
                    .inspect_err(|error| {
                        crate::log_line!("ptc: OpenTelemetry metric export is off: {error}");
                    })
                    .ok()
            })
            .flatten()
            .map(|exporter| {
                SdkMeterProvider::builder()
                    .with_periodic_exporter(exporter)
                    .with_resource(resource)
                    .build()
            });
        if tracer_provider.is_none() && meter_provider.is_none() {
            return None;
        }
        let meter = meter_provider.as_ref().map_or_else(
            || opentelemetry::global::meter_provider().meter("ptc"),
            |provider| provider.meter("ptc"),
        );
        let (recorder, hook) = super::record::Recorder::new(&meter);
        if tracer_provider.is_some() {
            let _ = ptc_mcp::propagation::install(Box::new(hook.clone()));
        }
        let _ = HOOK.set(hook);
        let spans = tracer_provider
            .as_ref()
            .map(|provider| tracing_opentelemetry::layer().with_tracer(provider.tracer("ptc")));
        let layer = Layer::and_then(spans, recorder).with_filter(
            tracing_subscriber::filter::Targets::new().with_target("ptc", tracing::Level::INFO),
        );
        let _ = PROVIDERS.set((tracer_provider.clone(), meter_provider.clone()));
        Some((
            Exporting {
                traces: tracer_provider,
                metrics: meter_provider,
            },
            layer,
        ))
    }

    static HOOK: std::sync::OnceLock<Hook> = std::sync::OnceLock::new();

    /// Runs `f` with the remote W3C context as the current OpenTelemetry context, so a span
    /// it opens with no current `tracing` span (the run's) is that context's child; without
    /// exporting (or with no or a malformed `traceparent`) just runs `f`.
    pub fn with_remote_parent<T>(
        traceparent: Option<&str>,
        tracestate: Option<&str>,
        f: impl FnOnce() -> T,
    ) -> T {
        match (HOOK.get(), traceparent) {
            (Some(_), Some(traceparent)) => {
                let _attached = Hook::extract(traceparent, tracestate).attach();
                f()
            }
            _ => f(),
        }
    }

    /// The W3C context of nested call `call`'s open `execute_tool` span, when exporting.
    pub fn context_of_call(call: &str) -> Option<(String, Option<String>)> {
        use ptc_mcp::propagation::TraceContext as _;
        HOOK.get()?.of_call(call)
    }
    static PROVIDERS: std::sync::OnceLock<(Option<SdkTracerProvider>, Option<SdkMeterProvider>)> =
        std::sync::OnceLock::new();

    /// Exports every finished span and the metrics so far, now (before a
    /// `std::process::exit`, which runs no destructor).
    pub fn flush() {
        let Some((traces, metrics)) = PROVIDERS.get() else {
            return;
        };
        if let Some(traces) = traces
            && let Err(error) = traces.force_flush()
        {
            crate::log_line!("ptc: OpenTelemetry trace export failed: {error}");
        }
        if let Some(metrics) = metrics
            && let Err(error) = metrics.force_flush()
        {
            crate::log_line!("ptc: OpenTelemetry metric export failed: {error}");
        }
    }

    /// The installed hook, when traces are exported (`ptc serve`'s `traceparent`).
    pub fn hook() -> Option<&'static Hook> {
        HOOK.get()
    }

    /// Installs the exporter as the global `tracing` subscriber (for `ptc run` and
    /// `ptc serve`, which install no other).
    #[must_use]
    pub fn init() -> Option<Exporting> {
        use tracing_subscriber::layer::SubscriberExt as _;
        use tracing_subscriber::util::SubscriberInitExt as _;
        let (exporting, layer) = layer()?;
        let _ = tracing_subscriber::registry().with(layer).try_init();
        Some(exporting)
    }
}

#[cfg(feature = "otel")]
pub use enabled::{Exporting, Hook, context_of_call, flush, hook, init, layer, with_remote_parent};

/// Without the feature nothing is ever exported.
#[cfg(not(feature = "otel"))]
#[derive(Debug)]
pub struct Exporting;

/// Without the feature there is nothing to flush when the guard goes.
#[cfg(not(feature = "otel"))]
impl Drop for Exporting {
    fn drop(&mut self) {}
}

/// Without the feature: runs `f`.
#[cfg(not(feature = "otel"))]
pub fn with_remote_parent<T>(_: Option<&str>, _: Option<&str>, f: impl FnOnce() -> T) -> T {
    f()
}

/// Without the feature: no span, no context.
#[cfg(not(feature = "otel"))]
#[must_use]
pub fn context_of_call(_: &str) -> Option<(String, Option<String>)> {
    None
}

/// Without the feature: nothing to flush.
#[cfg(not(feature = "otel"))]
pub fn flush() {}

/// Without the feature: installs nothing.
#[cfg(not(feature = "otel"))]
#[must_use]
pub fn init() -> Option<Exporting> {
    None
}

#[cfg(test)]
mod tests {
    use super::{Signal, wanted};

    fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| {
            pairs
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| (*v).to_owned())
        }
    }

    #[test]
    fn export_is_asked_for_only_by_the_standard_variables() {
        let t = |pairs: &[(&str, &str)]| wanted(Signal::Traces, env(pairs));
        let m = |pairs: &[(&str, &str)]| wanted(Signal::Metrics, env(pairs));
        assert!(!t(&[]) && !m(&[]));
        assert!(!t(&[("OTEL_SERVICE_NAME", "x")]));
        assert!(!t(&[("OTEL_EXPORTER_OTLP_ENDPOINT", " ")]));
        assert!(t(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "http://h:4318")]));
        assert!(m(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "http://h:4318")]));
        let traces_only = [("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://h/v1/traces")];
        assert!(t(&traces_only) && !m(&traces_only));
        assert!(t(&[("OTEL_TRACES_EXPORTER", "otlp")]));
        let none = [
            ("OTEL_TRACES_EXPORTER", "none"),
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://h:4318"),
        ];
        assert!(!t(&none) && m(&none));
        let disabled = [
            ("OTEL_SDK_DISABLED", "true"),
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://h:4318"),
        ];
        assert!(!t(&disabled) && !m(&disabled));
    }
}
