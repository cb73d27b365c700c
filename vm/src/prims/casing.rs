//! Case conversion as GNU Emacs 28.2 does it (`upcase`, `downcase`, `capitalize`): on a
//! character, the case table's one-character mapping (`capitalize` uses the titlecase);
//! on a string, the special casing of each character (`ß` → `SS`, `ﬁ` → `FI`; the first
//! character of a word is title-cased, `ß` → `Ss`, `ǆ` → `ǅ`), and a capital sigma
//! lower-cases to `ς` at the end of a word.
//!
//! Rust's std casing (Unicode's full mappings, a newer Unicode than Emacs 28) agrees with
//! Emacs for every character except those in [`CASE_EXCEPTIONS`], a closed table dumped from
//! Emacs 28.2 over every code point (`upcase`, `downcase`, `capitalize` of the character
//! and of its one-character string): Emacs's own case-table choices (`?ß` → `ẞ`, `ı`
//! and `ſ` keep their case, the Kelvin sign is not lowered), titlecase (digraphs, Greek
//! iota subscript, Georgian), and characters newer than Emacs 28's Unicode, which it leaves
//! alone. Invariant: the table is sorted by code point.

#![forbid(unsafe_code)]

use compact_str::CompactString;

/// `(char, upcase, downcase, capitalize, upcase-string, downcase-string, capitalize-string)`.
type Exception = (u32, u32, u32, u32, Short, Short, Short);

/// The longest string of the table, in bytes.
const SHORT_BYTES: usize = 7;

/// A string of the table, held inline: the table has no pointers, so a position-independent
/// binary keeps it read-only instead of relocating its 744 strings at every start.
#[derive(Clone, Copy)]
pub(super) struct Short {
    len: u8,
    bytes: [u8; SHORT_BYTES],
}

/// [`Short`] of a literal; longer than [`SHORT_BYTES`] fails the build.
const fn s(text: &str) -> Short {
    let source = text.as_bytes();
    assert!(
        source.len() <= SHORT_BYTES,
        "a case exception longer than SHORT_BYTES"
    );
    let mut bytes = [0; SHORT_BYTES];
    let (head, _) = bytes.split_at_mut(source.len());
    head.copy_from_slice(source);
    #[allow(clippy::cast_possible_truncation)] // at most SHORT_BYTES
    Short {
        len: source.len() as u8,
        bytes,
    }
}

impl Short {
    /// The text (whole UTF-8, as the literal was).
    fn as_str(&self) -> &str {
        let bytes = self.bytes.get(..usize::from(self.len)).unwrap_or_default();
        std::str::from_utf8(bytes).unwrap_or_default()
    }
}

#[rustfmt::skip]
pub(super) const CASE_EXCEPTIONS: [Exception; 248] = [
    (0xDF, 0x1E9E, 0xDF, 0x1E9E, s("SS"), s("\u{df}"), s("Ss")),
    (0x131, 0x131, 0x131, 0x49, s("\u{131}"), s("\u{131}"), s("I")),
    (0x17F, 0x17F, 0x17F, 0x53, s("\u{17f}"), s("\u{17f}"), s("S")),
    (0x19B, 0x19B, 0x19B, 0x19B, s("\u{19b}"), s("\u{19b}"), s("\u{19b}")),
    (0x1C4, 0x1C4, 0x1C6, 0x1C5, s("\u{1c4}"), s("\u{1c6}"), s("\u{1c5}")),
    (0x1C5, 0x1C4, 0x1C6, 0x1C5, s("\u{1c4}"), s("\u{1c6}"), s("\u{1c5}")),
    (0x1C6, 0x1C4, 0x1C6, 0x1C5, s("\u{1c4}"), s("\u{1c6}"), s("\u{1c5}")),
    (0x1C7, 0x1C7, 0x1C9, 0x1C8, s("\u{1c7}"), s("\u{1c9}"), s("\u{1c8}")),
    (0x1C8, 0x1C7, 0x1C9, 0x1C8, s("\u{1c7}"), s("\u{1c9}"), s("\u{1c8}")),
    (0x1C9, 0x1C7, 0x1C9, 0x1C8, s("\u{1c7}"), s("\u{1c9}"), s("\u{1c8}")),
    (0x1CA, 0x1CA, 0x1CC, 0x1CB, s("\u{1ca}"), s("\u{1cc}"), s("\u{1cb}")),
    (0x1CB, 0x1CA, 0x1CC, 0x1CB, s("\u{1ca}"), s("\u{1cc}"), s("\u{1cb}")),
    (0x1CC, 0x1CA, 0x1CC, 0x1CB, s("\u{1ca}"), s("\u{1cc}"), s("\u{1cb}")),
    (0x1F1, 0x1F1, 0x1F3, 0x1F2, s("\u{1f1}"), s("\u{1f3}"), s("\u{1f2}")),
    (0x1F2, 0x1F1, 0x1F3, 0x1F2, s("\u{1f1}"), s("\u{1f3}"), s("\u{1f2}")),
    (0x1F3, 0x1F1, 0x1F3, 0x1F2, s("\u{1f1}"), s("\u{1f3}"), s("\u{1f2}")),
    (0x264, 0x264, 0x264, 0x264, s("\u{264}"), s("\u{264}"), s("\u{264}")),
    (0x587, 0x587, 0x587, 0x587, s("\u{535}\u{552}"), s("\u{587}"), s("\u{535}\u{582}")),
    (0x10D0, 0x1C90, 0x10D0, 0x10D0, s("\u{1c90}"), s("\u{10d0}"), s("\u{10d0}")),
    (0x10D1, 0x1C91, 0x10D1, 0x10D1, s("\u{1c91}"), s("\u{10d1}"), s("\u{10d1}")),
    (0x10D2, 0x1C92, 0x10D2, 0x10D2, s("\u{1c92}"), s("\u{10d2}"), s("\u{10d2}")),
    (0x10D3, 0x1C93, 0x10D3, 0x10D3, s("\u{1c93}"), s("\u{10d3}"), s("\u{10d3}")),
    (0x10D4, 0x1C94, 0x10D4, 0x10D4, s("\u{1c94}"), s("\u{10d4}"), s("\u{10d4}")),
    (0x10D5, 0x1C95, 0x10D5, 0x10D5, s("\u{1c95}"), s("\u{10d5}"), s("\u{10d5}")),
    (0x10D6, 0x1C96, 0x10D6, 0x10D6, s("\u{1c96}"), s("\u{10d6}"), s("\u{10d6}")),
    (0x10D7, 0x1C97, 0x10D7, 0x10D7, s("\u{1c97}"), s("\u{10d7}"), s("\u{10d7}")),
    (0x10D8, 0x1C98, 0x10D8, 0x10D8, s("\u{1c98}"), s("\u{10d8}"), s("\u{10d8}")),
    (0x10D9, 0x1C99, 0x10D9, 0x10D9, s("\u{1c99}"), s("\u{10d9}"), s("\u{10d9}")),
    (0x10DA, 0x1C9A, 0x10DA, 0x10DA, s("\u{1c9a}"), s("\u{10da}"), s("\u{10da}")),
    (0x10DB, 0x1C9B, 0x10DB, 0x10DB, s("\u{1c9b}"), s("\u{10db}"), s("\u{10db}")),
    (0x10DC, 0x1C9C, 0x10DC, 0x10DC, s("\u{1c9c}"), s("\u{10dc}"), s("\u{10dc}")),
    (0x10DD, 0x1C9D, 0x10DD, 0x10DD, s("\u{1c9d}"), s("\u{10dd}"), s("\u{10dd}")),
    (0x10DE, 0x1C9E, 0x10DE, 0x10DE, s("\u{1c9e}"), s("\u{10de}"), s("\u{10de}")),
    (0x10DF, 0x1C9F, 0x10DF, 0x10DF, s("\u{1c9f}"), s("\u{10df}"), s("\u{10df}")),
    (0x10E0, 0x1CA0, 0x10E0, 0x10E0, s("\u{1ca0}"), s("\u{10e0}"), s("\u{10e0}")),
    (0x10E1, 0x1CA1, 0x10E1, 0x10E1, s("\u{1ca1}"), s("\u{10e1}"), s("\u{10e1}")),
    (0x10E2, 0x1CA2, 0x10E2, 0x10E2, s("\u{1ca2}"), s("\u{10e2}"), s("\u{10e2}")),
    (0x10E3, 0x1CA3, 0x10E3, 0x10E3, s("\u{1ca3}"), s("\u{10e3}"), s("\u{10e3}")),
    (0x10E4, 0x1CA4, 0x10E4, 0x10E4, s("\u{1ca4}"), s("\u{10e4}"), s("\u{10e4}")),
    (0x10E5, 0x1CA5, 0x10E5, 0x10E5, s("\u{1ca5}"), s("\u{10e5}"), s("\u{10e5}")),
    (0x10E6, 0x1CA6, 0x10E6, 0x10E6, s("\u{1ca6}"), s("\u{10e6}"), s("\u{10e6}")),
    (0x10E7, 0x1CA7, 0x10E7, 0x10E7, s("\u{1ca7}"), s("\u{10e7}"), s("\u{10e7}")),
    (0x10E8, 0x1CA8, 0x10E8, 0x10E8, s("\u{1ca8}"), s("\u{10e8}"), s("\u{10e8}")),
    (0x10E9, 0x1CA9, 0x10E9, 0x10E9, s("\u{1ca9}"), s("\u{10e9}"), s("\u{10e9}")),
    (0x10EA, 0x1CAA, 0x10EA, 0x10EA, s("\u{1caa}"), s("\u{10ea}"), s("\u{10ea}")),
    (0x10EB, 0x1CAB, 0x10EB, 0x10EB, s("\u{1cab}"), s("\u{10eb}"), s("\u{10eb}")),
    (0x10EC, 0x1CAC, 0x10EC, 0x10EC, s("\u{1cac}"), s("\u{10ec}"), s("\u{10ec}")),
    (0x10ED, 0x1CAD, 0x10ED, 0x10ED, s("\u{1cad}"), s("\u{10ed}"), s("\u{10ed}")),
    (0x10EE, 0x1CAE, 0x10EE, 0x10EE, s("\u{1cae}"), s("\u{10ee}"), s("\u{10ee}")),
    (0x10EF, 0x1CAF, 0x10EF, 0x10EF, s("\u{1caf}"), s("\u{10ef}"), s("\u{10ef}")),
    (0x10F0, 0x1CB0, 0x10F0, 0x10F0, s("\u{1cb0}"), s("\u{10f0}"), s("\u{10f0}")),
    (0x10F1, 0x1CB1, 0x10F1, 0x10F1, s("\u{1cb1}"), s("\u{10f1}"), s("\u{10f1}")),
    (0x10F2, 0x1CB2, 0x10F2, 0x10F2, s("\u{1cb2}"), s("\u{10f2}"), s("\u{10f2}")),
    (0x10F3, 0x1CB3, 0x10F3, 0x10F3, s("\u{1cb3}"), s("\u{10f3}"), s("\u{10f3}")),
    (0x10F4, 0x1CB4, 0x10F4, 0x10F4, s("\u{1cb4}"), s("\u{10f4}"), s("\u{10f4}")),
    (0x10F5, 0x1CB5, 0x10F5, 0x10F5, s("\u{1cb5}"), s("\u{10f5}"), s("\u{10f5}")),
    (0x10F6, 0x1CB6, 0x10F6, 0x10F6, s("\u{1cb6}"), s("\u{10f6}"), s("\u{10f6}")),
    (0x10F7, 0x1CB7, 0x10F7, 0x10F7, s("\u{1cb7}"), s("\u{10f7}"), s("\u{10f7}")),
    (0x10F8, 0x1CB8, 0x10F8, 0x10F8, s("\u{1cb8}"), s("\u{10f8}"), s("\u{10f8}")),
    (0x10F9, 0x1CB9, 0x10F9, 0x10F9, s("\u{1cb9}"), s("\u{10f9}"), s("\u{10f9}")),
    (0x10FA, 0x1CBA, 0x10FA, 0x10FA, s("\u{1cba}"), s("\u{10fa}"), s("\u{10fa}")),
    (0x10FD, 0x1CBD, 0x10FD, 0x10FD, s("\u{1cbd}"), s("\u{10fd}"), s("\u{10fd}")),
    (0x10FE, 0x1CBE, 0x10FE, 0x10FE, s("\u{1cbe}"), s("\u{10fe}"), s("\u{10fe}")),
    (0x10FF, 0x1CBF, 0x10FF, 0x10FF, s("\u{1cbf}"), s("\u{10ff}"), s("\u{10ff}")),
    (0x1C89, 0x1C89, 0x1C89, 0x1C89, s("\u{1c89}"), s("\u{1c89}"), s("\u{1c89}")),
    (0x1C8A, 0x1C8A, 0x1C8A, 0x1C8A, s("\u{1c8a}"), s("\u{1c8a}"), s("\u{1c8a}")),
    (0x1F80, 0x1F88, 0x1F80, 0x1F88, s("\u{1f08}\u{399}"), s("\u{1f80}"), s("\u{1f88}")),
    (0x1F81, 0x1F89, 0x1F81, 0x1F89, s("\u{1f09}\u{399}"), s("\u{1f81}"), s("\u{1f89}")),
    (0x1F82, 0x1F8A, 0x1F82, 0x1F8A, s("\u{1f0a}\u{399}"), s("\u{1f82}"), s("\u{1f8a}")),
    (0x1F83, 0x1F8B, 0x1F83, 0x1F8B, s("\u{1f0b}\u{399}"), s("\u{1f83}"), s("\u{1f8b}")),
    (0x1F84, 0x1F8C, 0x1F84, 0x1F8C, s("\u{1f0c}\u{399}"), s("\u{1f84}"), s("\u{1f8c}")),
    (0x1F85, 0x1F8D, 0x1F85, 0x1F8D, s("\u{1f0d}\u{399}"), s("\u{1f85}"), s("\u{1f8d}")),
    (0x1F86, 0x1F8E, 0x1F86, 0x1F8E, s("\u{1f0e}\u{399}"), s("\u{1f86}"), s("\u{1f8e}")),
    (0x1F87, 0x1F8F, 0x1F87, 0x1F8F, s("\u{1f0f}\u{399}"), s("\u{1f87}"), s("\u{1f8f}")),
    (0x1F88, 0x1F88, 0x1F80, 0x1F88, s("\u{1f08}\u{399}"), s("\u{1f80}"), s("\u{1f88}")),
    (0x1F89, 0x1F89, 0x1F81, 0x1F89, s("\u{1f09}\u{399}"), s("\u{1f81}"), s("\u{1f89}")),
    (0x1F8A, 0x1F8A, 0x1F82, 0x1F8A, s("\u{1f0a}\u{399}"), s("\u{1f82}"), s("\u{1f8a}")),
    (0x1F8B, 0x1F8B, 0x1F83, 0x1F8B, s("\u{1f0b}\u{399}"), s("\u{1f83}"), s("\u{1f8b}")),
    (0x1F8C, 0x1F8C, 0x1F84, 0x1F8C, s("\u{1f0c}\u{399}"), s("\u{1f84}"), s("\u{1f8c}")),
    (0x1F8D, 0x1F8D, 0x1F85, 0x1F8D, s("\u{1f0d}\u{399}"), s("\u{1f85}"), s("\u{1f8d}")),
    (0x1F8E, 0x1F8E, 0x1F86, 0x1F8E, s("\u{1f0e}\u{399}"), s("\u{1f86}"), s("\u{1f8e}")),
    (0x1F8F, 0x1F8F, 0x1F87, 0x1F8F, s("\u{1f0f}\u{399}"), s("\u{1f87}"), s("\u{1f8f}")),
    (0x1F90, 0x1F98, 0x1F90, 0x1F98, s("\u{1f28}\u{399}"), s("\u{1f90}"), s("\u{1f98}")),
    (0x1F91, 0x1F99, 0x1F91, 0x1F99, s("\u{1f29}\u{399}"), s("\u{1f91}"), s("\u{1f99}")),
    (0x1F92, 0x1F9A, 0x1F92, 0x1F9A, s("\u{1f2a}\u{399}"), s("\u{1f92}"), s("\u{1f9a}")),
    (0x1F93, 0x1F9B, 0x1F93, 0x1F9B, s("\u{1f2b}\u{399}"), s("\u{1f93}"), s("\u{1f9b}")),
    (0x1F94, 0x1F9C, 0x1F94, 0x1F9C, s("\u{1f2c}\u{399}"), s("\u{1f94}"), s("\u{1f9c}")),
    (0x1F95, 0x1F9D, 0x1F95, 0x1F9D, s("\u{1f2d}\u{399}"), s("\u{1f95}"), s("\u{1f9d}")),
    (0x1F96, 0x1F9E, 0x1F96, 0x1F9E, s("\u{1f2e}\u{399}"), s("\u{1f96}"), s("\u{1f9e}")),
    (0x1F97, 0x1F9F, 0x1F97, 0x1F9F, s("\u{1f2f}\u{399}"), s("\u{1f97}"), s("\u{1f9f}")),
    (0x1F98, 0x1F98, 0x1F90, 0x1F98, s("\u{1f28}\u{399}"), s("\u{1f90}"), s("\u{1f98}")),
    (0x1F99, 0x1F99, 0x1F91, 0x1F99, s("\u{1f29}\u{399}"), s("\u{1f91}"), s("\u{1f99}")),
    (0x1F9A, 0x1F9A, 0x1F92, 0x1F9A, s("\u{1f2a}\u{399}"), s("\u{1f92}"), s("\u{1f9a}")),
    (0x1F9B, 0x1F9B, 0x1F93, 0x1F9B, s("\u{1f2b}\u{399}"), s("\u{1f93}"), s("\u{1f9b}")),
    (0x1F9C, 0x1F9C, 0x1F94, 0x1F9C, s("\u{1f2c}\u{399}"), s("\u{1f94}"), s("\u{1f9c}")),
    (0x1F9D, 0x1F9D, 0x1F95, 0x1F9D, s("\u{1f2d}\u{399}"), s("\u{1f95}"), s("\u{1f9d}")),
    (0x1F9E, 0x1F9E, 0x1F96, 0x1F9E, s("\u{1f2e}\u{399}"), s("\u{1f96}"), s("\u{1f9e}")),
    (0x1F9F, 0x1F9F, 0x1F97, 0x1F9F, s("\u{1f2f}\u{399}"), s("\u{1f97}"), s("\u{1f9f}")),
    (0x1FA0, 0x1FA8, 0x1FA0, 0x1FA8, s("\u{1f68}\u{399}"), s("\u{1fa0}"), s("\u{1fa8}")),
    (0x1FA1, 0x1FA9, 0x1FA1, 0x1FA9, s("\u{1f69}\u{399}"), s("\u{1fa1}"), s("\u{1fa9}")),
    (0x1FA2, 0x1FAA, 0x1FA2, 0x1FAA, s("\u{1f6a}\u{399}"), s("\u{1fa2}"), s("\u{1faa}")),
    (0x1FA3, 0x1FAB, 0x1FA3, 0x1FAB, s("\u{1f6b}\u{399}"), s("\u{1fa3}"), s("\u{1fab}")),
    (0x1FA4, 0x1FAC, 0x1FA4, 0x1FAC, s("\u{1f6c}\u{399}"), s("\u{1fa4}"), s("\u{1fac}")),
    (0x1FA5, 0x1FAD, 0x1FA5, 0x1FAD, s("\u{1f6d}\u{399}"), s("\u{1fa5}"), s("\u{1fad}")),
    (0x1FA6, 0x1FAE, 0x1FA6, 0x1FAE, s("\u{1f6e}\u{399}"), s("\u{1fa6}"), s("\u{1fae}")),
    (0x1FA7, 0x1FAF, 0x1FA7, 0x1FAF, s("\u{1f6f}\u{399}"), s("\u{1fa7}"), s("\u{1faf}")),
    (0x1FA8, 0x1FA8, 0x1FA0, 0x1FA8, s("\u{1f68}\u{399}"), s("\u{1fa0}"), s("\u{1fa8}")),
    (0x1FA9, 0x1FA9, 0x1FA1, 0x1FA9, s("\u{1f69}\u{399}"), s("\u{1fa1}"), s("\u{1fa9}")),
    (0x1FAA, 0x1FAA, 0x1FA2, 0x1FAA, s("\u{1f6a}\u{399}"), s("\u{1fa2}"), s("\u{1faa}")),
    (0x1FAB, 0x1FAB, 0x1FA3, 0x1FAB, s("\u{1f6b}\u{399}"), s("\u{1fa3}"), s("\u{1fab}")),
    (0x1FAC, 0x1FAC, 0x1FA4, 0x1FAC, s("\u{1f6c}\u{399}"), s("\u{1fa4}"), s("\u{1fac}")),
    (0x1FAD, 0x1FAD, 0x1FA5, 0x1FAD, s("\u{1f6d}\u{399}"), s("\u{1fa5}"), s("\u{1fad}")),
    (0x1FAE, 0x1FAE, 0x1FA6, 0x1FAE, s("\u{1f6e}\u{399}"), s("\u{1fa6}"), s("\u{1fae}")),
    (0x1FAF, 0x1FAF, 0x1FA7, 0x1FAF, s("\u{1f6f}\u{399}"), s("\u{1fa7}"), s("\u{1faf}")),
    (0x1FB2, 0x1FB2, 0x1FB2, 0x1FB2, s("\u{1fba}\u{399}"), s("\u{1fb2}"), s("\u{1fba}\u{345}")),
    (0x1FB3, 0x1FBC, 0x1FB3, 0x1FBC, s("\u{391}\u{399}"), s("\u{1fb3}"), s("\u{1fbc}")),
    (0x1FB4, 0x1FB4, 0x1FB4, 0x1FB4, s("\u{386}\u{399}"), s("\u{1fb4}"), s("\u{386}\u{345}")),
    (0x1FB7, 0x1FB7, 0x1FB7, 0x1FB7, s("\u{391}\u{342}\u{399}"), s("\u{1fb7}"), s("\u{391}\u{342}\u{345}")),
    (0x1FBC, 0x1FBC, 0x1FB3, 0x1FBC, s("\u{391}\u{399}"), s("\u{1fb3}"), s("\u{1fbc}")),
    (0x1FC2, 0x1FC2, 0x1FC2, 0x1FC2, s("\u{1fca}\u{399}"), s("\u{1fc2}"), s("\u{1fca}\u{345}")),
    (0x1FC3, 0x1FCC, 0x1FC3, 0x1FCC, s("\u{397}\u{399}"), s("\u{1fc3}"), s("\u{1fcc}")),
    (0x1FC4, 0x1FC4, 0x1FC4, 0x1FC4, s("\u{389}\u{399}"), s("\u{1fc4}"), s("\u{389}\u{345}")),
    (0x1FC7, 0x1FC7, 0x1FC7, 0x1FC7, s("\u{397}\u{342}\u{399}"), s("\u{1fc7}"), s("\u{397}\u{342}\u{345}")),
    (0x1FCC, 0x1FCC, 0x1FC3, 0x1FCC, s("\u{397}\u{399}"), s("\u{1fc3}"), s("\u{1fcc}")),
    (0x1FF2, 0x1FF2, 0x1FF2, 0x1FF2, s("\u{1ffa}\u{399}"), s("\u{1ff2}"), s("\u{1ffa}\u{345}")),
    (0x1FF3, 0x1FFC, 0x1FF3, 0x1FFC, s("\u{3a9}\u{399}"), s("\u{1ff3}"), s("\u{1ffc}")),
    (0x1FF4, 0x1FF4, 0x1FF4, 0x1FF4, s("\u{38f}\u{399}"), s("\u{1ff4}"), s("\u{38f}\u{345}")),
    (0x1FF7, 0x1FF7, 0x1FF7, 0x1FF7, s("\u{3a9}\u{342}\u{399}"), s("\u{1ff7}"), s("\u{3a9}\u{342}\u{345}")),
    (0x1FFC, 0x1FFC, 0x1FF3, 0x1FFC, s("\u{3a9}\u{399}"), s("\u{1ff3}"), s("\u{1ffc}")),
    (0x212A, 0x212A, 0x212A, 0x212A, s("\u{212a}"), s("\u{212a}"), s("\u{212a}")),
    (0xA7CB, 0xA7CB, 0xA7CB, 0xA7CB, s("\u{a7cb}"), s("\u{a7cb}"), s("\u{a7cb}")),
    (0xA7CC, 0xA7CC, 0xA7CC, 0xA7CC, s("\u{a7cc}"), s("\u{a7cc}"), s("\u{a7cc}")),
    (0xA7CD, 0xA7CD, 0xA7CD, 0xA7CD, s("\u{a7cd}"), s("\u{a7cd}"), s("\u{a7cd}")),
    (0xA7CE, 0xA7CE, 0xA7CE, 0xA7CE, s("\u{a7ce}"), s("\u{a7ce}"), s("\u{a7ce}")),
    (0xA7CF, 0xA7CF, 0xA7CF, 0xA7CF, s("\u{a7cf}"), s("\u{a7cf}"), s("\u{a7cf}")),
    (0xA7D2, 0xA7D2, 0xA7D2, 0xA7D2, s("\u{a7d2}"), s("\u{a7d2}"), s("\u{a7d2}")),
    (0xA7D3, 0xA7D3, 0xA7D3, 0xA7D3, s("\u{a7d3}"), s("\u{a7d3}"), s("\u{a7d3}")),
    (0xA7D4, 0xA7D4, 0xA7D4, 0xA7D4, s("\u{a7d4}"), s("\u{a7d4}"), s("\u{a7d4}")),
    (0xA7D5, 0xA7D5, 0xA7D5, 0xA7D5, s("\u{a7d5}"), s("\u{a7d5}"), s("\u{a7d5}")),
    (0xA7DA, 0xA7DA, 0xA7DA, 0xA7DA, s("\u{a7da}"), s("\u{a7da}"), s("\u{a7da}")),
    (0xA7DB, 0xA7DB, 0xA7DB, 0xA7DB, s("\u{a7db}"), s("\u{a7db}"), s("\u{a7db}")),
    (0xA7DC, 0xA7DC, 0xA7DC, 0xA7DC, s("\u{a7dc}"), s("\u{a7dc}"), s("\u{a7dc}")),
    (0xFB00, 0xFB00, 0xFB00, 0xFB00, s("FF"), s("\u{fb00}"), s("Ff")),
    (0xFB01, 0xFB01, 0xFB01, 0xFB01, s("FI"), s("\u{fb01}"), s("Fi")),
    (0xFB02, 0xFB02, 0xFB02, 0xFB02, s("FL"), s("\u{fb02}"), s("Fl")),
    (0xFB03, 0xFB03, 0xFB03, 0xFB03, s("FFI"), s("\u{fb03}"), s("Ffi")),
    (0xFB04, 0xFB04, 0xFB04, 0xFB04, s("FFL"), s("\u{fb04}"), s("Ffl")),
    (0xFB05, 0xFB05, 0xFB05, 0xFB05, s("ST"), s("\u{fb05}"), s("St")),
    (0xFB06, 0xFB06, 0xFB06, 0xFB06, s("ST"), s("\u{fb06}"), s("St")),
    (0xFB13, 0xFB13, 0xFB13, 0xFB13, s("\u{544}\u{546}"), s("\u{fb13}"), s("\u{544}\u{576}")),
    (0xFB14, 0xFB14, 0xFB14, 0xFB14, s("\u{544}\u{535}"), s("\u{fb14}"), s("\u{544}\u{565}")),
    (0xFB15, 0xFB15, 0xFB15, 0xFB15, s("\u{544}\u{53b}"), s("\u{fb15}"), s("\u{544}\u{56b}")),
    (0xFB16, 0xFB16, 0xFB16, 0xFB16, s("\u{54e}\u{546}"), s("\u{fb16}"), s("\u{54e}\u{576}")),
    (0xFB17, 0xFB17, 0xFB17, 0xFB17, s("\u{544}\u{53d}"), s("\u{fb17}"), s("\u{544}\u{56d}")),
    (0x10D50, 0x10D50, 0x10D50, 0x10D50, s("\u{10d50}"), s("\u{10d50}"), s("\u{10d50}")),
    (0x10D51, 0x10D51, 0x10D51, 0x10D51, s("\u{10d51}"), s("\u{10d51}"), s("\u{10d51}")),
    (0x10D52, 0x10D52, 0x10D52, 0x10D52, s("\u{10d52}"), s("\u{10d52}"), s("\u{10d52}")),
    (0x10D53, 0x10D53, 0x10D53, 0x10D53, s("\u{10d53}"), s("\u{10d53}"), s("\u{10d53}")),
    (0x10D54, 0x10D54, 0x10D54, 0x10D54, s("\u{10d54}"), s("\u{10d54}"), s("\u{10d54}")),
    (0x10D55, 0x10D55, 0x10D55, 0x10D55, s("\u{10d55}"), s("\u{10d55}"), s("\u{10d55}")),
    (0x10D56, 0x10D56, 0x10D56, 0x10D56, s("\u{10d56}"), s("\u{10d56}"), s("\u{10d56}")),
    (0x10D57, 0x10D57, 0x10D57, 0x10D57, s("\u{10d57}"), s("\u{10d57}"), s("\u{10d57}")),
    (0x10D58, 0x10D58, 0x10D58, 0x10D58, s("\u{10d58}"), s("\u{10d58}"), s("\u{10d58}")),
    (0x10D59, 0x10D59, 0x10D59, 0x10D59, s("\u{10d59}"), s("\u{10d59}"), s("\u{10d59}")),
    (0x10D5A, 0x10D5A, 0x10D5A, 0x10D5A, s("\u{10d5a}"), s("\u{10d5a}"), s("\u{10d5a}")),
    (0x10D5B, 0x10D5B, 0x10D5B, 0x10D5B, s("\u{10d5b}"), s("\u{10d5b}"), s("\u{10d5b}")),
    (0x10D5C, 0x10D5C, 0x10D5C, 0x10D5C, s("\u{10d5c}"), s("\u{10d5c}"), s("\u{10d5c}")),
    (0x10D5D, 0x10D5D, 0x10D5D, 0x10D5D, s("\u{10d5d}"), s("\u{10d5d}"), s("\u{10d5d}")),
    (0x10D5E, 0x10D5E, 0x10D5E, 0x10D5E, s("\u{10d5e}"), s("\u{10d5e}"), s("\u{10d5e}")),
    (0x10D5F, 0x10D5F, 0x10D5F, 0x10D5F, s("\u{10d5f}"), s("\u{10d5f}"), s("\u{10d5f}")),
    (0x10D60, 0x10D60, 0x10D60, 0x10D60, s("\u{10d60}"), s("\u{10d60}"), s("\u{10d60}")),
    (0x10D61, 0x10D61, 0x10D61, 0x10D61, s("\u{10d61}"), s("\u{10d61}"), s("\u{10d61}")),
    (0x10D62, 0x10D62, 0x10D62, 0x10D62, s("\u{10d62}"), s("\u{10d62}"), s("\u{10d62}")),
    (0x10D63, 0x10D63, 0x10D63, 0x10D63, s("\u{10d63}"), s("\u{10d63}"), s("\u{10d63}")),
    (0x10D64, 0x10D64, 0x10D64, 0x10D64, s("\u{10d64}"), s("\u{10d64}"), s("\u{10d64}")),
    (0x10D65, 0x10D65, 0x10D65, 0x10D65, s("\u{10d65}"), s("\u{10d65}"), s("\u{10d65}")),
    (0x10D70, 0x10D70, 0x10D70, 0x10D70, s("\u{10d70}"), s("\u{10d70}"), s("\u{10d70}")),
    (0x10D71, 0x10D71, 0x10D71, 0x10D71, s("\u{10d71}"), s("\u{10d71}"), s("\u{10d71}")),
    (0x10D72, 0x10D72, 0x10D72, 0x10D72, s("\u{10d72}"), s("\u{10d72}"), s("\u{10d72}")),
    (0x10D73, 0x10D73, 0x10D73, 0x10D73, s("\u{10d73}"), s("\u{10d73}"), s("\u{10d73}")),
    (0x10D74, 0x10D74, 0x10D74, 0x10D74, s("\u{10d74}"), s("\u{10d74}"), s("\u{10d74}")),
    (0x10D75, 0x10D75, 0x10D75, 0x10D75, s("\u{10d75}"), s("\u{10d75}"), s("\u{10d75}")),
    (0x10D76, 0x10D76, 0x10D76, 0x10D76, s("\u{10d76}"), s("\u{10d76}"), s("\u{10d76}")),
    (0x10D77, 0x10D77, 0x10D77, 0x10D77, s("\u{10d77}"), s("\u{10d77}"), s("\u{10d77}")),
    (0x10D78, 0x10D78, 0x10D78, 0x10D78, s("\u{10d78}"), s("\u{10d78}"), s("\u{10d78}")),
    (0x10D79, 0x10D79, 0x10D79, 0x10D79, s("\u{10d79}"), s("\u{10d79}"), s("\u{10d79}")),
    (0x10D7A, 0x10D7A, 0x10D7A, 0x10D7A, s("\u{10d7a}"), s("\u{10d7a}"), s("\u{10d7a}")),
    (0x10D7B, 0x10D7B, 0x10D7B, 0x10D7B, s("\u{10d7b}"), s("\u{10d7b}"), s("\u{10d7b}")),
    (0x10D7C, 0x10D7C, 0x10D7C, 0x10D7C, s("\u{10d7c}"), s("\u{10d7c}"), s("\u{10d7c}")),
    (0x10D7D, 0x10D7D, 0x10D7D, 0x10D7D, s("\u{10d7d}"), s("\u{10d7d}"), s("\u{10d7d}")),
    (0x10D7E, 0x10D7E, 0x10D7E, 0x10D7E, s("\u{10d7e}"), s("\u{10d7e}"), s("\u{10d7e}")),
    (0x10D7F, 0x10D7F, 0x10D7F, 0x10D7F, s("\u{10d7f}"), s("\u{10d7f}"), s("\u{10d7f}")),
    (0x10D80, 0x10D80, 0x10D80, 0x10D80, s("\u{10d80}"), s("\u{10d80}"), s("\u{10d80}")),
    (0x10D81, 0x10D81, 0x10D81, 0x10D81, s("\u{10d81}"), s("\u{10d81}"), s("\u{10d81}")),
    (0x10D82, 0x10D82, 0x10D82, 0x10D82, s("\u{10d82}"), s("\u{10d82}"), s("\u{10d82}")),
    (0x10D83, 0x10D83, 0x10D83, 0x10D83, s("\u{10d83}"), s("\u{10d83}"), s("\u{10d83}")),
    (0x10D84, 0x10D84, 0x10D84, 0x10D84, s("\u{10d84}"), s("\u{10d84}"), s("\u{10d84}")),
    (0x10D85, 0x10D85, 0x10D85, 0x10D85, s("\u{10d85}"), s("\u{10d85}"), s("\u{10d85}")),
    (0x16EA0, 0x16EA0, 0x16EA0, 0x16EA0, s("\u{16ea0}"), s("\u{16ea0}"), s("\u{16ea0}")),
    (0x16EA1, 0x16EA1, 0x16EA1, 0x16EA1, s("\u{16ea1}"), s("\u{16ea1}"), s("\u{16ea1}")),
    (0x16EA2, 0x16EA2, 0x16EA2, 0x16EA2, s("\u{16ea2}"), s("\u{16ea2}"), s("\u{16ea2}")),
    (0x16EA3, 0x16EA3, 0x16EA3, 0x16EA3, s("\u{16ea3}"), s("\u{16ea3}"), s("\u{16ea3}")),
    (0x16EA4, 0x16EA4, 0x16EA4, 0x16EA4, s("\u{16ea4}"), s("\u{16ea4}"), s("\u{16ea4}")),
    (0x16EA5, 0x16EA5, 0x16EA5, 0x16EA5, s("\u{16ea5}"), s("\u{16ea5}"), s("\u{16ea5}")),
    (0x16EA6, 0x16EA6, 0x16EA6, 0x16EA6, s("\u{16ea6}"), s("\u{16ea6}"), s("\u{16ea6}")),
    (0x16EA7, 0x16EA7, 0x16EA7, 0x16EA7, s("\u{16ea7}"), s("\u{16ea7}"), s("\u{16ea7}")),
    (0x16EA8, 0x16EA8, 0x16EA8, 0x16EA8, s("\u{16ea8}"), s("\u{16ea8}"), s("\u{16ea8}")),
    (0x16EA9, 0x16EA9, 0x16EA9, 0x16EA9, s("\u{16ea9}"), s("\u{16ea9}"), s("\u{16ea9}")),
    (0x16EAA, 0x16EAA, 0x16EAA, 0x16EAA, s("\u{16eaa}"), s("\u{16eaa}"), s("\u{16eaa}")),
    (0x16EAB, 0x16EAB, 0x16EAB, 0x16EAB, s("\u{16eab}"), s("\u{16eab}"), s("\u{16eab}")),
    (0x16EAC, 0x16EAC, 0x16EAC, 0x16EAC, s("\u{16eac}"), s("\u{16eac}"), s("\u{16eac}")),
    (0x16EAD, 0x16EAD, 0x16EAD, 0x16EAD, s("\u{16ead}"), s("\u{16ead}"), s("\u{16ead}")),
    (0x16EAE, 0x16EAE, 0x16EAE, 0x16EAE, s("\u{16eae}"), s("\u{16eae}"), s("\u{16eae}")),
    (0x16EAF, 0x16EAF, 0x16EAF, 0x16EAF, s("\u{16eaf}"), s("\u{16eaf}"), s("\u{16eaf}")),
    (0x16EB0, 0x16EB0, 0x16EB0, 0x16EB0, s("\u{16eb0}"), s("\u{16eb0}"), s("\u{16eb0}")),
    (0x16EB1, 0x16EB1, 0x16EB1, 0x16EB1, s("\u{16eb1}"), s("\u{16eb1}"), s("\u{16eb1}")),
    (0x16EB2, 0x16EB2, 0x16EB2, 0x16EB2, s("\u{16eb2}"), s("\u{16eb2}"), s("\u{16eb2}")),
    (0x16EB3, 0x16EB3, 0x16EB3, 0x16EB3, s("\u{16eb3}"), s("\u{16eb3}"), s("\u{16eb3}")),
    (0x16EB4, 0x16EB4, 0x16EB4, 0x16EB4, s("\u{16eb4}"), s("\u{16eb4}"), s("\u{16eb4}")),
    (0x16EB5, 0x16EB5, 0x16EB5, 0x16EB5, s("\u{16eb5}"), s("\u{16eb5}"), s("\u{16eb5}")),
    (0x16EB6, 0x16EB6, 0x16EB6, 0x16EB6, s("\u{16eb6}"), s("\u{16eb6}"), s("\u{16eb6}")),
    (0x16EB7, 0x16EB7, 0x16EB7, 0x16EB7, s("\u{16eb7}"), s("\u{16eb7}"), s("\u{16eb7}")),
    (0x16EB8, 0x16EB8, 0x16EB8, 0x16EB8, s("\u{16eb8}"), s("\u{16eb8}"), s("\u{16eb8}")),
    (0x16EBB, 0x16EBB, 0x16EBB, 0x16EBB, s("\u{16ebb}"), s("\u{16ebb}"), s("\u{16ebb}")),
    (0x16EBC, 0x16EBC, 0x16EBC, 0x16EBC, s("\u{16ebc}"), s("\u{16ebc}"), s("\u{16ebc}")),
    (0x16EBD, 0x16EBD, 0x16EBD, 0x16EBD, s("\u{16ebd}"), s("\u{16ebd}"), s("\u{16ebd}")),
    (0x16EBE, 0x16EBE, 0x16EBE, 0x16EBE, s("\u{16ebe}"), s("\u{16ebe}"), s("\u{16ebe}")),
    (0x16EBF, 0x16EBF, 0x16EBF, 0x16EBF, s("\u{16ebf}"), s("\u{16ebf}"), s("\u{16ebf}")),
    (0x16EC0, 0x16EC0, 0x16EC0, 0x16EC0, s("\u{16ec0}"), s("\u{16ec0}"), s("\u{16ec0}")),
    (0x16EC1, 0x16EC1, 0x16EC1, 0x16EC1, s("\u{16ec1}"), s("\u{16ec1}"), s("\u{16ec1}")),
    (0x16EC2, 0x16EC2, 0x16EC2, 0x16EC2, s("\u{16ec2}"), s("\u{16ec2}"), s("\u{16ec2}")),
    (0x16EC3, 0x16EC3, 0x16EC3, 0x16EC3, s("\u{16ec3}"), s("\u{16ec3}"), s("\u{16ec3}")),
    (0x16EC4, 0x16EC4, 0x16EC4, 0x16EC4, s("\u{16ec4}"), s("\u{16ec4}"), s("\u{16ec4}")),
    (0x16EC5, 0x16EC5, 0x16EC5, 0x16EC5, s("\u{16ec5}"), s("\u{16ec5}"), s("\u{16ec5}")),
    (0x16EC6, 0x16EC6, 0x16EC6, 0x16EC6, s("\u{16ec6}"), s("\u{16ec6}"), s("\u{16ec6}")),
    (0x16EC7, 0x16EC7, 0x16EC7, 0x16EC7, s("\u{16ec7}"), s("\u{16ec7}"), s("\u{16ec7}")),
    (0x16EC8, 0x16EC8, 0x16EC8, 0x16EC8, s("\u{16ec8}"), s("\u{16ec8}"), s("\u{16ec8}")),
    (0x16EC9, 0x16EC9, 0x16EC9, 0x16EC9, s("\u{16ec9}"), s("\u{16ec9}"), s("\u{16ec9}")),
    (0x16ECA, 0x16ECA, 0x16ECA, 0x16ECA, s("\u{16eca}"), s("\u{16eca}"), s("\u{16eca}")),
    (0x16ECB, 0x16ECB, 0x16ECB, 0x16ECB, s("\u{16ecb}"), s("\u{16ecb}"), s("\u{16ecb}")),
    (0x16ECC, 0x16ECC, 0x16ECC, 0x16ECC, s("\u{16ecc}"), s("\u{16ecc}"), s("\u{16ecc}")),
    (0x16ECD, 0x16ECD, 0x16ECD, 0x16ECD, s("\u{16ecd}"), s("\u{16ecd}"), s("\u{16ecd}")),
    (0x16ECE, 0x16ECE, 0x16ECE, 0x16ECE, s("\u{16ece}"), s("\u{16ece}"), s("\u{16ece}")),
    (0x16ECF, 0x16ECF, 0x16ECF, 0x16ECF, s("\u{16ecf}"), s("\u{16ecf}"), s("\u{16ecf}")),
    (0x16ED0, 0x16ED0, 0x16ED0, 0x16ED0, s("\u{16ed0}"), s("\u{16ed0}"), s("\u{16ed0}")),
    (0x16ED1, 0x16ED1, 0x16ED1, 0x16ED1, s("\u{16ed1}"), s("\u{16ed1}"), s("\u{16ed1}")),
    (0x16ED2, 0x16ED2, 0x16ED2, 0x16ED2, s("\u{16ed2}"), s("\u{16ed2}"), s("\u{16ed2}")),
    (0x16ED3, 0x16ED3, 0x16ED3, 0x16ED3, s("\u{16ed3}"), s("\u{16ed3}"), s("\u{16ed3}")),
];

fn exception(c: char) -> Option<&'static Exception> {
    let code = u32::from(c);
    CASE_EXCEPTIONS
        .binary_search_by_key(&code, |row| row.0)
        .ok()
        .and_then(|index| CASE_EXCEPTIONS.get(index))
}

fn to_char(code: u32, fallback: char) -> char {
    char::from_u32(code).unwrap_or(fallback)
}

fn single(mut mapped: impl Iterator<Item = char>, c: char) -> char {
    match (mapped.next(), mapped.next()) {
        (Some(one), None) => one,
        _ => c,
    }
}

/// `(upcase CHAR)`.
pub(super) fn upcase_char(c: char) -> char {
    exception(c).map_or_else(|| single(c.to_uppercase(), c), |row| to_char(row.1, c))
}

/// `(downcase CHAR)`.
pub(super) fn downcase_char(c: char) -> char {
    exception(c).map_or_else(|| single(c.to_lowercase(), c), |row| to_char(row.2, c))
}

/// `(capitalize CHAR)`: the titlecase.
pub(super) fn title_char(c: char) -> char {
    exception(c).map_or_else(|| single(c.to_uppercase(), c), |row| to_char(row.3, c))
}

/// A word constituent for `capitalize` and the final-sigma rule (word syntax in the
/// standard syntax table: letters and digits).
fn is_word(c: char) -> bool {
    c.is_alphanumeric()
}

fn push_upper(out: &mut CompactString, c: char) {
    match exception(c) {
        Some(row) => out.push_str(row.4.as_str()),
        None => out.extend(c.to_uppercase()),
    }
}

fn push_title(out: &mut CompactString, c: char) {
    match exception(c) {
        Some(row) => out.push_str(row.6.as_str()),
        None => out.extend(c.to_uppercase()),
    }
}

/// Lower-cases `c`; `in_word` and `next` decide a capital sigma's final form.
fn push_lower(out: &mut CompactString, c: char, in_word: bool, next: Option<char>) {
    if c == '\u{3a3}' && in_word && !next.is_some_and(is_word) {
        out.push('\u{3c2}');
        return;
    }
    match exception(c) {
        Some(row) => out.push_str(row.5.as_str()),
        None => out.extend(c.to_lowercase()),
    }
}

/// `(upcase STRING)`. ASCII text maps byte for byte (no exception row is ASCII, which a
/// test pins).
pub(super) fn upcase_str(text: &str) -> CompactString {
    if text.is_ascii() {
        let mut out = CompactString::from(text);
        out.make_ascii_uppercase();
        return out;
    }
    let mut out = CompactString::with_capacity(text.len());
    for c in text.chars() {
        push_upper(&mut out, c);
    }
    out
}

/// `(downcase STRING)`. ASCII text maps byte for byte (see [`upcase_str`]).
pub(super) fn downcase_str(text: &str) -> CompactString {
    if text.is_ascii() {
        let mut out = CompactString::from(text);
        out.make_ascii_lowercase();
        return out;
    }
    let mut out = CompactString::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let mut in_word = false;
    while let Some(c) = chars.next() {
        push_lower(&mut out, c, in_word, chars.peek().copied());
        in_word = is_word(c);
    }
    out
}

/// `(capitalize STRING)`: each word's first character title-cased, the rest lower-cased;
/// words are runs of letters and digits.
pub(super) fn capitalize_str(text: &str) -> CompactString {
    let mut out = CompactString::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let mut in_word = false;
    while let Some(c) = chars.next() {
        if !is_word(c) {
            out.push(c);
        } else if in_word {
            push_lower(&mut out, c, true, chars.peek().copied());
        } else {
            push_title(&mut out, c);
        }
        in_word = is_word(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_sorted() {
        assert!(
            CASE_EXCEPTIONS
                .windows(2)
                .all(|w| matches!(w, [a, b] if a.0 < b.0))
        );
    }

    #[test]
    fn every_inline_string_reads_back_whole() {
        for row in &CASE_EXCEPTIONS {
            for text in [row.4, row.5, row.6] {
                assert_eq!(text.as_str().len(), usize::from(text.len));
                assert!(!text.as_str().is_empty());
            }
        }
        assert_eq!(s("\u{1f80}").as_str(), "\u{1f80}");
    }

    #[test]
    fn emacs_samples() {
        assert_eq!(capitalize_str("\u{df}"), "Ss");
        assert_eq!(upcase_str("\u{df}"), "SS");
        assert!(CASE_EXCEPTIONS.iter().all(|row| row.0 >= 0x80));
        let ascii: String = (0u8..0x80).map(char::from).collect();
        let slow_upper: String = ascii.chars().flat_map(char::to_uppercase).collect();
        let slow_lower: String = ascii.chars().flat_map(char::to_lowercase).collect();
        assert_eq!(upcase_str(&ascii), slow_upper);
        assert_eq!(downcase_str(&ascii), slow_lower);
        assert_eq!(upcase_char('\u{df}'), '\u{1e9e}');
        assert_eq!(capitalize_str("\u{1c6}a"), "\u{1c5}a");
        assert_eq!(title_char('\u{1c6}'), '\u{1c5}');
        assert_eq!(upcase_char('\u{1c6}'), '\u{1c4}');
        assert_eq!(
            downcase_str("\u{3a3}\u{391}\u{3a3}"),
            "\u{3c3}\u{3b1}\u{3c2}"
        );
        assert_eq!(capitalize_str("\u{fb01}x"), "Fix");
        assert_eq!(upcase_str("\u{131}"), "\u{131}");
        assert_eq!(capitalize_str("a1b c-d e_f g'h"), "A1b C-D E_F G'H");
    }
}
