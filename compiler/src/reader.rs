//! The reader: script text to the top-level data of the program, or every diagnostic found.
//!
//! [`read`] runs the checks in the original's order, each kind of failure with the
//! original's message:
//!
//! 1. input size: more than [`Limits::input_bytes`] bytes → `input` error (nothing else runs);
//! 2. lexing ([`crate::lexer`]), which reports bad tokens and keeps going;
//! 3. a depth pre-scan over the tokens, **before** the recursive parser runs: the implicit
//!    `progn` wrapper is depth 0 and every list or vector element (and the datum after a
//!    `'`-style prefix) is one deeper; anything deeper than the limit is an `input` error.
//!    100 000 open parentheses therefore fail in linear time without recursion;
//! 4. parsing ([`crate::parser`]);
//! 5. the node count of `(progn FORM...)`: one per datum plus one per cons cell of every
//!    list (a vector counts its elements but has no cons cells);
//! 6. no datum at all: "Script is empty".
//!
//! The effective depth limit is `min(limits.depth, MAX_DEPTH)`: whatever a host configures,
//! the parser and every later pass that recurses over a [`Sexp`] never go deeper than
//! [`MAX_DEPTH`] (1000) levels. The recursive-descent parser needs about 0.4 KiB of stack
//! per level in a release build and 3–4 KiB in a debug build; when the caller's stack has
//! less left than the pre-scanned depth needs, the parse runs on a heap-allocated stack
//! segment of that size (`stacker`), so the caller's stack only ever holds shallow parses.
//!
//! # Diagnostic codes
//!
//! | code    | kind     | message                                                     |
//! |---------|----------|-------------------------------------------------------------|
//! | `E0001` | `input`  | Script exceeds the %d byte limit                            |
//! | `E0002` | `input`  | Script nesting exceeds the depth limit of %d                |
//! | `E0003` | `input`  | Script exceeds the %d node limit                            |
//! | `E0004` | `script` | Script is empty                                             |
//! | `E0005` | `script` | End of file during parsing                                  |
//! | `E0006` | `script` | Invalid read syntax: %s                                     |
//! | `E0007` | `script` | Improper list in script                                     |
//! | `E0008` | `script` | Unsupported literal of type %s in script                    |
//! | `E0009` | `script` | Reader labels (#N= and #N#) are not supported in script     |
//! | `E0010` | `value`  | Guest integer exceeds its %d bit budget                     |
//! | `E0011` | `script` | Invalid escape character syntax                             |
//! | `E0012` | `script` | Invalid modifier in string                                  |
//! | `E0013` | `script` | Non-Unicode character: 0x%x                                 |
//!
//! Deviations from the original (Emacs `read` plus the reader contract): vector literals
//! are accepted (house decision 7); reader labels are refused instead of read; `\xHH`
//! escapes below 256 give Unicode characters rather than unibyte strings; modifier escapes
//! other than `\C-`/`\^` are refused inside strings; `\N{NAME}` supports only `U+XXXX`;
//! `#s(TAG ...)` reports type `record` when `TAG` is not a plain symbol (Emacs prints any
//! tag); NUL outside a string is refused rather than skipped as whitespace.

use crate::ast::{Sexp, SexpKind};
use crate::codes;
use crate::diagnostic::Diagnostic;
use crate::scratch::{self, slots};
use crate::token::Token;
use crate::{lexer, parser};
use ptc_vm::{ErrorKind, Interner, Limits, Span};

slots! {
    static OPEN: (u64, Span);
}

/// The deepest nesting the reader accepts, whatever [`Limits::depth`] says.
pub const MAX_DEPTH: u64 = 1000;

/// The depth limit in force for `limits`: `min(limits.depth, MAX_DEPTH)`.
#[must_use]
pub fn effective_depth(limits: &Limits) -> u64 {
    limits.depth.min(MAX_DEPTH)
}

fn span_of_source(source: &str) -> Span {
    Span::new(0, u32::try_from(source.len()).unwrap_or(u32::MAX))
}

/// Reads `source` into its top-level data (the caller wraps them in an implicit `progn`),
/// interning symbols into `interner`.
///
/// # Errors
/// Every diagnostic found, in source order; see the module docs for the checks.
pub fn read(
    source: &str,
    limits: &Limits,
    interner: &mut Interner,
) -> Result<Vec<Sexp>, Vec<Diagnostic>> {
    read_sized(source, limits, interner).map(|(forms, _)| forms)
}

/// [`read`], with the data's size as expansion counts it: the sum of
/// [`crate::transform::count_nodes`] over the forms (exact: it is within the node limit),
/// counted by the parser as it built them.
///
/// # Errors
/// As [`read`].
pub fn read_sized(
    source: &str,
    limits: &Limits,
    interner: &mut Interner,
) -> Result<(Vec<Sexp>, u64), Vec<Diagnostic>> {
    let length = u64::try_from(source.len()).unwrap_or(u64::MAX);
    if length > limits.input_bytes {
        let mut at = usize::try_from(limits.input_bytes).unwrap_or(usize::MAX);
        while !source.is_char_boundary(at) {
            at -= 1;
        }
        let at = u32::try_from(at).unwrap_or(u32::MAX);
        return Err(vec![Diagnostic::new(
            codes::INPUT_BYTES,
            ErrorKind::Input,
            format!("Script exceeds the {} byte limit", limits.input_bytes),
            Span::new(at, at),
        )]);
    }
    let (tokens, mut diagnostics) = lexer::lex(source, limits, interner);
    let prescan = match depth_prescan(&tokens, effective_depth(limits)) {
        Ok(prescan) => prescan,
        Err(too_deep) => {
            diagnostics.push(too_deep);
            diagnostics.sort_by_key(|diagnostic| diagnostic.span.start);
            return Err(diagnostics);
        }
    };
    let Some(((forms, errors), counts)) = parse_tokens(tokens, source.len(), prescan.deepest)
    else {
        diagnostics.push(Diagnostic::new(
            codes::DEPTH,
            ErrorKind::Input,
            format!(
                "Script nesting exceeds the depth limit of {}",
                effective_depth(limits)
            ),
            span_of_source(source),
        ));
        return Err(diagnostics);
    };
    diagnostics.extend(
        errors
            .into_iter()
            .map(parser::ParseError::into_diagnostic)
            .map(|diagnostic| match prescan.unclosed.last() {
                Some(open) if diagnostic.code == codes::END_OF_FILE => {
                    diagnostic.with_label(*open, "opened here and never closed")
                }
                _ => diagnostic,
            }),
    );
    if !diagnostics.is_empty() {
        diagnostics.sort_by_key(|diagnostic| diagnostic.span.start);
        diagnostics.dedup();
        return Err(diagnostics);
    }
    let forms = forms.unwrap_or_default();
    // The parser counted the nodes as it built them; only a script over the limit is
    // walked, to find where the count passes it.
    let total = counts.nodes.saturating_add(
        u64::try_from(forms.len())
            .unwrap_or(u64::MAX)
            .saturating_add(3),
    );
    if total > limits.nodes {
        count_nodes(&forms, limits.nodes, span_of_source(source)).map_err(|error| vec![error])?;
    }
    if forms.is_empty() {
        return Err(vec![Diagnostic::new(
            codes::EMPTY,
            ErrorKind::Script,
            "Script is empty",
            span_of_source(source),
        )]);
    }
    Ok((forms, counts.nodes.saturating_sub(counts.lists)))
}

/// Reads `source` with a fresh symbol table: the data and the table they are interned in.
///
/// # Errors
/// As [`read`].
pub fn read_script(
    source: &str,
    limits: &Limits,
) -> Result<(Vec<Sexp>, Interner), Vec<Diagnostic>> {
    let mut interner = Interner::new();
    let forms = read(source, limits, &mut interner)?;
    Ok((forms, interner))
}

/// Stack the parser may need per nesting level (generous: measured on 990 levels, a debug
/// build needs between 3 and 4 KiB per level, a release build about 0.4 KiB).
const STACK_PER_LEVEL: u64 = 8 * 1024;

/// Stack the parser needs besides its nesting.
const STACK_BASE: u64 = 64 * 1024;

/// Nesting a parse may have and run on the caller's stack without asking how much remains
/// (under 64 KiB in a debug build; asking costs a parse of `/proc/self/maps` on a
/// process's main thread; see the lowering's `UNCHECKED_STACK`).
const UNCHECKED_PARSE_LEVELS: u64 = 16;

/// Runs the parser over `tokens`. The parser recurses once per nesting level, so when the
/// caller's stack has less left than the pre-scanned depth needs, the parse runs on a fresh
/// heap-allocated stack segment of that size (`stacker`), on the same thread; a parse no
/// deeper than [`UNCHECKED_PARSE_LEVELS`] runs where it is. `None` when the needed size
/// does not fit in memory addresses.
fn parse_tokens(
    tokens: Vec<(Token, Span)>,
    end: usize,
    deepest: u64,
) -> Option<(parser::Parsed, parser::Counts)> {
    let end = u32::try_from(end).unwrap_or(u32::MAX);
    if deepest <= UNCHECKED_PARSE_LEVELS {
        return Some(parser::parse_counted(tokens, end));
    }
    let needed = deepest
        .saturating_add(4)
        .saturating_mul(STACK_PER_LEVEL)
        .saturating_add(STACK_BASE);
    let needed = usize::try_from(needed).ok()?;
    Some(stacker::maybe_grow(
        needed,
        needed.saturating_mul(2),
        || parser::parse_counted(tokens, end),
    ))
}

/// What the depth pre-scan learnt about an acceptable script.
struct Prescan {
    /// The spans of the brackets still open at the end (innermost last), for the "End of
    /// file" diagnostic.
    unclosed: Vec<Span>,
    /// The deepest datum's depth.
    deepest: u64,
}

/// The depth check over the token stream.
fn depth_prescan(tokens: &[(Token, Span)], limit: u64) -> Result<Prescan, Diagnostic> {
    let too_deep = |span: Span| {
        Diagnostic::new(
            codes::DEPTH,
            ErrorKind::Input,
            format!("Script nesting exceeds the depth limit of {limit}"),
            span,
        )
    };
    // `base` is the depth of the current container's elements; `pending` counts the
    // prefixes waiting for their datum; after a dot, the tail's elements splice into the
    // enclosing list (`(a . (b))` is `(a b)`), so they stay at `base`.
    // Room for ordinary nesting, in this thread's spare buffer: no allocation once warm.
    let mut open = scratch::take(&OPEN, 32);
    let mut base: u64 = 1;
    let mut pending: u64 = 0;
    let mut spliced = false;
    let mut deepest: u64 = 0;
    for (token, span) in tokens {
        deepest = deepest.max(base.saturating_add(pending));
        match token {
            Token::Prefix(_) => {
                if spliced {
                    spliced = false;
                } else {
                    pending = pending.saturating_add(1);
                    // The prefixed datum will sit at `base + pending` at least.
                    if base.saturating_add(pending) > limit {
                        return Err(too_deep(*span));
                    }
                }
            }
            Token::Open
            | Token::OpenVector
            | Token::OpenPropertized
            | Token::OpenUnsupported { .. } => {
                let depth = base.saturating_add(pending);
                open.push((base, *span));
                if spliced && pending == 0 {
                    spliced = false;
                } else {
                    if depth > limit {
                        return Err(too_deep(*span));
                    }
                    base = depth.saturating_add(1);
                }
                pending = 0;
            }
            Token::Close | Token::CloseVector => {
                if let Some((outer, _)) = open.pop() {
                    base = outer;
                }
                pending = 0;
                spliced = false;
            }
            Token::Dot => {
                spliced = true;
                pending = 0;
            }
            Token::Atom(_) | Token::Error => {
                if base.saturating_add(pending) > limit {
                    return Err(too_deep(*span));
                }
                pending = 0;
                spliced = false;
            }
        }
    }
    let unclosed = open.iter().map(|&(_, span)| span).collect();
    scratch::give(&OPEN, open);
    Ok(Prescan { unclosed, deepest })
}

/// The node count of `(progn FORM...)`: one per datum plus one per cons cell of every list.
fn count_nodes(forms: &[Sexp], limit: u64, whole: Span) -> Result<(), Diagnostic> {
    let over = |span: Span| {
        Diagnostic::new(
            codes::NODES,
            ErrorKind::Input,
            format!("Script exceeds the {limit} node limit"),
            span,
        )
    };
    let length = |items: &[Sexp]| u64::try_from(items.len()).unwrap_or(u64::MAX);
    // The wrapper list, its `progn` symbol and its cons cells.
    let mut count = length(forms).saturating_add(3);
    if count > limit {
        return Err(over(whole));
    }
    // Pre-order, as the cons cells would be met: each level is its elements' iterator and
    // a dotted list's tail, visited after its elements.
    let mut stack: Vec<(std::slice::Iter<'_, Sexp>, Option<&Sexp>)> = Vec::with_capacity(16);
    stack.push((forms.iter(), None));
    while let Some((items, tail)) = stack.last_mut() {
        let Some(sexp) = items.next().or_else(|| tail.take()) else {
            stack.pop();
            continue;
        };
        count = count.saturating_add(1);
        match &sexp.kind {
            SexpKind::List(items) => {
                count = count.saturating_add(length(items));
                stack.push((items.iter(), None));
            }
            SexpKind::Vector(items) => stack.push((items.iter(), None)),
            SexpKind::Dotted(items, tail) => {
                count = count.saturating_add(length(items));
                stack.push((items.iter(), Some(tail)));
            }
            _ => {}
        }
        if count > limit {
            return Err(over(sexp.span));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{count_nodes, depth_prescan, effective_depth, parse_tokens};
    use crate::lexer;
    use ptc_vm::{Interner, Limits, Span};

    /// The parser's node count is the walk's exactly: the walk accepts it as the limit and
    /// refuses one less; less the lists, it is the expansion's count.
    #[test]
    fn the_parser_counts_the_nodes_the_walk_counts() {
        let limits = Limits::default();
        for source in [
            "1",
            "(a b c)",
            "(a . b)",
            "(a . nil)",
            "(a . (b c))",
            "(a . (b . c))",
            "(a b . [1 2])",
            "(. x)",
            "(. (a b))",
            "()",
            "[]",
            "[1 (2 3) [4]]",
            "'x '(a b) `(a ,b ,@(c d)) #'f",
            "#(\"s\" 0 1 (face bold))",
            "(let* ((user (get_user :id 42))) (list :name (upcase \"x\")))",
            "(a (b (c (d . e)) . (f)) . ((g)))",
        ] {
            let mut interner = Interner::new();
            let (tokens, diagnostics) = lexer::lex(source, &limits, &mut interner);
            assert!(diagnostics.is_empty(), "{source}");
            let deepest = depth_prescan(&tokens, effective_depth(&limits))
                .expect("shallow")
                .deepest;
            let ((forms, errors), counts) =
                parse_tokens(tokens, source.len(), deepest).expect("parses");
            assert!(errors.is_empty(), "{source}");
            let forms = forms.expect("read");
            let total = counts.nodes + forms.len() as u64 + 3;
            let expansion_size: u64 = forms
                .iter()
                .map(|form| crate::transform::count_nodes(form, u64::MAX))
                .sum();
            assert_eq!(counts.nodes - counts.lists, expansion_size, "{source}");
            assert!(
                count_nodes(&forms, total, Span::default()).is_ok(),
                "{source}"
            );
            assert!(
                count_nodes(&forms, total - 1, Span::default()).is_err(),
                "{source}: {total}"
            );
        }
    }
}
