//! Rendering diagnostics for people: a source excerpt with carets under each span.
//!
//! Output is plain text (no colour, byte-indexed spans), so it is deterministic and is what
//! the golden tests pin. Spans are clamped to the source and moved to character boundaries,
//! so a diagnostic with a stale or foreign span still renders instead of panicking. A line
//! longer than [`MAX_LINE_BYTES`] is clipped to a window around the primary span (marked
//! with `…`, and a note gives the window's byte range), so rendering one diagnostic costs
//! O(window), not O(line), and a one-line 1 MB script gives a short report.

use crate::diagnostic::Diagnostic;
use ariadne::{Config, IndexType, Label, Report, ReportKind, Source};
use ptc_vm::Span;
use std::ops::Range;

/// Lines longer than this are clipped around the primary span.
pub const MAX_LINE_BYTES: usize = 160;

/// Bytes of context kept on each side of a span in a clipped line.
const CONTEXT_BYTES: usize = 60;

/// The largest char boundary of `source` at or below `offset`.
fn floor_boundary(source: &str, offset: usize) -> usize {
    let mut at = offset.min(source.len());
    while !source.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// `span` as a byte range inside `source`, on character boundaries.
fn clamp(source: &str, span: Span) -> Range<usize> {
    let fit = |offset: u32| floor_boundary(source, usize::try_from(offset).unwrap_or(usize::MAX));
    let start = fit(span.start);
    start..fit(span.end).max(start)
}

/// The text a diagnostic is rendered against: the source, or a clipped window of it.
struct Excerpt {
    text: String,
    /// Byte offset in the source of `text`'s first source byte.
    source_start: usize,
    /// Bytes `text` has before that (the `…` marker).
    marker: usize,
    /// The source range the window covers, when clipped.
    clipped: Option<Range<usize>>,
    /// The zero-based line number of the window's first line.
    line_offset: usize,
}

impl Excerpt {
    fn new(source: &str, primary: &Range<usize>) -> Excerpt {
        let line_start = source
            .get(..primary.start)
            .and_then(|before| before.rfind('\n'))
            .map_or(0, |newline| newline + 1);
        let line_end = source
            .get(primary.start..)
            .and_then(|after| after.find('\n'))
            .map_or(source.len(), |newline| primary.start + newline);
        if line_end - line_start <= MAX_LINE_BYTES {
            return Excerpt {
                text: source.to_owned(),
                source_start: 0,
                marker: 0,
                clipped: None,
                line_offset: 0,
            };
        }
        let start = floor_boundary(
            source,
            primary.start.saturating_sub(CONTEXT_BYTES).max(line_start),
        );
        let span_end = primary.end.min(primary.start + 2 * CONTEXT_BYTES);
        let end = floor_boundary(source, span_end.saturating_add(CONTEXT_BYTES).min(line_end));
        let window = source.get(start..end).unwrap_or("");
        let left = if start > line_start { "…" } else { "" };
        let right = if end < line_end { "…" } else { "" };
        let line_offset = source
            .get(..line_start)
            .map_or(0, |before| before.matches('\n').count());
        Excerpt {
            text: format!("{left}{window}{right}"),
            source_start: start,
            marker: left.len(),
            clipped: Some(start..end),
            line_offset,
        }
    }

    /// A source range as a range of the excerpt's text.
    fn map(&self, range: &Range<usize>) -> Range<usize> {
        let shift = |offset: usize| {
            let inside = offset.saturating_sub(self.source_start) + self.marker;
            floor_boundary(&self.text, inside)
        };
        let start = shift(range.start);
        start..shift(range.end).max(start)
    }
}

/// Every diagnostic rendered against `source`, which is called `name` in the excerpts.
#[must_use]
pub fn render(source: &str, name: &str, diagnostics: &[Diagnostic]) -> String {
    let mut out = Vec::new();
    for diagnostic in diagnostics {
        let primary = clamp(source, diagnostic.span);
        let excerpt = Excerpt::new(source, &primary);
        let shown = excerpt.map(&primary);
        let mut report = Report::build(ReportKind::Error, (name, shown.clone()))
            .with_config(
                Config::default()
                    .with_color(false)
                    .with_index_type(IndexType::Byte),
            )
            .with_code(diagnostic.code)
            .with_message(format!("{}: {}", diagnostic.kind, diagnostic.message))
            .with_label(Label::new((name, shown)).with_message(&diagnostic.message));
        for (span, text) in &diagnostic.labels {
            let range = clamp(source, *span);
            let visible = excerpt
                .clipped
                .as_ref()
                .is_none_or(|window| window.start <= range.start && range.end <= window.end);
            if visible {
                report =
                    report.with_label(Label::new((name, excerpt.map(&range))).with_message(text));
            }
        }
        for note in &diagnostic.notes {
            report = report.with_note(note);
        }
        if let Some(window) = &excerpt.clipped {
            report = report.with_note(format!(
                "long line clipped to bytes {}..{} of the script; columns count from the clip",
                window.start, window.end
            ));
        }
        let text =
            Source::from(excerpt.text.as_str()).with_display_line_offset(excerpt.line_offset);
        if report.finish().write((name, text), &mut out).is_err() {
            out.extend_from_slice(
                format!("[{}] {}\n", diagnostic.code, diagnostic.message).as_bytes(),
            );
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

impl crate::diagnostic::Diagnostics {
    /// The caret text (source excerpts with carets under each span), as `ptc check`
    /// prints it; `name` labels the source (a file name, or `expression`).
    #[must_use]
    pub fn render(&self, name: &str) -> String {
        render(self.source(), name, &self.diagnostics)
    }
}
