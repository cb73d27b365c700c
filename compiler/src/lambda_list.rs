//! Lambda lists of `lambda`, `defun`, `defmacro` and the `parallel-map` template (§6.3).
//!
//! Accepted: plain parameter names, `&optional` once (before `&rest`), and one `&rest`
//! followed by exactly one name and nothing after. Every rejection is a `script`
//! diagnostic with the original's message text.
//!
//! | Code  | Message |
//! |-------|---------|
//! | E0110 | `Parameter list must be a list, not %S` |
//! | E0111 | `Bad parameter name: %S` (nil, t, keyword, non-symbol) |
//! | E0112 | `Nothing may follow the '&rest' parameter` |
//! | E0113 | `Misplaced '&optional' in parameter list` |
//! | E0114 | `Duplicate '&rest' in parameter list` |
//! | E0115 | `Unsupported lambda-list marker '%s'; only '&optional' and '&rest' exist` |
//! | E0116 | `Duplicate parameter: %s` |
//! | E0117 | `'&rest' must be followed by one parameter name` |
//!
//! Invariant: a parsed [`LambdaList`] holds distinct, non-keyword symbols none of which is
//! a lambda-list marker.

use crate::ast::{Sexp, SexpKind};
use crate::diagnostic::Diagnostic;
use crate::sexp_print::prin1;
use ptc_vm::{ErrorKind, Interner, Symbol};
use rustc_hash::FxHashSet;
use smallvec::SmallVec;

/// A validated parameter list.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LambdaList {
    /// Parameters that must be supplied, in order (inline up to four, a lambda's usual
    /// count).
    pub required: SmallVec<[Symbol; 4]>,
    /// Parameters after `&optional`, bound to nil when missing.
    pub optional: Vec<Symbol>,
    /// The parameter after `&rest`, bound to the remaining arguments as a list.
    pub rest: Option<Symbol>,
}

impl LambdaList {
    /// Every parameter name in binding order.
    pub fn names(&self) -> impl Iterator<Item = Symbol> + '_ {
        self.required
            .iter()
            .chain(self.optional.iter())
            .chain(self.rest.iter())
            .copied()
    }

    /// The fewest arguments a call may pass.
    #[must_use]
    pub fn min_args(&self) -> usize {
        self.required.len()
    }

    /// The most arguments a call may pass (`None` with `&rest`).
    #[must_use]
    pub fn max_args(&self) -> Option<usize> {
        match self.rest {
            Some(_) => None,
            None => Some(self.required.len().saturating_add(self.optional.len())),
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    Required,
    Optional,
    /// `&rest` seen, its name not yet.
    RestName,
    /// The `&rest` name seen: nothing may follow.
    Done,
}

/// Parameters a lambda list may hold before the duplicate check keeps a set.
const SCANNED: usize = 16;

/// Whether `symbol` is not yet a parameter of `list` (whose every parameter is in `seen`
/// once the list is longer than [`SCANNED`]; `rest` is set last, so it is never compared).
fn first_sight(seen: &mut FxHashSet<Symbol>, list: &LambdaList, symbol: Symbol) -> bool {
    let count = list.required.len() + list.optional.len();
    if count < SCANNED {
        return !list.required.contains(&symbol) && !list.optional.contains(&symbol);
    }
    if seen.is_empty() {
        seen.extend(list.required.iter().chain(&list.optional).copied());
    }
    seen.insert(symbol)
}

fn error(code: &'static str, message: String, span: ptc_vm::Span) -> Diagnostic {
    Diagnostic::new(code, ErrorKind::Script, message, span)
}

/// Parses and validates the parameter list `params`.
///
/// # Errors
/// A `script` [`Diagnostic`] (codes E0110–E0117) at the offending element.
pub fn parse(params: &Sexp, interner: &Interner) -> Result<LambdaList, Diagnostic> {
    let items: &[Sexp] = match &params.kind {
        SexpKind::Nil => &[],
        SexpKind::List(items) => items,
        _ => {
            return Err(error(
                "E0110",
                format!(
                    "Parameter list must be a list, not {}",
                    prin1(params, interner)
                ),
                params.span,
            ));
        }
    };
    let mut list = LambdaList::default();
    let mut state = State::Required;
    // Parameters seen, for the duplicate check: a scan of the list built so far while it
    // is short (no allocation for the usual lambda list), a set once it is long.
    let mut seen: FxHashSet<Symbol> = FxHashSet::default();
    for item in items {
        if state == State::Done {
            return Err(error(
                "E0112",
                "Nothing may follow the '&rest' parameter".to_owned(),
                item.span,
            ));
        }
        let name = item
            .as_symbol()
            .and_then(|s| interner.name(s).map(|n| (s, n)));
        let Some((symbol, name)) = name.filter(|(s, _)| !s.is_keyword()) else {
            return Err(error(
                "E0111",
                format!("Bad parameter name: {}", prin1(item, interner)),
                item.span,
            ));
        };
        match name {
            "&optional" => {
                if state != State::Required {
                    return Err(error(
                        "E0113",
                        "Misplaced '&optional' in parameter list".to_owned(),
                        item.span,
                    ));
                }
                state = State::Optional;
            }
            "&rest" => {
                if state == State::RestName {
                    return Err(error(
                        "E0114",
                        "Duplicate '&rest' in parameter list".to_owned(),
                        item.span,
                    ));
                }
                state = State::RestName;
            }
            marker if marker.starts_with('&') => {
                return Err(error(
                    "E0115",
                    format!(
                        "Unsupported lambda-list marker '{marker}'; only '&optional' and '&rest' exist"
                    ),
                    item.span,
                ));
            }
            _ => {
                if !first_sight(&mut seen, &list, symbol) {
                    return Err(error(
                        "E0116",
                        format!("Duplicate parameter: {name}"),
                        item.span,
                    ));
                }
                match state {
                    State::Required => list.required.push(symbol),
                    State::Optional => list.optional.push(symbol),
                    State::RestName => {
                        list.rest = Some(symbol);
                        state = State::Done;
                    }
                    State::Done => {}
                }
            }
        }
    }
    if state == State::RestName {
        return Err(error(
            "E0117",
            "'&rest' must be followed by one parameter name".to_owned(),
            params.span,
        ));
    }
    Ok(list)
}
