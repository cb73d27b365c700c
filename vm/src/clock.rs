//! The host's time source: the one clock a run's wall-clock budgets are read from.
//!
//! The VM and the compiler read no clock of their own (a `wasm32-unknown-unknown` host has
//! no `std::time::Instant`). A host that wants wall-clock budgets hands the machine (and
//! the compiler's deadline) a [`Clock`]: the time since the run started, by the host's own
//! monotonic source. The readings must never go backwards. Without a clock, a run is
//! bounded by its fuel alone: slices end after `slice-steps`, and `seconds` is the business
//! of whoever drives the run (the runtime's envelope, which is told the same time).

use std::fmt;
use std::time::Duration;

/// The time since the run started, as the host measures it.
pub trait Clock: Send + Sync {
    /// The time elapsed since the run started; never less than an earlier reading.
    fn elapsed(&self) -> Duration;
}

impl fmt::Debug for dyn Clock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Clock")
            .field("elapsed", &self.elapsed())
            .finish()
    }
}

/// A clock from a closure (`|| start.elapsed()` on a native host).
impl<F: Fn() -> Duration + Send + Sync> Clock for F {
    fn elapsed(&self) -> Duration {
        self()
    }
}

/// `seconds` as a duration since the run started; `None` when absent, negative, not a
/// number or beyond what a `Duration` holds (such a budget never fires).
#[must_use]
pub fn budget(seconds: Option<f64>) -> Option<Duration> {
    Duration::try_from_secs_f64(seconds?).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budgets_that_do_not_fit_never_fire() {
        assert_eq!(budget(None), None);
        assert_eq!(budget(Some(1e300)), None);
        assert_eq!(budget(Some(-1.0)), None);
        assert_eq!(budget(Some(0.5)), Some(Duration::from_millis(500)));
    }

    #[test]
    fn a_closure_is_a_clock() {
        let clock: &dyn Clock = &|| Duration::from_secs(3);
        assert_eq!(clock.elapsed(), Duration::from_secs(3));
        assert!(format!("{clock:?}").contains("3s"));
    }
}
