//! The closed name tables of the dialect that the compiler owns, as single literals.
//!
//! [`SPECIAL_FORMS`] (dialect §4) and [`TRANSFORMERS`] (§5) are the only operator names
//! besides [`DEFINITION_FORMS`], the pure primitives ([`ptc_vm::prims::PRIMITIVES`]), the
//! request's tools and the script's own definitions. Dispatch is always by name, never by
//! symbol identity, so the tables are plain strings.
//!
//! Invariants: the tables are disjoint from each other and from the primitive names; the
//! spec's reference lists exactly these names (checked by the spec crate).

use crate::ast::Sexp;
use ptc_vm::Interner;

pub use crate::sexp_print::prin1;

/// The 17 special forms, in the reference's order (`condition-case` is issue 18's).
pub const SPECIAL_FORMS: [&str; 17] = [
    "quote",
    "if",
    "progn",
    "cond",
    "and",
    "or",
    "let",
    "let*",
    "setq",
    "while",
    "lambda",
    "funcall",
    "apply",
    "mapcar",
    "parallel",
    "parallel-map",
    "condition-case",
];

/// The syntax transformers, in the reference's order; `` ` `` is the backquote. The first
/// six are the original's ([`crate::transform`]); the rest are the Emacs conveniences models
/// write ([`crate::sugar`]).
pub const TRANSFORMERS: [&str; 85] = [
    "when",
    "unless",
    "push",
    "dolist",
    "dotimes",
    "`",
    "function",
    "if-let",
    "if-let*",
    "when-let",
    "when-let*",
    "and-let*",
    "pop",
    "cl-incf",
    "cl-decf",
    "incf",
    "decf",
    "seq-let",
    "ignore-errors",
    "unwind-protect",
    "seq-filter",
    "seq-remove",
    "cl-remove-if-not",
    "cl-remove-if",
    "seq-reduce",
    "seq-find",
    "cl-find-if",
    "seq-some",
    "cl-some",
    "seq-every-p",
    "cl-every",
    "seq-count",
    "cl-count-if",
    "seq-map",
    "seq-do",
    "mapc",
    "mapcan",
    "mapconcat",
    "cl-mapcar",
    "cl-mapcan",
    "seq-sort",
    "cl-sort",
    "pcase",
    "pcase-exhaustive",
    "pcase-let",
    "pcase-let*",
    "pcase-dolist",
    "pcase-lambda",
    "pcase-setq",
    "catch",
    "throw",
    "cl-block",
    "cl-return",
    "cl-return-from",
    "cl-dolist",
    "cl-dotimes",
    "prog1",
    "prog2",
    "apply-partially",
    "thread-first",
    "thread-last",
    "letrec",
    "named-let",
    "cl-flet",
    "cl-flet*",
    "cl-labels",
    "cl-case",
    "cl-ecase",
    "cl-typecase",
    "cl-etypecase",
    "let-alist",
    "cl-destructuring-bind",
    "cl-loop",
    "setf",
    "cl-callf",
    "cl-callf2",
    "cl-pushnew",
    "rx",
    "maphash",
    "seq-group-by",
    "seq-map-indexed",
    "seq-mapcat",
    "seq-sort-by",
    "cl-reduce",
    "cl-mapc",
];

/// The two definition forms, legal only as top-level forms of a script.
pub const DEFINITION_FORMS: [&str; 2] = ["defun", "defmacro"];

/// Whether `name` is a special form.
#[must_use]
pub fn is_special_form(name: &str) -> bool {
    // Asked for most calls preflight sees: one match (by length, then bytes) instead of a
    // scan of the table; a test holds it to [`SPECIAL_FORMS`].
    matches!(
        name,
        "quote"
            | "if"
            | "progn"
            | "cond"
            | "and"
            | "or"
            | "let"
            | "let*"
            | "setq"
            | "while"
            | "lambda"
            | "funcall"
            | "apply"
            | "mapcar"
            | "parallel"
            | "parallel-map"
            | "condition-case"
    )
}

/// A quick filter over a name table: entry `min(len, 31)` has bit `first byte % 32` set
/// when some name of the table has that length and first byte. A name whose entry lacks
/// its bit is not in the table, which rejects most operator names without hashing them.
pub(crate) type NameFilter = [u32; 32];

/// The [`NameFilter`] of `names`.
pub(crate) const fn name_filter(names: &[&str]) -> NameFilter {
    let mut filter = [0u32; 32];
    let mut index = 0;
    while index < names.len() {
        let bytes = names[index].as_bytes();
        if let Some(&first) = bytes.first() {
            let length = if bytes.len() < 31 { bytes.len() } else { 31 };
            filter[length] |= 1 << (first % 32);
        }
        index += 1;
    }
    filter
}

/// Whether `name` passes `filter` (may be in its table).
#[inline]
pub(crate) fn may_hold(filter: &NameFilter, name: &str) -> bool {
    let bytes = name.as_bytes();
    bytes
        .first()
        .is_some_and(|&first| filter[bytes.len().min(31)] & (1 << (first % 32)) != 0)
}

/// Whether `name` is a syntax transformer.
#[must_use]
pub fn is_transformer(name: &str) -> bool {
    // Asked for every call preflight sees: a hash set over the table, built once, behind
    // a filter that rejects most names without hashing them.
    const FILTER: NameFilter = name_filter(&TRANSFORMERS);
    static NAMES: std::sync::LazyLock<rustc_hash::FxHashSet<&'static str>> =
        std::sync::LazyLock::new(|| TRANSFORMERS.iter().copied().collect());
    may_hold(&FILTER, name) && NAMES.contains(name)
}

/// Whether `name` is `defun` or `defmacro`.
#[must_use]
pub fn is_definition_form(name: &str) -> bool {
    DEFINITION_FORMS.contains(&name)
}

/// Whether `name` is a pure primitive.
#[must_use]
pub fn is_primitive(name: &str) -> bool {
    // Asked for every call preflight sees: the operator index, built at compile time,
    // instead of a scan of its 208 names.
    crate::lower::is_primitive(name)
}

/// Whether `name` is built into the language: a special form, a transformer, a definition
/// form or a primitive. Such a name can never be defined or used as a tool name.
#[must_use]
pub fn is_builtin(name: &str) -> bool {
    is_special_form(name) || is_transformer(name) || is_definition_form(name) || is_primitive(name)
}

/// The name of `symbol` in `interner` (`""` for a symbol of another table, which a
/// well-formed program never holds).
#[must_use]
pub fn name_of(interner: &Interner, symbol: ptc_vm::Symbol) -> &str {
    interner.name(symbol).unwrap_or("")
}

/// The operator name of a list form: the head symbol's name when the head is a symbol that
/// is not a keyword. `None` for atoms, vectors and lists headed by anything else.
#[must_use]
pub fn operator_name<'a>(form: &Sexp, interner: &'a Interner) -> Option<&'a str> {
    let symbol = form.head_symbol()?;
    if symbol.is_keyword() {
        return None;
    }
    interner.name(symbol)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ptc_vm::prims::PRIMITIVES;

    /// The expander modules' dispatch lists name only transformers of the closed table, so
    /// none of their names can be expanded without being listed, documented and audited.
    #[test]
    fn expander_names_are_transformers() {
        for name in crate::control::NAMES
            .iter()
            .chain(crate::places::NAMES.iter())
            .chain(crate::seq_forms::NAMES.iter())
            .chain(crate::pcase::NAMES.iter())
        {
            assert!(TRANSFORMERS.contains(name), "{name} is not in TRANSFORMERS");
        }
    }

    #[test]
    fn tables_are_closed_and_disjoint() {
        assert_eq!(SPECIAL_FORMS.len(), 17);
        assert_eq!(TRANSFORMERS.len(), 6 + 79);
        let mut all: Vec<&str> = SPECIAL_FORMS
            .iter()
            .chain(TRANSFORMERS.iter())
            .chain(DEFINITION_FORMS.iter())
            .chain(PRIMITIVES.iter().map(|p| &p.name))
            .copied()
            .collect();
        let total = all.len();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), total, "a name appears in two tables");
        assert_eq!(
            total,
            SPECIAL_FORMS.len() + TRANSFORMERS.len() + 2 + PRIMITIVES.len()
        );
    }

    #[test]
    fn the_special_form_test_is_the_table() {
        for name in SPECIAL_FORMS {
            assert!(is_special_form(name), "{name}");
        }
        for name in TRANSFORMERS
            .iter()
            .chain(DEFINITION_FORMS.iter())
            .chain(PRIMITIVES.iter().map(|p| &p.name))
        {
            assert!(!is_special_form(name), "{name}");
        }
    }

    #[test]
    fn lookups_answer_by_name() {
        assert!(is_special_form("parallel-map"));
        assert!(is_special_form("let*"));
        assert!(!is_special_form("when"));
        assert!(is_transformer("`"));
        assert!(is_transformer("dotimes"));
        assert!(!is_transformer(","));
        assert!(is_primitive("string-match-p"));
        assert!(!is_primitive("expt"));
        assert!(is_builtin("defmacro"));
        assert!(!is_builtin("Read"));
    }

    #[test]
    fn name_filters_pass_every_name_of_their_table() {
        for name in TRANSFORMERS {
            assert!(is_transformer(name), "{name}");
            assert_eq!(
                crate::transform::Transformer::from_name(name).map(|t| t.name()),
                Some(name),
                "{name}"
            );
        }
        for name in TRANSFORMERS.iter().skip(6) {
            assert_eq!(crate::sugar::lookup(name), Some(*name));
        }
        let long = "a-name-longer-than-thirty-one-bytes-in-all";
        let filter = name_filter(&[long]);
        assert!(may_hold(&filter, long));
        assert!(!may_hold(&filter, "a"));
        assert!(!may_hold(&filter, ""));
        assert!(!is_transformer("plist-get"));
        assert_eq!(crate::sugar::lookup("plist-get"), None);
    }
}
