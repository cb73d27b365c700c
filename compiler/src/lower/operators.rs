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
/// form; the lowerer lets the special form win).
pub(super) static OPERATOR_INDEX: std::sync::LazyLock<
    FxHashMap<u64, Vec<(&'static str, Operator)>>,
> = std::sync::LazyLock::new(|| {
    let mut index: FxHashMap<u64, Vec<(&'static str, Operator)>> = FxHashMap::default();
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
    index
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
