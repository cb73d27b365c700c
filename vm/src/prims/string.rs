//! String primitives: concatenation, slicing, splitting, trimming, matching, case, number
//! conversion, `gensym`.
//!
//! Invariants: guest indices are characters, converted to byte offsets only at character
//! boundaries, so no slice can split a UTF-8 sequence; every primitive charges one fuel unit
//! per 32 bytes it scans or produces ([`text_units`]) and reports the bytes of every string
//! and cons it builds; errors carry Emacs's text ("Wrong type argument: stringp, 1",
//! "Args out of range: \"abc\", 0, 5").

use super::PrimCtx;
use super::casing::{
    capitalize_str, downcase_char, downcase_str, title_char, upcase_char, upcase_str,
};
use crate::error::{Error, ErrorKind, Result};
use crate::heap;
use crate::print::{self, Style};
use crate::regexp::{Regex, RegexCache, Wrap};
use crate::value::Value;
use compact_str::CompactString;
use num_bigint::BigInt;
use num_traits::Num;
use smallvec::SmallVec;
use std::sync::Arc;

/// Longest `gensym` prefix, in bytes. Every gensym keeps its name in the run's symbol
/// table, so the name is charged to the retained budget and capped here as well.
pub const MAX_GENSYM_PREFIX: usize = 256;

/// Longest `string-to-number` input, in bytes (spec/reference/budgets.md).
pub const MAX_NUMBER_TEXT: usize = 2048;

/// Emacs's `split-string-default-separators`, passed explicitly as the original does.
const DEFAULT_SEPARATORS: &str = "[ \x0c\t\n\r\x0b]+";

/// The default trim regexp of `string-trim`.
const DEFAULT_TRIM: &str = "[ \t\n\r]+";

/// Fuel units for `bytes` bytes of text: one per 32, rounded up.
pub(super) fn text_units(bytes: usize) -> u64 {
    u64::try_from(bytes.div_ceil(32)).unwrap_or(u64::MAX)
}

/// `value` printed with `prin1`, for error messages.
pub(super) fn prin1(ctx: &PrimCtx<'_>, value: &Value) -> String {
    print::to_string(value, Style::Prin1, &*ctx.symbols)
}

/// Emacs's `(wrong-type-argument PREDICATE VALUE)`.
pub(super) fn wrong_type(ctx: &PrimCtx<'_>, predicate: &str, value: &Value) -> Error {
    Error::script(format!(
        "Wrong type argument: {predicate}, {}",
        prin1(ctx, value)
    ))
}

/// Emacs's `(args-out-of-range ARGS...)`.
pub(super) fn out_of_range(ctx: &PrimCtx<'_>, args: &[&Value]) -> Error {
    let printed: Vec<String> = args.iter().map(|v| prin1(ctx, v)).collect();
    Error::script(format!("Args out of range: {}", printed.join(", ")))
}

/// A fresh string result, charged and allocated.
pub(super) fn new_string(ctx: &mut PrimCtx<'_>, text: impl Into<CompactString>) -> Value {
    let text = text.into();
    ctx.charge(text_units(text.len()));
    ctx.alloc(heap::string(u64::try_from(text.len()).unwrap_or(u64::MAX)));
    Value::string(text)
}

/// [`new_string`] for a text whose character count `chars` the caller knows (from its
/// parts' cached counts), so the text is not scanned again.
pub(super) fn new_counted_string(
    ctx: &mut PrimCtx<'_>,
    text: impl Into<CompactString>,
    chars: usize,
) -> Value {
    let text = text.into();
    ctx.charge(text_units(text.len()));
    ctx.alloc(heap::string(u64::try_from(text.len()).unwrap_or(u64::MAX)));
    Value::counted_string(text, chars)
}

/// The bytes of the strings among `values` (other sequences count 0): the capacity to
/// reserve for their concatenation.
fn string_bytes<'v>(values: impl Iterator<Item = &'v Value>) -> usize {
    values.fold(0, |sum, value| {
        sum.saturating_add(value.as_str().map_or(0, str::len))
    })
}

/// The string argument `value`, or a `stringp` type error.
pub(super) fn string_arg<'v>(ctx: &PrimCtx<'_>, value: &'v Value) -> Result<&'v str> {
    value
        .as_str()
        .ok_or_else(|| wrong_type(ctx, "stringp", value))
}

/// The byte offset of character `index` in `text` (`text.len()` for the end).
pub(super) fn byte_offset(text: &str, index: usize) -> Option<usize> {
    if text.is_ascii() {
        return (index <= text.len()).then_some(index);
    }
    text.char_indices()
        .map(|(offset, _)| offset)
        .chain(std::iter::once(text.len()))
        .nth(index)
}

/// The character index of byte `offset` (a character boundary) in `text`.
pub(super) fn char_index(text: &str, offset: usize) -> usize {
    text.get(..offset)
        .map_or(0, |prefix| prefix.chars().count())
}

/// The character `code` if it is a Unicode scalar value.
pub(super) fn char_of(value: &Value) -> Option<char> {
    match value {
        Value::Int(code) => u32::try_from(*code).ok().and_then(char::from_u32),
        _ => None,
    }
}

/// Appends one `concat` argument: a string, nil, or a list or vector of characters; returns
/// the characters appended (a string's cached count, so no text is rescanned).
fn push_sequence(ctx: &mut PrimCtx<'_>, out: &mut CompactString, value: &Value) -> Result<usize> {
    let chars = match value {
        Value::Str(text) => {
            out.push_str(text.as_str());
            text.char_len()
        }
        Value::Nil => 0,
        Value::Vector(vector) => {
            for item in vector.items() {
                ctx.charge(1);
                out.push(char_of(item).ok_or_else(|| wrong_type(ctx, "characterp", item))?);
            }
            vector.items().len()
        }
        Value::Cons(_) => {
            let mut items = value.iter();
            let mut count = 0;
            for item in items.by_ref() {
                ctx.charge(1);
                out.push(char_of(item).ok_or_else(|| wrong_type(ctx, "characterp", item))?);
                count += 1;
            }
            let tail = items.rest();
            if !tail.is_nil() {
                return Err(wrong_type(ctx, "listp", tail));
            }
            count
        }
        other => return Err(wrong_type(ctx, "sequencep", other)),
    };
    Ok(chars)
}

/// `(concat &rest SEQUENCES)`
pub(super) fn concat(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    // Reserved once: the string arguments' bytes (an append loop copies, not reallocates).
    // Inline in the result when it fits.
    let mut out = CompactString::with_capacity(string_bytes(args.iter()));
    let mut chars: usize = 0;
    for arg in args {
        chars += push_sequence(ctx, &mut out, arg)?;
    }
    Ok(new_counted_string(ctx, out, chars))
}

/// Resolves a `substring`-style index: nil is `default`, negative counts from the end.
pub(super) fn resolve_index(
    ctx: &PrimCtx<'_>,
    value: &Value,
    default: usize,
    len: usize,
) -> Result<Option<usize>> {
    match value {
        Value::Nil => Ok(Some(default)),
        Value::Int(n) => {
            let len = i64::try_from(len).unwrap_or(i64::MAX);
            let index = if *n < 0 { n.saturating_add(len) } else { *n };
            Ok(usize::try_from(index)
                .ok()
                .filter(|&i| i64::try_from(i).is_ok_and(|i| i <= len)))
        }
        other => Err(wrong_type(ctx, "integerp", other)),
    }
}

/// `(substring STRING &optional FROM TO)`
pub(super) fn substring(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let sequence = args.first().unwrap_or(&Value::Nil);
    let from_arg = args.get(1).unwrap_or(&Value::Nil);
    let to_arg = args.get(2).unwrap_or(&Value::Nil);
    let len = match sequence {
        Value::Str(text) => text.char_len(),
        Value::Vector(vector) => vector.items().len(),
        other => return Err(wrong_type(ctx, "arrayp", other)),
    };
    let from = resolve_index(ctx, from_arg, 0, len)?;
    let to = resolve_index(ctx, to_arg, len, len)?;
    let (Some(from), Some(to)) = (from, to) else {
        return Err(out_of_range(ctx, &[sequence, from_arg, to_arg]));
    };
    if from > to {
        return Err(out_of_range(ctx, &[sequence, from_arg, to_arg]));
    }
    match sequence {
        Value::Str(text) => {
            let text = text.as_str();
            let slice = byte_offset(text, from)
                .zip(byte_offset(text, to))
                .and_then(|(start, end)| text.get(start..end))
                .unwrap_or_default();
            ctx.charge(text_units(text.len()));
            Ok(new_string(ctx, slice.to_owned()))
        }
        Value::Vector(vector) => {
            let items = vector.items().get(from..to).unwrap_or_default().to_vec();
            ctx.charge(u64::try_from(items.len()).unwrap_or(u64::MAX));
            ctx.alloc(heap::vector(u64::try_from(items.len()).unwrap_or(u64::MAX)));
            let result = Value::vector(items);
            Ok(result)
        }
        _ => Ok(Value::Nil),
    }
}

/// A compiled regexp for `pattern`, through the run's cache when there is one.
pub(super) fn compile(ctx: &mut PrimCtx<'_>, pattern: &str, wrap: Wrap) -> Result<Arc<Regex>> {
    ctx.charge(text_units(pattern.len()));
    let limits = ctx.limits;
    // A fresh compilation is charged by the compiled automaton's size (its real work).
    let (regex, units) = match ctx.regexps.as_deref_mut() {
        Some(cache) => cache.get_counted(pattern, wrap, limits)?,
        None => RegexCache::new().get_counted(pattern, wrap, limits)?,
    };
    ctx.charge(units);
    Ok(regex)
}

/// The leftmost-first match of `regex` in `text` at or after byte `start`, with the
/// search's fuel charged ([`Regex::find`]: the bytes it really scans).
pub(super) fn find(
    ctx: &mut PrimCtx<'_>,
    regex: &Regex,
    text: &str,
    start: usize,
) -> Result<Option<(usize, usize)>> {
    let searched = regex.find(text, start, ctx.limits)?;
    charge_search(ctx, searched.units)?;
    Ok(searched.found)
}

/// Charges a regexp search's fuel and stops the primitive once its own work alone is past
/// the whole run's `steps` budget: a loop of searches (`split-string`,
/// `replace-regexp-in-string`) can then not run on long after the run has failed, since
/// the machine checks fuel only between instructions.
pub(super) fn charge_search(ctx: &mut PrimCtx<'_>, units: u64) -> Result<()> {
    ctx.charge(units);
    if ctx.work() > ctx.limits.steps {
        return Err(Error::new(
            ErrorKind::Step,
            format!(
                "Script exceeded its step budget of {} after {} steps; narrow the script",
                ctx.limits.steps,
                ctx.work()
            ),
        ));
    }
    Ok(())
}

/// An optional regexp argument: nil gives `None`, a string is compiled, anything else is a
/// `stringp` error.
fn regexp_arg(
    ctx: &mut PrimCtx<'_>,
    value: Option<&Value>,
    wrap: Wrap,
) -> Result<Option<Arc<Regex>>> {
    match value {
        None | Some(Value::Nil) => Ok(None),
        Some(value) => {
            let pattern = string_arg(ctx, value)?;
            Ok(Some(compile(ctx, pattern, wrap)?))
        }
    }
}

/// Where the last successful Emacs `string-match` inside `split-string` began: its
/// `(match-beginning 0)`, which `split-string` consults after its trim matches clobber it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum MatchBegin {
    /// A byte offset in the whole string.
    Whole(usize),
    /// A character index in a trimmed piece (the end-trim match runs on the piece).
    Piece(usize),
}

/// `(split-string STRING &optional SEPARATORS OMIT-NULLS TRIM)`, following Emacs's
/// `split-string` step by step, match-data side effects included.
pub(super) fn split_string(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let string_value = args.first().unwrap_or(&Value::Nil);
    let text = string_arg(ctx, string_value)?;
    let separators = args.get(1).filter(|v| !v.is_nil());
    let separator = match regexp_arg(ctx, separators, Wrap::Plain)? {
        Some(regex) => regex,
        None => compile(ctx, DEFAULT_SEPARATORS, Wrap::Plain)?,
    };
    let trim = regexp_arg(ctx, args.get(3), Wrap::Plain)?;
    let trim_end = match args.get(3).and_then(Value::as_str) {
        Some(pattern) => Some(compile(ctx, pattern, Wrap::EndConcatenated)?),
        None => None,
    };
    if separator.matches_empty() {
        return Err(Error::new(
            ErrorKind::AtomicWork,
            "'split-string': an empty separator is forbidden",
        ));
    }
    // The original always passes a separator, so Emacs never forces OMIT-NULLS.
    let keep_nulls = args.get(2).is_none_or(Value::is_nil);
    // Copying the pieces; every search is charged what it scans.
    ctx.charge(text_units(text.len()));

    let mut splitter = Splitter {
        text,
        trim: trim.as_deref(),
        trim_end: trim_end.as_deref(),
        trim_cache: None,
        last_begin: None,
        keep_nulls,
        pieces: Vec::new(),
    };
    let len = text.len();
    let mut start = 0usize;
    let mut start_char = 0usize;
    let mut not_first = false;
    loop {
        let repeated = match splitter.last_begin {
            Some(MatchBegin::Whole(begin)) => begin == start,
            Some(MatchBegin::Piece(begin)) => begin == start_char,
            None => false,
        };
        let from = if not_first && repeated && start < len {
            start
                + text
                    .get(start..)
                    .and_then(|r| r.chars().next())
                    .map_or(1, char::len_utf8)
        } else {
            start
        };
        let Some((begin, end)) = find(ctx, &separator, text, from)? else {
            break;
        };
        splitter.last_begin = Some(MatchBegin::Whole(begin));
        if start >= len || end <= start {
            break;
        }
        not_first = true;
        let this_start = start;
        start_char += text.get(start..end).map_or(0, |s| s.chars().count());
        start = end;
        splitter.push_one(ctx, this_start, begin)?;
    }
    splitter.push_one(ctx, start, len)?;
    let pieces = splitter.pieces;
    ctx.alloc(heap::conses(
        u64::try_from(pieces.len()).unwrap_or(u64::MAX),
    ));
    Ok(Value::list(pieces))
}

/// The state of one `split-string` run.
struct Splitter<'t> {
    text: &'t str,
    trim: Option<&'t Regex>,
    trim_end: Option<&'t Regex>,
    /// The last unanchored trim search: searching from `.0` found `.1`. The same answer
    /// holds for any later start up to the match's beginning, which keeps the searches
    /// linear overall.
    trim_cache: Option<(usize, Option<(usize, usize)>)>,
    last_begin: Option<MatchBegin>,
    keep_nulls: bool,
    pieces: Vec<Value>,
}

impl Splitter<'_> {
    fn trim_search(
        &mut self,
        ctx: &mut PrimCtx<'_>,
        trim: &Regex,
        from: usize,
    ) -> Result<Option<(usize, usize)>> {
        if let Some((searched, found)) = self.trim_cache
            && searched <= from
            && found.is_none_or(|(begin, _)| from <= begin)
        {
            return Ok(found);
        }
        let found = find(ctx, trim, self.text, from)?;
        self.trim_cache = Some((from, found));
        Ok(found)
    }

    fn push_one(
        &mut self,
        ctx: &mut PrimCtx<'_>,
        mut this_start: usize,
        this_end: usize,
    ) -> Result<()> {
        if let Some(trim) = self.trim
            && let Some((begin, end)) = self.trim_search(ctx, trim, this_start)?
        {
            self.last_begin = Some(MatchBegin::Whole(begin));
            if begin == this_start {
                this_start = end;
            }
        }
        if !(self.keep_nulls || this_start < this_end) {
            return Ok(());
        }
        let Some(mut piece) = self.text.get(this_start..this_end) else {
            // Emacs signals from `substring` when the trim ran past the separator.
            let string = Value::string(self.text);
            let from =
                Value::Int(i64::try_from(char_index(self.text, this_start)).unwrap_or(i64::MAX));
            let to = Value::Int(i64::try_from(char_index(self.text, this_end)).unwrap_or(i64::MAX));
            return Err(out_of_range(ctx, &[&string, &from, &to]));
        };
        if let Some(trim_end) = self.trim_end
            && let Some((begin, _)) = find(ctx, trim_end, piece, 0)?
        {
            self.last_begin = Some(MatchBegin::Piece(char_index(piece, begin)));
            if begin < piece.len() {
                piece = piece.get(..begin).unwrap_or(piece);
            }
        }
        if self.keep_nulls || !piece.is_empty() {
            // The list of N pieces is 2N + 1 nodes: checked as it is counted, before the
            // next piece is made.
            let pieces = u64::try_from(self.pieces.len()).unwrap_or(u64::MAX);
            if pieces.saturating_add(1).saturating_mul(2).saturating_add(1) > ctx.limits.value_nodes
            {
                return Err(Error::new(
                    ErrorKind::Value,
                    format!(
                        "'split-string': more than {pieces} pieces would exceed the guest node budget of {}",
                        ctx.limits.value_nodes
                    ),
                ));
            }
            ctx.alloc(heap::string(u64::try_from(piece.len()).unwrap_or(u64::MAX)));
            self.pieces.push(Value::string(piece));
        }
        Ok(())
    }
}

/// `(string-join STRINGS &optional SEPARATOR)`
pub(super) fn string_join(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let strings = args.first().unwrap_or(&Value::Nil);
    let items: SmallVec<[&Value; 16]> = match strings {
        Value::Vector(vector) => vector.items().iter().collect(),
        Value::Nil | Value::Cons(_) => {
            let mut iter = strings.iter();
            let items: SmallVec<[&Value; 16]> = iter.by_ref().collect();
            if !iter.rest().is_nil() {
                return Err(wrong_type(ctx, "listp", iter.rest()));
            }
            items
        }
        other => return Err(wrong_type(ctx, "sequencep", other)),
    };
    // A string separator is used as it is; any other sequence is converted once.
    let mut converted = CompactString::default();
    let (separator, separator_chars) = match args.get(1) {
        Some(Value::Str(text)) => (text.as_str(), text.char_len()),
        Some(value) => {
            let chars = push_sequence(ctx, &mut converted, value)?;
            (converted.as_str(), chars)
        }
        None => ("", 0),
    };
    let separators = separator
        .len()
        .saturating_mul(items.len().saturating_sub(1));
    let mut out = CompactString::with_capacity(
        string_bytes(items.iter().copied()).saturating_add(separators),
    );
    let mut chars: usize = 0;
    for (index, item) in items.into_iter().enumerate() {
        if index > 0 {
            out.push_str(separator);
            chars += separator_chars;
        }
        chars += push_sequence(ctx, &mut out, item)?;
    }
    Ok(new_counted_string(ctx, out, chars))
}

/// `(string-trim STRING &optional TRIM-LEFT TRIM-RIGHT)`: Emacs's
/// `(string-trim-left (string-trim-right STRING TRIM-RIGHT) TRIM-LEFT)`.
pub(super) fn string_trim(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let text = string_arg(ctx, args.first().unwrap_or(&Value::Nil))?;
    let left = match regexp_arg(ctx, args.get(1), Wrap::Start)? {
        Some(regex) => regex,
        None => compile(ctx, DEFAULT_TRIM, Wrap::Start)?,
    };
    let right = match regexp_arg(ctx, args.get(2), Wrap::End)? {
        Some(regex) => regex,
        None => compile(ctx, DEFAULT_TRIM, Wrap::End)?,
    };
    let mut trimmed = text;
    if let Some((begin, _)) = find(ctx, &right, trimmed, 0)? {
        trimmed = trimmed.get(..begin).unwrap_or(trimmed);
    }
    if let Some((_, end)) = find(ctx, &left, trimmed, 0)? {
        trimmed = trimmed.get(end..).unwrap_or(trimmed);
    }
    Ok(new_string(ctx, trimmed.to_owned()))
}

/// Whether `prefix` is a prefix of `text` (compared with `compare-strings`).
fn starts_with(prefix: &str, text: &str, ignore_case: bool) -> bool {
    if !ignore_case {
        return text.starts_with(prefix);
    }
    let mut chars = text.chars();
    prefix.chars().all(|p| {
        chars
            .next()
            .is_some_and(|t| upcase_char(p) == upcase_char(t))
    })
}

/// `(string-prefix-p PREFIX STRING &optional IGNORE-CASE)`
pub(super) fn string_prefix_p(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let prefix = string_arg(ctx, args.first().unwrap_or(&Value::Nil))?;
    let text = string_arg(ctx, args.get(1).unwrap_or(&Value::Nil))?;
    let ignore_case = args.get(2).is_some_and(Value::is_true);
    ctx.charge(text_units(prefix.len()));
    Ok(Value::bool(starts_with(prefix, text, ignore_case)))
}

/// `(string-suffix-p SUFFIX STRING &optional IGNORE-CASE)`
pub(super) fn string_suffix_p(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let suffix = string_arg(ctx, args.first().unwrap_or(&Value::Nil))?;
    let text = string_arg(ctx, args.get(1).unwrap_or(&Value::Nil))?;
    let ignore_case = args.get(2).is_some_and(Value::is_true);
    ctx.charge(text_units(suffix.len()));
    if !ignore_case {
        return Ok(Value::bool(text.ends_with(suffix)));
    }
    let suffix_chars = suffix.chars().count();
    let text_chars = text.chars().count();
    let Some(skip) = text_chars.checked_sub(suffix_chars) else {
        return Ok(Value::Nil);
    };
    let tail = byte_offset(text, skip)
        .and_then(|b| text.get(b..))
        .unwrap_or("");
    Ok(Value::bool(starts_with(suffix, tail, true)))
}

/// `(string-match-p REGEXP STRING &optional START)`
pub(super) fn string_match_p(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let pattern_value = args.first().unwrap_or(&Value::Nil);
    let string_value = args.get(1).unwrap_or(&Value::Nil);
    let pattern = string_arg(ctx, pattern_value)?;
    let text = string_arg(ctx, string_value)?;
    let regex = compile(ctx, pattern, Wrap::Plain)?;
    let start_value = args.get(2).unwrap_or(&Value::Nil);
    let len = text.chars().count();
    let Some(start) = resolve_index(ctx, start_value, 0, len)? else {
        return Err(out_of_range(ctx, &[string_value, start_value]));
    };
    let start_byte = byte_offset(text, start).unwrap_or(text.len());
    Ok(match find(ctx, &regex, text, start_byte)? {
        Some((begin, _)) => Value::Int(i64::try_from(char_index(text, begin)).unwrap_or(i64::MAX)),
        None => Value::Nil,
    })
}

/// `(string-search NEEDLE HAYSTACK &optional START-POS)`: literal and case-sensitive.
pub(super) fn string_search(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let needle = string_arg(ctx, args.first().unwrap_or(&Value::Nil))?;
    let haystack = string_arg(ctx, args.get(1).unwrap_or(&Value::Nil))?;
    let start_value = args.get(2).unwrap_or(&Value::Nil);
    let start = match start_value {
        Value::Nil => 0,
        Value::Int(n) => {
            let start = usize::try_from(*n)
                .ok()
                .filter(|&s| s <= haystack.chars().count());
            start.ok_or_else(|| out_of_range(ctx, &[start_value]))?
        }
        other => return Err(wrong_type(ctx, "fixnump", other)),
    };
    let start_byte = byte_offset(haystack, start).unwrap_or(haystack.len());
    ctx.charge(text_units(haystack.len().saturating_sub(start_byte)));
    let rest = haystack.get(start_byte..).unwrap_or("");
    Ok(match rest.find(needle) {
        Some(offset) => {
            let index = char_index(haystack, start_byte.saturating_add(offset));
            Value::Int(i64::try_from(index).unwrap_or(i64::MAX))
        }
        None => Value::Nil,
    })
}

/// `(regexp-quote STRING)`: backslashes before `[ * . \ ? + ^ $`, as Emacs.
pub(super) fn regexp_quote(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let text = string_arg(ctx, args.first().unwrap_or(&Value::Nil))?;
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '[' | '*' | '.' | '\\' | '?' | '+' | '^' | '$') {
            out.push('\\');
        }
        out.push(c);
    }
    Ok(new_string(ctx, out))
}

/// The shared body of the case primitives: strings map as a whole, characters singly.
fn change_case(
    ctx: &mut PrimCtx<'_>,
    args: &[Value],
    on_string: fn(&str) -> CompactString,
    on_char: fn(char) -> char,
) -> Result<Value> {
    let value = args.first().unwrap_or(&Value::Nil);
    match value {
        Value::Str(text) => {
            ctx.charge(text_units(text.as_str().len()));
            let changed = on_string(text.as_str());
            if text.is_ascii() && changed.len() == text.as_str().len() {
                // The case maps keep ASCII ASCII, so the count is the length.
                let chars = changed.len();
                return Ok(new_counted_string(ctx, changed, chars));
            }
            Ok(new_string(ctx, changed))
        }
        Value::Int(code) if *code >= 0 => Ok(match char_of(value) {
            Some(c) => Value::Int(i64::from(u32::from(on_char(c)))),
            None => Value::Int(*code),
        }),
        other => Err(wrong_type(ctx, "char-or-string-p", other)),
    }
}

/// `(upcase OBJ)`
pub(super) fn upcase(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    change_case(ctx, args, upcase_str, upcase_char)
}

/// `(downcase OBJ)`
pub(super) fn downcase(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    change_case(ctx, args, downcase_str, downcase_char)
}

/// `(capitalize OBJ)`
pub(super) fn capitalize(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    change_case(ctx, args, capitalize_str, title_char)
}

/// `(number-to-string NUMBER)`
pub(super) fn number_to_string(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let text = match args.first().unwrap_or(&Value::Nil) {
        Value::Int(n) => n.to_string(),
        Value::Big(n) => n.to_string(),
        Value::Float(f) => print::float_to_string(*f),
        other => return Err(wrong_type(ctx, "numberp", other)),
    };
    Ok(new_string(ctx, text))
}

/// `(string-to-number STRING &optional BASE)`: Emacs's parse — leading spaces and tabs, a
/// sign, digits of BASE; in base 10 also float syntax; trailing text ignored; 0 when
/// nothing parses.
pub(super) fn string_to_number(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let text = string_arg(ctx, args.first().unwrap_or(&Value::Nil))?;
    let base = match args.get(1).unwrap_or(&Value::Nil) {
        Value::Nil => 10,
        Value::Int(b) if (2..=16).contains(b) => u32::try_from(*b).unwrap_or(10),
        value @ (Value::Int(_) | Value::Big(_)) => return Err(out_of_range(ctx, &[value])),
        other => return Err(wrong_type(ctx, "fixnump", other)),
    };
    if text.len() > MAX_NUMBER_TEXT {
        return Err(Error::new(
            ErrorKind::AtomicWork,
            "'string-to-number': input exceeds its atomic work budget",
        ));
    }
    ctx.charge(text_units(text.len()));
    let value = parse_number(text.trim_start_matches([' ', '\t']), base);
    if let Value::Big(n) = &value
        && n.bits() > ctx.limits.number_bits.saturating_sub(1)
    {
        return Err(Error::new(
            ErrorKind::Value,
            format!(
                "Guest integer exceeds its {} bit budget",
                ctx.limits.number_bits
            ),
        ));
    }
    ctx.alloc(heap::of(&value));
    Ok(value)
}

/// Emacs's `string_to_number` with trailing text ignored.
fn parse_number(text: &str, base: u32) -> Value {
    let bytes = text.as_bytes();
    let (negative, mut index) = match bytes.first() {
        Some(b'-') => (true, 1),
        Some(b'+') => (false, 1),
        _ => (false, 0),
    };
    let digits_from = |index: usize, base: u32| -> usize {
        bytes
            .get(index..)
            .unwrap_or_default()
            .iter()
            .take_while(|b| char::from(**b).is_digit(base))
            .count()
    };
    let lead_start = index;
    let lead = digits_from(index, base);
    index += lead;
    let lead_text = text.get(lead_start..index).unwrap_or("");
    if base == 10 {
        let mut trail_text = "";
        let mut after = index;
        if bytes.get(after) == Some(&b'.') {
            after += 1;
        }
        let trail = digits_from(after, 10);
        if trail > 0 {
            trail_text = text.get(after..after + trail).unwrap_or("");
            after += trail;
        }
        let mut exponent: Option<Result<String, f64>> = None;
        if matches!(bytes.get(after), Some(b'e' | b'E')) {
            let mut e = after + 1;
            let sign = match bytes.get(e) {
                Some(b'-') => {
                    e += 1;
                    "-"
                }
                Some(b'+') => {
                    e += 1;
                    "+"
                }
                _ => "",
            };
            let exponent_digits = digits_from(e, 10);
            if exponent_digits > 0 {
                exponent = Some(Ok(format!(
                    "{sign}{}",
                    text.get(e..e + exponent_digits).unwrap_or("0")
                )));
            } else if sign == "+" && text.get(e..).is_some_and(|r| r.starts_with("INF")) {
                exponent = Some(Err(f64::INFINITY));
            } else if sign == "+" && text.get(e..).is_some_and(|r| r.starts_with("NaN")) {
                exponent = Some(Err(f64::NAN));
            }
        }
        let float_syntax = trail > 0 || (lead > 0 && exponent.is_some());
        if float_syntax {
            let magnitude = match exponent {
                Some(Err(special)) => special,
                other => {
                    let exponent = other.and_then(Result::ok).unwrap_or_else(|| "0".into());
                    let lead_text = if lead_text.is_empty() { "0" } else { lead_text };
                    let trail_text = if trail_text.is_empty() {
                        "0"
                    } else {
                        trail_text
                    };
                    format!("{lead_text}.{trail_text}e{exponent}")
                        .parse::<f64>()
                        .unwrap_or(0.0)
                }
            };
            return Value::Float(if negative { -magnitude } else { magnitude });
        }
    }
    if lead == 0 {
        return Value::Int(0);
    }
    match BigInt::from_str_radix(lead_text, base) {
        Ok(n) => Value::integer(if negative { -n } else { n }),
        Err(_) => Value::Int(0),
    }
}

/// `(gensym &optional PREFIX)`: a fresh uninterned symbol named PREFIX (default `g`, no
/// counter suffix: freshness is identity). PREFIX is capped at [`MAX_GENSYM_PREFIX`] bytes.
pub(super) fn gensym(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let prefix = match args.first().unwrap_or(&Value::Nil) {
        Value::Nil => "g",
        Value::Str(text) => text.as_str(),
        _ => return Err(Error::script("'gensym': prefix must be a string")),
    };
    if prefix.len() > MAX_GENSYM_PREFIX {
        return Err(Error::new(
            ErrorKind::Value,
            format!("'gensym': prefix exceeds its {MAX_GENSYM_PREFIX} byte limit"),
        ));
    }
    ctx.charge(text_units(prefix.len()));
    ctx.alloc(heap::symbol_name(
        u64::try_from(prefix.len()).unwrap_or(u64::MAX),
    ));
    Ok(Value::Sym(ctx.symbols.try_gensym(prefix)?))
}
