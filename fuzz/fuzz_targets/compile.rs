//! Script text through the whole static pipeline (read, definitions, preflight, expansion
//! with compile-time macros, lowering) with a small roster. Oracles: no panic; `check` and
//! `compile` agree on acceptance; spans in bounds; a direct call names a roster tool.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    ptc_fuzz::set_input(data);
    let source = String::from_utf8_lossy(data);
    let limits = ptc_fuzz::small_limits();
    let roster = ptc_fuzz::roster();
    let checked = ptc_compiler::check(&source, &roster, &limits);
    match ptc_compiler::compile(&source, &roster, &limits) {
        Ok(compiled) => {
            assert!(
                checked.is_empty(),
                "compile accepted what check rejected: {checked:?}"
            );
            if let Some(tool) = &compiled.direct {
                assert!(
                    roster.get(tool).is_some(),
                    "direct call to a non-roster tool {tool}"
                );
            }
        }
        Err(diagnostics) => {
            assert!(!diagnostics.is_empty());
            for diagnostic in &diagnostics {
                assert!(diagnostic.span.start <= diagnostic.span.end);
                assert!(
                    diagnostic.span.end as usize <= source.len(),
                    "span beyond source"
                );
                ptc_fuzz::check_message(&diagnostic.message);
            }
            let _ = ptc_compiler::render::render(&source, "fuzz", &diagnostics);
        }
    }
});
