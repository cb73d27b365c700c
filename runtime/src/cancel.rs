//! A cloneable cancellation handle.
//!
//! The host keeps one [`CancelToken`] per run and calls [`CancelToken::cancel`] to
//! interrupt it; handlers receive child tokens so a denial, timeout or interruption can ask
//! a running tool to stop. Cancelling is idempotent and never blocks.
//!
//! Invariant: once cancelled, a token stays cancelled, and every waiter — present or
//! future — is released.

use std::sync::Arc;
use tokio::sync::watch;

/// A handle that can be cancelled once and awaited any number of times.
#[derive(Debug, Clone)]
pub struct CancelToken {
    sender: Arc<watch::Sender<bool>>,
}

impl Default for CancelToken {
    fn default() -> Self {
        CancelToken::new()
    }
}

impl CancelToken {
    /// A fresh, uncancelled token.
    #[must_use]
    pub fn new() -> Self {
        let (sender, _receiver) = watch::channel(false);
        CancelToken {
            sender: Arc::new(sender),
        }
    }

    /// Cancels the token, releasing every waiter.
    pub fn cancel(&self) {
        self.sender.send_replace(true);
    }

    /// Whether the token was cancelled.
    #[must_use]
    pub fn is_cancelled(&self) -> bool {
        *self.sender.borrow()
    }

    /// Resolves once the token is cancelled (at once if it already is).
    pub async fn cancelled(&self) {
        let mut receiver = self.sender.subscribe();
        // The sender lives in `self`, so the channel cannot close while we wait.
        let _ = receiver.wait_for(|cancelled| *cancelled).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn cancellation_releases_waiters() {
        let token = CancelToken::new();
        assert!(!token.is_cancelled());
        let clone = token.clone();
        let waiter = tokio::spawn(async move { clone.cancelled().await });
        token.cancel();
        waiter.await.unwrap();
        assert!(token.is_cancelled());
        token.cancelled().await;
    }
}
