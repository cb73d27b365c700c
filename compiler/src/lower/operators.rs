//! The operator table of lowering: what each operator name means before the script's own
//! definitions and tools are considered — the special forms lowering open-codes and the
//! primitives, in one static index keyed by [`ptc_vm::symbol::name_hash`] (the hash the
//! interner stores with each name, so building a compile's operator table hashes no name).
//!
//! Invariant: [`SPECIALS`] is exactly the closed set of special and definition forms
//! (`crate::tables`), checked by the test below.

use ptc_vm::isa::{FuncIdx, PrimIdx, ToolIdx};
use rustc_hash::FxHashMap;

/// The special forms lowering open-codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Special {
    Quote,
    If,
    Progn,
    Cond,
    And,
    Or,
    Let,
    LetStar,
    Setq,
    While,
    Lambda,
    Funcall,
    Apply,
    Mapcar,
    Parallel,
    ParallelMap,
    ConditionCase,
    Definition,
}

pub(super) const SPECIALS: [(&str, Special); 19] = [
    ("quote", Special::Quote),
    ("if", Special::If),
    ("progn", Special::Progn),
    ("cond", Special::Cond),
    ("and", Special::And),
    ("or", Special::Or),
    ("let", Special::Let),
    ("let*", Special::LetStar),
    ("setq", Special::Setq),
    ("while", Special::While),
    ("lambda", Special::Lambda),
    ("funcall", Special::Funcall),
    ("apply", Special::Apply),
    ("mapcar", Special::Mapcar),
    ("parallel", Special::Parallel),
    ("parallel-map", Special::ParallelMap),
    ("condition-case", Special::ConditionCase),
    ("defun", Special::Definition),
    ("defmacro", Special::Definition),
];

/// Every primitive and special form by [`ptc_vm::symbol::name_hash`] of its name: the
/// names with that hash and what each names (a name may be both a primitive and a special
/// form; the lowerer lets the special form win). A bit per hash value modulo
/// [`FILTER_BITS`] rejects most other names without a map lookup. Built once per process,
/// on its first compile (which a one-shot `ptc run` pays): an entry's names are inline
/// unless a hash has two (a name that is both a primitive and a special form), so the
/// build makes one allocation, not one per name.
pub(super) struct OperatorIndex {
    by_hash: FxHashMap<u64, Names>,
    filter: [u64; FILTER_BITS / 64],
}

/// The names with one hash and what each names.
type Names = smallvec::SmallVec<[(&'static str, Operator); 1]>;

/// Bits of [`OperatorIndex`]'s filter (about 170 names set: most other names miss).
const FILTER_BITS: usize = 4096;

impl OperatorIndex {
    /// The names with name hash `hash` and what each names.
    pub(super) fn get(&self, hash: u64) -> Option<&[(&'static str, Operator)]> {
        #[allow(clippy::cast_possible_truncation, reason = "only the low bits index")]
        let bit = (hash as usize) % FILTER_BITS;
        if self
            .filter
            .get(bit / 64)
            .is_none_or(|word| word & (1 << (bit % 64)) == 0)
        {
            return None;
        }
        self.by_hash.get(&hash).map(smallvec::SmallVec::as_slice)
    }
}

pub(super) static OPERATOR_INDEX: std::sync::LazyLock<OperatorIndex> =
    std::sync::LazyLock::new(|| {
        let mut index: FxHashMap<u64, Names> = FxHashMap::with_capacity_and_hasher(
            ptc_vm::prims::PRIMITIVES.len() + SPECIALS.len(),
            rustc_hash::FxBuildHasher,
        );
        let primitives = ptc_vm::prims::PRIMITIVES
            .iter()
            .enumerate()
            .filter_map(|(at, prim)| {
                Some((
                    prim.name,
                    Operator::Primitive(PrimIdx(u8::try_from(at).ok()?)),
                ))
            });
        let specials = SPECIALS
            .iter()
            .map(|&(name, special)| (name, Operator::Special(special)));
        for (name, operator) in primitives.chain(specials) {
            index
                .entry(ptc_vm::symbol::name_hash(name))
                .or_default()
                .push((name, operator));
        }
        let mut filter = [0; FILTER_BITS / 64];
        for &hash in index.keys() {
            #[allow(clippy::cast_possible_truncation, reason = "only the low bits index")]
            let bit = (hash as usize) % FILTER_BITS;
            if let Some(word) = filter.get_mut(bit / 64) {
                *word |= 1 << (bit % 64);
            }
        }
        OperatorIndex {
            by_hash: index,
            filter,
        }
    });

/// What an operator symbol names.
#[derive(Debug, Clone, Copy)]
pub(super) enum Operator {
    Special(Special),
    Function(FuncIdx),
    Macro,
    Primitive(PrimIdx),
    Tool(ToolIdx),
    Unknown,
}

#[cfg(test)]
mod tests {
    use super::SPECIALS;
    use crate::tables::{DEFINITION_FORMS, SPECIAL_FORMS};

    /// Every primitive and special form passes the index's filter and is found.
    #[test]
    fn the_index_finds_every_operator() {
        let names = ptc_vm::prims::PRIMITIVES
            .iter()
            .map(|p| p.name)
            .chain(SPECIALS.iter().map(|(name, _)| *name));
        for name in names {
            let entries = super::OPERATOR_INDEX
                .get(ptc_vm::symbol::name_hash(name))
                .unwrap_or_default();
            assert!(entries.iter().any(|(n, _)| *n == name), "{name}");
        }
        let misses = [
            "user", "orders", "details", "d", ":id", "get_user", "x", "acc",
        ]
        .iter()
        .filter(|name| {
            super::OPERATOR_INDEX
                .get(ptc_vm::symbol::name_hash(name))
                .is_none()
        })
        .count();
        assert!(misses >= 6, "{misses}");
    }

    #[test]
    fn lowering_open_codes_exactly_the_closed_special_forms() {
        let mut lowered: Vec<&str> = SPECIALS.iter().map(|(name, _)| *name).collect();
        let mut closed: Vec<&str> = SPECIAL_FORMS
            .iter()
            .chain(DEFINITION_FORMS.iter())
            .copied()
            .collect();
        lowered.sort_unstable();
        closed.sort_unstable();
        assert_eq!(lowered, closed);
    }
}
