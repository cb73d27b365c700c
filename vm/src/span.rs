//! Byte spans into the script text.
//!
//! A [`Span`] is a half-open `start..end` range of byte offsets into the source the
//! program was compiled from. Offsets are `u32`: the input budget keeps every script far
//! below 4 GiB, and a compact span keeps the AST and the pc → span side table small.

use serde::{Deserialize, Serialize};

/// A half-open byte range `start..end` into the script text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct Span {
    /// Offset of the first byte.
    pub start: u32,
    /// Offset one past the last byte.
    pub end: u32,
}

impl Span {
    /// The span `start..end`.
    #[must_use]
    pub const fn new(start: u32, end: u32) -> Self {
        Self { start, end }
    }

    /// The smallest span covering both `self` and `other`.
    #[must_use]
    pub fn join(self, other: Span) -> Span {
        Span::new(self.start.min(other.start), self.end.max(other.end))
    }

    /// The span as a `usize` range, for slicing the source.
    #[must_use]
    pub fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }
}
