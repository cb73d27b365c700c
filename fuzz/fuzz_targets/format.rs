//! `format` with a fuzz-chosen control string and arguments (numbers at the edges, big
//! integers, strings, symbols, nested lists and vectors), plus `concat`, `number-to-string`
//! and `string-to-number`. Oracles: no panic; typed errors; output no longer than the
//! value budget allows.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ptc_vm::{Interner, Symbols, Value};
use std::sync::Arc;

fuzz_target!(|data: &[u8]| {
    ptc_fuzz::set_input(data);
    let limits = ptc_fuzz::small_limits();
    let mut symbols = Symbols::new(Arc::new(Interner::new()));
    let mut source = ptc_fuzz::ValueSource::new(data);
    let control = source.text();
    let mut args = vec![Value::string(control)];
    while !source.is_empty() && args.len() < 8 {
        args.push(source.value(&mut symbols, 0));
    }
    if let Ok(Value::Str(text)) = ptc_fuzz::call_primitive("format", &args, &limits, &mut symbols) {
        assert!(
            text.as_str().len() as u64 <= limits.value_bytes.saturating_mul(4),
            "format produced {} bytes",
            text.as_str().len()
        );
    }
    if let Some(first) = args.get(1) {
        let _ = ptc_fuzz::call_primitive(
            "number-to-string",
            std::slice::from_ref(first),
            &limits,
            &mut symbols,
        );
        let _ = ptc_fuzz::call_primitive("string-to-number", &args[..1], &limits, &mut symbols);
    }
    let _ = ptc_fuzz::call_primitive("concat", &args, &limits, &mut symbols);
});
