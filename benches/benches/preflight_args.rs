//! The cost of judging tool arguments in preflight (issue 15): a 10-line script with 12
//! tool calls against a 50-tool roster whose contracts the runtime summarised from real
//! JSON Schemas, with and without those contracts. The added check time is the difference
//! of the `contracts` and `names-only` rows, for preflight alone and for the whole static
//! pipeline. Target: at most 5 µs added.

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use ptc_compiler::compile;
use ptc_compiler::internals::{definitions, direct, preflight, reader};
use ptc_vm::Limits;
use std::hint::black_box;

#[path = "preflight_args/setup.rs"]
mod setup;
use setup::{SCRIPT, rosters};

fn preflight_args(c: &mut Criterion) {
    let limits = Limits::default();
    let (contracts, names_only) = rosters();
    assert_eq!(SCRIPT.lines().count(), 10);
    for roster in [&contracts, &names_only] {
        compile(SCRIPT, roster, &limits).expect("the benchmark script compiles");
    }
    // A wrong call is caught, so the contracts are really in use.
    assert!(compile("(Tool7 :query 1)", &contracts, &limits).is_err());

    let mut group = c.benchmark_group("preflight_args");
    for (label, roster) in [("contracts", &contracts), ("names-only", &names_only)] {
        // Preflight alone, on the read and collected script.
        let mut interner = ptc_vm::Interner::new();
        let forms = reader::read(SCRIPT, &limits, &mut interner).expect("reads");
        let direct = direct::classify(&forms, roster, &interner);
        let effective = direct::effective_roster(roster, direct.as_ref());
        let collected = definitions::collect(forms, &effective, &interner).expect("collects");
        group.bench_function(format!("preflight/{label}"), |b| {
            b.iter_batched_ref(
                || interner.clone(),
                |interner| {
                    black_box(
                        preflight::preflight(
                            &collected,
                            roster,
                            direct.as_ref(),
                            &limits,
                            interner,
                            None,
                            preflight::Keep::Nothing,
                        )
                        .is_ok(),
                    )
                },
                BatchSize::SmallInput,
            );
        });
        group.bench_function(format!("compile/{label}"), |b| {
            b.iter(|| black_box(compile(SCRIPT, roster, &limits).is_ok()));
        });
    }
    group.finish();
}

criterion_group!(benches, preflight_args);
criterion_main!(benches);
