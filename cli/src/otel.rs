//! OpenTelemetry export of the runtime's `tracing` spans (spec/reference/observability.md),
//! for `ptc run`, `ptc serve` and `ptc-mcp`: built only with the cargo feature `otel`, and
//! configured only by the standard variables. Without the feature, or when no variable
//! asks for it, [`init`] installs nothing and returns `None`.
//!
//! Exporting is on when `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` or
//! `OTEL_EXPORTER_OTLP_ENDPOINT` is set (or `OTEL_TRACES_EXPORTER=otlp`, to the default
//! `http://localhost:4318`), unless `OTEL_TRACES_EXPORTER=none`. Spans go over OTLP/HTTP
//! protobuf from a batch processor's own thread; the service name is `OTEL_SERVICE_NAME`,
//! else `ptc`. The returned [`Exporting`] flushes and shuts the exporter down when dropped.

/// Whether the environment asks for trace export (see the module docs).
#[must_use]
pub fn wanted(var: impl Fn(&str) -> Option<String>) -> bool {
    let set = |name: &str| var(name).is_some_and(|v| !v.trim().is_empty());
    match var("OTEL_TRACES_EXPORTER").as_deref().map(str::trim) {
        Some("none") => false,
        Some("otlp") => true,
        _ => set("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") || set("OTEL_EXPORTER_OTLP_ENDPOINT"),
    }
}

#[cfg(feature = "otel")]
mod enabled {
    use opentelemetry::trace::TracerProvider as _;
    use opentelemetry_otlp::{Protocol, WithExportConfig as _};
    use opentelemetry_sdk::Resource;
    use opentelemetry_sdk::trace::SdkTracerProvider;

    /// The installed exporter; dropping it flushes every finished span and shuts it down.
    #[derive(Debug)]
    pub struct Exporting(SdkTracerProvider);

    impl Drop for Exporting {
        fn drop(&mut self) {
            if let Err(error) = self.0.shutdown() {
                crate::log_line!("ptc: OpenTelemetry export failed at exit: {error}");
            }
        }
    }

    /// The exporter and the `tracing` layer feeding it (spans at info and above), when the
    /// environment asks for export; a bad configuration is one stderr line, then `None`.
    pub fn layer<S>() -> Option<(Exporting, impl tracing_subscriber::Layer<S> + 'static)>
    where
        S: tracing::Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a>,
    {
        use tracing_subscriber::Layer as _;
        if !super::wanted(|name| std::env::var(name).ok()) {
            return None;
        }
        let exporter = match opentelemetry_otlp::SpanExporter::builder()
            .with_http()
            .with_protocol(Protocol::HttpBinary)
            .build()
        {
            Ok(exporter) => exporter,
            Err(error) => {
                crate::log_line!("ptc: OpenTelemetry export is off: {error}");
                return None;
            }
        };
        let mut resource = Resource::builder();
        if std::env::var_os("OTEL_SERVICE_NAME").is_none() {
            resource = resource.with_service_name("ptc");
        }
        let provider = SdkTracerProvider::builder()
            .with_batch_exporter(exporter)
            .with_resource(resource.build())
            .build();
        let tracer = provider.tracer("ptc");
        let layer = tracing_opentelemetry::layer()
            .with_tracer(tracer)
            .with_filter(tracing_subscriber::filter::LevelFilter::INFO);
        Some((Exporting(provider), layer))
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
pub use enabled::{Exporting, init, layer};

/// Without the feature nothing is ever exported.
#[cfg(not(feature = "otel"))]
#[derive(Debug)]
pub struct Exporting;

/// Without the feature: installs nothing.
#[cfg(not(feature = "otel"))]
#[must_use]
pub fn init() -> Option<Exporting> {
    None
}

#[cfg(test)]
mod tests {
    use super::wanted;

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
        assert!(!wanted(env(&[])));
        assert!(!wanted(env(&[("OTEL_SERVICE_NAME", "x")])));
        assert!(!wanted(env(&[("OTEL_EXPORTER_OTLP_ENDPOINT", " ")])));
        assert!(wanted(env(&[(
            "OTEL_EXPORTER_OTLP_ENDPOINT",
            "http://h:4318"
        )])));
        assert!(wanted(env(&[(
            "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
            "http://h/v1/traces"
        )])));
        assert!(wanted(env(&[("OTEL_TRACES_EXPORTER", "otlp")])));
        assert!(!wanted(env(&[
            ("OTEL_TRACES_EXPORTER", "none"),
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://h:4318")
        ])));
    }
}
