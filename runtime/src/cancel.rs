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
//! call suspended on a handler that never asks holds a 32-byte cell instead of a token,
//! and a call whose handler answers at once ([`ToolHandler::call_now`], run inline) not
//! even a shared cell: the driver never holds it.
//!
//! [`ToolHandler::call_now`]: crate::ToolHandler::call_now
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

/// One nested call's cancellation: its [`CancelToken`], made on first use (see the module
/// docs). Shared by the driver and the call's contexts once the driver holds the call;
/// a call that no one else holds (its handler answered at once, or a context made with
/// [`ToolRequestCtx::new`](crate::ToolRequestCtx::new)) keeps its cell alone, with no
/// allocation until a token is asked for.
pub(crate) enum CallCancel {
    /// Held by the driver and the call's contexts.
    Shared(Arc<OnceLock<CancelToken>>),
    /// Held by one context (and its clones, which share the token itself).
    Alone(OnceLock<CancelToken>),
}

impl Default for CallCancel {
    /// A cell nobody else holds yet ([`CallCancel::share`] makes it shared).
    fn default() -> Self {
        CallCancel::Alone(OnceLock::new())
    }
}

impl Clone for CallCancel {
    /// The same cancellation: a shared cell is shared again; a lone cell's token is made
    /// now, so that both clones see (and cancel) the same one.
    fn clone(&self) -> Self {
        match self {
            CallCancel::Shared(cell) => CallCancel::Shared(Arc::clone(cell)),
            CallCancel::Alone(_) => CallCancel::Alone(OnceLock::from(self.token().clone())),
        }
    }
}

impl CallCancel {
    /// A cell shared from the start (for a call the driver holds).
    pub(crate) fn shared() -> Self {
        CallCancel::Shared(Arc::default())
    }

    /// This cancellation made shared (a token already made stays the one), and a handle on
    /// it for the driver.
    pub(crate) fn share(&mut self) -> CallCancel {
        if let CallCancel::Alone(cell) = self {
            *self = CallCancel::Shared(Arc::new(std::mem::take(cell)));
        }
        self.clone()
    }

    /// The call's token, made now if nobody needed it before.
    pub(crate) fn token(&self) -> &CancelToken {
        match self {
            CallCancel::Shared(cell) => cell.get_or_init(CancelToken::new),
            CallCancel::Alone(cell) => cell.get_or_init(CancelToken::new),
        }
    }

    /// Cancels the call: its token, made now (already cancelled) if nobody asked for it.
    pub(crate) fn cancel(&self) {
        self.token().cancel();
    }

    /// Whether the call was cancelled (a call whose token was never made was not).
    pub(crate) fn is_cancelled(&self) -> bool {
        let cell = match self {
            CallCancel::Shared(cell) => &**cell,
            CallCancel::Alone(cell) => cell,
        };
        cell.get().is_some_and(CancelToken::is_cancelled)
    }
}

impl std::fmt::Debug for CallCancel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallCancel")
            .field("shared", &matches!(self, CallCancel::Shared(_)))
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
        let driver = CallCancel::shared();
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
        let driver = CallCancel::shared();
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

    #[tokio::test]
    async fn a_lone_cell_shares_its_token_with_clones_and_when_made_shared() {
        // Clones of a lone cell see the same token, made by the clone.
        let alone = CallCancel::default();
        assert!(!alone.is_cancelled());
        let clone = alone.clone();
        clone.cancel();
        assert!(alone.is_cancelled());
        // A lone cell whose token was made keeps it when shared; the driver's handle
        // cancels what the context sees.
        let mut context = CallCancel::default();
        let token = context.token().clone();
        let driver = context.share();
        assert!(matches!(context, CallCancel::Shared(_)));
        driver.cancel();
        assert!(token.is_cancelled());
        assert!(context.is_cancelled());
        token.cancelled().await;
        // One shared before any token was made makes it on first use, for both.
        let mut fresh = CallCancel::default();
        let watcher = fresh.share();
        assert!(!watcher.is_cancelled());
        fresh.cancel();
        assert!(watcher.is_cancelled());
    }
}
