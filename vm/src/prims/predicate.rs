//! Type predicates, `eq`/`eql`/`equal`, and `identity`.
//!
//! `nil` and `t` are symbols (and `nil` is also a list); keywords are symbols; closures are
//! atoms but not sequences. Equality semantics are documented in [`crate::equal`]. Every
//! predicate is O(1) except `equal`, which charges one unit per pair of values it visits.

use super::PrimCtx;
use crate::equal;
use crate::error::Result;
use crate::value::Value;

/// The single argument of a one-argument primitive (arity is checked by the machine).
fn only(args: &[Value]) -> &Value {
    args.first().unwrap_or(&Value::Nil)
}

/// The two arguments of a two-argument primitive.
fn pair(args: &[Value]) -> (&Value, &Value) {
    match args {
        [a, b, ..] => (a, b),
        [a] => (a, &Value::Nil),
        [] => (&Value::Nil, &Value::Nil),
    }
}

/// `(eq OBJ1 OBJ2)`
pub(super) fn eq(_ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let (a, b) = pair(args);
    Ok(Value::bool(equal::eq(a, b)))
}

/// `(eql OBJ1 OBJ2)`
pub(super) fn eql(_ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let (a, b) = pair(args);
    Ok(Value::bool(equal::eql(a, b)))
}

/// `(equal OBJ1 OBJ2)`
pub(super) fn equal(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let (a, b) = pair(args);
    let (same, work) = equal::equal_counting(a, b);
    ctx.charge(work);
    Ok(Value::bool(same))
}

/// `(null OBJECT)`
pub(super) fn null(_ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    Ok(Value::bool(only(args).is_nil()))
}

/// `(not OBJECT)`
pub(super) fn not(_ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    Ok(Value::bool(only(args).is_nil()))
}

/// `(atom OBJECT)`: everything but a cons.
pub(super) fn atom(_ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    Ok(Value::bool(!matches!(only(args), Value::Cons(_))))
}

/// `(consp OBJECT)`
pub(super) fn consp(_ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    Ok(Value::bool(matches!(only(args), Value::Cons(_))))
}

/// `(listp OBJECT)`: nil or a cons.
pub(super) fn listp(_ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    Ok(Value::bool(only(args).is_list()))
}

/// `(stringp OBJECT)`
pub(super) fn stringp(_ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    Ok(Value::bool(matches!(only(args), Value::Str(_))))
}

/// `(numberp OBJECT)`
pub(super) fn numberp(_ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    Ok(Value::bool(matches!(
        only(args),
        Value::Int(_) | Value::Big(_) | Value::Float(_)
    )))
}

/// `(integerp OBJECT)`
pub(super) fn integerp(_ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    Ok(Value::bool(matches!(
        only(args),
        Value::Int(_) | Value::Big(_)
    )))
}

/// `(floatp OBJECT)`
pub(super) fn floatp(_ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    Ok(Value::bool(matches!(only(args), Value::Float(_))))
}

/// `(symbolp OBJECT)`: `nil`, `t`, symbols and keywords.
pub(super) fn symbolp(_ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    Ok(Value::bool(matches!(
        only(args),
        Value::Nil | Value::T | Value::Sym(_)
    )))
}

/// `(sequencep OBJECT)`: lists, strings and vectors.
pub(super) fn sequencep(_ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    Ok(Value::bool(matches!(
        only(args),
        Value::Nil | Value::Cons(_) | Value::Str(_) | Value::Vector(_)
    )))
}

/// `(identity ARG)`
pub(super) fn identity(_ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    Ok(only(args).clone())
}
