//! Numeric primitives over edge values (i64::MIN, -1, 0, NaN, ±inf, -0.0, big integers).
//! Oracles: no panic; typed errors; integer `+ - *` results equal a num-bigint reference
//! whenever the primitive succeeds with an integer.
#![no_main]

use libfuzzer_sys::fuzz_target;
use num_bigint::BigInt;
use ptc_vm::{Interner, Symbols, Value};
use std::sync::Arc;

const OPS: [&str; 22] = [
    "+",
    "-",
    "*",
    "/",
    "%",
    "mod",
    "abs",
    "max",
    "min",
    "float",
    "truncate",
    "round",
    "floor",
    "ceiling",
    "=",
    "/=",
    "<",
    ">",
    "<=",
    ">=",
    "number-to-string",
    "eql",
];

fn as_big(value: &Value) -> Option<BigInt> {
    match value {
        Value::Int(n) => Some(BigInt::from(*n)),
        Value::Big(b) => Some((**b).clone()),
        _ => None,
    }
}

fuzz_target!(|data: &[u8]| {
    ptc_fuzz::set_input(data);
    let limits = ptc_fuzz::small_limits();
    let mut symbols = Symbols::new(Arc::new(Interner::new()));
    let mut source = ptc_fuzz::ValueSource::new(data);
    let op = OPS[usize::from(source.byte()) % OPS.len()];
    let count = usize::from(source.byte() % 4);
    let args: Vec<Value> = (0..count).map(|_| source.number()).collect();
    let result = ptc_fuzz::call_primitive(op, &args, &limits, &mut symbols);
    if let (Ok(result), true) = (&result, matches!(op, "+" | "-" | "*")) {
        if let (Some(got), Some(inputs)) = (
            as_big(result),
            args.iter().map(as_big).collect::<Option<Vec<_>>>(),
        ) {
            let expected = match (op, inputs.split_first()) {
                ("+", _) => inputs.iter().sum::<BigInt>(),
                ("*", _) => inputs.iter().product::<BigInt>(),
                ("-", Some((first, []))) => -first.clone(),
                ("-", Some((first, rest))) => rest.iter().fold(first.clone(), |a, b| a - b),
                _ => BigInt::from(0),
            };
            assert_eq!(got, expected, "{op} {args:?}");
        }
    }
});
