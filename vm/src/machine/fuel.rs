//! Fuel and slices: when the dispatch loop must stop to check a budget.
//!
//! Owns the slice bookkeeping (`slice_end`, `slice_deadline`, `next_check`). Time comes
//! only from the host's [`Clock`](crate::Clock) ([`Machine::set_clock`]); the whole-run
//! `seconds` budget is not the machine's: whoever drives the run checks it between slices
//! and while calls are out (the runtime's envelope), against the same clock. Invariant: `next_check` is never beyond the step budget, the
//! slice end or the next clock check, so the dispatch loop's countdown reaches its slow
//! path before any of them is passed.

use super::Machine;
use crate::clock;
use crate::error::{Error, ErrorKind, Result};
use crate::limits::Limits;

/// Instructions between clock readings inside a slice.
const CLOCK_INTERVAL: u64 = 1024;

impl Machine {
    /// Starts a slice: sets the next pause point (the slice's steps, and with a clock its
    /// `slice-seconds` from the clock's reading now).
    pub(super) fn begin_slice(&mut self) -> Result<()> {
        self.started = true;
        self.slice_end = self
            .stats
            .fuel_used
            .saturating_add(self.limits.slice_steps.max(1));
        self.slice_deadline = match (&self.clock, clock::budget(self.limits.slice_seconds)) {
            (Some(clock), Some(slice)) => clock.elapsed().checked_add(slice),
            _ => None,
        };
        self.next_check = self.next_mark();
        Ok(())
    }

    pub(super) fn next_mark(&self) -> u64 {
        let clock = if self.slice_deadline.is_some() {
            self.stats.fuel_used.saturating_add(CLOCK_INTERVAL)
        } else {
            u64::MAX
        };
        self.slice_end.min(self.limits.steps).min(clock)
    }

    /// The slow path of fuel accounting, when `fuel_used` reached `next_check`: fails when
    /// the budget is spent, pauses when the slice is, and otherwise sets the next mark.
    pub(super) fn fuel_check(&mut self) -> Result<bool> {
        if !self.metered {
            self.next_check = u64::MAX;
            return Ok(false);
        }
        if self.stats.fuel_used >= self.limits.steps {
            return Err(step_budget(&self.limits, self.stats.fuel_used));
        }
        if self.stats.fuel_used >= self.slice_end
            || self.slice_deadline.is_some_and(|deadline| {
                self.clock
                    .as_ref()
                    .is_some_and(|clock| clock.elapsed() >= deadline)
            })
        {
            return Ok(true);
        }
        self.next_check = self.next_mark();
        Ok(false)
    }
}

pub(super) fn step_budget(limits: &Limits, used: u64) -> Error {
    Error::new(
        ErrorKind::Step,
        format!(
            "Script exceeded its step budget of {} after {} steps; narrow the script",
            limits.steps, used
        ),
    )
}
