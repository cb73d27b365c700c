//! Hostile inputs, round two (issue 11, items 4, 5, 11, 13): work the static pipeline does
//! before anything runs, and what regexps cost.
//!
//! - item 4: regexp compilation is cheap for every 2 KiB pattern (case folding no longer
//!   walks every code point of a class), is charged fuel by its compiled size, and the whole
//!   static pipeline (reading, preflight, macro expansion, lowering) runs under `seconds`
//!   (E0031, kind `time`);
//! - item 5: unknown-function suggestions are bounded in work and in message size;
//! - item 11: the per-run regexp cache is bounded by memory (unit-tested in
//!   `vm/src/regexp.rs`; here, a run that cycles many large patterns stays correct);
//! - item 13: a macro call left in a `parallel` entry gets the `parallel` diagnostic.

mod hostile_support;

use hostile_support::{hostile, hostile_with, limits, ok_host, roster};
use ptc_compiler::{Compiled, Diagnostic, check, compile_with_clock};
use ptc_vm::{Clock, Limits};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Compiles under the `seconds` budget by a clock started now (the test is the host).
fn compile(source: &str, limits: &Limits) -> Result<Compiled, Vec<Diagnostic>> {
    let started = Instant::now();
    let clock: Arc<dyn Clock> = Arc::new(move || started.elapsed());
    compile_with_clock(source, &roster(), limits, &[], Some(clock))
}

/// Patterns of 2 KiB made of the classes that were slowest to compile (case folding of a
/// class walked every code point of its ranges: 25 ms per `[[:nonascii:]]` in release).
fn slow_patterns() -> Vec<String> {
    vec![
        "[[:nonascii:]]".repeat(2048 / 14),
        "[\u{80}-\u{10FFFF}]".repeat(2048 / 9),
        "[^[:lower:]]".repeat(2048 / 12),
        ".".repeat(2048),
        "\\W".repeat(1024),
        "[[:alpha:]a]".repeat(2048 / 12),
    ]
}

#[test]
fn item4_every_slow_pattern_compiles_or_fails_quickly() {
    let limits = Limits::default();
    for pattern in slow_patterns() {
        let started = Instant::now();
        let _ = ptc_vm::regexp::check_subset(&pattern, &limits);
        let elapsed = started.elapsed();
        // Was 4.0 s for the first one in a debug build; now tens of milliseconds.
        assert!(
            elapsed < Duration::from_millis(1500),
            "{elapsed:?} for {}...",
            pattern.get(..20).unwrap_or_default()
        );
    }
}

#[test]
fn item4_twenty_macro_made_patterns_stop_at_the_seconds_budget() {
    // A macro makes 20 distinct 2 KiB literal patterns; preflight of the expanded program
    // compiles each. Under seconds=1 compilation must end promptly either way.
    let pattern = "[[:nonascii:]]".repeat(140);
    let calls: String = (0..20)
        .map(|i| format!("(string-match-p \"{pattern}{i}\" \"x\")"))
        .collect();
    let source = format!("(defmacro m () '(list {calls})) (m)");
    let limits = Limits {
        input_bytes: 100_000,
        seconds: Some(1.0),
        ..Limits::default()
    };
    let started = Instant::now();
    let diagnostics = compile(&source, &limits).err().unwrap_or_default();
    let elapsed = started.elapsed();
    assert!(elapsed < Duration::from_secs(4), "took {elapsed:?}");
    for d in &diagnostics {
        assert!(
            d.code == "E0031" || d.code == "E0305",
            "unexpected {}: {}",
            d.code,
            d.message
        );
    }
}

#[test]
fn item4_macro_runs_share_the_compilation_clock() {
    // Each macro run loops long; the whole compilation is bounded by seconds, not each run.
    let source = "(defmacro slow () (let ((i 0)) (while (< i 100000000) (setq i (+ i 1))) 1)) \
                  (list (slow) (slow) (slow) (slow) (slow) (slow))";
    let limits = Limits {
        steps: u64::MAX / 4,
        seconds: Some(0.3),
        ..Limits::default()
    };
    let started = Instant::now();
    let diagnostics = compile(source, &limits).expect_err("out of time");
    let elapsed = started.elapsed();
    assert!(elapsed < Duration::from_secs(3), "took {elapsed:?}");
    let first = diagnostics.first().expect("a diagnostic");
    assert_eq!(first.code, "E0031");
    assert_eq!(first.kind.as_str(), "time");
    assert_eq!(
        first.message,
        "Script exceeded its time budget of 0.3 seconds while compiling"
    );
}

#[test]
fn item4_regexp_compilation_is_charged_by_its_size() {
    let cheap = hostile("(string-match-p \"a\" \"xa\")");
    let costly = hostile(&format!(
        "(string-match-p \"{}\" \"xa\")",
        "[[:alpha:]]".repeat(40)
    ));
    assert_eq!(cheap.outcome.kind(), "ok");
    assert_eq!(costly.outcome.kind(), "ok");
    // 40 alphabetic classes compile to hundreds of KiB: thousands of fuel units.
    assert!(
        costly.stats.fuel_used > cheap.stats.fuel_used + 1000,
        "{} vs {}",
        costly.stats.fuel_used,
        cheap.stats.fuel_used
    );
    // Under a small step budget the compilation alone exhausts it.
    let small = Limits {
        steps: 500,
        ..limits()
    };
    let report = hostile_with(
        &format!(
            "(string-match-p (concat \"{}\" \"\") \"xa\")",
            "[[:alpha:]]".repeat(40)
        ),
        small,
        ok_host,
    );
    assert_eq!(report.outcome.kind(), "step");
}

#[test]
fn item11_cycling_many_large_patterns_stays_correct() {
    // More distinct large patterns than the cache holds by memory: evictions must not
    // change answers.
    let source = format!(
        "(let ((hits 0)) (dotimes (i 30) (when (string-match-p (concat \"{}\" (number-to-string (% i 5))) \"ab3\") (setq hits (+ hits 1)))) hits)",
        "[[:alpha:]]".repeat(20)
    );
    let report = hostile(&source);
    assert_eq!(report.outcome.kind(), "ok", "{:?}", report.outcome);
}

#[test]
fn item5_suggestions_are_bounded_in_work_and_size() {
    // 1 000 unknown operators with 256-character names against 60 same-length defuns.
    let mut source = String::new();
    for i in 0..60 {
        source.push_str(&format!("(defun f{i:0>255} () {i})\n"));
    }
    source.push_str("(list");
    for i in 0..1000 {
        source.push_str(&format!(" (g{i:0>255})"));
    }
    source.push(')');
    let limits = Limits {
        input_bytes: 1_000_000,
        nodes: 100_000,
        seconds: Some(1.0),
        ..Limits::default()
    };
    let started = Instant::now();
    let diagnostics = check(&source, &roster(), &limits);
    let elapsed = started.elapsed();
    assert!(elapsed < Duration::from_secs(2), "took {elapsed:?}");
    let first = diagnostics.first().expect("unknown functions");
    assert_eq!(first.code, "E0301");
    assert!(first.message.len() < 4096, "{} bytes", first.message.len());
    assert!(first.message.contains("and 980 more"));
    assert!(first.labels.len() <= 20);
}

#[test]
fn item5_suggestions_help_or_stay_silent() {
    let diagnostics = check(
        "(list (qqzzq v 0) (loop x) (cl-defstruct k h) (lenght x) (macrolet x))",
        &roster(),
        &Limits::default(),
    );
    let message = &diagnostics.first().expect("unknown functions").message;
    assert!(
        message.starts_with(
            "Unknown functions: qqzzq, loop (not in this dialect: use cl-loop), cl-defstruct \
             (not in this dialect: use a plist such as (list :name n :size s)), lenght (try: \
             length), macrolet (not in this dialect: use a top-level defmacro)."
        ),
        "{message}"
    );
}

/// `parallel` entries are expanded like any form (deviation 130): a macro there becomes its
/// expansion, a tool call or an unknown function.
#[test]
fn item13_a_macro_in_a_parallel_entry_is_expanded() {
    let report = hostile("(defmacro m () '(Read :file_path \"a\")) (parallel (m))");
    assert_eq!(report.outcome.kind(), "ok", "{}", report.outcome.text());
    let report = hostile("(defmacro m () '(E)) (parallel (m))");
    assert_eq!(
        report.outcome.kind(),
        "preflight",
        "{}",
        report.outcome.text()
    );
    assert!(
        report.outcome.text().starts_with("Unknown functions: E"),
        "{}",
        report.outcome.text()
    );
}

/// Past the expanded-depth budget every evaluated element is refused, atoms included: an
/// argument atom one level deeper than the budget is the E0236 error's span; at the budget
/// it is accepted.
#[test]
fn expanded_nesting_past_the_budget_is_refused_at_its_first_element() {
    use ptc_compiler::internals::ast::{Sexp, SexpKind};
    use ptc_compiler::internals::expand::{Expansion, NoMacros};
    use ptc_vm::{Interner, Span};

    let limits = Limits {
        depth: 2,
        ..Limits::default()
    };
    let budget = ptc_compiler::internals::expand::expanded_depth_limit(&limits);
    let mut interner = Interner::new();
    let f = interner.intern("f");
    let at = |n: u32| Span::new(n, n + 1);
    let sym = |n: u32| Sexp::new(SexpKind::Sym(f), at(n));
    // `(f (f ... (f x)))`: the innermost list holds an atom at depth `levels + 1`.
    let nest = |levels: u64, leaf: Sexp| {
        let mut form = leaf;
        for level in (1..=levels).rev() {
            let level = u32::try_from(level).expect("small");
            form = Sexp::new(SexpKind::List(vec![sym(level), form]), at(100 + level));
        }
        form
    };
    for levels in [budget, budget - 1] {
        let form = nest(levels, Sexp::new(SexpKind::Int(1), at(7)));
        let result = Expansion::new(&limits, &mut interner).expand_forms(
            vec![form],
            &mut NoMacros,
            &mut interner,
        );
        if levels == budget {
            let error = result.expect_err("past the budget");
            assert_eq!((error.code, error.span), ("E0236", at(7)));
        } else {
            assert!(result.is_ok(), "{result:?}");
        }
    }
}
