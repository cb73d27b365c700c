//! The parameters of `ptc serve`'s requests, decoded from the host's untrusted JSON: the
//! `initialize` handshake, a request's roster (`tools`, MCP Tool objects, each declared
//! with no in-process handler), its budgets (`limits`), its script (`expression`), and the
//! `check` method, which needs nothing else.
//!
//! Invariant: a malformed parameter is a [`Refusal`] (`INVALID_PARAMS` and a message for
//! the host), never a panic.

use super::{INVALID_PARAMS, PROTOCOL_VERSION};
use ptc_runtime::core::{Catalog, ToolContract};
use ptc_vm::Limits;
use serde_json::{Value as Json, json};

/// A refused request: the JSON-RPC error code and message.
pub(super) type Refusal = (i64, String);

pub(super) fn initialize(params: &Json) -> Result<Json, Refusal> {
    match params.get("protocolVersion") {
        None | Some(Json::Null) => {}
        Some(Json::String(version)) if version == PROTOCOL_VERSION => {}
        Some(other) => {
            return Err((
                INVALID_PARAMS,
                format!(
                    "unsupported protocol version {other}; this engine speaks \"{PROTOCOL_VERSION}\""
                ),
            ));
        }
    }
    Ok(json!({
        "protocolVersion": PROTOCOL_VERSION,
        "engine": {"name": "ptc", "version": env!("CARGO_PKG_VERSION")},
        "limits": Limits::default(),
    }))
}

/// The roster of `params.tools` (MCP Tool objects plus an optional `standalone` flag).
pub(super) fn registry(params: &Json) -> Result<Catalog, Refusal> {
    let bad = |message: String| (INVALID_PARAMS, message);
    let tools = match params.get("tools") {
        None | Some(Json::Null) => &Vec::new(),
        Some(Json::Array(tools)) => tools,
        Some(_) => return Err(bad("`tools` must be an array of MCP Tool objects".into())),
    };
    let mut registry = Catalog::new();
    for (index, tool) in tools.iter().enumerate() {
        let Some(name) = tool.get("name").and_then(Json::as_str) else {
            return Err(bad(format!("tools[{index}] has no string `name`")));
        };
        let description = tool
            .get("description")
            .and_then(Json::as_str)
            .unwrap_or_default();
        let schema = tool
            .get("inputSchema")
            .cloned()
            .unwrap_or_else(|| json!({"type": "object"}));
        let standalone = tool
            .get("standalone")
            .and_then(Json::as_bool)
            .unwrap_or(false);
        let contract = ToolContract::new(name, description, schema).standalone(standalone);
        registry
            .add(contract)
            .map_err(|error| bad(format!("tools[{index}]: {error}")))?;
    }
    Ok(registry)
}

/// `params.limits` over the defaults: `{"KEY": value}` with the CLI's keys and values.
pub(super) fn limits(params: &Json) -> Result<Limits, Refusal> {
    let mut limits = Limits::default();
    match params.get("limits") {
        None | Some(Json::Null) => {}
        Some(Json::Object(pairs)) => {
            for (key, value) in pairs {
                let text = match value {
                    Json::String(text) => text.clone(),
                    other => other.to_string(),
                };
                limits
                    .set(key, &text)
                    .map_err(|error| (INVALID_PARAMS, format!("limits: {error}")))?;
            }
        }
        Some(_) => {
            return Err((
                INVALID_PARAMS,
                "`limits` must be an object of budget keys".into(),
            ));
        }
    }
    Ok(limits)
}

pub(super) fn expression(params: &Json) -> Result<&str, Refusal> {
    params
        .get("expression")
        .and_then(Json::as_str)
        .ok_or_else(|| (INVALID_PARAMS, "`expression` must be a string".to_owned()))
}

pub(super) fn check(params: &Json) -> Result<Json, Refusal> {
    let source = expression(params)?;
    let registry = registry(params)?;
    let limits = limits(params)?;
    let diagnostics = ptc_compiler::check(source, &registry.roster(), &limits);
    let items: Vec<_> = diagnostics
        .iter()
        .map(|d| {
            json!({"kind": d.kind, "code": d.code, "message": d.message,
                   "span": {"start": d.span.start, "end": d.span.end},
                   "suggestions": d.notes})
        })
        .collect();
    Ok(json!({"ok": diagnostics.is_empty(), "diagnostics": items}))
}

/// The W3C trace context of a `run` (`traceparent`, optional `tracestate`): the version-00
/// form `00-TRACEID-PARENTID-FLAGS` in lowercase hex, not all-zero ids; anything else is a
/// refusal, so a host learns its context was not used.
pub(super) fn trace_context(params: &Json) -> Result<Option<TraceContext>, Refusal> {
    let bad = |message: &str| (INVALID_PARAMS, message.to_owned());
    let traceparent = match params.get("traceparent") {
        None | Some(Json::Null) => return Ok(None),
        Some(Json::String(text)) => text.clone(),
        Some(_) => return Err(bad("`traceparent` must be a string")),
    };
    let parts: Vec<&str> = traceparent.split('-').collect();
    let hex = |part: &str, len: usize| {
        part.len() == len && part.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
    };
    let well_formed = matches!(parts.as_slice(), [version, trace, parent, flags]
        if *version == "00" && hex(trace, 32) && hex(parent, 16) && hex(flags, 2)
            && trace.bytes().any(|b| b != b'0') && parent.bytes().any(|b| b != b'0'));
    if !well_formed {
        return Err(bad(
            "`traceparent` must be a W3C traceparent: 00-<32 hex trace id>-<16 hex parent id>-<2 hex flags>",
        ));
    }
    let tracestate = match params.get("tracestate") {
        None | Some(Json::Null) => None,
        Some(Json::String(text)) if text.len() <= 512 => Some(text.clone()),
        Some(_) => return Err(bad("`tracestate` must be a string of at most 512 bytes")),
    };
    Ok(Some(TraceContext {
        traceparent,
        tracestate,
    }))
}

/// A W3C trace context as the host sent it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct TraceContext {
    pub(super) traceparent: String,
    pub(super) tracestate: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::{TraceContext, trace_context};
    use serde_json::json;

    const TRACE: &str = "0af7651916cd43dd8448eb211c80319c";

    #[test]
    fn a_run_takes_only_a_well_formed_w3c_traceparent() {
        assert_eq!(trace_context(&json!({})), Ok(None));
        let good = format!("00-{TRACE}-b7ad6b7169203331-01");
        assert_eq!(
            trace_context(&json!({"traceparent": good, "tracestate": "a=1"})),
            Ok(Some(TraceContext {
                traceparent: good.clone(),
                tracestate: Some("a=1".into())
            }))
        );
        for bad in [
            json!(7),
            json!(format!("01-{TRACE}-b7ad6b7169203331-01")),
            json!(format!("00-{TRACE}-0000000000000000-01")),
            json!("00-00000000000000000000000000000000-b7ad6b7169203331-01"),
            json!(format!("00-{}-b7ad6b7169203331-01", TRACE.to_uppercase())),
            json!(format!("00-{TRACE}-b7ad6b7169203331")),
            json!(format!("00-{TRACE}-b7ad6b7169203331-01-x")),
        ] {
            let refused = trace_context(&json!({ "traceparent": bad }));
            assert!(matches!(refused, Err((-32602, _))), "{bad}: {refused:?}");
        }
        let long = "a".repeat(513);
        assert!(trace_context(&json!({"traceparent": good, "tracestate": long})).is_err());
    }
}
