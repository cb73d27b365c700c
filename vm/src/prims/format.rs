//! `format`: Emacs-style conversion specs with field numbers, width and precision, bounded by the value budget.

use super::PrimCtx;
use crate::error::{Error, Result};
use crate::value::Value;

/// `(format STRING &rest OBJECTS)`
pub(super) fn format(_ctx: &mut PrimCtx<'_>, _args: &[Value]) -> Result<Value> {
    Err(Error::script("format: not implemented yet"))
}
