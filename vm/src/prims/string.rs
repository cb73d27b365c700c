//! String primitives: concatenation, slicing, splitting, trimming, matching, case, number conversion, `gensym`.

use super::PrimCtx;
use crate::error::{Error, Result};
use crate::value::Value;

/// `(concat &rest SEQUENCES)`
pub(super) fn concat(_ctx: &mut PrimCtx<'_>, _args: &[Value]) -> Result<Value> {
    Err(Error::script("concat: not implemented yet"))
}

/// `(substring STRING &optional FROM TO)`
pub(super) fn substring(_ctx: &mut PrimCtx<'_>, _args: &[Value]) -> Result<Value> {
    Err(Error::script("substring: not implemented yet"))
}

/// `(split-string STRING &optional SEPARATORS OMIT-NULLS TRIM)`
pub(super) fn split_string(_ctx: &mut PrimCtx<'_>, _args: &[Value]) -> Result<Value> {
    Err(Error::script("split-string: not implemented yet"))
}

/// `(string-join STRINGS &optional SEPARATOR)`
pub(super) fn string_join(_ctx: &mut PrimCtx<'_>, _args: &[Value]) -> Result<Value> {
    Err(Error::script("string-join: not implemented yet"))
}

/// `(string-trim STRING &optional TRIM-LEFT TRIM-RIGHT)`
pub(super) fn string_trim(_ctx: &mut PrimCtx<'_>, _args: &[Value]) -> Result<Value> {
    Err(Error::script("string-trim: not implemented yet"))
}

/// `(string-prefix-p PREFIX STRING &optional IGNORE-CASE)`
pub(super) fn string_prefix_p(_ctx: &mut PrimCtx<'_>, _args: &[Value]) -> Result<Value> {
    Err(Error::script("string-prefix-p: not implemented yet"))
}

/// `(string-suffix-p SUFFIX STRING &optional IGNORE-CASE)`
pub(super) fn string_suffix_p(_ctx: &mut PrimCtx<'_>, _args: &[Value]) -> Result<Value> {
    Err(Error::script("string-suffix-p: not implemented yet"))
}

/// `(string-match-p REGEXP STRING &optional START)`
pub(super) fn string_match_p(_ctx: &mut PrimCtx<'_>, _args: &[Value]) -> Result<Value> {
    Err(Error::script("string-match-p: not implemented yet"))
}

/// `(string-search NEEDLE HAYSTACK &optional START-POS)`
pub(super) fn string_search(_ctx: &mut PrimCtx<'_>, _args: &[Value]) -> Result<Value> {
    Err(Error::script("string-search: not implemented yet"))
}

/// `(regexp-quote STRING)`
pub(super) fn regexp_quote(_ctx: &mut PrimCtx<'_>, _args: &[Value]) -> Result<Value> {
    Err(Error::script("regexp-quote: not implemented yet"))
}

/// `(upcase OBJ)`
pub(super) fn upcase(_ctx: &mut PrimCtx<'_>, _args: &[Value]) -> Result<Value> {
    Err(Error::script("upcase: not implemented yet"))
}

/// `(downcase OBJ)`
pub(super) fn downcase(_ctx: &mut PrimCtx<'_>, _args: &[Value]) -> Result<Value> {
    Err(Error::script("downcase: not implemented yet"))
}

/// `(capitalize OBJ)`
pub(super) fn capitalize(_ctx: &mut PrimCtx<'_>, _args: &[Value]) -> Result<Value> {
    Err(Error::script("capitalize: not implemented yet"))
}

/// `(number-to-string NUMBER)`
pub(super) fn number_to_string(_ctx: &mut PrimCtx<'_>, _args: &[Value]) -> Result<Value> {
    Err(Error::script("number-to-string: not implemented yet"))
}

/// `(string-to-number STRING &optional BASE)`
pub(super) fn string_to_number(_ctx: &mut PrimCtx<'_>, _args: &[Value]) -> Result<Value> {
    Err(Error::script("string-to-number: not implemented yet"))
}

/// `(gensym &optional PREFIX)`
pub(super) fn gensym(_ctx: &mut PrimCtx<'_>, _args: &[Value]) -> Result<Value> {
    Err(Error::script("gensym: not implemented yet"))
}
