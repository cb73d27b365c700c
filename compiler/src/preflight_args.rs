//! Preflight of tool arguments (spec/reference/preflight.md, "Tool arguments"): every
//! statically visible call of a roster tool that has an [`ArgContract`] is judged against
//! it before anything runs.
//!
//! | Code  | Kind      | Message |
//! |-------|-----------|---------|
//! | E0320 | preflight | `NAME has no argument :KEY (try :SUGGESTION); it accepts: :A, :B` |
//! | E0321 | preflight | `NAME needs :KEY` (`:A and :B`, `:A, :B and :C`) |
//! | E0322 | preflight | `NAME :KEY expects an integer, got the string "10"` |
//! | E0323 | preflight | `NAME :KEY expects one of "a", "b", got "c" (try "a")` |
//! | E0324 | preflight | `NAME: arguments must be :keyword value pairs; "a" is not a keyword (try :KEY "a")` |
//! | E0325 | preflight | `NAME: argument :KEY has no value` |
//!
//! Invariant: **nothing the runtime accepts is rejected.** The judgement mirrors the
//! runtime's conversion of a guest argument list (`ptc_runtime::args`): `:keyword value`
//! pairs, the first value of a repeated key wins, each value converted by its declared
//! property's `type` (nil is false for a boolean, `{}` for an object, `[]` for an array,
//! else null; `:null` and `:json-false` are null and false anywhere; other keywords and
//! quoted symbols are strings). Only literals are judged: strings, numbers, `t`, `nil`,
//! keywords, vectors and quoted data. A symbol or a call in a key position may evaluate to
//! any key, so after one, no value type and no missing key is judged; a computed value is
//! never judged. Floats with no fractional part are not judged against `integer`; a float
//! is outside an `enum` whose numbers are all 64-bit integers of other values.

use crate::ast::{Sexp, SexpKind};
use crate::diagnostic::Diagnostic;
use crate::roster::{Allowed, ArgContract, ArgSpec, JsonType, RosterTool};
use crate::suggest::suggest;
use crate::tables::{name_of, prin1};
use ptc_vm::symbol::well_known;
use ptc_vm::{ErrorKind, Interner, Span};

/// How many `enum` members a message lists before `...`.
const MAX_LISTED: usize = 12;

/// Judges the call `form` (operator and arguments `items`) of `tool`, pushing every
/// diagnostic to `out`. Does nothing for a tool without a contract.
pub fn check_call(
    tool: &RosterTool,
    form: &Sexp,
    items: &[Sexp],
    interner: &Interner,
    out: &mut Vec<Diagnostic>,
) {
    let args = items.get(1..).unwrap_or_default();
    check_args(tool, form, args, false, interner, out);
}

/// Judges `(funcall 'TOOL ARGS...)` or `(funcall #'TOOL ARGS...)` (`items` from `funcall`
/// on) exactly as the direct call `(TOOL ARGS...)`.
pub fn check_funcall(
    tool: &RosterTool,
    form: &Sexp,
    items: &[Sexp],
    interner: &Interner,
    out: &mut Vec<Diagnostic>,
) {
    let args = items.get(2..).unwrap_or_default();
    check_args(tool, form, args, false, interner, out);
}

/// Judges `(apply 'TOOL ARGS... LIST)` (`items` from `apply` on). When LIST is statically
/// visible — `nil`, a quoted list, or a `(list ...)` call — its elements join the arguments
/// and the call is judged as a direct one. Otherwise only the complete `:key value` pairs
/// before LIST are judged: the spread elements may supply any value or key, so no missing
/// key and no key without a value is reported.
pub fn check_apply(
    tool: &RosterTool,
    form: &Sexp,
    items: &[Sexp],
    interner: &Interner,
    out: &mut Vec<Diagnostic>,
) {
    let Some((last, leading)) = items.get(2..).and_then(<[Sexp]>::split_last) else {
        return;
    };
    match spread(last, interner) {
        Some(elements) => {
            let mut args = leading.to_vec();
            args.extend(elements);
            check_args(tool, form, &args, false, interner, out);
        }
        None => check_args(tool, form, leading, true, interner, out),
    }
}

/// The elements of `apply`'s last argument as argument forms, when they are visible.
fn spread(last: &Sexp, interner: &Interner) -> Option<Vec<Sexp>> {
    match &last.kind {
        SexpKind::Nil => Some(Vec::new()),
        SexpKind::List(parts) => match parts.first().and_then(Sexp::as_symbol) {
            Some(head) if name_of(interner, head) == "list" => {
                Some(parts.get(1..).unwrap_or_default().to_vec())
            }
            _ => match &quoted(last, interner)?.kind {
                SexpKind::Nil => Some(Vec::new()),
                SexpKind::List(data) => Some(data.iter().map(as_form).collect()),
                _ => None,
            },
        },
        _ => None,
    }
}

/// A quoted list's element as a form with the same value: self-evaluating data as is,
/// anything else (symbols, lists, dotted pairs) quoted.
fn as_form(datum: &Sexp) -> Sexp {
    match &datum.kind {
        SexpKind::Sym(symbol) if !symbol.is_keyword() => quote(datum),
        SexpKind::List(_) | SexpKind::Dotted(..) => quote(datum),
        _ => datum.clone(),
    }
}

fn quote(datum: &Sexp) -> Sexp {
    let head = Sexp::new(SexpKind::Sym(well_known::QUOTE), datum.span);
    Sexp::new(SexpKind::List(vec![head, datum.clone()]), datum.span)
}

/// Judges the argument forms `args` of a call `form` of `tool`. With `open_tail`, more
/// arguments of unknown shape follow `args` (an `apply` whose list is computed).
/// How many keys of one call [`Seen`] holds without allocating (a tool call rarely has more).
const INLINE_KEYS: usize = 8;

/// The keys of one call seen so far, in order: inline up to [`INLINE_KEYS`], then on the heap.
#[derive(Debug)]
enum Seen<'a> {
    Inline([&'a str; INLINE_KEYS], usize),
    Heap(Vec<&'a str>),
}

impl Default for Seen<'_> {
    fn default() -> Self {
        Seen::Inline([""; INLINE_KEYS], 0)
    }
}

impl<'a> Seen<'a> {
    fn push(&mut self, key: &'a str) {
        match self {
            Seen::Inline(keys, len) if *len < INLINE_KEYS => {
                if let Some(slot) = keys.get_mut(*len) {
                    *slot = key;
                }
                *len += 1;
            }
            Seen::Inline(keys, _) => {
                let mut all = keys.to_vec();
                all.push(key);
                *self = Seen::Heap(all);
            }
            Seen::Heap(keys) => keys.push(key),
        }
    }

    fn keys(&self) -> &[&'a str] {
        match self {
            Seen::Inline(keys, len) => keys.get(..*len).unwrap_or_default(),
            Seen::Heap(keys) => keys,
        }
    }
}

fn check_args(
    tool: &RosterTool,
    form: &Sexp,
    args: &[Sexp],
    open_tail: bool,
    interner: &Interner,
    out: &mut Vec<Diagnostic>,
) {
    let Some(contract) = tool.args.as_deref() else {
        return;
    };
    let name: &str = &tool.name;
    // Keys seen so far, and whether every key position so far was a literal keyword.
    let mut seen = Seen::default();
    let mut keys_literal = true;
    let mut pairs = args.chunks(2);
    for pair in pairs.by_ref() {
        let Some(key) = pair.first() else { break };
        match key_of(key, interner) {
            Key::Keyword(keyword) => {
                let Some(value) = pair.get(1) else {
                    let bare = keyword.strip_prefix(':').unwrap_or(keyword);
                    if open_tail {
                        if contract.closed && contract.arg(bare).is_none() {
                            out.push(undeclared(name, keyword, contract, key.span));
                        }
                        return;
                    }
                    out.push(preflight(
                        "E0325",
                        format!("{name}: argument {keyword} has no value"),
                        key.span,
                    ));
                    return;
                };
                let bare = keyword.strip_prefix(':').unwrap_or(keyword);
                match contract.arg(bare) {
                    None if contract.closed => {
                        out.push(undeclared(name, keyword, contract, key.span));
                    }
                    Some(spec) if keys_literal && !seen.keys().contains(&bare) => {
                        if let Some(diagnostic) = judge(name, spec, value, interner) {
                            out.push(diagnostic);
                        }
                    }
                    _ => {}
                }
                seen.push(bare);
            }
            Key::Literal => {
                out.push(positional(name, key, contract, seen.keys(), interner));
                return;
            }
            Key::Computed => keys_literal = false,
        }
    }
    if !keys_literal || open_tail {
        return;
    }
    let missing: Vec<String> = contract
        .required
        .iter()
        .filter(|r| !seen.keys().contains(&r.as_str()))
        .map(|r| format!(":{r}"))
        .collect();
    if !missing.is_empty() {
        out.push(preflight(
            "E0321",
            format!("{name} needs {}", and_list(&missing)),
            form.span,
        ));
    }
}

fn preflight(code: &'static str, message: String, span: Span) -> Diagnostic {
    Diagnostic::new(code, ErrorKind::Preflight, message, span)
}

/// What a key position holds.
enum Key<'a> {
    /// A literal keyword (its name, with the colon).
    Keyword(&'a str),
    /// A literal that is not a keyword: always refused by the runtime.
    Literal,
    /// A symbol or a call: any key at run time.
    Computed,
}

fn key_of<'a>(key: &Sexp, interner: &'a Interner) -> Key<'a> {
    match &key.kind {
        SexpKind::Sym(symbol) if symbol.is_keyword() => Key::Keyword(name_of(interner, *symbol)),
        SexpKind::Sym(_) => Key::Computed,
        SexpKind::List(_) => match quoted(key, interner) {
            Some(datum) if !matches!(datum.kind, SexpKind::Sym(s) if s.is_keyword()) => {
                Key::Literal
            }
            _ => Key::Computed,
        },
        _ => Key::Literal,
    }
}

/// The datum of a `(quote DATUM)` form.
fn quoted<'a>(form: &'a Sexp, interner: &Interner) -> Option<&'a Sexp> {
    match form.as_list()? {
        [head, datum] if head.as_symbol().map(|s| name_of(interner, s)) == Some("quote") => {
            Some(datum)
        }
        _ => None,
    }
}

fn undeclared(name: &str, keyword: &str, contract: &ArgContract, span: Span) -> Diagnostic {
    if contract.args.is_empty() {
        return preflight(
            "E0320",
            format!("{name} has no argument {keyword}; it takes no arguments"),
            span,
        );
    }
    let bare = keyword.strip_prefix(':').unwrap_or(keyword);
    let hint = suggest(bare, contract.args.iter().map(|a| a.name.as_str()))
        .map(|s| format!(" (try :{s})"))
        .unwrap_or_default();
    let accepted: Vec<String> = contract
        .args
        .iter()
        .map(|a| format!(":{}", a.name))
        .collect();
    preflight(
        "E0320",
        format!(
            "{name} has no argument {keyword}{hint}; it accepts: {}",
            accepted.join(", ")
        ),
        span,
    )
}

fn positional(
    name: &str,
    key: &Sexp,
    contract: &ArgContract,
    seen: &[&str],
    interner: &Interner,
) -> Diagnostic {
    let text = prin1(key, interner);
    let hint = contract
        .required
        .iter()
        .chain(contract.args.iter().map(|a| &a.name))
        .find(|k| !seen.contains(&k.as_str()))
        .map(|k| format!(" (try :{k} {text})"))
        .unwrap_or_default();
    preflight(
        "E0324",
        format!("{name}: arguments must be :keyword value pairs; {text} is not a keyword{hint}"),
        key.span,
    )
}

/// A literal argument, as the JSON the runtime makes of it before validation.
#[derive(Debug, Clone, PartialEq)]
enum Json<'a> {
    Null,
    Bool(bool),
    Int(i64),
    /// An integer beyond `i64` that still fits in `u64`.
    BigInt,
    Float(f64),
    Str(&'a str),
    Array,
    Object,
    /// A non-empty list with no array or object type to shape it.
    ArrayOrObject,
}

/// A literal value before the schema shapes it.
enum Literal<'a> {
    Nil,
    /// A non-empty proper list; `plist` when it is keyword/value pairs (the only lists an
    /// object property converts).
    List {
        plist: bool,
    },
    Json(Json<'a>),
}

/// Whether `items` are keyword/value pairs, as an object argument requires.
fn is_plist(items: &[Sexp]) -> bool {
    items.len().is_multiple_of(2)
        && items
            .iter()
            .step_by(2)
            .all(|key| matches!(&key.kind, SexpKind::Sym(symbol) if symbol.is_keyword()))
}

fn literal<'a>(value: &'a Sexp, interner: &'a Interner, quoted_data: bool) -> Option<Literal<'a>> {
    let json = match &value.kind {
        SexpKind::Nil => return Some(Literal::Nil),
        SexpKind::T => Json::Bool(true),
        SexpKind::Int(n) => Json::Int(*n),
        SexpKind::Big(n) => {
            u64::try_from(&**n).ok()?;
            Json::BigInt
        }
        SexpKind::Float(f) if f.is_finite() => Json::Float(*f),
        SexpKind::Float(_) => return None,
        SexpKind::Str(s) => Json::Str(s),
        SexpKind::Vector(_) => Json::Array,
        SexpKind::Sym(symbol) if symbol.is_keyword() || quoted_data => {
            match name_of(interner, *symbol) {
                ":null" => Json::Null,
                ":json-false" => Json::Bool(false),
                other => Json::Str(other),
            }
        }
        SexpKind::Sym(_) => return None,
        SexpKind::List(items) if quoted_data => {
            return Some(Literal::List {
                plist: is_plist(items),
            });
        }
        SexpKind::List(_) => return literal(quoted(value, interner)?, interner, true),
        // A dotted pair (an alist entry) converts by rules of its own at dispatch: judge
        // nothing here rather than risk refusing a valid call.
        SexpKind::Dotted(..) => return None,
    };
    Some(Literal::Json(json))
}

/// The JSON the runtime converts `literal` to for a property of `types`.
fn shape<'a>(literal: Literal<'a>, types: &[JsonType]) -> Json<'a> {
    let wants = |t: JsonType| types.contains(&t);
    match literal {
        Literal::Nil if wants(JsonType::Boolean) => Json::Bool(false),
        Literal::Nil if wants(JsonType::Object) => Json::Object,
        Literal::Nil if wants(JsonType::Array) => Json::Array,
        Literal::Nil => Json::Null,
        // An object type converts a list of keyword/value pairs; any other list is refused
        // at dispatch unless an array type takes it.
        Literal::List { plist: true } if wants(JsonType::Object) => Json::Object,
        Literal::List { .. } if wants(JsonType::Array) => Json::Array,
        Literal::List { plist: false } if wants(JsonType::Object) => Json::Array,
        Literal::List { .. } => Json::ArrayOrObject,
        Literal::Json(json) => json,
    }
}

fn type_matches(json: &Json<'_>, types: &[JsonType]) -> bool {
    let wants = |t: JsonType| types.contains(&t);
    match json {
        Json::Null => wants(JsonType::Null),
        Json::Bool(_) => wants(JsonType::Boolean),
        Json::Int(_) | Json::BigInt => wants(JsonType::Integer) || wants(JsonType::Number),
        Json::Float(f) => wants(JsonType::Number) || (wants(JsonType::Integer) && f.fract() == 0.0),
        Json::Str(_) => wants(JsonType::String),
        Json::Array => wants(JsonType::Array),
        Json::Object => wants(JsonType::Object),
        Json::ArrayOrObject => wants(JsonType::Array) || wants(JsonType::Object),
    }
}

/// Whether `json` is outside `allowed` (`false` when that cannot be decided).
fn outside_enum(json: &Json<'_>, allowed: &[Allowed]) -> bool {
    match json {
        Json::Str(s) => !allowed
            .iter()
            .any(|a| matches!(a, Allowed::Str(m) if m == s)),
        Json::Int(n) => {
            !allowed
                .iter()
                .any(|a| matches!(a, Allowed::Int(m) if m == n))
                && !allowed.iter().any(|a| matches!(a, Allowed::Other))
        }
        Json::Bool(b) => !allowed
            .iter()
            .any(|a| matches!(a, Allowed::Bool(m) if m == b)),
        Json::Null => !allowed.contains(&Allowed::Null),
        // A float equals no member but a number of the same value; a large integer no
        // member but a large one.
        #[allow(clippy::cast_precision_loss)]
        Json::Float(f) => {
            !allowed.contains(&Allowed::Other)
                && !allowed
                    .iter()
                    .any(|a| matches!(a, Allowed::Int(m) if *m as f64 == *f))
        }
        // A large integer, an array or an object equals no scalar member.
        Json::BigInt | Json::Array | Json::Object | Json::ArrayOrObject => {
            !allowed.contains(&Allowed::Other)
        }
    }
}

fn judge(name: &str, spec: &ArgSpec, value: &Sexp, interner: &Interner) -> Option<Diagnostic> {
    let json = shape(literal(value, interner, false)?, &spec.types);
    let key = &spec.name;
    if !spec.types.is_empty() && !type_matches(&json, &spec.types) {
        let expected: Vec<String> = spec.types.iter().map(|t| t.phrase().to_owned()).collect();
        return Some(preflight(
            "E0322",
            format!(
                "{name} :{key} expects {}, got {}",
                or_list(&expected),
                describe(value, &json, interner)
            ),
            value.span,
        ));
    }
    let allowed = spec.allowed.as_deref()?;
    if !outside_enum(&json, allowed) {
        return None;
    }
    let members: Vec<String> = allowed.iter().filter_map(member_text).collect();
    let mut listed = members
        .iter()
        .take(MAX_LISTED)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if members.len() > MAX_LISTED {
        listed.push_str(", ...");
    }
    let hint = nearest(&json, allowed)
        .map(|n| format!(" (try {n})"))
        .unwrap_or_default();
    Some(preflight(
        "E0323",
        format!(
            "{name} :{key} expects one of {listed}, got {}{hint}",
            prin1(value, interner)
        ),
        value.span,
    ))
}

/// An `enum` member as the guest would write it.
fn member_text(member: &Allowed) -> Option<String> {
    match member {
        Allowed::Str(s) => Some(quote_string(s)),
        Allowed::Int(n) => Some(n.to_string()),
        Allowed::Bool(true) => Some("t".to_owned()),
        Allowed::Bool(false) => Some(":json-false".to_owned()),
        Allowed::Null => Some(":null".to_owned()),
        Allowed::Other => None,
    }
}

fn quote_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

/// The allowed member nearest to `json`: a close string, or the closest integer.
fn nearest(json: &Json<'_>, allowed: &[Allowed]) -> Option<String> {
    match json {
        Json::Str(s) => {
            let strings = allowed.iter().filter_map(|a| match a {
                Allowed::Str(m) => Some(m.as_str()),
                _ => None,
            });
            suggest(s, strings).map(quote_string)
        }
        Json::Int(n) => allowed
            .iter()
            .filter_map(|a| match a {
                Allowed::Int(m) => Some(*m),
                _ => None,
            })
            .min_by_key(|m| m.abs_diff(*n))
            .map(|m| m.to_string()),
        _ => None,
    }
}

/// How a message names the literal `value` that became `json`.
fn describe(value: &Sexp, json: &Json<'_>, interner: &Interner) -> String {
    let text = prin1(value, interner);
    match (&value.kind, json) {
        (SexpKind::Str(_), _) => format!("the string {text}"),
        (SexpKind::Int(_) | SexpKind::Big(_), _) => format!("the integer {text}"),
        (SexpKind::Float(_), _) => format!("the number {text}"),
        (SexpKind::Vector(_), _) => format!("the vector {text} (a JSON array)"),
        (_, Json::Null) => format!("{text} (JSON null)"),
        (_, Json::Bool(true)) => format!("{text} (JSON true)"),
        (_, Json::Bool(false)) => format!("{text} (JSON false)"),
        (_, Json::Str(_)) => format!("{text} (a JSON string)"),
        (_, Json::Array) => format!("{text} (a JSON array)"),
        (_, Json::ArrayOrObject) => format!("{text} (a JSON array or object)"),
        _ => text,
    }
}

/// `a`, `a or b`, `a, b or c`.
fn or_list(items: &[String]) -> String {
    joined(items, "or")
}

/// `a`, `a and b`, `a, b and c`.
fn and_list(items: &[String]) -> String {
    joined(items, "and")
}

fn joined(items: &[String], word: &str) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} {word} {last}", init.join(", ")),
    }
}
