//! The sans-IO core of ptc: everything one ToolCall means, with no executor, no clock and
//! no I/O (the quinn-proto of ptc; `ptc-runtime` is its tokio driver).
//!
//! A host builds a [`Catalog`] of tool contracts, compiles a [`Script`] (or hands the
//! model's text over), starts an [`Envelope`] and then alternates between
//! [`Envelope::poll`], which says what the run needs next as an [`Event`], and the feeding
//! methods, which report what happened (an answer, a denial, a failure, a journal write).
//! Time comes from the host as a [`std::time::Duration`] since an origin of its choosing.
//! The envelope settles with an [`Outcome`]: the value, the model-facing text and the audit
//! of every nested call.
//!
//! Modules: [`envelope`] (the state machine), [`catalog`] (contracts, validators, results),
//! [`filter`] (which tools one run may use), [`args`] (guest arguments → validated JSON),
//! [`contract`] (schemas summarised for preflight), [`convert`] (plain data ↔ JSON),
//! [`audit`] (records and bounds), [`outcome`] (how a run settles), [`errors`] (the
//! matchable error kinds), [`journal`] (durable records and the store trait), [`listing`]
//! (what the model is told), [`provider`] (Anthropic/OpenAI shapes), [`progress`] (live
//! snapshots), [`script`] (compile once, run many), [`cache`] (compiled programs by
//! source), [`resume`] (paused runs, resumption and replay), [`ids`] (fresh envelope ids), [`host_json`] (the JSON shapes the Python and
//! JavaScript bindings share). `spec/reference/embedding.md` is the reference.
//!
//! Invariants: the crate depends on no async runtime, no clock and no filesystem; it builds
//! for `wasm32-unknown-unknown` (`.ci/run` checks both).

#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod arg_plan;
pub mod args;
pub mod audit;
pub mod cache;
mod call_result;
pub mod catalog;
pub mod contract;
pub mod convert;
pub mod envelope;
pub mod errors;
pub mod filter;
pub mod host_json;
pub mod ids;
pub mod journal;
pub mod listing;
pub mod outcome;
pub mod progress;
pub mod provider;
pub mod resume;
pub mod script;

use std::future::Future;
use std::pin::Pin;

/// A boxed, sendable future: what handlers, policies and journal stores return.
pub type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

pub use audit::{AuditRecord, Status};
pub use catalog::{
    Catalog, CatalogTool, Content, MediaRef, RegistryError, ToolContract, ToolResult,
};
pub use convert::ConvertError;
pub use envelope::{
    CallRequest, Envelope, EnvelopeConfig, EnvelopeError, EnvelopeOptions, Event, Failure,
    expression_of,
};
pub use errors::{Budget, DialectErrorKind, ErrorKind};
pub use filter::{FilterError, ToolFilter};
pub use ids::fresh_id;
pub use journal::{JournalRecord, JournalState, JournalStore};
pub use outcome::{MAX_RESULT_CHARS, Outcome, OutcomeError, OutcomeKind, RunStats};
pub use progress::{CallProgress, Progress, ProgressSink};
pub use ptc_compiler::{Diagnostic, Diagnostics};
pub use ptc_vm::{Clock, Limits};
pub use resume::{Approval, RunJournal};
pub use script::Script;
