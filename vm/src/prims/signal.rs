//! Guest errors: `error`, `user-error`, `signal`, `error-message-string`, and the closed
//! table of Emacs error symbols that `condition-case` can name ([`ERROR_SYMBOLS`]).
//!
//! Invariants: raising a guest error is pure — the primitive returns a kind `script`
//! [`Error`] carrying the condition and data ([`Error::signal`]); nothing else changes.
//! Only kind `script` failures are catchable, and never an internal error
//! ([`catchable`]); budget exhaustion (`step`, `time`, `value`, `retained-value`,
//! `atomic-work`, `stack`, `tool-call`), permission denial and interruption are not
//! script errors and end the run whatever handlers are active. A built-in failure that
//! carries no signal is classified by its message ([`classify`]) and its data is the
//! message as one string, so `(cadr err)` and `(error-message-string err)` give the text
//! the run would have failed with (deviation 43).

use super::PrimCtx;
use super::string::{new_string, prin1, wrong_type};
use crate::error::{Error, ErrorKind, Result};
use crate::print::{self, Style};
use crate::value::Value;

fn arg(args: &[Value], index: usize) -> &Value {
    args.get(index).unwrap_or(&Value::Nil)
}

/// The error symbols the dialect knows: name, parent (the next condition up; `error` is
/// the root), and Emacs's `error-message`, in the reference's order.
pub const ERROR_SYMBOLS: [(&str, &str, &str); 18] = [
    ("error", "", "error"),
    ("user-error", "error", ""),
    ("wrong-type-argument", "error", "Wrong type argument"),
    ("args-out-of-range", "error", "Args out of range"),
    ("arith-error", "error", "Arithmetic error"),
    ("overflow-error", "arith-error", "Arithmetic overflow error"),
    ("range-error", "arith-error", "Arithmetic range error"),
    (
        "void-function",
        "error",
        "Symbol's function definition is void",
    ),
    (
        "void-variable",
        "error",
        "Symbol's value as variable is void",
    ),
    (
        "wrong-number-of-arguments",
        "error",
        "Wrong number of arguments",
    ),
    ("wrong-length-argument", "error", "Wrong length argument"),
    ("invalid-function", "error", "Invalid function"),
    ("invalid-regexp", "error", "Invalid regexp"),
    ("json-error", "error", "generic json error"),
    (
        "json-parse-error",
        "json-error",
        "could not parse JSON stream",
    ),
    ("json-end-of-file", "json-parse-error", "end of JSON stream"),
    (
        "json-trailing-content",
        "json-parse-error",
        "trailing content after JSON stream",
    ),
    (
        "json-object-too-deep",
        "json-error",
        "object cyclic or Lisp evaluation too deep",
    ),
];

/// Whether a failure of `error` may be caught by `condition-case`.
#[must_use]
pub fn catchable(error: &Error) -> bool {
    error.kind() == ErrorKind::Script && !error.message().starts_with("Internal ")
}

/// The condition symbol a built-in failure's message names.
#[must_use]
pub fn classify(message: &str) -> &'static str {
    const PREFIXES: [(&str, &str); 9] = [
        ("Wrong type argument", "wrong-type-argument"),
        ("Args out of range", "args-out-of-range"),
        ("Arithmetic overflow", "overflow-error"),
        ("Arithmetic error", "arith-error"),
        ("Wrong number of arguments", "wrong-number-of-arguments"),
        ("Wrong length argument", "wrong-length-argument"),
        ("Symbol's value as variable is void", "void-variable"),
        ("Void or forbidden function", "void-function"),
        ("Invalid function", "invalid-function"),
    ];
    PREFIXES
        .iter()
        .find(|(prefix, _)| message.starts_with(prefix))
        .map_or("error", |(_, symbol)| symbol)
}

/// Whether condition `symbol` is `wanted` or inherits from it. Symbols outside the table
/// inherit from `error` directly (deviation 43: ptc has no `define-error`).
#[must_use]
pub fn inherits(symbol: &str, wanted: &str) -> bool {
    let mut current = symbol;
    for _ in 0..ERROR_SYMBOLS.len() + 1 {
        if current == wanted {
            return true;
        }
        current = match ERROR_SYMBOLS.iter().find(|(name, _, _)| *name == current) {
            Some((_, parent, _)) if !parent.is_empty() => parent,
            Some(_) => return false,
            None => "error",
        };
    }
    false
}

/// Emacs's `error-message-string` of `(SYMBOL . DATA)`; `names` prints symbols.
#[must_use]
pub fn message_of(symbol: &str, data: &Value, names: &dyn print::SymbolNames) -> String {
    let items = data.list_to_vec().unwrap_or_default();
    let table = ERROR_SYMBOLS.iter().find(|(name, _, _)| *name == symbol);
    // A built-in failure's data is its message (see the module docs).
    if symbol != "error"
        && symbol != "user-error"
        && table.is_some()
        && let [Value::Str(text)] = items.as_slice()
    {
        return text.as_str().to_owned();
    }
    let (head, rest): (String, &[Value]) = if symbol == "error" {
        match items.split_first() {
            Some((Value::Str(text), rest)) => (text.as_str().to_owned(), rest),
            _ => ("peculiar error".to_owned(), &items[..]),
        }
    } else {
        match table {
            Some((_, _, message)) => ((*message).to_owned(), &items[..]),
            None => ("peculiar error".to_owned(), &items[..]),
        }
    };
    let princ = symbol == "user-error";
    let mut out = head;
    let mut separator = if out.is_empty() { "" } else { ": " };
    for item in rest {
        out.push_str(separator);
        separator = ", ";
        let style = if princ { Style::Princ } else { Style::Prin1 };
        out.push_str(&print::to_string(item, style, names));
    }
    out
}

/// The condition symbol's name and data of a caught failure.
#[must_use]
pub fn condition_of(error: &Error) -> (String, Value) {
    match error.guest_signal() {
        Some(signal) => (signal.symbol.clone(), signal.data.clone()),
        None => (
            classify(error.message()).to_owned(),
            Value::list([Value::string(error.message())]),
        ),
    }
}

/// `(error STRING &rest ARGS)`: signals `error` with `(format STRING ARGS...)`.
pub(super) fn error(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    raise(ctx, "error", args)
}

/// `(user-error FORMAT &rest ARGS)`: signals `user-error` with the formatted message.
pub(super) fn user_error(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    raise(ctx, "user-error", args)
}

fn raise(ctx: &mut PrimCtx<'_>, symbol: &str, args: &[Value]) -> Result<Value> {
    let message = super::format::format(ctx, args)?;
    let text = message.as_str().unwrap_or_default().to_owned();
    Err(Error::signal(symbol, Value::list([message]), text))
}

/// `(signal ERROR-SYMBOL DATA)`: signals ERROR-SYMBOL with DATA.
pub(super) fn signal(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let symbol = match arg(args, 0) {
        Value::Sym(symbol) if !symbol.is_keyword() => ctx.symbols.name(*symbol).to_owned(),
        other => return Err(wrong_type(ctx, "symbolp", other)),
    };
    let data = arg(args, 1).clone();
    let message = message_of(&symbol, &data, &*ctx.symbols);
    Err(Error::signal(symbol, data, message))
}

/// `(error-message-string ERROR-OBJECT)`: the message of a `(SYMBOL . DATA)` error value.
pub(super) fn error_message_string(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let text = match arg(args, 0) {
        Value::Cons(cell) => match cell.car() {
            Value::Sym(symbol) => {
                let name = ctx.symbols.name(*symbol).to_owned();
                message_of(&name, cell.cdr(), &*ctx.symbols)
            }
            _ => format!("peculiar error: {}", prin1(ctx, arg(args, 0))),
        },
        other => return Err(wrong_type(ctx, "consp", other)),
    };
    Ok(new_string(ctx, text))
}
