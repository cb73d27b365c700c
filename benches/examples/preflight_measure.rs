//! The added cost of argument preflight (issue 15), in a load-independent way: the
//! benchmark's 10-line script with 12 tool calls against its 50-tool roster, preflight
//! alone, with the contracts and with names only.
//!
//! `preflight_measure MODE [ROUNDS [BATCH]]` (MODE `contracts` or `names-only`, or
//! `compile-contracts` / `compile-names-only` for the whole static pipeline) runs one
//! untimed warm-up batch, then ROUNDS timed batches of BATCH calls (default 200 × 1,000).
//!
//! - Instruction counts: under `valgrind --tool=callgrind
//!   --toggle-collect='*::preflight_args_measure'` only the measured calls count; the difference
//!   of two runs with different ROUNDS, divided by the extra calls, is the warm per-call
//!   count (cold first-call effects cancel). `benches/preflight_callgrind.sh` does this for
//!   both modes and prints the difference.
//! - Wall time: the minimum per-call time over the batches (robust to load: other
//!   processes only ever add time), next to the median.
//!
//! Setup that is not preflight (reading, definitions, the interner copy preflight may
//! extend) happens outside the measured function.

#[path = "../benches/preflight_args/setup.rs"]
mod setup;

use ptc_compiler::Roster;
use ptc_compiler::internals::{definitions, direct, preflight, reader};
use ptc_vm::{Interner, Limits};
use std::hint::black_box;
use std::time::Instant;

/// Everything preflight takes, read and collected once.
struct Prepared {
    interner: Interner,
    collected: definitions::Definitions,
    direct: Option<direct::DirectCall>,
}

fn prepare(roster: &Roster, limits: &Limits) -> Prepared {
    let mut interner = Interner::new();
    let forms = reader::read(setup::SCRIPT, limits, &mut interner).expect("reads");
    let direct = direct::classify(&forms, roster, &interner);
    let effective = direct::effective_roster(roster, direct.as_ref());
    let collected = definitions::collect(forms, &effective, &interner).expect("collects");
    Prepared {
        interner,
        collected,
        direct,
    }
}

/// The measured calls: preflight of the prepared script once per interner copy.
#[inline(never)]
fn preflight_args_measure(
    prepared: &Prepared,
    roster: &Roster,
    limits: &Limits,
    interners: &mut [Interner],
    whole: bool,
) -> usize {
    let mut accepted = 0;
    for interner in interners {
        if whole {
            let ok = ptc_compiler::compile(setup::SCRIPT, roster, limits).is_ok();
            accepted += usize::from(black_box(ok));
            continue;
        }
        let ok = preflight::preflight(
            &prepared.collected,
            roster,
            prepared.direct.as_ref(),
            limits,
            interner,
            None,
            preflight::Keep::Nothing,
        )
        .is_ok();
        accepted += usize::from(black_box(ok));
    }
    accepted
}

fn main() {
    let mut arguments = std::env::args().skip(1);
    let mode = arguments.next().unwrap_or_else(|| "contracts".to_owned());
    let rounds: usize = arguments.next().and_then(|r| r.parse().ok()).unwrap_or(200);
    let calls: usize = arguments
        .next()
        .and_then(|r| r.parse().ok())
        .unwrap_or(1_000);
    let limits = Limits::default();
    let (contracts, names_only) = setup::rosters();
    let whole = mode.starts_with("compile-");
    let roster = match mode.trim_start_matches("compile-") {
        "contracts" => &contracts,
        "names-only" => &names_only,
        other => {
            eprintln!(
                "usage: preflight_measure [compile-]contracts|[compile-]names-only [ROUNDS [BATCH]] \
                 (not {other})"
            );
            std::process::exit(2);
        }
    };
    let prepared = prepare(roster, &limits);
    // A wrong call is caught with the contracts, so they are really in use.
    let wrong = ptc_compiler::check("(Tool7 :query 1)", &contracts, &limits);
    assert!(!wrong.is_empty());
    // Warm up: one untimed batch (allocator, caches).
    let mut copies = vec![prepared.interner.clone(); calls];
    assert_eq!(
        preflight_args_measure(&prepared, roster, &limits, &mut copies, whole),
        calls
    );
    let mut per_call = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        let mut copies = vec![prepared.interner.clone(); calls];
        let started = Instant::now();
        let accepted = preflight_args_measure(&prepared, roster, &limits, &mut copies, whole);
        let elapsed = started.elapsed();
        assert_eq!(accepted, calls);
        per_call.push(elapsed.as_secs_f64() * 1e6 / calls as f64);
    }
    per_call.sort_by(f64::total_cmp);
    let min = per_call.first().copied().unwrap_or(0.0);
    let median = per_call.get(per_call.len() / 2).copied().unwrap_or(0.0);
    println!(
        "{mode}: {rounds} batches of {calls} preflight calls: min {min:.3} us/call, median {median:.3} us/call"
    );
}
