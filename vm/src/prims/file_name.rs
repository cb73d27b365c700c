//! The purely syntactic `file-name-*` helpers: they never touch a file system.

use super::PrimCtx;
use crate::error::{Error, Result};
use crate::value::Value;

/// `(file-name-nondirectory FILENAME)`
pub(super) fn nondirectory(_ctx: &mut PrimCtx<'_>, _args: &[Value]) -> Result<Value> {
    Err(Error::script("file-name-nondirectory: not implemented yet"))
}

/// `(file-name-directory FILENAME)`
pub(super) fn directory(_ctx: &mut PrimCtx<'_>, _args: &[Value]) -> Result<Value> {
    Err(Error::script("file-name-directory: not implemented yet"))
}

/// `(file-name-concat DIRECTORY &rest COMPONENTS)`
pub(super) fn concat(_ctx: &mut PrimCtx<'_>, _args: &[Value]) -> Result<Value> {
    Err(Error::script("file-name-concat: not implemented yet"))
}

/// `(file-name-extension FILENAME &optional PERIOD)`
pub(super) fn extension(_ctx: &mut PrimCtx<'_>, _args: &[Value]) -> Result<Value> {
    Err(Error::script("file-name-extension: not implemented yet"))
}

/// `(file-name-sans-extension FILENAME)`
pub(super) fn sans_extension(_ctx: &mut PrimCtx<'_>, _args: &[Value]) -> Result<Value> {
    Err(Error::script(
        "file-name-sans-extension: not implemented yet",
    ))
}

/// `(file-name-base &optional FILENAME)`
pub(super) fn base(_ctx: &mut PrimCtx<'_>, _args: &[Value]) -> Result<Value> {
    Err(Error::script("file-name-base: not implemented yet"))
}
