//! Tool-result conversion: arbitrary bytes as JSON → `from_json` → `to_json` → `from_json`
//! → `to_json` (after one trip the mapping is a fixpoint: `{}`/`[]` → nil → `null` is the
//! documented lossy step), and the converted value (or
//! the raw text) handed to a running script via `resume_tool`, where the script prints,
//! compares and re-sends it. Oracles: no panic; typed errors; round-trip stability.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ptc_vm::json::{from_json, to_json};
use ptc_vm::print::{self, Style};
use ptc_vm::{Machine, Step, Value};
use std::sync::{Arc, OnceLock};

fn program() -> &'static Arc<ptc_vm::Program> {
    static PROGRAM: OnceLock<Arc<ptc_vm::Program>> = OnceLock::new();
    PROGRAM.get_or_init(|| {
        let source = "(let ((r (Read))) (list (length (format \"%S\" r)) (equal r r) (Grep :x r)))";
        match ptc_compiler::compile(source, &ptc_fuzz::roster(), &ptc_fuzz::small_limits()) {
            Ok(compiled) => compiled.program,
            Err(d) => panic!("harness script does not compile: {d:?}"),
        }
    })
}

fuzz_target!(|data: &[u8]| {
    ptc_fuzz::set_input(data);
    let limits = ptc_fuzz::small_limits();
    let mut machine = Machine::new(Arc::clone(program()), limits);
    let value = match serde_json::from_slice::<serde_json::Value>(data) {
        Ok(json) => match from_json(&json, machine.symbols_mut(), &limits) {
            Ok(value) => {
                // `{}` and `[]` become nil, which goes back out as `null` (documented in
                // vm/src/json.rs), so the mapping is checked for a fixpoint after one trip:
                // JSON → guest → JSON → guest → JSON gives the same JSON twice.
                if let Ok(once) = to_json(&value, machine.symbols(), &limits) {
                    let again = from_json(&once, machine.symbols_mut(), &limits)
                        .unwrap_or_else(|e| panic!("to_json output does not convert back: {e:?}"));
                    let twice = to_json(&again, machine.symbols(), &limits)
                        .unwrap_or_else(|e| panic!("converted JSON does not convert out: {e:?}"));
                    assert_eq!(once, twice, "JSON round trip is not stable");
                    let first = print::to_string(&again, Style::Prin1, machine.symbols());
                    let third = from_json(&twice, machine.symbols_mut(), &limits)
                        .unwrap_or_else(|e| panic!("stable JSON does not convert back: {e:?}"));
                    let second = print::to_string(&third, Style::Prin1, machine.symbols());
                    assert_eq!(first, second, "guest value round trip is not stable");
                }
                value
            }
            Err(error) => {
                ptc_fuzz::check_message(error.message());
                machine.error_value(error.message())
            }
        },
        Err(_) => Value::string(String::from_utf8_lossy(data).into_owned()),
    };
    let mut step = machine.step();
    let mut fed = false;
    for _ in 0..1_000 {
        step = match step {
            Step::Pause => machine.step(),
            Step::Tool(_) if !fed => {
                fed = true;
                machine.resume_tool(value.clone())
            }
            Step::Tool(request) => {
                let _ = to_json(&request.args, machine.symbols(), &limits);
                machine.resume_tool(Value::Nil)
            }
            Step::Batch(requests) => machine.resume_batch(vec![Value::Nil; requests.len()]),
            Step::Done(_) => return,
            Step::Error(error) => {
                ptc_fuzz::check_message(error.message());
                return;
            }
        };
    }
    panic!("tool_results harness did not finish");
});
