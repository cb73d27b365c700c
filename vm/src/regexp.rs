//! Guest regexps: the original's bounded Emacs subset, run on a linear-time engine.
//!
//! This module owns everything between a guest regexp string and a match:
//!
//! 1. **Byte cap** — a pattern longer than `limits.regexp_bytes` fails with kind
//!    `atomic-work`, "Guest regexp exceeds its %d byte budget".
//! 2. **Subset scan** ([`check_subset`]) — the original's single left-to-right pass
//!    (dialect notes §9): quantifiers (`*`, `+`, `?`, `\{m,n\}`) only directly after one
//!    literal, escape, dot or bracket class, at most [`MAX_QUANTIFIED_ATOMS`] of them; no
//!    `\|`, no backreferences, no `\(?`, no quantified groups, no stacked or leading
//!    quantifiers. Inside `[...]` the scan ignores everything up to the next `]`, exactly as
//!    the original's scanner does (conservative for `[]a]`).
//! 3. **Translation** of the Emacs syntax into `regex-syntax` syntax: `\(`/`\)` groups,
//!    `\{m,n\}` counts, literal `(` `)` `{` `}` `|`, `^` and `$` as line anchors in the
//!    contexts where Emacs treats them as anchors (literal elsewhere), `` \` `` and `\'`
//!    string anchors, `\w` `\W` `\b` `\B` `\<` `\>` `\_<` `\_>`, `\sC`/`\SC` syntax classes
//!    for whitespace, word, symbol, punctuation, parentheses and string quotes, bracket
//!    classes with `[:name:]` classes, a leading `]`, ranges (a reversed range is empty, as
//!    in Emacs) and a literal backslash, and `.` as any character but newline. Invalid
//!    syntax fails with kind `atomic-work`, "Invalid guest regexp %S: MESSAGE", MESSAGE being
//!    Emacs's text for the same fault ("Unmatched [ or [^", "Trailing backslash", ...).
//! 4. **Compilation** with `regex-automata`'s meta engine under a compiled-size limit, so a
//!    search is O(compiled size × input) whatever the pattern. The translation is parsed
//!    case-sensitively and folded here ([`fold`]): only a class's `\p{Cased}` part is
//!    case-folded (the engine's own folding walks every code point of a range, 25 ms per
//!    `[[:nonascii:]]` in release, 4 s for a 2 KiB pattern of them), and a negated bracket
//!    class is folded before it is negated, as Emacs does. A compilation at run time is
//!    charged fuel by the compiled size ([`Regex::compile_units`]); the per-run
//!    [`RegexCache`] is bounded by [`CACHE_MEMORY`] as well as by entries.
//! 5. **Work check** before every search ([`Regex::check_work`]): the pattern's *weight*
//!    times max(1, input bytes) must stay within `limits.regexp_work` (kind `atomic-work`,
//!    "Guest regexp exceeds its atomic work budget"). The weight is the pattern's byte
//!    length plus, for every counted repetition `X\{m,n\}`, X's bytes times (bound − 1), so a
//!    short pattern that expands to a large automaton is weighed by what it expands to.
//!
//! Matching follows Emacs's defaults: leftmost-first (the match a backtracking matcher
//! finds first) and **case-insensitive**, because `case-fold-search` is `t` by default and
//! the original ran `string-match-p` without binding it.
//!
//! # What the work budget admits
//!
//! The original estimated a backtracking matcher's cost as R·F^max(1,q) (R pattern bytes,
//! F = max(1, input bytes), q quantifier count). This engine is linear, so the check is
//! R'·F with R' the weight above. With the default budget W = 4 194 304, the largest
//! input (bytes) each admits:
//!
//! | pattern | R | q | original: R·F^q ≤ W | here: R'·F ≤ W |
//! |---|---|---|---|---|
//! | `^[0-9]+` ... 8 bytes, 1 quantifier | 8 | 1 | 524 288 | 524 288 |
//! | `^[ \t]*[0-9]+` | 12 | 2 | 591 | 349 525 |
//! | 12 bytes, 3 quantifiers | 12 | 3 | 70 | 349 525 |
//! | `a*a*a*a*a*a*a*a*b` | 17 | 8 | 4 | 246 723 |
//! | `x\{1000\}` | 8 (R' = 1 007) | 1 | 524 288 | 4 165 |
//!
//! Every input the original admits is admitted here (R' = R without counted repetitions,
//! and F ≤ F^q), except inputs to counted repetitions of large bounds, which the original
//! underestimated.

use crate::error::{Error, ErrorKind, Result};
use crate::limits::Limits;
use crate::print::write_quoted_string;
use regex_automata::{Input, meta};
use regex_syntax::hir::{self, Class, ClassUnicode, ClassUnicodeRange, Hir, HirKind};
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::OnceLock;

/// The byte (or, in match data, character) span of every group of one match: group 0 the
/// whole match, `None` for a group that did not take part.
pub type Groups = Vec<Option<(usize, usize)>>;

/// The most quantified atoms one guest regexp may hold (dialect notes §8.2).
pub const MAX_QUANTIFIED_ATOMS: u32 = 8;

/// Emacs's `RE_DUP_MAX`: the largest bound of a `\{m,n\}` count.
const MAX_REPETITION: u64 = 0xFFFF;

/// Compiled-size limit of one guest regexp's automaton (bytes of heap).
const NFA_SIZE_LIMIT: usize = 4 << 20;

/// Lazy-DFA cache capacity of one guest regexp.
const HYBRID_CACHE_CAPACITY: usize = 2 << 20;

/// Most compiled regexps one [`RegexCache`] keeps.
const CACHE_ENTRIES: usize = 16;

/// Most memory one [`RegexCache`] may account for (bytes): every entry is counted as its
/// compiled size plus the largest search cache it can grow (`HYBRID_CACHE_CAPACITY` for
/// the lazy DFA plus `SEARCH_CACHE_EXTRA` for the other engines' scratch space).
pub const CACHE_MEMORY: usize = 24 << 20;

/// Compiled bytes per fuel unit charged for compiling a regexp ([`Regex::compile_units`]).
pub const COMPILE_BYTES_PER_UNIT: usize = 64;

/// The bounded backtracker's visited set and the PikeVM's scratch space, per regexp.
const SEARCH_CACHE_EXTRA: usize = 256 << 10;

/// How a guest pattern is embedded before compiling (the wrappers Emacs's own Lisp adds).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Wrap {
    /// The pattern as written (`string-match-p`, `split-string` separators and leading trim).
    Plain,
    /// `` \`\(?:P\) ``: `string-trim-left`.
    Start,
    /// `\(?:P\)\'`: `string-trim-right`.
    End,
    /// `P\'` by plain concatenation, as `split-string` trims the end of a piece: a final
    /// `$` of P is then followed by `\'` and so is a literal, as in Emacs.
    EndConcatenated,
    /// The pattern as written with its `\(...\)` groups capturing (`string-match`,
    /// `replace-regexp-in-string`), so the match data can report them.
    Capturing,
}

/// One compiled guest regexp.
#[derive(Debug)]
pub struct Regex {
    regex: meta::Regex,
    weight: u64,
}

impl Regex {
    /// Fuel for having compiled this regexp: one unit per [`COMPILE_BYTES_PER_UNIT`]
    /// bytes of compiled automaton (all engines), the work the compiler did to build it,
    /// at most `NFA_SIZE_LIMIT / COMPILE_BYTES_PER_UNIT` (65 536) units.
    #[must_use]
    pub fn compile_units(&self) -> u64 {
        let bytes = self.regex.memory_usage().min(NFA_SIZE_LIMIT);
        u64::try_from(bytes / COMPILE_BYTES_PER_UNIT).unwrap_or(u64::MAX)
    }

    /// The memory this regexp may hold: compiled size plus its largest search caches.
    #[must_use]
    pub fn memory(&self) -> usize {
        self.regex
            .memory_usage()
            .saturating_add(HYBRID_CACHE_CAPACITY)
            .saturating_add(SEARCH_CACHE_EXTRA)
    }
}

impl Regex {
    /// Compiles `pattern` (checked in full: byte cap, subset, syntax) embedded as `wrap`.
    ///
    /// # Errors
    ///
    /// Kind `atomic-work` for the byte cap, the subset and invalid syntax.
    pub fn new(pattern: &str, wrap: Wrap, limits: &Limits) -> Result<Regex> {
        let weight = scan(pattern, limits)?;
        let translated = translate(pattern, wrap).map_err(|message| invalid(pattern, message))?;
        let regex = build(&translated).map_err(|message| invalid(pattern, message))?;
        Ok(Regex { regex, weight })
    }

    /// The pattern's weight: its bytes plus the expansion of its counted repetitions.
    #[must_use]
    pub fn weight(&self) -> u64 {
        self.weight
    }

    /// Checks that searching an input of `input_bytes` stays within the work budget.
    ///
    /// # Errors
    ///
    /// Kind `atomic-work`, "Guest regexp exceeds its atomic work budget".
    pub fn check_work(&self, input_bytes: usize, limits: &Limits) -> Result<()> {
        let input = u64::try_from(input_bytes).unwrap_or(u64::MAX).max(1);
        if self.weight.saturating_mul(input) > limits.regexp_work {
            return Err(Error::new(
                ErrorKind::AtomicWork,
                "Guest regexp exceeds its atomic work budget",
            ));
        }
        Ok(())
    }

    /// The leftmost-first match in `haystack` starting at or after byte `start`, as byte
    /// offsets; the text before `start` still counts as context for `^`, `\b` and the
    /// like. `None` when `start` is past the end or not a character boundary.
    #[must_use]
    pub fn find_at(&self, haystack: &str, start: usize) -> Option<(usize, usize)> {
        if !haystack.is_char_boundary(start) {
            return None;
        }
        let input = Input::new(haystack).span(start..haystack.len());
        self.regex.search(&input).map(|m| (m.start(), m.end()))
    }

    /// The leftmost-first match at or after byte `start` with every group's byte span
    /// (group 0 the whole match; `None` for a group that did not take part). Only a
    /// [`Wrap::Capturing`] regexp has groups beyond 0.
    #[must_use]
    pub fn captures_at(&self, haystack: &str, start: usize) -> Option<Groups> {
        if !haystack.is_char_boundary(start) {
            return None;
        }
        let input = Input::new(haystack).span(start..haystack.len());
        let mut captures = self.regex.create_captures();
        self.regex.search_captures(&input, &mut captures);
        if !captures.is_match() {
            return None;
        }
        // The marker groups around negated bracket classes are not the guest's groups:
        // skip them so `\\(...\\)` groups keep Emacs's numbers.
        let names = self
            .regex
            .group_info()
            .pattern_names(regex_automata::PatternID::ZERO);
        Some(
            names
                .enumerate()
                .filter(|(_, name)| !name.is_some_and(|n| n.starts_with(NEGATED)))
                .map(|(group, _)| captures.get_group(group).map(|span| (span.start, span.end)))
                .collect(),
        )
    }

    /// Whether the regexp matches somewhere in `haystack`.
    #[must_use]
    pub fn is_match(&self, haystack: &str) -> bool {
        self.regex.is_match(haystack)
    }
}

/// A small per-run cache of compiled regexps, so a loop calling `string-match-p` with the
/// same pattern compiles it once. Holds at most 16 entries, most recent first, and at most
/// [`CACHE_MEMORY`] bytes as [`Regex::memory`] counts them (least recent evicted first; the
/// newest entry is always kept, and it alone is bounded by the compiled-size limits).
///
/// Empty, it is one null pointer: its contents are boxed on first use, so a run that uses
/// no regexp (most) carries 8 bytes, not two empty vectors.
#[derive(Debug, Default)]
pub struct RegexCache {
    inner: Option<Box<CacheInner>>,
}

#[derive(Debug, Default)]
struct CacheInner {
    entries: Vec<(Box<str>, Wrap, Arc<Regex>)>,
    /// The run's match data: what the last successful `string-match` found, as character
    /// indices of its string per group. Per run (the cache belongs to one machine), so no
    /// state is shared between runs.
    match_data: Groups,
}

impl RegexCache {
    /// An empty cache.
    #[must_use]
    pub fn new() -> Self {
        RegexCache::default()
    }

    /// The run's match data: what the last successful `string-match` found, as character
    /// indices of its string per group (empty before any match).
    #[must_use]
    pub fn match_data(&self) -> &[Option<(usize, usize)>] {
        self.inner.as_deref().map_or(&[], |inner| &inner.match_data)
    }

    /// Replaces the run's match data.
    pub fn set_match_data(&mut self, data: Groups) {
        self.inner_mut().match_data = data;
    }

    fn inner_mut(&mut self) -> &mut CacheInner {
        self.inner.get_or_insert_with(Box::default)
    }

    fn entries(&self) -> &[(Box<str>, Wrap, Arc<Regex>)] {
        self.inner.as_deref().map_or(&[], |inner| &inner.entries)
    }

    /// The compiled form of `pattern` embedded as `wrap`, compiling it on a miss.
    ///
    /// # Errors
    ///
    /// As [`Regex::new`].
    pub fn get(&mut self, pattern: &str, wrap: Wrap, limits: &Limits) -> Result<Arc<Regex>> {
        self.get_counted(pattern, wrap, limits)
            .map(|(regex, _)| regex)
    }

    /// As [`RegexCache::get`], with the fuel the lookup costs: the regexp's
    /// [`Regex::compile_units`] when it was compiled now, 0 on a hit.
    ///
    /// # Errors
    ///
    /// As [`Regex::new`].
    pub fn get_counted(
        &mut self,
        pattern: &str,
        wrap: Wrap,
        limits: &Limits,
    ) -> Result<(Arc<Regex>, u64)> {
        if let Some(index) = self
            .entries()
            .iter()
            .position(|(p, w, _)| &**p == pattern && *w == wrap)
        {
            let entries = &mut self.inner_mut().entries;
            let entry = entries.remove(index);
            let regex = Arc::clone(&entry.2);
            entries.insert(0, entry);
            return Ok((regex, 0));
        }
        let regex = Arc::new(Regex::new(pattern, wrap, limits)?);
        let inner = self.inner_mut();
        inner.entries.truncate(CACHE_ENTRIES - 1);
        inner
            .entries
            .insert(0, (pattern.into(), wrap, Arc::clone(&regex)));
        while inner.entries.len() > 1 && memory(&inner.entries) > CACHE_MEMORY {
            inner.entries.pop();
        }
        let units = regex.compile_units();
        Ok((regex, units))
    }

    /// The memory the cached regexps may hold, as [`Regex::memory`] counts it.
    #[must_use]
    pub fn memory(&self) -> usize {
        memory(self.entries())
    }

    /// The newest entry's memory (0 when empty).
    #[must_use]
    pub fn newest_memory(&self) -> usize {
        self.entries()
            .first()
            .map_or(0, |(_, _, regex)| regex.memory())
    }
}

/// The memory `entries` hold, as [`Regex::memory`] counts it.
fn memory(entries: &[(Box<str>, Wrap, Arc<Regex>)]) -> usize {
    entries
        .iter()
        .map(|(_, _, regex)| regex.memory())
        .fold(0, usize::saturating_add)
}

/// The static check of a guest regexp: byte cap, subset scan and compilation, without the
/// input-dependent work check. The compiler's preflight runs it on literal regexps.
///
/// # Errors
///
/// Kind `atomic-work`: "Guest regexp exceeds its %d byte budget", "Guest regexp %S is
/// outside the bounded subset: ...", "Invalid guest regexp %S: MESSAGE".
pub fn check_subset(pattern: &str, limits: &Limits) -> Result<()> {
    Regex::new(pattern, Wrap::Plain, limits).map(drop)
}

/// `pattern` printed as a string literal, for messages.
fn quoted(pattern: &str) -> String {
    let mut out = String::new();
    write_quoted_string(&mut out, pattern);
    out
}

fn invalid(pattern: &str, message: &str) -> Error {
    Error::new(
        ErrorKind::AtomicWork,
        format!("Invalid guest regexp {}: {message}", quoted(pattern)),
    )
}

fn outside_subset(pattern: &str) -> Error {
    Error::new(
        ErrorKind::AtomicWork,
        format!(
            "Guest regexp {} is outside the bounded subset: quantifiers apply only to one \
             literal, escape, dot, or bracket class; alternation \\|, backreferences \\1-\\9, \
             \\(? groups, quantified groups, stacked, leading or non-greedy quantifiers, \
             malformed \\{{m,n\\}} counts and more than {MAX_QUANTIFIED_ATOMS} quantified \
             atoms are rejected",
            quoted(pattern)
        ),
    )
}

/// What the subset scan saw last.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Previous {
    Nothing,
    Atom,
    Group,
    Quantifier,
}

/// The byte cap and the original's subset scan; returns the pattern's weight.
fn scan(pattern: &str, limits: &Limits) -> Result<u64> {
    let len = u64::try_from(pattern.len()).unwrap_or(u64::MAX);
    if len > limits.regexp_bytes {
        return Err(Error::new(
            ErrorKind::AtomicWork,
            format!(
                "Guest regexp exceeds its {} byte budget",
                limits.regexp_bytes
            ),
        ));
    }
    let bytes = pattern.as_bytes();
    let mut previous = Previous::Nothing;
    let mut quantifiers = 0u32;
    let mut weight = len;
    let mut atom_len = 0u64;
    let mut index = 0usize;
    let mut quantify = |previous: &mut Previous, bound: u64, atom_len: u64| -> Result<()> {
        if *previous != Previous::Atom {
            return Err(outside_subset(pattern));
        }
        quantifiers += 1;
        if quantifiers > MAX_QUANTIFIED_ATOMS {
            return Err(outside_subset(pattern));
        }
        weight = weight.saturating_add(atom_len.saturating_mul(bound.saturating_sub(1)));
        *previous = Previous::Quantifier;
        Ok(())
    };
    while let Some(&byte) = bytes.get(index) {
        match byte {
            b'[' => {
                // Everything up to the next `]` belongs to the class.
                let start = index;
                index += 1;
                while bytes.get(index).is_some_and(|&b| b != b']') {
                    index += 1;
                }
                if index < bytes.len() {
                    previous = Previous::Atom;
                    atom_len = u64::try_from(index + 1 - start).unwrap_or(u64::MAX);
                }
                index += 1;
            }
            b'*' | b'+' | b'?' => {
                quantify(&mut previous, 1, atom_len)?;
                index += 1;
            }
            b'^' | b'$' => {
                previous = Previous::Nothing;
                index += 1;
            }
            b'\\' => match bytes.get(index + 1) {
                Some(b'{') => {
                    let (bound, next) =
                        scan_count(bytes, index + 2).ok_or_else(|| outside_subset(pattern))?;
                    quantify(&mut previous, bound, atom_len)?;
                    index = next;
                }
                Some(b'|' | b'1'..=b'9') => return Err(outside_subset(pattern)),
                Some(b'(') => {
                    if bytes.get(index + 2) == Some(&b'?') {
                        return Err(outside_subset(pattern));
                    }
                    previous = Previous::Nothing;
                    index += 2;
                }
                Some(b')') => {
                    previous = Previous::Group;
                    index += 2;
                }
                Some(_) => {
                    previous = Previous::Atom;
                    atom_len = 2;
                    index += 2;
                }
                // A trailing backslash: the translation reports it.
                None => index += 1,
            },
            _ => {
                previous = Previous::Atom;
                atom_len = 1;
                index += 1;
            }
        }
    }
    Ok(weight)
}

/// Scans the body of `\{...\}` starting after `\{`: digits, optionally one comma after at
/// least one digit and more digits, then `\}`. Returns the larger bound (the lower bound
/// plus one when unbounded) and the index after `\}`.
fn scan_count(bytes: &[u8], mut index: usize) -> Option<(u64, usize)> {
    let mut low = 0u64;
    let mut digits = 0usize;
    while let Some(&b) = bytes.get(index).filter(|b| b.is_ascii_digit()) {
        low = low.saturating_mul(10).saturating_add(u64::from(b - b'0'));
        digits += 1;
        index += 1;
    }
    if digits == 0 {
        return None;
    }
    let mut bound = low;
    if bytes.get(index) == Some(&b',') {
        index += 1;
        let mut high = 0u64;
        let mut high_digits = 0usize;
        while let Some(&b) = bytes.get(index).filter(|b| b.is_ascii_digit()) {
            high = high.saturating_mul(10).saturating_add(u64::from(b - b'0'));
            high_digits += 1;
            index += 1;
        }
        bound = if high_digits == 0 {
            low.saturating_add(1)
        } else {
            high.max(low)
        };
    }
    if bytes.get(index) == Some(&b'\\') && bytes.get(index + 1) == Some(&b'}') {
        Some((bound, index + 2))
    } else {
        None
    }
}

/// Translates Emacs regexp syntax into `regex-syntax` syntax. Errors are Emacs's messages.
fn translate(pattern: &str, wrap: Wrap) -> Result<String, &'static str> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut out = String::with_capacity(pattern.len() + 16);
    match wrap {
        Wrap::Start => out.push_str(r"\A(?:"),
        Wrap::End => out.push_str("(?:"),
        Wrap::Plain | Wrap::EndConcatenated | Wrap::Capturing => {}
    }
    // `^` is an anchor at the start of the pattern and after `\(`; `$` at the end of the
    // pattern and before `\)` (Emacs's context rules); elsewhere both are literal.
    let dollar_at_end = wrap != Wrap::EndConcatenated;
    let mut depth = 0usize;
    let mut index = 0usize;
    let mut group_start = true;
    while let Some(&c) = chars.get(index) {
        let at_group_start = std::mem::replace(&mut group_start, false);
        index += 1;
        match c {
            '^' if at_group_start => {
                out.push('^');
                group_start = true;
            }
            '$' if (index == chars.len() && dollar_at_end)
                || (chars.get(index) == Some(&'\\') && chars.get(index + 1) == Some(&')')) =>
            {
                out.push('$');
            }
            '.' => out.push('.'),
            '*' | '+' | '?' if !at_group_start => out.push(c),
            '[' => index = translate_class(&chars, index, &mut out)?,
            '\\' => {
                let Some(&next) = chars.get(index) else {
                    return Err("Trailing backslash");
                };
                index += 1;
                match next {
                    '(' => {
                        if chars.get(index) == Some(&'?') {
                            return Err("Invalid regular expression");
                        }
                        depth += 1;
                        out.push_str(if wrap == Wrap::Capturing { "(" } else { "(?:" });
                        group_start = true;
                    }
                    ')' => {
                        depth = depth.checked_sub(1).ok_or("Unmatched ) or \\)")?;
                        out.push(')');
                    }
                    '{' => index = translate_count(&chars, index, &mut out)?,
                    '}' => return Err("Unmatched \\{"),
                    '|' => {
                        out.push('|');
                        group_start = true;
                    }
                    '1'..='9' => return Err("Invalid back reference"),
                    '`' => out.push_str(r"\A"),
                    '\'' => out.push_str(r"\z"),
                    'w' => out.push_str(r"[^\W_]"),
                    'W' => out.push_str(r"[\W_]"),
                    'b' => out.push_str(r"\b"),
                    'B' => out.push_str(r"\B"),
                    '<' => out.push_str(r"\b{start}"),
                    '>' => out.push_str(r"\b{end}"),
                    '_' => {
                        match chars.get(index) {
                            Some('<') => out.push_str(r"\b{start}"),
                            Some('>') => out.push_str(r"\b{end}"),
                            _ => return Err("Invalid regular expression"),
                        }
                        index += 1;
                    }
                    's' | 'S' => {
                        let code = chars.get(index).ok_or("Invalid regular expression")?;
                        index += 1;
                        let class = syntax_class(*code).ok_or("Invalid syntax designator")?;
                        out.push_str(if next == 's' { "[" } else { "[^" });
                        out.push_str(class);
                        out.push(']');
                    }
                    'c' | 'C' => return Err("Character categories (\\c, \\C) are not supported"),
                    '=' => return Err("Buffer point (\\=) is not available on strings"),
                    other => push_literal(&mut out, other),
                }
            }
            other => push_literal(&mut out, other),
        }
    }
    if depth > 0 {
        return Err("Unmatched ( or \\(");
    }
    match wrap {
        Wrap::Start => out.push(')'),
        Wrap::End => out.push_str(r")\z"),
        Wrap::EndConcatenated => out.push_str(r"\z"),
        Wrap::Plain | Wrap::Capturing => {}
    }
    Ok(out)
}

/// Appends `c` as a literal.
fn push_literal(out: &mut String, c: char) {
    let mut buffer = [0u8; 4];
    regex_syntax::escape_into(c.encode_utf8(&mut buffer), out);
}

/// The class body for the syntax code `code` of `\sC` (standard syntax table).
fn syntax_class(code: char) -> Option<&'static str> {
    Some(match code {
        '-' | ' ' => r"\s",
        'w' => r"\p{Alphabetic}\p{Nd}",
        '_' => r"_$&*+\-/<=>|",
        '.' => r"\p{P}\p{S}&&[^_$&*+\-/<=>|\(\)\[\]\{\}\x22]",
        '(' => r"\(\[\{",
        ')' => r"\)\]\}",
        '"' => r"\x22",
        _ => return None,
    })
}

/// Translates `\{m,n\}` (after `\{`); returns the index after `\}`.
fn translate_count(
    chars: &[char],
    mut index: usize,
    out: &mut String,
) -> Result<usize, &'static str> {
    let mut text = String::new();
    while let Some(&c) = chars
        .get(index)
        .filter(|c| c.is_ascii_digit() || **c == ',')
    {
        text.push(c);
        index += 1;
    }
    if chars.get(index) != Some(&'\\') || chars.get(index + 1) != Some(&'}') {
        return Err("Unmatched \\{");
    }
    let (low, high) = match text.split_once(',') {
        None => (text.as_str(), Some(text.as_str())),
        Some((low, "")) => (low, None),
        Some((low, high)) => (low, Some(high)),
    };
    let parse = |digits: &str| -> Result<u64, &'static str> {
        if digits.is_empty() {
            return Ok(0);
        }
        digits
            .parse::<u64>()
            .ok()
            .filter(|&n| n <= MAX_REPETITION)
            .ok_or("Invalid content of \\{\\}")
    };
    let low = parse(low)?;
    match high.map(parse).transpose()? {
        Some(high) if high < low => return Err("Invalid content of \\{\\}"),
        Some(high) => out.push_str(&format!("{{{low},{high}}}")),
        None => out.push_str(&format!("{{{low},}}")),
    }
    Ok(index + 2)
}

/// Translates a bracket class starting after `[`; returns the index after its `]`.
fn translate_class(
    chars: &[char],
    mut index: usize,
    out: &mut String,
) -> Result<usize, &'static str> {
    let mut body = String::new();
    let negated = chars.get(index) == Some(&'^');
    if negated {
        index += 1;
    }
    let mut first = true;
    loop {
        let Some(&c) = chars.get(index) else {
            return Err("Unmatched [ or [^");
        };
        if c == ']' && !first {
            index += 1;
            break;
        }
        first = false;
        if c == '[' && chars.get(index + 1) == Some(&':') {
            let name_start = index + 2;
            let name_end = (name_start..chars.len().saturating_sub(1))
                .find(|&i| chars.get(i) == Some(&':') && chars.get(i + 1) == Some(&']'));
            if let Some(name_end) = name_end {
                let name: String = chars
                    .get(name_start..name_end)
                    .unwrap_or(&[])
                    .iter()
                    .collect();
                body.push_str(named_class(&name).ok_or("Invalid character class name")?);
                index = name_end + 2;
                continue;
            }
        }
        // A range `c-e`, unless `-` is the last character before `]`.
        if chars.get(index + 1) == Some(&'-')
            && let Some(&end) = chars.get(index + 2).filter(|&&e| e != ']')
        {
            if c <= end {
                push_literal(&mut body, c);
                body.push('-');
                push_literal(&mut body, end);
            }
            // A reversed range is empty in Emacs.
            index += 3;
            continue;
        }
        push_literal(&mut body, c);
        index += 1;
    }
    match (negated, body.is_empty()) {
        (false, true) => out.push_str(r"[^\x00-\x{10FFFF}]"),
        (true, true) => out.push_str(r"[\x00-\x{10FFFF}]"),
        (false, false) => {
            out.push('[');
            out.push_str(&body);
            out.push(']');
        }
        (true, false) => {
            // Folded first, negated after (see `fold`): a marker group around the
            // positive class, named after the class's position so names are unique.
            out.push_str(&format!("(?P<{NEGATED}{index}>["));
            out.push_str(&body);
            out.push_str("])");
        }
    }
    Ok(index)
}

/// The class body of the Emacs character class `[:name:]`.
fn named_class(name: &str) -> Option<&'static str> {
    Some(match name {
        "alpha" => r"\p{Alphabetic}",
        "alnum" => r"\p{Alphabetic}\p{Nd}",
        "digit" => "0-9",
        "xdigit" => "0-9A-Fa-f",
        "space" => r"\s",
        "blank" => r"\t\p{Zs}",
        "upper" => r"\p{Uppercase}",
        "lower" => r"\p{Lowercase}",
        "punct" => r"!-/:-@\[-`\{-~\p{P}\p{S}",
        "cntrl" => r"\x00-\x1F",
        "graph" => r"[^\s\p{Cc}]",
        "print" => r"[^\p{Cc}]",
        "word" => r"\p{Alphabetic}\p{Nd}",
        "ascii" | "unibyte" => r"\x00-\x7F",
        "nonascii" | "multibyte" => r"\x{80}-\x{10FFFF}",
        _ => return None,
    })
}

/// The name prefix of the marker group around a negated bracket class's positive body.
const NEGATED: &str = "ptcneg";

/// `\p{Cased}`: every character whose simple case-folding orbit is not trivial is in it
/// (a unit test checks this against the engine's own folding), so folding a class only
/// needs its cased part.
fn cased() -> &'static ClassUnicode {
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
fn build(translated: &str) -> Result<meta::Regex, &'static str> {
    let parsed = regex_syntax::ParserBuilder::new()
        .multi_line(true)
        .nest_limit(64)
        .build()
        .parse(translated)
        .map_err(|_| "Invalid regular expression")?;
    let folded = renumber(&fold(&parsed, &mut FoldMemo::new()), &mut 1);
    meta::Builder::new()
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
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn translation_of_emacs_syntax() {
        let cases = [
            ("^(defcustom", r"^\(defcustom"),
            (r"a\{2,3\}", "a{2,3}"),
            (r"\(foo\)$", "(?:foo)$"),
            ("a$b", r"a\$b"),
            ("a^", r"a\^"),
            (r"[]a]", r"[\]a]"),
            (r"[z-a]", r"[^\x00-\x{10FFFF}]"),
            (r"\`x\'", r"\Ax\z"),
        ];
        for (emacs, expected) in cases {
            assert_eq!(
                translate(emacs, Wrap::Plain).as_deref(),
                Ok(expected),
                "{emacs}"
            );
        }
        assert_eq!(
            translate("a$", Wrap::EndConcatenated).as_deref(),
            Ok(r"a\$\z")
        );
        assert_eq!(translate("a$", Wrap::End).as_deref(), Ok(r"(?:a$)\z"));
    }

    #[test]
    fn cased_holds_every_character_that_folds() {
        // The premise of `fold_class`: outside `\p{Cased}` folding changes nothing.
        let mut rest = cased().clone();
        rest.negate();
        let mut folded = rest.clone();
        folded.try_case_fold_simple().unwrap();
        assert_eq!(folded, rest);
    }

    #[test]
    fn folding_matches_emacs_case_fold_search() {
        let limits = Limits::default();
        let matches = |pattern: &str, text: &str| {
            Regex::new(pattern, Wrap::Plain, &limits)
                .unwrap()
                .is_match(text)
        };
        assert!(!matches("[^a]", "A"));
        assert!(matches("[^a]", "b"));
        assert!(!matches("[^[:upper:]]", "a"));
        assert!(matches("[a-z]", "K"));
        assert!(matches("[a-z]", "\u{212A}"));
        assert!(matches("k", "\u{212A}"));
        assert!(matches("\u{212A}", "k"));
        assert!(matches("[[:nonascii:]]", "k"));
        assert!(!matches("[[:nonascii:]]", "a"));
        assert!(!matches("\\W", "a"));
        assert!(matches(".", "A"));
        assert!(matches("\\(ab\\)", "xAB"));
        assert!(matches("[^0-9]", "Z"));
        assert!(!matches("[^A-Z]", "q"));
    }

    #[test]
    fn the_cache_is_bounded_by_memory_as_well_as_entries() {
        let limits = Limits::default();
        let mut cache = RegexCache::new();
        for i in 0..40 {
            // Each near the compiled-size limit: alphabetic classes repeated.
            let pattern = format!("{}{i}", "[[:alpha:]]".repeat(60));
            cache.get(&pattern, Wrap::Plain, &limits).unwrap();
            assert!(cache.memory() <= CACHE_MEMORY.max(cache.newest_memory()));
            assert!(cache.entries().len() <= CACHE_ENTRIES);
        }
        assert!(
            cache.entries().len() < CACHE_ENTRIES,
            "large regexps evict early"
        );
    }
}
