//! One nested call's life in the tokio driver after the envelope dispatched it: the
//! handler run in isolation from the driver, panic containment, and cancellation; and the
//! way a tool's result re-enters the guest as a value.
//!
//! Invariants:
//! - A handler or policy that panics never unwinds into the driver: a panicking handler
//!   becomes [`Failure::Panicked`] (its text is for the host's log only; the guest gets a
//!   fixed message), a panicking policy a denial (fail closed).
//! - With [`Isolation::Thread`] (the default) a handler runs on the blocking pool, driven by
//!   the runtime's handle, so a handler that blocks its thread cannot stop the driver's
//!   timers, other calls, or cancellation. Once its call's token is cancelled (timeout,
//!   denial, interrupt, deadline) the driver stops waiting for it at once; the handler's
//!   future is polled once more, so a handler that `select!`s on its token runs its cancel
//!   branch (its answer is discarded), and is then dropped at its next await (the driver waits up to [`CANCEL_GRACE`] for that,
//!   so a cooperative handler never outlives its run), and a thread stuck in a blocking
//!   call is abandoned (it ends when that call returns; its answer is discarded).
//! - With [`Isolation::Inline`] the handler is called when its call is dispatched and its
//!   own future is polled on the driver's task, unwrapped: cheaper, for handlers known
//!   never to block (such as a pipe to another process). Its token is the driver's to
//!   cancel, and the driver polls its calls after cancelling any ([`Running`]), so such a
//!   call ends at that poll.

use crate::cancel::{CallCancel, CancelToken};
use crate::policy::{Decision, PermissionPolicy};
use crate::tool::{ToolHandler, ToolRequestCtx};
use futures::FutureExt as _;
use ptc_core::envelope::Failure;
use ptc_core::{BoxFuture, ToolResult};
use std::any::Any;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::Duration;

/// How long a cancelled call's thread gets to drop the handler's future before the driver
/// stops waiting for it ([`Isolation::Thread`]).
pub(crate) const CANCEL_GRACE: Duration = Duration::from_millis(100);

/// Where the driver runs each handler.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Isolation {
    /// On the blocking pool, one thread per call in flight: a blocking handler stalls only
    /// itself. The default.
    #[default]
    Thread,
    /// On the driver's own task: for handlers that never block.
    Inline,
}

/// How a launched call ended.
#[derive(Debug)]
pub(crate) enum ChildEnd {
    /// The handler answered.
    Finished(ToolResult),
    /// The handler panicked.
    Failed(Failure),
    /// Its token was cancelled first; nobody wants the answer.
    Cancelled,
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

/// What a handler gave back when it was called.
enum Started {
    /// It answered at once ([`ToolHandler::call_now`]).
    Now(ToolResult),
    /// Its future.
    Later(BoxFuture<ToolResult>),
}

/// Calls the handler for `ctx`, at once if it can answer so, else for its future (a panic
/// in either call is contained).
fn start(handler: &dyn ToolHandler, ctx: ToolRequestCtx) -> Result<Started, Failure> {
    std::panic::catch_unwind(AssertUnwindSafe(|| match handler.call_now(ctx) {
        Ok(result) => Started::Now(result),
        Err(ctx) => Started::Later(handler.call(ctx)),
    }))
    .map_err(|payload| Failure::Panicked(panic_text(&*payload)))
}

/// The handler's answer with panics contained, or `Cancelled` once `cancel` fires.
async fn finish(future: BoxFuture<ToolResult>, cancel: CancelToken) -> ChildEnd {
    let mut future = AssertUnwindSafe(future).catch_unwind();
    let result = tokio::select! {
        biased;
        result = &mut future => result,
        () = cancel.cancelled() => {
            // The token fires before the future is dropped, and the future is polled once
            // more: a handler that selects on its token runs its cancel branch (up to its
            // next await). Nothing it answers is used.
            let _ = futures::poll!(&mut future);
            return ChildEnd::Cancelled;
        }
    };
    match result {
        Ok(result) => ChildEnd::Finished(result),
        Err(payload) => ChildEnd::Failed(Failure::Panicked(panic_text(&*payload))),
    }
}

/// [`start`] then [`finish`], for a handler run away from the driver.
async fn contained(handler: Arc<dyn ToolHandler>, ctx: ToolRequestCtx) -> ChildEnd {
    let cancel = ctx.cancel().clone();
    match start(&*handler, ctx) {
        Ok(Started::Now(result)) => ChildEnd::Finished(result),
        Ok(Started::Later(future)) => finish(future, cancel).await,
        Err(failure) => ChildEnd::Failed(failure),
    }
}

/// A dispatched call after [`launch`]: ended already, or running with the cancellation the
/// driver holds.
pub(crate) enum Launch {
    /// The handler answered at once (or failed to start): nothing runs.
    Ended(ChildEnd),
    /// The handler's future, and the call's cancellation, shared with its context.
    Running(CallCancel, Running),
}

/// Runs `handler` for `ctx` as `isolation` says. Inline, the handler is called here: an
/// answer given at once ([`ToolHandler::call_now`]) ends the call now, and otherwise the
/// handler's own future is what runs (the shared handler is not even cloned, and nothing
/// wraps it); only then is the call's cancellation shared with the driver. On the blocking
/// pool, the future resolves as soon as the call's token is cancelled, whatever the
/// handler is doing.
pub(crate) fn launch(
    handler: &Arc<dyn ToolHandler>,
    mut ctx: ToolRequestCtx,
    isolation: Isolation,
) -> Launch {
    let handle = match isolation {
        Isolation::Thread => tokio::runtime::Handle::try_current().ok(),
        Isolation::Inline => None,
    };
    let Some(handle) = handle else {
        let answered = std::panic::catch_unwind(AssertUnwindSafe(|| handler.call_now(ctx)));
        let mut ctx = match answered {
            Ok(Ok(result)) => return Launch::Ended(ChildEnd::Finished(result)),
            Ok(Err(ctx)) => ctx,
            Err(payload) => {
                return Launch::Ended(ChildEnd::Failed(Failure::Panicked(panic_text(&*payload))));
            }
        };
        let cancel = ctx.cancel.share();
        return match std::panic::catch_unwind(AssertUnwindSafe(|| handler.call(ctx))) {
            Ok(future) => Launch::Running(cancel, Running::Inline(future)),
            Err(payload) => {
                Launch::Ended(ChildEnd::Failed(Failure::Panicked(panic_text(&*payload))))
            }
        };
    };
    let cancel = ctx.cancel.share();
    // Watched from here: this call's token is made now.
    let token = cancel.token().clone();
    let handler = Arc::clone(handler);
    let task = tokio::task::spawn_blocking(move || handle.block_on(contained(handler, ctx)));
    let future = Running::Away(Box::pin(async move {
        let mut task = task;
        tokio::select! {
            biased;
            () = token.cancelled() => {
                // Give the handler's thread a moment to drop its future; a thread
                // stuck in a blocking call is abandoned after the grace period.
                let _ = tokio::time::timeout(CANCEL_GRACE, &mut task).await;
                ChildEnd::Cancelled
            }
            joined = &mut task => joined.unwrap_or_else(|error| {
                ChildEnd::Failed(Failure::Panicked(error.to_string()))
            }),
        }
    }));
    Launch::Running(cancel, future)
}

/// A launched call's future ([`launch`]).
pub(crate) enum Running {
    /// An inline handler's own future, polled on the driver's task. It is not woken by
    /// its call's token (made only if the handler asks): only the driver cancels that token, and the driver polls its calls
    /// again after cancelling them ([`Running::poll_end`] looks at the token first).
    Inline(BoxFuture<ToolResult>),
    /// A handler on the blocking pool (it watches its token itself), or a call that failed
    /// to start.
    Away(BoxFuture<ChildEnd>),
}

impl Running {
    /// Polls the call; `cancelled` says whether its token was cancelled. An inline
    /// handler whose token was cancelled is polled once more, so that a handler selecting
    /// on its token runs its cancel branch (up to its next await); nothing it answers is
    /// used. A panic while polling is contained as [`Failure::Panicked`].
    pub(crate) fn poll_end(
        &mut self,
        cx: &mut std::task::Context<'_>,
        cancelled: bool,
    ) -> std::task::Poll<ChildEnd> {
        use std::task::Poll;
        let future = match self {
            Running::Away(future) => return future.as_mut().poll(cx),
            Running::Inline(future) => future,
        };
        let polled = std::panic::catch_unwind(AssertUnwindSafe(|| future.as_mut().poll(cx)));
        if cancelled {
            return Poll::Ready(ChildEnd::Cancelled);
        }
        match polled {
            Ok(Poll::Pending) => Poll::Pending,
            Ok(Poll::Ready(result)) => Poll::Ready(ChildEnd::Finished(result)),
            Err(payload) => Poll::Ready(ChildEnd::Failed(Failure::Panicked(panic_text(&*payload)))),
        }
    }
}
