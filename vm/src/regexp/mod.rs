//! Guest regexps: Emacs syntax, run on a linear-time engine.
//!
//! This module owns everything between a guest regexp string and a match:
//!
//! 1. **Byte cap** — a pattern longer than `limits.regexp_bytes` fails with kind
//!    `atomic-work`, "Guest regexp exceeds its %d byte budget".
//! 2. **Translation** ([`translate`]) of Emacs syntax into `regex-syntax` syntax: every
//!    construct a finite automaton can run — alternation, plain, shy and numbered groups,
//!    quantified groups, stacked and non-greedy quantifiers, intervals, bracket and syntax
//!    classes, word, symbol and buffer (string) boundaries — with Emacs's context rules.
//!    Backreferences are refused (kind `atomic-work`): they are the one construct that
//!    needs a backtracking matcher. Invalid syntax fails with kind `atomic-work`,
//!    "Invalid guest regexp %S: MESSAGE", MESSAGE being Emacs's text for the same fault.
//! 3. **Folding and compilation** ([`fold`]) with `regex-automata`'s meta engine under a
//!    compiled-size limit ([`NFA_SIZE_LIMIT`] for each automaton), plus a *meter*: a lazy
//!    DFA of the same expression, stepped here byte by byte, that says how far a search
//!    really scans. A compilation at run time is charged fuel by the compiled size
//!    ([`Regex::compile_units`]); the per-run [`RegexCache`] is bounded by [`CACHE_MEMORY`].
//! 4. **Searching with fuel** ([`Regex::find`], [`Regex::captures`]): each search first runs
//!    the meter from the start position until its automaton dies (no match can still end
//!    later) or the input ends, then runs the engine on exactly that span — the same match,
//!    since look-around still sees the text beyond. The search costs one fuel unit per
//!    [`SCAN_BYTES_PER_UNIT`] bytes the meter scanned. When the meter cannot finish (a
//!    Unicode word boundary on non-ASCII text makes its DFA quit, or its cache thrashes),
//!    the engine may walk the automaton state by state (the PikeVM): the search is then
//!    weighed as automaton states × the remaining input, refused before it runs when that
//!    exceeds `limits.regexp_work` (kind `atomic-work`, "Guest regexp exceeds its atomic
//!    work budget"), and charged one unit per [`STATE_BYTES_PER_UNIT`] of it. Extracting
//!    groups (`string-match`) walks the match span the same way and is weighed and charged
//!    alike.
//!
//! Matching follows Emacs's defaults: leftmost-first (the match a backtracking matcher
//! finds first) and **case-insensitive**, because `case-fold-search` is `t` by default and
//! the original ran `string-match-p` without binding it.

mod fold;
mod translate;

use crate::error::{Error, ErrorKind, Result};
use crate::limits::Limits;
use crate::print::write_quoted_string;
use regex_automata::hybrid::dfa::{Cache as DfaCache, DFA};
use regex_automata::nfa::thompson;
use regex_automata::{Anchored, Input, meta};
use std::sync::{Arc, Mutex};
use translate::{Fault, GROUP};

/// The byte (or, in match data, character) span of every group of one match: group 0 the
/// whole match, `None` for a group that did not take part.
pub type Groups = Vec<Option<(usize, usize)>>;

/// Compiled-size limit of one guest regexp's automaton (bytes of heap).
const NFA_SIZE_LIMIT: usize = 4 << 20;

/// Lazy-DFA cache capacity of one guest regexp (the engine's and the meter's each).
const HYBRID_CACHE_CAPACITY: usize = 2 << 20;

/// Most compiled regexps one [`RegexCache`] keeps.
const CACHE_ENTRIES: usize = 16;

/// Most memory one [`RegexCache`] may account for (bytes): every entry is counted as its
/// compiled size plus the largest search caches it can grow ([`Regex::memory`]).
pub const CACHE_MEMORY: usize = 32 << 20;

/// Compiled bytes per fuel unit charged for compiling a regexp ([`Regex::compile_units`]).
pub const COMPILE_BYTES_PER_UNIT: usize = 64;

/// Bytes a search scans per fuel unit, when the meter bounds the scan.
pub const SCAN_BYTES_PER_UNIT: u64 = 32;

/// Automaton states × bytes per fuel unit, when a search may walk the automaton.
pub const STATE_BYTES_PER_UNIT: u64 = 64;

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
    /// The pattern as written with its groups capturing (`string-match`,
    /// `replace-regexp-in-string`), so the match data can report them.
    Capturing,
}

/// One compiled guest regexp.
#[derive(Debug)]
pub struct Regex {
    regex: meta::Regex,
    /// The meter: a forward lazy DFA of the same expression, stepped by [`Regex::scan`].
    meter: DFA,
    meter_cache: Mutex<Option<DfaCache>>,
    /// The meter's NFA states: the per-byte cost of walking the automaton.
    states: u64,
    /// Emacs's group count (`re_nsub`); 0 unless [`Wrap::Capturing`].
    groups: u32,
}

/// One search's answer and the fuel it cost.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Searched<T> {
    /// What the search found.
    pub found: Option<T>,
    /// Fuel units for the search.
    pub units: u64,
}

impl Regex {
    /// Compiles `pattern` (byte cap, translation, compilation) embedded as `wrap`.
    ///
    /// # Errors
    ///
    /// Kind `atomic-work` for the byte cap, a backreference and invalid syntax.
    pub fn new(pattern: &str, wrap: Wrap, limits: &Limits) -> Result<Regex> {
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
        let translation = translate::translate(pattern, wrap).map_err(|fault| match fault {
            Fault::Invalid(message) => invalid(pattern, message),
            Fault::Backreference(digit) => backreference(pattern, digit),
        })?;
        let (regex, hir) =
            fold::build(&translation.text).map_err(|message| invalid(pattern, message))?;
        let nfa = thompson::Compiler::new()
            .configure(
                thompson::Config::new()
                    .nfa_size_limit(Some(NFA_SIZE_LIMIT))
                    .which_captures(thompson::WhichCaptures::None),
            )
            .build_from_hir(&hir)
            .map_err(|_| invalid(pattern, "Regular expression too big"))?;
        let states = u64::try_from(nfa.states().len()).unwrap_or(u64::MAX);
        let meter = DFA::builder()
            .configure(
                DFA::config()
                    .cache_capacity(HYBRID_CACHE_CAPACITY)
                    .skip_cache_capacity_check(true)
                    .unicode_word_boundary(true)
                    .minimum_cache_clear_count(Some(3))
                    .minimum_bytes_per_state(Some(10)),
            )
            .build_from_nfa(nfa)
            .map_err(|_| invalid(pattern, "Regular expression too big"))?;
        Ok(Regex {
            regex,
            meter,
            meter_cache: Mutex::new(None),
            states,
            groups: translation.groups,
        })
    }

    /// Fuel for having compiled this regexp: one unit per [`COMPILE_BYTES_PER_UNIT`]
    /// bytes of compiled automaton (all engines and the meter), the work the compiler did
    /// to build it, at most `2 × NFA_SIZE_LIMIT / COMPILE_BYTES_PER_UNIT` (131 072) units.
    #[must_use]
    pub fn compile_units(&self) -> u64 {
        let bytes = self.regex.memory_usage().min(NFA_SIZE_LIMIT)
            + self.meter.memory_usage().min(NFA_SIZE_LIMIT);
        u64::try_from(bytes / COMPILE_BYTES_PER_UNIT).unwrap_or(u64::MAX)
    }

    /// The memory this regexp may hold: compiled size plus its largest search caches.
    #[must_use]
    pub fn memory(&self) -> usize {
        self.regex
            .memory_usage()
            .saturating_add(self.meter.memory_usage())
            .saturating_add(2 * HYBRID_CACHE_CAPACITY)
            .saturating_add(SEARCH_CACHE_EXTRA)
    }

    /// The automaton's states: what walking it costs per byte.
    #[must_use]
    pub fn states(&self) -> u64 {
        self.states
    }

    /// How many bytes from `start` a search scans: up to where the meter's automaton dies
    /// (no match can end later) or the input ends. `None` when the meter cannot tell (its
    /// DFA quit on a Unicode word boundary over non-ASCII text, or its cache thrashed).
    fn scan(&self, haystack: &str, start: usize) -> Option<usize> {
        let bytes = haystack.as_bytes();
        let mut guard = self
            .meter_cache
            .try_lock()
            .ok()
            .filter(|cache| cache.is_some());
        let mut fresh = None;
        let cache: &mut DfaCache = match guard.as_deref_mut() {
            Some(Some(cache)) => cache,
            _ => fresh.insert(self.meter.create_cache()),
        };
        let input = Input::new(haystack).span(start..haystack.len());
        let mut state = self.meter.start_state_forward(cache, &input).ok()?;
        cache.search_start(start);
        let mut scanned = None;
        for (offset, &byte) in bytes.get(start..).unwrap_or_default().iter().enumerate() {
            if state.is_tagged() {
                if state.is_dead() {
                    scanned = Some(offset);
                    break;
                }
                if state.is_quit() {
                    return None;
                }
            }
            if offset % 4096 == 0 {
                cache.search_update(start + offset);
            }
            state = self.meter.next_state(cache, state, byte).ok()?;
        }
        if state.is_quit() {
            return None;
        }
        let scanned = scanned.unwrap_or(haystack.len() - start);
        cache.search_finish(start + scanned);
        drop(guard);
        if let Some(cache) = fresh
            && let Ok(mut slot) = self.meter_cache.try_lock()
        {
            *slot = Some(cache);
        }
        Some(scanned)
    }

    /// The span a search from `start` needs and its fuel, or the budget error when the
    /// meter cannot bound it and walking the automaton over the rest would cost too much.
    fn plan(&self, haystack: &str, start: usize, limits: &Limits) -> Result<(usize, u64)> {
        if let Some(scanned) = self.scan(haystack, start) {
            let bytes = u64::try_from(scanned).unwrap_or(u64::MAX);
            return Ok((start + scanned, bytes.div_ceil(SCAN_BYTES_PER_UNIT).max(1)));
        }
        let rest = haystack.len().saturating_sub(start);
        let work = self.walk_work(rest, limits)?;
        Ok((haystack.len(), work.div_ceil(STATE_BYTES_PER_UNIT).max(1)))
    }

    /// States × `bytes`, checked against `limits.regexp_work`.
    fn walk_work(&self, bytes: usize, limits: &Limits) -> Result<u64> {
        let work = self
            .states
            .saturating_mul(u64::try_from(bytes).unwrap_or(u64::MAX).max(1));
        if work > limits.regexp_work {
            return Err(Error::new(
                ErrorKind::AtomicWork,
                "Guest regexp exceeds its atomic work budget",
            ));
        }
        Ok(work)
    }

    /// The leftmost-first match in `haystack` starting at or after byte `start`, as byte
    /// offsets, and its fuel; the text before `start` still counts as context for `^`,
    /// `\b` and the like. Nothing found when `start` is past the end or not a character
    /// boundary.
    ///
    /// # Errors
    ///
    /// Kind `atomic-work` when the search cannot be metered and would walk the automaton
    /// over more than `limits.regexp_work` state-bytes.
    pub fn find(
        &self,
        haystack: &str,
        start: usize,
        limits: &Limits,
    ) -> Result<Searched<(usize, usize)>> {
        if !haystack.is_char_boundary(start) || start > haystack.len() {
            return Ok(Searched {
                found: None,
                units: 0,
            });
        }
        let (end, units) = self.plan(haystack, start, limits)?;
        let input = Input::new(haystack).span(start..end);
        Ok(Searched {
            found: self.regex.search(&input).map(|m| (m.start(), m.end())),
            units,
        })
    }

    /// The leftmost-first match at or after byte `start` with every guest group's byte span
    /// (group 0 the whole match; `None` for a group that did not take part), numbered as
    /// Emacs numbers them (shy groups skipped, `\(?N:` groups at N), and its fuel. Only a
    /// [`Wrap::Capturing`] regexp has groups beyond 0.
    ///
    /// # Errors
    ///
    /// As [`Regex::find`]; extracting the groups walks the automaton over the match and is
    /// weighed the same way.
    pub fn captures(
        &self,
        haystack: &str,
        start: usize,
        limits: &Limits,
    ) -> Result<Searched<Groups>> {
        let Searched { found, units } = self.find(haystack, start, limits)?;
        let Some((begin, end)) = found else {
            return Ok(Searched { found: None, units });
        };
        let mut groups: Groups = vec![None; usize::try_from(self.groups).unwrap_or(0) + 1];
        if let Some(slot) = groups.first_mut() {
            *slot = Some((begin, end));
        }
        if self.groups == 0 {
            return Ok(Searched {
                found: Some(groups),
                units,
            });
        }
        let walk = self.walk_work(end - begin, limits)?;
        let input = Input::new(haystack)
            .span(begin..end)
            .anchored(Anchored::Yes);
        let mut captures = self.regex.create_captures();
        self.regex.search_captures(&input, &mut captures);
        let names = self
            .regex
            .group_info()
            .pattern_names(regex_automata::PatternID::ZERO);
        for (index, name) in names.enumerate() {
            let number = name
                .and_then(|n| n.strip_prefix(GROUP))
                .and_then(|n| n.split_once('_'))
                .and_then(|(_, n)| n.parse::<usize>().ok());
            if let (Some(number), Some(span)) = (number, captures.get_group(index))
                && let Some(slot) = groups.get_mut(number)
            {
                *slot = Some((span.start, span.end));
            }
        }
        Ok(Searched {
            found: Some(groups),
            units: units.saturating_add(walk.div_ceil(STATE_BYTES_PER_UNIT)),
        })
    }

    /// Whether the regexp matches the empty string (a `split-string` separator may not).
    #[must_use]
    pub fn matches_empty(&self) -> bool {
        self.regex.is_match("")
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

/// The static check of a guest regexp: byte cap, translation and compilation, without a
/// search. The compiler's preflight runs it on literal regexps.
///
/// # Errors
///
/// Kind `atomic-work`: "Guest regexp exceeds its %d byte budget", "Guest regexp %S uses a
/// backreference ...", "Invalid guest regexp %S: MESSAGE".
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

fn backreference(pattern: &str, digit: char) -> Error {
    Error::new(
        ErrorKind::AtomicWork,
        format!(
            "Guest regexp {} uses the backreference \\{digit}: backreferences are the one \
             Emacs regexp construct that needs a backtracking matcher, and ptc matches in \
             linear time; match the group with string-match and compare match-string instead",
            quoted(pattern)
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn translated(pattern: &str, wrap: Wrap) -> Result<String, Fault> {
        translate::translate(pattern, wrap).map(|t| t.text)
    }

    #[test]
    fn translation_of_emacs_syntax() {
        let cases = [
            ("^(defcustom", r"^\(defcustom"),
            (r"a\{2,3\}", "(?:a){2,3}"),
            (r"\(foo\)$", "(?:foo)$"),
            ("a$b", r"a\$b"),
            ("a^", r"a\^"),
            (r"[]a]", r"[\]a]"),
            (r"[z-a]", r"[^\x00-\x{10FFFF}]"),
            (r"\`x\'", r"\Ax\z"),
            ("a+*", "(?:a)*"),
            ("a*?", "(?:a)*?"),
            ("a??", "(?:a)??"),
            (r"a\{2\}*", "(?:(?:a){2,2})*"),
            (r"\(?:ab\)+", "(?:(?:ab))+"),
            (r"a\|^b$\|c", r"a|^b$|c"),
            ("*a", r"\*a"),
            (r"\{2\}", r"\{2\}"),
        ];
        for (emacs, expected) in cases {
            assert_eq!(
                translated(emacs, Wrap::Plain).as_deref(),
                Ok(expected),
                "{emacs}"
            );
        }
        assert_eq!(
            translated("a$", Wrap::EndConcatenated).as_deref(),
            Ok(r"a\$\z")
        );
        assert_eq!(translated("a$", Wrap::End).as_deref(), Ok(r"(?:a$)\z"));
        assert_eq!(
            translated(r"\(a\)\(?:b\)\(?5:c\)\(d\)", Wrap::Capturing).as_deref(),
            Ok("(?P<g1_1>a)(?:b)(?P<g2_5>c)(?P<g3_6>d)")
        );
        assert_eq!(
            translated(r"\(a\)\1", Wrap::Plain),
            Err(Fault::Backreference('1'))
        );
    }

    #[test]
    fn groups_are_numbered_as_emacs_numbers_them() {
        let limits = Limits::default();
        let groups = |pattern: &str, text: &str| {
            Regex::new(pattern, Wrap::Capturing, &limits)
                .unwrap()
                .captures(text, 0, &limits)
                .unwrap()
                .found
        };
        assert_eq!(
            groups(r"x\(?2:a\)\(b\)", "xab"),
            Some(vec![Some((0, 3)), None, Some((1, 2)), Some((2, 3))])
        );
        assert_eq!(
            groups(r"\(?:a\)\(b\)", "ab"),
            Some(vec![Some((0, 2)), Some((1, 2))])
        );
        assert_eq!(
            groups(r"\(a\)\(?1:b\)", "ab"),
            Some(vec![Some((0, 2)), Some((1, 2))])
        );
    }

    #[test]
    fn the_meter_bounds_the_scan_and_the_fuel() {
        let limits = Limits::default();
        let text = format!("ab{}", "c".repeat(100_000));
        // A literal: the automaton dies right after the match.
        let regex = Regex::new("b", Wrap::Plain, &limits).unwrap();
        let found = regex.find(&text, 0, &limits).unwrap();
        assert_eq!(found.found, Some((1, 2)));
        assert_eq!(found.units, 1);
        // A higher-priority alternative still alive makes the scan run on.
        let regex = Regex::new(r"b[^z]*z\|b", Wrap::Plain, &limits).unwrap();
        let found = regex.find(&text, 0, &limits).unwrap();
        assert_eq!(found.found, Some((1, 2)));
        assert!(
            found.units >= 100_000 / SCAN_BYTES_PER_UNIT,
            "{}",
            found.units
        );
        // No match scans everything.
        let regex = Regex::new("q", Wrap::Plain, &limits).unwrap();
        let found = regex.find(&text, 0, &limits).unwrap();
        assert_eq!(found.found, None);
        assert!(found.units >= 100_000 / SCAN_BYTES_PER_UNIT);
        // A Unicode word boundary on non-ASCII text cannot be metered: weighed instead.
        let text = "é ".repeat(1000);
        let regex = Regex::new(r"\bq", Wrap::Plain, &limits).unwrap();
        let small = Limits {
            regexp_work: 10,
            ..Limits::default()
        };
        assert!(regex.find(&text, 0, &small).is_err());
        assert!(regex.find(&text, 0, &limits).unwrap().found.is_none());
    }

    #[test]
    fn cased_holds_every_character_that_folds() {
        // The premise of `fold_class`: outside `\p{Cased}` folding changes nothing.
        let mut rest = fold::cased().clone();
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
                .find(text, 0, &limits)
                .unwrap()
                .found
                .is_some()
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
