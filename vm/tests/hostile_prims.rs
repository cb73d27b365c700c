//! Hostile sweep (issue 11, item 1's class): every primitive of the closed table called
//! with edge arguments — integers at every boundary a std call cares about (widths,
//! precisions, counts, shifts, indices: 0, ±1, 65 535, 65 536, 2^31, 2^32, i64::MIN/MAX,
//! big integers), floats (NaN, ±inf, −0.0, subnormal, huge), strings with multibyte
//! characters, format directives and regexps, symbols, lists, dotted pairs, alists, plists
//! and vectors — under the default budgets and under wide ones (`number-bits` 2^64−1,
//! 16 MiB values). Every call must return a value or a typed error: no panic (a debug build
//! also panics on arithmetic overflow), and no call may take longer than two seconds.

use num_bigint::BigInt;
use ptc_vm::prims::{PRIMITIVES, PrimCtx};
use ptc_vm::{Interner, Limits, Symbols, Value};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn pool(symbols: &mut Symbols) -> Vec<(String, Value)> {
    let mut pool: Vec<(String, Value)> = Vec::new();
    for n in [
        i64::MIN,
        i64::MIN + 1,
        -65_537,
        -65_536,
        -2,
        -1,
        0,
        1,
        2,
        3,
        7,
        64,
        97,
        255,
        65_535,
        65_536,
        1 << 31,
        1 << 32,
        0x10_FFFF,
        0x11_0000,
        1 << 53,
        i64::MAX - 1,
        i64::MAX,
    ] {
        pool.push((n.to_string(), Value::Int(n)));
    }
    for text in [
        "18446744073709551616",
        "-18446744073709551616",
        "1606938044258990275541962092341162602522202993782792835301376",
    ] {
        let big: BigInt = text.parse().expect("big integer");
        pool.push((text.to_owned(), Value::integer(big)));
    }
    for f in [
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        -0.0,
        0.5,
        -2.5,
        1e300,
        5e-324,
        9.3e18,
        65_536.0,
    ] {
        pool.push((format!("{f:?}"), Value::Float(f)));
    }
    for text in [
        "",
        "a",
        "aé😀b\n c",
        "%s %d %.3f %-5x %c %% %5.2e %S",
        "%65536d",
        "%.65536f",
        "%3$s %1$d",
        "\\(a\\|b\\)*\\{2,3\\}[[:alpha:]]",
        "\\(",
        "[",
        "x\\{65535\\}",
        "/a/b/../c.txt",
        "{\"a\": [1, 2.5, null, true], \"b\": {\"c\": \"d\"}}",
        "\u{0130}\u{00DF}\u{FB03}",
    ] {
        pool.push((format!("{text:?}"), Value::string(text)));
    }
    let plain = Value::Sym(symbols.intern("foo"));
    let key = Value::Sym(symbols.intern(":a"));
    let key_b = Value::Sym(symbols.intern(":b"));
    let error = Value::Sym(symbols.intern("error"));
    pool.push(("nil".into(), Value::Nil));
    pool.push(("t".into(), Value::T));
    pool.push(("foo".into(), plain.clone()));
    pool.push((":a".into(), key.clone()));
    pool.push(("error".into(), error.clone()));
    pool.push((
        "(1 2 3)".into(),
        Value::list([Value::Int(1), Value::Int(2), Value::Int(3)]),
    ));
    pool.push((
        "(1 . 2)".into(),
        Value::list_with_tail([Value::Int(1)], Value::Int(2)),
    ));
    pool.push((
        "((foo . 1) (:a . \"x\"))".into(),
        Value::list([
            Value::cons(plain.clone(), Value::Int(1)),
            Value::cons(key.clone(), Value::string("x")),
        ]),
    ));
    pool.push((
        "(:a 1 :b (2))".into(),
        Value::list([key, Value::Int(1), key_b, Value::list([Value::Int(2)])]),
    ));
    pool.push((
        "[1 \"a\" 2.5 nil]".into(),
        Value::vector(vec![
            Value::Int(1),
            Value::string("a"),
            Value::Float(2.5),
            Value::Nil,
        ]),
    ));
    pool.push(("[]".into(), Value::vector(Vec::new())));
    pool.push((
        "(error \"boom\" 1)".into(),
        Value::list([error, Value::string("boom"), Value::Int(1)]),
    ));
    pool
}

/// A small deterministic generator (no dependency, same sequence every run).
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        usize::try_from(self.0 >> 33).unwrap_or(0) % n
    }
}

/// Calls every primitive with `per_arity` argument lists per arity (every single value for
/// arity 1), returning the panicking or slow calls.
fn sweep(limits: &Limits, per_arity: usize, seed: u64) -> (usize, Vec<String>) {
    let mut symbols = Symbols::new(Arc::new(Interner::new()));
    let pool = pool(&mut symbols);
    let mut rng = Lcg(seed);
    let mut failures = Vec::new();
    let mut calls = 0;
    for prim in &PRIMITIVES {
        let min = usize::from(prim.min_args);
        let max = prim
            .max_args
            .map_or(min + 3, usize::from)
            .min(min + 2)
            .min(4);
        for arity in min..=max {
            let lists: Vec<Vec<usize>> = match arity {
                0 => vec![Vec::new()],
                1 => (0..pool.len()).map(|i| vec![i]).collect(),
                _ => (0..per_arity)
                    .map(|_| (0..arity).map(|_| rng.below(pool.len())).collect())
                    .collect(),
            };
            for list in lists {
                let args: Vec<Value> = list.iter().map(|&i| pool[i].1.clone()).collect();
                let shown = || {
                    let names: Vec<&str> = list.iter().map(|&i| pool[i].0.as_str()).collect();
                    format!("({} {})", prim.name, names.join(" "))
                };
                calls += 1;
                let started = Instant::now();
                let result = catch_unwind(AssertUnwindSafe(|| {
                    let mut ctx = PrimCtx::new(limits, &mut symbols);
                    let _ = (prim.run)(&mut ctx, &args);
                }));
                let took = started.elapsed();
                if result.is_err() {
                    failures.push(format!("panicked: {}", shown()));
                } else if took > Duration::from_secs(2) {
                    failures.push(format!("took {took:?}: {}", shown()));
                }
            }
        }
    }
    (calls, failures)
}

/// `PTC_PRIM_SWEEP=N` runs N argument lists per arity instead of the default.
fn assert_clean(limits: &Limits, per_arity: usize, seed: u64) {
    let per_arity = std::env::var("PTC_PRIM_SWEEP")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(per_arity);
    // Panics are caught and listed; keep libtest's output readable.
    std::panic::set_hook(Box::new(|_| {}));
    let (calls, failures) = sweep(limits, per_arity, seed);
    let _ = std::panic::take_hook();
    assert!(calls > 10_000, "only {calls} calls");
    assert!(
        failures.is_empty(),
        "{} of {calls} calls failed:\n{}",
        failures.len(),
        failures
            .iter()
            .take(40)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn every_primitive_survives_edge_arguments_under_default_budgets() {
    assert_clean(&Limits::default(), 300, 1);
}

#[test]
fn every_primitive_survives_edge_arguments_under_wide_budgets() {
    let limits = Limits {
        number_bits: u64::MAX,
        value_bytes: 16 << 20,
        value_nodes: 1 << 20,
        ..Limits::default()
    };
    assert_clean(&limits, 300, 2);
}
