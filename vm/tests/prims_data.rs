//! Data primitives (lists, numbers, predicates, equality) called through the closed table,
//! plus `equal`/`value<` and the JSON mapping. Arguments are written as one list literal
//! read by a tiny test reader; results are compared as `prin1` text.

use num_bigint::BigInt;
use ptc_vm::error::ErrorKind;
use ptc_vm::heap::conses;
use ptc_vm::prims::{PRIMITIVES, PrimCtx, lookup};
use ptc_vm::print::{self, Style};
use ptc_vm::symbol::well_known;
use ptc_vm::{Interner, Limits, Symbols, Value, equal, json};
use serde_json::json;
use std::sync::Arc;

#[path = "prims_data/support.rs"]
mod support;
use support::*;

#[path = "prims_data/json.rs"]
mod json_mapping;

#[path = "prims_data/properties.rs"]
mod properties;

// ---------------------------------------------------------------------------------------
// Lists.

#[test]
fn car_cdr_and_compositions() {
    assert_eq!(ok("car", "((1 2))"), "1");
    assert_eq!(ok("car", "(nil)"), "nil");
    assert_eq!(ok("cdr", "((1 2))"), "(2)");
    assert_eq!(ok("cdr", "((1 . 2))"), "2");
    assert_eq!(ok("cdr", "(nil)"), "nil");
    assert_eq!(err("car", "(5)"), "Wrong type argument: listp, 5");
    assert_eq!(err("cdr", "(\"a\")"), "Wrong type argument: listp, \"a\"");
    assert_eq!(err("car", "([1])"), "Wrong type argument: listp, [1]");
    assert_eq!(ok("caar", "(((1 2) 3))"), "1");
    assert_eq!(ok("cadr", "((1 2 3))"), "2");
    assert_eq!(ok("cdar", "(((1 2) 3))"), "(2)");
    assert_eq!(ok("cddr", "((1 2 3))"), "(3)");
    assert_eq!(ok("cadr", "((1))"), "nil");
    assert_eq!(err("caar", "((1))"), "Wrong type argument: listp, 1");
    assert_eq!(err("cddr", "((1 . 2))"), "Wrong type argument: listp, 2");
}

#[test]
fn cons_list_append() {
    assert_eq!(ok("cons", "(1 (2))"), "(1 2)");
    assert_eq!(ok("cons", "(1 2)"), "(1 . 2)");
    assert_eq!(ok("list", "()"), "nil");
    assert_eq!(ok("list", "(1 \"a\" b)"), "(1 \"a\" b)");
    assert_eq!(ok("append", "()"), "nil");
    assert_eq!(ok("append", "((1 2) (3) nil (4))"), "(1 2 3 4)");
    assert_eq!(ok("append", "((1) 2)"), "(1 . 2)");
    assert_eq!(ok("append", "(5)"), "5");
    assert_eq!(ok("append", "([1 2] (3))"), "(1 2 3)");
    assert_eq!(ok("append", "(\"ab\" nil)"), "(97 98)");
    assert_eq!(
        err("append", "(1 (2))"),
        "Wrong type argument: sequencep, 1"
    );
    assert_eq!(
        err("append", "((1 . 2) nil)"),
        "Wrong type argument: listp, 2"
    );
    let out = call_with(&Limits::default(), "append", "((1 2) (3) (4))");
    assert_eq!(
        out.allocated,
        conses(3),
        "copies 3 conses, shares the last list"
    );
    assert!(out.work >= 3);
    assert_eq!(
        call_with(&Limits::default(), "list", "(1 2)").allocated,
        conses(2)
    );
    assert_eq!(
        call_with(&Limits::default(), "cons", "(1 2)").allocated,
        conses(1)
    );
}

#[test]
fn length_of_sequences() {
    assert_eq!(ok("length", "(nil)"), "0");
    assert_eq!(ok("length", "((1 2 3))"), "3");
    assert_eq!(ok("length", "(\"héllo\")"), "5");
    assert_eq!(ok("length", "([1 2])"), "2");
    assert_eq!(err("length", "(5)"), "Wrong type argument: sequencep, 5");
    assert_eq!(
        err("length", "(foo)"),
        "Wrong type argument: sequencep, foo"
    );
    assert_eq!(
        err("length", "((1 2 . 3))"),
        "Wrong type argument: listp, (1 2 . 3)"
    );
    assert_eq!(call_with(&Limits::default(), "length", "((1 2 3))").work, 3);
}

#[test]
fn nth_and_nthcdr() {
    assert_eq!(ok("nth", "(0 (a b c))"), "a");
    assert_eq!(ok("nth", "(2 (a b c))"), "c");
    assert_eq!(ok("nth", "(3 (a b c))"), "nil");
    assert_eq!(ok("nth", "(-1 (a b c))"), "a");
    assert_eq!(ok("nth", "(100000000000000000000000 (a b c))"), "nil");
    assert_eq!(ok("nth", "(-100000000000000000000000 (a b c))"), "a");
    assert_eq!(err("nth", "(a (1))"), "Wrong type argument: integerp, a");
    assert_eq!(
        err("nth", "(1.0 (1))"),
        "Wrong type argument: integerp, 1.0"
    );
    assert_eq!(err("nth", "(0 5)"), "Wrong type argument: listp, 5");
    assert_eq!(ok("nthcdr", "(1 (a b c))"), "(b c)");
    assert_eq!(ok("nthcdr", "(5 (a b c))"), "nil");
    assert_eq!(ok("nthcdr", "(-3 (a b))"), "(a b)");
    assert_eq!(ok("nthcdr", "(0 5)"), "5");
    assert_eq!(ok("nthcdr", "(1 (1 . 2))"), "2");
    assert_eq!(err("nthcdr", "(2 5)"), "Wrong type argument: listp, 5");
    assert_eq!(
        err("nthcdr", "(3 (1 . 2))"),
        "Wrong type argument: listp, (1 . 2)"
    );
}

#[test]
fn last_and_take() {
    assert_eq!(ok("last", "((1 2 3))"), "(3)");
    assert_eq!(ok("last", "(nil)"), "nil");
    assert_eq!(ok("last", "((1 2 3) 2)"), "(2 3)");
    assert_eq!(ok("last", "((1 2 3) 0)"), "nil");
    assert_eq!(ok("last", "((1 2 3) 9)"), "(1 2 3)");
    assert_eq!(ok("last", "((1 2 3) -1)"), "nil");
    assert_eq!(ok("last", "((1 2 . 3))"), "(2 . 3)");
    assert_eq!(ok("last", "(5)"), "5");
    assert_eq!(
        err("last", "((1 2) \"a\")"),
        "Wrong type argument: number-or-marker-p, \"a\""
    );
    assert_eq!(
        err("last", "((1 2 3) 1.5)"),
        "Wrong type argument: integerp, 1.5"
    );
    assert_eq!(ok("take", "(2 (a b c))"), "(a b)");
    assert_eq!(ok("take", "(5 (a b))"), "(a b)");
    assert_eq!(ok("take", "(0 (a b))"), "nil");
    assert_eq!(ok("take", "(-1 (a b))"), "nil");
    assert_eq!(ok("take", "(0 5)"), "nil");
    assert_eq!(ok("take", "(100000000000000000000 (a b))"), "(a b)");
    assert_eq!(err("take", "(1 5)"), "Wrong type argument: listp, 5");
    assert_eq!(err("take", "(5 (1 . 2))"), "Wrong type argument: listp, 2");
    assert_eq!(err("take", "(x (1))"), "Wrong type argument: integerp, x");
    assert_eq!(ok("take", "(1 (1 . 2))"), "(1)");
}

#[test]
fn reverse_sequences() {
    assert_eq!(ok("reverse", "((1 2 3))"), "(3 2 1)");
    assert_eq!(ok("reverse", "(nil)"), "nil");
    assert_eq!(ok("reverse", "([1 2 3])"), "[3 2 1]");
    assert_eq!(ok("reverse", "(\"abé\")"), "\"éba\"");
    assert_eq!(err("reverse", "(5)"), "Wrong type argument: sequencep, 5");
    assert_eq!(
        err("reverse", "((1 2 . 3))"),
        "Wrong type argument: listp, 3"
    );
}

#[test]
fn sort_is_a_stable_copy_by_value_less() {
    assert_eq!(ok("sort", "((3 1 2))"), "(1 2 3)");
    assert_eq!(ok("sort", "(nil)"), "nil");
    assert_eq!(ok("sort", "((2.5 1 3 -1.0e+INF))"), "(-1.0e+INF 1 2.5 3)");
    assert_eq!(
        ok("sort", "((100000000000000000000 -100000000000000000000 0))"),
        "(-100000000000000000000 0 100000000000000000000)"
    );
    assert_eq!(ok("sort", "((\"b\" \"a\" \"B\"))"), "(\"B\" \"a\" \"b\")");
    assert_eq!(ok("sort", "((b a nil t))"), "(a b nil t)");
    assert_eq!(
        ok("sort", "(((1 2) (1) nil (0 5)))"),
        "(nil (0 5) (1) (1 2))"
    );
    assert_eq!(ok("sort", "(([1 2] [1] [0 9]))"), "([0 9] [1] [1 2])");
    // Stability: equal keys keep their order (1 and 1.0 compare equal).
    assert_eq!(ok("sort", "((1.0 0 1 1.0))"), "(0 1.0 1 1.0)");
    assert_eq!(err("sort", "((1 \"a\"))"), "Types do not match: \"a\", 1");
    assert_eq!(
        err("sort", "(((1) (\"a\")))"),
        "Types do not match: \"a\", 1"
    );
    assert_eq!(err("sort", "(5)"), "'sort': expects a list");
    assert_eq!(err("sort", "([2 1])"), "'sort': expects a list");
    assert_eq!(err("sort", "((2 1 . 0))"), "Wrong type argument: listp, 0");
    assert_eq!(
        call_with(&Limits::default(), "sort", "((3 1 2))").allocated,
        conses(3)
    );
}

#[test]
fn member_memq_assoc_assq() {
    assert_eq!(ok("member", "((1 2) (0 (1 2) 3))"), "((1 2) 3)");
    assert_eq!(ok("member", "(\"b\" (\"a\" \"b\"))"), "(\"b\")");
    assert_eq!(ok("member", "(1.0 (1 1.0))"), "(1.0)");
    assert_eq!(ok("member", "(9 (1 2))"), "nil");
    assert_eq!(
        err("member", "(9 (1 . 2))"),
        "Wrong type argument: listp, (1 . 2)"
    );
    assert_eq!(err("member", "(9 5)"), "Wrong type argument: listp, 5");
    assert_eq!(ok("member", "(1 (1 . 2))"), "(1 . 2)");
    assert_eq!(ok("memq", "(b (a b c))"), "(b c)");
    assert_eq!(ok("memq", "(\"b\" (\"a\" \"b\"))"), "nil");
    assert_eq!(ok("memq", "(2 (1 2))"), "(2)");
    assert_eq!(err("memq", "(x 5)"), "Wrong type argument: listp, 5");
    assert_eq!(
        ok("assoc", "(\"b\" ((\"a\" . 1) 7 (\"b\" . 2)))"),
        "(\"b\" . 2)"
    );
    assert_eq!(ok("assoc", "((1) (((1) . x)))"), "((1) . x)");
    assert_eq!(ok("assoc", "(z ((a . 1)))"), "nil");
    assert_eq!(ok("assoc", "(z ((a . 1)) nil)"), "nil");
    // TESTFN names an equality primitive (deviation 47).
    assert_eq!(
        ok("assoc", "(\"B\" ((\"a\" . 1) (\"B\" . 2)) string=)"),
        "(\"B\" . 2)"
    );
    assert_eq!(ok("assoc", "(1.0 ((1 . a) (1.0 . b)) eql)"), "(1.0 . b)");
    assert_eq!(
        err("assoc", "(a ((a . 1)) my-test)"),
        "'assoc': TESTFN must be one of eq, eql, equal, string=, not my-test; a guest function cannot be called from a primitive"
    );
    assert_eq!(
        err("assoc", "(z ((a . 1) . 5))"),
        "Wrong type argument: listp, ((a . 1) . 5)"
    );
    assert_eq!(ok("assq", "(b ((a . 1) (b . 2)))"), "(b . 2)");
    assert_eq!(ok("assq", "(\"b\" ((\"b\" . 2)))"), "nil");
    assert_eq!(err("assq", "(b 5)"), "Wrong type argument: listp, 5");
}

#[test]
fn plist_get_and_member() {
    assert_eq!(ok("plist-get", "((:a 1 :b 2) :b)"), "2");
    assert_eq!(ok("plist-get", "((:a 1 :b 2) :c)"), "nil");
    assert_eq!(ok("plist-get", "((:a 1 :b) :b)"), "nil");
    assert_eq!(ok("plist-get", "(5 :b)"), "nil");
    assert_eq!(ok("plist-get", "((:a 1 . 2) :a)"), "1");
    assert_eq!(ok("plist-get", "((\"a\" 1) \"a\")"), "nil");
    assert_eq!(ok("plist-get", "((1 x 2 y) 2)"), "y");
    assert_eq!(
        err("plist-get", "((:a 1) :a equal)"),
        "'plist-get': the PREDICATE argument must be nil; a guest function cannot be called from a primitive"
    );
    assert_eq!(ok("plist-member", "((:a nil :b 2) :a)"), "(:a nil :b 2)");
    assert_eq!(ok("plist-member", "((:a 1 :b 2) :b)"), "(:b 2)");
    assert_eq!(ok("plist-member", "((:a 1 :b 2) :c)"), "nil");
    assert_eq!(ok("plist-member", "((:a) :c)"), "nil");
    assert_eq!(ok("plist-member", "(nil :c)"), "nil");
    assert_eq!(
        err("plist-member", "(5 :c)"),
        "Wrong type argument: plistp, 5"
    );
    assert_eq!(
        err("plist-member", "((:a 1 . 2) :c)"),
        "Wrong type argument: plistp, (:a 1 . 2)"
    );
    assert_eq!(
        err("plist-member", "((:a 1) :a identity)"),
        "'plist-member': the PREDICATE argument must be nil; a guest function cannot be called from a primitive"
    );
}

#[test]
fn long_lists_are_walked_without_recursion_and_charged() {
    let long: Value = Value::list((0..100_000).map(Value::Int));
    let limits = Limits {
        value_nodes: u64::MAX,
        value_bytes: u64::MAX,
        ..Limits::default()
    };
    let mut symbols = new_symbols();
    let mut ctx = PrimCtx::new(&limits, &mut symbols);
    let length = &PRIMITIVES[lookup("length").unwrap()];
    let result = (length.run)(&mut ctx, std::slice::from_ref(&long)).unwrap();
    assert!(matches!(result, Value::Int(100_000)));
    assert_eq!(ctx.work(), 100_000);
    let reverse = &PRIMITIVES[lookup("reverse").unwrap()];
    let reversed = (reverse.run)(&mut ctx, std::slice::from_ref(&long)).unwrap();
    assert!(matches!(
        reversed.as_cons().map(|c| c.car()),
        Some(Value::Int(99_999))
    ));
    assert_eq!(ctx.allocated(), conses(100_000));
}

// ---------------------------------------------------------------------------------------
// Arithmetic.

const BIG: &str = "9223372036854775808"; // 2^63

#[test]
fn addition_subtraction_multiplication() {
    assert_eq!(ok("+", "()"), "0");
    assert_eq!(ok("+", "(1 2 3)"), "6");
    assert_eq!(ok("+", "(1 2.5)"), "3.5");
    assert_eq!(ok("+", "(9223372036854775807 1)"), BIG);
    assert_eq!(ok("+", &format!("({BIG} -1)")), "9223372036854775807");
    assert_eq!(
        err("+", "(1 \"a\")"),
        "Wrong type argument: number-or-marker-p, \"a\""
    );
    assert_eq!(
        err("+", "(nil)"),
        "Wrong type argument: number-or-marker-p, nil"
    );
    assert_eq!(ok("-", "()"), "0");
    assert_eq!(ok("-", "(5)"), "-5");
    assert_eq!(ok("-", "(5.0)"), "-5.0");
    assert_eq!(ok("-", "(-9223372036854775808)"), BIG);
    assert_eq!(ok("-", "(10 1 2)"), "7");
    assert_eq!(ok("-", "(10 0.5)"), "9.5");
    assert_eq!(
        err("-", "(a)"),
        "Wrong type argument: number-or-marker-p, a"
    );
    assert_eq!(ok("*", "()"), "1");
    assert_eq!(ok("*", "(2 3 4)"), "24");
    assert_eq!(ok("*", "(4294967296 4294967296)"), "18446744073709551616");
    assert_eq!(ok("*", "(2 1.5)"), "3.0");
    assert_eq!(ok("*", "(0 1.5)"), "0.0");
}

#[test]
fn division_and_remainders() {
    assert_eq!(ok("/", "(7 2)"), "3");
    assert_eq!(ok("/", "(-7 2)"), "-3");
    assert_eq!(ok("/", "(7 2.0)"), "3.5");
    assert_eq!(ok("/", "(7 2 2.0)"), "1.75");
    assert_eq!(ok("/", "(100 2 5)"), "10");
    assert_eq!(ok("/", "(2)"), "0");
    assert_eq!(ok("/", "(2.0)"), "0.5");
    assert_eq!(ok("/", "(-9223372036854775808 -1)"), BIG);
    assert_eq!(ok("/", "(1.0 0)"), "1.0e+INF");
    assert_eq!(ok("/", "(-1 0.0)"), "-1.0e+INF");
    assert_eq!(err("/", "(1 0)"), "Arithmetic error");
    assert_eq!(err("/", "(0)"), "Arithmetic error");
    assert_eq!(
        err("/", "(1 \"x\" 2.0)"),
        "Wrong type argument: number-or-marker-p, \"x\""
    );
    assert_eq!(ok("%", "(7 3)"), "1");
    assert_eq!(ok("%", "(-7 3)"), "-1");
    assert_eq!(ok("%", "(7 -3)"), "1");
    assert_eq!(ok("%", "(-9223372036854775808 -1)"), "0");
    assert_eq!(ok("%", &format!("({BIG} 10)")), "8");
    assert_eq!(err("%", "(7 0)"), "Arithmetic error");
    assert_eq!(
        err("%", "(7.0 2)"),
        "Wrong type argument: integer-or-marker-p, 7.0"
    );
    assert_eq!(
        err("%", "(7 x)"),
        "Wrong type argument: integer-or-marker-p, x"
    );
    assert_eq!(ok("mod", "(7 3)"), "1");
    assert_eq!(ok("mod", "(-7 3)"), "2");
    assert_eq!(ok("mod", "(7 -3)"), "-2");
    assert_eq!(ok("mod", "(-7 -3)"), "-1");
    assert_eq!(ok("mod", "(-7.5 2)"), "0.5");
    assert_eq!(ok("mod", "(7.5 -2)"), "-0.5");
    assert_eq!(ok("mod", &format!("(-{BIG} 10)")), "2");
    assert_eq!(err("mod", "(7 0)"), "Arithmetic error");
    assert!(ok("mod", "(7.0 0)").ends_with("0.0e+NaN"));
    assert_eq!(
        err("mod", "(\"7\" 2)"),
        "Wrong type argument: number-or-marker-p, \"7\""
    );
}

#[test]
fn abs_max_min_float() {
    assert_eq!(ok("abs", "(-5)"), "5");
    assert_eq!(ok("abs", "(-2.5)"), "2.5");
    assert_eq!(ok("abs", "(-9223372036854775808)"), BIG);
    assert_eq!(ok("abs", &format!("(-{BIG})")), BIG);
    assert_eq!(err("abs", "(\"a\")"), "Wrong type argument: numberp, \"a\"");
    assert_eq!(ok("max", "(1 3 2)"), "3");
    assert_eq!(ok("max", "(1 2.0)"), "2.0");
    assert_eq!(ok("max", "(3 2.0)"), "3");
    assert_eq!(ok("max", "(1 0.0e+NaN 5)"), "0.0e+NaN");
    assert_eq!(ok("min", "(4 -1 2)"), "-1");
    assert_eq!(ok("min", &format!("(0 -{BIG})")), format!("-{BIG}"));
    assert_eq!(ok("min", "(7)"), "7");
    assert_eq!(
        err("max", "(1 a)"),
        "Wrong type argument: number-or-marker-p, a"
    );
    assert_eq!(
        err("min", "(a)"),
        "Wrong type argument: number-or-marker-p, a"
    );
    assert_eq!(ok("float", "(3)"), "3.0");
    assert_eq!(ok("float", "(2.5)"), "2.5");
    assert_eq!(ok("float", &format!("({BIG})")), "9.223372036854776e+18");
    assert_eq!(err("float", "(nil)"), "Wrong type argument: numberp, nil");
}

#[test]
fn rounding_family() {
    assert_eq!(ok("truncate", "(2.7)"), "2");
    assert_eq!(ok("truncate", "(-2.7)"), "-2");
    assert_eq!(ok("floor", "(-2.5)"), "-3");
    assert_eq!(ok("ceiling", "(2.1)"), "3");
    assert_eq!(ok("round", "(2.5)"), "2");
    assert_eq!(ok("round", "(3.5)"), "4");
    assert_eq!(ok("round", "(-2.5)"), "-2");
    assert_eq!(ok("round", "(7)"), "7");
    assert_eq!(ok("truncate", "(1.0e+20)"), "100000000000000000000");
    assert_eq!(ok("truncate", "(7 2)"), "3");
    assert_eq!(ok("floor", "(-7 2)"), "-4");
    assert_eq!(ok("ceiling", "(7 2)"), "4");
    assert_eq!(ok("round", "(5 2)"), "2");
    assert_eq!(ok("round", "(7 2)"), "4");
    assert_eq!(ok("round", "(-5 2)"), "-2");
    assert_eq!(ok("round", "(5.0 2)"), "2");
    assert_eq!(ok("floor", "(7.5 2.5)"), "3");
    assert_eq!(
        ok("floor", "(0.3 0.1)"),
        "2",
        "exact division of the binary floats"
    );
    assert_eq!(ok("truncate", "(5 1.0e+INF)"), "0");
    assert_eq!(ok("floor", "(7 nil)"), "7");
    assert_eq!(ok("floor", &format!("({BIG} 2)")), "4611686018427387904");
    assert_eq!(ok("floor", "(-9223372036854775808 -1)"), BIG);
    assert_eq!(err("truncate", "(1.0e+INF)"), "Arithmetic overflow error");
    assert_eq!(err("round", "(0.0e+NaN)"), "Arithmetic overflow error");
    assert_eq!(err("floor", "(1.0e+INF 2)"), "Arithmetic overflow error");
    assert_eq!(err("floor", "(5 0)"), "Arithmetic error");
    assert_eq!(err("floor", "(5.0 0.0)"), "Arithmetic error");
    assert_eq!(
        err("floor", "(\"5\")"),
        "Wrong type argument: numberp, \"5\""
    );
    assert_eq!(
        err("floor", "(5 \"2\")"),
        "Wrong type argument: numberp, \"2\""
    );
}

#[test]
fn integer_bit_budget() {
    let limits = Limits {
        number_bits: 64,
        ..Limits::default()
    };
    let (kind, message) = err_with(&limits, "*", "(18446744073709551615 2)");
    assert_eq!(kind, ErrorKind::Value);
    assert_eq!(message, "Guest integer exceeds its 64 bit budget");
    assert!(
        call_with(&limits, "+", "(18446744073709551614 1)")
            .result
            .is_ok()
    );
    assert_eq!(
        err_with(&limits, "+", "(18446744073709551615 1)").0,
        ErrorKind::Value
    );
    assert_eq!(
        err_with(&limits, "truncate", "(1.0e+30)").0,
        ErrorKind::Value
    );
    let small = Limits {
        number_bits: 8,
        ..Limits::default()
    };
    assert_eq!(
        err_with(&small, "+", "(255 1)"),
        (
            ErrorKind::Value,
            "Guest integer exceeds its 8 bit budget".to_owned()
        )
    );
    assert_eq!(
        call_with(&small, "+", "(254 1)").result,
        Ok("255".to_owned())
    );
    assert_eq!(
        call_with(&small, "-", "(-255)").result,
        Ok("255".to_owned())
    );
    // Default budget: 2^4095 is allowed, 2^4096 is not.
    let mut power = BigInt::from(1u8);
    power <<= 4095;
    let text = format!("({power} {power})");
    assert_eq!(err_with(&Limits::default(), "+", &text).0, ErrorKind::Value);
    assert!(call_with(&Limits::default(), "-", &text).result.is_ok());
    // Only the final result meets the budget; intermediates meet Emacs's integer-width.
    assert_eq!(ok("*", &format!("({power} {power} 0)")), "0");
    let sixteen = vec![power.to_string(); 16].join(" ");
    assert_eq!(
        err_with(&Limits::default(), "*", &format!("({sixteen})")).0,
        ErrorKind::Value
    );
    let seventeen = vec![power.to_string(); 17].join(" ");
    assert_eq!(
        err_with(&Limits::default(), "*", &format!("({seventeen} 0)")),
        (ErrorKind::Script, "Arithmetic overflow error".to_owned())
    );
    // Big results are charged as allocations and as work.
    let out = call_with(&Limits::default(), "*", &format!("({power} 1)"));
    assert!(out.allocated > 1000, "{}", out.allocated);
    assert!(out.work >= 64, "{}", out.work);
}

#[test]
fn comparisons() {
    assert_eq!(ok("=", "(1 1 1)"), "t");
    assert_eq!(ok("=", "(1 1.0)"), "t");
    assert_eq!(ok("=", "(1 2)"), "nil");
    assert_eq!(ok("=", "(0.0e+NaN 0.0e+NaN)"), "nil");
    assert_eq!(ok("=", "(1.5)"), "t");
    assert_eq!(
        err("<", "(\"a\")"),
        "Wrong type argument: number-or-marker-p, \"a\""
    );
    assert_eq!(ok("/=", "(1 2)"), "t");
    assert_eq!(ok("/=", "(1 1.0)"), "nil");
    assert_eq!(ok("/=", "(0.0e+NaN 1)"), "t");
    assert_eq!(ok("<", "(1 2 3)"), "t");
    assert_eq!(ok("<", "(1 3 2)"), "nil");
    assert_eq!(
        ok("<", "(2 1 \"a\")"),
        "nil",
        "stops before checking later arguments"
    );
    assert_eq!(ok(">", "(3 2.5 2)"), "t");
    assert_eq!(ok("<=", "(1 1 2)"), "t");
    assert_eq!(ok(">=", "(2 2 3)"), "nil");
    assert_eq!(ok("<", &format!("(9223372036854775807 {BIG})")), "t");
    assert_eq!(ok("<", &format!("(-{BIG} -9223372036854775807)")), "t");
    // Exact integer/float comparison: 2^53 + 1 is not equal to the float 2^53.
    assert_eq!(ok("=", "(9007199254740993 9007199254740992.0)"), "nil");
    assert_eq!(ok(">", "(9007199254740993 9007199254740992.0)"), "t");
    assert_eq!(
        ok("=", "(9223372036854775807 9.223372036854775807e18)"),
        "nil"
    );
    assert_eq!(ok("<", &format!("({BIG} 1.0e+INF)")), "t");
    assert_eq!(ok("=", &format!("({BIG} 9.223372036854775808e18)")), "t");
    assert_eq!(
        err("<", "(1 \"a\")"),
        "Wrong type argument: number-or-marker-p, \"a\""
    );
    assert_eq!(
        err("=", "(x y)"),
        "Wrong type argument: number-or-marker-p, x"
    );
}

// ---------------------------------------------------------------------------------------
// Predicates and equality.

#[test]
fn type_predicates() {
    let cases: &[(&str, &str, &str)] = &[
        ("null", "(nil)", "t"),
        ("null", "(0)", "nil"),
        ("not", "(nil)", "t"),
        ("not", "(t)", "nil"),
        ("atom", "(5)", "t"),
        ("atom", "(nil)", "t"),
        ("atom", "([1])", "t"),
        ("atom", "((1))", "nil"),
        ("consp", "((1))", "t"),
        ("consp", "(nil)", "nil"),
        ("listp", "(nil)", "t"),
        ("listp", "((1 . 2))", "t"),
        ("listp", "([1])", "nil"),
        ("stringp", "(\"a\")", "t"),
        ("stringp", "(a)", "nil"),
        ("numberp", "(1.5)", "t"),
        ("numberp", "(9223372036854775808)", "t"),
        ("numberp", "(\"1\")", "nil"),
        ("integerp", "(1)", "t"),
        ("integerp", "(9223372036854775808)", "t"),
        ("integerp", "(1.0)", "nil"),
        ("floatp", "(1.0)", "t"),
        ("floatp", "(1)", "nil"),
        ("symbolp", "(nil)", "t"),
        ("symbolp", "(t)", "t"),
        ("symbolp", "(:key)", "t"),
        ("symbolp", "(foo)", "t"),
        ("symbolp", "(\"foo\")", "nil"),
        ("sequencep", "(nil)", "t"),
        ("sequencep", "((1))", "t"),
        ("sequencep", "(\"\")", "t"),
        ("sequencep", "([])", "t"),
        ("sequencep", "(1)", "nil"),
        ("sequencep", "(foo)", "nil"),
        ("identity", "((1 2))", "(1 2)"),
    ];
    for (name, args, expected) in cases {
        assert_eq!(ok(name, args), *expected, "({name} {args})");
    }
}

#[test]
fn eq_eql_equal() {
    assert_eq!(ok("eq", "(a a)"), "t");
    assert_eq!(ok("eq", "(:k :k)"), "t");
    assert_eq!(ok("eq", "(1 1)"), "t");
    assert_eq!(ok("eq", "(nil nil)"), "t");
    assert_eq!(ok("eq", "(\"a\" \"a\")"), "nil");
    assert_eq!(ok("eq", "((1) (1))"), "nil");
    assert_eq!(ok("eq", "(1 1.0)"), "nil");
    assert_eq!(
        ok("eq", "(1.0 1.0)"),
        "t",
        "documented: floats are eq when eql"
    );
    assert_eq!(ok("eql", "(1.0 1.0)"), "t");
    assert_eq!(ok("eql", "(0.0 -0.0)"), "nil");
    assert_eq!(ok("eql", "(0.0e+NaN 0.0e+NaN)"), "t");
    assert_eq!(ok("eql", &format!("({BIG} {BIG})")), "t");
    assert_eq!(ok("eql", "(1 1.0)"), "nil");
    assert_eq!(ok("eql", "(\"a\" \"a\")"), "nil");
    assert_eq!(ok("equal", "(\"a\" \"a\")"), "t");
    assert_eq!(ok("equal", "((1 (2 [3 \"x\"])) (1 (2 [3 \"x\"])))"), "t");
    assert_eq!(ok("equal", "((1 (2 [3 \"x\"])) (1 (2 [3 \"y\"])))"), "nil");
    assert_eq!(ok("equal", "([1 2] [1 2 3])"), "nil");
    assert_eq!(ok("equal", "((1 . 2) (1 . 2))"), "t");
    assert_eq!(ok("equal", "((1 2) (1 . 2))"), "nil");
    assert_eq!(ok("equal", "(1 1.0)"), "nil");
    assert_eq!(ok("equal", "(0.0 -0.0)"), "nil");
    assert_eq!(ok("equal", "(nil nil)"), "t");
    let shared = Value::list([Value::string("s")]);
    assert!(equal::eq(&shared, &shared.clone()));
}

#[test]
fn deep_values_compare_and_convert_on_a_small_stack() {
    std::thread::Builder::new()
        .stack_size(128 * 1024)
        .spawn(|| {
            let build = || {
                let mut v = Value::Nil;
                for i in 0..50_000 {
                    v = Value::list([Value::Int(i), v]);
                }
                v
            };
            let (a, b) = (build(), build());
            assert!(equal::equal(&a, &b));
            let symbols = new_symbols();
            assert!(!equal::value_less(&a, &b, &symbols).unwrap());
            let limits = Limits {
                value_nodes: u64::MAX,
                value_bytes: u64::MAX,
                ..Limits::default()
            };
            let error = json::to_json(&a, &symbols, &limits).unwrap_err();
            assert_eq!(error.kind(), ErrorKind::Value);
            assert_eq!(
                error.message(),
                "Guest value nests deeper than the 128 levels JSON allows"
            );
        })
        .unwrap()
        .join()
        .unwrap();
}

#[test]
fn value_less_orders_like_emacs() {
    let mut symbols = new_symbols();
    let mut less = |a: &str, b: &str| {
        let a = read(a, &mut symbols);
        let b = read(b, &mut symbols);
        equal::value_less(&a, &b, &symbols).map_err(|e| e.message().to_owned())
    };
    assert_eq!(less("1", "2"), Ok(true));
    assert_eq!(less("2", "1.5"), Ok(false));
    assert_eq!(less("0.0e+NaN", "1"), Ok(false));
    assert_eq!(less("\"a\"", "\"b\""), Ok(true));
    assert_eq!(less("abc", "abd"), Ok(true));
    assert_eq!(less("nil", "(1)"), Ok(true));
    assert_eq!(less("(1)", "nil"), Ok(false));
    assert_eq!(less("(1 2)", "(1 3)"), Ok(true));
    assert_eq!(less("(1 . 2)", "(1 . 3)"), Ok(true));
    assert_eq!(less("[1 2]", "[1 2 0]"), Ok(true));
    assert_eq!(less("nil", "foo"), Ok(false));
    assert_eq!(less("foo", "nil"), Ok(true));
    assert_eq!(less("1", "a"), Err("Types do not match: 1, a".to_owned()));
    assert_eq!(
        less("(1)", "[1]"),
        Err("Types do not match: (1), [1]".to_owned())
    );
}
