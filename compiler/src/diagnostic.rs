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

impl std::fmt::Display for Diagnostic {
    /// `CODE: message`, e.g. `E0101: Unknown functions: frob`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for Diagnostic {}

/// Every diagnostic of one rejected script, with the source they point into, so a host
/// can `?` a compile failure and still render carets ([`Diagnostics::render`]).
///
/// Invariant: never empty when produced by the pipeline (a rejected script has at least
/// one diagnostic).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Diagnostics {
    /// The diagnostics, in the order the pipeline found them.
    pub diagnostics: Vec<Diagnostic>,
    /// The script they describe.
    #[serde(skip)]
    pub source: std::sync::Arc<str>,
}

impl Diagnostics {
    /// `diagnostics` about `source`.
    #[must_use]
    pub fn new(source: impl Into<std::sync::Arc<str>>, diagnostics: Vec<Diagnostic>) -> Self {
        Diagnostics {
            diagnostics,
            source: source.into(),
        }
    }

    /// The first diagnostic: the one whose kind the run's error takes.
    #[must_use]
    pub fn first(&self) -> Option<&Diagnostic> {
        self.diagnostics.first()
    }

    /// The source the diagnostics point into.
    #[must_use]
    pub fn source(&self) -> &str {
        &self.source
    }

    /// How many there are.
    #[must_use]
    pub fn len(&self) -> usize {
        self.diagnostics.len()
    }

    /// Whether there are none.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.diagnostics.is_empty()
    }

    /// The diagnostics, in order.
    pub fn iter(&self) -> std::slice::Iter<'_, Diagnostic> {
        self.diagnostics.iter()
    }
}

impl std::fmt::Display for Diagnostics {
    /// The plain messages, one per line (`CODE: message`).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (i, diagnostic) in self.diagnostics.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{diagnostic}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostics {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.diagnostics
            .first()
            .map(|d| d as &(dyn std::error::Error + 'static))
    }
}

impl<'a> IntoIterator for &'a Diagnostics {
    type Item = &'a Diagnostic;
    type IntoIter = std::slice::Iter<'a, Diagnostic>;
    fn into_iter(self) -> Self::IntoIter {
        self.diagnostics.iter()
    }
}
