//! Shared helpers of the `static_*` tests: read source text into `Sexp` forms, print
//! them back, and run the static pipeline.
//!
//! `read` is a deliberately tiny reader (lists, vectors, strings with `\\`/`\"`/`\n`
//! escapes, integers, floats, symbols, `'` `` ` `` `,` `,@`, `;` comments) used until the
//! real reader lands; it keeps byte spans so span assertions stay meaningful.

#![allow(dead_code)]

use ptc_compiler::ast::{Sexp, SexpKind};
use ptc_compiler::definitions::{self, Definitions};
use ptc_compiler::diagnostic::Diagnostic;
use ptc_compiler::direct;
use ptc_compiler::preflight;
use ptc_compiler::roster::Roster;
use ptc_compiler::tables::prin1;
use ptc_vm::{Interner, Limits, Span};
use std::sync::Arc;

/// Reads every top-level form of `src`.
pub fn read(src: &str, interner: &mut Interner) -> Vec<Sexp> {
    let mut reader = Reader {
        bytes: src.as_bytes(),
        src,
        pos: 0,
        interner,
    };
    let mut forms = Vec::new();
    loop {
        reader.skip_space();
        if reader.pos >= reader.bytes.len() {
            return forms;
        }
        forms.push(reader.datum());
    }
}

/// Reads exactly one form.
pub fn read_one(src: &str, interner: &mut Interner) -> Sexp {
    let mut forms = read(src, interner);
    assert_eq!(forms.len(), 1, "expected one form in {src}");
    forms.remove(0)
}

/// Reads one form, then renames the placeholder symbols `BQ`, `COMMA` and `SPLICE` to
/// `` ` ``, `,` and `,@` (for shapes the reader's sugar cannot produce).
pub fn read_raw(src: &str, interner: &mut Interner) -> Sexp {
    let mut form = read_one(src, interner);
    let pairs: Vec<_> = [("BQ", "`"), ("COMMA", ","), ("SPLICE", ",@")]
        .into_iter()
        .map(|(from, to)| (interner.intern(from), interner.intern(to)))
        .collect();
    let mut pending = vec![&mut form];
    while let Some(datum) = pending.pop() {
        match &mut datum.kind {
            SexpKind::Sym(symbol) => {
                if let Some((_, to)) = pairs.iter().find(|(from, _)| from == symbol) {
                    *symbol = *to;
                }
            }
            SexpKind::List(items) | SexpKind::Vector(items) => pending.extend(items.iter_mut()),
            _ => {}
        }
    }
    form
}

/// Prints forms separated by spaces, as `prin1` would.
pub fn show(forms: &[Sexp], interner: &Interner) -> String {
    forms
        .iter()
        .map(|f| prin1(f, interner))
        .collect::<Vec<_>>()
        .join(" ")
}

struct Reader<'a> {
    bytes: &'a [u8],
    src: &'a str,
    pos: usize,
    interner: &'a mut Interner,
}

fn span(start: usize, end: usize) -> Span {
    Span::new(start as u32, end as u32)
}

impl Reader<'_> {
    fn skip_space(&mut self) {
        while let Some(&b) = self.bytes.get(self.pos) {
            if b == b';' {
                while self.bytes.get(self.pos).is_some_and(|&c| c != b'\n') {
                    self.pos += 1;
                }
            } else if b.is_ascii_whitespace() {
                self.pos += 1;
            } else {
                return;
            }
        }
    }

    fn sugar(&mut self, start: usize, name: &str) -> Sexp {
        let operator = Sexp::new(
            SexpKind::Sym(self.interner.intern(name)),
            span(start, self.pos),
        );
        let inner = self.datum();
        let end = inner.span.end as usize;
        Sexp::new(SexpKind::List(vec![operator, inner]), span(start, end))
    }

    fn datum(&mut self) -> Sexp {
        self.skip_space();
        let start = self.pos;
        let b = *self.bytes.get(self.pos).expect("unexpected end of input");
        match b {
            b'(' | b'[' => {
                let close = if b == b'(' { b')' } else { b']' };
                self.pos += 1;
                let mut items = Vec::new();
                loop {
                    self.skip_space();
                    if self.bytes.get(self.pos) == Some(&close) {
                        self.pos += 1;
                        break;
                    }
                    items.push(self.datum());
                }
                let kind = if close == b']' {
                    SexpKind::Vector(items)
                } else if items.is_empty() {
                    SexpKind::Nil
                } else {
                    SexpKind::List(items)
                };
                Sexp::new(kind, span(start, self.pos))
            }
            b'\'' => {
                self.pos += 1;
                self.sugar(start, "quote")
            }
            b'`' => {
                self.pos += 1;
                self.sugar(start, "`")
            }
            b',' => {
                self.pos += 1;
                if self.bytes.get(self.pos) == Some(&b'@') {
                    self.pos += 1;
                    self.sugar(start, ",@")
                } else {
                    self.sugar(start, ",")
                }
            }
            b'"' => {
                self.pos += 1;
                let mut text = String::new();
                let mut chars = self.src[self.pos..].char_indices();
                loop {
                    let (offset, c) = chars.next().expect("unterminated string");
                    match c {
                        '"' => {
                            self.pos += offset + 1;
                            break;
                        }
                        '\\' => {
                            let (_, escaped) = chars.next().expect("unterminated escape");
                            text.push(if escaped == 'n' { '\n' } else { escaped });
                        }
                        other => text.push(other),
                    }
                }
                Sexp::new(SexpKind::Str(Arc::from(text)), span(start, self.pos))
            }
            _ => {
                while self
                    .bytes
                    .get(self.pos)
                    .is_some_and(|&c| !c.is_ascii_whitespace() && !b"()[]\"';`,".contains(&c))
                {
                    self.pos += 1;
                }
                let text = &self.src[start..self.pos];
                let kind = if text == "nil" {
                    SexpKind::Nil
                } else if text == "t" {
                    SexpKind::T
                } else if let Ok(n) = text.parse::<i64>() {
                    SexpKind::Int(n)
                } else if text.contains('.') && text.parse::<f64>().is_ok() {
                    SexpKind::Float(text.parse().unwrap())
                } else {
                    SexpKind::Sym(self.interner.intern(text))
                };
                Sexp::new(kind, span(start, self.pos))
            }
        }
    }
}

/// The static pipeline up to preflight: direct classification, definitions, preflight.
/// Returns the definitions or every diagnostic.
pub fn check(
    src: &str,
    roster: &Roster,
    limits: &Limits,
    interner: &mut Interner,
) -> Result<Definitions, Vec<Diagnostic>> {
    let forms = read(src, interner);
    let direct = direct::classify(&forms, roster, interner);
    let effective = direct::effective_roster(roster, direct.as_ref());
    let definitions = definitions::collect(forms, &effective, interner)?;
    preflight::preflight(&definitions, roster, direct.as_ref(), limits, interner)?;
    Ok(definitions)
}

/// The messages of `check`'s diagnostics (empty when accepted).
pub fn messages(src: &str, roster: &Roster) -> Vec<String> {
    let mut interner = Interner::new();
    match check(src, roster, &Limits::default(), &mut interner) {
        Ok(_) => Vec::new(),
        Err(diagnostics) => diagnostics.into_iter().map(|d| d.message).collect(),
    }
}
