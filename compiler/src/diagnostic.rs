//! Diagnostics: what the static pipeline reports about a script it rejects.
//!
//! A [`Diagnostic`] carries a stable code, the error kind of the dialect (§13), the plain
//! model-facing message (the original's template text, so a model trained on either
//! recognises it), the primary byte span, and optional secondary labels and notes. The
//! static pipeline reports every diagnostic it can find, not just the first.

use ptc_vm::{Error, ErrorKind, Span};
use serde::Serialize;

/// One problem found before anything ran.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Diagnostic {
    /// Stable code, e.g. `E0101`; one per message template (see `spec/reference/diagnostics.md`).
    pub code: &'static str,
    /// The dialect's error kind (`input`, `preflight`, `expansion`, `script`, ...).
    pub kind: ErrorKind,
    /// The plain message, as the model sees it after `Error: `.
    pub message: String,
    /// The primary span.
    pub span: Span,
    /// Secondary spans with a short label each.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub labels: Vec<(Span, String)>,
    /// Extra notes printed under the excerpt.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

impl Diagnostic {
    /// A diagnostic with no labels or notes.
    #[must_use]
    pub fn new(
        code: &'static str,
        kind: ErrorKind,
        message: impl Into<String>,
        span: Span,
    ) -> Self {
        Diagnostic {
            code,
            kind,
            message: message.into(),
            span,
            labels: Vec::new(),
            notes: Vec::new(),
        }
    }

    /// Adds a secondary label.
    #[must_use]
    pub fn with_label(mut self, span: Span, label: impl Into<String>) -> Self {
        self.labels.push((span, label.into()));
        self
    }

    /// Adds a note.
    #[must_use]
    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }

    /// The diagnostic as the typed error a host receives at start time.
    #[must_use]
    pub fn to_error(&self) -> Error {
        Error::new(self.kind, self.message.clone()).with_span(self.span)
    }
}
