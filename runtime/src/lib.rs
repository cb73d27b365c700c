//! Runs a ptc ToolCall end to end in a tokio host: the driver over `ptc_core`'s sans-IO
//! envelope.
//!
//! The host registers its tools in a [`Registry`] (contract + async handler); a [`Runner`]
//! compiles the model's expression, drives the envelope, services every suspended call
//! through the host's handler (argument conversion and JSON Schema validation first, then
//! the permission policy, then the handler, with bounded concurrency for parallel batches),
//! and settles with an [`Outcome`]: the value, the model-facing text and an audit.
//!
//! Everything here is the driver's: launching handlers ([`Isolation`]), cancellation
//! ([`CancelToken`]), permission policies ([`PermissionPolicy`]), per-run host data
//! ([`RunData`]) and the file journal ([`FileJournal`]). The rules of a run — and every type
//! a sans-IO host needs — live in [`core`] (`ptc_core`), re-exported whole.
//! `spec/reference/embedding.md` is the reference; `examples/agent_host.rs` a whole host.
//!
//! ```
//! use ptc_runtime::{Registry, RunOptions, Runner, ToolContract, ToolRequestCtx, ToolResult};
//! use serde_json::json;
//! use std::sync::Arc;
//!
//! let mut registry = Registry::new();
//! let schema = json!({"type": "object", "properties": {"city": {"type": "string"}},
//!                     "required": ["city"]});
//! registry
//!     .register(
//!         ToolContract::new("Weather", "Gives the weather.", schema),
//!         |request: ToolRequestCtx| async move {
//!             let temp = if request.arguments["city"] == "Rome" { 24 } else { 11 };
//!             ToolResult::json(json!({"city": request.arguments["city"], "temp": temp}))
//!         },
//!     )
//!     .unwrap();
//! let runner = Runner::new(Arc::new(registry));
//! let script = r#"(mapcar (lambda (r) (plist-get r :temp))
//!                         (parallel (Weather :city "Oslo") (Weather :city "Rome")))"#;
//! let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
//! let outcome = runtime.block_on(runner.run(script, RunOptions::new()));
//! assert_eq!(outcome.text, "(11 24)");
//! assert_eq!(outcome.calls.len(), 2);
//! ```

#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![deny(unreachable_pub)]

mod cancel;
mod context;
mod dispatch;
mod driver;
mod journal_file;
mod policy;
mod tool;
#[cfg(feature = "typed")]
pub mod typed;

/// The sans-IO core (`ptc_core`), whole: the envelope, the catalog, results, audit,
/// outcomes, journal records, listings and provider shapes.
pub use ptc_core as core;

pub use cancel::CancelToken;
pub use context::RunData;
pub use dispatch::Isolation;
pub use driver::{InputsError, RunOptions, Runner, Source};
pub use journal_file::FileJournal;
pub use policy::{Decision, PermissionPolicy};
pub use ptc_core::{
    BoxFuture, Content, ErrorKind, Limits, Outcome, OutcomeKind, Script, ToolContract, ToolFilter,
    ToolResult,
};
pub use tool::{Registry, ToolHandler, ToolRequestCtx};
