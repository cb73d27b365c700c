//! Futures in flight for one run ([`InFlight`]): none, a lone one polled in place, a few
//! in one vector polled on every wake-up, or a `FuturesUnordered` for a larger batch.
//!
//! Invariant: `poll_next` answers `None` exactly when nothing is in flight, and a future
//! is polled again only while it has not completed (its slot is emptied when it does).

use futures::StreamExt as _;
use futures::stream::FuturesUnordered;
use std::pin::Pin;
use std::task::{Context, Poll};

/// How many futures [`InFlight`] keeps in a plain vector (all polled on every wake-up)
/// before it moves them to a `FuturesUnordered` (which polls only the woken ones but
/// allocates a task per future).
const FEW: usize = 8;

/// Futures in flight: none, a lone one polled in place (no allocation of its own), a few
/// in one vector, or a set that polls only the woken ones.
#[derive(Default)]
pub(super) enum InFlight<F> {
    #[default]
    Idle,
    One(F),
    Few(Vec<Option<F>>),
    Many(FuturesUnordered<F>),
}

impl<F: Future + Unpin> InFlight<F> {
    pub(super) fn push(&mut self, future: F) {
        *self = match std::mem::take(self) {
            InFlight::Idle => InFlight::One(future),
            InFlight::One(first) => {
                let mut few = Vec::with_capacity(4);
                few.push(Some(first));
                few.push(Some(future));
                InFlight::Few(few)
            }
            InFlight::Few(mut few) => {
                if let Some(free) = few.iter_mut().find(|slot| slot.is_none()) {
                    *free = Some(future);
                    InFlight::Few(few)
                } else if few.len() < FEW {
                    few.push(Some(future));
                    InFlight::Few(few)
                } else {
                    let set: FuturesUnordered<F> = few.into_iter().flatten().collect();
                    set.push(future);
                    InFlight::Many(set)
                }
            }
            InFlight::Many(set) => {
                set.push(future);
                InFlight::Many(set)
            }
        };
    }

    pub(super) fn iter(&self) -> impl Iterator<Item = &F> {
        let (one, few, many) = match self {
            InFlight::Idle => (None, None, None),
            InFlight::One(future) => (Some(future), None, None),
            InFlight::Few(few) => (None, Some(few.iter().flatten()), None),
            InFlight::Many(set) => (None, None, Some(set.iter())),
        };
        one.into_iter()
            .chain(few.into_iter().flatten())
            .chain(many.into_iter().flatten())
    }

    /// Makes the next poll reach every future (a set polls only the woken ones; a vector
    /// polls all anyway): for futures whose readiness changed without a wake-up.
    pub(super) fn requeue(&mut self) {
        if let InFlight::Many(set) = self {
            let set = std::mem::take(set);
            *self = InFlight::Many(set.into_iter().collect());
        }
    }

    /// The next output; `None` when nothing is in flight.
    pub(super) fn next(&mut self) -> impl Future<Output = Option<F::Output>> + '_ {
        std::future::poll_fn(move |cx| self.poll_next(cx))
    }

    /// Polls for the next output; `None` when nothing is in flight.
    pub(super) fn poll_next(&mut self, cx: &mut Context<'_>) -> Poll<Option<F::Output>> {
        let output = match self {
            InFlight::Idle => return Poll::Ready(None),
            InFlight::One(future) => std::task::ready!(Pin::new(future).poll(cx)),
            InFlight::Few(few) => {
                let mut pending = false;
                for slot in few.iter_mut() {
                    let Some(future) = slot else { continue };
                    if let Poll::Ready(output) = Pin::new(future).poll(cx) {
                        *slot = None;
                        return Poll::Ready(Some(output));
                    }
                    pending = true;
                }
                if pending {
                    return Poll::Pending;
                }
                *self = InFlight::Idle;
                return Poll::Ready(None);
            }
            InFlight::Many(set) => match std::task::ready!(set.poll_next_unpin(cx)) {
                Some(output) => output,
                None => {
                    *self = InFlight::Idle;
                    return Poll::Ready(None);
                }
            },
        };
        if matches!(self, InFlight::One(_)) {
            *self = InFlight::Idle;
        }
        Poll::Ready(Some(output))
    }
}
