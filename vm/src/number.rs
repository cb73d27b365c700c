//! The numeric tower shared by the arithmetic primitives and the VM's fast paths, and the
//! Emacs host-error texts primitives raise.
//!
//! Integers are exact: `Value::Int` on the 64-bit fast path, promoted to a big integer on
//! overflow and normalised back with [`Value::integer`]. Every integer a numeric primitive
//! returns (including float→integer conversions) is checked against
//! [`Limits::number_bits`]: `|n| ≥ 2^bits` fails with kind `value`, "Guest integer exceeds
//! its %d bit budget". Intermediate accumulators of `+ - * /` are held to Emacs's
//! `integer-width` ([`HOST_INTEGER_BITS`]) instead, as in the original. Floats follow IEEE 754 as Emacs does
//! (`(/ 1.0 0)` is `1.0e+INF`).
//!
//! Invariants:
//! - Nothing here panics on any input: no unchecked arithmetic on guest numbers.
//! - Integer/float comparison is exact (as Emacs's `arithcompare`), never through a lossy
//!   conversion; NaN compares unordered.
//! - [`wrong_type`] formats "Wrong type argument: PREDICATE, VALUE" with VALUE printed by
//!   `prin1`, the text Emacs gives.

use crate::error::{Error, ErrorKind, Result};
use crate::limits::Limits;
use crate::print::{self, Style, SymbolNames};
use crate::value::Value;
use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::{FromPrimitive, Signed, ToPrimitive, Zero};
use std::cmp::Ordering;

/// Emacs's `wrong-type-argument` text: "Wrong type argument: PREDICATE, VALUE".
#[cold]
#[must_use]
pub fn wrong_type(predicate: &str, value: &Value, names: &dyn SymbolNames) -> Error {
    Error::script(format!(
        "Wrong type argument: {predicate}, {}",
        print::to_string(value, Style::Prin1, names)
    ))
}

/// Emacs's `arith-error` text (integer division by zero).
#[cold]
#[must_use]
pub fn arith_error() -> Error {
    Error::script("Arithmetic error")
}

/// Emacs's `overflow-error` text (a NaN or infinite float converted to an integer, or an
/// integer wider than [`HOST_INTEGER_BITS`]).
#[cold]
#[must_use]
pub fn overflow_error() -> Error {
    Error::script("Arithmetic overflow error")
}

/// The number-bit budget failure, kind `value`.
#[cold]
#[must_use]
pub fn bits_error(limits: &Limits) -> Error {
    Error::new(
        ErrorKind::Value,
        format!(
            "Guest integer exceeds its {} bit budget",
            limits.number_bits
        ),
    )
}

/// Checks `|n| < 2^number_bits`.
pub fn check_big(n: &BigInt, limits: &Limits) -> Result<()> {
    if n.bits() > limits.number_bits {
        return Err(bits_error(limits));
    }
    Ok(())
}

/// Checks `|n| < 2^number_bits` on the fast path.
pub fn check_small(n: i64, limits: &Limits) -> Result<()> {
    let bits = u64::from(64 - n.unsigned_abs().leading_zeros());
    if bits > limits.number_bits {
        return Err(bits_error(limits));
    }
    Ok(())
}

/// Checks any value that is an integer against the bit budget (other values pass).
pub fn check_integer(value: &Value, limits: &Limits) -> Result<()> {
    match value {
        Value::Int(n) => check_small(*n, limits),
        Value::Big(n) => check_big(n, limits),
        _ => Ok(()),
    }
}

/// An integer result, normalised and checked against the bit budget.
pub fn integer_result(n: BigInt, limits: &Limits) -> Result<Value> {
    check_big(&n, limits)?;
    Ok(Value::integer(n))
}

/// A number operand: an exact integer or a float.
#[derive(Debug, Clone)]
pub enum Number {
    /// A 64-bit integer.
    Int(i64),
    /// An integer outside 64 bits.
    Big(BigInt),
    /// A float.
    Float(f64),
}

impl Number {
    /// The number `value` holds, if it is one.
    #[must_use]
    pub fn of(value: &Value) -> Option<Number> {
        match value {
            Value::Int(n) => Some(Number::Int(*n)),
            Value::Big(n) => Some(Number::Big((**n).clone())),
            Value::Float(f) => Some(Number::Float(*f)),
            _ => None,
        }
    }

    /// The nearest float (Emacs `XFLOATINT`); huge integers become infinities.
    #[must_use]
    pub fn to_f64(&self) -> f64 {
        match self {
            Number::Int(n) => *n as f64,
            Number::Big(n) => n.to_f64().unwrap_or(if n.is_negative() {
                f64::NEG_INFINITY
            } else {
                f64::INFINITY
            }),
            Number::Float(f) => *f,
        }
    }

    /// Whether this is a float.
    #[must_use]
    pub fn is_float(&self) -> bool {
        matches!(self, Number::Float(_))
    }

    /// The exact integer, for integers.
    fn to_big(&self) -> Option<BigInt> {
        match self {
            Number::Int(n) => Some(BigInt::from(*n)),
            Number::Big(n) => Some(n.clone()),
            Number::Float(_) => None,
        }
    }

    /// The value, integers normalised and checked against the bit budget.
    pub fn into_value(self, limits: &Limits) -> Result<Value> {
        match self {
            Number::Int(n) => {
                check_small(n, limits)?;
                Ok(Value::Int(n))
            }
            Number::Big(n) => integer_result(n, limits),
            Number::Float(f) => Ok(Value::Float(f)),
        }
    }

    /// 64-bit words this number occupies (work estimates for big-integer operations).
    #[must_use]
    pub fn words(&self) -> u64 {
        match self {
            Number::Big(n) => n.bits().div_ceil(64).max(1),
            _ => 1,
        }
    }
}

/// The binary operations of `+ - *` and integer `/`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// Addition.
    Add,
    /// Subtraction.
    Sub,
    /// Multiplication.
    Mul,
    /// Division: truncating on integers, IEEE on floats.
    Div,
}

/// The widest integer an intermediate result may reach, as Emacs's default
/// `integer-width`; wider is "Arithmetic overflow error". Only the final result of a
/// primitive is held to the (smaller) number-bit budget, as in the original, so
/// `(* BIG BIG 0)` is 0.
pub const HOST_INTEGER_BITS: u64 = 65_536;

/// `a OP b` with Emacs contagion: a float on either side makes a float result; integer
/// results are exact and checked against the bit budget. Integer division by zero is
/// "Arithmetic error".
pub fn binary(op: Op, a: &Number, b: &Number, limits: &Limits) -> Result<Number> {
    let result = binary_unbudgeted(op, a, b)?;
    match &result {
        Number::Int(n) => check_small(*n, limits)?,
        Number::Big(n) => check_big(n, limits)?,
        Number::Float(_) => {}
    }
    Ok(result)
}

/// `a OP b` held only to [`HOST_INTEGER_BITS`]: for the intermediate steps of a fold whose
/// final result the caller checks against the budget.
pub fn binary_unbudgeted(op: Op, a: &Number, b: &Number) -> Result<Number> {
    if a.is_float() || b.is_float() {
        let (x, y) = (a.to_f64(), b.to_f64());
        return Ok(Number::Float(match op {
            Op::Add => x + y,
            Op::Sub => x - y,
            Op::Mul => x * y,
            Op::Div => x / y,
        }));
    }
    if let (Number::Int(x), Number::Int(y)) = (a, b) {
        let fast = match op {
            Op::Add => x.checked_add(*y),
            Op::Sub => x.checked_sub(*y),
            Op::Mul => x.checked_mul(*y),
            Op::Div => {
                if *y == 0 {
                    return Err(arith_error());
                }
                x.checked_div(*y)
            }
        };
        if let Some(n) = fast {
            return Ok(Number::Int(n));
        }
    }
    let (Some(x), Some(y)) = (a.to_big(), b.to_big()) else {
        return Err(arith_error());
    };
    let n = match op {
        Op::Add => x + y,
        Op::Sub => x - y,
        Op::Mul => x * y,
        Op::Div => {
            if y.is_zero() {
                return Err(arith_error());
            }
            x / y
        }
    };
    if n.bits() > HOST_INTEGER_BITS {
        return Err(overflow_error());
    }
    Ok(match i64::try_from(&n) {
        Ok(small) => Number::Int(small),
        Err(_) => Number::Big(n),
    })
}

/// `-a`, exact for integers.
pub fn negate(a: &Number, limits: &Limits) -> Result<Number> {
    match a {
        Number::Float(f) => Ok(Number::Float(-f)),
        _ => binary(Op::Sub, &Number::Int(0), a, limits),
    }
}

/// `|a|`, exact for integers.
pub fn absolute(a: &Number, limits: &Limits) -> Result<Number> {
    match a {
        Number::Float(f) => Ok(Number::Float(f.abs())),
        Number::Int(n) if *n >= 0 => Ok(Number::Int(*n)),
        Number::Big(n) if !n.is_negative() => Ok(a.clone()),
        _ => negate(a, limits),
    }
}

/// `(% a b)` on integers: the remainder with the sign of the dividend.
pub fn remainder(a: &Number, b: &Number, limits: &Limits) -> Result<Number> {
    integer_remainder(a, b, false, limits)
}

/// `(mod a b)`: the remainder with the sign of the divisor; floats use `fmod` and fix the
/// sign as Emacs does (a zero float divisor gives NaN).
pub fn modulo(a: &Number, b: &Number, limits: &Limits) -> Result<Number> {
    if a.is_float() || b.is_float() {
        let (x, y) = (a.to_f64(), b.to_f64());
        let mut r = x % y;
        if if y < 0.0 { r > 0.0 } else { r < 0.0 } {
            r += y;
        }
        return Ok(Number::Float(r));
    }
    integer_remainder(a, b, true, limits)
}

fn integer_remainder(a: &Number, b: &Number, floor: bool, limits: &Limits) -> Result<Number> {
    if let (Number::Int(x), Number::Int(y)) = (a, b) {
        if *y == 0 {
            return Err(arith_error());
        }
        // `checked_rem` fails only for i64::MIN % -1, whose remainder is 0.
        let mut r = x.checked_rem(*y).unwrap_or(0);
        if floor && r != 0 && (r < 0) != (*y < 0) {
            r = r.saturating_add(*y);
        }
        return Ok(Number::Int(r));
    }
    let (Some(x), Some(y)) = (a.to_big(), b.to_big()) else {
        return Err(arith_error());
    };
    if y.is_zero() {
        return Err(arith_error());
    }
    let r = if floor { x.mod_floor(&y) } else { x % y };
    check_big(&r, limits)?;
    Ok(match i64::try_from(&r) {
        Ok(small) => Number::Int(small),
        Err(_) => Number::Big(r),
    })
}

/// Exact numeric comparison; `None` when a NaN is involved.
#[must_use]
pub fn compare(a: &Number, b: &Number) -> Option<Ordering> {
    match (a, b) {
        (Number::Int(x), Number::Int(y)) => Some(x.cmp(y)),
        (Number::Float(x), Number::Float(y)) => x.partial_cmp(y),
        (Number::Float(x), _) => compare_integer_float(b, *x).map(Ordering::reverse),
        (_, Number::Float(y)) => compare_integer_float(a, *y),
        (Number::Big(x), Number::Big(y)) => Some(x.cmp(y)),
        // A big integer lies outside the 64-bit range: its sign decides.
        (Number::Int(_), Number::Big(y)) => Some(if y.is_negative() {
            Ordering::Greater
        } else {
            Ordering::Less
        }),
        (Number::Big(x), Number::Int(_)) => Some(if x.is_negative() {
            Ordering::Less
        } else {
            Ordering::Greater
        }),
    }
}

/// Compares the integer `n` with the float `f` exactly.
fn compare_integer_float(n: &Number, f: f64) -> Option<Ordering> {
    if f.is_nan() {
        return None;
    }
    if f.is_infinite() {
        return Some(if f > 0.0 {
            Ordering::Less
        } else {
            Ordering::Greater
        });
    }
    if let Number::Int(small) = n {
        // Integers below 2^53 convert to floats exactly.
        if small.unsigned_abs() < (1 << 53) {
            return (*small as f64).partial_cmp(&f);
        }
    }
    let n = n.to_big()?;
    let whole = f.floor();
    let floor = BigInt::from_f64(whole)?;
    Some(match n.cmp(&floor) {
        Ordering::Less => Ordering::Less,
        Ordering::Greater => Ordering::Greater,
        Ordering::Equal if whole == f => Ordering::Equal,
        Ordering::Equal => Ordering::Less,
    })
}

/// The rounding mode of `truncate`, `floor`, `ceiling` and `round`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rounding {
    /// Toward zero.
    Truncate,
    /// Toward negative infinity.
    Floor,
    /// Toward positive infinity.
    Ceiling,
    /// To nearest, ties to even (Emacs uses `rint` and `rounddiv_q`).
    Round,
}

/// `(truncate/floor/ceiling/round ARG [DIVISOR])` as Emacs's `rounding_driver`: exact
/// division (floats are rescaled to exact integers first), a zero divisor is "Arithmetic
/// error", a NaN or infinite numerator "Arithmetic overflow error", a finite numerator over
/// an infinite or NaN divisor 0.
pub fn round_to_integer(
    mode: Rounding,
    n: &Number,
    divisor: Option<&Number>,
    limits: &Limits,
) -> Result<Value> {
    let Some(d) = divisor else {
        return match n {
            Number::Float(f) => float_to_integer(round_float(mode, *f), limits),
            _ => n.clone().into_value(limits),
        };
    };
    let divisor_zero = match d {
        Number::Int(0) => true,
        Number::Float(f) => *f == 0.0,
        _ => false,
    };
    if divisor_zero {
        return Err(arith_error());
    }
    if let (Number::Int(x), Number::Int(y)) = (n, d) {
        let q = divide_rounding(&BigInt::from(*x), &BigInt::from(*y), mode);
        return integer_result(q, limits);
    }
    if let Number::Float(f) = n
        && !f.is_finite()
    {
        return Err(overflow_error());
    }
    if let Number::Float(f) = d
        && !f.is_finite()
    {
        return Ok(Value::Int(0));
    }
    let (numerator, numerator_scale) = exact(n);
    let (denominator, denominator_scale) = exact(d);
    let scale = numerator_scale.max(denominator_scale);
    let numerator = numerator << (scale - numerator_scale);
    let denominator = denominator << (scale - denominator_scale);
    integer_result(divide_rounding(&numerator, &denominator, mode), limits)
}

/// A float rounded to an integral float in `mode`.
#[must_use]
pub fn round_float(mode: Rounding, f: f64) -> f64 {
    match mode {
        Rounding::Truncate => f.trunc(),
        Rounding::Floor => f.floor(),
        Rounding::Ceiling => f.ceil(),
        Rounding::Round => f.round_ties_even(),
    }
}

/// An integral float as an integer: NaN and infinities are "Arithmetic overflow error".
pub fn float_to_integer(f: f64, limits: &Limits) -> Result<Value> {
    if !f.is_finite() {
        return Err(overflow_error());
    }
    if f.abs() < 9.0e18 {
        // Exact: `f` is integral and well inside the 64-bit range.
        #[allow(clippy::cast_possible_truncation)]
        let small = f as i64;
        check_small(small, limits)?;
        return Ok(Value::Int(small));
    }
    let n = BigInt::from_f64(f).ok_or_else(overflow_error)?;
    integer_result(n, limits)
}

/// A finite number as `(N, s)` with value `N / 2^s` exactly.
fn exact(n: &Number) -> (BigInt, u32) {
    match n {
        Number::Int(x) => (BigInt::from(*x), 0),
        Number::Big(x) => (x.clone(), 0),
        Number::Float(f) => {
            let bits = f.to_bits();
            let negative = bits >> 63 != 0;
            let exponent = i32::try_from((bits >> 52) & 0x7ff).unwrap_or(0);
            let fraction = bits & ((1 << 52) - 1);
            let (mantissa, power) = if exponent == 0 {
                (fraction, -1074)
            } else {
                (fraction | (1 << 52), exponent - 1075)
            };
            let mantissa = if negative {
                -BigInt::from(mantissa)
            } else {
                BigInt::from(mantissa)
            };
            if power >= 0 {
                (mantissa << power.unsigned_abs(), 0)
            } else {
                (mantissa, power.unsigned_abs())
            }
        }
    }
}

/// `a / b` rounded in `mode`; `b` is not zero.
fn divide_rounding(a: &BigInt, b: &BigInt, mode: Rounding) -> BigInt {
    match mode {
        Rounding::Truncate => a / b,
        Rounding::Floor => a.div_floor(b),
        Rounding::Ceiling => -((-a).div_floor(b)),
        Rounding::Round => {
            let (q, r) = a.div_rem(b);
            let twice = r.abs() * 2u8;
            let b_abs = b.abs();
            let away = match twice.cmp(&b_abs) {
                Ordering::Greater => true,
                Ordering::Equal => q.is_odd(),
                Ordering::Less => false,
            };
            if !away {
                q
            } else if a.is_negative() == b.is_negative() {
                q + 1u8
            } else {
                q - 1u8
            }
        }
    }
}
