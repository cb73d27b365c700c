//! `rx` (issue 46): a regexp written as forms, rewritten at compile time into its string.
//!
//! The output is bounded: every form adds a bounded number of bytes per source node, and
//! the whole string is limited to [`MAX_RX_BYTES`] (the result is then checked like any
//! regexp when it is used). Alternation is written `\(?:A\|B\)`; Emacs's `rx` runs
//! `regexp-opt` on string alternatives, so its text can differ while matching the same.
//!
//! | Code  | Kind   | Message |
//! |-------|--------|---------|
//! | E0297 | script | `'rx': unsupported form %S; ...` |
//! | E0298 | script | `'rx': the regexp exceeds %d bytes` |

use crate::ast::{Sexp, SexpKind};
use crate::builders::{Builder, shape};
use crate::diagnostic::Diagnostic;
use crate::tables::{name_of, prin1};

/// Longest regexp `rx` builds.
pub(crate) const MAX_RX_BYTES: usize = 4096;

const SUPPORTED: &str = "supported: strings, characters, seq/:/and, or/|, any/in/char, not, group/submatch, zero-or-more/0+/*, one-or-more/1+/+, opt/optional/?, =, >=, **/repeat, bol/eol/bos/eos, word-boundary, word-start, word-end, digit, alpha, alnum, space, word, upper, lower, punct, xdigit, blank, nonl, anychar, regexp, literal";

/// How a piece binds, for bracketing.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// One character, class or group: takes a postfix operator as it is.
    Atom,
    /// A sequence: needs a shy group under a postfix operator.
    Seq,
    /// An alternation: needs a shy group inside a sequence too.
    Alt,
}

struct Rx<'b, 'i> {
    b: &'b Builder<'i>,
}

/// Expands `(rx FORM...)` into a string literal.
///
/// # Errors
/// E0297 for an unsupported form, E0298 when the regexp is too long.
pub(crate) fn expand(b: &mut Builder<'_>, args: &[Sexp]) -> Result<Sexp, Diagnostic> {
    let rx = Rx { b };
    let (text, kind) = rx.seq(args, 0)?;
    let text = if kind == Shape::Alt {
        format!("\\(?:{text}\\)")
    } else {
        text
    };
    if text.len() > MAX_RX_BYTES {
        return Err(shape(
            "E0298",
            format!("'rx': the regexp exceeds {MAX_RX_BYTES} bytes"),
            b.span,
        ));
    }
    Ok(Sexp::new(SexpKind::Str(text.into()), b.span))
}

fn quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '[' | '*' | '.' | '\\' | '?' | '+' | '^' | '$') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

fn class(name: &str) -> Option<&'static str> {
    Some(match name {
        "digit" | "numeric" | "num" => "digit",
        "alpha" | "alphabetic" | "letter" => "alpha",
        "alnum" | "alphanumeric" => "alnum",
        "space" | "whitespace" | "white" => "space",
        "word" | "wordchar" => "word",
        "upper" | "upper-case" => "upper",
        "lower" | "lower-case" => "lower",
        "punct" | "punctuation" => "punct",
        "xdigit" | "hex-digit" | "hex" => "xdigit",
        "blank" => "blank",
        _ => return None,
    })
}

impl Rx<'_, '_> {
    fn unsupported(&self, form: &Sexp) -> Diagnostic {
        shape(
            "E0297",
            format!(
                "'rx': unsupported form {}; {SUPPORTED}",
                prin1(form, self.b.interner)
            ),
            form.span,
        )
    }

    fn name(&self, form: &Sexp) -> Option<String> {
        form.as_symbol()
            .map(|s| name_of(self.b.interner, s).to_owned())
    }

    fn seq(&self, forms: &[Sexp], depth: u32) -> Result<(String, Shape), Diagnostic> {
        let mut out = String::new();
        let mut count = 0;
        let mut last = Shape::Atom;
        for form in forms {
            let (text, shape) = self.form(form, depth)?;
            if text.is_empty() {
                continue;
            }
            count += 1;
            if shape == Shape::Alt && forms.len() > 1 {
                out.push_str("\\(?:");
                out.push_str(&text);
                out.push_str("\\)");
            } else {
                out.push_str(&text);
            }
            last = shape;
            if out.len() > MAX_RX_BYTES {
                break;
            }
        }
        let shape = match count {
            0 => Shape::Seq,
            1 => last,
            _ => Shape::Seq,
        };
        Ok((out, shape))
    }

    /// `text` ready for a postfix operator.
    fn operand(&self, forms: &[Sexp], depth: u32) -> Result<String, Diagnostic> {
        let (text, shape) = self.seq(forms, depth)?;
        let single_char = text.chars().count() == 1
            || (text.len() == 2 && text.starts_with('\\') && !text.ends_with('('));
        Ok(if shape == Shape::Atom || single_char {
            text
        } else {
            format!("\\(?:{text}\\)")
        })
    }

    fn count(&self, form: &Sexp) -> Result<i64, Diagnostic> {
        match form.kind {
            SexpKind::Int(n) if (0..=65535).contains(&n) => Ok(n),
            _ => Err(self.unsupported(form)),
        }
    }

    #[allow(clippy::too_many_lines)]
    fn form(&self, form: &Sexp, depth: u32) -> Result<(String, Shape), Diagnostic> {
        if depth > 128 {
            return Err(self.unsupported(form));
        }
        let depth = depth + 1;
        match &form.kind {
            SexpKind::Str(text) => {
                let shape = if text.chars().count() == 1 {
                    Shape::Atom
                } else {
                    Shape::Seq
                };
                return Ok((quote(text), shape));
            }
            SexpKind::Int(c) => {
                let c = u32::try_from(*c)
                    .ok()
                    .and_then(char::from_u32)
                    .ok_or_else(|| self.unsupported(form))?;
                return Ok((quote(&c.to_string()), Shape::Atom));
            }
            SexpKind::Sym(_) => {
                let name = self.name(form).unwrap_or_default();
                let text = match name.as_str() {
                    "bol" | "line-start" => "^",
                    "eol" | "line-end" => "$",
                    "bos" | "string-start" | "bot" | "buffer-start" => "\\`",
                    "eos" | "string-end" | "eot" | "buffer-end" => "\\'",
                    "word-boundary" => "\\b",
                    "word-start" | "bow" => "\\<",
                    "word-end" | "eow" => "\\>",
                    "nonl" | "not-newline" | "any" => ".",
                    "anychar" | "anything" => "[^z-a]",
                    _ => {
                        let Some(class) = class(&name) else {
                            return Err(self.unsupported(form));
                        };
                        return Ok((format!("[[:{class}:]]"), Shape::Atom));
                    }
                };
                return Ok((text.to_owned(), Shape::Atom));
            }
            SexpKind::List(_) => {}
            _ => return Err(self.unsupported(form)),
        }
        let items = form.as_list().unwrap_or_default();
        let head = items.first().and_then(|h| self.name(h)).unwrap_or_default();
        let args = &items[1..];
        match head.as_str() {
            "seq" | ":" | "and" | "sequence" => self.seq(args, depth),
            "or" | "|" => {
                let mut parts = Vec::new();
                for arg in args {
                    let (text, _) = self.form(arg, depth)?;
                    parts.push(text);
                }
                if parts.len() == 1 {
                    let only = parts.pop().unwrap_or_default();
                    return Ok((only, Shape::Seq));
                }
                Ok((parts.join("\\|"), Shape::Alt))
            }
            "any" | "in" | "char" => {
                let set = self.set(args)?;
                if set == "^" {
                    return Ok(("\\^".to_owned(), Shape::Atom));
                }
                Ok((format!("[{set}]"), Shape::Atom))
            }
            "not" => {
                let [inner] = args else {
                    return Err(self.unsupported(form));
                };
                if let Some(name) = self.name(inner)
                    && let Some(class) = class(&name)
                {
                    return Ok((format!("[^[:{class}:]]"), Shape::Atom));
                }
                let inner_items = inner.as_list().unwrap_or_default();
                let inner_head = inner_items.first().and_then(|h| self.name(h));
                match inner_head.as_deref() {
                    Some("any" | "in" | "char") => {
                        Ok((format!("[^{}]", self.set(&inner_items[1..])?), Shape::Atom))
                    }
                    _ => Err(self.unsupported(form)),
                }
            }
            "group" | "submatch" => {
                let (text, _) = self.seq(args, depth)?;
                Ok((format!("\\({text}\\)"), Shape::Atom))
            }
            "zero-or-more" | "0+" | "*" => {
                Ok((format!("{}*", self.operand(args, depth)?), Shape::Atom))
            }
            "one-or-more" | "1+" | "+" => {
                Ok((format!("{}+", self.operand(args, depth)?), Shape::Atom))
            }
            "opt" | "optional" | "zero-or-one" | "?" => {
                Ok((format!("{}?", self.operand(args, depth)?), Shape::Atom))
            }
            "=" => {
                let [n, rest @ ..] = args else {
                    return Err(self.unsupported(form));
                };
                let n = self.count(n)?;
                Ok((
                    format!("{}\\{{{n}\\}}", self.operand(rest, depth)?),
                    Shape::Atom,
                ))
            }
            ">=" => {
                let [n, rest @ ..] = args else {
                    return Err(self.unsupported(form));
                };
                let n = self.count(n)?;
                Ok((
                    format!("{}\\{{{n},\\}}", self.operand(rest, depth)?),
                    Shape::Atom,
                ))
            }
            "**" | "repeat" => {
                let [n, m, rest @ ..] = args else {
                    return Err(self.unsupported(form));
                };
                let n = self.count(n)?;
                let m = self.count(m)?;
                Ok((
                    format!("{}\\{{{n},{m}\\}}", self.operand(rest, depth)?),
                    Shape::Atom,
                ))
            }
            "regexp" | "regex" => match args {
                [text] => match &text.kind {
                    SexpKind::Str(s) => Ok((s.to_string(), Shape::Alt)),
                    _ => Err(self.unsupported(form)),
                },
                _ => Err(self.unsupported(form)),
            },
            "literal" => match args {
                [text] => match &text.kind {
                    SexpKind::Str(s) => Ok((quote(s), Shape::Seq)),
                    _ => Err(self.unsupported(form)),
                },
                _ => Err(self.unsupported(form)),
            },
            _ => Err(self.unsupported(form)),
        }
    }

    /// The inside of a bracket expression.
    fn set(&self, args: &[Sexp]) -> Result<String, Diagnostic> {
        let mut ranges: Vec<(char, char)> = Vec::new();
        let mut classes = String::new();
        let push = |c: char, ranges: &mut Vec<(char, char)>| ranges.push((c, c));
        for arg in args {
            match &arg.kind {
                SexpKind::Str(text) => {
                    let text: Vec<char> = text.chars().collect();
                    let mut i = 0;
                    while i < text.len() {
                        if i + 2 < text.len() && text[i + 1] == '-' && text[i] <= text[i + 2] {
                            ranges.push((text[i], text[i + 2]));
                            i += 3;
                        } else {
                            push(text[i], &mut ranges);
                            i += 1;
                        }
                    }
                }
                SexpKind::Int(c) => {
                    let c = u32::try_from(*c)
                        .ok()
                        .and_then(char::from_u32)
                        .ok_or_else(|| self.unsupported(arg))?;
                    push(c, &mut ranges);
                }
                SexpKind::Sym(_) => {
                    let name = self.name(arg).unwrap_or_default();
                    let class = class(&name).ok_or_else(|| self.unsupported(arg))?;
                    classes.push_str(&format!("[:{class}:]"));
                }
                _ => return Err(self.unsupported(arg)),
            }
        }
        // Sorted and merged, as Emacs's rx writes sets; `]` first, `^` not first, `-` last.
        ranges.sort_unstable();
        let mut merged: Vec<(char, char)> = Vec::new();
        for (start, end) in ranges {
            if let Some(last) = merged.last_mut()
                && u32::from(start) <= u32::from(last.1).saturating_add(1)
            {
                last.1 = last.1.max(end);
                continue;
            }
            merged.push((start, end));
        }
        let (mut close, mut dash, mut caret) = (false, false, false);
        let mut chars = String::new();
        for (start, end) in merged {
            if start == end {
                match start {
                    ']' => close = true,
                    '-' => dash = true,
                    '^' => caret = true,
                    c => chars.push(c),
                }
            } else if u32::from(end) == u32::from(start) + 1
                && start != '-'
                && end != '-'
                && start != ']'
                && end != '^'
            {
                chars.push(start);
                chars.push(end);
            } else {
                chars.push(start);
                chars.push('-');
                chars.push(end);
            }
        }
        let mut out = String::new();
        if close {
            out.push(']');
        }
        out.push_str(&chars);
        out.push_str(&classes);
        if caret {
            out.push('^');
        }
        if dash {
            out.push('-');
        }
        if out.is_empty() {
            // Emacs writes the empty set as `[^z-a]`.
            return Ok("^z-a".to_owned());
        }
        Ok(out)
    }
}
