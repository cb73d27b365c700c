//! Fuel, slices and clocks: when the dispatch loop must stop to check a budget.
//!
//! Owns the slice bookkeeping (`slice_end`, `slice_deadline`, `next_check`) and the
//! whole-script deadline. Invariant: `next_check` is never beyond the step budget, the
//! slice end or the next clock check, so the dispatch loop's countdown reaches its slow
//! path before any of them is passed.

use super::Machine;
use crate::error::{Error, ErrorKind, Result};
use crate::limits::Limits;
use std::time::{Duration, Instant};

/// Instructions between wall-clock checks inside a slice.
const CLOCK_INTERVAL: u64 = 1024;

impl Machine {
    /// Starts a slice: checks the whole-script clock and sets the next pause point.
    pub(super) fn begin_slice(&mut self) -> Result<()> {
        let now = Instant::now();
        if !self.started {
            self.started = true;
            self.deadline = self
                .limits
                .seconds
                .and_then(|s| now.checked_add(Duration::try_from_secs_f64(s).ok()?));
        } else if self.deadline.is_some_and(|d| now >= d) {
            let seconds = self.limits.seconds.unwrap_or_default();
            return Err(Error::new(
                ErrorKind::Time,
                format!(
                    "Script exceeded its time budget of {} seconds after {} steps",
                    seconds, self.stats.fuel_used
                ),
            ));
        }
        self.slice_end = self
            .stats
            .fuel_used
            .saturating_add(self.limits.slice_steps.max(1));
        self.slice_deadline = self
            .limits
            .slice_seconds
            .and_then(|s| now.checked_add(Duration::try_from_secs_f64(s).ok()?));
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
            || self.slice_deadline.is_some_and(|d| Instant::now() >= d)
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
