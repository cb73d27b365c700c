//! The tokio driver's clock: the one place a run under [`crate::Runner`] reads
//! `std::time::Instant`. Every time handed to the envelope, the compiler and the machine
//! is a [`Duration`] since one process-wide origin (the first reading), so one shared
//! [`Clock`] serves every run without an allocation per run, and the deadlines the
//! envelope reports convert back to instants for tokio's timers.

use ptc_vm::Clock;
use std::sync::{Arc, LazyLock, OnceLock};
use std::time::{Duration, Instant};

/// The origin of every reading (the process's first).
static ORIGIN: OnceLock<Instant> = OnceLock::new();

/// The clock every run of the process shares.
static SHARED: LazyLock<Arc<dyn Clock>> = LazyLock::new(|| Arc::new(now));

/// The time since the origin.
pub(crate) fn now() -> Duration {
    ORIGIN.get_or_init(Instant::now).elapsed()
}

/// The instant of a reading (for tokio's timers).
pub(crate) fn instant_of(time: Duration) -> Instant {
    let origin = *ORIGIN.get_or_init(Instant::now);
    origin.checked_add(time).unwrap_or(origin)
}

/// The shared clock, for envelopes and compilations.
pub(crate) fn shared() -> Arc<dyn Clock> {
    Arc::clone(&SHARED)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readings_and_instants_agree() {
        let before = Instant::now();
        let reading = now();
        let after = Instant::now();
        let instant = instant_of(reading);
        assert!(before <= instant && instant <= after);
        assert!(shared().elapsed() >= reading);
    }
}
