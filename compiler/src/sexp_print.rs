//! Printing [`Sexp`] data back as script text, `prin1` style.
//!
//! The output reads back (with [`crate::reader::read`]) as an equal datum, spans aside:
//! symbol names are escaped with the reader's own rules (every delimiter, `\`, a leading `?`,
//! names that would read as numbers or as `.`), the empty name prints as `##`, and quote
//! sugar prints as `'x`, `` `x ``, `,x`, `,@x`, `#'f`. Printing never recurses: deep data
//! prints through an explicit work stack.

use crate::ast::{Sexp, SexpKind};
use crate::token::classify_number;
use ptc_vm::print::{SymbolNames, float_to_string, write_quoted_string};
use ptc_vm::symbol::well_known;
use std::fmt::Write as _;

/// Whether `c` must be escaped anywhere in a symbol name.
fn needs_escape(c: char) -> bool {
    c <= ' '
        || c == '\u{a0}'
        || matches!(
            c,
            '"' | '\'' | ';' | '(' | ')' | '[' | ']' | '#' | '`' | ',' | '\\'
        )
}

/// Appends `name` escaped so that the reader reads it back as a symbol of that name.
pub fn write_symbol(out: &mut String, name: &str) {
    if name.is_empty() {
        out.push_str("##");
        return;
    }
    if name == "." || classify_number(name).is_some() {
        out.push('\\');
    }
    for (index, c) in name.char_indices() {
        if needs_escape(c) || (index == 0 && c == '?') {
            out.push('\\');
        }
        out.push(c);
    }
}

enum Task<'a> {
    Datum(&'a Sexp),
    Text(&'static str),
}

/// The reader sugar `sexp` prints with, if any: `(quote x)` is `'x`, and so on.
fn sugar<'a>(sexp: &'a Sexp, names: &dyn SymbolNames) -> Option<(&'static str, &'a Sexp)> {
    let [head, body] = sexp.as_list()? else {
        return None;
    };
    let prefix = match head.as_symbol()? {
        well_known::QUOTE => "'",
        well_known::BACKQUOTE => "`",
        // `,@x` would read back as a splice.
        well_known::UNQUOTE
            if body
                .as_symbol()
                .is_some_and(|b| names.symbol_name(b).starts_with('@')) =>
        {
            ", "
        }
        well_known::UNQUOTE => ",",
        well_known::SPLICE => ",@",
        other if names.symbol_name(other) == "function" => "#'",
        _ => return None,
    };
    Some((prefix, body))
}

/// `sexp` printed as script text.
#[must_use]
pub fn to_string(sexp: &Sexp, names: &dyn SymbolNames) -> String {
    let mut out = String::new();
    let mut stack = vec![Task::Datum(sexp)];
    while let Some(task) = stack.pop() {
        let sexp = match task {
            Task::Text(text) => {
                out.push_str(text);
                continue;
            }
            Task::Datum(sexp) => sexp,
        };
        match &sexp.kind {
            SexpKind::Nil => out.push_str("nil"),
            SexpKind::T => out.push('t'),
            SexpKind::Int(n) => {
                let _ = write!(out, "{n}");
            }
            SexpKind::Big(n) => {
                let _ = write!(out, "{n}");
            }
            SexpKind::Float(f) => out.push_str(&float_to_string(*f)),
            SexpKind::Str(text) => write_quoted_string(&mut out, text),
            SexpKind::Sym(symbol) => write_symbol(&mut out, names.symbol_name(*symbol)),
            SexpKind::Dotted(items, tail) => {
                out.push('(');
                stack.push(Task::Text(")"));
                stack.push(Task::Datum(tail));
                stack.push(Task::Text(" . "));
                for (index, item) in items.iter().enumerate().rev() {
                    stack.push(Task::Datum(item));
                    if index > 0 {
                        stack.push(Task::Text(" "));
                    }
                }
            }
            SexpKind::List(items) | SexpKind::Vector(items) => {
                if let Some((prefix, body)) = sugar(sexp, names) {
                    out.push_str(prefix);
                    stack.push(Task::Datum(body));
                    continue;
                }
                let vector = matches!(sexp.kind, SexpKind::Vector(_));
                out.push(if vector { '[' } else { '(' });
                stack.push(Task::Text(if vector { "]" } else { ")" }));
                for (index, item) in items.iter().enumerate().rev() {
                    stack.push(Task::Datum(item));
                    if index > 0 {
                        stack.push(Task::Text(" "));
                    }
                }
            }
        }
    }
    out
}

/// Top-level forms printed one per line.
#[must_use]
pub fn forms_to_string(forms: &[Sexp], names: &dyn SymbolNames) -> String {
    forms
        .iter()
        .map(|form| to_string(form, names))
        .collect::<Vec<_>>()
        .join("\n")
}

/// `datum` printed as `prin1` would (the `%S` of the original's messages).
#[must_use]
pub fn prin1(datum: &Sexp, interner: &ptc_vm::Interner) -> String {
    ptc_vm::print::to_string(&datum.to_value(), ptc_vm::print::Style::Prin1, interner)
}
