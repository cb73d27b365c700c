//! Script text, then `0xff`, then bytes that script the tool host (strings, `(:error "x")`,
//! JSON through `from_json`, deep and wide lists). The first byte picks a budget variant.
//! Oracles: a typed outcome; fuel, tool-call and retained budgets hard; a re-run is
//! identical (outcome, stats, calls).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    ptc_fuzz::set_input(data);
    let Some((variant, rest)) = data.split_first() else {
        return;
    };
    let (source, host) = ptc_fuzz::split_script(rest);
    let mut limits = ptc_fuzz::small_limits();
    match variant % 4 {
        0 => {}
        1 => limits.steps = 300,
        2 => {
            limits.value_bytes = 512;
            limits.value_nodes = 64;
            limits.retained_bytes = 4_096;
        }
        _ => {
            limits.tool_calls = 2;
            limits.stack_depth = 8;
            limits.number_bits = 64;
        }
    }
    if let Ok(compiled) = ptc_compiler::compile(&source, &ptc_fuzz::roster(), &limits) {
        let _ = ptc_fuzz::run_twice(&compiled.program, limits, host);
    }
});
