//! The calls one run's driver holds ([`Calls`]): those being decided by the permission
//! policy (with the cancellation each keeps for its dispatch) and those running
//! ([`Launched`]: the envelope's index, the cancellation shared with the handler's
//! context, the handler's future).
//!
//! Invariant: a run whose future is dropped cancels every call it still holds (`Drop for
//! Calls`), so no handler, nor a blocking-pool thread driving one, outlives its run.

use super::in_flight::InFlight;
use crate::cancel::CallCancel;
use crate::context::RunData;
use crate::dispatch::{self, ChildEnd};
use crate::policy::Decision;
use crate::tool::ToolRequestCtx;
use ptc_core::BoxFuture;
use ptc_core::envelope::{CallRequest, Envelope};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

/// A dispatched call: its index in the envelope, its cancellation and the handler's future.
pub(super) struct Launched {
    pub(super) call: usize,
    pub(super) cancel: CallCancel,
    pub(super) future: dispatch::Running,
}

impl Future for Launched {
    type Output = (usize, ChildEnd);

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let cancelled = self.cancel.is_cancelled();
        let end = std::task::ready!(self.future.poll_end(cx, cancelled));
        Poll::Ready((self.call, end))
    }
}

/// The permission round of one run: the calls being decided.
pub(super) struct Asking {
    /// Calls whose permission is being decided, with their cancellations.
    pub(super) asked: Vec<(Arc<str>, CallCancel)>,
    pub(super) deciding: InFlight<BoxFuture<(Arc<str>, Decision)>>,
}

/// The calls the driver holds for one run.
pub(super) struct Calls {
    /// The permission round's part, made by the first ask (a run under `AllowAll` has
    /// none).
    pub(super) asking: Option<Box<Asking>>,
    pub(super) running: InFlight<Launched>,
}

impl Calls {
    /// The permission round's part, made on first use.
    pub(super) fn asking(&mut self) -> &mut Asking {
        self.asking.get_or_insert_with(|| {
            Box::new(Asking {
                asked: Vec::new(),
                deciding: InFlight::Idle,
            })
        })
    }

    /// The policy's view of `request`, with the call's cancellation (kept for its
    /// dispatch).
    pub(super) fn ask(&mut self, request: &CallRequest, run_data: RunData) -> ToolRequestCtx {
        let cancel = CallCancel::shared();
        self.asking()
            .asked
            .push((request.id.clone(), cancel.clone()));
        ToolRequestCtx {
            id: request.id.clone(),
            parent_id: request.parent_id.clone(),
            source: "ptc",
            tool: request.tool.clone(),
            arguments: request.arguments.clone(),
            cancel,
            run_data,
        }
    }

    /// The handler's view of `request`, taking it whole; the call's cancellation is the one
    /// its policy saw, if it was asked.
    pub(super) fn dispatching(
        &mut self,
        request: CallRequest,
        run_data: RunData,
    ) -> ToolRequestCtx {
        let asked = self.asking.as_mut().and_then(|asking| {
            let index = asking.asked.iter().position(|(id, _)| *id == request.id)?;
            Some(asking.asked.swap_remove(index).1)
        });
        let cancel = asked.unwrap_or_default();
        ToolRequestCtx {
            id: request.id,
            parent_id: request.parent_id,
            source: "ptc",
            tool: request.tool,
            arguments: request.arguments,
            cancel,
            run_data,
        }
    }

    pub(super) fn cancel(&mut self, envelope: &Envelope, ids: &[String]) {
        if let Some(asking) = self.asking.as_mut() {
            for id in ids {
                if let Some(index) = asking.asked.iter().position(|(asked, _)| **asked == **id) {
                    asking.asked.swap_remove(index).1.cancel();
                }
            }
        }
        let calls: Vec<usize> = ids.iter().filter_map(|id| envelope.index_of(id)).collect();
        for launched in self.running.iter() {
            if calls.contains(&launched.call) {
                launched.cancel.cancel();
            }
        }
        // An inline call is not woken by its token: the next poll must reach it.
        self.running.requeue();
    }

    pub(super) fn cancel_all(&mut self) {
        if let Some(asking) = self.asking.as_mut() {
            for (_, token) in asking.asked.drain(..) {
                token.cancel();
            }
        }
        for launched in self.running.iter() {
            launched.cancel.cancel();
        }
        self.running.requeue();
    }
}

impl Drop for Calls {
    /// A run whose future is dropped cancels every call it still holds, so no handler
    /// (nor a blocking-pool thread driving one) outlives its run.
    fn drop(&mut self) {
        self.cancel_all();
    }
}
