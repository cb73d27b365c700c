//! Cancellation: tokio-util's [`CancellationToken`](tokio_util::sync::CancellationToken),
//! under the name the runtime's API uses.
//!
//! The host keeps one [`CancelToken`] per run and calls `cancel()` to interrupt it; each
//! nested call's handler receives a child token (`child_token()`), so a denial, timeout,
//! the overall deadline or the host's interruption can ask a running tool to stop, and a
//! handler that `select!`s on `cancelled()` sees it. Cancelling is idempotent and never
//! blocks; cancelling a child never cancels its parent.
//!
//! Invariant: once cancelled, a token stays cancelled, and every waiter — present or
//! future — is released.
//!
//! Cancelling a run from another task; the handler sees its own token fire:
//!
//! ```
//! use ptc_runtime::{CancelToken, ErrorKind, Registry, RunOptions, Runner, ToolContract};
//! use ptc_runtime::{ToolRequestCtx, ToolResult};
//! use serde_json::json;
//! use std::sync::Arc;
//! use std::time::Duration;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let mut registry = Registry::new();
//! registry.register(
//!     ToolContract::new("Slow", "Takes a minute.", json!({"type": "object"})),
//!     |request: ToolRequestCtx| async move {
//!         tokio::select! {
//!             () = request.cancel.cancelled() => ToolResult::error("stopped"),
//!             () = tokio::time::sleep(Duration::from_secs(60)) => ToolResult::text("done"),
//!         }
//!     },
//! )?;
//! let runner = Runner::new(Arc::new(registry));
//! let rt = tokio::runtime::Runtime::new()?;
//! let outcome = rt.block_on(async {
//!     let token = CancelToken::new();
//!     let stopper = token.clone();
//!     tokio::spawn(async move {
//!         tokio::time::sleep(Duration::from_millis(20)).await;
//!         stopper.cancel();
//!     });
//!     runner.run("(Slow)", RunOptions::new().cancel(token)).await
//! });
//! assert_eq!(outcome.error.unwrap().kind, ErrorKind::Interrupted);
//! # Ok(())
//! # }
//! ```

pub use tokio_util::sync::CancellationToken as CancelToken;

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn cancellation_releases_waiters_and_reaches_children() {
        let token = CancelToken::new();
        assert!(!token.is_cancelled());
        let child = token.child_token();
        let clone = token.clone();
        let waiter = tokio::spawn(async move { clone.cancelled().await });
        let child_waiter = tokio::spawn(async move { child.cancelled().await });
        token.cancel();
        waiter.await.unwrap();
        child_waiter.await.unwrap();
        assert!(token.is_cancelled());
        token.cancelled().await;
        let other = CancelToken::new();
        other.child_token().cancel();
        assert!(!other.is_cancelled());
    }
}
