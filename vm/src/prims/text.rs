//! String primitives beside the original's (issue 18): comparison (`string=`, `string<`
//! and their long names), `string-empty-p`/`string-blank-p`, `string-replace`,
//! `string-lines`, `string-pad`, `make-string`, `char-to-string`, `string-to-char`,
//! `string-remove-prefix`/`-suffix`, and the match-data family: `string-match`,
//! `match-string`, `match-beginning`, `match-end`, `replace-regexp-in-string`.
//!
//! Invariants: growth is bounded before allocation — `make-string` and `string-pad` check
//! the requested length, `string-replace` and `replace-regexp-in-string` check the result
//! as it grows — against the value budget (kind `value`). Match data is a per-run value:
//! it lives in the run's regexp cache ([`crate::regexp::RegexCache::match_data`]), never
//! in global state; without a cache (a context built without one) `string-match` still
//! answers but keeps no match data. Regexps follow the bounded subset and its work check;
//! matching ignores case as Emacs does by default (`case-fold-search`).

use super::PrimCtx;
use super::string::{
    byte_offset, char_index, char_of, compile, new_string, out_of_range, resolve_index, string_arg,
    text_units, wrong_type,
};
use crate::error::{Error, ErrorKind, Result};
use crate::heap;
use crate::regexp::{Groups, Wrap};
use crate::value::Value;
use compact_str::CompactString;

fn arg(args: &[Value], index: usize) -> &Value {
    args.get(index).unwrap_or(&Value::Nil)
}

/// A string argument, or a symbol's name (what `string=` and `string<` accept).
fn text_or_symbol<'v>(ctx: &'v PrimCtx<'_>, value: &'v Value) -> Result<&'v str> {
    match value {
        Value::Str(text) => Ok(text.as_str()),
        Value::Nil => Ok("nil"),
        Value::T => Ok("t"),
        Value::Sym(symbol) => Ok(ctx.symbols.name(*symbol)),
        other => Err(wrong_type(ctx, "stringp", other)),
    }
}

fn too_big(who: &str, bytes: u64, ctx: &PrimCtx<'_>) -> Error {
    Error::new(
        ErrorKind::Value,
        format!(
            "'{who}': a result of {bytes} bytes would exceed the value budget of {} bytes",
            ctx.limits.value_bytes
        ),
    )
}

fn check_growth(ctx: &PrimCtx<'_>, who: &str, bytes: usize) -> Result<()> {
    let bytes = u64::try_from(bytes).unwrap_or(u64::MAX);
    if bytes > ctx.limits.value_bytes {
        return Err(too_big(who, bytes, ctx));
    }
    Ok(())
}

fn compare(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<std::cmp::Ordering> {
    let a = text_or_symbol(ctx, arg(args, 0))?;
    let b = text_or_symbol(ctx, arg(args, 1))?;
    let units = text_units(a.len().min(b.len()));
    let ordering = a.cmp(b);
    ctx.charge(units);
    Ok(ordering)
}

/// `(string= S1 S2)` and `(string-equal S1 S2)`
pub(super) fn string_equal(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    Ok(Value::bool(compare(ctx, args)?.is_eq()))
}

/// `(string< S1 S2)` and `(string-lessp S1 S2)`: by character codes.
pub(super) fn string_less(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    Ok(Value::bool(compare(ctx, args)?.is_lt()))
}

/// `(string> S1 S2)` and `(string-greaterp S1 S2)`
pub(super) fn string_greater(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    Ok(Value::bool(compare(ctx, args)?.is_gt()))
}

/// `(string-empty-p STRING)`
pub(super) fn string_empty_p(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    Ok(Value::bool(text_or_symbol(ctx, arg(args, 0))?.is_empty()))
}

/// `(string-blank-p STRING)`: 0 when STRING is only spaces, tabs, newlines and carriage
/// returns (the `string-match-p` of Emacs's definition), else nil.
pub(super) fn string_blank_p(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let text = string_arg(ctx, arg(args, 0))?;
    ctx.charge(text_units(text.len()));
    let blank = text.chars().all(|c| matches!(c, ' ' | '\t' | '\n' | '\r'));
    Ok(if blank { Value::Int(0) } else { Value::Nil })
}

/// `(string-replace FROM-STRING TO-STRING IN-STRING)`: every literal, case-sensitive
/// occurrence replaced.
pub(super) fn string_replace(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let from = string_arg(ctx, arg(args, 0))?;
    let to = string_arg(ctx, arg(args, 1))?;
    let text = string_arg(ctx, arg(args, 2))?;
    if from.is_empty() {
        return Err(Error::script(format!(
            "Wrong length argument: {}, 0",
            super::string::prin1(ctx, arg(args, 0))
        )));
    }
    ctx.charge(text_units(text.len()));
    let mut out = String::new();
    let mut rest = text;
    while let Some((before, after)) = rest.split_once(from) {
        out.push_str(before);
        out.push_str(to);
        check_growth(ctx, "string-replace", out.len())?;
        rest = after;
    }
    out.push_str(rest);
    check_growth(ctx, "string-replace", out.len())?;
    Ok(new_string(ctx, out))
}

/// `(string-lines STRING &optional OMIT-NULLS)`: STRING split at newlines, as Emacs 28's
/// `(split-string STRING "\n" OMIT-NULLS)`.
pub(super) fn string_lines(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let text = string_arg(ctx, arg(args, 0))?;
    let omit = !arg(args, 1).is_nil();
    ctx.charge(text_units(text.len()).saturating_mul(2));
    let lines: Vec<Value> = text
        .split('\n')
        .filter(|line| !(omit && line.is_empty()))
        .map(Value::string)
        .collect();
    let bytes: u64 = u64::try_from(text.len()).unwrap_or(u64::MAX);
    let count = u64::try_from(lines.len()).unwrap_or(u64::MAX);
    ctx.alloc(
        heap::conses(count)
            .saturating_add(heap::string(0).saturating_mul(count).saturating_add(bytes)),
    );
    Ok(Value::list(lines))
}

/// A length argument: a non-negative integer, or a `wholenump` error.
fn length_arg(ctx: &PrimCtx<'_>, value: &Value) -> Result<usize> {
    match value {
        Value::Int(n) if *n >= 0 => Ok(usize::try_from(*n).unwrap_or(usize::MAX)),
        other => Err(wrong_type(ctx, "wholenump", other)),
    }
}

/// A character argument, or a `characterp` error.
fn char_arg(ctx: &PrimCtx<'_>, value: &Value) -> Result<char> {
    char_of(value).ok_or_else(|| wrong_type(ctx, "characterp", value))
}

/// `(make-string LENGTH INIT)`: LENGTH copies of the character INIT.
pub(super) fn make_string(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let length = length_arg(ctx, arg(args, 0))?;
    let init = char_arg(ctx, arg(args, 1))?;
    check_growth(ctx, "make-string", length.saturating_mul(init.len_utf8()))?;
    Ok(new_string(
        ctx,
        std::iter::repeat_n(init, length).collect::<CompactString>(),
    ))
}

/// `(string-pad STRING LENGTH &optional PADDING START)`: STRING padded with PADDING
/// (default space) to LENGTH characters, at the end (at the start when START is non-nil);
/// a longer STRING is returned as is.
pub(super) fn string_pad(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let text = string_arg(ctx, arg(args, 0))?;
    let length = length_arg(ctx, arg(args, 1))?;
    let padding = match arg(args, 2) {
        Value::Nil => ' ',
        other => char_arg(ctx, other)?,
    };
    let have = text.chars().count();
    if have >= length {
        return Ok(arg(args, 0).clone());
    }
    let pad = length - have;
    check_growth(
        ctx,
        "string-pad",
        text.len()
            .saturating_add(pad.saturating_mul(padding.len_utf8())),
    )?;
    let fill: String = std::iter::repeat_n(padding, pad).collect();
    let out = if arg(args, 3).is_nil() {
        format!("{text}{fill}")
    } else {
        format!("{fill}{text}")
    };
    Ok(new_string(ctx, out))
}

/// `(char-to-string CHAR)`
pub(super) fn char_to_string(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let c = char_arg(ctx, arg(args, 0))?;
    Ok(new_string(ctx, c.to_string()))
}

/// `(string-to-char STRING)`: the first character, 0 for the empty string.
pub(super) fn string_to_char(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let text = string_arg(ctx, arg(args, 0))?;
    Ok(Value::Int(
        text.chars().next().map_or(0, |c| i64::from(u32::from(c))),
    ))
}

/// `(string-remove-prefix PREFIX STRING)`
pub(super) fn string_remove_prefix(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let prefix = string_arg(ctx, arg(args, 0))?;
    let text = string_arg(ctx, arg(args, 1))?;
    match text.strip_prefix(prefix) {
        Some(rest) => {
            let rest = rest.to_owned();
            Ok(new_string(ctx, rest))
        }
        None => Ok(arg(args, 1).clone()),
    }
}

/// `(string-remove-suffix SUFFIX STRING)`
pub(super) fn string_remove_suffix(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let suffix = string_arg(ctx, arg(args, 0))?;
    let text = string_arg(ctx, arg(args, 1))?;
    match text.strip_suffix(suffix) {
        Some(rest) => {
            let rest = rest.to_owned();
            Ok(new_string(ctx, rest))
        }
        None => Ok(arg(args, 1).clone()),
    }
}

/// Byte spans of every group of the first match of `pattern` in `text` at or after
/// character `start`, work-checked and charged.
fn search(
    ctx: &mut PrimCtx<'_>,
    pattern: &str,
    text: &str,
    start_byte: usize,
) -> Result<Option<Groups>> {
    let regex = compile(ctx, pattern, Wrap::Capturing)?;
    let searched = regex.captures(text, start_byte, ctx.limits)?;
    super::string::charge_search(ctx, searched.units)?;
    Ok(searched.found)
}

/// `(string-match REGEXP STRING &optional START)`: the character index of the first match
/// at or after START, else nil; a match sets the run's match data.
pub(super) fn string_match(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let pattern = string_arg(ctx, arg(args, 0))?;
    let string_value = arg(args, 1);
    let text = string_arg(ctx, string_value)?;
    let start_value = arg(args, 2);
    let Some(start) = resolve_index(ctx, start_value, 0, text.chars().count())? else {
        return Err(out_of_range(ctx, &[string_value, start_value]));
    };
    let start_byte = byte_offset(text, start).unwrap_or(text.len());
    let Some(groups) = search(ctx, pattern, text, start_byte)? else {
        return Ok(Value::Nil);
    };
    let data: Groups = groups
        .iter()
        .map(|g| g.map(|(b, e)| (char_index(text, b), char_index(text, e))))
        .collect();
    let begin = data.first().copied().flatten().map_or(0, |(b, _)| b);
    if let Some(cache) = ctx.regexps.as_deref_mut() {
        cache.set_match_data(data);
    }
    Ok(Value::Int(i64::try_from(begin).unwrap_or(i64::MAX)))
}

/// The span of group `n` in the run's match data.
fn group(ctx: &PrimCtx<'_>, value: &Value) -> Result<Option<(usize, usize)>> {
    let n = match value {
        Value::Int(n) if *n >= 0 => usize::try_from(*n).unwrap_or(usize::MAX),
        Value::Int(_) => return Err(out_of_range(ctx, &[value, &Value::Int(0)])),
        other => return Err(wrong_type(ctx, "integerp", other)),
    };
    Ok(ctx
        .regexps
        .as_deref()
        .and_then(|cache| cache.match_data().get(n).copied().flatten()))
}

/// `(match-string NUM STRING)`: the text group NUM of the last `string-match` matched in
/// STRING, or nil when it did not take part. STRING is required (there are no buffers).
pub(super) fn match_string(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let string_value = arg(args, 1);
    if string_value.is_nil() {
        return Err(Error::script(
            "'match-string': STRING is required; ptc has no buffers",
        ));
    }
    let text = string_arg(ctx, string_value)?;
    let Some((begin, end)) = group(ctx, arg(args, 0))? else {
        return Ok(Value::Nil);
    };
    let slice = byte_offset(text, begin)
        .zip(byte_offset(text, end))
        .and_then(|(b, e)| text.get(b..e))
        .ok_or_else(|| {
            out_of_range(
                ctx,
                &[
                    string_value,
                    &Value::Int(i64::try_from(begin).unwrap_or(i64::MAX)),
                    &Value::Int(i64::try_from(end).unwrap_or(i64::MAX)),
                ],
            )
        })?
        .to_owned();
    Ok(new_string(ctx, slice))
}

/// `(match-beginning SUBEXP)`
pub(super) fn match_beginning(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    Ok(group(ctx, arg(args, 0))?.map_or(Value::Nil, |(b, _)| {
        Value::Int(i64::try_from(b).unwrap_or(i64::MAX))
    }))
}

/// `(match-end SUBEXP)`
pub(super) fn match_end(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    Ok(group(ctx, arg(args, 0))?.map_or(Value::Nil, |(_, e)| {
        Value::Int(i64::try_from(e).unwrap_or(i64::MAX))
    }))
}

/// How `replace-match` adapts the case of the replacement (Emacs's `search.c` rules).
#[derive(Clone, Copy, PartialEq, Eq)]
enum CaseAction {
    NoChange,
    AllCaps,
    CapInitial,
}

fn case_action(matched: &str) -> CaseAction {
    let (mut some_multiletter_word, mut some_lowercase, mut some_uppercase) = (false, false, false);
    let mut some_nonuppercase_initial = false;
    let mut previous = '\n';
    for c in matched.chars() {
        let previous_is_word = previous.is_alphanumeric();
        if c.is_lowercase() {
            some_lowercase = true;
            if previous_is_word {
                some_multiletter_word = true;
            } else {
                some_nonuppercase_initial = true;
            }
        } else if c.is_uppercase() {
            some_uppercase = true;
            if previous_is_word {
                some_multiletter_word = true;
            }
        } else if !previous_is_word {
            some_nonuppercase_initial = true;
        }
        previous = c;
    }
    if !some_lowercase && some_multiletter_word {
        CaseAction::AllCaps
    } else if !some_nonuppercase_initial && some_multiletter_word {
        CaseAction::CapInitial
    } else if !some_nonuppercase_initial && some_uppercase {
        CaseAction::AllCaps
    } else {
        CaseAction::NoChange
    }
}

/// Upper-cases the first character of every word (Emacs `upcase-initials`).
fn upcase_initials(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_word = false;
    for c in text.chars() {
        if c.is_alphanumeric() {
            if in_word {
                out.push(c);
            } else {
                out.extend(c.to_uppercase());
            }
            in_word = true;
        } else {
            out.push(c);
            in_word = false;
        }
    }
    out
}

/// The replacement text for one match: `\&`, `\N` and `\\` expanded unless `literal`.
fn expand_replacement(
    rep: &str,
    text: &str,
    groups: &[Option<(usize, usize)>],
    literal: bool,
) -> Result<String> {
    if literal {
        return Ok(rep.to_owned());
    }
    let mut out = String::with_capacity(rep.len());
    let mut chars = rep.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('&') => {
                if let Some(Some((b, e))) = groups.first() {
                    out.push_str(text.get(*b..*e).unwrap_or_default());
                }
            }
            Some('\\') => out.push('\\'),
            Some(d) if d.is_ascii_digit() => {
                let n = usize::from(u8::try_from(d).unwrap_or(b'0') - b'0');
                match groups.get(n) {
                    Some(Some((b, e))) => out.push_str(text.get(*b..*e).unwrap_or_default()),
                    Some(None) => {}
                    None => {
                        return Err(Error::script("replace-match subexpression does not exist"));
                    }
                }
            }
            _ => {
                return Err(Error::script("Invalid use of `\\' in replacement text"));
            }
        }
    }
    Ok(out)
}

/// `(replace-regexp-in-string REGEXP REP STRING &optional FIXEDCASE LITERAL SUBEXP START)`,
/// following Emacs's definition: every match from START on is replaced (an empty match
/// replaces before the next character), the case of the replacement follows the matched
/// text unless FIXEDCASE, and the result omits the first START characters. REP must be a
/// string: a guest function cannot be called from a primitive.
pub(super) fn replace_regexp_in_string(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let pattern = string_arg(ctx, arg(args, 0))?;
    let rep = match arg(args, 1) {
        Value::Str(text) => text.as_str(),
        _ => {
            return Err(Error::script(
                "'replace-regexp-in-string': REP must be a string; a guest function cannot be called from a primitive",
            ));
        }
    };
    let string_value = arg(args, 2);
    let text = string_arg(ctx, string_value)?;
    let fixedcase = !arg(args, 3).is_nil();
    let literal = !arg(args, 4).is_nil();
    let subexp = match arg(args, 5) {
        Value::Nil => 0,
        Value::Int(n) if *n >= 0 => usize::try_from(*n).unwrap_or(usize::MAX),
        other => return Err(wrong_type(ctx, "wholenump", other)),
    };
    let start_value = arg(args, 6);
    let Some(start) = resolve_index(ctx, start_value, 0, text.chars().count())? else {
        return Err(out_of_range(ctx, &[string_value, start_value]));
    };
    let mut at = byte_offset(text, start).unwrap_or(text.len());
    let mut out = String::new();
    while at < text.len() {
        let Some(groups) = search(ctx, pattern, text, at)? else {
            break;
        };
        let Some((mb, me_match)) = groups.first().copied().flatten() else {
            break;
        };
        // An empty match still moves on by one character, which is kept.
        let me = if me_match == mb {
            text.get(mb..)
                .and_then(|rest| rest.chars().next())
                .map_or(text.len(), |c| mb + c.len_utf8())
        } else {
            me_match
        };
        let Some((tb, te)) = groups.get(subexp).copied().flatten() else {
            return Err(Error::script("replace-match subexpression does not exist"));
        };
        let mut replacement = expand_replacement(rep, text, &groups, literal)?;
        if !fixedcase {
            let matched = text.get(tb..te).unwrap_or_default();
            replacement = match case_action(matched) {
                CaseAction::NoChange => replacement,
                CaseAction::AllCaps => replacement.to_uppercase(),
                CaseAction::CapInitial => upcase_initials(&replacement),
            };
        }
        out.push_str(text.get(at..mb).unwrap_or_default());
        out.push_str(text.get(mb..tb).unwrap_or_default());
        out.push_str(&replacement);
        out.push_str(text.get(te..me_match).unwrap_or_default());
        out.push_str(text.get(me_match..me).unwrap_or_default());
        check_growth(ctx, "replace-regexp-in-string", out.len())?;
        at = me;
    }
    out.push_str(text.get(at..).unwrap_or_default());
    check_growth(ctx, "replace-regexp-in-string", out.len())?;
    Ok(new_string(ctx, out))
}

/// `(message FORMAT-STRING &rest ARGS)`: the formatted string (nil for a nil FORMAT). ptc
/// has no echo area, so nothing is shown: the value is the whole effect (deviation 45).
pub(super) fn message(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    if arg(args, 0).is_nil() {
        return Ok(Value::Nil);
    }
    super::format::format(ctx, args)
}

/// `(intern STRING)`: the symbol named STRING in the run's table; a new name is charged
/// to the retained budget (the table keeps it for the rest of the run).
pub(super) fn intern(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let name = string_arg(ctx, arg(args, 0))?.to_owned();
    ctx.charge(text_units(name.len()));
    ctx.alloc(heap::symbol_name(
        u64::try_from(name.len()).unwrap_or(u64::MAX),
    ));
    Ok(match name.as_str() {
        "nil" => Value::Nil,
        "t" => Value::T,
        _ => Value::Sym(ctx.symbols.try_intern(&name)?),
    })
}

/// `(symbol-name SYMBOL)`
pub(super) fn symbol_name(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let name = match arg(args, 0) {
        Value::Nil => "nil".to_owned(),
        Value::T => "t".to_owned(),
        Value::Sym(symbol) => ctx.symbols.name(*symbol).to_owned(),
        other => return Err(wrong_type(ctx, "symbolp", other)),
    };
    Ok(new_string(ctx, name))
}

/// `(directory-file-name DIRECTORY)`: DIRECTORY without its trailing slashes (a lone `/`
/// stays).
pub(super) fn directory_file_name(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let text = string_arg(ctx, arg(args, 0))?;
    let trimmed = text.trim_end_matches('/');
    let out = if trimmed.is_empty() && !text.is_empty() {
        "/"
    } else {
        trimmed
    }
    .to_owned();
    Ok(new_string(ctx, out))
}
