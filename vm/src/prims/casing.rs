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
type Exception = (u32, u32, u32, u32, &'static str, &'static str, &'static str);

pub(super) const CASE_EXCEPTIONS: [Exception; 248] = [
    (0xDF, 0x1E9E, 0xDF, 0x1E9E, "SS", "\u{df}", "Ss"),
    (0x131, 0x131, 0x131, 0x49, "\u{131}", "\u{131}", "I"),
    (0x17F, 0x17F, 0x17F, 0x53, "\u{17f}", "\u{17f}", "S"),
    (0x19B, 0x19B, 0x19B, 0x19B, "\u{19b}", "\u{19b}", "\u{19b}"),
    (0x1C4, 0x1C4, 0x1C6, 0x1C5, "\u{1c4}", "\u{1c6}", "\u{1c5}"),
    (0x1C5, 0x1C4, 0x1C6, 0x1C5, "\u{1c4}", "\u{1c6}", "\u{1c5}"),
    (0x1C6, 0x1C4, 0x1C6, 0x1C5, "\u{1c4}", "\u{1c6}", "\u{1c5}"),
    (0x1C7, 0x1C7, 0x1C9, 0x1C8, "\u{1c7}", "\u{1c9}", "\u{1c8}"),
    (0x1C8, 0x1C7, 0x1C9, 0x1C8, "\u{1c7}", "\u{1c9}", "\u{1c8}"),
    (0x1C9, 0x1C7, 0x1C9, 0x1C8, "\u{1c7}", "\u{1c9}", "\u{1c8}"),
    (0x1CA, 0x1CA, 0x1CC, 0x1CB, "\u{1ca}", "\u{1cc}", "\u{1cb}"),
    (0x1CB, 0x1CA, 0x1CC, 0x1CB, "\u{1ca}", "\u{1cc}", "\u{1cb}"),
    (0x1CC, 0x1CA, 0x1CC, 0x1CB, "\u{1ca}", "\u{1cc}", "\u{1cb}"),
    (0x1F1, 0x1F1, 0x1F3, 0x1F2, "\u{1f1}", "\u{1f3}", "\u{1f2}"),
    (0x1F2, 0x1F1, 0x1F3, 0x1F2, "\u{1f1}", "\u{1f3}", "\u{1f2}"),
    (0x1F3, 0x1F1, 0x1F3, 0x1F2, "\u{1f1}", "\u{1f3}", "\u{1f2}"),
    (0x264, 0x264, 0x264, 0x264, "\u{264}", "\u{264}", "\u{264}"),
    (
        0x587,
        0x587,
        0x587,
        0x587,
        "\u{535}\u{552}",
        "\u{587}",
        "\u{535}\u{582}",
    ),
    (
        0x10D0, 0x1C90, 0x10D0, 0x10D0, "\u{1c90}", "\u{10d0}", "\u{10d0}",
    ),
    (
        0x10D1, 0x1C91, 0x10D1, 0x10D1, "\u{1c91}", "\u{10d1}", "\u{10d1}",
    ),
    (
        0x10D2, 0x1C92, 0x10D2, 0x10D2, "\u{1c92}", "\u{10d2}", "\u{10d2}",
    ),
    (
        0x10D3, 0x1C93, 0x10D3, 0x10D3, "\u{1c93}", "\u{10d3}", "\u{10d3}",
    ),
    (
        0x10D4, 0x1C94, 0x10D4, 0x10D4, "\u{1c94}", "\u{10d4}", "\u{10d4}",
    ),
    (
        0x10D5, 0x1C95, 0x10D5, 0x10D5, "\u{1c95}", "\u{10d5}", "\u{10d5}",
    ),
    (
        0x10D6, 0x1C96, 0x10D6, 0x10D6, "\u{1c96}", "\u{10d6}", "\u{10d6}",
    ),
    (
        0x10D7, 0x1C97, 0x10D7, 0x10D7, "\u{1c97}", "\u{10d7}", "\u{10d7}",
    ),
    (
        0x10D8, 0x1C98, 0x10D8, 0x10D8, "\u{1c98}", "\u{10d8}", "\u{10d8}",
    ),
    (
        0x10D9, 0x1C99, 0x10D9, 0x10D9, "\u{1c99}", "\u{10d9}", "\u{10d9}",
    ),
    (
        0x10DA, 0x1C9A, 0x10DA, 0x10DA, "\u{1c9a}", "\u{10da}", "\u{10da}",
    ),
    (
        0x10DB, 0x1C9B, 0x10DB, 0x10DB, "\u{1c9b}", "\u{10db}", "\u{10db}",
    ),
    (
        0x10DC, 0x1C9C, 0x10DC, 0x10DC, "\u{1c9c}", "\u{10dc}", "\u{10dc}",
    ),
    (
        0x10DD, 0x1C9D, 0x10DD, 0x10DD, "\u{1c9d}", "\u{10dd}", "\u{10dd}",
    ),
    (
        0x10DE, 0x1C9E, 0x10DE, 0x10DE, "\u{1c9e}", "\u{10de}", "\u{10de}",
    ),
    (
        0x10DF, 0x1C9F, 0x10DF, 0x10DF, "\u{1c9f}", "\u{10df}", "\u{10df}",
    ),
    (
        0x10E0, 0x1CA0, 0x10E0, 0x10E0, "\u{1ca0}", "\u{10e0}", "\u{10e0}",
    ),
    (
        0x10E1, 0x1CA1, 0x10E1, 0x10E1, "\u{1ca1}", "\u{10e1}", "\u{10e1}",
    ),
    (
        0x10E2, 0x1CA2, 0x10E2, 0x10E2, "\u{1ca2}", "\u{10e2}", "\u{10e2}",
    ),
    (
        0x10E3, 0x1CA3, 0x10E3, 0x10E3, "\u{1ca3}", "\u{10e3}", "\u{10e3}",
    ),
    (
        0x10E4, 0x1CA4, 0x10E4, 0x10E4, "\u{1ca4}", "\u{10e4}", "\u{10e4}",
    ),
    (
        0x10E5, 0x1CA5, 0x10E5, 0x10E5, "\u{1ca5}", "\u{10e5}", "\u{10e5}",
    ),
    (
        0x10E6, 0x1CA6, 0x10E6, 0x10E6, "\u{1ca6}", "\u{10e6}", "\u{10e6}",
    ),
    (
        0x10E7, 0x1CA7, 0x10E7, 0x10E7, "\u{1ca7}", "\u{10e7}", "\u{10e7}",
    ),
    (
        0x10E8, 0x1CA8, 0x10E8, 0x10E8, "\u{1ca8}", "\u{10e8}", "\u{10e8}",
    ),
    (
        0x10E9, 0x1CA9, 0x10E9, 0x10E9, "\u{1ca9}", "\u{10e9}", "\u{10e9}",
    ),
    (
        0x10EA, 0x1CAA, 0x10EA, 0x10EA, "\u{1caa}", "\u{10ea}", "\u{10ea}",
    ),
    (
        0x10EB, 0x1CAB, 0x10EB, 0x10EB, "\u{1cab}", "\u{10eb}", "\u{10eb}",
    ),
    (
        0x10EC, 0x1CAC, 0x10EC, 0x10EC, "\u{1cac}", "\u{10ec}", "\u{10ec}",
    ),
    (
        0x10ED, 0x1CAD, 0x10ED, 0x10ED, "\u{1cad}", "\u{10ed}", "\u{10ed}",
    ),
    (
        0x10EE, 0x1CAE, 0x10EE, 0x10EE, "\u{1cae}", "\u{10ee}", "\u{10ee}",
    ),
    (
        0x10EF, 0x1CAF, 0x10EF, 0x10EF, "\u{1caf}", "\u{10ef}", "\u{10ef}",
    ),
    (
        0x10F0, 0x1CB0, 0x10F0, 0x10F0, "\u{1cb0}", "\u{10f0}", "\u{10f0}",
    ),
    (
        0x10F1, 0x1CB1, 0x10F1, 0x10F1, "\u{1cb1}", "\u{10f1}", "\u{10f1}",
    ),
    (
        0x10F2, 0x1CB2, 0x10F2, 0x10F2, "\u{1cb2}", "\u{10f2}", "\u{10f2}",
    ),
    (
        0x10F3, 0x1CB3, 0x10F3, 0x10F3, "\u{1cb3}", "\u{10f3}", "\u{10f3}",
    ),
    (
        0x10F4, 0x1CB4, 0x10F4, 0x10F4, "\u{1cb4}", "\u{10f4}", "\u{10f4}",
    ),
    (
        0x10F5, 0x1CB5, 0x10F5, 0x10F5, "\u{1cb5}", "\u{10f5}", "\u{10f5}",
    ),
    (
        0x10F6, 0x1CB6, 0x10F6, 0x10F6, "\u{1cb6}", "\u{10f6}", "\u{10f6}",
    ),
    (
        0x10F7, 0x1CB7, 0x10F7, 0x10F7, "\u{1cb7}", "\u{10f7}", "\u{10f7}",
    ),
    (
        0x10F8, 0x1CB8, 0x10F8, 0x10F8, "\u{1cb8}", "\u{10f8}", "\u{10f8}",
    ),
    (
        0x10F9, 0x1CB9, 0x10F9, 0x10F9, "\u{1cb9}", "\u{10f9}", "\u{10f9}",
    ),
    (
        0x10FA, 0x1CBA, 0x10FA, 0x10FA, "\u{1cba}", "\u{10fa}", "\u{10fa}",
    ),
    (
        0x10FD, 0x1CBD, 0x10FD, 0x10FD, "\u{1cbd}", "\u{10fd}", "\u{10fd}",
    ),
    (
        0x10FE, 0x1CBE, 0x10FE, 0x10FE, "\u{1cbe}", "\u{10fe}", "\u{10fe}",
    ),
    (
        0x10FF, 0x1CBF, 0x10FF, 0x10FF, "\u{1cbf}", "\u{10ff}", "\u{10ff}",
    ),
    (
        0x1C89, 0x1C89, 0x1C89, 0x1C89, "\u{1c89}", "\u{1c89}", "\u{1c89}",
    ),
    (
        0x1C8A, 0x1C8A, 0x1C8A, 0x1C8A, "\u{1c8a}", "\u{1c8a}", "\u{1c8a}",
    ),
    (
        0x1F80,
        0x1F88,
        0x1F80,
        0x1F88,
        "\u{1f08}\u{399}",
        "\u{1f80}",
        "\u{1f88}",
    ),
    (
        0x1F81,
        0x1F89,
        0x1F81,
        0x1F89,
        "\u{1f09}\u{399}",
        "\u{1f81}",
        "\u{1f89}",
    ),
    (
        0x1F82,
        0x1F8A,
        0x1F82,
        0x1F8A,
        "\u{1f0a}\u{399}",
        "\u{1f82}",
        "\u{1f8a}",
    ),
    (
        0x1F83,
        0x1F8B,
        0x1F83,
        0x1F8B,
        "\u{1f0b}\u{399}",
        "\u{1f83}",
        "\u{1f8b}",
    ),
    (
        0x1F84,
        0x1F8C,
        0x1F84,
        0x1F8C,
        "\u{1f0c}\u{399}",
        "\u{1f84}",
        "\u{1f8c}",
    ),
    (
        0x1F85,
        0x1F8D,
        0x1F85,
        0x1F8D,
        "\u{1f0d}\u{399}",
        "\u{1f85}",
        "\u{1f8d}",
    ),
    (
        0x1F86,
        0x1F8E,
        0x1F86,
        0x1F8E,
        "\u{1f0e}\u{399}",
        "\u{1f86}",
        "\u{1f8e}",
    ),
    (
        0x1F87,
        0x1F8F,
        0x1F87,
        0x1F8F,
        "\u{1f0f}\u{399}",
        "\u{1f87}",
        "\u{1f8f}",
    ),
    (
        0x1F88,
        0x1F88,
        0x1F80,
        0x1F88,
        "\u{1f08}\u{399}",
        "\u{1f80}",
        "\u{1f88}",
    ),
    (
        0x1F89,
        0x1F89,
        0x1F81,
        0x1F89,
        "\u{1f09}\u{399}",
        "\u{1f81}",
        "\u{1f89}",
    ),
    (
        0x1F8A,
        0x1F8A,
        0x1F82,
        0x1F8A,
        "\u{1f0a}\u{399}",
        "\u{1f82}",
        "\u{1f8a}",
    ),
    (
        0x1F8B,
        0x1F8B,
        0x1F83,
        0x1F8B,
        "\u{1f0b}\u{399}",
        "\u{1f83}",
        "\u{1f8b}",
    ),
    (
        0x1F8C,
        0x1F8C,
        0x1F84,
        0x1F8C,
        "\u{1f0c}\u{399}",
        "\u{1f84}",
        "\u{1f8c}",
    ),
    (
        0x1F8D,
        0x1F8D,
        0x1F85,
        0x1F8D,
        "\u{1f0d}\u{399}",
        "\u{1f85}",
        "\u{1f8d}",
    ),
    (
        0x1F8E,
        0x1F8E,
        0x1F86,
        0x1F8E,
        "\u{1f0e}\u{399}",
        "\u{1f86}",
        "\u{1f8e}",
    ),
    (
        0x1F8F,
        0x1F8F,
        0x1F87,
        0x1F8F,
        "\u{1f0f}\u{399}",
        "\u{1f87}",
        "\u{1f8f}",
    ),
    (
        0x1F90,
        0x1F98,
        0x1F90,
        0x1F98,
        "\u{1f28}\u{399}",
        "\u{1f90}",
        "\u{1f98}",
    ),
    (
        0x1F91,
        0x1F99,
        0x1F91,
        0x1F99,
        "\u{1f29}\u{399}",
        "\u{1f91}",
        "\u{1f99}",
    ),
    (
        0x1F92,
        0x1F9A,
        0x1F92,
        0x1F9A,
        "\u{1f2a}\u{399}",
        "\u{1f92}",
        "\u{1f9a}",
    ),
    (
        0x1F93,
        0x1F9B,
        0x1F93,
        0x1F9B,
        "\u{1f2b}\u{399}",
        "\u{1f93}",
        "\u{1f9b}",
    ),
    (
        0x1F94,
        0x1F9C,
        0x1F94,
        0x1F9C,
        "\u{1f2c}\u{399}",
        "\u{1f94}",
        "\u{1f9c}",
    ),
    (
        0x1F95,
        0x1F9D,
        0x1F95,
        0x1F9D,
        "\u{1f2d}\u{399}",
        "\u{1f95}",
        "\u{1f9d}",
    ),
    (
        0x1F96,
        0x1F9E,
        0x1F96,
        0x1F9E,
        "\u{1f2e}\u{399}",
        "\u{1f96}",
        "\u{1f9e}",
    ),
    (
        0x1F97,
        0x1F9F,
        0x1F97,
        0x1F9F,
        "\u{1f2f}\u{399}",
        "\u{1f97}",
        "\u{1f9f}",
    ),
    (
        0x1F98,
        0x1F98,
        0x1F90,
        0x1F98,
        "\u{1f28}\u{399}",
        "\u{1f90}",
        "\u{1f98}",
    ),
    (
        0x1F99,
        0x1F99,
        0x1F91,
        0x1F99,
        "\u{1f29}\u{399}",
        "\u{1f91}",
        "\u{1f99}",
    ),
    (
        0x1F9A,
        0x1F9A,
        0x1F92,
        0x1F9A,
        "\u{1f2a}\u{399}",
        "\u{1f92}",
        "\u{1f9a}",
    ),
    (
        0x1F9B,
        0x1F9B,
        0x1F93,
        0x1F9B,
        "\u{1f2b}\u{399}",
        "\u{1f93}",
        "\u{1f9b}",
    ),
    (
        0x1F9C,
        0x1F9C,
        0x1F94,
        0x1F9C,
        "\u{1f2c}\u{399}",
        "\u{1f94}",
        "\u{1f9c}",
    ),
    (
        0x1F9D,
        0x1F9D,
        0x1F95,
        0x1F9D,
        "\u{1f2d}\u{399}",
        "\u{1f95}",
        "\u{1f9d}",
    ),
    (
        0x1F9E,
        0x1F9E,
        0x1F96,
        0x1F9E,
        "\u{1f2e}\u{399}",
        "\u{1f96}",
        "\u{1f9e}",
    ),
    (
        0x1F9F,
        0x1F9F,
        0x1F97,
        0x1F9F,
        "\u{1f2f}\u{399}",
        "\u{1f97}",
        "\u{1f9f}",
    ),
    (
        0x1FA0,
        0x1FA8,
        0x1FA0,
        0x1FA8,
        "\u{1f68}\u{399}",
        "\u{1fa0}",
        "\u{1fa8}",
    ),
    (
        0x1FA1,
        0x1FA9,
        0x1FA1,
        0x1FA9,
        "\u{1f69}\u{399}",
        "\u{1fa1}",
        "\u{1fa9}",
    ),
    (
        0x1FA2,
        0x1FAA,
        0x1FA2,
        0x1FAA,
        "\u{1f6a}\u{399}",
        "\u{1fa2}",
        "\u{1faa}",
    ),
    (
        0x1FA3,
        0x1FAB,
        0x1FA3,
        0x1FAB,
        "\u{1f6b}\u{399}",
        "\u{1fa3}",
        "\u{1fab}",
    ),
    (
        0x1FA4,
        0x1FAC,
        0x1FA4,
        0x1FAC,
        "\u{1f6c}\u{399}",
        "\u{1fa4}",
        "\u{1fac}",
    ),
    (
        0x1FA5,
        0x1FAD,
        0x1FA5,
        0x1FAD,
        "\u{1f6d}\u{399}",
        "\u{1fa5}",
        "\u{1fad}",
    ),
    (
        0x1FA6,
        0x1FAE,
        0x1FA6,
        0x1FAE,
        "\u{1f6e}\u{399}",
        "\u{1fa6}",
        "\u{1fae}",
    ),
    (
        0x1FA7,
        0x1FAF,
        0x1FA7,
        0x1FAF,
        "\u{1f6f}\u{399}",
        "\u{1fa7}",
        "\u{1faf}",
    ),
    (
        0x1FA8,
        0x1FA8,
        0x1FA0,
        0x1FA8,
        "\u{1f68}\u{399}",
        "\u{1fa0}",
        "\u{1fa8}",
    ),
    (
        0x1FA9,
        0x1FA9,
        0x1FA1,
        0x1FA9,
        "\u{1f69}\u{399}",
        "\u{1fa1}",
        "\u{1fa9}",
    ),
    (
        0x1FAA,
        0x1FAA,
        0x1FA2,
        0x1FAA,
        "\u{1f6a}\u{399}",
        "\u{1fa2}",
        "\u{1faa}",
    ),
    (
        0x1FAB,
        0x1FAB,
        0x1FA3,
        0x1FAB,
        "\u{1f6b}\u{399}",
        "\u{1fa3}",
        "\u{1fab}",
    ),
    (
        0x1FAC,
        0x1FAC,
        0x1FA4,
        0x1FAC,
        "\u{1f6c}\u{399}",
        "\u{1fa4}",
        "\u{1fac}",
    ),
    (
        0x1FAD,
        0x1FAD,
        0x1FA5,
        0x1FAD,
        "\u{1f6d}\u{399}",
        "\u{1fa5}",
        "\u{1fad}",
    ),
    (
        0x1FAE,
        0x1FAE,
        0x1FA6,
        0x1FAE,
        "\u{1f6e}\u{399}",
        "\u{1fa6}",
        "\u{1fae}",
    ),
    (
        0x1FAF,
        0x1FAF,
        0x1FA7,
        0x1FAF,
        "\u{1f6f}\u{399}",
        "\u{1fa7}",
        "\u{1faf}",
    ),
    (
        0x1FB2,
        0x1FB2,
        0x1FB2,
        0x1FB2,
        "\u{1fba}\u{399}",
        "\u{1fb2}",
        "\u{1fba}\u{345}",
    ),
    (
        0x1FB3,
        0x1FBC,
        0x1FB3,
        0x1FBC,
        "\u{391}\u{399}",
        "\u{1fb3}",
        "\u{1fbc}",
    ),
    (
        0x1FB4,
        0x1FB4,
        0x1FB4,
        0x1FB4,
        "\u{386}\u{399}",
        "\u{1fb4}",
        "\u{386}\u{345}",
    ),
    (
        0x1FB7,
        0x1FB7,
        0x1FB7,
        0x1FB7,
        "\u{391}\u{342}\u{399}",
        "\u{1fb7}",
        "\u{391}\u{342}\u{345}",
    ),
    (
        0x1FBC,
        0x1FBC,
        0x1FB3,
        0x1FBC,
        "\u{391}\u{399}",
        "\u{1fb3}",
        "\u{1fbc}",
    ),
    (
        0x1FC2,
        0x1FC2,
        0x1FC2,
        0x1FC2,
        "\u{1fca}\u{399}",
        "\u{1fc2}",
        "\u{1fca}\u{345}",
    ),
    (
        0x1FC3,
        0x1FCC,
        0x1FC3,
        0x1FCC,
        "\u{397}\u{399}",
        "\u{1fc3}",
        "\u{1fcc}",
    ),
    (
        0x1FC4,
        0x1FC4,
        0x1FC4,
        0x1FC4,
        "\u{389}\u{399}",
        "\u{1fc4}",
        "\u{389}\u{345}",
    ),
    (
        0x1FC7,
        0x1FC7,
        0x1FC7,
        0x1FC7,
        "\u{397}\u{342}\u{399}",
        "\u{1fc7}",
        "\u{397}\u{342}\u{345}",
    ),
    (
        0x1FCC,
        0x1FCC,
        0x1FC3,
        0x1FCC,
        "\u{397}\u{399}",
        "\u{1fc3}",
        "\u{1fcc}",
    ),
    (
        0x1FF2,
        0x1FF2,
        0x1FF2,
        0x1FF2,
        "\u{1ffa}\u{399}",
        "\u{1ff2}",
        "\u{1ffa}\u{345}",
    ),
    (
        0x1FF3,
        0x1FFC,
        0x1FF3,
        0x1FFC,
        "\u{3a9}\u{399}",
        "\u{1ff3}",
        "\u{1ffc}",
    ),
    (
        0x1FF4,
        0x1FF4,
        0x1FF4,
        0x1FF4,
        "\u{38f}\u{399}",
        "\u{1ff4}",
        "\u{38f}\u{345}",
    ),
    (
        0x1FF7,
        0x1FF7,
        0x1FF7,
        0x1FF7,
        "\u{3a9}\u{342}\u{399}",
        "\u{1ff7}",
        "\u{3a9}\u{342}\u{345}",
    ),
    (
        0x1FFC,
        0x1FFC,
        0x1FF3,
        0x1FFC,
        "\u{3a9}\u{399}",
        "\u{1ff3}",
        "\u{1ffc}",
    ),
    (
        0x212A, 0x212A, 0x212A, 0x212A, "\u{212a}", "\u{212a}", "\u{212a}",
    ),
    (
        0xA7CB, 0xA7CB, 0xA7CB, 0xA7CB, "\u{a7cb}", "\u{a7cb}", "\u{a7cb}",
    ),
    (
        0xA7CC, 0xA7CC, 0xA7CC, 0xA7CC, "\u{a7cc}", "\u{a7cc}", "\u{a7cc}",
    ),
    (
        0xA7CD, 0xA7CD, 0xA7CD, 0xA7CD, "\u{a7cd}", "\u{a7cd}", "\u{a7cd}",
    ),
    (
        0xA7CE, 0xA7CE, 0xA7CE, 0xA7CE, "\u{a7ce}", "\u{a7ce}", "\u{a7ce}",
    ),
    (
        0xA7CF, 0xA7CF, 0xA7CF, 0xA7CF, "\u{a7cf}", "\u{a7cf}", "\u{a7cf}",
    ),
    (
        0xA7D2, 0xA7D2, 0xA7D2, 0xA7D2, "\u{a7d2}", "\u{a7d2}", "\u{a7d2}",
    ),
    (
        0xA7D3, 0xA7D3, 0xA7D3, 0xA7D3, "\u{a7d3}", "\u{a7d3}", "\u{a7d3}",
    ),
    (
        0xA7D4, 0xA7D4, 0xA7D4, 0xA7D4, "\u{a7d4}", "\u{a7d4}", "\u{a7d4}",
    ),
    (
        0xA7D5, 0xA7D5, 0xA7D5, 0xA7D5, "\u{a7d5}", "\u{a7d5}", "\u{a7d5}",
    ),
    (
        0xA7DA, 0xA7DA, 0xA7DA, 0xA7DA, "\u{a7da}", "\u{a7da}", "\u{a7da}",
    ),
    (
        0xA7DB, 0xA7DB, 0xA7DB, 0xA7DB, "\u{a7db}", "\u{a7db}", "\u{a7db}",
    ),
    (
        0xA7DC, 0xA7DC, 0xA7DC, 0xA7DC, "\u{a7dc}", "\u{a7dc}", "\u{a7dc}",
    ),
    (0xFB00, 0xFB00, 0xFB00, 0xFB00, "FF", "\u{fb00}", "Ff"),
    (0xFB01, 0xFB01, 0xFB01, 0xFB01, "FI", "\u{fb01}", "Fi"),
    (0xFB02, 0xFB02, 0xFB02, 0xFB02, "FL", "\u{fb02}", "Fl"),
    (0xFB03, 0xFB03, 0xFB03, 0xFB03, "FFI", "\u{fb03}", "Ffi"),
    (0xFB04, 0xFB04, 0xFB04, 0xFB04, "FFL", "\u{fb04}", "Ffl"),
    (0xFB05, 0xFB05, 0xFB05, 0xFB05, "ST", "\u{fb05}", "St"),
    (0xFB06, 0xFB06, 0xFB06, 0xFB06, "ST", "\u{fb06}", "St"),
    (
        0xFB13,
        0xFB13,
        0xFB13,
        0xFB13,
        "\u{544}\u{546}",
        "\u{fb13}",
        "\u{544}\u{576}",
    ),
    (
        0xFB14,
        0xFB14,
        0xFB14,
        0xFB14,
        "\u{544}\u{535}",
        "\u{fb14}",
        "\u{544}\u{565}",
    ),
    (
        0xFB15,
        0xFB15,
        0xFB15,
        0xFB15,
        "\u{544}\u{53b}",
        "\u{fb15}",
        "\u{544}\u{56b}",
    ),
    (
        0xFB16,
        0xFB16,
        0xFB16,
        0xFB16,
        "\u{54e}\u{546}",
        "\u{fb16}",
        "\u{54e}\u{576}",
    ),
    (
        0xFB17,
        0xFB17,
        0xFB17,
        0xFB17,
        "\u{544}\u{53d}",
        "\u{fb17}",
        "\u{544}\u{56d}",
    ),
    (
        0x10D50,
        0x10D50,
        0x10D50,
        0x10D50,
        "\u{10d50}",
        "\u{10d50}",
        "\u{10d50}",
    ),
    (
        0x10D51,
        0x10D51,
        0x10D51,
        0x10D51,
        "\u{10d51}",
        "\u{10d51}",
        "\u{10d51}",
    ),
    (
        0x10D52,
        0x10D52,
        0x10D52,
        0x10D52,
        "\u{10d52}",
        "\u{10d52}",
        "\u{10d52}",
    ),
    (
        0x10D53,
        0x10D53,
        0x10D53,
        0x10D53,
        "\u{10d53}",
        "\u{10d53}",
        "\u{10d53}",
    ),
    (
        0x10D54,
        0x10D54,
        0x10D54,
        0x10D54,
        "\u{10d54}",
        "\u{10d54}",
        "\u{10d54}",
    ),
    (
        0x10D55,
        0x10D55,
        0x10D55,
        0x10D55,
        "\u{10d55}",
        "\u{10d55}",
        "\u{10d55}",
    ),
    (
        0x10D56,
        0x10D56,
        0x10D56,
        0x10D56,
        "\u{10d56}",
        "\u{10d56}",
        "\u{10d56}",
    ),
    (
        0x10D57,
        0x10D57,
        0x10D57,
        0x10D57,
        "\u{10d57}",
        "\u{10d57}",
        "\u{10d57}",
    ),
    (
        0x10D58,
        0x10D58,
        0x10D58,
        0x10D58,
        "\u{10d58}",
        "\u{10d58}",
        "\u{10d58}",
    ),
    (
        0x10D59,
        0x10D59,
        0x10D59,
        0x10D59,
        "\u{10d59}",
        "\u{10d59}",
        "\u{10d59}",
    ),
    (
        0x10D5A,
        0x10D5A,
        0x10D5A,
        0x10D5A,
        "\u{10d5a}",
        "\u{10d5a}",
        "\u{10d5a}",
    ),
    (
        0x10D5B,
        0x10D5B,
        0x10D5B,
        0x10D5B,
        "\u{10d5b}",
        "\u{10d5b}",
        "\u{10d5b}",
    ),
    (
        0x10D5C,
        0x10D5C,
        0x10D5C,
        0x10D5C,
        "\u{10d5c}",
        "\u{10d5c}",
        "\u{10d5c}",
    ),
    (
        0x10D5D,
        0x10D5D,
        0x10D5D,
        0x10D5D,
        "\u{10d5d}",
        "\u{10d5d}",
        "\u{10d5d}",
    ),
    (
        0x10D5E,
        0x10D5E,
        0x10D5E,
        0x10D5E,
        "\u{10d5e}",
        "\u{10d5e}",
        "\u{10d5e}",
    ),
    (
        0x10D5F,
        0x10D5F,
        0x10D5F,
        0x10D5F,
        "\u{10d5f}",
        "\u{10d5f}",
        "\u{10d5f}",
    ),
    (
        0x10D60,
        0x10D60,
        0x10D60,
        0x10D60,
        "\u{10d60}",
        "\u{10d60}",
        "\u{10d60}",
    ),
    (
        0x10D61,
        0x10D61,
        0x10D61,
        0x10D61,
        "\u{10d61}",
        "\u{10d61}",
        "\u{10d61}",
    ),
    (
        0x10D62,
        0x10D62,
        0x10D62,
        0x10D62,
        "\u{10d62}",
        "\u{10d62}",
        "\u{10d62}",
    ),
    (
        0x10D63,
        0x10D63,
        0x10D63,
        0x10D63,
        "\u{10d63}",
        "\u{10d63}",
        "\u{10d63}",
    ),
    (
        0x10D64,
        0x10D64,
        0x10D64,
        0x10D64,
        "\u{10d64}",
        "\u{10d64}",
        "\u{10d64}",
    ),
    (
        0x10D65,
        0x10D65,
        0x10D65,
        0x10D65,
        "\u{10d65}",
        "\u{10d65}",
        "\u{10d65}",
    ),
    (
        0x10D70,
        0x10D70,
        0x10D70,
        0x10D70,
        "\u{10d70}",
        "\u{10d70}",
        "\u{10d70}",
    ),
    (
        0x10D71,
        0x10D71,
        0x10D71,
        0x10D71,
        "\u{10d71}",
        "\u{10d71}",
        "\u{10d71}",
    ),
    (
        0x10D72,
        0x10D72,
        0x10D72,
        0x10D72,
        "\u{10d72}",
        "\u{10d72}",
        "\u{10d72}",
    ),
    (
        0x10D73,
        0x10D73,
        0x10D73,
        0x10D73,
        "\u{10d73}",
        "\u{10d73}",
        "\u{10d73}",
    ),
    (
        0x10D74,
        0x10D74,
        0x10D74,
        0x10D74,
        "\u{10d74}",
        "\u{10d74}",
        "\u{10d74}",
    ),
    (
        0x10D75,
        0x10D75,
        0x10D75,
        0x10D75,
        "\u{10d75}",
        "\u{10d75}",
        "\u{10d75}",
    ),
    (
        0x10D76,
        0x10D76,
        0x10D76,
        0x10D76,
        "\u{10d76}",
        "\u{10d76}",
        "\u{10d76}",
    ),
    (
        0x10D77,
        0x10D77,
        0x10D77,
        0x10D77,
        "\u{10d77}",
        "\u{10d77}",
        "\u{10d77}",
    ),
    (
        0x10D78,
        0x10D78,
        0x10D78,
        0x10D78,
        "\u{10d78}",
        "\u{10d78}",
        "\u{10d78}",
    ),
    (
        0x10D79,
        0x10D79,
        0x10D79,
        0x10D79,
        "\u{10d79}",
        "\u{10d79}",
        "\u{10d79}",
    ),
    (
        0x10D7A,
        0x10D7A,
        0x10D7A,
        0x10D7A,
        "\u{10d7a}",
        "\u{10d7a}",
        "\u{10d7a}",
    ),
    (
        0x10D7B,
        0x10D7B,
        0x10D7B,
        0x10D7B,
        "\u{10d7b}",
        "\u{10d7b}",
        "\u{10d7b}",
    ),
    (
        0x10D7C,
        0x10D7C,
        0x10D7C,
        0x10D7C,
        "\u{10d7c}",
        "\u{10d7c}",
        "\u{10d7c}",
    ),
    (
        0x10D7D,
        0x10D7D,
        0x10D7D,
        0x10D7D,
        "\u{10d7d}",
        "\u{10d7d}",
        "\u{10d7d}",
    ),
    (
        0x10D7E,
        0x10D7E,
        0x10D7E,
        0x10D7E,
        "\u{10d7e}",
        "\u{10d7e}",
        "\u{10d7e}",
    ),
    (
        0x10D7F,
        0x10D7F,
        0x10D7F,
        0x10D7F,
        "\u{10d7f}",
        "\u{10d7f}",
        "\u{10d7f}",
    ),
    (
        0x10D80,
        0x10D80,
        0x10D80,
        0x10D80,
        "\u{10d80}",
        "\u{10d80}",
        "\u{10d80}",
    ),
    (
        0x10D81,
        0x10D81,
        0x10D81,
        0x10D81,
        "\u{10d81}",
        "\u{10d81}",
        "\u{10d81}",
    ),
    (
        0x10D82,
        0x10D82,
        0x10D82,
        0x10D82,
        "\u{10d82}",
        "\u{10d82}",
        "\u{10d82}",
    ),
    (
        0x10D83,
        0x10D83,
        0x10D83,
        0x10D83,
        "\u{10d83}",
        "\u{10d83}",
        "\u{10d83}",
    ),
    (
        0x10D84,
        0x10D84,
        0x10D84,
        0x10D84,
        "\u{10d84}",
        "\u{10d84}",
        "\u{10d84}",
    ),
    (
        0x10D85,
        0x10D85,
        0x10D85,
        0x10D85,
        "\u{10d85}",
        "\u{10d85}",
        "\u{10d85}",
    ),
    (
        0x16EA0,
        0x16EA0,
        0x16EA0,
        0x16EA0,
        "\u{16ea0}",
        "\u{16ea0}",
        "\u{16ea0}",
    ),
    (
        0x16EA1,
        0x16EA1,
        0x16EA1,
        0x16EA1,
        "\u{16ea1}",
        "\u{16ea1}",
        "\u{16ea1}",
    ),
    (
        0x16EA2,
        0x16EA2,
        0x16EA2,
        0x16EA2,
        "\u{16ea2}",
        "\u{16ea2}",
        "\u{16ea2}",
    ),
    (
        0x16EA3,
        0x16EA3,
        0x16EA3,
        0x16EA3,
        "\u{16ea3}",
        "\u{16ea3}",
        "\u{16ea3}",
    ),
    (
        0x16EA4,
        0x16EA4,
        0x16EA4,
        0x16EA4,
        "\u{16ea4}",
        "\u{16ea4}",
        "\u{16ea4}",
    ),
    (
        0x16EA5,
        0x16EA5,
        0x16EA5,
        0x16EA5,
        "\u{16ea5}",
        "\u{16ea5}",
        "\u{16ea5}",
    ),
    (
        0x16EA6,
        0x16EA6,
        0x16EA6,
        0x16EA6,
        "\u{16ea6}",
        "\u{16ea6}",
        "\u{16ea6}",
    ),
    (
        0x16EA7,
        0x16EA7,
        0x16EA7,
        0x16EA7,
        "\u{16ea7}",
        "\u{16ea7}",
        "\u{16ea7}",
    ),
    (
        0x16EA8,
        0x16EA8,
        0x16EA8,
        0x16EA8,
        "\u{16ea8}",
        "\u{16ea8}",
        "\u{16ea8}",
    ),
    (
        0x16EA9,
        0x16EA9,
        0x16EA9,
        0x16EA9,
        "\u{16ea9}",
        "\u{16ea9}",
        "\u{16ea9}",
    ),
    (
        0x16EAA,
        0x16EAA,
        0x16EAA,
        0x16EAA,
        "\u{16eaa}",
        "\u{16eaa}",
        "\u{16eaa}",
    ),
    (
        0x16EAB,
        0x16EAB,
        0x16EAB,
        0x16EAB,
        "\u{16eab}",
        "\u{16eab}",
        "\u{16eab}",
    ),
    (
        0x16EAC,
        0x16EAC,
        0x16EAC,
        0x16EAC,
        "\u{16eac}",
        "\u{16eac}",
        "\u{16eac}",
    ),
    (
        0x16EAD,
        0x16EAD,
        0x16EAD,
        0x16EAD,
        "\u{16ead}",
        "\u{16ead}",
        "\u{16ead}",
    ),
    (
        0x16EAE,
        0x16EAE,
        0x16EAE,
        0x16EAE,
        "\u{16eae}",
        "\u{16eae}",
        "\u{16eae}",
    ),
    (
        0x16EAF,
        0x16EAF,
        0x16EAF,
        0x16EAF,
        "\u{16eaf}",
        "\u{16eaf}",
        "\u{16eaf}",
    ),
    (
        0x16EB0,
        0x16EB0,
        0x16EB0,
        0x16EB0,
        "\u{16eb0}",
        "\u{16eb0}",
        "\u{16eb0}",
    ),
    (
        0x16EB1,
        0x16EB1,
        0x16EB1,
        0x16EB1,
        "\u{16eb1}",
        "\u{16eb1}",
        "\u{16eb1}",
    ),
    (
        0x16EB2,
        0x16EB2,
        0x16EB2,
        0x16EB2,
        "\u{16eb2}",
        "\u{16eb2}",
        "\u{16eb2}",
    ),
    (
        0x16EB3,
        0x16EB3,
        0x16EB3,
        0x16EB3,
        "\u{16eb3}",
        "\u{16eb3}",
        "\u{16eb3}",
    ),
    (
        0x16EB4,
        0x16EB4,
        0x16EB4,
        0x16EB4,
        "\u{16eb4}",
        "\u{16eb4}",
        "\u{16eb4}",
    ),
    (
        0x16EB5,
        0x16EB5,
        0x16EB5,
        0x16EB5,
        "\u{16eb5}",
        "\u{16eb5}",
        "\u{16eb5}",
    ),
    (
        0x16EB6,
        0x16EB6,
        0x16EB6,
        0x16EB6,
        "\u{16eb6}",
        "\u{16eb6}",
        "\u{16eb6}",
    ),
    (
        0x16EB7,
        0x16EB7,
        0x16EB7,
        0x16EB7,
        "\u{16eb7}",
        "\u{16eb7}",
        "\u{16eb7}",
    ),
    (
        0x16EB8,
        0x16EB8,
        0x16EB8,
        0x16EB8,
        "\u{16eb8}",
        "\u{16eb8}",
        "\u{16eb8}",
    ),
    (
        0x16EBB,
        0x16EBB,
        0x16EBB,
        0x16EBB,
        "\u{16ebb}",
        "\u{16ebb}",
        "\u{16ebb}",
    ),
    (
        0x16EBC,
        0x16EBC,
        0x16EBC,
        0x16EBC,
        "\u{16ebc}",
        "\u{16ebc}",
        "\u{16ebc}",
    ),
    (
        0x16EBD,
        0x16EBD,
        0x16EBD,
        0x16EBD,
        "\u{16ebd}",
        "\u{16ebd}",
        "\u{16ebd}",
    ),
    (
        0x16EBE,
        0x16EBE,
        0x16EBE,
        0x16EBE,
        "\u{16ebe}",
        "\u{16ebe}",
        "\u{16ebe}",
    ),
    (
        0x16EBF,
        0x16EBF,
        0x16EBF,
        0x16EBF,
        "\u{16ebf}",
        "\u{16ebf}",
        "\u{16ebf}",
    ),
    (
        0x16EC0,
        0x16EC0,
        0x16EC0,
        0x16EC0,
        "\u{16ec0}",
        "\u{16ec0}",
        "\u{16ec0}",
    ),
    (
        0x16EC1,
        0x16EC1,
        0x16EC1,
        0x16EC1,
        "\u{16ec1}",
        "\u{16ec1}",
        "\u{16ec1}",
    ),
    (
        0x16EC2,
        0x16EC2,
        0x16EC2,
        0x16EC2,
        "\u{16ec2}",
        "\u{16ec2}",
        "\u{16ec2}",
    ),
    (
        0x16EC3,
        0x16EC3,
        0x16EC3,
        0x16EC3,
        "\u{16ec3}",
        "\u{16ec3}",
        "\u{16ec3}",
    ),
    (
        0x16EC4,
        0x16EC4,
        0x16EC4,
        0x16EC4,
        "\u{16ec4}",
        "\u{16ec4}",
        "\u{16ec4}",
    ),
    (
        0x16EC5,
        0x16EC5,
        0x16EC5,
        0x16EC5,
        "\u{16ec5}",
        "\u{16ec5}",
        "\u{16ec5}",
    ),
    (
        0x16EC6,
        0x16EC6,
        0x16EC6,
        0x16EC6,
        "\u{16ec6}",
        "\u{16ec6}",
        "\u{16ec6}",
    ),
    (
        0x16EC7,
        0x16EC7,
        0x16EC7,
        0x16EC7,
        "\u{16ec7}",
        "\u{16ec7}",
        "\u{16ec7}",
    ),
    (
        0x16EC8,
        0x16EC8,
        0x16EC8,
        0x16EC8,
        "\u{16ec8}",
        "\u{16ec8}",
        "\u{16ec8}",
    ),
    (
        0x16EC9,
        0x16EC9,
        0x16EC9,
        0x16EC9,
        "\u{16ec9}",
        "\u{16ec9}",
        "\u{16ec9}",
    ),
    (
        0x16ECA,
        0x16ECA,
        0x16ECA,
        0x16ECA,
        "\u{16eca}",
        "\u{16eca}",
        "\u{16eca}",
    ),
    (
        0x16ECB,
        0x16ECB,
        0x16ECB,
        0x16ECB,
        "\u{16ecb}",
        "\u{16ecb}",
        "\u{16ecb}",
    ),
    (
        0x16ECC,
        0x16ECC,
        0x16ECC,
        0x16ECC,
        "\u{16ecc}",
        "\u{16ecc}",
        "\u{16ecc}",
    ),
    (
        0x16ECD,
        0x16ECD,
        0x16ECD,
        0x16ECD,
        "\u{16ecd}",
        "\u{16ecd}",
        "\u{16ecd}",
    ),
    (
        0x16ECE,
        0x16ECE,
        0x16ECE,
        0x16ECE,
        "\u{16ece}",
        "\u{16ece}",
        "\u{16ece}",
    ),
    (
        0x16ECF,
        0x16ECF,
        0x16ECF,
        0x16ECF,
        "\u{16ecf}",
        "\u{16ecf}",
        "\u{16ecf}",
    ),
    (
        0x16ED0,
        0x16ED0,
        0x16ED0,
        0x16ED0,
        "\u{16ed0}",
        "\u{16ed0}",
        "\u{16ed0}",
    ),
    (
        0x16ED1,
        0x16ED1,
        0x16ED1,
        0x16ED1,
        "\u{16ed1}",
        "\u{16ed1}",
        "\u{16ed1}",
    ),
    (
        0x16ED2,
        0x16ED2,
        0x16ED2,
        0x16ED2,
        "\u{16ed2}",
        "\u{16ed2}",
        "\u{16ed2}",
    ),
    (
        0x16ED3,
        0x16ED3,
        0x16ED3,
        0x16ED3,
        "\u{16ed3}",
        "\u{16ed3}",
        "\u{16ed3}",
    ),
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
        Some(row) => out.push_str(row.4),
        None => out.extend(c.to_uppercase()),
    }
}

fn push_title(out: &mut CompactString, c: char) {
    match exception(c) {
        Some(row) => out.push_str(row.6),
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
        Some(row) => out.push_str(row.5),
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
