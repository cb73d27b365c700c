//! Differential: script text through the register VM and the test-only tree-walking
//! reference evaluator (`compiler/tests/reference_eval`, included by path). Oracle: the same
//! printed value, or errors of the same kind. Skipped: scripts the compiler rejects (the
//! reference has no preflight), scripts outside the reference's subset, and budget kinds
//! (`step`, `stack`, `value`, `retained-value`, `atomic-work`), which the two count
//! differently.
#![no_main]

#[allow(dead_code, clippy::all)]
#[path = "../../compiler/tests/reference_eval/mod.rs"]
mod reference_eval;

use libfuzzer_sys::fuzz_target;
use reference_eval::{RefOutcome, eval_script};

fn is_budget(kind: &str) -> bool {
    matches!(
        kind,
        "step" | "stack" | "value" | "retained-value" | "atomic-work" | "time" | "tool-call"
    )
}

fuzz_target!(|data: &[u8]| {
    ptc_fuzz::set_input(data);
    let source = String::from_utf8_lossy(data);
    let limits = ptc_fuzz::small_limits();
    let Ok(compiled) = ptc_compiler::compile(&source, &ptc_compiler::Roster::new(), &limits) else {
        return;
    };
    let vm = ptc_fuzz::run(&compiled.program, limits, &[]);
    let reference = eval_script(&source, &limits);
    match (&vm.outcome, &reference) {
        (_, RefOutcome::Unsupported(_)) => {}
        (ptc_fuzz::Outcome::Error(kind, _), _) if is_budget(kind.as_str()) => {}
        (_, RefOutcome::Error(kind, _)) if is_budget(kind) => {}
        (ptc_fuzz::Outcome::Value(got), RefOutcome::Value(want)) => {
            assert_eq!(got, want, "values differ for {source:?}");
        }
        (ptc_fuzz::Outcome::Error(got, vm_message), RefOutcome::Error(want, ref_message)) => {
            assert_eq!(
                got.as_str(),
                want.as_str(),
                "kinds differ for {source:?}: {vm_message:?} vs {ref_message:?}"
            );
        }
        (vm_outcome, reference) => {
            panic!("outcomes differ for {source:?}: vm {vm_outcome:?}, reference {reference:?}")
        }
    }
});
