//! Durable-run journals from outside (issue 41): a corrupted, truncated or foreign journal
//! gives a typed outcome, never a panic, a hang or a wrong resume.
//!
//! Each input picks one of a few recorded journals (straight, paused on one call, paused
//! inside a `parallel` batch, failed calls, a denial), damages it — JSON edits at any path
//! with values drawn from the input, truncation or byte flips of its text — and, when the
//! result still parses, resumes it offline (`Envelope::replay`) and live
//! (`Envelope::resume` with decisions drawn from the input). The oracles:
//! - every envelope settles within a bounded number of polls;
//! - an offline replay never dispatches a call (what the journal does not answer diverges
//!   or pauses again; nothing runs live);
//! - a live resume never dispatches a call whose ordinal the journal answers (a journaled
//!   call is never run twice), and only a resume of a journal that the input left intact
//!   may be compared with the uninterrupted run: it must settle to the same text.

#![no_main]

use libfuzzer_sys::fuzz_target;
use ptc_fuzz::journal::{Case, base_journals, run_case};

fuzz_target!(|data: &[u8]| {
    let bases = base_journals();
    if let Some(case) = Case::from_bytes(data, bases.len()) {
        run_case(&bases[case.base], &case);
    }
});
