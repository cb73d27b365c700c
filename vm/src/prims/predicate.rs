//! Type predicates, `eq`/`eql`/`equal`, and `identity`.

use super::PrimCtx;
use crate::error::{Error, Result};
use crate::value::Value;

/// `(eq OBJ1 OBJ2)`
pub(super) fn eq(_ctx: &mut PrimCtx<'_>, _args: &[Value]) -> Result<Value> {
    Err(Error::script("eq: not implemented yet"))
}

/// `(eql OBJ1 OBJ2)`
pub(super) fn eql(_ctx: &mut PrimCtx<'_>, _args: &[Value]) -> Result<Value> {
    Err(Error::script("eql: not implemented yet"))
}

/// `(equal OBJ1 OBJ2)`
pub(super) fn equal(_ctx: &mut PrimCtx<'_>, _args: &[Value]) -> Result<Value> {
    Err(Error::script("equal: not implemented yet"))
}

/// `(null OBJECT)`
pub(super) fn null(_ctx: &mut PrimCtx<'_>, _args: &[Value]) -> Result<Value> {
    Err(Error::script("null: not implemented yet"))
}

/// `(not OBJECT)`
pub(super) fn not(_ctx: &mut PrimCtx<'_>, _args: &[Value]) -> Result<Value> {
    Err(Error::script("not: not implemented yet"))
}

/// `(atom OBJECT)`
pub(super) fn atom(_ctx: &mut PrimCtx<'_>, _args: &[Value]) -> Result<Value> {
    Err(Error::script("atom: not implemented yet"))
}

/// `(consp OBJECT)`
pub(super) fn consp(_ctx: &mut PrimCtx<'_>, _args: &[Value]) -> Result<Value> {
    Err(Error::script("consp: not implemented yet"))
}

/// `(listp OBJECT)`
pub(super) fn listp(_ctx: &mut PrimCtx<'_>, _args: &[Value]) -> Result<Value> {
    Err(Error::script("listp: not implemented yet"))
}

/// `(stringp OBJECT)`
pub(super) fn stringp(_ctx: &mut PrimCtx<'_>, _args: &[Value]) -> Result<Value> {
    Err(Error::script("stringp: not implemented yet"))
}

/// `(numberp OBJECT)`
pub(super) fn numberp(_ctx: &mut PrimCtx<'_>, _args: &[Value]) -> Result<Value> {
    Err(Error::script("numberp: not implemented yet"))
}

/// `(integerp OBJECT)`
pub(super) fn integerp(_ctx: &mut PrimCtx<'_>, _args: &[Value]) -> Result<Value> {
    Err(Error::script("integerp: not implemented yet"))
}

/// `(floatp OBJECT)`
pub(super) fn floatp(_ctx: &mut PrimCtx<'_>, _args: &[Value]) -> Result<Value> {
    Err(Error::script("floatp: not implemented yet"))
}

/// `(symbolp OBJECT)`
pub(super) fn symbolp(_ctx: &mut PrimCtx<'_>, _args: &[Value]) -> Result<Value> {
    Err(Error::script("symbolp: not implemented yet"))
}

/// `(sequencep OBJECT)`
pub(super) fn sequencep(_ctx: &mut PrimCtx<'_>, _args: &[Value]) -> Result<Value> {
    Err(Error::script("sequencep: not implemented yet"))
}

/// `(identity ARG)`
pub(super) fn identity(_ctx: &mut PrimCtx<'_>, _args: &[Value]) -> Result<Value> {
    Err(Error::script("identity: not implemented yet"))
}
