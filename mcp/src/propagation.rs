//! W3C trace-context propagation through MCP `params._meta` (`traceparent`, `tracestate`;
//! spec/reference/observability.md), without an OpenTelemetry dependency here: the binary
//! that exports spans installs a [`TraceContext`] ([`install`]); without one, nothing is
//! read from an incoming `_meta` and nothing is added to an upstream `tools/call`.
//!
//! Incoming: the server opens a `tools/call` span (kind server, the MCP conventions) around
//! a ToolCall and asks the hook to parent it on the request's `traceparent`. Outgoing: an
//! upstream `tools/call` made for nested call `id` carries the context of that call's
//! `execute_tool` span, which the hook finds by the call's audit id.

use std::sync::OnceLock;

/// What an exporting binary provides.
pub trait TraceContext: Send + Sync + 'static {
    /// Makes `span` a child of the remote W3C context; a malformed `traceparent` is ignored.
    fn set_parent(&self, span: &tracing::Span, traceparent: &str, tracestate: Option<&str>);
    /// The W3C `traceparent` (and `tracestate`, if any) of nested call `call_id`'s
    /// `execute_tool` span while it is open.
    fn of_call(&self, call_id: &str) -> Option<(String, Option<String>)>;
}

static HOOK: OnceLock<Box<dyn TraceContext>> = OnceLock::new();

/// Installs the process's hook; `false` when one was installed already.
pub fn install(hook: Box<dyn TraceContext>) -> bool {
    HOOK.set(hook).is_ok()
}

/// Parents `span` on `traceparent` through the installed hook, if any.
pub(crate) fn set_parent(
    span: &tracing::Span,
    traceparent: Option<&str>,
    tracestate: Option<&str>,
) {
    if let (Some(hook), Some(traceparent)) = (HOOK.get(), traceparent) {
        hook.set_parent(span, traceparent, tracestate);
    }
}

/// The context to send with an upstream call made for nested call `call_id`.
pub(crate) fn of_call(call_id: &str) -> Option<(String, Option<String>)> {
    HOOK.get()?.of_call(call_id)
}
