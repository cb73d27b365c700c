//! `format`: Emacs-style conversion specs with field numbers, flags, width and precision,
//! bounded by the value budget.
//!
//! A spec is `%[FIELD$][FLAGS][WIDTH][.PRECISION]CONVERSION` with FLAGS among `-+ #0` and
//! CONVERSION one of `s S d o x X c f e g %`, as in Emacs's `styled_format`:
//! - `%s` prints like `princ`, `%S` like `prin1`; a precision truncates to that many
//!   characters.
//! - `%d %o %x %X` take integers; a float is truncated toward zero; negative values print a
//!   minus sign (Emacs 27+), `#` adds `0` / `0x` / `0X`, a precision is a minimum digit count.
//! - `%f %e %g` take any number; `%c` a character code.
//! - `FIELD$` selects the argument (1 is the first after the format string); later specs
//!   without a field continue after it.
//! - Width and the precision of `%s`/`%S` count display columns (Emacs's `string-width`,
//!   [`crate::display_width`]); `%f %e %g` of an integer that fits 64 bits are exact, as
//!   Emacs formats it as a `long double`; any precision is exact (std panics above 65535,
//!   so [`print::fixed`] and [`print::scientific`] append the zeros past a double's exact
//!   expansion).
//!
//! Guards (spec/reference/budgets.md): every digit run (field number, width, precision) larger than
//! `limits.value_bytes` is refused before anything is built (kind `value`, "'format': field
//! size exceeds the guest value byte budget"), and the output is checked against the value
//! budget as it grows, so a run of wide fields cannot allocate past it.
//!
//! Errors: "Not enough arguments for format string", "Format specifier doesn’t match
//! argument type" (with Emacs's curly apostrophe), "Invalid format operation %C", "Format
//! string ends in middle of format specifier".

use super::PrimCtx;
use super::string::{char_of, new_string, string_arg, text_units};
use crate::display_width::{string_width, truncate_to_width};
use crate::error::{Error, ErrorKind, Result};
use crate::print::{self, Style};
use crate::value::Value;
use num_bigint::BigInt;
use num_traits::{FromPrimitive, Signed, ToPrimitive, Zero};
use std::cell::RefCell;

const MISMATCH: &str = "Format specifier doesn\u{2019}t match argument type";
/// Bytes reserved per argument for the result, beyond the template's length.
const ARG_ESTIMATE: usize = 16;

/// One parsed conversion spec.
#[derive(Debug, Default)]
struct Spec {
    left: bool,
    plus: bool,
    space: bool,
    alternate: bool,
    zero: bool,
    width: usize,
    precision: Option<usize>,
}

thread_local! {
    /// The buffer `format` writes into, kept between calls: the result is copied out at
    /// its exact size (inline in the string value when short), so a `format` call
    /// allocates at most the result's own buffer.
    static OUT: RefCell<String> = const { RefCell::new(String::new()) };
}

/// The largest [`OUT`] buffer kept for the next call.
const MAX_KEPT_OUT: usize = 16 * 1024;

/// `(format STRING &rest OBJECTS)`
pub(super) fn format(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let mut out = OUT.with(|kept| std::mem::take(&mut *kept.borrow_mut()));
    out.clear();
    let result = format_into(ctx, args, &mut out).map(|()| new_string(ctx, out.as_str()));
    if out.capacity() <= MAX_KEPT_OUT {
        OUT.with(|kept| *kept.borrow_mut() = out);
    }
    result
}

/// [`format`]'s text, written into `out`.
fn format_into(ctx: &mut PrimCtx<'_>, args: &[Value], out: &mut String) -> Result<()> {
    let template = string_arg(ctx, args.first().unwrap_or(&Value::Nil))?;
    check_field_sizes(template, ctx.limits.value_bytes)?;
    ctx.charge(text_units(template.len()));
    let budget = usize::try_from(ctx.limits.value_bytes).unwrap_or(usize::MAX);
    let bytes = template.as_bytes();
    // Room for the template and a short text per argument, so most results never regrow.
    let estimate = template
        .len()
        .saturating_add(ARG_ESTIMATE.saturating_mul(args.len().saturating_sub(1)));
    out.reserve(estimate.min(budget));
    let mut used = 0usize;
    let mut index = 0usize;
    while index < bytes.len() {
        let Some(offset) = template.get(index..).and_then(|rest| rest.find('%')) else {
            out.push_str(template.get(index..).unwrap_or(""));
            break;
        };
        out.push_str(template.get(index..index + offset).unwrap_or(""));
        index += offset + 1;
        // Field number: digits followed by `$`; otherwise the digits are flags and width.
        let digits = count_digits(bytes, index);
        if digits > 0 && bytes.get(index + digits) == Some(&b'$') {
            let field = parse_digits(bytes, index, digits);
            used = field.saturating_sub(1);
            index += digits + 1;
        }
        let mut spec = Spec::default();
        while let Some(&flag) = bytes.get(index) {
            match flag {
                b'-' => spec.left = true,
                b'+' => spec.plus = true,
                b' ' => spec.space = true,
                b'#' => spec.alternate = true,
                b'0' => spec.zero = true,
                _ => break,
            }
            index += 1;
        }
        let digits = count_digits(bytes, index);
        spec.width = parse_digits(bytes, index, digits);
        index += digits;
        if bytes.get(index) == Some(&b'.') {
            index += 1;
            let digits = count_digits(bytes, index);
            spec.precision = Some(parse_digits(bytes, index, digits));
            index += digits;
        }
        let Some(conversion) = template.get(index..).and_then(|rest| rest.chars().next()) else {
            return Err(Error::script(
                "Format string ends in middle of format specifier",
            ));
        };
        index += conversion.len_utf8();
        if conversion == '%' {
            out.push('%');
            continue;
        }
        if !matches!(
            conversion,
            's' | 'S' | 'd' | 'o' | 'x' | 'X' | 'c' | 'f' | 'e' | 'g'
        ) {
            return Err(Error::script(format!(
                "Invalid format operation %{conversion}"
            )));
        }
        used = used.saturating_add(1);
        let Some(arg) = args.get(used) else {
            return Err(Error::script("Not enough arguments for format string"));
        };
        if matches!(conversion, 's' | 'S') && spec.width == 0 && spec.precision.is_none() {
            // No padding or truncation: print straight into `out`, charged and checked
            // exactly as the converted text would be.
            let start = out.len();
            print::write_value(out, arg, print_style(conversion), &*ctx.symbols);
            ctx.charge(text_units(out.len() - start));
            if out.len() > budget {
                return Err(over_budget(ctx));
            }
            continue;
        }
        let (body, numeric) = convert(ctx, conversion, &spec, arg)?;
        let pad = spec.width.saturating_sub(string_width(&body));
        if out.len().saturating_add(body.len()).saturating_add(pad) > budget {
            return Err(over_budget(ctx));
        }
        let integer_precision =
            matches!(conversion, 'd' | 'o' | 'x' | 'X') && spec.precision.is_some();
        push_padded(
            out,
            &body,
            pad,
            spec.left,
            spec.zero && numeric && !integer_precision,
        );
    }
    Ok(())
}

/// The error for a result past the value byte budget.
fn over_budget(ctx: &PrimCtx<'_>) -> Error {
    Error::new(
        ErrorKind::Value,
        format!(
            "Guest value exceeds its value byte budget of {}",
            ctx.limits.value_bytes
        ),
    )
}

/// How `%S` (`prin1`) and `%s` (`princ`) print their argument.
fn print_style(conversion: char) -> Style {
    if conversion == 'S' {
        Style::Prin1
    } else {
        Style::Princ
    }
}

/// Refuses any digit run inside a conversion spec that exceeds the value byte budget.
fn check_field_sizes(template: &str, limit: u64) -> Result<()> {
    let bytes = template.as_bytes();
    let mut index = 0usize;
    while let Some(&byte) = bytes.get(index) {
        index += 1;
        if byte != b'%' {
            continue;
        }
        // Scan the spec up to its conversion letter (or `%`).
        while let Some(&b) = bytes.get(index) {
            if b.is_ascii_digit() {
                let digits = count_digits(bytes, index);
                let run = bytes.get(index..index + digits).unwrap_or_default();
                let too_big = run
                    .iter()
                    .try_fold(0u64, |n, d| {
                        n.checked_mul(10)?.checked_add(u64::from(d - b'0'))
                    })
                    .is_none_or(|n| n > limit);
                if too_big {
                    return Err(Error::new(
                        ErrorKind::Value,
                        "'format': field size exceeds the guest value byte budget",
                    ));
                }
                index += digits;
            } else if matches!(b, b'$' | b'-' | b'+' | b' ' | b'#' | b'.') {
                index += 1;
            } else {
                index += 1;
                break;
            }
        }
    }
    Ok(())
}

fn count_digits(bytes: &[u8], index: usize) -> usize {
    bytes
        .get(index..)
        .unwrap_or_default()
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .count()
}

/// The digit run at `index`, saturating (runs were bounded by [`check_field_sizes`]).
fn parse_digits(bytes: &[u8], index: usize, digits: usize) -> usize {
    bytes
        .get(index..index + digits)
        .unwrap_or_default()
        .iter()
        .fold(0usize, |n, d| {
            n.saturating_mul(10).saturating_add(usize::from(d - b'0'))
        })
}

/// The converted text of one argument, and whether it is a number (zero padding applies).
fn convert(
    ctx: &mut PrimCtx<'_>,
    conversion: char,
    spec: &Spec,
    arg: &Value,
) -> Result<(String, bool)> {
    match conversion {
        's' | 'S' => {
            let mut text = print::to_string(arg, print_style(conversion), &*ctx.symbols);
            if let Some(precision) = spec.precision {
                let kept = truncate_to_width(&text, precision).len();
                text.truncate(kept);
            }
            ctx.charge(text_units(text.len()));
            Ok((text, false))
        }
        'c' => {
            let c = char_of(arg).ok_or_else(|| Error::script(MISMATCH))?;
            Ok((c.to_string(), false))
        }
        'd' | 'o' | 'x' | 'X' => {
            let n = integer_of(arg).ok_or_else(|| Error::script(MISMATCH))?;
            Ok((format_integer(&n, conversion, spec), true))
        }
        _ => {
            if let Some(n) = exact_integer(arg) {
                let text = format_exact_integer(&n, conversion, spec);
                ctx.charge(text_units(text.len()));
                return Ok((text, true));
            }
            let f = float_of(arg).ok_or_else(|| Error::script(MISMATCH))?;
            let text = format_float(f, conversion, spec);
            ctx.charge(text_units(text.len()));
            Ok((text, f.is_finite()))
        }
    }
}

/// The integer an integer conversion prints: floats truncate toward zero.
fn integer_of(arg: &Value) -> Option<BigInt> {
    match arg {
        Value::Int(n) => Some(BigInt::from(*n)),
        Value::Big(n) => Some((**n).clone()),
        Value::Float(f) if f.is_finite() => BigInt::from_f64(f.trunc()),
        _ => None,
    }
}

fn float_of(arg: &Value) -> Option<f64> {
    match arg {
        #[allow(clippy::cast_precision_loss)]
        Value::Int(n) => Some(*n as f64),
        Value::Big(n) => Some(n.to_f64().unwrap_or(if n.is_negative() {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        })),
        Value::Float(f) => Some(*f),
        _ => None,
    }
}

/// Sign, radix prefix and digits of an integer conversion.
fn format_integer(n: &BigInt, conversion: char, spec: &Spec) -> String {
    let magnitude = n.abs();
    let mut digits = match conversion {
        'o' => magnitude.to_str_radix(8),
        'x' => magnitude.to_str_radix(16),
        'X' => magnitude.to_str_radix(16).to_uppercase(),
        _ => magnitude.to_str_radix(10),
    };
    if let Some(precision) = spec.precision {
        if precision == 0 && magnitude.is_zero() {
            digits.clear();
        }
        let missing = precision.saturating_sub(digits.len());
        if missing > 0 {
            digits.insert_str(0, &"0".repeat(missing));
        }
    }
    let mut text = sign_of(n.is_negative(), spec).to_owned();
    if spec.alternate {
        match conversion {
            'o' if !digits.starts_with('0') => text.push('0'),
            'x' if !magnitude.is_zero() => text.push_str("0x"),
            'X' if !magnitude.is_zero() => text.push_str("0X"),
            _ => {}
        }
    }
    text.push_str(&digits);
    text
}

fn sign_of(negative: bool, spec: &Spec) -> &'static str {
    if negative {
        "-"
    } else if spec.plus {
        "+"
    } else if spec.space {
        " "
    } else {
        ""
    }
}

/// C's `%f`, `%e` and `%g` with Emacs's defaults (precision 6).
fn format_float(f: f64, conversion: char, spec: &Spec) -> String {
    let sign = sign_of(f.is_sign_negative(), spec);
    if !f.is_finite() {
        let name = if f.is_nan() { "nan" } else { "inf" };
        return format!("{sign}{name}");
    }
    let magnitude = f.abs();
    let precision = spec.precision.unwrap_or(6);
    let body = match conversion {
        'f' => {
            let mut text = print::fixed(magnitude, precision);
            if spec.alternate && precision == 0 {
                text.push('.');
            }
            text
        }
        'e' => {
            let text = print::scientific(magnitude, precision);
            let (mantissa, exponent) = text.split_once('e').unwrap_or((&text, "0"));
            let exponent: i32 = exponent.parse().unwrap_or(0);
            let point = if spec.alternate && precision == 0 {
                "."
            } else {
                ""
            };
            let exponent_sign = if exponent < 0 { '-' } else { '+' };
            format!(
                "{mantissa}{point}e{exponent_sign}{:02}",
                exponent.unsigned_abs()
            )
        }
        _ => print::format_g(magnitude, precision, spec.alternate),
    };
    format!("{sign}{body}")
}

/// An integer argument `%f`/`%e`/`%g` formats exactly, as Emacs does for every integer
/// that fits `intmax_t`/`uintmax_t` (it formats those as an x87 `long double`, whose 64-bit
/// significand holds them exactly). Larger integers go through a double, like floats.
fn exact_integer(arg: &Value) -> Option<BigInt> {
    let n = match arg {
        Value::Int(n) => return Some(BigInt::from(*n)),
        Value::Big(n) => &**n,
        _ => return None,
    };
    let fits = if n.is_negative() {
        n >= &BigInt::from(i64::MIN)
    } else {
        n.bits() <= 64
    };
    fits.then(|| n.clone())
}

/// C's `%f`, `%e`, `%g` of the exact integer `n` (digits rounded half to even, as printf
/// rounds an exact value).
fn format_exact_integer(n: &BigInt, conversion: char, spec: &Spec) -> String {
    let sign = sign_of(n.is_negative(), spec);
    let digits = n.magnitude().to_str_radix(10);
    let precision = spec.precision.unwrap_or(6);
    let point = if spec.alternate { "." } else { "" };
    let body = match conversion {
        'f' if precision == 0 => format!("{digits}{point}"),
        'f' => format!("{digits}.{}", "0".repeat(precision)),
        'e' => {
            let (mantissa, exponent) = round_significant(&digits, precision.saturating_add(1));
            exponent_form(&mantissa, exponent, spec.alternate, false)
        }
        _ => {
            let significant = precision.max(1);
            let (mantissa, exponent) = round_significant(&digits, significant);
            if exponent >= significant {
                exponent_form(&mantissa, exponent, spec.alternate, !spec.alternate)
            } else {
                // Fixed form: every digit of the integer is significant; the rest are zeros.
                let decimals = significant - 1 - exponent;
                let mut text = digits;
                if spec.alternate {
                    text.push('.');
                    text.push_str(&"0".repeat(decimals));
                }
                text
            }
        }
    };
    format!("{sign}{body}")
}

/// `digits` (no leading zeros; "0" for zero) rounded half to even to `count` significant
/// digits: the digit string (exactly `count` long) and the decimal exponent of its first.
fn round_significant(digits: &str, count: usize) -> (String, usize) {
    let count = count.max(1);
    let mut exponent = digits.len().saturating_sub(1);
    if digits.len() <= count {
        let mut kept = digits.to_owned();
        kept.push_str(&"0".repeat(count - digits.len()));
        return (kept, exponent);
    }
    let (kept, dropped) = digits.split_at(count);
    let mut kept: Vec<u8> = kept.bytes().collect();
    let first = dropped.bytes().next().unwrap_or(b'0');
    let rest_zero = dropped.bytes().skip(1).all(|b| b == b'0');
    let last_odd = kept.last().is_some_and(|d| (d - b'0') % 2 == 1);
    let round_up = first > b'5' || (first == b'5' && (!rest_zero || last_odd));
    if round_up {
        let mut carry = true;
        for digit in kept.iter_mut().rev() {
            if *digit == b'9' {
                *digit = b'0';
            } else {
                *digit += 1;
                carry = false;
                break;
            }
        }
        if carry {
            kept.insert(0, b'1');
            kept.pop();
            exponent += 1;
        }
    }
    (String::from_utf8(kept).unwrap_or_default(), exponent)
}

/// `d.ddde+XX` from significant digits, optionally with trailing zeros trimmed (`%g`).
fn exponent_form(mantissa: &str, exponent: usize, alternate: bool, trim: bool) -> String {
    let (first, rest) = mantissa.split_at_checked(1).unwrap_or((mantissa, ""));
    let rest = if trim {
        rest.trim_end_matches('0')
    } else {
        rest
    };
    let point = if !rest.is_empty() || alternate {
        "."
    } else {
        ""
    };
    format!("{first}{point}{rest}e+{exponent:02}")
}

/// Appends `body` padded with `pad` characters: spaces on the left (on the right when
/// `left`), or zeros after the sign and radix prefix when `zeros`.
fn push_padded(out: &mut String, body: &str, pad: usize, left: bool, zeros: bool) {
    if left {
        out.push_str(body);
        out.extend(std::iter::repeat_n(' ', pad));
    } else if zeros {
        let first_digit = body.find(|c: char| c.is_ascii_digit()).unwrap_or(0);
        let prefix_len = if body
            .get(first_digit..)
            .is_some_and(|r| r.starts_with("0x") || r.starts_with("0X"))
        {
            first_digit + 2
        } else {
            first_digit
        };
        let (prefix, digits) = body.split_at_checked(prefix_len).unwrap_or(("", body));
        out.push_str(prefix);
        out.extend(std::iter::repeat_n('0', pad));
        out.push_str(digits);
    } else {
        out.extend(std::iter::repeat_n(' ', pad));
        out.push_str(body);
    }
}
