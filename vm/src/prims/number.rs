//! Arithmetic and numeric comparison over integers (64-bit fast path, exact big integers bounded by the number-bit budget) and floats.

use super::PrimCtx;
use crate::error::{Error, Result};
use crate::value::Value;

/// `(+ &rest NUMBERS)`
pub(super) fn add(_ctx: &mut PrimCtx<'_>, _args: &[Value]) -> Result<Value> {
    Err(Error::script("+: not implemented yet"))
}

/// `(- &optional NUMBER &rest NUMBERS)`
pub(super) fn sub(_ctx: &mut PrimCtx<'_>, _args: &[Value]) -> Result<Value> {
    Err(Error::script("-: not implemented yet"))
}

/// `(* &rest NUMBERS)`
pub(super) fn mul(_ctx: &mut PrimCtx<'_>, _args: &[Value]) -> Result<Value> {
    Err(Error::script("*: not implemented yet"))
}

/// `(/ NUMBER &rest DIVISORS)`
pub(super) fn div(_ctx: &mut PrimCtx<'_>, _args: &[Value]) -> Result<Value> {
    Err(Error::script("/: not implemented yet"))
}

/// `(% X Y)`
pub(super) fn rem(_ctx: &mut PrimCtx<'_>, _args: &[Value]) -> Result<Value> {
    Err(Error::script("%: not implemented yet"))
}

/// `(mod X Y)`
pub(super) fn modulo(_ctx: &mut PrimCtx<'_>, _args: &[Value]) -> Result<Value> {
    Err(Error::script("mod: not implemented yet"))
}

/// `(abs ARG)`
pub(super) fn abs(_ctx: &mut PrimCtx<'_>, _args: &[Value]) -> Result<Value> {
    Err(Error::script("abs: not implemented yet"))
}

/// `(max NUMBER &rest NUMBERS)`
pub(super) fn max(_ctx: &mut PrimCtx<'_>, _args: &[Value]) -> Result<Value> {
    Err(Error::script("max: not implemented yet"))
}

/// `(min NUMBER &rest NUMBERS)`
pub(super) fn min(_ctx: &mut PrimCtx<'_>, _args: &[Value]) -> Result<Value> {
    Err(Error::script("min: not implemented yet"))
}

/// `(float ARG)`
pub(super) fn float(_ctx: &mut PrimCtx<'_>, _args: &[Value]) -> Result<Value> {
    Err(Error::script("float: not implemented yet"))
}

/// `(truncate ARG &optional DIVISOR)`
pub(super) fn truncate(_ctx: &mut PrimCtx<'_>, _args: &[Value]) -> Result<Value> {
    Err(Error::script("truncate: not implemented yet"))
}

/// `(round ARG &optional DIVISOR)`
pub(super) fn round(_ctx: &mut PrimCtx<'_>, _args: &[Value]) -> Result<Value> {
    Err(Error::script("round: not implemented yet"))
}

/// `(floor ARG &optional DIVISOR)`
pub(super) fn floor(_ctx: &mut PrimCtx<'_>, _args: &[Value]) -> Result<Value> {
    Err(Error::script("floor: not implemented yet"))
}

/// `(ceiling ARG &optional DIVISOR)`
pub(super) fn ceiling(_ctx: &mut PrimCtx<'_>, _args: &[Value]) -> Result<Value> {
    Err(Error::script("ceiling: not implemented yet"))
}

/// `(= NUMBER &rest NUMBERS)`
pub(super) fn num_eq(_ctx: &mut PrimCtx<'_>, _args: &[Value]) -> Result<Value> {
    Err(Error::script("=: not implemented yet"))
}

/// `(/= NUM1 NUM2)`
pub(super) fn num_ne(_ctx: &mut PrimCtx<'_>, _args: &[Value]) -> Result<Value> {
    Err(Error::script("/=: not implemented yet"))
}

/// `(< NUMBER &rest NUMBERS)`
pub(super) fn lt(_ctx: &mut PrimCtx<'_>, _args: &[Value]) -> Result<Value> {
    Err(Error::script("<: not implemented yet"))
}

/// `(> NUMBER &rest NUMBERS)`
pub(super) fn gt(_ctx: &mut PrimCtx<'_>, _args: &[Value]) -> Result<Value> {
    Err(Error::script(">: not implemented yet"))
}

/// `(<= NUMBER &rest NUMBERS)`
pub(super) fn le(_ctx: &mut PrimCtx<'_>, _args: &[Value]) -> Result<Value> {
    Err(Error::script("<=: not implemented yet"))
}

/// `(>= NUMBER &rest NUMBERS)`
pub(super) fn ge(_ctx: &mut PrimCtx<'_>, _args: &[Value]) -> Result<Value> {
    Err(Error::script(">=: not implemented yet"))
}
