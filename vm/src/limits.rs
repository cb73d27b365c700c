//! Every budget of a ptc run, in one place.
//!
//! [`Limits`] holds the static budgets (enforced by the compiler before anything runs),
//! the dynamic budgets (enforced by the VM while it runs) and the runtime's scheduling
//! bounds. Defaults equal the original implementation's (spec/reference/budgets.md) unless the
//! reference (`spec/reference/budgets.md`) says why not: `steps`, `value-bytes`,
//! `value-nodes`, `retained-bytes` and `regexp-work` are sized for real data (issue 37). [`Limits::KEYS`] is the closed
//! table of names a host or the CLI may set (`--limit KEY=VALUE`).

use serde::{Deserialize, Serialize};
use std::fmt;

/// All budgets of one run. Cheap to copy.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "kebab-case")]
pub struct Limits {
    /// Script size in bytes, checked before reading (kind `input`).
    pub input_bytes: u64,
    /// Nodes in the parsed script and in each macro expansion (kind `input`).
    pub nodes: u64,
    /// Nesting depth of the parsed script and of each macro expansion (kind `input`).
    pub depth: u64,
    /// Nodes one transformer or macro expansion may produce (kind `expansion`).
    pub expansion_nodes: u64,
    /// Fuel: VM instructions plus primitive work units for the whole run (kind `step`).
    pub steps: u64,
    /// Fuel units per slice; after a slice the machine returns a pause.
    pub slice_steps: u64,
    /// Wall-clock bound of one slice in seconds, by the host's [`Clock`](crate::Clock)
    /// (`Machine::set_clock`); `None` disables the clock check.
    pub slice_seconds: Option<f64>,
    /// Whole-envelope wall clock in seconds since the run started, compilation and tool time
    /// included, by the host's clock: enforced in one place, the runtime's envelope, before
    /// every slice and while nested calls run, which it cancels when it fires (kind `time`);
    /// the compiler's deadline is the same budget from the same start.
    pub seconds: Option<f64>,
    /// Nested tool calls; a parallel batch counts its size (kind `tool-call`).
    pub tool_calls: u64,
    /// Approximate bytes of one value, argument list or result (kind `value`).
    pub value_bytes: u64,
    /// Nodes of one value (kind `value`).
    pub value_nodes: u64,
    /// Cumulative bytes allocated over the whole run (kind `retained-value`).
    pub retained_bytes: u64,
    /// Byte size of one guest regexp (kind `atomic-work`).
    pub regexp_bytes: u64,
    /// Automaton states × bytes one regexp search may walk when its scan cannot be metered
    /// (kind `atomic-work`; see `crate::regexp`).
    pub regexp_work: u64,
    /// Integers must satisfy `|n| < 2^number_bits` (kind `value`).
    pub number_bits: u64,
    /// Guest call depth (kind `stack`).
    pub stack_depth: u64,
    /// Runtime: nested calls of one parallel batch running at once.
    pub parallelism: u64,
    /// Runtime: per nested call timeout in milliseconds (default 30 000); a timed-out call
    /// fails as a guest error value. `None` disables it.
    pub tool_timeout_ms: Option<u64>,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            input_bytes: 20_000,
            nodes: 10_000,
            depth: 100,
            expansion_nodes: 20_000,
            steps: 50_000_000,
            slice_steps: 2_000,
            slice_seconds: Some(0.03),
            seconds: Some(300.0),
            tool_calls: 1_000,
            value_bytes: 16_777_216,
            value_nodes: 524_288,
            retained_bytes: 268_435_456,
            regexp_bytes: 2_048,
            regexp_work: 1_073_741_824,
            number_bits: 4_096,
            stack_depth: 2_000,
            parallelism: 4,
            tool_timeout_ms: Some(30_000),
        }
    }
}

/// One settable budget: its name (as on the command line) and what it bounds.
#[derive(Debug, Clone, Copy)]
pub struct LimitKey {
    /// The name, e.g. `input-bytes`.
    pub name: &'static str,
    /// One line saying what it bounds.
    pub doc: &'static str,
}

/// A `--limit KEY=VALUE` that could not be applied.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LimitError {
    /// The key is not in [`Limits::KEYS`].
    #[error("unknown limit `{key}`; known limits: {known}")]
    UnknownKey {
        /// The key given.
        key: String,
        /// The known keys, comma separated.
        known: String,
    },
    /// The value does not parse for this key.
    #[error("limit `{key}` takes {expected}, not `{value}`")]
    BadValue {
        /// The key given.
        key: String,
        /// The value given.
        value: String,
        /// What the key accepts.
        expected: &'static str,
    },
}

impl Limits {
    /// The closed table of settable budgets, in the reference's order.
    pub const KEYS: &'static [LimitKey] = &[
        LimitKey {
            name: "input-bytes",
            doc: "script size in bytes",
        },
        LimitKey {
            name: "nodes",
            doc: "nodes in the parsed script and each macro expansion",
        },
        LimitKey {
            name: "depth",
            doc: "nesting depth of the parsed script",
        },
        LimitKey {
            name: "expansion-nodes",
            doc: "nodes one transformer or macro expansion may produce",
        },
        LimitKey {
            name: "steps",
            doc: "fuel for the whole run",
        },
        LimitKey {
            name: "slice-steps",
            doc: "fuel per slice before the machine pauses",
        },
        LimitKey {
            name: "slice-seconds",
            doc: "wall-clock bound of one slice (`off` disables)",
        },
        LimitKey {
            name: "seconds",
            doc: "whole-script wall clock (`off` disables)",
        },
        LimitKey {
            name: "tool-calls",
            doc: "nested tool calls",
        },
        LimitKey {
            name: "value-bytes",
            doc: "approximate bytes of one value",
        },
        LimitKey {
            name: "value-nodes",
            doc: "nodes of one value",
        },
        LimitKey {
            name: "retained-bytes",
            doc: "bytes allocated over the whole run",
        },
        LimitKey {
            name: "regexp-bytes",
            doc: "byte size of one guest regexp",
        },
        LimitKey {
            name: "regexp-work",
            doc: "automaton states x bytes one unmetered regexp search may walk",
        },
        LimitKey {
            name: "number-bits",
            doc: "bits of one integer",
        },
        LimitKey {
            name: "stack-depth",
            doc: "guest call depth",
        },
        LimitKey {
            name: "parallelism",
            doc: "nested calls of one batch running at once",
        },
        LimitKey {
            name: "tool-timeout-ms",
            doc: "per nested call timeout (`off` disables)",
        },
    ];

    /// Sets the budget named `key` from its textual `value`.
    ///
    /// # Errors
    /// [`LimitError`] when the key is unknown or the value does not parse.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), LimitError> {
        const N: &str = "a non-negative integer";
        let int = |expected| -> Result<u64, LimitError> {
            value
                .trim()
                .replace('_', "")
                .parse::<u64>()
                .map_err(|_| LimitError::BadValue {
                    key: key.to_owned(),
                    value: value.to_owned(),
                    expected,
                })
        };
        let off = value.trim().eq_ignore_ascii_case("off");
        let seconds = || -> Result<Option<f64>, LimitError> {
            if off {
                return Ok(None);
            }
            match value.trim().parse::<f64>() {
                Ok(s) if s.is_finite() && s >= 0.0 => Ok(Some(s)),
                _ => Err(LimitError::BadValue {
                    key: key.to_owned(),
                    value: value.to_owned(),
                    expected: "a non-negative number of seconds or `off`",
                }),
            }
        };
        match key {
            "input-bytes" => self.input_bytes = int(N)?,
            "nodes" => self.nodes = int(N)?,
            "depth" => self.depth = int(N)?,
            "expansion-nodes" => self.expansion_nodes = int(N)?,
            "steps" => self.steps = int(N)?,
            "slice-steps" => self.slice_steps = int(N)?,
            "slice-seconds" => self.slice_seconds = seconds()?,
            "seconds" => self.seconds = seconds()?,
            "tool-calls" => self.tool_calls = int(N)?,
            "value-bytes" => self.value_bytes = int(N)?,
            "value-nodes" => self.value_nodes = int(N)?,
            "retained-bytes" => self.retained_bytes = int(N)?,
            "regexp-bytes" => self.regexp_bytes = int(N)?,
            "regexp-work" => self.regexp_work = int(N)?,
            "number-bits" => self.number_bits = int(N)?,
            "stack-depth" => self.stack_depth = int(N)?,
            "parallelism" => self.parallelism = int(N)?,
            "tool-timeout-ms" => {
                self.tool_timeout_ms = if off {
                    None
                } else {
                    Some(int("milliseconds or `off`")?)
                };
            }
            _ => {
                return Err(LimitError::UnknownKey {
                    key: key.to_owned(),
                    known: Limits::KEYS
                        .iter()
                        .map(|k| k.name)
                        .collect::<Vec<_>>()
                        .join(", "),
                });
            }
        }
        Ok(())
    }

    /// Parses `KEY=VALUE` and applies it.
    ///
    /// # Errors
    /// [`LimitError`] as for [`Limits::set`]; a missing `=` is a bad value.
    pub fn set_pair(&mut self, pair: &str) -> Result<(), LimitError> {
        match pair.split_once('=') {
            Some((key, value)) => self.set(key.trim(), value),
            None => Err(LimitError::BadValue {
                key: pair.to_owned(),
                value: String::new(),
                expected: "KEY=VALUE",
            }),
        }
    }
}

impl fmt::Display for Limits {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}",
            serde_json::to_string(self).map_err(|_| fmt::Error)?
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_is_settable_and_serialised() {
        let json = serde_json::to_value(Limits::default()).unwrap();
        for key in Limits::KEYS {
            let mut limits = Limits::default();
            limits.set(key.name, "7").unwrap();
            assert_ne!(
                limits,
                Limits::default(),
                "{} did not change anything",
                key.name
            );
            assert!(
                json.get(key.name).is_some(),
                "{} is not a serialised field",
                key.name
            );
        }
        assert_eq!(json.as_object().unwrap().len(), Limits::KEYS.len());
    }

    #[test]
    fn bad_keys_and_values_are_typed_errors() {
        let mut limits = Limits::default();
        assert!(matches!(
            limits.set("bogus", "1"),
            Err(LimitError::UnknownKey { .. })
        ));
        assert!(matches!(
            limits.set("steps", "-1"),
            Err(LimitError::BadValue { .. })
        ));
        assert!(matches!(
            limits.set_pair("steps"),
            Err(LimitError::BadValue { .. })
        ));
        limits.set_pair("seconds=off").unwrap();
        assert_eq!(limits.seconds, None);
        limits.set_pair("steps=1_000").unwrap();
        assert_eq!(limits.steps, 1000);
    }
}
