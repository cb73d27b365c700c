//! One nested call's life after its arguments were accepted: the permission check, the
//! handler under a timeout, and panic containment; and the way a tool's result re-enters
//! the guest as a value.
//!
//! Invariants:
//! - A handler or policy that panics never unwinds into the driver: a panicking handler
//!   becomes a failed call, a panicking policy a denial (fail closed).
//! - A timed-out call's cancellation token is cancelled and its future dropped.
//! - Nothing here spawns a task: every future is owned by the driver's run, so dropping the
//!   run drops every call in flight.

use crate::audit::{PREVIEW_CHARS, Status, preview};
use crate::convert;
use crate::policy::{Decision, PermissionPolicy};
use crate::tool::{BoxFuture, ToolHandler, ToolRequestCtx, ToolResult};
use futures::FutureExt as _;
use ptc_vm::{Limits, Machine, Value};
use std::any::Any;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::Duration;

/// How a launched call ended.
#[derive(Debug)]
pub(crate) enum ChildEnd {
    /// The policy refused it.
    Denied(String),
    /// The handler answered.
    Finished(ToolResult),
    /// The handler panicked or timed out; the model-facing message.
    Failed(String),
}

fn panic_text(payload: &(dyn Any + Send)) -> String {
    if let Some(text) = payload.downcast_ref::<&str>() {
        (*text).to_owned()
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text.clone()
    } else {
        "unknown panic".to_owned()
    }
}

/// Starts the policy check for `ctx`, containing a panic as a denial.
pub(crate) fn check_policy(
    policy: &Arc<dyn PermissionPolicy>,
    ctx: &ToolRequestCtx,
) -> BoxFuture<Decision> {
    match std::panic::catch_unwind(AssertUnwindSafe(|| policy.check(ctx))) {
        Ok(future) => Box::pin(AssertUnwindSafe(future).catch_unwind().map(|r| {
            r.unwrap_or_else(|_| Decision::Deny("the permission policy failed".to_owned()))
        })),
        Err(_) => Box::pin(std::future::ready(Decision::Deny(
            "the permission policy failed".to_owned(),
        ))),
    }
}

/// Runs the handler for `ctx` under `timeout_ms`, containing panics.
pub(crate) async fn run_handler(
    handler: Arc<dyn ToolHandler>,
    ctx: ToolRequestCtx,
    timeout_ms: Option<u64>,
) -> ChildEnd {
    let tool = ctx.tool.clone();
    let cancel = ctx.cancel.clone();
    let future = match std::panic::catch_unwind(AssertUnwindSafe(|| handler.call(ctx))) {
        Ok(future) => future,
        Err(payload) => {
            return ChildEnd::Failed(format!("Error: {tool} panicked: {}", panic_text(&*payload)));
        }
    };
    let guarded = AssertUnwindSafe(future).catch_unwind();
    let result = match timeout_ms {
        Some(ms) => match tokio::time::timeout(Duration::from_millis(ms), guarded).await {
            Ok(result) => result,
            Err(_) => {
                cancel.cancel();
                return ChildEnd::Failed(format!("Error: {tool} timed out after {ms} ms"));
            }
        },
        None => guarded.await,
    };
    match result {
        Ok(result) => ChildEnd::Finished(result),
        Err(payload) => {
            ChildEnd::Failed(format!("Error: {tool} panicked: {}", panic_text(&*payload)))
        }
    }
}

/// A call's end as the guest and the audit see it.
#[derive(Debug)]
pub struct Settled {
    /// The guest value.
    pub value: Value,
    /// The audit status.
    pub status: Status,
    /// The audit preview.
    pub preview: Option<String>,
}

/// The guest value, status and preview of a handler's `result` (dialect notes §12.4);
/// public for hosts that step the [`Machine`] with their own event loop.
pub fn settle_result(machine: &mut Machine, result: &ToolResult, limits: &Limits) -> Settled {
    let text = result.joined_text();
    if result.is_error {
        return Settled {
            value: machine.error_value(&text),
            status: Status::Error,
            preview: Some(preview(&text, PREVIEW_CHARS)),
        };
    }
    let value = if let Some(json) = &result.structured {
        match convert::from_json(json, machine.symbols_mut(), limits) {
            Ok(value) => value,
            Err(error) => {
                return Settled {
                    value: machine.error_value("Nested tool result rejected"),
                    status: Status::Error,
                    preview: Some(format!("Error: nested tool result rejected: {}", error.0)),
                };
            }
        }
    } else if text.is_empty() && !result.media().is_empty() {
        media_value(machine, result)
    } else {
        Value::string(text.as_str())
    };
    let weight = value.weight();
    if weight.bytes > limits.value_bytes || weight.nodes > limits.value_nodes {
        return Settled {
            value,
            status: Status::Error,
            preview: Some(format!(
                "Error: nested tool result rejected: the result exceeds the value budget of {} bytes or {} nodes",
                limits.value_bytes, limits.value_nodes
            )),
        };
    }
    Settled {
        value,
        status: Status::Success,
        preview: Some(preview(&text, PREVIEW_CHARS)),
    }
}

/// Media-only results reach the guest as descriptors `(:mime M :uri U :name N)`; the bytes
/// never do.
fn media_value(machine: &mut Machine, result: &ToolResult) -> Value {
    let mut items = Vec::new();
    for media in result.media() {
        let mut fields = vec![
            Value::Sym(machine.symbols_mut().intern(":mime")),
            Value::string(media.mime.as_str()),
        ];
        if let Some(uri) = &media.uri {
            fields.push(Value::Sym(machine.symbols_mut().intern(":uri")));
            fields.push(Value::string(uri.as_str()));
        }
        if let Some(name) = &media.name {
            fields.push(Value::Sym(machine.symbols_mut().intern(":name")));
            fields.push(Value::string(name.as_str()));
        }
        items.push(Value::list(fields));
    }
    Value::list(items)
}
