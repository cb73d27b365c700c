//! Guest symbols and the per-program symbol table.
//!
//! Guest identifiers are interned into a table private to one program (and, for names
//! made while it runs, to one run), never into anything the host owns, so a guest symbol
//! can never name host state. A [`Symbol`] is a plain index plus its name's byte length
//! and keyword flag, so value sizes and keyword tests never touch the table.
//!
//! Invariants:
//! - Ids `0..WELL_KNOWN.len()` are the [`well_known`] symbols, in that order, in every table.
//! - Interned names map to exactly one id; [`Symbols::gensym`] makes uninterned symbols
//!   whose identity is their id alone (their names may repeat).
//! - A run adds at most [`MAX_RUN_SYMBOLS`] names through the fallible
//!   [`Symbols::try_intern`] / [`Symbols::try_gensym`] that every guest-driven path uses
//!   (primitives, parsed JSON keys); the infallible forms serve names bounded by the program
//!   (the compiler's table, condition symbols), so ids always fit in `u32`.

use crate::error::{Error, ErrorKind, Result};
use std::collections::BTreeMap;
use std::collections::HashMap;
use std::hash::RandomState;
use std::sync::Arc;

/// Most names one run may add to its program's table (gensyms, `intern`ed names, keys of
/// JSON read at run time). A fixed guard listed in the budgets chapter: past it the guest
/// gets kind `retained-value`.
pub const MAX_RUN_SYMBOLS: usize = 1 << 20;

/// One guest symbol: an index into its table, with its name length and keyword flag.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Symbol {
    id: u32,
    /// Name length in bytes (low 31 bits) and the keyword flag (high bit).
    meta: u32,
}

const KEYWORD_BIT: u32 = 1 << 31;

impl Symbol {
    fn make(id: u32, name: &str) -> Symbol {
        let len = u32::try_from(name.len()).unwrap_or(u32::MAX) & !KEYWORD_BIT;
        let keyword = if is_keyword_name(name) {
            KEYWORD_BIT
        } else {
            0
        };
        Symbol {
            id,
            meta: len | keyword,
        }
    }

    /// The index of this symbol in its table.
    #[must_use]
    pub fn id(self) -> u32 {
        self.id
    }

    /// The index as a `usize`.
    #[must_use]
    pub fn as_usize(self) -> usize {
        self.id as usize
    }

    /// Whether this is a keyword: a name longer than one byte that starts with `:`.
    #[must_use]
    pub fn is_keyword(self) -> bool {
        self.meta & KEYWORD_BIT != 0
    }

    /// The byte length of the name.
    #[must_use]
    pub fn name_len(self) -> u64 {
        u64::from(self.meta & !KEYWORD_BIT)
    }
}

/// Whether `name` is a keyword name: longer than one byte and starting with `:`.
#[must_use]
pub fn is_keyword_name(name: &str) -> bool {
    name.len() > 1 && name.starts_with(':')
}

/// Symbols every table holds at fixed ids.
pub mod well_known {
    use super::{KEYWORD_BIT, Symbol};

    const fn fixed(id: u32, name: &str, keyword: bool) -> Symbol {
        // Names here are short ASCII literals; the cast cannot truncate.
        #[allow(clippy::cast_possible_truncation)]
        let len = name.len() as u32;
        Symbol {
            id,
            meta: len | if keyword { KEYWORD_BIT } else { 0 },
        }
    }

    /// `:error`, the marker of a failed tool call's value `(:error "message")`.
    pub const ERROR: Symbol = fixed(0, ":error", true);
    /// `:null`, the guest spelling of JSON `null`.
    pub const NULL: Symbol = fixed(1, ":null", true);
    /// `:json-false`, the guest spelling of JSON `false`.
    pub const JSON_FALSE: Symbol = fixed(2, ":json-false", true);
    /// `quote`.
    pub const QUOTE: Symbol = fixed(3, "quote", false);
    /// `` ` ``, the backquote operator.
    pub const BACKQUOTE: Symbol = fixed(4, "`", false);
    /// `,`, unquote.
    pub const UNQUOTE: Symbol = fixed(5, ",", false);
    /// `,@`, splicing unquote.
    pub const SPLICE: Symbol = fixed(6, ",@", false);
    /// `lambda`.
    pub const LAMBDA: Symbol = fixed(7, "lambda", false);
    /// `&optional`.
    pub const OPTIONAL: Symbol = fixed(8, "&optional", false);
    /// `&rest`.
    pub const REST: Symbol = fixed(9, "&rest", false);

    /// The names, in id order.
    pub const NAMES: [&str; 10] = [
        ":error",
        ":null",
        ":json-false",
        "quote",
        "`",
        ",",
        ",@",
        "lambda",
        "&optional",
        "&rest",
    ];
}

/// An interning table of names. Built by the compiler, frozen into the program.
///
/// The names live back to back in one string buffer (`text`), so interning a new name
/// copies its bytes and allocates nothing of its own. `table` is an open-addressing index
/// (linear probing, a power-of-two length at most half full) of the interned ids by their
/// name's 64-bit hash, which each slot keeps, so a probe compares names only on a full
/// hash match and growing the index hashes no name again.
///
/// The hash is unkeyed (the static operator index of the compiler is keyed by the same
/// [`name_hash`]), so a guest can craft names whose hashes share their low bits. Probing is
/// therefore bounded: a lookup examines at most [`MAX_PROBES`] entries of `table`; a name
/// whose window of `MAX_PROBES` entries from its home position is full goes to `overflow`,
/// an ordered map (O(log n) name comparisons). Invariant: a name is in `overflow` only if its
/// window in the current `table` holds no empty entry (entries are never removed, and
/// [`Interner::grow`] places every name again), so a probe that meets an empty entry has
/// proved the name absent without consulting `overflow`. Ordinary scripts never reach it.
#[derive(Debug, Clone)]
pub struct Interner {
    /// Every name, in id order.
    text: String,
    /// Per id: where its name ends in `text` (it starts where the previous one ends).
    slots: Vec<Slot>,
    /// Interned ids by hash ([`NO_ID`]: an empty entry); gensyms are not in it.
    table: Vec<u32>,
    /// How many interned ids there are (in `table` or in `overflow`).
    indexed: usize,
    /// Interned ids whose probe window in `table` was full, by name.
    overflow: BTreeMap<Box<str>, u32>,
}

/// Most entries of the index one lookup examines before it turns to the overflow map.
/// At most half full, an ordinary table's windows stay far shorter (mean probe length
/// ~1.5); only names crafted to share their hash's low bits fill one.
pub const MAX_PROBES: usize = 16;

/// What a bounded probe of the index found.
enum Probe {
    /// The name is interned (in `table`) with this symbol.
    Found(Symbol),
    /// The name is not interned; this empty entry is where it would go.
    Vacant(usize),
    /// The window is full without the name: it is in `overflow`, or would go there.
    Full,
}

#[cfg(test)]
thread_local! {
    /// Entries of the index examined by this thread (tests bound the work per name).
    static PROBES_EXAMINED: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

#[cfg(test)]
fn count_probe() {
    PROBES_EXAMINED.with(|count| count.set(count.get() + 1));
}

#[cfg(not(test))]
fn count_probe() {}

/// One id's entry.
#[derive(Debug, Clone, Copy)]
struct Slot {
    end: usize,
    /// The name's [`name_hash`] (kept so passes over the table need not hash names again).
    hash: u64,
    /// Whether the id is the interned one of its name (false: a gensym).
    interned: bool,
}

/// An empty entry of the index.
const NO_ID: u32 = u32::MAX;

/// Room a fresh table has before it grows: a short script's names fit.
const FRESH_CAPACITY: usize = 64;

/// Bytes of names a fresh table holds before its buffer grows.
const FRESH_TEXT: usize = 512;

/// The 64-bit hash the table keys names by (what [`Interner::iter_interned`] yields): each
/// 8-byte little-endian word of the name, then its last 1 to 7 bytes, mixed in by xor and a
/// multiply (rustc-hash's multiplier), seeded with the length; the low bits, which index
/// tables, are mixed from the high ones by a final rotation. Unkeyed, as before: the
/// interner bounds its probing instead ([`Interner`]). A `const fn`, so that tables keyed by
/// it (the compiler's operator index) are built at compile time, not at start-up.
#[must_use]
#[allow(clippy::cast_lossless, reason = "`u64::from` is not `const`")]
pub const fn name_hash(name: &str) -> u64 {
    const MULTIPLIER: u64 = 0xf135_7aea_2e62_a9c5;
    let mut rest = name.as_bytes();
    let mut hash = rest.len() as u64;
    while let Some((word, tail)) = rest.split_first_chunk::<8>() {
        hash = (hash ^ u64::from_le_bytes(*word)).wrapping_mul(MULTIPLIER);
        rest = tail;
    }
    // The last 1 to 7 bytes as one word, read without a loop (4 to 7: two 4-byte reads that
    // may overlap; the length in the seed keeps such words apart).
    let tail = match rest {
        [] => None,
        [a] => Some(*a as u64),
        [a, b] => Some(*a as u64 | (*b as u64) << 8),
        [a, b, c] => Some(*a as u64 | (*b as u64) << 8 | (*c as u64) << 16),
        _ => match (rest.first_chunk::<4>(), rest.last_chunk::<4>()) {
            (Some(low), Some(high)) => {
                Some(u32::from_le_bytes(*low) as u64 | (u32::from_le_bytes(*high) as u64) << 32)
            }
            _ => None,
        },
    };
    if let Some(word) = tail {
        hash = (hash ^ word).wrapping_mul(MULTIPLIER);
    }
    hash.rotate_left(26)
}

/// The table of the well-known symbols, built once per process; every fresh table is a
/// copy of it (three allocations: the buffer, the slots and the index, copied, not
/// re-hashed), so a compile does not re-intern them.
static PROTOTYPE: std::sync::LazyLock<Interner> = std::sync::LazyLock::new(|| {
    let mut interner = Interner {
        text: String::new(),
        slots: Vec::new(),
        table: vec![NO_ID; FRESH_CAPACITY * 2],
        indexed: 0,
        overflow: BTreeMap::new(),
    };
    for name in well_known::NAMES {
        interner.intern(name);
    }
    interner
});

impl Default for Interner {
    fn default() -> Self {
        let mut text = String::with_capacity(FRESH_TEXT);
        text.push_str(&PROTOTYPE.text);
        let mut slots = Vec::with_capacity(FRESH_CAPACITY);
        slots.extend_from_slice(&PROTOTYPE.slots);
        Interner {
            text,
            slots,
            table: PROTOTYPE.table.clone(),
            indexed: PROTOTYPE.indexed,
            overflow: PROTOTYPE.overflow.clone(),
        }
    }
}

impl Interner {
    /// A table holding only the [`well_known`] names.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// The symbol named `name`, interning it if new.
    pub fn intern(&mut self, name: &str) -> Symbol {
        let hash = name_hash(name);
        let vacant = match self.probe(name, hash) {
            Probe::Found(symbol) => return symbol,
            Probe::Vacant(position) => Some(position),
            Probe::Full => {
                if let Some(&id) = self.overflow.get(name) {
                    return Symbol::make(id, name);
                }
                None
            }
        };
        let id = Self::next_id(self.slots.len());
        self.push(name, hash, true);
        match vacant.and_then(|position| self.table.get_mut(position)) {
            Some(entry) => *entry = id,
            None => {
                self.overflow.insert(name.into(), id);
            }
        }
        self.indexed += 1;
        if self.indexed * 2 > self.table.len() {
            self.grow();
        }
        Symbol::make(id, name)
    }

    /// Looks `name` up in the window of [`MAX_PROBES`] entries from its home position.
    fn probe(&self, name: &str, hash: u64) -> Probe {
        let mask = self.table.len().wrapping_sub(1);
        #[allow(clippy::cast_possible_truncation, reason = "only the low bits index")]
        let mut position = (hash as usize) & mask;
        for _ in 0..MAX_PROBES {
            count_probe();
            let id = self.table.get(position).copied().unwrap_or(NO_ID);
            if id == NO_ID {
                return Probe::Vacant(position);
            }
            let index = id as usize;
            if self.slots.get(index).is_some_and(|slot| slot.hash == hash)
                && self.name_at(index) == Some(name)
            {
                return Probe::Found(Symbol::make(id, name));
            }
            position = (position + 1) & mask;
        }
        Probe::Full
    }

    /// Doubles the index, placing every interned id again by its stored hash (a name whose
    /// window is full goes to `overflow`, which is rebuilt).
    fn grow(&mut self) {
        let length = (self.table.len() * 2).max(16);
        let mask = length - 1;
        let mut table = vec![NO_ID; length];
        let mut overflow = BTreeMap::new();
        let mut start = 0;
        for (index, slot) in self.slots.iter().enumerate() {
            let name_start = std::mem::replace(&mut start, slot.end);
            let Ok(id) = u32::try_from(index) else {
                continue;
            };
            if !slot.interned {
                continue;
            }
            #[allow(clippy::cast_possible_truncation, reason = "only the low bits index")]
            let home = (slot.hash as usize) & mask;
            let vacant = (0..MAX_PROBES)
                .map(|step| (home + step) & mask)
                .find(|&position| {
                    count_probe();
                    table.get(position) == Some(&NO_ID)
                });
            match vacant.and_then(|position| table.get_mut(position)) {
                Some(entry) => *entry = id,
                None => {
                    let name = self.text.get(name_start..slot.end).unwrap_or_default();
                    overflow.insert(Box::from(name), id);
                }
            }
        }
        self.table = table;
        self.overflow = overflow;
    }

    /// A fresh uninterned symbol named `name` (for the hidden variables of transformer
    /// expansions): never `eq` to any symbol the script can write.
    pub fn gensym(&mut self, name: &str) -> Symbol {
        let id = Self::next_id(self.slots.len());
        self.push(name, 0, false);
        Symbol::make(id, name)
    }

    fn push(&mut self, name: &str, hash: u64, interned: bool) {
        self.text.push_str(name);
        self.slots.push(Slot {
            end: self.text.len(),
            hash,
            interned,
        });
    }

    fn name_at(&self, index: usize) -> Option<&str> {
        let end = self.slots.get(index)?.end;
        let start = match index.checked_sub(1) {
            Some(previous) => self.slots.get(previous)?.end,
            None => 0,
        };
        self.text.get(start..end)
    }

    /// The id of the `len`-th name.
    #[allow(
        clippy::expect_used,
        reason = "a program's table holds names of its source and of its bounded expansions \
                  (input-bytes, 40,000 expansions, 90,000 nodes) and a run adds at most \
                  MAX_RUN_SYMBOLS guest-driven names plus the fixed condition names: far \
                  below 2^32 - 1 (the index's empty marker)"
    )]
    fn next_id(len: usize) -> u32 {
        u32::try_from(len)
            .ok()
            .filter(|&id| id != NO_ID)
            .expect("symbol table exceeds u32 ids")
    }

    /// The interned symbol named `name`, if any (never a gensym).
    #[must_use]
    pub fn lookup(&self, name: &str) -> Option<Symbol> {
        match self.probe(name, name_hash(name)) {
            Probe::Found(symbol) => Some(symbol),
            Probe::Vacant(_) => None,
            Probe::Full => self.overflow.get(name).map(|&id| Symbol::make(id, name)),
        }
    }

    /// The name of `symbol`, if it belongs to this table.
    #[must_use]
    pub fn name(&self, symbol: Symbol) -> Option<&str> {
        self.name_at(symbol.as_usize())
    }

    /// Every interned symbol (gensyms left out) with its name and its [`name_hash`], in id
    /// order: for tables keyed by name that want no second hash of each name.
    pub fn iter_interned(&self) -> impl Iterator<Item = (Symbol, &str, u64)> {
        let mut start = 0;
        self.slots
            .iter()
            .enumerate()
            .filter_map(move |(index, slot)| {
                let name = self.text.get(start..slot.end)?;
                start = slot.end;
                if !slot.interned {
                    return None;
                }
                let id = u32::try_from(index).ok()?;
                Some((Symbol::make(id, name), name, slot.hash))
            })
    }

    /// Every name of the table with its symbol, in id order (uninterned symbols included).
    pub fn iter(&self) -> impl Iterator<Item = (Symbol, &str)> {
        (0..self.slots.len()).filter_map(|index| {
            let id = u32::try_from(index).ok()?;
            let name = self.name_at(index)?;
            Some((Symbol::make(id, name), name))
        })
    }

    /// How many symbols the table holds.
    #[must_use]
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// Whether the table is empty (never true: well-known symbols are always present).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }
}

/// The symbol table of one run: the program's frozen table plus the names made while the
/// run goes on (gensyms, and keywords from tool results).
///
/// The run's own names are guest-driven (`intern`, JSON keys), so their map is keyed by
/// SipHash with per-table random keys (`std`'s `RandomState`), not the unkeyed hash of
/// [`Interner`]: a guest cannot craft names that collide in it.
#[derive(Debug, Clone)]
pub struct Symbols {
    base: Arc<Interner>,
    extra: Vec<Arc<str>>,
    extra_map: HashMap<Arc<str>, u32>,
}

impl Symbols {
    /// A run table over the program's `base` table.
    #[must_use]
    pub fn new(base: Arc<Interner>) -> Self {
        Symbols {
            base,
            extra: Vec::new(),
            extra_map: HashMap::with_hasher(RandomState::new()),
        }
    }

    /// The symbol named `name`, interning it into the run's table if it is new. A name the
    /// program already knows gives the program's symbol, so a tool result's `:path` key is
    /// `eq` to the script's `:path`. For names bounded by the program (condition symbols);
    /// guest-driven names use [`Symbols::try_intern`].
    pub fn intern(&mut self, name: &str) -> Symbol {
        if let Some(symbol) = self.lookup_run(name) {
            return symbol;
        }
        self.push_interned(name)
    }

    /// [`Symbols::intern`] for guest-driven names: fails with kind `retained-value` once the
    /// run has added [`MAX_RUN_SYMBOLS`] names.
    ///
    /// # Errors
    /// Kind `retained-value` when the run's table is full.
    pub fn try_intern(&mut self, name: &str) -> Result<Symbol> {
        if let Some(symbol) = self.lookup_run(name) {
            return Ok(symbol);
        }
        self.check_room()?;
        Ok(self.push_interned(name))
    }

    /// A fresh uninterned symbol named `prefix`: never `eq` to any other symbol.
    pub fn gensym(&mut self, prefix: &str) -> Symbol {
        self.push(prefix)
    }

    /// [`Symbols::gensym`] for the guest's `gensym`: fails with kind `retained-value` once
    /// the run has added [`MAX_RUN_SYMBOLS`] names.
    ///
    /// # Errors
    /// Kind `retained-value` when the run's table is full.
    pub fn try_gensym(&mut self, prefix: &str) -> Result<Symbol> {
        self.check_room()?;
        Ok(self.push(prefix))
    }

    fn lookup_run(&self, name: &str) -> Option<Symbol> {
        if let Some(symbol) = self.base.lookup(name) {
            return Some(symbol);
        }
        self.extra_map.get(name).map(|&id| Symbol::make(id, name))
    }

    fn check_room(&self) -> Result<()> {
        if self.extra.len() >= MAX_RUN_SYMBOLS {
            return Err(Error::new(
                ErrorKind::RetainedValue,
                format!("the run made more than {MAX_RUN_SYMBOLS} new symbols"),
            ));
        }
        Ok(())
    }

    fn push_interned(&mut self, name: &str) -> Symbol {
        let symbol = self.push(name);
        if let Some(stored) = self.extra.last() {
            self.extra_map.insert(stored.clone(), symbol.id);
        }
        symbol
    }

    fn push(&mut self, name: &str) -> Symbol {
        let index = self.base.len() + self.extra.len();
        let id = Interner::next_id(index);
        self.extra.push(Arc::from(name));
        Symbol::make(id, name)
    }

    /// The name of `symbol`. Symbols of another table print as `#<symbol N>`.
    #[must_use]
    pub fn name(&self, symbol: Symbol) -> &str {
        let index = symbol.as_usize();
        match self.base.name(symbol) {
            Some(name) => name,
            None => self
                .extra
                .get(index - self.base.len())
                .map_or("#<unknown symbol>", |n| &**n),
        }
    }

    /// The program's frozen table.
    #[must_use]
    pub fn base(&self) -> &Arc<Interner> {
        &self.base
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn well_known_ids_match_the_table() {
        let interner = Interner::new();
        for (i, name) in well_known::NAMES.iter().enumerate() {
            let symbol = interner.lookup(name).unwrap();
            assert_eq!(symbol.as_usize(), i);
        }
        assert_eq!(interner.lookup(":error"), Some(well_known::ERROR));
        assert_eq!(interner.lookup("&rest"), Some(well_known::REST));
        assert!(well_known::ERROR.is_keyword());
        assert!(!well_known::QUOTE.is_keyword());
    }

    #[test]
    fn names_share_one_buffer_and_keep_their_ids() {
        let mut interner = Interner::new();
        let names: Vec<String> = (0..5000).map(|i| format!("name-{i}")).collect();
        let symbols: Vec<Symbol> = names.iter().map(|n| interner.intern(n)).collect();
        let hidden = interner.gensym("name-7");
        assert_ne!(hidden, symbols[7]);
        assert_eq!(interner.lookup("name-7"), Some(symbols[7]));
        assert_eq!(interner.name(hidden), Some("name-7"));
        for (name, symbol) in names.iter().zip(&symbols) {
            assert_eq!(interner.intern(name), *symbol);
            assert_eq!(interner.name(*symbol), Some(name.as_str()));
        }
        assert_eq!(interner.len(), well_known::NAMES.len() + 5001);
        assert_eq!(interner.lookup(""), None);
        let empty = interner.intern("");
        assert_eq!(interner.name(empty), Some(""));
        assert_eq!(interner.lookup(""), Some(empty));
        let listed: Vec<&str> = interner.iter().map(|(_, name)| name).collect();
        assert_eq!(listed.len(), interner.len());
        assert_eq!(listed[well_known::NAMES.len()], "name-0");
        // The one gensym is left out; every other name comes with the hash it is keyed by.
        assert_eq!(interner.iter_interned().count(), interner.len() - 1);
        assert!(
            interner
                .iter_interned()
                .all(|(symbol, name, hash)| hash == name_hash(name)
                    && interner.lookup(name) == Some(symbol))
        );
    }

    #[test]
    fn run_table_extends_the_program_table() {
        let mut base = Interner::new();
        let path = base.intern(":path");
        let mut run = Symbols::new(Arc::new(base));
        assert_eq!(run.intern(":path"), path);
        let fresh = run.intern(":other");
        assert_eq!(run.intern(":other"), fresh);
        let g1 = run.gensym("g");
        let g2 = run.gensym("g");
        assert_ne!(g1, g2);
        assert_eq!(run.name(g1), "g");
        assert_eq!(run.name(fresh), ":other");
        assert!(!Symbol::make(0, ":").is_keyword());
    }

    #[test]
    fn a_run_adds_at_most_max_run_symbols_names() {
        let mut run = Symbols::new(Arc::new(Interner::new()));
        let known = run.try_intern(":error").unwrap();
        for _ in 0..MAX_RUN_SYMBOLS {
            run.try_gensym("").unwrap();
        }
        let err = run.try_gensym("").unwrap_err();
        assert_eq!(err.kind(), ErrorKind::RetainedValue);
        assert_eq!(
            run.try_intern("fresh").unwrap_err().kind(),
            ErrorKind::RetainedValue
        );
        // Names already in a table still resolve.
        assert_eq!(run.try_intern(":error").unwrap(), known);
    }

    /// `count` names whose [`name_hash`]es agree in their low `bits` bits (found by search:
    /// the hash is unkeyed), as a guest could craft them.
    fn colliding_names(count: usize, bits: u32) -> Vec<String> {
        use std::fmt::Write as _;
        let mask = (1u64 << bits) - 1;
        let mut names = Vec::with_capacity(count);
        let mut candidate = String::new();
        let mut n = 0u64;
        while names.len() < count {
            candidate.clear();
            let _ = write!(candidate, "c{n}");
            n += 1;
            if name_hash(&candidate) & mask == 0 {
                names.push(candidate.clone());
            }
        }
        names
    }

    fn probes_examined() -> u64 {
        PROBES_EXAMINED.with(std::cell::Cell::get)
    }

    #[test]
    fn colliding_names_cost_a_bounded_number_of_probes_each() {
        // 600 names sharing their home entry at every index size this table reaches (the
        // index ends at 2,048 entries): unbounded linear probing examines ~n²/2 = 180,000
        // entries to intern them; bounded, each intern and each grown placement examines at
        // most MAX_PROBES.
        const COUNT: usize = 600;
        let names = colliding_names(COUNT, 11);
        let mut interner = Interner::new();
        let before = probes_examined();
        let mut symbols = Vec::with_capacity(COUNT);
        for (i, name) in names.iter().enumerate() {
            symbols.push(interner.intern(name));
            if i == COUNT / 2 {
                // A gensym in the middle: grows skip it and keep later names' bounds.
                let hidden = interner.gensym(name);
                assert_ne!(Some(hidden), interner.lookup(name));
            }
        }
        let interning = probes_examined() - before;
        assert_eq!(interner.table.len(), 2048);
        assert!(!interner.overflow.is_empty());
        // Each intern probes once (≤ MAX_PROBES); the grows place ≤ 2 × the final count.
        let bound = (3 * (COUNT + well_known::NAMES.len()) * MAX_PROBES) as u64;
        assert!(
            interning <= bound,
            "interning {COUNT} colliding names examined {interning} entries (bound {bound})"
        );
        let before = probes_examined();
        for (name, symbol) in names.iter().zip(&symbols) {
            assert_eq!(interner.lookup(name), Some(*symbol));
            assert_eq!(interner.intern(name), *symbol);
            assert_eq!(interner.name(*symbol), Some(name.as_str()));
        }
        let looking_up = probes_examined() - before;
        assert!(
            looking_up <= (2 * COUNT * MAX_PROBES) as u64,
            "{looking_up}"
        );
        // Every name is still distinct and every well-known name still found.
        let distinct: std::collections::BTreeSet<u32> = symbols.iter().map(|s| s.id()).collect();
        assert_eq!(distinct.len(), COUNT);
        for (i, name) in well_known::NAMES.iter().enumerate() {
            assert_eq!(interner.lookup(name).map(Symbol::as_usize), Some(i));
        }
        assert_eq!(interner.lookup("c-absent"), None);
        assert_eq!(interner.iter_interned().count(), interner.len() - 1);
        // A copy (as a program's frozen table is shared) answers the same.
        let copy = interner.clone();
        assert_eq!(copy.lookup(&names[COUNT - 1]), Some(symbols[COUNT - 1]));
    }
}
