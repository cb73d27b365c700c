//! The `seconds` budget of one compilation ([`Deadline`]), on the host's clock: a leaf
//! that the pipeline, the macro runner and preflight share.
//!
//! Invariant: the compiler reads no clock of its own; without a host clock a deadline never
//! expires (compilation is then bounded by its work budgets alone).

use crate::diagnostic::Diagnostic;
use ptc_vm::Span;
use ptc_vm::{Clock, ErrorKind, Limits};
use std::sync::Arc;
use std::time::Duration;

/// The `seconds` budget of one compilation, counted from its start on the host's
/// [`Clock`]. Without a clock it never expires: the compiler reads no clock of its own.
#[derive(Debug, Clone)]
pub struct Deadline {
    /// The clock reading at which the budget is spent.
    at: Option<Duration>,
    seconds: f64,
    clock: Option<Arc<dyn Clock>>,
}

impl Deadline {
    /// `limits.seconds` from now by `clock` (`None`: no deadline).
    #[must_use]
    pub fn new(limits: &Limits, clock: Option<Arc<dyn Clock>>) -> Self {
        let at = match (&clock, ptc_vm::clock::budget(limits.seconds)) {
            (Some(clock), Some(budget)) => clock.elapsed().checked_add(budget),
            _ => None,
        };
        Deadline {
            at,
            seconds: limits.seconds.unwrap_or_default(),
            clock,
        }
    }

    /// Whether the budget is spent.
    #[must_use]
    pub fn expired(&self) -> bool {
        match (&self.clock, self.at) {
            (Some(clock), Some(at)) => clock.elapsed() >= at,
            _ => false,
        }
    }

    /// The host's clock, which the machines running macro bodies are given.
    #[must_use]
    pub fn clock(&self) -> Option<Arc<dyn Clock>> {
        self.clock.clone()
    }

    /// E0031 at `span`.
    #[must_use]
    pub fn diagnostic(&self, span: Span) -> Diagnostic {
        Diagnostic::new(
            "E0031",
            ErrorKind::Time,
            format!(
                "Script exceeded its time budget of {} seconds while compiling",
                self.seconds
            ),
            span,
        )
    }

    /// `Err(E0031)` once the budget is spent.
    ///
    /// # Errors
    /// When expired.
    pub fn check(&self, span: Span) -> Result<(), Vec<Diagnostic>> {
        if self.expired() {
            return Err(vec![self.diagnostic(span)]);
        }
        Ok(())
    }
}
