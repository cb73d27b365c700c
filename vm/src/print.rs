//! Printing guest values the way the original prints them (Emacs `prin1` / `princ`).
//!
//! Used for the model-facing text of a final value, for `format`'s `%S`/`%s`, for
//! `number-to-string`, and for values quoted in error messages.
//!
//! Invariants:
//! - Printing never recurses on the host stack: deep values print through an explicit
//!   work stack.
//! - The output of [`Style::Prin1`] reads back as an equal datum for every value the reader
//!   can produce (strings, numbers, symbols, lists, vectors); closures print as
//!   `#<closure>`, which the reader rejects.
//! - Callers bound the output through the value budget before printing: a value's
//!   [`Weight`](crate::value::Weight) bytes bound its printed length up to a constant factor.
//!   A value holding a hash table (`has_table`) is the exception, since a table grows after
//!   containers cached its weight: it prints through [`write_with_tables`], which owns what
//!   it walks (a table's entries are cloned out of its lock) and stops at
//!   [`TABLE_PRINT_CAP`] bytes of output with `...`.
//! - A hash table prints as Emacs 28 prints it:
//!   `#s(hash-table size N test T rehash-size 1.5 rehash-threshold 0.8125 data (K V ...))`.

mod float;

pub use float::{float_to_string, write_float};

use crate::symbol::{Interner, Symbol, Symbols, well_known};
use crate::value::Value;
use smallvec::SmallVec;
use std::fmt::Write as _;

/// Anything that can name a symbol: the compiler's interner or a run's table.
pub trait SymbolNames {
    /// The name of `symbol`.
    fn symbol_name(&self, symbol: Symbol) -> &str;
}

impl SymbolNames for Interner {
    fn symbol_name(&self, symbol: Symbol) -> &str {
        self.name(symbol).unwrap_or("#<unknown symbol>")
    }
}

impl SymbolNames for Symbols {
    fn symbol_name(&self, symbol: Symbol) -> &str {
        self.name(symbol)
    }
}

/// How strings and symbols print.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// `prin1`: strings quoted and escaped, symbols escaped so they read back.
    Prin1,
    /// `princ`: strings and symbols printed as their raw text.
    Princ,
}

/// `value` printed in `style`.
#[must_use]
pub fn to_string(value: &Value, style: Style, names: &dyn SymbolNames) -> String {
    let mut out = String::new();
    write_value(&mut out, value, style, names);
    out
}

/// Bytes a cons or vector reserves in the output before printing: a short list's text
/// then needs no regrowth.
const COMPOUND_RESERVE: usize = 64;
/// Pending print tasks kept on the host stack before the work stack moves to the heap.
const STACK_INLINE: usize = 16;

enum Task<'a> {
    Value(&'a Value),
    /// Leaves a backquote (`+1`: back inside after a comma's operand; `-1`: after a
    /// backquote's body).
    Depth(i32),
    /// The elements after the first of a list, printed with a leading space.
    ListRest(&'a Value),
    Text(&'static str),
}

/// Appends `value` printed in `style` to `out`.
///
/// An atom (anything but a cons or a vector) is written directly. A cons or a vector
/// reserves [`COMPOUND_RESERVE`] bytes of `out` up front and walks a work stack that lives
/// inline up to [`STACK_INLINE`] pending tasks (deeper values spill it to the heap).
pub fn write_value(out: &mut String, value: &Value, style: Style, names: &dyn SymbolNames) {
    if value.weight().has_table {
        write_with_tables(out, value, style, names);
        return;
    }
    if !matches!(value, Value::Cons(_) | Value::Vector(_)) {
        write_atom(out, value, style, names);
        return;
    }
    out.reserve(COMPOUND_RESERVE);
    let mut stack: SmallVec<[Task<'_>; STACK_INLINE]> = SmallVec::new();
    stack.push(Task::Value(value));
    // Backquotes open around the task being printed: commas print as `,x` only inside one.
    let mut backquotes = 0i32;
    while let Some(task) = stack.pop() {
        match task {
            Task::Text(text) => out.push_str(text),
            Task::Depth(delta) => backquotes += delta,
            Task::ListRest(rest) => match rest {
                Value::Nil => out.push(')'),
                Value::Cons(cell) => {
                    out.push(' ');
                    stack.push(Task::ListRest(cell.cdr()));
                    stack.push(Task::Value(cell.car()));
                }
                tail => {
                    out.push_str(" . ");
                    stack.push(Task::Text(")"));
                    stack.push(Task::Value(tail));
                }
            },
            Task::Value(Value::Vector(vector)) => {
                out.push('[');
                stack.push(Task::Text("]"));
                for (i, item) in vector.items().iter().enumerate().rev() {
                    stack.push(Task::Value(item));
                    if i > 0 {
                        stack.push(Task::Text(" "));
                    }
                }
            }
            Task::Value(Value::Cons(cell)) => {
                if let Some((prefix, quoted)) =
                    reader_sugar(cell.car(), cell.cdr(), names, backquotes > 0)
                {
                    out.push_str(prefix);
                    let delta = match prefix {
                        "`" => 1,
                        "'" => 0,
                        _ => -1,
                    };
                    if delta != 0 {
                        backquotes += delta;
                        stack.push(Task::Depth(-delta));
                    }
                    stack.push(Task::Value(quoted));
                } else {
                    out.push('(');
                    stack.push(Task::ListRest(cell.cdr()));
                    stack.push(Task::Value(cell.car()));
                }
            }
            Task::Value(atom) => write_atom(out, atom, style, names),
        }
    }
}

/// The most bytes [`write_with_tables`] appends before it stops with `...`: the printed
/// form of a value holding tables is not bounded by its cached weight, so the walk bounds
/// itself (every caller then checks the text against the value budget).
pub const TABLE_PRINT_CAP: usize = 16 << 20;

enum OwnedTask {
    Value(Value),
    Depth(i32),
    ListRest(Value),
    Text(&'static str),
}

/// [`write_value`] for a value holding a hash table: the same output, walking owned values
/// (a table's entries are cloned out of its lock, so nothing borrows from a table while it
/// prints), and stopping with `...` after [`TABLE_PRINT_CAP`] bytes.
fn write_with_tables(out: &mut String, value: &Value, style: Style, names: &dyn SymbolNames) {
    let limit = out.len().saturating_add(TABLE_PRINT_CAP);
    let mut stack: Vec<OwnedTask> = vec![OwnedTask::Value(value.clone())];
    let mut backquotes = 0i32;
    while let Some(task) = stack.pop() {
        if out.len() > limit {
            out.push_str("...");
            return;
        }
        match task {
            OwnedTask::Text(text) => out.push_str(text),
            OwnedTask::Depth(delta) => backquotes += delta,
            OwnedTask::ListRest(rest) => match rest {
                Value::Nil => out.push(')'),
                Value::Cons(cell) => {
                    out.push(' ');
                    stack.push(OwnedTask::ListRest(cell.cdr().clone()));
                    stack.push(OwnedTask::Value(cell.car().clone()));
                }
                tail => {
                    out.push_str(" . ");
                    stack.push(OwnedTask::Text(")"));
                    stack.push(OwnedTask::Value(tail));
                }
            },
            OwnedTask::Value(Value::Vector(vector)) => {
                out.push('[');
                stack.push(OwnedTask::Text("]"));
                for (i, item) in vector.items().iter().enumerate().rev() {
                    stack.push(OwnedTask::Value(item.clone()));
                    if i > 0 {
                        stack.push(OwnedTask::Text(" "));
                    }
                }
            }
            OwnedTask::Value(Value::Hash(table)) => {
                let _ = write!(
                    out,
                    "#s(hash-table size {} test {} rehash-size 1.5 rehash-threshold 0.8125 data (",
                    table.size(),
                    table.test().name()
                );
                stack.push(OwnedTask::Text("))"));
                for (i, (key, value)) in table.entries().into_iter().enumerate().rev() {
                    stack.push(OwnedTask::Value(value));
                    stack.push(OwnedTask::Text(" "));
                    stack.push(OwnedTask::Value(key));
                    if i > 0 {
                        stack.push(OwnedTask::Text(" "));
                    }
                }
            }
            OwnedTask::Value(Value::Cons(cell)) => {
                if let Some((prefix, quoted)) =
                    reader_sugar(cell.car(), cell.cdr(), names, backquotes > 0)
                {
                    out.push_str(prefix);
                    let delta = match prefix {
                        "`" => 1,
                        "'" => 0,
                        _ => -1,
                    };
                    if delta != 0 {
                        backquotes += delta;
                        stack.push(OwnedTask::Depth(-delta));
                    }
                    stack.push(OwnedTask::Value(quoted.clone()));
                } else {
                    out.push('(');
                    stack.push(OwnedTask::ListRest(cell.cdr().clone()));
                    stack.push(OwnedTask::Value(cell.car().clone()));
                }
            }
            OwnedTask::Value(atom) => write_atom(out, &atom, style, names),
        }
    }
}

/// Appends an atom: any value but a cons or a vector (those print nothing here).
fn write_atom(out: &mut String, value: &Value, style: Style, names: &dyn SymbolNames) {
    match value {
        Value::Nil => out.push_str("nil"),
        Value::T => out.push('t'),
        Value::Int(n) => {
            let _ = write!(out, "{n}");
        }
        Value::Big(n) => {
            let _ = write!(out, "{n}");
        }
        Value::Float(f) => write_float(out, *f),
        Value::Str(s) => match style {
            Style::Princ => out.push_str(s.as_str()),
            Style::Prin1 => write_quoted_string(out, s.as_str()),
        },
        Value::Sym(symbol) => {
            let name = names.symbol_name(*symbol);
            match style {
                Style::Princ => out.push_str(name),
                Style::Prin1 => write_symbol(out, name),
            }
        }
        Value::Closure(_) => out.push_str("#<closure>"),
        Value::Cons(_) | Value::Vector(_) | Value::Hash(_) => {}
    }
}

/// `(quote X)`, `(function X)` and `` (\` X) `` print with their reader sugar, as Emacs
/// does by default (`print-quoted`); `(, X)` and `(,@ X)` too, but only inside a backquote
/// (Emacs 28's `new_backquote_output`): elsewhere they print as lists, `(\\, a)`.
///
/// `(, @x)` prints as `, @x`: `,@x` would read back as a splice.
fn reader_sugar<'a>(
    car: &Value,
    cdr: &'a Value,
    names: &dyn SymbolNames,
    in_backquote: bool,
) -> Option<(&'static str, &'a Value)> {
    let Value::Sym(op) = car else { return None };
    let Value::Cons(rest) = cdr else { return None };
    if !rest.cdr().is_nil() {
        return None;
    }
    let prefix = match *op {
        well_known::QUOTE => "'",
        well_known::BACKQUOTE => "`",
        well_known::UNQUOTE | well_known::SPLICE if !in_backquote => return None,
        well_known::UNQUOTE => match rest.car() {
            Value::Sym(symbol) if names.symbol_name(*symbol).starts_with('@') => ", ",
            _ => ",",
        },
        well_known::SPLICE => ",@",
        _ if names.symbol_name(*op) == "function" => "#'",
        _ => return None,
    };
    Some((prefix, rest.car()))
}

/// Appends `text` as a string literal: `"`, with `"` and `\` escaped.
pub fn write_quoted_string(out: &mut String, text: &str) {
    out.push('"');
    for c in text.chars() {
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
}

/// Appends a symbol name escaped as Emacs 28's `prin1` escapes it, which the reader reads
/// back as the same symbol: a backslash before every `" \\ ' ; # ( ) , . ` [ ] ?`, every
/// character up to space and no-break space, and before the first character of a name
/// that would read as a number (`\\1`, `\\-1`, `\\1e5`, `\\.5`); the empty name is `##`.
pub fn write_symbol(out: &mut String, name: &str) {
    if name.is_empty() {
        out.push_str("##");
        return;
    }
    let mut confusing = reads_as_number(name);
    for c in name.chars() {
        let special = c <= ' '
            || c == '\u{a0}'
            || matches!(
                c,
                '"' | '\\' | '\'' | ';' | '#' | '(' | ')' | ',' | '.' | '`' | '[' | ']' | '?'
            );
        if special || confusing {
            out.push('\\');
            confusing = false;
        }
        out.push(c);
    }
}

/// Whether all of `name` reads as a number in Emacs (`string_to_number` in base 10
/// consuming the whole name): `[+-]` then digits with an optional trailing `.`, or a float
/// (`1.5`, `.5`, `1e5`, `1.0e+INF`, `0.0e+NaN`).
fn reads_as_number(name: &str) -> bool {
    let body = name.strip_prefix(['+', '-']).unwrap_or(name).as_bytes();
    let digits = |from: usize| {
        body.get(from..)
            .unwrap_or_default()
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count()
    };
    let leading = digits(0);
    let mut at = leading;
    let mut fraction = 0;
    if body.get(at) == Some(&b'.') {
        fraction = digits(at + 1);
        at += 1 + fraction;
    }
    if leading == 0 && fraction == 0 {
        return false;
    }
    if at == body.len() {
        // `1`, `1.`, `1.5`, `.5` (but not a lone `.`).
        return true;
    }
    if !matches!(body.get(at), Some(b'e' | b'E')) {
        return false;
    }
    let exponent = body.get(at + 1..).unwrap_or_default();
    if matches!(exponent, b"+INF" | b"+NaN") {
        return leading > 0 || fraction > 0;
    }
    let unsigned = exponent
        .strip_prefix(b"+")
        .or_else(|| exponent.strip_prefix(b"-"));
    let unsigned = unsigned.unwrap_or(exponent);
    !unsigned.is_empty() && unsigned.iter().all(u8::is_ascii_digit)
}

/// C's `%.{precision}g` (with `#` when `alternate`): `precision` significant digits,
/// exponent form when the exponent is below -4 or at least the precision, trailing zeros
/// removed unless `alternate`.
#[must_use]
pub fn format_g(f: f64, precision: usize, alternate: bool) -> String {
    if !f.is_finite() {
        return if f.is_nan() {
            "nan".into()
        } else if f < 0.0 {
            "-inf".into()
        } else {
            "inf".into()
        };
    }
    let precision = precision.max(1);
    let scientific = scientific(f, precision - 1);
    let (mantissa, exponent) = scientific.split_once('e').unwrap_or((&scientific, "0"));
    let exponent: i64 = exponent.parse().unwrap_or(0);
    let precision_i = i64::try_from(precision).unwrap_or(i64::MAX);
    if exponent < -4 || exponent >= precision_i {
        let mantissa = if alternate {
            mantissa.to_owned()
        } else {
            trim_fraction(mantissa)
        };
        let sign = if exponent < 0 { '-' } else { '+' };
        format!("{mantissa}e{sign}{:02}", exponent.unsigned_abs())
    } else {
        let decimals = usize::try_from(precision_i - 1 - exponent).unwrap_or(0);
        let fixed = fixed(f, decimals);
        if alternate {
            fixed
        } else {
            trim_fraction(&fixed)
        }
    }
}

/// Fraction digits beyond which every finite double's exact decimal expansion is zeros
/// (the smallest subnormal, 2^-1074, has 1074), with room to spare.
const EXACT_FRACTION_DIGITS: usize = 1_100;
/// Significant digits beyond which every finite double's exact decimal expansion is zeros
/// (at most 767 are nonzero), with room to spare.
const EXACT_SIGNIFICANT_DIGITS: usize = 800;

/// C's `%.{decimals}f` of a finite `f`, for any `decimals`: std's formatter panics above a
/// precision of 65535, so digits past the exact expansion are appended as zeros.
#[must_use]
pub fn fixed(f: f64, decimals: usize) -> String {
    let exact = decimals.min(EXACT_FRACTION_DIGITS);
    let mut text = format!("{f:.exact$}");
    text.extend(std::iter::repeat_n('0', decimals - exact));
    text
}

/// Rust's `{:.decimals$e}` of a finite `f` (`1.5e3`, `1.5e-3`), for any `decimals`:
/// digits past the exact expansion are appended to the mantissa as zeros.
#[must_use]
pub fn scientific(f: f64, decimals: usize) -> String {
    let exact = decimals.min(EXACT_SIGNIFICANT_DIGITS);
    let text = format!("{f:.exact$e}");
    let zeros = decimals - exact;
    if zeros == 0 {
        return text;
    }
    let (mantissa, exponent) = text.split_once('e').unwrap_or((&text, "0"));
    let point = if mantissa.contains('.') { "" } else { "." };
    format!("{mantissa}{point}{}e{exponent}", "0".repeat(zeros))
}

fn trim_fraction(text: &str) -> String {
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_owned()
    } else {
        text.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(value: &Value) -> String {
        to_string(value, Style::Prin1, &Interner::new())
    }

    #[test]
    fn floats_print_like_emacs() {
        for (f, text) in [
            (1.0, "1.0"),
            (0.1, "0.1"),
            (-2.5, "-2.5"),
            (1e20, "1e+20"),
            (1e14, "100000000000000.0"),
            (1e15, "1e+15"),
            (1.5e-7, "1.5e-07"),
            (0.0001, "0.0001"),
            (1.0 / 3.0, "0.3333333333333333"),
            (f64::INFINITY, "1.0e+INF"),
            (f64::NAN, "0.0e+NaN"),
        ] {
            assert_eq!(float_to_string(f), text, "{f}");
        }
    }

    #[test]
    fn lists_strings_and_sugar() {
        let mut interner = Interner::new();
        let a = interner.intern("a");
        let value = Value::list([
            Value::Int(1),
            Value::string("x\"y"),
            Value::list([Value::Sym(well_known::QUOTE), Value::Sym(a)]),
            Value::cons(Value::Int(2), Value::Int(3)),
            Value::vector(vec![Value::Nil, Value::T]),
        ]);
        assert_eq!(
            to_string(&value, Style::Prin1, &interner),
            r#"(1 "x\"y" 'a (2 . 3) [nil t])"#
        );
        assert_eq!(
            to_string(&value, Style::Princ, &interner),
            r#"(1 x"y 'a (2 . 3) [nil t])"#
        );
        assert_eq!(p(&Value::Nil), "nil");
    }

    #[test]
    fn symbols_escape_what_would_not_read_back() {
        let mut out = String::new();
        write_symbol(&mut out, "a b");
        write_symbol(&mut out, "12");
        write_symbol(&mut out, "-");
        write_symbol(&mut out, "1+");
        assert_eq!(out, r"a\ b\12-1+");
    }

    #[test]
    fn deep_values_print_without_recursion() {
        std::thread::Builder::new()
            .stack_size(64 * 1024)
            .spawn(|| {
                let mut deep = Value::Nil;
                for _ in 0..100_000 {
                    deep = Value::list([deep]);
                }
                let text = p(&deep);
                assert_eq!(text.len(), 100_000 * 2 + 3);
            })
            .unwrap()
            .join()
            .unwrap();
    }
}
