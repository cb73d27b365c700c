//! Issue 46's pure primitives that need no function argument: type predicates (`type-of`,
//! `vectorp`, `keywordp`, `booleanp`, `natnump`, `proper-list-p`, `functionp`), list access
//! (`caddr`, `cl-first`...`cl-tenth`, `cl-rest`, `ensure-list`, `length<`/`length=`/
//! `length>`), `ignore`, `always`, and string conveniences (`string-trim-left`/`-right`,
//! `string-width`, `prin1-to-string`). Each keeps Emacs 28's behaviour; every walk is a
//! loop charged one fuel unit per element (the length comparisons stop as soon as the
//! answer is known, as Emacs's do).

use super::PrimCtx;
use crate::error::Result;
use crate::heap;
use crate::number::wrong_type;
use crate::print::{self, Style};
use crate::value::Value;

fn arg(args: &[Value], index: usize) -> &Value {
    args.get(index).unwrap_or(&Value::Nil)
}

/// `(type-of OBJECT)`: the symbol Emacs 28 answers (`integer`, `float`, `string`,
/// `symbol`, `cons`, `vector`, `hash-table`); a closure answers `closure` (Emacs 28 says
/// `cons` for an interpreted lambda, `compiled-function` for a compiled one).
pub(super) fn type_of(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let name = match arg(args, 0) {
        Value::Nil | Value::T | Value::Sym(_) => "symbol",
        Value::Int(_) | Value::Big(_) => "integer",
        Value::Float(_) => "float",
        Value::Str(_) => "string",
        Value::Cons(_) => "cons",
        Value::Vector(_) => "vector",
        Value::Closure(_) => "closure",
        Value::Hash(_) => "hash-table",
    };
    Ok(Value::Sym(ctx.symbols.try_intern(name)?))
}

/// `(vectorp OBJECT)`
pub(super) fn vectorp(_ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    Ok(Value::bool(matches!(arg(args, 0), Value::Vector(_))))
}

/// `(keywordp OBJECT)`
pub(super) fn keywordp(_ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    Ok(Value::bool(
        matches!(arg(args, 0), Value::Sym(symbol) if symbol.is_keyword()),
    ))
}

/// `(booleanp OBJECT)`: `t` for `nil` and `t`.
pub(super) fn booleanp(_ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    Ok(Value::bool(matches!(arg(args, 0), Value::Nil | Value::T)))
}

/// `(natnump OBJECT)`: a non-negative integer.
pub(super) fn natnump(_ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    Ok(Value::bool(match arg(args, 0) {
        Value::Int(n) => *n >= 0,
        Value::Big(n) => n.sign() != num_bigint::Sign::Minus,
        _ => false,
    }))
}

/// `(functionp OBJECT)`: `t` for a closure. A symbol answers `nil` here (deviation: the
/// machine, not a primitive, knows which names are functions; see the reference).
pub(super) fn functionp(_ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    Ok(Value::bool(matches!(arg(args, 0), Value::Closure(_))))
}

/// `(proper-list-p OBJECT)`: the length of a proper list, else nil.
pub(super) fn proper_list_p(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let list = arg(args, 0);
    let mut items = list.iter();
    let count = items.by_ref().count();
    ctx.charge(1 + count as u64);
    Ok(if items.rest().is_nil() {
        Value::Int(i64::try_from(count).unwrap_or(i64::MAX))
    } else {
        Value::Nil
    })
}

/// `(ensure-list OBJECT)`: OBJECT when it is a list, else `(OBJECT)`.
pub(super) fn ensure_list(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let value = arg(args, 0);
    if value.is_list() {
        return Ok(value.clone());
    }
    ctx.alloc(heap::CONS);
    Ok(Value::list([value.clone()]))
}

/// The `n`th cdr of `list` (Emacs's `nthcdr` for a small constant `n`).
fn nth_cdr(ctx: &PrimCtx<'_>, list: &Value, n: usize) -> Result<Value> {
    let mut rest = list;
    for _ in 0..n {
        rest = match rest {
            Value::Cons(cell) => cell.cdr(),
            Value::Nil => return Ok(Value::Nil),
            other => return Err(wrong_type("listp", other, &*ctx.symbols)),
        };
    }
    Ok(rest.clone())
}

/// The car of the `n`th cdr of `list`.
fn nth_car(ctx: &PrimCtx<'_>, list: &Value, n: usize) -> Result<Value> {
    match nth_cdr(ctx, list, n)? {
        Value::Cons(cell) => Ok(cell.car().clone()),
        Value::Nil => Ok(Value::Nil),
        other => Err(wrong_type("listp", &other, &*ctx.symbols)),
    }
}

macro_rules! nth_prims {
    ($($name:ident => $n:expr),* $(,)?) => {
        $(
            #[doc = concat!("`(", stringify!($name), " LIST)`: element ", stringify!($n), " (from 0).")]
            pub(super) fn $name(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
                ctx.charge($n);
                nth_car(ctx, arg(args, 0), $n)
            }
        )*
    };
}

nth_prims! {
    cl_first => 0, cl_second => 1, cl_third => 2, cl_fourth => 3, cl_fifth => 4,
    cl_sixth => 5, cl_seventh => 6, cl_eighth => 7, cl_ninth => 8, cl_tenth => 9,
}

/// `(caddr X)`: `(car (cdr (cdr X)))`.
pub(super) fn caddr(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    nth_car(ctx, arg(args, 0), 2)
}

/// `(cdddr X)`: `(cdr (cdr (cdr X)))`.
pub(super) fn cdddr(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    nth_cdr(ctx, arg(args, 0), 3)
}

/// `(cl-rest LIST)`: `cdr`.
pub(super) fn cl_rest(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    nth_cdr(ctx, arg(args, 0), 1)
}

/// How `length<`, `length=` and `length>` compare.
#[derive(Clone, Copy)]
enum Compare {
    Less,
    Equal,
    Greater,
}

/// Emacs 28's `length<` family: SEQUENCE's length against LENGTH, walking a list no further
/// than LENGTH + 1 elements.
fn length_compare(ctx: &mut PrimCtx<'_>, args: &[Value], how: Compare) -> Result<Value> {
    let seq = arg(args, 0);
    let length = match arg(args, 1) {
        Value::Int(n) => *n,
        other => return Err(wrong_type("fixnump", other, &*ctx.symbols)),
    };
    let cap = u64::try_from(length.max(-1).saturating_add(1)).unwrap_or(0);
    let actual: i64 = match seq {
        Value::Nil => 0,
        Value::Cons(_) => {
            let mut count: u64 = 0;
            let mut items = seq.iter();
            while count <= cap && items.next().is_some() {
                count += 1;
            }
            ctx.charge(1 + count);
            i64::try_from(count).unwrap_or(i64::MAX)
        }
        Value::Str(s) => i64::try_from(s.char_len()).unwrap_or(i64::MAX),
        Value::Vector(v) => i64::try_from(v.items().len()).unwrap_or(i64::MAX),
        other => return Err(wrong_type("sequencep", other, &*ctx.symbols)),
    };
    Ok(Value::bool(match how {
        Compare::Less => actual < length,
        Compare::Equal => actual == length,
        Compare::Greater => actual > length,
    }))
}

/// `(length< SEQUENCE LENGTH)`
pub(super) fn length_less(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    length_compare(ctx, args, Compare::Less)
}

/// `(length= SEQUENCE LENGTH)`
pub(super) fn length_equal(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    length_compare(ctx, args, Compare::Equal)
}

/// `(length> SEQUENCE LENGTH)`
pub(super) fn length_greater(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    length_compare(ctx, args, Compare::Greater)
}

/// `(ignore &rest ARGS)`: nil.
pub(super) fn ignore(_ctx: &mut PrimCtx<'_>, _args: &[Value]) -> Result<Value> {
    Ok(Value::Nil)
}

/// `(always &rest ARGS)`: t.
pub(super) fn always(_ctx: &mut PrimCtx<'_>, _args: &[Value]) -> Result<Value> {
    Ok(Value::T)
}

/// `(string-trim-left STRING &optional REGEXP)`: `string-trim` on the left only.
pub(super) fn string_trim_left(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let trim = [
        arg(args, 0).clone(),
        arg(args, 1).clone(),
        Value::string(""),
    ];
    super::string::string_trim(ctx, &trim)
}

/// `(string-trim-right STRING &optional REGEXP)`: `string-trim` on the right only.
pub(super) fn string_trim_right(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let trim = [
        arg(args, 0).clone(),
        Value::string(""),
        arg(args, 1).clone(),
    ];
    super::string::string_trim(ctx, &trim)
}

/// `(string-width STRING)`: columns, as [`crate::display_width`] measures them.
pub(super) fn string_width(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let text = super::string::string_arg(ctx, arg(args, 0))?;
    ctx.charge(super::string::text_units(text.len()));
    let width = crate::display_width::string_width(text);
    Ok(Value::Int(i64::try_from(width).unwrap_or(i64::MAX)))
}

/// `(prin1-to-string OBJECT &optional NOESCAPE)`: OBJECT printed as `prin1` (as `princ`
/// when NOESCAPE is non-nil).
pub(super) fn prin1_to_string(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let style = if arg(args, 1).is_true() {
        Style::Princ
    } else {
        Style::Prin1
    };
    let text = print::to_string(arg(args, 0), style, &*ctx.symbols);
    Ok(super::string::new_string(ctx, text))
}

/// Columns are clamped to ±2^40, so no arithmetic on them can overflow (any text is
/// narrower, and padding that wide fails the value budget).
const COLUMN_CAP: i64 = 1 << 40;

/// `(truncate-string-to-width STR END-COLUMN &optional START-COLUMN PADDING ELLIPSIS)`:
/// Emacs 28's algorithm (international/mule-util.el) over display columns: the part of STR
/// from START-COLUMN up to END-COLUMN, a wide character that would cross either edge left
/// out (and made up with PADDING when given), and ELLIPSIS (a string, or t for `…`) put in
/// place of the tail when STR is wider than END-COLUMN.
pub(super) fn truncate_string_to_width(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    use crate::display_width::{char_width, string_width};
    let text = super::string::string_arg(ctx, arg(args, 0))?.to_owned();
    let column_arg = |ctx: &PrimCtx<'_>, value: &Value, default: i64| match value {
        Value::Nil => Ok(default),
        Value::Int(n) => Ok((*n).clamp(-COLUMN_CAP, COLUMN_CAP)),
        other => Err(wrong_type("integerp", other, &*ctx.symbols)),
    };
    let mut end_column = column_arg(ctx, arg(args, 1), 0)?;
    let start_column = column_arg(ctx, arg(args, 2), 0)?;
    let padding = match arg(args, 3) {
        Value::Nil => None,
        Value::Int(c) => u32::try_from(*c).ok().and_then(char::from_u32),
        other => return Err(wrong_type("characterp", other, &*ctx.symbols)),
    };
    let mut ellipsis = match arg(args, 4) {
        Value::Nil => String::new(),
        Value::Str(s) => s.as_str().to_owned(),
        _ => "\u{2026}".to_owned(),
    };
    ctx.charge(super::string::text_units(text.len()).saturating_mul(2));
    // Every width is bounded by the text's length (two columns per character at most), and
    // padding by END-COLUMN, which the value budget bounds before anything is built.
    let too_wide =
        u64::try_from(end_column.max(start_column)).unwrap_or(0) > ctx.limits.value_bytes;
    if too_wide && padding.is_some() {
        return Err(crate::error::Error::new(
            crate::error::ErrorKind::Value,
            format!(
                "truncate-string-to-width: END-COLUMN passes the value budget of {} bytes",
                ctx.limits.value_bytes
            ),
        ));
    }
    let chars: Vec<char> = text.chars().collect();
    let width = |c: char| i64::try_from(char_width(c)).unwrap_or(2);
    let str_width = i64::try_from(string_width(&text)).unwrap_or(i64::MAX);
    let ellipsis_width = i64::try_from(string_width(&ellipsis)).unwrap_or(0);
    let (mut idx, mut column) = (0usize, 0i64);
    while column < start_column && idx < chars.len() {
        column += chars.get(idx).copied().map_or(0, width);
        idx += 1;
    }
    let pad = |n: i64| -> String {
        padding.map_or_else(String::new, |p| {
            std::iter::repeat_n(p, usize::try_from(n).unwrap_or(0)).collect()
        })
    };
    if column < start_column {
        return Ok(super::string::new_string(ctx, pad(end_column)));
    }
    let head = if column > start_column {
        pad(column - start_column)
    } else {
        String::new()
    };
    let from = idx;
    let mut tail = String::new();
    if end_column >= column {
        if end_column < str_width && str_width > ellipsis_width {
            end_column -= ellipsis_width;
        } else {
            ellipsis.clear();
        }
        let (mut last_column, mut last_idx) = (column, idx);
        while column < end_column && idx < chars.len() {
            last_column = column;
            last_idx = idx;
            column += chars.get(idx).copied().map_or(0, width);
            idx += 1;
        }
        if column > end_column {
            column = last_column;
            idx = last_idx;
        }
        if column < end_column {
            tail = pad(end_column - column);
        }
    }
    let middle: String = chars.get(from..idx).unwrap_or_default().iter().collect();
    Ok(super::string::new_string(
        ctx,
        format!("{head}{middle}{tail}{ellipsis}"),
    ))
}
