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
