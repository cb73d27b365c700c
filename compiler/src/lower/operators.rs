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

/// Every primitive and special form by [`ptc_vm::symbol::name_hash`] of its name (a name
/// that is both a primitive and a special form is the special form: lowering lets it win).
/// Built once per process without an allocation per entry: the first compile of a process
/// pays for this table, so a one-shot `ptc run` does too.
pub(super) static OPERATOR_INDEX: std::sync::LazyLock<OperatorIndex> =
    std::sync::LazyLock::new(OperatorIndex::build);

/// What [`OPERATOR_INDEX`] holds: one entry per hash, and the rare name whose hash another
/// name took first beside it (none among today's names; the test below holds the lookup
/// right for every name either way). A bit per hash value modulo [`FILTER_BITS`] rejects
/// most other names without a map lookup.
#[derive(Debug)]
pub(super) struct OperatorIndex {
    by_hash: FxHashMap<u64, (&'static str, Operator)>,
    collided: Vec<(u64, &'static str, Operator)>,
    filter: [u64; FILTER_BITS / 64],
}

/// Bits of [`OperatorIndex`]'s filter (about 170 names set: most other names miss).
const FILTER_BITS: usize = 4096;

/// The filter bit of `hash`: its word and the bit within it.
fn filter_bit(hash: u64) -> (usize, u64) {
    #[allow(clippy::cast_possible_truncation, reason = "only the low bits index")]
    let bit = (hash as usize) % FILTER_BITS;
    (bit / 64, 1 << (bit % 64))
}

impl OperatorIndex {
    fn build() -> Self {
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
        let mut index = OperatorIndex {
            by_hash: FxHashMap::with_capacity_and_hasher(
                ptc_vm::prims::PRIMITIVES.len() + SPECIALS.len(),
                rustc_hash::FxBuildHasher,
            ),
            collided: Vec::new(),
            filter: [0; FILTER_BITS / 64],
        };
        for (name, operator) in primitives.chain(specials) {
            index.insert(ptc_vm::symbol::name_hash(name), name, operator);
        }
        index
    }

    /// Whether a name with this hash may be an operator (false: it certainly is not).
    fn may_name(&self, hash: u64) -> bool {
        let (word, bit) = filter_bit(hash);
        self.filter.get(word).is_some_and(|w| w & bit != 0)
    }

    fn insert(&mut self, hash: u64, name: &'static str, operator: Operator) {
        let (word, bit) = filter_bit(hash);
        if let Some(w) = self.filter.get_mut(word) {
            *w |= bit;
        }
        let slot = match self.by_hash.entry(hash) {
            std::collections::hash_map::Entry::Vacant(vacant) => {
                vacant.insert((name, operator));
                return;
            }
            std::collections::hash_map::Entry::Occupied(occupied) => occupied.into_mut(),
        };
        if slot.0 == name {
            if matches!(operator, Operator::Special(_)) {
                slot.1 = operator;
            }
            return;
        }
        match self
            .collided
            .iter_mut()
            .find(|(h, n, _)| *h == hash && *n == name)
        {
            Some(entry) if matches!(operator, Operator::Special(_)) => entry.2 = operator,
            Some(_) => {}
            None => self.collided.push((hash, name, operator)),
        }
    }

    /// What `name` (whose [`ptc_vm::symbol::name_hash`] is `hash`) names, if it is a
    /// primitive or special form.
    pub(super) fn get(&self, hash: u64, name: &str) -> Option<Operator> {
        if !self.may_name(hash) {
            return None;
        }
        let &(entry_name, operator) = self.by_hash.get(&hash)?;
        if entry_name == name {
            return Some(operator);
        }
        self.collided
            .iter()
            .find(|&&(h, n, _)| h == hash && n == name)
            .map(|&(_, _, operator)| operator)
    }
}

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
    use super::{OPERATOR_INDEX, Operator, SPECIALS};
    use crate::tables::{DEFINITION_FORMS, SPECIAL_FORMS};

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

    #[test]
    fn the_index_names_every_primitive_and_special_form_and_nothing_else() {
        for (at, prim) in ptc_vm::prims::PRIMITIVES.iter().enumerate() {
            let found = OPERATOR_INDEX.get(ptc_vm::symbol::name_hash(prim.name), prim.name);
            let special = SPECIALS.iter().find(|(name, _)| *name == prim.name);
            match (found, special) {
                (Some(Operator::Special(s)), Some(&(_, expected))) => assert_eq!(s, expected),
                (Some(Operator::Primitive(idx)), None) => assert_eq!(usize::from(idx.0), at),
                other => panic!("{}: {other:?}", prim.name),
            }
        }
        for &(name, special) in SPECIALS.iter() {
            let found = OPERATOR_INDEX.get(ptc_vm::symbol::name_hash(name), name);
            assert!(
                matches!(found, Some(Operator::Special(s)) if s == special),
                "{name}"
            );
        }
        for name in ["car-safe", "foo", "", "lambda*", "mapcar2"] {
            let known = ptc_vm::prims::PRIMITIVES.iter().any(|p| p.name == name);
            assert_eq!(
                OPERATOR_INDEX
                    .get(ptc_vm::symbol::name_hash(name), name)
                    .is_some(),
                known,
                "{name}"
            );
        }
        // A name whose hash another took first is still found (forced collisions).
        let mut index = super::OperatorIndex {
            by_hash: rustc_hash::FxHashMap::default(),
            collided: Vec::new(),
            filter: [0; super::FILTER_BITS / 64],
        };
        index.insert(7, "a", Operator::Unknown);
        index.insert(7, "b", Operator::Macro);
        index.insert(7, "b", Operator::Special(super::Special::If));
        index.insert(7, "b", Operator::Unknown);
        assert!(matches!(index.get(7, "a"), Some(Operator::Unknown)));
        assert!(matches!(
            index.get(7, "b"),
            Some(Operator::Special(super::Special::If))
        ));
        assert!(index.get(7, "c").is_none());
        assert!(index.get(8, "a").is_none());
        // The filter lets every operator through and stops most other names.
        let misses = [
            "user", "orders", "details", "d", ":id", "get_user", "x", "acc",
        ]
        .iter()
        .filter(|name| !OPERATOR_INDEX.may_name(ptc_vm::symbol::name_hash(name)))
        .count();
        assert!(misses >= 6, "{misses}");
    }
}
