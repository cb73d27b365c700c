//! Rendering diagnostics for people: a source excerpt with carets under each span.
//!
//! Output is plain text (no colour, byte-indexed spans), so it is deterministic and is what
//! the golden tests pin. Spans are clamped to the source and moved to character boundaries,
//! so a diagnostic with a stale or foreign span still renders instead of panicking.

use crate::diagnostic::Diagnostic;
use ariadne::{Config, IndexType, Label, Report, ReportKind, Source};
use ptc_vm::Span;
use std::ops::Range;

/// `span` as a byte range inside `source`, on character boundaries.
fn clamp(source: &str, span: Span) -> Range<usize> {
    let fit = |offset: u32| {
        let mut at = usize::try_from(offset)
            .unwrap_or(usize::MAX)
            .min(source.len());
        while !source.is_char_boundary(at) {
            at -= 1;
        }
        at
    };
    let start = fit(span.start);
    start..fit(span.end).max(start)
}

/// Every diagnostic rendered against `source`, which is called `name` in the excerpts.
#[must_use]
pub fn render(source: &str, name: &str, diagnostics: &[Diagnostic]) -> String {
    let mut out = Vec::new();
    for diagnostic in diagnostics {
        let primary = clamp(source, diagnostic.span);
        let mut report = Report::build(ReportKind::Error, (name, primary.clone()))
            .with_config(
                Config::default()
                    .with_color(false)
                    .with_index_type(IndexType::Byte),
            )
            .with_code(diagnostic.code)
            .with_message(format!("{}: {}", diagnostic.kind, diagnostic.message))
            .with_label(Label::new((name, primary)).with_message(&diagnostic.message));
        for (span, text) in &diagnostic.labels {
            report = report.with_label(Label::new((name, clamp(source, *span))).with_message(text));
        }
        for note in &diagnostic.notes {
            report = report.with_note(note);
        }
        if report
            .finish()
            .write((name, Source::from(source)), &mut out)
            .is_err()
        {
            out.extend_from_slice(
                format!("[{}] {}\n", diagnostic.code, diagnostic.message).as_bytes(),
            );
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}
