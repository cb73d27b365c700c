//! The alist-cell update idiom (issue 37, deviation 150): `setcdr`/`setcar` on a cell found
//! with `assoc`/`assq` in a list held by a variable, rewritten before preflight into code
//! that rebuilds the list with the cell replaced and stores it back.
//!
//! Conses are immutable (deviation 104), but the counting idiom models write first mutates
//! one: `(let ((cell (assoc k counts))) (if cell (setcdr cell (1+ (cdr cell))) (push (cons k
//! 1) counts)))`, or `(setcdr (assoc k counts) v)` directly. Two shapes are rewritten:
//!
//! | Form | Where | Rewritten to |
//! |------|-------|--------------|
//! | `(setcdr (assoc K L) V)`, `(setcdr (assq K L) V)` (and `setcar`) | anywhere, L a variable | `(let* ((old (assoc K L)) (v V)) (if (consp old) (let ((new (cons (car old) v))) (setq L (mapcar (lambda (c) (if (eq c old) new c)) L)) v) (signal 'wrong-type-argument (list 'consp old))))` |
//! | `(setcdr VAR V)` (and `setcar`) | in the body of a `let`/`let*` binding `(VAR (assoc K L))` or `(VAR (assq K L))`, L a variable | the same with `old` = VAR, and VAR set to the new cell too |
//!
//! After it, L and VAR read as after Emacs's in-place `setcdr` (L holds the new cell where
//! the old one was, VAR is the new cell); another reference to the old list does not see the
//! change (deviation 148's rule). The error on a nil cell is Emacs's.
//!
//! Invariants: a `setcdr VAR` is rewritten only where VAR and L still mean the `let`'s
//! bindings: not under a form that rebinds either (`let`, `let*`, `lambda`, `defun`,
//! `dolist`, `dotimes`, `condition-case`), not at all under the binding forms whose scopes
//! are not read here (`cl-loop`, the `pcase` family, destructuring forms), and not when the
//! body assigns VAR (`setq`, `setf`, `push`, `pop`...). Quoted data is never touched. A
//! `setcdr` left over is refused by preflight as before. The walk is recursive to
//! [`MAX_DEPTH`] levels, below the reader's own depth limit.

use crate::ast::{Sexp, SexpKind};
use crate::builders::Builder;
use crate::tables::name_of;
use ptc_vm::{Interner, Span, Symbol};

/// Deepest form the rewrite looks into (the reader refuses deeper scripts long before).
const MAX_DEPTH: u32 = 512;

/// Forms that bind variables whose scopes this module does not read: nothing under them is
/// rewritten for an enclosing `let`'s VAR.
const OPAQUE_BINDERS: [&str; 16] = [
    "cl-loop",
    "pcase",
    "pcase-exhaustive",
    "pcase-let",
    "pcase-let*",
    "pcase-dolist",
    "pcase-lambda",
    "pcase-setq",
    "seq-let",
    "cl-destructuring-bind",
    "let-alist",
    "named-let",
    "cl-flet",
    "cl-flet*",
    "cl-labels",
    "letrec",
];

/// Forms that assign their first argument (after the value for `push`/`cl-pushnew`).
const ASSIGNERS: [&str; 10] = [
    "setq",
    "setf",
    "push",
    "pop",
    "cl-pushnew",
    "cl-incf",
    "cl-decf",
    "incf",
    "decf",
    "cl-callf",
];

/// Rewrites the idiom in `forms`; whether anything changed.
pub(crate) fn rewrite(forms: &mut [Sexp], interner: &mut Interner) -> bool {
    let mut changed = false;
    for form in forms {
        walk(form, interner, 0, &mut changed);
    }
    changed
}

fn head_name<'i>(form: &Sexp, interner: &'i Interner) -> Option<&'i str> {
    form.head_symbol().map(|s| name_of(interner, s))
}

/// `(assoc K L)` or `(assq K L)` with L a variable: L.
fn lookup_list(form: &Sexp, interner: &Interner) -> Option<Symbol> {
    let items = form.as_list()?;
    match (head_name(form, interner)?, items) {
        ("assoc" | "assq", [_, _, list]) => variable(list),
        _ => None,
    }
}

fn variable(form: &Sexp) -> Option<Symbol> {
    match form.kind {
        SexpKind::Sym(s) if !s.is_keyword() => Some(s),
        _ => None,
    }
}

fn walk(form: &mut Sexp, interner: &mut Interner, depth: u32, changed: &mut bool) {
    if depth > MAX_DEPTH {
        return;
    }
    let Some(name) = head_name(form, interner).map(str::to_owned) else {
        if let SexpKind::List(items) = &mut form.kind {
            for item in items {
                walk(item, interner, depth + 1, changed);
            }
        }
        return;
    };
    if name == "quote" || name == "defmacro" || name == "`" {
        return;
    }
    if let SexpKind::List(items) = &mut form.kind {
        for item in items.iter_mut().skip(1) {
            walk(item, interner, depth + 1, changed);
        }
    }
    if name == "let" || name == "let*" {
        rewrite_let(form, interner, changed);
    }
    if (name == "setcdr" || name == "setcar")
        && let Some(items) = form.as_list()
        && let [_, cell, value] = items
        && let Some(list) = lookup_list(cell, interner)
    {
        let span = form.span;
        let (cell, value) = (cell.clone(), value.clone());
        *form = replacement(interner, span, name == "setcdr", cell, None, list, value);
        *changed = true;
    }
}

/// Rewrites `(setcdr VAR V)` in a `let`'s body for each binding `(VAR (assoc K L))`.
fn rewrite_let(form: &mut Sexp, interner: &mut Interner, changed: &mut bool) {
    let SexpKind::List(items) = &mut form.kind else {
        return;
    };
    let Some(SexpKind::List(bindings)) = items.get(1).map(|b| &b.kind) else {
        return;
    };
    let sequential = items
        .first()
        .and_then(Sexp::as_symbol)
        .is_some_and(|s| name_of(interner, s) == "let*");
    let names: Vec<Option<Symbol>> = bindings
        .iter()
        .map(|b| variable(b.as_list().and_then(|p| p.first()).unwrap_or(b)))
        .collect();
    // L must mean in the body what it meant in the initialiser: not bound by this `let`
    // (whose initialisers see the outer L), nor by a later binding of this `let*`.
    let cells: Vec<(Symbol, Symbol)> = bindings
        .iter()
        .enumerate()
        .filter_map(|(index, binding)| match binding.as_list() {
            Some([var, init]) => Some((index, variable(var)?, lookup_list(init, interner)?)),
            _ => None,
        })
        .filter(|&(index, _, list)| {
            let later = if sequential { index + 1 } else { 0 };
            !names.iter().skip(later).any(|n| *n == Some(list))
        })
        .map(|(_, var, list)| (var, list))
        .collect();
    for (var, list) in cells {
        let body = items.get_mut(2..).unwrap_or_default();
        if body.iter().any(|f| assigns(f, var, interner, 0)) {
            continue;
        }
        for form in body {
            replace(form, var, list, interner, 0, changed);
        }
    }
}

/// Whether `form` may assign `var` (conservatively: any assigning form naming it).
fn assigns(form: &Sexp, var: Symbol, interner: &Interner, depth: u32) -> bool {
    if depth > MAX_DEPTH {
        return true;
    }
    let Some(items) = form.as_list() else {
        return false;
    };
    if let Some(name) = head_name(form, interner) {
        if name == "quote" {
            return false;
        }
        if ASSIGNERS.contains(&name) && items.iter().skip(1).any(|a| a.as_symbol() == Some(var)) {
            return true;
        }
    }
    items
        .iter()
        .any(|item| assigns(item, var, interner, depth + 1))
}

/// Whether `form` binds `var` or `list` for its body (so neither means the `let`'s there).
fn rebinds(form: &Sexp, var: Symbol, list: Symbol, interner: &Interner) -> bool {
    let Some(items) = form.as_list() else {
        return false;
    };
    let Some(name) = head_name(form, interner) else {
        return false;
    };
    let mentions = |spec: Option<&Sexp>| {
        spec.is_some_and(|s| {
            s.as_symbol().is_some_and(|x| x == var || x == list)
                || s.as_list().is_some_and(|parts| {
                    parts.iter().any(|p| {
                        let bound = p.as_list().and_then(|b| b.first()).unwrap_or(p);
                        bound.as_symbol().is_some_and(|x| x == var || x == list)
                    })
                })
        })
    };
    match name {
        "let" | "let*" | "lambda" | "dolist" | "dotimes" | "cl-dolist" | "cl-dotimes"
        | "condition-case" => mentions(items.get(1)),
        "defun" => mentions(items.get(2)),
        _ => OPAQUE_BINDERS.contains(&name),
    }
}

fn replace(
    form: &mut Sexp,
    var: Symbol,
    list: Symbol,
    interner: &mut Interner,
    depth: u32,
    changed: &mut bool,
) {
    if depth > MAX_DEPTH || rebinds(form, var, list, interner) {
        return;
    }
    let name = head_name(form, interner).map(str::to_owned);
    if matches!(name.as_deref(), Some("quote" | "`")) {
        return;
    }
    if let Some(op @ ("setcdr" | "setcar")) = name.as_deref()
        && let Some([_, cell, value]) = form.as_list()
        && cell.as_symbol() == Some(var)
    {
        let span = form.span;
        let (cell, value) = (cell.clone(), value.clone());
        let is_cdr = op == "setcdr";
        *form = replacement(
            interner,
            span,
            is_cdr,
            cell.clone(),
            Some(cell),
            list,
            value,
        );
        *changed = true;
        return;
    }
    if let SexpKind::List(items) = &mut form.kind {
        for item in items.iter_mut() {
            replace(item, var, list, interner, depth + 1, changed);
        }
    }
}

/// The rewritten update: `cell` is the form giving the old cell, `var` the variable to set
/// to the new one (None for the direct `(setcdr (assoc K L) V)` shape).
fn replacement(
    interner: &mut Interner,
    span: Span,
    is_cdr: bool,
    cell: Sexp,
    var: Option<Sexp>,
    list: Symbol,
    value: Sexp,
) -> Sexp {
    let mut b = Builder { span, interner };
    let b = &mut b;
    let old = b.hidden("old");
    let v = b.hidden("v");
    let new = b.hidden("new");
    let c = b.hidden("c");
    let list = Sexp::new(SexpKind::Sym(list), span);
    let fresh = if is_cdr {
        let head = b.call("car", [old.clone()]);
        b.call("cons", [head, v.clone()])
    } else {
        let tail = b.call("cdr", [old.clone()]);
        b.call("cons", [v.clone(), tail])
    };
    let same = b.call("eq", [c.clone(), old.clone()]);
    let pick = b.call("if", [same, new.clone(), c.clone()]);
    let lambda = b.sym("lambda");
    let params = b.list(vec![c]);
    let swap = b.list(vec![lambda, params, pick]);
    let rebuilt = b.call("mapcar", [swap, list.clone()]);
    let mut body = vec![b.setq(&list, rebuilt)];
    if let Some(var) = var {
        body.push(b.setq(&var, new.clone()));
    }
    body.push(v.clone());
    let inner = b.let_form(false, vec![b.binding(new, fresh)], body);
    let consp = b.call("consp", [old.clone()]);
    let error = b.sym("wrong-type-argument");
    let error = b.quote(&error);
    let predicate = b.sym("consp");
    let predicate = b.quote(&predicate);
    let data = b.call("list", [predicate, old.clone()]);
    let signal = b.call("signal", [error, data]);
    let checked = b.call("if", [consp, inner, signal]);
    let bindings = vec![b.binding(old, cell), b.binding(v, value)];
    b.let_form(true, bindings, vec![checked])
}
