//! A nested call's cancellation token is made when first asked for
//! (`ToolRequestCtx::cancel`): these tests hold that a token asked for only after its call
//! was cancelled — by the host's interrupt, a per-call timeout, the run's deadline or a
//! sibling's denial in a `parallel` — is already cancelled, under both isolations; that a
//! token asked for first fires when the call is cancelled; and that a handler that never
//! asks runs as before.

use ptc_runtime::core::Status;
use ptc_runtime::{
    BoxFuture, CancelToken, Decision, Isolation, OutcomeKind, PermissionPolicy, Registry,
    RunOptions, Runner, ToolContract, ToolRequestCtx, ToolResult,
};
use ptc_vm::Limits;
use serde_json::json;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What the tools saw.
#[derive(Default)]
struct Seen {
    /// Contexts of `Late` calls (and of every call a policy was asked about), kept without
    /// asking for their tokens.
    contexts: Mutex<Vec<ToolRequestCtx>>,
    /// `Waits` calls entered, and those that ran their cancel branch.
    entered: AtomicU64,
    stopped: AtomicU64,
}

impl Seen {
    fn saved(&self) -> usize {
        self.contexts.lock().unwrap().len()
    }

    /// Asks every kept context for its token now: whether each is cancelled.
    fn cancelled(&self) -> Vec<bool> {
        let contexts = self.contexts.lock().unwrap();
        contexts.iter().map(|c| c.cancel().is_cancelled()).collect()
    }
}

/// Tools: `Late` keeps a clone of its context without asking for the token and never
/// answers; `Waits` asks at once and answers `stopped` when its token fires; `Quick`
/// answers at once and never asks.
fn registry(seen: &Arc<Seen>) -> Arc<Registry> {
    let schema = json!({"type": "object"});
    let mut registry = Registry::new();
    let keep = seen.clone();
    registry
        .register(
            ToolContract::new("Late", "Never answers.", schema.clone()),
            move |request: ToolRequestCtx| {
                keep.contexts.lock().unwrap().push(request.clone());
                std::future::pending::<ToolResult>()
            },
        )
        .unwrap();
    let waits = seen.clone();
    registry
        .register(
            ToolContract::new("Waits", "Answers when cancelled.", schema.clone()),
            move |request: ToolRequestCtx| {
                let seen = waits.clone();
                seen.entered.fetch_add(1, Ordering::SeqCst);
                async move {
                    request.cancel().cancelled().await;
                    seen.stopped.fetch_add(1, Ordering::SeqCst);
                    ToolResult::text("stopped")
                }
            },
        )
        .unwrap();
    registry
        .register(
            ToolContract::new("Quick", "Answers at once.", schema),
            |_request: ToolRequestCtx| async { ToolResult::text("quick") },
        )
        .unwrap();
    Arc::new(registry)
}

const BOTH: [Isolation; 2] = [Isolation::Inline, Isolation::Thread];

fn runner(seen: &Arc<Seen>, isolation: Isolation, limits: Limits) -> Runner {
    Runner::new(registry(seen))
        .with_isolation(isolation)
        .with_limits(limits)
}

#[tokio::test]
async fn a_token_asked_for_after_an_interrupt_is_already_cancelled() {
    for isolation in BOTH {
        let seen = Arc::new(Seen::default());
        let options = RunOptions::new().id("i").cancel(CancelToken::new());
        let stopper = options.cancel_token().clone();
        let watch = seen.clone();
        tokio::spawn(async move {
            // Interrupt once both waiting calls are in their handlers.
            while watch.saved() < 1 || watch.entered.load(Ordering::SeqCst) < 1 {
                tokio::time::sleep(Duration::from_millis(1)).await;
            }
            stopper.cancel();
        });
        let outcome = runner(&seen, isolation, Limits::default())
            .run("(parallel (Late) (Waits))", options)
            .await;
        assert_eq!(outcome.kind, OutcomeKind::Interrupted, "{isolation:?}");
        let statuses: Vec<_> = outcome.calls.iter().map(|c| c.status).collect();
        assert_eq!(statuses, [Status::Cancelled; 2], "{isolation:?}");
        // Late never asked: its token, asked for now, is the cancelled one.
        assert_eq!(seen.cancelled(), [true], "{isolation:?}");
        // Waits asked first: its token fired and it ran its cancel branch.
        assert_eq!(seen.stopped.load(Ordering::SeqCst), 1, "{isolation:?}");
    }
}

#[tokio::test]
async fn a_token_asked_for_after_a_timeout_or_the_deadline_is_already_cancelled() {
    for isolation in BOTH {
        let seen = Arc::new(Seen::default());
        let limits = Limits {
            tool_timeout_ms: Some(20),
            ..Limits::default()
        };
        let outcome = runner(&seen, isolation, limits)
            .run("(list (Late) (Quick))", RunOptions::new().id("t"))
            .await;
        assert_eq!(outcome.kind, OutcomeKind::Completed, "{isolation:?}");
        assert_eq!(
            outcome.text,
            "((:error \"Error: Late timed out after 20 ms\") \"quick\")"
        );
        assert_eq!(seen.cancelled(), [true], "{isolation:?}");

        let seen = Arc::new(Seen::default());
        let limits = Limits {
            seconds: Some(0.05),
            ..Limits::default()
        };
        let outcome = runner(&seen, isolation, limits)
            .run("(Late)", RunOptions::new().id("d"))
            .await;
        assert_eq!(outcome.kind, OutcomeKind::ScriptError, "{isolation:?}");
        assert_eq!(outcome.calls[0].status, Status::Cancelled, "{isolation:?}");
        assert_eq!(seen.cancelled(), [true], "{isolation:?}");
    }
}

/// Allows every call at once except `Quick`, which it denies after 30 ms; keeps every
/// context it is asked about without asking for its token.
struct DenyQuickLater(Arc<Seen>);

impl PermissionPolicy for DenyQuickLater {
    fn check(&self, request: &ToolRequestCtx) -> BoxFuture<Decision> {
        if &*request.tool != "Quick" {
            return Box::pin(std::future::ready(Decision::Allow));
        }
        self.0.contexts.lock().unwrap().push(request.clone());
        Box::pin(async {
            tokio::time::sleep(Duration::from_millis(30)).await;
            Decision::Deny("no".into())
        })
    }
}

#[tokio::test]
async fn a_sibling_denial_cancels_tokens_nobody_asked_for_yet() {
    for isolation in BOTH {
        let seen = Arc::new(Seen::default());
        let runner = runner(&seen, isolation, Limits::default())
            .with_policy(Arc::new(DenyQuickLater(seen.clone())));
        let outcome = runner
            .run("(parallel (Late) (Quick))", RunOptions::new().id("p"))
            .await;
        assert_eq!(outcome.kind, OutcomeKind::Denied, "{isolation:?}");
        let statuses: Vec<_> = outcome.calls.iter().map(|c| c.status).collect();
        assert_eq!(
            statuses,
            [Status::Cancelled, Status::Denied],
            "{isolation:?}"
        );
        // The policy's view of Quick (asked, denied) and Late's running handler.
        assert_eq!(seen.saved(), 2, "{isolation:?}");
        assert_eq!(seen.cancelled(), [true, true], "{isolation:?}");
    }
}

#[tokio::test]
async fn a_handler_that_never_asks_runs_as_before_and_a_context_made_alone_has_a_token() {
    for isolation in BOTH {
        let seen = Arc::new(Seen::default());
        let outcome = runner(&seen, isolation, Limits::default())
            .run("(list (Quick) (Quick))", RunOptions::new())
            .await;
        assert_eq!(outcome.text, "(\"quick\" \"quick\")", "{isolation:?}");
    }
    let ctx = ToolRequestCtx::new("x/1", "x", "Quick", Arc::new(json!({})));
    let clone = ctx.clone();
    assert!(!ctx.cancel().is_cancelled());
    clone.cancel().cancel();
    assert!(ctx.cancel().is_cancelled());
    assert_eq!(ctx.source, "ptc");
}
