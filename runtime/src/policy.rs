//! The permission hook consulted before every nested call (spec/reference/tool-calls.md).
//!
//! A policy sees the nested request exactly as the handler would (its own id, the parent
//! envelope id, source `ptc`, the validated arguments) and allows or denies it. A denial is
//! not a guest value: it aborts the whole script, cancels queued and running siblings and
//! settles the envelope as `denied`.
//!
//! ```
//! use ptc_runtime::{Decision, ErrorKind, Registry, RunOptions, Runner};
//! use ptc_runtime::{ToolContract, ToolRequestCtx, ToolResult};
//! use serde_json::json;
//! use std::sync::Arc;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let mut registry = Registry::new();
//! let schema = json!({"type": "object", "properties": {"path": {"type": "string"}}});
//! registry.register(
//!     ToolContract::new("Remove", "Removes a file.", schema),
//!     |_request: ToolRequestCtx| async move { ToolResult::text("removed") },
//! )?;
//! let policy = |request: &ToolRequestCtx| {
//!     match request.arguments["path"].as_str() {
//!         Some(path) if path.starts_with("/tmp/") => Decision::Allow,
//!         _ => Decision::Deny("only files under /tmp may be removed".into()),
//!     }
//! };
//! let runner = Runner::new(Arc::new(registry)).with_policy(Arc::new(policy));
//! let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
//! let script = r#"(list (Remove :path "/tmp/a") (Remove :path "/etc/passwd"))"#;
//! let outcome = rt.block_on(runner.run(script, RunOptions::new()));
//! let error = outcome.error.unwrap();
//! assert_eq!(error.kind, ErrorKind::Denied);
//! assert!(error.message.contains("only files under /tmp"), "{}", error.message);
//! assert_eq!(outcome.calls.len(), 2);
//! # Ok(())
//! # }
//! ```

use crate::tool::ToolRequestCtx;
use ptc_core::BoxFuture;

/// A policy's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Decision {
    /// Run the call.
    Allow,
    /// Refuse it, with a reason the model will read.
    Deny(String),
    /// Pause the run for a person (spec/reference/durable-runs.md): it settles `paused`
    /// with a journal ([`ptc_core::Outcome::journal`]) that [`crate::Source::Resume`]
    /// continues, in this process or another. Only a run that records its journal
    /// ([`crate::RunOptions::record`]) can pause; any other run denies the call, saying so.
    Pause,
}

/// Decides whether a nested call may run. May await (e.g. a user prompt).
pub trait PermissionPolicy: Send + Sync {
    /// The decision for `request`.
    fn check(&self, request: &ToolRequestCtx) -> BoxFuture<Decision>;
}

/// Allows everything (a [`crate::Runner`]'s policy until it is given one).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct AllowAll;

impl PermissionPolicy for AllowAll {
    fn check(&self, _request: &ToolRequestCtx) -> BoxFuture<Decision> {
        Box::pin(std::future::ready(Decision::Allow))
    }
}

/// A closure deciding at once is a policy.
impl<F> PermissionPolicy for F
where
    F: Fn(&ToolRequestCtx) -> Decision + Send + Sync,
{
    fn check(&self, request: &ToolRequestCtx) -> BoxFuture<Decision> {
        Box::pin(std::future::ready(self(request)))
    }
}

/// Two policies in turn: the call runs only when the first and then the second allow it
/// (a run's own policy after its runner's, [`crate::RunOptions::policy`]).
#[derive(Clone)]
pub(crate) struct Both(
    pub(crate) std::sync::Arc<dyn PermissionPolicy>,
    pub(crate) std::sync::Arc<dyn PermissionPolicy>,
);

impl std::fmt::Debug for Both {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Both(..)")
    }
}

impl PermissionPolicy for Both {
    fn check(&self, request: &ToolRequestCtx) -> BoxFuture<Decision> {
        let first = self.0.check(request);
        let second = self.1.clone();
        let request = request.clone();
        Box::pin(async move {
            match first.await {
                Decision::Allow => second.check(&request).await,
                denied => denied,
            }
        })
    }
}
