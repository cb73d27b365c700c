//! A small direct-mapped memo of the symbols one lex interned, keyed by a name's length and
//! first and last bytes: a name the script repeats (a variable, a keyword, a tool, a
//! primitive) is compared once with the name last seen at its key instead of being hashed
//! and probed again in the symbol table.
//!
//! Invariant: every entry holds a name and the symbol the table interned for it (interned
//! ids never change, and an entry is only ever replaced whole), so a hit is always the
//! table's own answer; the empty name of a fresh entry matches no atom.

use ptc_vm::symbol::well_known;
use ptc_vm::{Interner, Symbol};

/// Entries of the memo.
const SLOTS: usize = 32;

/// The memo of one lex over source text living for `'s`.
pub(super) struct Recent<'s> {
    slots: [(&'s str, Symbol); SLOTS],
}

impl<'s> Recent<'s> {
    /// An empty memo.
    pub(super) fn new() -> Self {
        Recent {
            slots: [("", well_known::QUOTE); SLOTS],
        }
    }

    /// The symbol interned for `name` (a plain atom's text), from the memo or the table.
    pub(super) fn intern(&mut self, name: &'s str, interner: &mut Interner) -> Symbol {
        let bytes = name.as_bytes();
        let (Some(&first), Some(&last)) = (bytes.first(), bytes.last()) else {
            return interner.intern(name);
        };
        let key =
            bytes.len().wrapping_mul(7) ^ usize::from(first).wrapping_mul(3) ^ usize::from(last);
        let Some(entry) = self.slots.get_mut(key % SLOTS) else {
            return interner.intern(name);
        };
        if entry.0 == name {
            return entry.1;
        }
        let symbol = interner.intern(name);
        *entry = (name, symbol);
        symbol
    }
}

#[cfg(test)]
mod tests {
    use super::Recent;
    use ptc_vm::Interner;

    /// The memo answers exactly what the table answers, for repeated and colliding names.
    #[test]
    fn the_memo_gives_the_tables_symbols() {
        let names: Vec<String> = (0..200)
            .map(|i| format!("n{}x", i % 70))
            .chain(["a", "b", "ab", "ba", ":id", ":id", "abc", "acc", "a", "ab"].map(String::from))
            .collect();
        let mut interner = Interner::new();
        let mut recent = Recent::new();
        let mut reference = Interner::new();
        for name in &names {
            let symbol = recent.intern(name, &mut interner);
            assert_eq!(symbol, reference.intern(name), "{name}");
            assert_eq!(interner.name(symbol), Some(name.as_str()));
        }
        assert_eq!(interner.len(), reference.len());
    }
}
