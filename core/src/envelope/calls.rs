//! The envelope's nested calls: preparing a suspension's requests (audit record, argument
//! conversion and validation), launching them under the parallelism bound, the permission
//! decision point, dispatch, per-call timeouts, and every answer the host feeds back.
//!
//! Invariant: a call's [`CallState`] only moves forward (queued → asking → allowed →
//! running → ended); an answer that does not fit the current state is refused with an
//! [`EnvelopeError`] before anything is touched.

use super::batch::{Held, Slot, Slots};
use super::replay::Stop;
use super::{Batch, CallRequest, CallState, Envelope, EnvelopeError, Event, Failure, Phase};
use crate::audit::{self, AuditRecord, Status};
use crate::call_result::{settle_owned, settle_result};
use crate::catalog::ToolResult;
use crate::resume::{Answer, Approval, Replayed};
use crate::{args, convert};
use ptc_vm::{ToolRequest, Value};
use serde_json::Value as Json;
use std::sync::Arc;
use std::time::Duration;

/// The fewest calls the audit grows by after a run's first suspension: a script that makes
/// a second call usually makes a few (the agent script of issue 19 makes five in three
/// suspensions: 1, 1, 3), and each growth is a reallocation.
const GROWTH: usize = 4;

impl Envelope {
    /// Records and prepares a suspension's requests; the phase becomes [`Phase::Calls`].
    pub(super) fn begin(
        &mut self,
        requests: impl ExactSizeIterator<Item = ToolRequest>,
        direct: bool,
        single: bool,
    ) {
        let count = requests.len();
        let batch = (count > 1).then(|| {
            let number = self.next_batch;
            self.next_batch = self.next_batch.saturating_add(1);
            u64::from(number)
        });
        let first = self.calls.len();
        self.reserve_calls(count);
        let mut requests = requests;
        let slots = match (count, requests.next()) {
            (1, Some(only)) => Slots::One(self.slot(only, batch, direct)),
            (_, head) => Slots::Many(
                head.into_iter()
                    .chain(requests)
                    .map(|request| self.slot(request, batch, direct))
                    .collect(),
            ),
        };
        self.report(true);
        self.phase = Phase::Calls(Batch {
            first: u32::try_from(first).unwrap_or(u32::MAX),
            next: 0,
            done: 0,
            slots,
            direct,
            single,
        });
    }

    /// The queued slot of `request`, its audit record made.
    fn slot(&mut self, request: ToolRequest, batch: Option<u64>, direct: bool) -> Slot {
        let prepared = self.prepare(&request, batch, direct);
        // Converted: the guest's argument list is read no more.
        request.args.release();
        let held = match prepared {
            Ok(arguments) => Held::Args(arguments),
            Err(message) => {
                let call = self.calls.len() - 1;
                self.cold().refusals.push((call, message));
                Held::Nothing
            }
        };
        Slot {
            state: CallState::Queued,
            held,
        }
    }

    /// The audit record of one call, and its converted arguments or why they were refused.
    fn prepare(
        &mut self,
        request: &ToolRequest,
        batch: Option<u64>,
        direct: bool,
    ) -> Result<Arc<Json>, String> {
        let order = self.calls.len() as u64 + 1;
        let mut record = AuditRecord::new(&self.id, order, request.tool.clone(), Status::Queued);
        record.batch = batch;
        let prepared = match (self.catalog.get(&request.tool), &self.machine) {
            (None, _) | (_, None) => Err(format!("Tool {} is unavailable", request.tool)),
            (Some(tool), Some(machine)) => {
                match args::prepare(tool, &request.args, machine.symbols(), machine.limits()) {
                    Err(error) => {
                        // Keep what the guest sent, for the audit, when it converts at all.
                        record.args =
                            convert::to_json(&request.args, machine.symbols(), machine.limits())
                                .ok()
                                .and_then(|json| audit::bound_args(&json))
                                .map(Arc::new);
                        Err(error.0)
                    }
                    Ok(arguments) => {
                        let arguments = Arc::new(arguments);
                        if direct {
                            record.args = Some(Arc::clone(&arguments));
                        } else {
                            record.args = audit::bound_shared(&arguments);
                            record.args_omitted = record.args.is_none();
                        }
                        Ok(arguments)
                    }
                }
            }
        };
        self.calls.push(record);
        if self.options.progress {
            self.cold().tracks.push(crate::progress::Track::default());
        }
        prepared
    }

    /// The request of call `call` (at `position` in its batch), from its audit record.
    fn request(
        &self,
        call: usize,
        position: usize,
        arguments: Arc<Json>,
        deadline: Option<Duration>,
    ) -> Option<CallRequest> {
        let record = self.calls.get(call)?;
        Some(CallRequest {
            id: Arc::clone(&record.id),
            parent_id: Arc::clone(&self.id),
            tool: Arc::clone(&record.tool),
            arguments,
            batch: record.batch,
            position,
            deadline,
        })
    }

    /// Services the current suspension; an event to return, or `None` when the phase
    /// moved on (the machine resumed, or the envelope is settling).
    pub(super) fn service(&mut self, mut batch: Batch) -> Option<Event> {
        let expired = self.expire_calls(&mut batch);
        if !expired.is_empty() {
            self.phase = Phase::Calls(batch);
            return Some(Event::Cancel(expired));
        }
        if self.past_deadline() {
            self.phase = Phase::Calls(batch);
            self.time_out_envelope();
            return None;
        }
        let (asks, stop) = self.launch(&mut batch);
        if let Some(stop) = stop {
            self.phase = Phase::Calls(batch);
            self.stop_launch(stop);
            return None;
        }
        if !asks.is_empty() {
            self.phase = Phase::Calls(batch);
            return Some(Event::Permission(asks));
        }
        if let Some(event) = self.dispatch_allowed(&mut batch) {
            self.phase = Phase::Calls(batch);
            return Some(event);
        }
        if batch.finished() {
            if Self::holds_paused(&batch) {
                self.phase = Phase::Calls(batch);
                self.settle_paused();
            } else {
                self.resume_machine(batch);
            }
            return None;
        }
        let deadline = batch
            .slots
            .iter()
            .filter_map(|slot| match slot.state {
                CallState::Running { deadline } => deadline,
                _ => None,
            })
            .min()
            .map(|d| self.host_time(super::nanos(d)))
            .into_iter()
            .chain(self.deadline())
            .min();
        self.phase = Phase::Calls(batch);
        Some(Event::Waiting { deadline })
    }

    /// Times out every running call whose deadline has passed; their ids.
    fn expire_calls(&mut self, batch: &mut Batch) -> Vec<String> {
        let Some(ms) = self.limits().tool_timeout_ms else {
            return Vec::new();
        };
        let now = self.now();
        let mut expired = Vec::new();
        for position in 0..batch.count() {
            let call = batch.first() + position;
            let due = matches!(
                batch.state(call),
                Some(CallState::Running { deadline: Some(d) }) if now >= *d
            );
            if !due {
                continue;
            }
            let tool = self.tool_of(call);
            let message = format!("Error: {tool} timed out after {ms} ms");
            self.trace_timeout(call);
            self.record_error(call, &message);
            self.end_with_error(batch, position, message);
            if let Some(record) = self.calls.get(call) {
                expired.push(record.id.to_string());
            }
        }
        expired
    }

    /// Launches queued calls while slots are free; the permission asks to emit, and what
    /// stopped the launching when a resumed run's journal denies a call or diverges.
    fn launch(&mut self, batch: &mut Batch) -> (Vec<CallRequest>, Option<Stop>) {
        let parallelism = usize::try_from(self.limits().parallelism.max(1)).unwrap_or(1);
        let mut asks = Vec::new();
        let mut unanswered = None;
        while batch.next() < batch.count() && Self::active(batch) < parallelism {
            let position = batch.next();
            batch.next += 1;
            let call = batch.first() + position;
            // The arguments stay in the slot for its dispatch; only an ask copies the request.
            match batch.slots.get(position).map(|slot| &slot.held) {
                Some(Held::Args(arguments)) => {
                    let arguments = Arc::clone(arguments);
                    let replayed = if self.cold.is_some() {
                        self.record_launch(call, &arguments);
                        self.replay_meet(call, &arguments)
                    } else {
                        Replayed::Live
                    };
                    self.set(call, Status::Running, None);
                    let ask = match replayed {
                        Replayed::Live | Replayed::Decide(None) => self.options.ask_permission,
                        Replayed::Decide(Some(Approval::Allow)) => false,
                        Replayed::Decide(Some(Approval::Deny(reason))) => {
                            batch.set_state(call, CallState::Asking);
                            return (asks, Some(Stop::Deny(call, reason)));
                        }
                        Replayed::Diverged(message) => {
                            return (asks, Some(Stop::Diverged(message)));
                        }
                        Replayed::Unanswered(message) => {
                            // Held without an ask: a journaled denial later in this
                            // suspension may still end the run as it did when recorded.
                            batch.set_state(call, CallState::Asking);
                            unanswered.get_or_insert(message);
                            continue;
                        }
                        Replayed::Answer(answer) => {
                            batch.set_state(call, CallState::Running { deadline: None });
                            match answer {
                                Answer::Result { result } => {
                                    self.answer_slot(batch, call, result);
                                }
                                Answer::Error { message } => {
                                    self.record_error(call, &message);
                                    self.end_with_error(batch, position, message);
                                }
                                Answer::Denied { reason } => {
                                    batch.set_state(call, CallState::Asking);
                                    return (asks, Some(Stop::Deny(call, reason)));
                                }
                            }
                            continue;
                        }
                    };
                    if ask {
                        batch.set_state(call, CallState::Asking);
                        self.set_waiting(call, true);
                        self.flags |= super::UNREPORTED;
                        asks.extend(self.request(call, position, arguments, None));
                    } else {
                        batch.set_state(call, CallState::Allowed);
                        self.report(true);
                    }
                }
                _ => match self.take_refusal(call) {
                    Some(message) => {
                        let message = format!("Error: {message}");
                        self.end_with_error(batch, position, message);
                    }
                    None => batch.done += 1,
                },
            }
        }
        (asks, unanswered.map(Stop::Diverged))
    }

    /// The refusal message of queued call `call`, taken.
    fn take_refusal(&mut self, call: usize) -> Option<String> {
        let refusals = &mut self.cold.as_mut()?.refusals;
        let index = refusals.iter().position(|(refused, _)| *refused == call)?;
        Some(refusals.swap_remove(index).1)
    }

    /// Calls of `batch` holding a slot: asking, allowed or running.
    fn active(batch: &Batch) -> usize {
        batch
            .slots
            .iter()
            .filter(|slot| {
                matches!(
                    slot.state,
                    CallState::Asking | CallState::Allowed | CallState::Running { .. }
                )
            })
            .count()
    }

    /// The dispatch event for the calls just allowed, if any: every allowed call moved to
    /// running and its request in the event, or (for the driver, which takes them one by
    /// one with [`Envelope::next_dispatch`]) an empty list.
    fn dispatch_allowed(&mut self, batch: &mut Batch) -> Option<Event> {
        if self.flags & super::PULL_DISPATCHES != 0 {
            return Self::next_allowed(batch, 0).map(|_| Event::Dispatch(Vec::new()));
        }
        let mut ready = Vec::new();
        let mut from = 0;
        while let Some((position, _, request)) = self.dispatch_one(batch, from) {
            from = position + 1;
            ready.push(request);
        }
        (!ready.is_empty()).then_some(Event::Dispatch(ready))
    }

    /// The position of `batch`'s first allowed call at or after `from`, if any.
    fn next_allowed(batch: &Batch, from: usize) -> Option<usize> {
        let launched = batch.slots.get(from..batch.next()).unwrap_or_default();
        let found = launched.iter().position(|slot| {
            slot.state == CallState::Allowed && matches!(slot.held, Held::Args(_))
        })?;
        Some(from + found)
    }

    /// Moves `batch`'s first allowed call at or after `from` to running: its position,
    /// index and request.
    fn dispatch_one(
        &mut self,
        batch: &mut Batch,
        from: usize,
    ) -> Option<(usize, usize, CallRequest)> {
        let position = Self::next_allowed(batch, from)?;
        let call = batch.first() + position;
        let deadline = self
            .limits()
            .tool_timeout_ms
            .and_then(|ms| self.now().checked_add(Duration::from_millis(ms)));
        let slot = batch.slots.get_mut(position)?;
        let Held::Args(arguments) = std::mem::replace(&mut slot.held, Held::Nothing) else {
            return None;
        };
        slot.state = CallState::Running { deadline };
        let deadline = deadline.map(|d| self.host_time(super::nanos(d)));
        Some((
            position,
            call,
            self.request(call, position, arguments, deadline)?,
        ))
    }

    /// For the driver ([`Envelope::pull_dispatches`]): moves the next allowed call to
    /// running, after a [`Event::Dispatch`]; its index and request, `None` when every
    /// allowed call was taken.
    pub fn next_dispatch(&mut self) -> Option<(usize, CallRequest)> {
        let mut batch = self.take_batch()?;
        let next = self.dispatch_one(&mut batch, 0);
        self.phase = Phase::Calls(batch);
        next.map(|(_, call, request)| (call, request))
    }

    /// Room for `count` more calls in the per-call vectors: exact for a run's first
    /// suspension (most runs make a call or two, and a run suspended at its first call
    /// holds no spare record), then room for at least [`GROWTH`] more calls, doubling
    /// after (so a long loop of calls stays linear).
    fn reserve_calls(&mut self, count: usize) {
        let len = self.calls.len();
        if self.calls.capacity() - len >= count {
            return;
        }
        let more = if len == 0 {
            count
        } else {
            count.max(len).max(GROWTH)
        };
        self.calls.reserve_exact(more);
        if self.options.progress {
            self.cold().tracks.reserve_exact(more);
        }
    }

    /// Every member ended: resumes the machine, or settles a direct call.
    fn resume_machine(&mut self, batch: Batch) {
        let Batch {
            slots,
            direct,
            single,
            ..
        } = batch;
        let values = match slots {
            Slots::One(slot) if single => Err(slot.held.into_value()),
            Slots::One(slot) => Ok(vec![slot.held.into_value()]),
            // In place: the slots' allocation becomes the list of results.
            Slots::Many(slots) => Ok(slots
                .into_vec()
                .into_iter()
                .map(|slot| slot.held.into_value())
                .collect::<Vec<Value>>()),
        };
        if direct {
            let value = match values {
                Err(value) => value,
                Ok(values) => values.into_iter().next().unwrap_or_default(),
            };
            self.direct_completed(&value);
            return;
        }
        let Some(machine) = self.machine.as_mut() else {
            return;
        };
        let step = match values {
            Err(value) => machine.resume_tool(value),
            Ok(values) => machine.resume_batch(values),
        };
        self.phase = Phase::Ready(Some(step));
    }

    /// Ends `position` of `batch` as a failure whose guest value is `(:error MESSAGE)`.
    fn end_with_error(&mut self, batch: &mut Batch, position: usize, message: String) {
        let call = batch.first() + position;
        self.set(call, Status::Error, Some(message.clone()));
        if let Some(machine) = self.machine.as_mut()
            && let Some(slot) = batch.slots.get_mut(position)
        {
            slot.held = Held::Value(machine.error_value(&message));
        }
        self.end(batch, call);
    }

    fn end(&mut self, batch: &mut Batch, call: usize) {
        batch.set_state(call, CallState::Ended);
        self.set_waiting(call, false);
        batch.done += 1;
        self.report(true);
    }

    fn tool_of(&self, call: usize) -> String {
        self.calls
            .get(call)
            .map(|c| c.tool.to_string())
            .unwrap_or_default()
    }

    /// The index of call `id`, checking the envelope still takes answers.
    fn lookup(&self, id: &str) -> Result<usize, EnvelopeError> {
        if matches!(
            self.phase,
            Phase::Settled(_) | Phase::HandedOver | Phase::Persisting { .. }
        ) {
            return Err(EnvelopeError::Settled);
        }
        self.index_of(id)
            .ok_or_else(|| EnvelopeError::UnknownCall(id.to_owned()))
    }

    /// The call's index when it is in `expected` state, else the typed refusal.
    pub(super) fn expect(
        &self,
        id: &str,
        what: &'static str,
        fits: fn(&CallState) -> bool,
    ) -> Result<usize, EnvelopeError> {
        let call = self.lookup(id)?;
        self.expect_state(call, id, what, fits)
    }

    /// `call`'s index when it is in `expected` state and the envelope takes answers (the
    /// driver's path: it holds indices, not ids).
    fn expect_at(
        &self,
        call: usize,
        what: &'static str,
        fits: fn(&CallState) -> bool,
    ) -> Result<usize, EnvelopeError> {
        let id = self.calls.get(call).map_or("", |record| &*record.id);
        self.lookup(id)?;
        self.expect_state(call, id, what, fits)
    }

    /// The index of call `id` of this envelope, whether or not it still takes answers.
    pub fn index_of(&self, id: &str) -> Option<usize> {
        id.strip_prefix(&*self.id)
            .and_then(|rest| rest.strip_prefix('/'))
            .and_then(|n| n.parse::<usize>().ok())
            .and_then(|n| n.checked_sub(1))
            .filter(|&call| self.calls.get(call).is_some_and(|c| *c.id == *id))
    }

    /// `call` (whose id is `id`) when its state fits, else the typed refusal.
    fn expect_state(
        &self,
        call: usize,
        id: &str,
        what: &'static str,
        fits: fn(&CallState) -> bool,
    ) -> Result<usize, EnvelopeError> {
        let state = self.state_of(call);
        if fits(&state) {
            return Ok(call);
        }
        let state = match state {
            CallState::Ended => self
                .calls
                .get(call)
                .map_or("ended", |c| c.status.as_str())
                .to_owned(),
            other => other.name().to_owned(),
        };
        Err(EnvelopeError::NotAwaiting {
            id: id.to_owned(),
            expected: what,
            state,
        })
    }

    /// The batch being serviced, taken out of the phase (put it back when done).
    pub(super) fn take_batch(&mut self) -> Option<Batch> {
        match std::mem::replace(&mut self.phase, Phase::Ready(None)) {
            Phase::Calls(batch) => Some(batch),
            other => {
                self.phase = other;
                None
            }
        }
    }

    /// Allows call `id`, which awaits its permission decision; it is dispatched by the next
    /// [`Envelope::poll`].
    ///
    /// # Errors
    /// [`EnvelopeError`] when the id is unknown, the call is not awaiting a decision, or
    /// the envelope settled.
    pub fn allow(&mut self, id: &str) -> Result<(), EnvelopeError> {
        let call = self.expect(id, "a permission decision", |s| *s == CallState::Asking)?;
        self.set_state(call, CallState::Allowed);
        self.set_waiting(call, false);
        self.report(true);
        Ok(())
    }

    /// Denies call `id`: the script aborts, its unfinished siblings are cancelled (named in
    /// an [`Event::Cancel`]) and the envelope settles `denied`. Earlier effects stay. The
    /// call may await its decision or, for hosts that fold the permission decision into
    /// the call itself (a protocol peer answering `{"denied": ...}`), be allowed or running.
    ///
    /// # Errors
    /// As [`Envelope::allow`], for a call that has ended or is still queued.
    pub fn deny(&mut self, id: &str, reason: impl Into<String>) -> Result<(), EnvelopeError> {
        let call = self.expect(id, "a permission decision", |s| {
            matches!(
                s,
                CallState::Asking | CallState::Allowed | CallState::Running { .. }
            )
        })?;
        let reason = reason.into();
        if self.cold.is_some() {
            self.record_denial(call, &reason);
        }
        let tool = self.tool_of(call);
        let scope = match &self.phase {
            Phase::Calls(batch) => batch.scope(),
            _ => "script",
        };
        self.set(call, Status::Denied, Some(reason.clone()));
        self.set_state(call, CallState::Ended);
        self.set_waiting(call, false);
        self.abandon("Cancelled after sibling denial");
        let message = format!("{scope} aborted because nested {tool} was denied: {reason}");
        let summary = audit::summary(&self.calls);
        self.settle_error(
            crate::OutcomeKind::Denied,
            crate::ErrorKind::Denied,
            &message,
            summary,
        );
        Ok(())
    }

    /// Marks every unfinished call cancelled with `why`, queueing an [`Event::Cancel`] for
    /// those the host holds (asking, allowed or running).
    pub(super) fn abandon(&mut self, why: &str) {
        let mut held = Vec::new();
        // Only the suspension being serviced has calls that are not ended.
        if let Phase::Calls(batch) = &mut self.phase {
            let first = batch.first();
            for (position, slot) in batch.slots.iter_mut().enumerate() {
                let held_now = matches!(
                    slot.state,
                    CallState::Asking | CallState::Allowed | CallState::Running { .. }
                );
                if held_now && let Some(record) = self.calls.get(first + position) {
                    held.push(record.id.to_string());
                }
                slot.state = CallState::Ended;
            }
        }
        for record in &mut self.calls {
            if !record.status.is_terminal() || record.status == Status::Paused {
                record.status = Status::Cancelled;
                record.preview = Some(why.to_owned());
            }
        }
        if let Some(cold) = self.cold.as_mut() {
            cold.tracks
                .iter_mut()
                .for_each(|track| track.waiting = false);
        }
        if !held.is_empty() {
            self.cold().outbox.push_back(Event::Cancel(held));
        }
    }

    /// Feeds call `id`'s result (the host's `CallToolResult`; `is_error` results are
    /// guest `(:error ...)` values), which arrived at `now` (since the run started).
    ///
    /// An answer that arrives after the call's deadline ([`CallRequest::deadline`]) is
    /// refused as that call's timeout, exactly as if a poll had come first: the call ends
    /// with the timeout error and the answer is dropped (`Ok`: the host did nothing
    /// wrong). One that arrives after the envelope's deadline is dropped too, and the next
    /// poll times the envelope out.
    ///
    /// # Errors
    /// [`EnvelopeError`] when the id is unknown, the call is not running (never
    /// dispatched, already answered, timed out or cancelled), or the envelope settled.
    pub fn complete(
        &mut self,
        now: Duration,
        id: &str,
        result: ToolResult,
    ) -> Result<(), EnvelopeError> {
        let call = self.expect(id, "a result", |s| matches!(s, CallState::Running { .. }))?;
        if self.late(now, call) {
            return Ok(());
        }
        self.complete_running(call, result)
    }

    /// [`Envelope::complete`] for the call at index `call` (the driver's path).
    pub fn complete_at(
        &mut self,
        now: Duration,
        call: usize,
        result: ToolResult,
    ) -> Result<(), EnvelopeError> {
        let call = self.expect_at(call, "a result", |s| matches!(s, CallState::Running { .. }))?;
        if self.late(now, call) {
            return Ok(());
        }
        self.complete_running(call, result)
    }

    /// Advances the clock to `now`; whether the answer of running call `call` comes too
    /// late. Past the envelope's deadline the call is left for the next poll's time-out of
    /// the whole envelope; past the call's own deadline it ends here as timed out (the
    /// ending a poll at `now` would have given it).
    fn late(&mut self, now: Duration, call: usize) -> bool {
        self.advance(now);
        if self.past_deadline() {
            return true;
        }
        let now = self.now();
        let due = matches!(
            self.state_of(call),
            CallState::Running { deadline: Some(deadline) } if now >= deadline
        );
        if !due {
            return false;
        }
        let Some(mut batch) = self.take_batch() else {
            return false;
        };
        let ms = self.limits().tool_timeout_ms.unwrap_or_default();
        let message = format!("Error: {} timed out after {ms} ms", self.tool_of(call));
        let position = call - batch.first();
        self.record_error(call, &message);
        self.end_with_error(&mut batch, position, message);
        self.phase = Phase::Calls(batch);
        true
    }

    /// The running call `call` answered `result`.
    fn complete_running(&mut self, call: usize, result: ToolResult) -> Result<(), EnvelopeError> {
        let Some(mut batch) = self.take_batch() else {
            return Err(self.unknown(call));
        };
        self.answer_slot(&mut batch, call, result);
        self.phase = Phase::Calls(batch);
        Ok(())
    }

    /// Ends running call `call` of `batch` with `result` (the host's or the journal's).
    fn answer_slot(&mut self, batch: &mut Batch, call: usize, mut result: ToolResult) {
        if self.cold.is_some() {
            self.record_result(call, &result);
        }
        let position = call - batch.first();
        if let Some(machine) = self.machine.as_mut() {
            // A direct call's result is kept whole for the host; any other is read no more.
            let settled = if batch.direct {
                settle_result(machine, &result, &self.limits)
            } else {
                settle_owned(machine, &mut result, &self.limits)
            };
            if let Some(record) = self.calls.get_mut(call) {
                record.media = result.media().into_boxed_slice();
                record.notes = result.notes.as_slice().into();
            }
            if !result.notes.is_empty() {
                self.cold().notes.extend(result.notes.iter().cloned());
            }
            self.set(call, settled.status, settled.preview);
            if let Some(slot) = batch.slots.get_mut(position) {
                slot.held = Held::Value(settled.value);
            }
        }
        if batch.direct {
            self.cold().direct_result = Some(result);
        }
        self.end(batch, call);
    }

    /// Feeds the host's failure to run call `id` (distinct from a tool's `is_error`
    /// result): the guest gets `(:error "Error: ...")`. A panic's text never reaches the
    /// guest.
    ///
    /// A failure that arrives late is refused as the call's timeout, as in
    /// [`Envelope::complete`].
    ///
    /// # Errors
    /// As [`Envelope::complete`].
    pub fn fail(&mut self, now: Duration, id: &str, failure: Failure) -> Result<(), EnvelopeError> {
        let call = self.expect(id, "a result", |s| matches!(s, CallState::Running { .. }))?;
        if self.late(now, call) {
            return Ok(());
        }
        self.fail_running(call, failure)
    }

    /// [`Envelope::fail`] for the call at index `call` (the driver's path).
    pub fn fail_at(
        &mut self,
        now: Duration,
        call: usize,
        failure: Failure,
    ) -> Result<(), EnvelopeError> {
        let call = self.expect_at(call, "a result", |s| matches!(s, CallState::Running { .. }))?;
        if self.late(now, call) {
            return Ok(());
        }
        self.fail_running(call, failure)
    }

    /// The running call `call` failed on the host's side.
    fn fail_running(&mut self, call: usize, failure: Failure) -> Result<(), EnvelopeError> {
        let Some(mut batch) = self.take_batch() else {
            return Err(self.unknown(call));
        };
        let tool = self.tool_of(call);
        let message = match failure {
            Failure::Panicked(_) => {
                format!("Error: {tool} failed: the tool crashed (details are in the host's log)")
            }
            Failure::TimedOut { ms } => format!("Error: {tool} timed out after {ms} ms"),
            Failure::Host(message) => format!("Error: {tool} failed: {message}"),
        };
        let position = call - batch.first();
        self.record_error(call, &message);
        self.end_with_error(&mut batch, position, message);
        self.phase = Phase::Calls(batch);
        Ok(())
    }

    /// The refusal for `call` when no suspension is being serviced.
    fn unknown(&self, call: usize) -> EnvelopeError {
        EnvelopeError::UnknownCall(
            self.calls
                .get(call)
                .map_or_else(String::new, |c| c.id.to_string()),
        )
    }

    /// The earliest time (since the run started) at which [`Envelope::poll`] has something
    /// new to say without any answer arriving: a per-call timeout or the envelope's
    /// deadline.
    #[must_use]
    pub fn next_deadline(&self) -> Option<Duration> {
        let slots = match &self.phase {
            Phase::Calls(batch) => &*batch.slots,
            _ => &[],
        };
        slots
            .iter()
            .filter_map(|slot| match slot.state {
                CallState::Running { deadline } => deadline,
                _ => None,
            })
            .min()
            .map(|d| self.host_time(super::nanos(d)))
            .into_iter()
            .chain(self.deadline())
            .min()
    }
}
