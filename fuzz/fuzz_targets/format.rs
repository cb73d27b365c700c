//! `format` with a fuzz-chosen control string and arguments (numbers at the edges, big
//! integers, strings, symbols, nested lists and vectors), plus `concat`, `number-to-string`
//! and `string-to-number`. Oracles: no panic; typed errors; output no longer than the
//! value budget allows.
//!
//! The control string is either raw text (a length byte below 0x80, then the text) or,
//! when the first byte is 0x80 or more, built from structured directives: each picks flags, a width and a precision from edge values
//! (std's formatter limit 65535 and its neighbours, the value budget and its neighbours,
//! small and arbitrary numbers) and a conversion. Raw text alone never reached a precision
//! above 65535 (`%.65536f` panicked std's float formatting, issue 11.1): mutation rarely
//! grows a digit run to six digits with the right value.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ptc_vm::{Interner, Symbols, Value};
use std::sync::Arc;

/// One number for a width or precision: edges first, then arbitrary.
fn field_size(source: &mut ptc_fuzz::ValueSource<'_>, budget: u64) -> u64 {
    match source.byte() % 12 {
        0 => 0,
        1 => 1,
        2 => 6,
        3 => 17,
        4 => 65_535,
        5 => 65_536,
        6 => 65_537,
        7 => budget.saturating_sub(1),
        8 => budget,
        9 => budget.saturating_add(1),
        10 => u64::from(source.byte()),
        _ => u64::from(u16::from_le_bytes([source.byte(), source.byte()])),
    }
}

/// A control string of up to eight structured directives with literal text between.
fn structured_control(source: &mut ptc_fuzz::ValueSource<'_>, budget: u64) -> String {
    let mut control = String::new();
    for _ in 0..(source.byte() % 8) {
        if source.byte() % 3 == 0 {
            control.push_str(["x", "\u{4e2d}", "e\u{301}", " "][usize::from(source.byte() % 4)]);
        }
        control.push('%');
        if source.byte() % 5 == 0 {
            control.push_str(&format!("{}$", source.byte() % 9));
        }
        let flags = source.byte();
        for (bit, flag) in ['-', '+', ' ', '#', '0'].iter().enumerate() {
            if flags & (1 << bit) != 0 {
                control.push(*flag);
            }
        }
        if source.byte() % 2 == 0 {
            control.push_str(&field_size(source, budget).to_string());
        }
        if source.byte() % 2 == 0 {
            control.push('.');
            control.push_str(&field_size(source, budget).to_string());
        }
        let conversions = ['s', 'S', 'd', 'o', 'x', 'X', 'c', 'f', 'e', 'g', '%'];
        control.push(conversions[usize::from(source.byte()) % conversions.len()]);
    }
    control
}

fuzz_target!(|data: &[u8]| {
    ptc_fuzz::set_input(data);
    let limits = ptc_fuzz::small_limits();
    let mut symbols = Symbols::new(Arc::new(Interner::new()));
    let structured = data.first().is_some_and(|&b| b >= 0x80);
    let mut source = ptc_fuzz::ValueSource::new(if structured {
        data.get(1..).unwrap_or_default()
    } else {
        data
    });
    let control = if structured {
        structured_control(&mut source, limits.value_bytes)
    } else {
        source.text()
    };
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
