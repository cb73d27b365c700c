//! Arithmetic and numeric comparison over integers (64-bit fast path, exact big integers
//! bounded by the number-bit budget) and floats, with Emacs's contagion and error texts.
//!
//! The numeric core lives in [`crate::number`]; this module checks argument types in the
//! order Emacs does and charges the work: one unit per argument, plus the 64-bit words of
//! every big-integer operand (products of words for multiplication and division). Big
//! integer results are reported as fresh allocations.

use super::PrimCtx;
use crate::error::Result;
use crate::heap;
use crate::number::{self, Number, Op, Rounding, wrong_type};
use crate::value::Value;
use std::cmp::Ordering;

/// The number `value` holds, or the `wrong-type-argument` error naming `predicate`.
fn number_arg(ctx: &PrimCtx<'_>, value: &Value, predicate: &str) -> Result<Number> {
    Number::of(value).ok_or_else(|| wrong_type(predicate, value, &*ctx.symbols))
}

fn number_or_marker(ctx: &PrimCtx<'_>, value: &Value) -> Result<Number> {
    number_arg(ctx, value, "number-or-marker-p")
}

/// Charges an operation on `a` and `b` and returns its result.
fn charge_op(ctx: &mut PrimCtx<'_>, op: Op, a: &Number, b: &Number) {
    let words = match op {
        Op::Add | Op::Sub => a.words().saturating_add(b.words()),
        Op::Mul | Op::Div => a.words().saturating_mul(b.words()),
    };
    ctx.charge(words);
}

/// Converts the final result and reports a big integer as allocated.
fn finish(ctx: &mut PrimCtx<'_>, result: Number) -> Result<Value> {
    let value = result.into_value(ctx.limits)?;
    if let Value::Big(n) = &value {
        ctx.alloc(heap::big(n));
    }
    Ok(value)
}

/// Folds `rest` into `first` with `op`, left to right, as Emacs's `arith_driver`. The
/// caller checks the final result against the number-bit budget ([`finish`]).
fn fold(ctx: &mut PrimCtx<'_>, op: Op, first: Number, rest: &[Value]) -> Result<Number> {
    let mut accumulator = first;
    for value in rest {
        let operand = number_or_marker(ctx, value)?;
        charge_op(ctx, op, &accumulator, &operand);
        accumulator = number::binary_unbudgeted(op, &accumulator, &operand)?;
    }
    Ok(accumulator)
}

/// `(+ &rest NUMBERS)`
pub(super) fn add(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    // Folded from the first argument, not from 0: `(+ -0.0 -0.0)` is -0.0 in IEEE and in
    // Emacs, while 0 + -0.0 would be 0.0.
    let Some((first, rest)) = args.split_first() else {
        return Ok(Value::Int(0));
    };
    let first = number_or_marker(ctx, first)?;
    ctx.charge(first.words());
    let sum = fold(ctx, Op::Add, first, rest)?;
    finish(ctx, sum)
}

/// `(- &optional NUMBER &rest NUMBERS)`: no argument gives 0, one its negation.
pub(super) fn sub(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let Some((first, rest)) = args.split_first() else {
        return Ok(Value::Int(0));
    };
    let first = number_or_marker(ctx, first)?;
    ctx.charge(first.words());
    let result = if rest.is_empty() {
        number::negate(&first, ctx.limits)?
    } else {
        fold(ctx, Op::Sub, first, rest)?
    };
    finish(ctx, result)
}

/// `(* &rest NUMBERS)`
pub(super) fn mul(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let product = fold(ctx, Op::Mul, Number::Int(1), args)?;
    finish(ctx, product)
}

/// `(/ NUMBER &rest DIVISORS)`: integer division truncates toward zero unless any argument
/// is a float, in which case the whole computation is in floats; `(/ X)` is `(/ 1 X)`.
pub(super) fn div(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let Some((first, rest)) = args.split_first() else {
        return Ok(Value::Int(0));
    };
    let first = number_or_marker(ctx, first)?;
    if rest.is_empty() {
        let one = if first.is_float() {
            Number::Float(1.0)
        } else {
            Number::Int(1)
        };
        charge_op(ctx, Op::Div, &one, &first);
        let result = number::binary(Op::Div, &one, &first, ctx.limits)?;
        return finish(ctx, result);
    }
    let any_float = args.iter().any(|v| matches!(v, Value::Float(_)));
    let first = if any_float {
        Number::Float(first.to_f64())
    } else {
        first
    };
    let quotient = fold(ctx, Op::Div, first, rest)?;
    finish(ctx, quotient)
}

/// `(% X Y)`: integers only, remainder with the sign of X.
pub(super) fn rem(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let [x, y] = args else { return Ok(Value::Nil) };
    let x = integer_or_marker(ctx, x)?;
    let y = integer_or_marker(ctx, y)?;
    charge_op(ctx, Op::Div, &x, &y);
    let result = number::remainder(&x, &y, ctx.limits)?;
    finish(ctx, result)
}

fn integer_or_marker(ctx: &PrimCtx<'_>, value: &Value) -> Result<Number> {
    match value {
        Value::Int(_) | Value::Big(_) => number_or_marker(ctx, value),
        _ => Err(wrong_type("integer-or-marker-p", value, &*ctx.symbols)),
    }
}

/// `(mod X Y)`: remainder with the sign of Y; floats allowed.
pub(super) fn modulo(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let [x, y] = args else { return Ok(Value::Nil) };
    let x = number_or_marker(ctx, x)?;
    let y = number_or_marker(ctx, y)?;
    charge_op(ctx, Op::Div, &x, &y);
    let result = number::modulo(&x, &y, ctx.limits)?;
    finish(ctx, result)
}

/// `(abs ARG)`
pub(super) fn abs(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let [arg] = args else { return Ok(Value::Nil) };
    let n = number_arg(ctx, arg, "numberp")?;
    ctx.charge(n.words());
    let result = number::absolute(&n, ctx.limits)?;
    finish(ctx, result)
}

/// Emacs 27+ `max`/`min`: the winning argument itself (no float contagion); a NaN
/// argument after the first is returned at once.
fn extremum(ctx: &mut PrimCtx<'_>, args: &[Value], wanted: Ordering) -> Result<Value> {
    let Some((first, rest)) = args.split_first() else {
        return Ok(Value::Nil);
    };
    let mut best_value = first;
    let mut best = number_or_marker(ctx, first)?;
    for value in rest {
        let n = number_or_marker(ctx, value)?;
        ctx.charge(n.words().saturating_add(best.words()));
        if number::compare(&n, &best) == Some(wanted) {
            best = n;
            best_value = value;
        } else if matches!(n, Number::Float(f) if f.is_nan()) {
            return Ok(value.clone());
        }
    }
    Ok(best_value.clone())
}

/// `(max NUMBER &rest NUMBERS)`
pub(super) fn max(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    extremum(ctx, args, Ordering::Greater)
}

/// `(min NUMBER &rest NUMBERS)`
pub(super) fn min(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    extremum(ctx, args, Ordering::Less)
}

/// `(float ARG)`
pub(super) fn float(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let [arg] = args else { return Ok(Value::Nil) };
    let n = number_arg(ctx, arg, "numberp")?;
    ctx.charge(n.words());
    Ok(Value::Float(n.to_f64()))
}

fn rounding(ctx: &mut PrimCtx<'_>, args: &[Value], mode: Rounding) -> Result<Value> {
    let Some((first, rest)) = args.split_first() else {
        return Ok(Value::Nil);
    };
    let n = number_arg(ctx, first, "numberp")?;
    let divisor = match rest.first() {
        None | Some(Value::Nil) => None,
        Some(value) => Some(number_arg(ctx, value, "numberp")?),
    };
    // Floats rescale to integers of up to ~1100 bits: charge them as 18 words.
    let words = |n: &Number| if n.is_float() { 18 } else { n.words() };
    ctx.charge(words(&n).saturating_mul(divisor.as_ref().map_or(1, words)));
    let result = number::round_to_integer(mode, &n, divisor.as_ref(), ctx.limits)?;
    if let Value::Big(n) = &result {
        ctx.alloc(heap::big(n));
    }
    Ok(result)
}

/// `(truncate ARG &optional DIVISOR)`
pub(super) fn truncate(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    rounding(ctx, args, Rounding::Truncate)
}

/// `(round ARG &optional DIVISOR)`: ties go to the even integer, as Emacs's `rint`.
pub(super) fn round(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    rounding(ctx, args, Rounding::Round)
}

/// `(floor ARG &optional DIVISOR)`
pub(super) fn floor(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    rounding(ctx, args, Rounding::Floor)
}

/// `(ceiling ARG &optional DIVISOR)`
pub(super) fn ceiling(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    rounding(ctx, args, Rounding::Ceiling)
}

/// Emacs's `arithcompare_driver`: compares neighbours left to right and stops at the first
/// failing pair (later arguments are then not type-checked); a single argument is only
/// type-checked (Emacs 30) and gives `t`.
fn chain(
    ctx: &mut PrimCtx<'_>,
    args: &[Value],
    holds: fn(Option<Ordering>) -> bool,
) -> Result<Value> {
    if let [only] = args {
        number_or_marker(ctx, only)?;
    }
    for pair in args.windows(2) {
        let [a, b] = pair else { continue };
        let a = number_or_marker(ctx, a)?;
        let b = number_or_marker(ctx, b)?;
        ctx.charge(a.words().saturating_add(b.words()));
        if !holds(number::compare(&a, &b)) {
            return Ok(Value::Nil);
        }
    }
    Ok(Value::T)
}

/// `(= NUMBER &rest NUMBERS)`
pub(super) fn num_eq(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    chain(ctx, args, |o| o == Some(Ordering::Equal))
}

/// `(/= NUM1 NUM2)`: true for a NaN operand.
pub(super) fn num_ne(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    chain(ctx, args, |o| o != Some(Ordering::Equal))
}

/// `(< NUMBER &rest NUMBERS)`
pub(super) fn lt(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    chain(ctx, args, |o| o == Some(Ordering::Less))
}

/// `(> NUMBER &rest NUMBERS)`
pub(super) fn gt(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    chain(ctx, args, |o| o == Some(Ordering::Greater))
}

/// `(<= NUMBER &rest NUMBERS)`
pub(super) fn le(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    chain(ctx, args, |o| {
        matches!(o, Some(Ordering::Less | Ordering::Equal))
    })
}

/// `(>= NUMBER &rest NUMBERS)`
pub(super) fn ge(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    chain(ctx, args, |o| {
        matches!(o, Some(Ordering::Greater | Ordering::Equal))
    })
}
