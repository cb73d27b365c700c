//! Cancellation: tokio-util's [`CancellationToken`](tokio_util::sync::CancellationToken),
//! under the name the runtime's API uses, and each nested call's token made on first use.
//!
//! The host keeps one [`CancelToken`] per run and calls `cancel()` to interrupt it. Each
//! nested call has its own token, which its handler asks for with
//! [`ToolRequestCtx::cancel`](crate::ToolRequestCtx::cancel), so a denial, timeout, the
//! overall deadline or the host's interruption can ask a running tool to stop, and a
//! handler that `select!`s on `cancelled()` sees it. Cancelling is idempotent and never
//! blocks; cancelling a call never cancels its run.
//!
//! A call's token is made only when something needs it (`CallCancel`): its handler asks,
//! the driver must watch it (a handler on the blocking pool), or the call is cancelled. A
//! call suspended on a handler that never asks holds a 32-byte cell instead of a token.
//!
//! Invariants:
//! - Once cancelled, a token stays cancelled, and every waiter — present or future — is
//!   released.
//! - A call's token is made at most once, and whoever makes it first (the handler asking
//!   or the driver cancelling) makes the one every later ask sees: a handler asking after
//!   its call was cancelled gets a token already cancelled.
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
//!             () = request.cancel().cancelled() => ToolResult::error("stopped"),
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

use std::sync::{Arc, OnceLock};

/// One nested call's cancellation, shared by the driver and the call's contexts: its
/// [`CancelToken`] is made on first use (see the module docs).
#[derive(Clone, Default)]
pub(crate) struct CallCancel(Arc<OnceLock<CancelToken>>);

impl CallCancel {
    /// The call's token, made now if nobody needed it before.
    pub(crate) fn token(&self) -> &CancelToken {
        self.0.get_or_init(CancelToken::new)
    }

    /// Cancels the call: its token, made now (already cancelled) if nobody asked for it.
    pub(crate) fn cancel(&self) {
        self.token().cancel();
    }

    /// Whether the call was cancelled (a call whose token was never made was not).
    pub(crate) fn is_cancelled(&self) -> bool {
        self.0.get().is_some_and(CancelToken::is_cancelled)
    }
}

impl std::fmt::Debug for CallCancel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallCancel")
            .field("made", &self.0.get().is_some())
            .field("cancelled", &self.is_cancelled())
            .finish()
    }
}

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

    #[tokio::test]
    async fn a_call_token_made_after_its_cancellation_is_already_cancelled() {
        let driver = CallCancel::default();
        let handler = driver.clone();
        assert!(!driver.is_cancelled());
        driver.cancel();
        assert!(driver.is_cancelled());
        // The handler asks only now: the token it gets is the cancelled one.
        assert!(handler.token().is_cancelled());
        handler.token().cancelled().await;
    }

    #[tokio::test]
    async fn a_call_token_asked_for_first_is_the_one_the_driver_cancels() {
        let driver = CallCancel::default();
        let handler = driver.clone();
        let token = handler.token().clone();
        assert!(!driver.is_cancelled());
        let waiter = tokio::spawn(async move { token.cancelled().await });
        driver.cancel();
        waiter.await.unwrap();
        assert!(handler.token().is_cancelled());
        // Cancelling again is harmless.
        driver.cancel();
        assert!(driver.is_cancelled());
    }
}
