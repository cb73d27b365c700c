//! The matchable kind of a failed run ([`crate::OutcomeError::kind`]).
//!
//! [`ErrorKind`] says why a run did not complete, with the diagnostic's code and span when
//! the compiler rejected the script. Its `Display` is the wire name the JSON object of
//! `ptc run --format json` has always carried in `error.kind` (`preflight`, `step`,
//! `denied`, `checkpoint`, ...), so the JSON is unchanged; [`ErrorKind::from_wire`] reads
//! a wire name back, coarsely (the JSON carries no code or span).
//!
//! Invariant: `ErrorKind::from_wire(&kind.to_string())` has the same wire name as `kind`.
//!
//! ```
//! use ptc_core::{Budget, Catalog, Envelope, EnvelopeConfig, ErrorKind, Event, Limits};
//! use std::sync::Arc;
//! use std::time::Duration;
//!
//! // A sans-IO run of a script that calls no tool: poll until it settles.
//! let run = |script: &str| {
//!     let config = EnvelopeConfig::new(Arc::new(Catalog::new()), Limits::default(), "e");
//!     let mut envelope = Envelope::compile(config, script, Duration::ZERO);
//!     loop {
//!         if let Event::Settled(outcome) = envelope.poll(Duration::ZERO) {
//!             break outcome;
//!         }
//!     }
//! };
//! let error = run("(while t)").error.unwrap();
//! assert_eq!(error.kind, ErrorKind::Budget(Budget::Step));
//! assert_eq!(error.kind.to_string(), "step");
//! match run("(frobnicate 1)").error.unwrap().kind {
//!     ErrorKind::Compile { code, span, .. } => {
//!         assert_eq!(code.as_deref(), Some("E0301"));
//!         assert_eq!(span, Some((1, 11)));
//!     }
//!     other => panic!("{other:?}"),
//! }
//! ```

pub use ptc_vm::ErrorKind as DialectErrorKind;
use std::fmt;

/// Which budget ran out while the script ran (the dialect's budget kinds).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Budget {
    /// Fuel (`steps`).
    Step,
    /// The wall-clock bound (`seconds`, tool time included).
    Time,
    /// Nested tool calls (`tool-calls`).
    ToolCall,
    /// One value's bytes, nodes or integer bits.
    Value,
    /// The cumulative retained-value budget.
    RetainedValue,
    /// Guest call depth.
    Stack,
}

impl Budget {
    /// The wire name (`step`, `time`, `tool-call`, `value`, `retained-value`, `stack`).
    #[must_use]
    pub fn as_str(self) -> &'static str {
        self.dialect().as_str()
    }

    /// The dialect's kind of the same name.
    #[must_use]
    pub fn dialect(self) -> DialectErrorKind {
        match self {
            Budget::Step => DialectErrorKind::Step,
            Budget::Time => DialectErrorKind::Time,
            Budget::ToolCall => DialectErrorKind::ToolCall,
            Budget::Value => DialectErrorKind::Value,
            Budget::RetainedValue => DialectErrorKind::RetainedValue,
            Budget::Stack => DialectErrorKind::Stack,
        }
    }

    fn of(kind: DialectErrorKind) -> Option<Budget> {
        Some(match kind {
            DialectErrorKind::Step => Budget::Step,
            DialectErrorKind::Time => Budget::Time,
            DialectErrorKind::ToolCall => Budget::ToolCall,
            DialectErrorKind::Value => Budget::Value,
            DialectErrorKind::RetainedValue => Budget::RetainedValue,
            DialectErrorKind::Stack => Budget::Stack,
            _ => return None,
        })
    }
}

/// Why a run did not complete; see the module docs.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The compiler rejected the script before anything ran (reader, definitions,
    /// preflight, expansion, lowering): the first diagnostic's kind, code and byte span.
    /// Code and span are `None` only when read back from JSON.
    Compile {
        /// The diagnostic's dialect kind (`preflight`, `input`, `script`, ...).
        kind: DialectErrorKind,
        /// Its stable code (`E0301`, ...; `spec/reference/diagnostics.md`).
        code: Option<String>,
        /// Its primary byte span in the script, `(start, end)`.
        span: Option<(u32, u32)>,
    },
    /// A budget ran out while running.
    Budget(Budget),
    /// Any other run-time error of the script (its dialect kind: `script`, `atomic-work`,
    /// ...).
    Script(DialectErrorKind),
    /// The permission policy refused a nested call.
    Denied,
    /// The host cancelled the run (or dropped it).
    Interrupted,
    /// A direct call's tool failed.
    ToolError,
    /// The ToolCall argument object was not `{"expression": "..."}`.
    Arguments,
    /// A journal record could not be written (wire name `checkpoint`, the original's).
    Journal,
    /// The host's inputs for a compiled script were wrong: an undeclared or missing name,
    /// a value that does not convert or is over the value budget.
    Input,
    /// The compiled script was compiled against another roster than the run's tools.
    Roster,
    /// A resumed or replayed run made another call than its journal holds.
    ReplayDiverged,
    /// A journal given to resume a run cannot be used: another format, other budgets,
    /// a decision for a call that is not pending, a script that no longer compiles.
    Resume,
}

impl ErrorKind {
    /// The kind of a dialect error raised while running.
    #[must_use]
    pub fn of_run(kind: DialectErrorKind) -> ErrorKind {
        Budget::of(kind).map_or(ErrorKind::Script(kind), ErrorKind::Budget)
    }

    /// The kind of a compile diagnostic.
    #[must_use]
    pub fn of_diagnostic(diagnostic: &ptc_compiler::Diagnostic) -> ErrorKind {
        ErrorKind::Compile {
            kind: diagnostic.kind,
            code: Some(diagnostic.code.to_owned()),
            span: Some((diagnostic.span.start, diagnostic.span.end)),
        }
    }

    /// The wire name, as `Display` writes it.
    #[must_use]
    pub fn as_str(&self) -> &'static str {
        match self {
            ErrorKind::Compile { kind, .. } | ErrorKind::Script(kind) => kind.as_str(),
            ErrorKind::Budget(budget) => budget.as_str(),
            ErrorKind::Denied => "denied",
            ErrorKind::Interrupted => "interrupted",
            ErrorKind::ToolError => "tool-error",
            ErrorKind::Arguments => "arguments",
            ErrorKind::Journal => "checkpoint",
            ErrorKind::Input => "input",
            ErrorKind::Roster => "roster",
            ErrorKind::ReplayDiverged => "replay-diverged",
            ErrorKind::Resume => "resume",
        }
    }

    /// A kind from its wire name. Names the runtime's own kinds use map to them (`input`
    /// to [`ErrorKind::Input`]); `preflight` and `expansion` to [`ErrorKind::Compile`]
    /// without code or span; budget names to [`ErrorKind::Budget`]; other dialect names
    /// to [`ErrorKind::Script`]; an unknown name to `Script(Script)`.
    #[must_use]
    pub fn from_wire(name: &str) -> ErrorKind {
        match name {
            "denied" => ErrorKind::Denied,
            "interrupted" => ErrorKind::Interrupted,
            "tool-error" => ErrorKind::ToolError,
            "arguments" => ErrorKind::Arguments,
            "checkpoint" => ErrorKind::Journal,
            "input" => ErrorKind::Input,
            "roster" => ErrorKind::Roster,
            "replay-diverged" => ErrorKind::ReplayDiverged,
            "resume" => ErrorKind::Resume,
            other => match DialectErrorKind::from_name(other) {
                Some(kind @ (DialectErrorKind::Preflight | DialectErrorKind::Expansion)) => {
                    ErrorKind::Compile {
                        kind,
                        code: None,
                        span: None,
                    }
                }
                Some(kind) => ErrorKind::of_run(kind),
                None => ErrorKind::Script(DialectErrorKind::Script),
            },
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<&str> for ErrorKind {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<str> for ErrorKind {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl serde::Serialize for ErrorKind {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> serde::Deserialize<'de> for ErrorKind {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        Ok(ErrorKind::from_wire(&name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_names_read_back_to_the_same_name() {
        let mut kinds: Vec<ErrorKind> = DialectErrorKind::ALL
            .iter()
            .map(|&k| ErrorKind::of_run(k))
            .collect();
        kinds.extend([
            ErrorKind::Denied,
            ErrorKind::Interrupted,
            ErrorKind::ToolError,
            ErrorKind::Arguments,
            ErrorKind::Journal,
            ErrorKind::Input,
            ErrorKind::Roster,
            ErrorKind::Compile {
                kind: DialectErrorKind::Preflight,
                code: Some("E0301".into()),
                span: Some((0, 3)),
            },
        ]);
        for kind in kinds {
            let name = kind.to_string();
            assert_eq!(ErrorKind::from_wire(&name).to_string(), name);
        }
        assert_eq!(ErrorKind::Journal.to_string(), "checkpoint");
        assert_eq!(
            ErrorKind::of_run(DialectErrorKind::Step),
            ErrorKind::Budget(Budget::Step)
        );
    }
}
