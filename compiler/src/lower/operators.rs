//! The operator table of lowering: what each operator name means before the script's own
//! definitions and tools are considered — the special forms lowering open-codes and the
//! primitives, in one static index keyed by [`ptc_vm::symbol::name_hash`] (the hash the
//! interner stores with each name, so building a compile's operator table hashes no name),
//! built at compile time.
//!
//! Invariant: [`SPECIALS`] is exactly the closed set of special and definition forms
//! (`crate::tables`), checked by the test below.

use ptc_vm::isa::{FuncIdx, PrimIdx, ToolIdx};

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

/// Slots of [`INDEX`]: a power of two, over three times the 167 names, so a lookup of a
/// name that is no operator usually meets an empty slot at once.
const SLOTS: usize = 1024;

/// Every primitive and special form by [`ptc_vm::symbol::name_hash`] of its name, built at
/// compile time (so no run pays for it at start-up): open addressing with linear probing,
/// each slot 0 (empty) or 1 + the name's position in [`ptc_vm::prims::PRIMITIVES`] followed
/// by [`SPECIALS`]. A name that is both a primitive and a special form has both entries.
static INDEX: [u16; SLOTS] = {
    let mut slots = [0u16; SLOTS];
    let mut position = 0;
    while position < OPERATOR_COUNT {
        let mut slot = slot_of(ptc_vm::symbol::name_hash(name_at(position)));
        while slots[slot] != 0 {
            slot = (slot + 1) % SLOTS;
        }
        #[allow(clippy::cast_possible_truncation, reason = "167 positions")]
        {
            slots[slot] = position as u16 + 1;
        }
        position += 1;
    }
    slots
};

/// How many names [`INDEX`] holds.
const OPERATOR_COUNT: usize = ptc_vm::prims::PRIMITIVES.len() + SPECIALS.len();

// At most a third full, so that every probe sequence ends soon at an empty slot.
const _: () = assert!(OPERATOR_COUNT * 3 <= SLOTS);

/// The name at `position` of [`INDEX`]'s order.
const fn name_at(position: usize) -> &'static str {
    if position < ptc_vm::prims::PRIMITIVES.len() {
        ptc_vm::prims::PRIMITIVES[position].name
    } else {
        SPECIALS[position - ptc_vm::prims::PRIMITIVES.len()].0
    }
}

/// Where probing for a name of hash `hash` starts.
const fn slot_of(hash: u64) -> usize {
    #[allow(clippy::cast_possible_truncation, reason = "only the low bits index")]
    let low = hash as usize;
    low % SLOTS
}

/// The positions in [`INDEX`]'s order of the entries named `name` (whose
/// [`ptc_vm::symbol::name_hash`] is `hash`): none, one, or a primitive's and a special
/// form's.
fn positions(name: &str, hash: u64) -> impl Iterator<Item = usize> {
    let mut slot = slot_of(hash);
    // Every probe sequence ends at an empty slot: the table is never more than a third full.
    std::iter::from_fn(move || {
        loop {
            let entry = *INDEX.get(slot).filter(|&&entry| entry != 0)?;
            slot = (slot + 1) % SLOTS;
            let position = usize::from(entry - 1);
            if name_at(position) == name {
                return Some(position);
            }
        }
    })
}

/// What `name` (whose [`ptc_vm::symbol::name_hash`] is `hash`) names before the script's
/// own definitions and tools: its special form, else its primitive, else `None`.
pub(super) fn builtin_operator(name: &str, hash: u64) -> Option<Operator> {
    let mut found = None;
    for position in positions(name, hash) {
        match position.checked_sub(ptc_vm::prims::PRIMITIVES.len()) {
            Some(special) => return SPECIALS.get(special).map(|&(_, s)| Operator::Special(s)),
            None => {
                found = u8::try_from(position)
                    .ok()
                    .map(|at| Operator::Primitive(PrimIdx(at)));
            }
        }
    }
    found
}

/// Whether `name` is a primitive's (it may also be a special form's).
pub(crate) fn is_primitive(name: &str) -> bool {
    positions(name, ptc_vm::symbol::name_hash(name))
        .any(|position| position < ptc_vm::prims::PRIMITIVES.len())
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
    use super::SPECIALS;
    use crate::tables::{DEFINITION_FORMS, SPECIAL_FORMS};

    /// Every primitive and special form is found as itself (a special form winning over a
    /// primitive of the same name), and other names are not.
    #[test]
    fn the_index_finds_every_operator() {
        use super::{Operator, builtin_operator};
        use ptc_vm::symbol::name_hash;
        for (at, primitive) in ptc_vm::prims::PRIMITIVES.iter().enumerate() {
            let name = primitive.name;
            match builtin_operator(name, name_hash(name)) {
                Some(Operator::Primitive(index)) => assert_eq!(usize::from(index.0), at, "{name}"),
                Some(Operator::Special(_)) => {
                    assert!(SPECIALS.iter().any(|(n, _)| *n == name), "{name}");
                }
                other => panic!("{name}: {other:?}"),
            }
        }
        for (name, special) in SPECIALS {
            assert!(
                matches!(builtin_operator(name, name_hash(name)), Some(Operator::Special(s)) if s == special),
                "{name}"
            );
        }
        for name in [
            "user", "orders", "details", "d", ":id", "get_user", "x", "acc", "",
        ] {
            assert!(builtin_operator(name, name_hash(name)).is_none(), "{name}");
        }
        // A name with an operator's hash but another spelling is no operator.
        assert!(builtin_operator("cdr", name_hash("car")).is_none());
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
