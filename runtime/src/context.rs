//! Per-run context: host data every handler and policy of one run can read ([`RunData`]),
//! and per-run limits that only tighten the runner's ([`tighten`]); the subset of the
//! registry's tools one run may use is `ptc_core`'s `ToolFilter`.
//!
//! Invariants:
//! - [`RunData`] holds at most one value per type; cloning it clones one `Arc` (or
//!   nothing: empty data allocates nothing, since most runs carry none). The data
//!   is read-only for handlers (`ctx.data::<T>()`); a host that needs shared mutable state
//!   puts a `Mutex` or an atomic inside.
//!
//! ```
//! use ptc_runtime::{Registry, RunData, RunOptions, Runner, ToolContract, ToolFilter};
//! use ptc_runtime::{ToolRequestCtx, ToolResult};
//! use serde_json::json;
//! use std::sync::Arc;
//!
//! struct User(&'static str);
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let mut registry = Registry::new();
//! registry.register(
//!     ToolContract::new("Whoami", "Names the user.", json!({"type": "object"})),
//!     |request: ToolRequestCtx| async move {
//!         let user = request.data::<User>().map_or("nobody", |user| user.0);
//!         ToolResult::text(user)
//!     },
//! )?;
//! registry.register(
//!     ToolContract::new("Delete", "Deletes everything.", json!({"type": "object"})),
//!     |_request: ToolRequestCtx| async move { ToolResult::text("gone") },
//! )?;
//! let runner = Runner::new(Arc::new(registry));
//! let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
//! let options = RunOptions::new()
//!     .data(RunData::new().with(User("ada")))
//!     .tools(ToolFilter::allow(["Who*"])?);
//! let outcome = rt.block_on(runner.run("(Whoami)", options.clone()));
//! assert_eq!(outcome.text, "ada");
//! // The filtered run does not know Delete at all.
//! let outcome = rt.block_on(runner.run("(Delete)", options));
//! assert!(outcome.text.starts_with("Error: Unknown functions: Delete"), "{}", outcome.text);
//! # Ok(())
//! # }
//! ```

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

/// Host data for one run, one value per type; see the module docs.
#[derive(Clone, Default)]
pub struct RunData {
    /// `None` until the first value: a run without data allocates nothing for it.
    values: Option<Arc<HashMap<TypeId, Arc<dyn Any + Send + Sync>>>>,
}

impl fmt::Debug for RunData {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RunData")
            .field(
                "values",
                &self.values.as_ref().map_or(0, |values| values.len()),
            )
            .finish()
    }
}

impl RunData {
    /// No data.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// The same data with `value` added (replacing an earlier value of its type).
    #[must_use]
    pub fn with<T: Any + Send + Sync>(mut self, value: T) -> Self {
        Arc::make_mut(self.values.get_or_insert_default())
            .insert(TypeId::of::<T>(), Arc::new(value));
        self
    }

    /// The value of type `T`, if the host gave one.
    #[must_use]
    pub fn get<T: Any + Send + Sync>(&self) -> Option<&T> {
        self.values
            .as_ref()?
            .get(&TypeId::of::<T>())
            .and_then(|value| value.downcast_ref::<T>())
    }

    /// Whether no value is held.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.values.as_ref().is_none_or(|values| values.is_empty())
    }
}

/// `base` tightened by a run's own `limits`: every budget is the smaller of the two
/// (an unlimited `None` loses to any bound), so a per-run limit never loosens the runner's.
/// The slice sizes (scheduling, not budgets) are the smaller too.
#[must_use]
pub(crate) fn tighten(base: &ptc_vm::Limits, limits: &ptc_vm::Limits) -> ptc_vm::Limits {
    fn min_f(a: Option<f64>, b: Option<f64>) -> Option<f64> {
        match (a, b) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, None) => a,
            (None, b) => b,
        }
    }
    fn min_u(a: Option<u64>, b: Option<u64>) -> Option<u64> {
        match (a, b) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, None) => a,
            (None, b) => b,
        }
    }
    ptc_vm::Limits {
        input_bytes: base.input_bytes.min(limits.input_bytes),
        nodes: base.nodes.min(limits.nodes),
        depth: base.depth.min(limits.depth),
        expansion_nodes: base.expansion_nodes.min(limits.expansion_nodes),
        steps: base.steps.min(limits.steps),
        slice_steps: base.slice_steps.min(limits.slice_steps),
        slice_seconds: min_f(base.slice_seconds, limits.slice_seconds),
        seconds: min_f(base.seconds, limits.seconds),
        tool_calls: base.tool_calls.min(limits.tool_calls),
        value_bytes: base.value_bytes.min(limits.value_bytes),
        value_nodes: base.value_nodes.min(limits.value_nodes),
        retained_bytes: base.retained_bytes.min(limits.retained_bytes),
        regexp_bytes: base.regexp_bytes.min(limits.regexp_bytes),
        regexp_work: base.regexp_work.min(limits.regexp_work),
        number_bits: base.number_bits.min(limits.number_bits),
        stack_depth: base.stack_depth.min(limits.stack_depth),
        parallelism: base.parallelism.min(limits.parallelism),
        tool_timeout_ms: min_u(base.tool_timeout_ms, limits.tool_timeout_ms),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_run_limits_only_tighten() {
        let base = ptc_vm::Limits {
            steps: 1_000,
            seconds: None,
            ..ptc_vm::Limits::default()
        };
        let run = ptc_vm::Limits {
            steps: 5_000,
            seconds: Some(2.0),
            tool_timeout_ms: None,
            ..ptc_vm::Limits::default()
        };
        let both = tighten(&base, &run);
        assert_eq!(both.steps, 1_000);
        assert_eq!(both.seconds, Some(2.0));
        assert_eq!(both.tool_timeout_ms, base.tool_timeout_ms);
    }

    #[test]
    fn data_is_typed() {
        let data = RunData::new().with(7u32).with("session");
        assert_eq!(data.get::<u32>(), Some(&7));
        assert_eq!(data.get::<&str>(), Some(&"session"));
        assert_eq!(data.get::<u64>(), None);
    }
}
