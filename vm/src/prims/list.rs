//! List primitives: accessors, construction, search, `sort`.

use super::PrimCtx;
use crate::error::{Error, Result};
use crate::value::Value;

/// `(car LIST)`
pub(super) fn car(_ctx: &mut PrimCtx<'_>, _args: &[Value]) -> Result<Value> {
    Err(Error::script("car: not implemented yet"))
}

/// `(cdr LIST)`
pub(super) fn cdr(_ctx: &mut PrimCtx<'_>, _args: &[Value]) -> Result<Value> {
    Err(Error::script("cdr: not implemented yet"))
}

/// `(caar LIST)`
pub(super) fn caar(_ctx: &mut PrimCtx<'_>, _args: &[Value]) -> Result<Value> {
    Err(Error::script("caar: not implemented yet"))
}

/// `(cadr LIST)`
pub(super) fn cadr(_ctx: &mut PrimCtx<'_>, _args: &[Value]) -> Result<Value> {
    Err(Error::script("cadr: not implemented yet"))
}

/// `(cdar LIST)`
pub(super) fn cdar(_ctx: &mut PrimCtx<'_>, _args: &[Value]) -> Result<Value> {
    Err(Error::script("cdar: not implemented yet"))
}

/// `(cddr LIST)`
pub(super) fn cddr(_ctx: &mut PrimCtx<'_>, _args: &[Value]) -> Result<Value> {
    Err(Error::script("cddr: not implemented yet"))
}

/// `(cons CAR CDR)`
pub(super) fn cons(_ctx: &mut PrimCtx<'_>, _args: &[Value]) -> Result<Value> {
    Err(Error::script("cons: not implemented yet"))
}

/// `(list &rest OBJECTS)`
pub(super) fn list(_ctx: &mut PrimCtx<'_>, _args: &[Value]) -> Result<Value> {
    Err(Error::script("list: not implemented yet"))
}

/// `(append &rest SEQUENCES)`
pub(super) fn append(_ctx: &mut PrimCtx<'_>, _args: &[Value]) -> Result<Value> {
    Err(Error::script("append: not implemented yet"))
}

/// `(length SEQUENCE)`
pub(super) fn length(_ctx: &mut PrimCtx<'_>, _args: &[Value]) -> Result<Value> {
    Err(Error::script("length: not implemented yet"))
}

/// `(nth N LIST)`
pub(super) fn nth(_ctx: &mut PrimCtx<'_>, _args: &[Value]) -> Result<Value> {
    Err(Error::script("nth: not implemented yet"))
}

/// `(nthcdr N LIST)`
pub(super) fn nthcdr(_ctx: &mut PrimCtx<'_>, _args: &[Value]) -> Result<Value> {
    Err(Error::script("nthcdr: not implemented yet"))
}

/// `(last LIST &optional N)`
pub(super) fn last(_ctx: &mut PrimCtx<'_>, _args: &[Value]) -> Result<Value> {
    Err(Error::script("last: not implemented yet"))
}

/// `(take N LIST)`
pub(super) fn take(_ctx: &mut PrimCtx<'_>, _args: &[Value]) -> Result<Value> {
    Err(Error::script("take: not implemented yet"))
}

/// `(reverse SEQUENCE)`
pub(super) fn reverse(_ctx: &mut PrimCtx<'_>, _args: &[Value]) -> Result<Value> {
    Err(Error::script("reverse: not implemented yet"))
}

/// `(sort LIST)`
pub(super) fn sort(_ctx: &mut PrimCtx<'_>, _args: &[Value]) -> Result<Value> {
    Err(Error::script("sort: not implemented yet"))
}

/// `(member ELT LIST)`
pub(super) fn member(_ctx: &mut PrimCtx<'_>, _args: &[Value]) -> Result<Value> {
    Err(Error::script("member: not implemented yet"))
}

/// `(memq ELT LIST)`
pub(super) fn memq(_ctx: &mut PrimCtx<'_>, _args: &[Value]) -> Result<Value> {
    Err(Error::script("memq: not implemented yet"))
}

/// `(assoc KEY ALIST &optional TESTFN)`
pub(super) fn assoc(_ctx: &mut PrimCtx<'_>, _args: &[Value]) -> Result<Value> {
    Err(Error::script("assoc: not implemented yet"))
}

/// `(assq KEY ALIST)`
pub(super) fn assq(_ctx: &mut PrimCtx<'_>, _args: &[Value]) -> Result<Value> {
    Err(Error::script("assq: not implemented yet"))
}

/// `(plist-get PLIST PROP &optional PREDICATE)`
pub(super) fn plist_get(_ctx: &mut PrimCtx<'_>, _args: &[Value]) -> Result<Value> {
    Err(Error::script("plist-get: not implemented yet"))
}

/// `(plist-member PLIST PROP &optional PREDICATE)`
pub(super) fn plist_member(_ctx: &mut PrimCtx<'_>, _args: &[Value]) -> Result<Value> {
    Err(Error::script("plist-member: not implemented yet"))
}
