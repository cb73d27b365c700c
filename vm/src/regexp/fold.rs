//! Case folding of a translated guest regexp, and its compilation.
//!
//! The translation is parsed case-sensitively and folded here: only a class's
//! `\p{Cased}` part is case-folded (the engine's own folding walks every code point of a
//! range, 25 ms per `[[:nonascii:]]` in release, 4 s for a 2 KiB pattern of them), and a
//! negated class (a `NEGATED` marker group around its positive body) is folded before it is
//! negated, as Emacs does with `case-fold-search`. Capture groups are then renumbered 1, 2,
//! ... so the engine's indices have no gaps; the guest's numbers travel in the group names.

use super::{HYBRID_CACHE_CAPACITY, NFA_SIZE_LIMIT};
use regex_automata::meta;
use regex_syntax::hir::{self, Class, ClassUnicode, ClassUnicodeRange, Hir, HirKind};
use std::collections::HashMap;
use std::sync::OnceLock;

/// The name prefix of the marker group around a negated bracket class's positive body.
pub(super) const NEGATED: &str = "ptcneg";

/// `\p{Cased}`: every character whose simple case-folding orbit is not trivial is in it
/// (a unit test checks this against the engine's own folding), so folding a class only
/// needs its cased part.
pub(super) fn cased() -> &'static ClassUnicode {
    static CASED: OnceLock<ClassUnicode> = OnceLock::new();
    CASED.get_or_init(|| {
        let parsed = regex_syntax::Parser::new().parse(r"\p{Cased}").ok();
        match parsed.as_ref().map(Hir::kind) {
            Some(HirKind::Class(Class::Unicode(class))) => class.clone(),
            // Unreachable with the engine's Unicode tables; folding everything stays exact.
            _ => ClassUnicode::new([ClassUnicodeRange::new('\0', char::MAX)]),
        }
    })
}

/// Folded cased parts already computed during one compilation, by their ranges.
type FoldMemo = HashMap<Vec<(char, char)>, ClassUnicode>;

/// `class` closed under simple case folding, folding only its cased part: the engine's
/// own folding walks every code point of a range (25 ms for `[\x80-\x{10FFFF}]`). A part
/// that is all of `\p{Cased}` (`.`, `\W`, wide ranges) is already closed; other parts are
/// folded once per compilation.
fn fold_class(class: &ClassUnicode, memo: &mut FoldMemo) -> ClassUnicode {
    let mut part = class.clone();
    part.intersect(cased());
    if part.ranges().is_empty() || part == *cased() {
        return class.clone();
    }
    let key: Vec<(char, char)> = part.ranges().iter().map(|r| (r.start(), r.end())).collect();
    let folded = memo.entry(key).or_insert_with(|| {
        // Folding cannot fail with the `unicode-case` tables compiled in; unfolded is the
        // conservative fallback.
        let _ = part.try_case_fold_simple();
        part
    });
    let mut out = class.clone();
    out.union(folded);
    out
}

/// The class a marker group holds: the parser turns a one-character class into a literal.
fn positive_class(hir: &Hir) -> Option<ClassUnicode> {
    match hir.kind() {
        HirKind::Class(Class::Unicode(class)) => Some(class.clone()),
        HirKind::Literal(literal) => {
            let text = std::str::from_utf8(&literal.0).ok()?;
            let mut chars = text.chars();
            let c = chars.next()?;
            chars
                .next()
                .is_none()
                .then(|| ClassUnicode::new([ClassUnicodeRange::new(c, c)]))
        }
        _ => None,
    }
}

/// The case-insensitive form of `hir` (parsed case-sensitively): literals and classes
/// folded, negated bracket classes (the `NEGATED` marker groups) folded before negation,
/// as Emacs and the engine's own case-insensitive mode do.
fn fold(hir: &Hir, memo: &mut FoldMemo) -> Hir {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) | HirKind::Class(Class::Bytes(_)) => hir.clone(),
        HirKind::Literal(literal) => match std::str::from_utf8(&literal.0) {
            Ok(text) => Hir::concat(
                text.chars()
                    .map(|c| {
                        let single = ClassUnicode::new([ClassUnicodeRange::new(c, c)]);
                        let folded = fold_class(&single, memo);
                        if folded == single {
                            Hir::literal(c.to_string().into_bytes())
                        } else {
                            Hir::class(Class::Unicode(folded))
                        }
                    })
                    .collect(),
            ),
            Err(_) => hir.clone(),
        },
        HirKind::Class(Class::Unicode(class)) => {
            Hir::class(Class::Unicode(fold_class(class, memo)))
        }
        HirKind::Repetition(repetition) => Hir::repetition(hir::Repetition {
            min: repetition.min,
            max: repetition.max,
            greedy: repetition.greedy,
            sub: Box::new(fold(&repetition.sub, memo)),
        }),
        HirKind::Capture(capture) => {
            let negated = capture
                .name
                .as_deref()
                .is_some_and(|n| n.starts_with(NEGATED));
            match (negated, positive_class(&capture.sub)) {
                (true, Some(class)) => {
                    let mut folded = fold_class(&class, memo);
                    folded.negate();
                    Hir::class(Class::Unicode(folded))
                }
                _ => Hir::capture(hir::Capture {
                    index: capture.index,
                    name: capture.name.clone(),
                    sub: Box::new(fold(&capture.sub, memo)),
                }),
            }
        }
        HirKind::Concat(subs) => Hir::concat(subs.iter().map(|h| fold(h, memo)).collect()),
        HirKind::Alternation(subs) => {
            Hir::alternation(subs.iter().map(|h| fold(h, memo)).collect())
        }
    }
}

/// `hir` with its capture groups numbered 1, 2, ... in order of their opening parenthesis:
/// [`fold`] turns the marker groups of negated classes into plain classes, which would
/// leave gaps in the numbering (and shift the guest's `\\(...\\)` groups).
fn renumber(hir: &Hir, next: &mut u32) -> Hir {
    match hir.kind() {
        HirKind::Capture(capture) => {
            let index = *next;
            *next += 1;
            Hir::capture(hir::Capture {
                index,
                name: capture.name.clone(),
                sub: Box::new(renumber(&capture.sub, next)),
            })
        }
        HirKind::Repetition(repetition) => Hir::repetition(hir::Repetition {
            min: repetition.min,
            max: repetition.max,
            greedy: repetition.greedy,
            sub: Box::new(renumber(&repetition.sub, next)),
        }),
        HirKind::Concat(subs) => Hir::concat(subs.iter().map(|h| renumber(h, next)).collect()),
        HirKind::Alternation(subs) => {
            Hir::alternation(subs.iter().map(|h| renumber(h, next)).collect())
        }
        _ => hir.clone(),
    }
}

/// Compiles translated syntax with the engine's limits: parsed case-sensitively, folded
/// by [`fold`], then compiled from the folded syntax tree.
pub(super) fn build(translated: &str) -> Result<(meta::Regex, Hir), &'static str> {
    let parsed = regex_syntax::ParserBuilder::new()
        .multi_line(true)
        .nest_limit(64)
        .build()
        .parse(translated)
        .map_err(|_| "Invalid regular expression")?;
    let folded = renumber(&fold(&parsed, &mut FoldMemo::new()), &mut 1);
    let regex = meta::Builder::new()
        .configure(
            meta::Config::new()
                .nfa_size_limit(Some(NFA_SIZE_LIMIT))
                .onepass_size_limit(Some(NFA_SIZE_LIMIT))
                .dfa_size_limit(Some(NFA_SIZE_LIMIT))
                .hybrid_cache_capacity(HYBRID_CACHE_CAPACITY),
        )
        .build_from_hir(&folded)
        .map_err(|error| {
            if error.size_limit().is_some() {
                "Regular expression too big"
            } else {
                "Invalid regular expression"
            }
        })?;
    Ok((regex, folded))
}
