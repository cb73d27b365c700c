//! Runs a ptc ToolCall end to end, as an agent host embeds it.
//!
//! The host registers its tools in a [`Registry`] (contract + async handler); the runtime
//! compiles the model's expression, drives the closed machine, services every suspended
//! call through the host's handler (argument conversion and JSON Schema validation first,
//! then the permission policy, then the handler, with bounded concurrency for parallel
//! batches), and settles with a value, the model-facing text and an audit.
//!
//! Modules: [`tool`] (contracts, handlers, results, registry), [`typed`] (typed tools),
//! [`script`] (compile once, run many; declared inputs), [`context`] (per-run data and tool
//! filters, limits that tighten), [`errors`] (the matchable error kinds), [`args`] (guest
//! arguments → validated JSON), [`contract`] (schemas summarised for preflight),
//! [`convert`] (plain data ↔ JSON), [`audit`] (records and bounds), [`journal`] (durable
//! envelope records; the machine is never snapshotted), [`listing`] (what the model is
//! told), [`provider`] (Anthropic/OpenAI shapes), [`cancel`] (cancellation handle),
//! [`dispatch`] (one call's life, result → value), [`policy`] (permission hook),
//! [`progress`] (live snapshots for the host's view), [`envelope`] (the sans-IO envelope:
//! every rule of a run), [`driver`] (the tokio loop over it), [`outcome`] (how a run
//! settles), [`cache`] (compiled programs by source). `spec/reference/embedding.md` is the
//! reference; `examples/agent_host.rs` a whole host.
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

mod arg_plan;
pub mod args;
pub mod audit;
pub mod cache;
mod call_result;
pub mod cancel;
pub mod context;
pub mod contract;
pub mod convert;
pub mod dispatch;
pub mod driver;
pub mod envelope;
pub mod errors;
pub mod journal;
pub mod listing;
pub mod outcome;
pub mod policy;
pub mod progress;
pub mod provider;
pub mod script;
pub mod tool;
#[cfg(feature = "typed")]
pub mod typed;

pub use audit::{AuditRecord, Status};
pub use cancel::CancelToken;
pub use context::{RunData, ToolFilter};
pub use convert::ConvertError;
pub use dispatch::Isolation;
pub use driver::{InputsError, RunOptions, Runner, fresh_id, run};
pub use envelope::{
    CallRequest, Envelope, EnvelopeConfig, EnvelopeError, EnvelopeOptions, Event, Failure,
    expression_of,
};
pub use errors::{Budget, DialectErrorKind, ErrorKind};
pub use journal::{FileJournal, JournalRecord, JournalState, JournalStore};
pub use outcome::{MAX_RESULT_CHARS, Outcome, OutcomeError, OutcomeKind, RunStats};
pub use policy::{AllowAll, Both, Decision, PermissionPolicy, PolicyFn};
pub use progress::{CallProgress, Progress, ProgressSink};
pub use ptc_compiler::{Diagnostic, Diagnostics};
pub use ptc_vm::Limits;
#[cfg(feature = "typed")]
pub use schemars;
pub use script::Script;
pub use tool::{
    BoxFuture, Content, MediaRef, Registry, RegistryError, SyncHandler, ToolContract, ToolHandler,
    ToolRequestCtx, ToolResult,
};
#[cfg(feature = "typed")]
pub use typed::schema_of;
