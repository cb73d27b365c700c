//! Direct-call classification (dialect §11.2) and the effective roster it decides.
//!
//! A script is *provably direct* when it is exactly one top-level form, that form is a
//! call whose operator names a roster tool (the full roster, before standalone filtering),
//! and every argument is pure: an atom, a `quote` form, or a pure-primitive application
//! whose arguments are recursively pure. A direct script keeps the full roster; any other
//! script gets the roster minus its standalone-only tools ([`effective_roster`]).
//!
//! Invariant: classification never recurses on the host stack (an explicit work list).

use crate::ast::{Sexp, SexpKind};
use crate::roster::Roster;
use crate::tables::{is_primitive, name_of, operator_name};
use ptc_vm::{Interner, Span};
use std::borrow::Cow;

/// The one tool call a direct script consists of.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirectCall {
    /// The tool's roster name.
    pub tool: String,
    /// The span of the call form.
    pub span: Span,
}

/// Classifies the script's top-level `forms`: `Some` when the script is one direct call of
/// a tool of `roster`.
#[must_use]
pub fn classify(forms: &[Sexp], roster: &Roster, interner: &Interner) -> Option<DirectCall> {
    let [form] = forms else {
        return None;
    };
    let name = operator_name(form, interner)?;
    let tool = roster.get(name)?;
    let args = form.as_list()?.get(1..)?;
    let mut pending: Vec<&Sexp> = args.iter().collect();
    while let Some(arg) = pending.pop() {
        let SexpKind::List(items) = &arg.kind else {
            continue; // atoms (and vector literals) are pure
        };
        let head = items.first().and_then(Sexp::as_symbol)?;
        let head_name = name_of(interner, head);
        if head.is_keyword() {
            return None;
        }
        if head_name == "quote" {
            continue;
        }
        if !is_primitive(head_name) {
            return None;
        }
        pending.extend(items.iter().skip(1));
    }
    Some(DirectCall {
        tool: tool.name.to_string(),
        span: form.span,
    })
}

/// The roster a script may call: the full roster for a direct script, else the roster
/// without its standalone-only tools.
#[must_use]
pub fn effective_roster(roster: &Roster, direct: Option<&DirectCall>) -> Roster {
    effective_roster_shared(roster, direct).into_owned()
}

/// [`effective_roster`], borrowing `roster` when it is already the answer (a direct
/// script, or a roster without standalone-only tools): no copy of the tools per compile.
#[must_use]
pub fn effective_roster_shared<'r>(
    roster: &'r Roster,
    direct: Option<&DirectCall>,
) -> Cow<'r, Roster> {
    if direct.is_some() || !roster.tools.iter().any(|tool| tool.standalone) {
        return Cow::Borrowed(roster);
    }
    Cow::Owned(Roster {
        tools: roster
            .tools
            .iter()
            .filter(|tool| !tool.standalone)
            .cloned()
            .collect(),
    })
}
