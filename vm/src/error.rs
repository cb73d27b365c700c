//! The typed failure every ptc stage reports.
//!
//! Every failure a guest can provoke — at read time, in preflight, while running — is one
//! [`Error`] with exactly one [`ErrorKind`]. The kinds and their wire names are the
//! original implementation's (spec/reference/errors.md), so hosts and models trained on either
//! recognise them. Messages follow the original's templates.

use crate::span::Span;
use crate::value::Value;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::sync::Arc;

/// What kind of limit or rule a failure broke. The wire name is [`ErrorKind::as_str`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ErrorKind {
    /// Input byte, node or depth limits, at read time or on a macro expansion.
    Input,
    /// Static preflight: unknown operators, misplaced unquote, nested definitions,
    /// standalone-only tools in a composed script.
    Preflight,
    /// A transformer or macro expansion grew past its node budget.
    Expansion,
    /// The fuel (step) budget ran out.
    Step,
    /// The whole-script wall-clock budget ran out.
    Time,
    /// The nested tool-call budget ran out.
    ToolCall,
    /// One value exceeded its byte, node or integer-bit budget, or a closure tried to cross
    /// a tool or result boundary.
    Value,
    /// The cumulative retained (allocated) value budget ran out.
    RetainedValue,
    /// A bounded primitive refused its input: regexp size, subset or work, split-string and
    /// string-to-number guards.
    AtomicWork,
    /// Guest call depth exceeded the stack budget.
    Stack,
    /// Any other script error: shape errors, unbound variables, arity, type errors, reader
    /// errors.
    Script,
    /// A closed machine was stepped.
    Closed,
}

impl ErrorKind {
    /// Every kind, in the order of the reference's table.
    pub const ALL: [ErrorKind; 12] = [
        ErrorKind::Input,
        ErrorKind::Preflight,
        ErrorKind::Expansion,
        ErrorKind::Step,
        ErrorKind::Time,
        ErrorKind::ToolCall,
        ErrorKind::Value,
        ErrorKind::RetainedValue,
        ErrorKind::AtomicWork,
        ErrorKind::Stack,
        ErrorKind::Script,
        ErrorKind::Closed,
    ];

    /// The stable wire name (`input`, `tool-call`, `retained-value`, ...).
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Input => "input",
            ErrorKind::Preflight => "preflight",
            ErrorKind::Expansion => "expansion",
            ErrorKind::Step => "step",
            ErrorKind::Time => "time",
            ErrorKind::ToolCall => "tool-call",
            ErrorKind::Value => "value",
            ErrorKind::RetainedValue => "retained-value",
            ErrorKind::AtomicWork => "atomic-work",
            ErrorKind::Stack => "stack",
            ErrorKind::Script => "script",
            ErrorKind::Closed => "closed",
        }
    }

    /// Parses a wire name back into a kind.
    #[must_use]
    pub fn from_name(name: &str) -> Option<ErrorKind> {
        ErrorKind::ALL.into_iter().find(|k| k.as_str() == name)
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One typed failure: a kind, the model-facing message, and where in the script it arose
/// when that is known.
///
/// Boxed so `Result<Value, Error>` stays two words on the VM's hot paths.
#[derive(Clone, PartialEq, Eq)]
pub struct Error(Box<ErrorInner>);

#[derive(Clone, PartialEq, Eq)]
struct ErrorInner {
    kind: ErrorKind,
    message: String,
    span: Option<Span>,
    signal: Option<Arc<Signal>>,
    cause: Option<Cause>,
}

/// What a failure is about, for a host that must tell it apart from others of its kind
/// without reading its message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Cause {
    /// A guest closure reached a tool argument or a result (kind `value`).
    ClosureAtBoundary,
}

/// The Emacs error a guest `signal`, `error` or `user-error` raised (or a primitive that
/// names its condition, such as `json-parse-string`): its condition symbol's name and its
/// data, which `condition-case` hands to the handler as `(SYMBOL . DATA)`.
#[derive(Debug, Clone)]
pub struct Signal {
    /// The condition symbol's name (`error`, `user-error`, `wrong-type-argument`, ...).
    pub symbol: String,
    /// The data list.
    pub data: Value,
}

impl PartialEq for Signal {
    fn eq(&self, other: &Self) -> bool {
        self.symbol == other.symbol && crate::equal::equal(&self.data, &other.data)
    }
}

impl Eq for Signal {}

impl Error {
    /// A failure of `kind` with `message`.
    #[cold]
    #[must_use]
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error(Box::new(ErrorInner {
            kind,
            message: message.into(),
            span: None,
            signal: None,
            cause: None,
        }))
    }

    /// A guest closure reaching a tool argument or a result: kind `value`, cause
    /// [`Cause::ClosureAtBoundary`].
    #[cold]
    #[must_use]
    pub fn closure_at_boundary() -> Self {
        let mut error = Error::new(
            ErrorKind::Value,
            "Guest closures cannot cross a tool or result boundary",
        );
        error.0.cause = Some(Cause::ClosureAtBoundary);
        error
    }

    /// What the failure is about, when it has a typed cause.
    #[must_use]
    pub fn cause(&self) -> Option<Cause> {
        self.0.cause
    }

    /// A guest-signalled `script` failure: condition `symbol` with `data`, reported with
    /// `message` (its `error-message-string`).
    #[cold]
    #[must_use]
    pub fn signal(symbol: impl Into<String>, data: Value, message: impl Into<String>) -> Self {
        Error(Box::new(ErrorInner {
            kind: ErrorKind::Script,
            message: message.into(),
            span: None,
            signal: Some(Arc::new(Signal {
                symbol: symbol.into(),
                data,
            })),
            cause: None,
        }))
    }

    /// The condition and data when a guest signalled this failure.
    #[must_use]
    pub fn guest_signal(&self) -> Option<&Signal> {
        self.0.signal.as_deref()
    }

    /// A `script` failure: shape, type, arity and every other non-budget error.
    #[cold]
    #[must_use]
    pub fn script(message: impl Into<String>) -> Self {
        Error::new(ErrorKind::Script, message)
    }

    /// The same failure, located at `span` unless it already has a location.
    #[must_use]
    pub fn with_span(mut self, span: Span) -> Self {
        if self.0.span.is_none() {
            self.0.span = Some(span);
        }
        self
    }

    /// The kind of rule or budget that was broken.
    #[must_use]
    pub fn kind(&self) -> ErrorKind {
        self.0.kind
    }

    /// The model-facing message (no `Error: ` prefix).
    #[must_use]
    pub fn message(&self) -> &str {
        &self.0.message
    }

    /// Where in the script the failure arose, when known.
    #[must_use]
    pub fn span(&self) -> Option<Span> {
        self.0.span
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Error")
            .field("kind", &self.0.kind)
            .field("message", &self.0.message)
            .field("span", &self.0.span)
            .finish()
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.message)
    }
}

impl std::error::Error for Error {}

/// Shorthand for results carrying a ptc [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_is_one_word() {
        assert_eq!(std::mem::size_of::<Error>(), std::mem::size_of::<usize>());
    }

    #[test]
    fn kind_names_round_trip() {
        for kind in ErrorKind::ALL {
            assert_eq!(ErrorKind::from_name(kind.as_str()), Some(kind));
            let json = serde_json::to_string(&kind).unwrap();
            assert_eq!(json, format!("\"{}\"", kind.as_str()));
        }
    }
}
