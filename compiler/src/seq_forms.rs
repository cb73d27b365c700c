//! Higher-order sequence conveniences beyond [`crate::sugar`]'s (issue 46), each a one-level
//! rewrite into guest code, so their function arguments may be any function and every call
//! is fuel-metered: `seq-group-by`, `seq-map-indexed`, `seq-mapcat`, `seq-sort-by`,
//! `cl-reduce` (with `:initial-value`) and `cl-mapc` (one sequence).
//!
//! | Form | Expansion |
//! |------|-----------|
//! | `(seq-group-by F S)` | `(let ((f F) (acc nil)) (dolist (e (reverse (append S nil))) (push e (alist-get (funcall f e) acc nil nil #'equal))) acc)` — Emacs 28's order: groups by first appearance from the end, elements in order |
//! | `(seq-map-indexed F S)` | `(let ((f F) (i -1)) (mapcar (lambda (e) (funcall f e (setq i (1+ i)))) (append S nil)))` |
//! | `(seq-mapcat F S)` | `(apply #'append (mapcar F (append S nil)))` |
//! | `(seq-sort-by F P S)` | `(let ((f F) (p P)) (seq-sort (lambda (a b) (funcall p (funcall f a) (funcall f b))) S))` |
//! | `(cl-reduce F S)` | `(let ((f F) (s (append S nil))) (if s (seq-reduce f (cdr s) (car s)) (funcall f)))` |
//! | `(cl-reduce F S :initial-value V)` | `(seq-reduce F S V)` |
//! | `(cl-mapc F S)` | `(mapc F S)` |
//!
//! Invariant: every argument form is evaluated once, in Emacs's order (the function before
//! the sequence). Other keyword arguments (`:from-end`, `:key`, `:start`, `:end`) and a
//! TYPE argument of `seq-mapcat` are refused with the usage (E0265).

use crate::ast::{Sexp, SexpKind};
use crate::builders::{Builder, shape};
use crate::diagnostic::Diagnostic;
use crate::tables::name_of;

/// The names this module expands.
pub(crate) const NAMES: [&str; 6] = [
    "seq-group-by",
    "seq-map-indexed",
    "seq-mapcat",
    "seq-sort-by",
    "cl-reduce",
    "cl-mapc",
];

fn usage(name: &str) -> &'static str {
    match name {
        "seq-group-by" => "(seq-group-by FUNCTION SEQUENCE)",
        "seq-map-indexed" => "(seq-map-indexed FUNCTION SEQUENCE)",
        "seq-mapcat" => "(seq-mapcat FUNCTION SEQUENCE); the TYPE argument is not supported",
        "seq-sort-by" => "(seq-sort-by FUNCTION PRED SEQUENCE)",
        "cl-reduce" => {
            "(cl-reduce FUNCTION SEQUENCE [:initial-value VALUE]); :from-end, :key, :start and :end are not supported"
        }
        _ => "(cl-mapc FUNCTION SEQUENCE); one sequence only",
    }
}

/// Expands `(NAME ARGS...)` for one of [`NAMES`].
///
/// # Errors
/// E0265 (kind `script`) on a shape these forms do not take.
pub(crate) fn expand(b: &mut Builder<'_>, name: &str, args: &[Sexp]) -> Result<Sexp, Diagnostic> {
    let bad = |b: &Builder<'_>| {
        shape(
            "E0265",
            format!("'{name}': expects {}", usage(name)),
            b.span,
        )
    };
    match (name, args) {
        ("seq-group-by", [function, seq]) => group_by(b, function, seq),
        ("seq-map-indexed", [function, seq]) => Ok(map_indexed(b, function, seq)),
        ("seq-mapcat", [function, seq]) => {
            let mapped = b.map(function, seq);
            let append = b.sym("append");
            let append = b.quote(&append);
            Ok(b.call("apply", [append, mapped]))
        }
        ("seq-sort-by", [function, pred, seq]) => Ok(sort_by(b, function, pred, seq)),
        ("cl-reduce", [function, seq]) => Ok(reduce(b, function, seq)),
        ("cl-reduce", [function, seq, key, initial])
            if key
                .as_symbol()
                .is_some_and(|s| name_of(b.interner, s) == ":initial-value") =>
        {
            Ok(b.reduce(function, seq, initial))
        }
        ("cl-mapc", [function, seq]) => Ok(b.each(function, seq)),
        _ => Err(bad(b)),
    }
}

fn lambda(b: &mut Builder<'_>, params: Vec<Sexp>, body: Sexp) -> Sexp {
    let head = b.sym("lambda");
    let params = b.list(params);
    b.list(vec![head, params, body])
}

fn group_by(b: &mut Builder<'_>, function: &Sexp, seq: &Sexp) -> Result<Sexp, Diagnostic> {
    let f = b.hidden("f");
    let acc = b.hidden("acc");
    let element = b.hidden("e");
    let nil = b.nil();
    let key = b.funcall(&f, [element.clone()]);
    let equal = b.sym("equal");
    let equal = b.call("function", [equal]);
    let place = b.call(
        "alist-get",
        [key, acc.clone(), nil.clone(), nil.clone(), equal],
    );
    let push = crate::places::expand(b, "push", &[element.clone(), place])?;
    let whole = b.as_list(seq);
    let reversed = b.call("reverse", [whole]);
    let spec = b.list(vec![element, reversed]);
    let walk = b.call("dolist", [spec, push]);
    let bindings = vec![b.binding(f, function.clone()), b.binding(acc.clone(), nil)];
    Ok(b.let_form(false, bindings, vec![walk, acc]))
}

fn map_indexed(b: &mut Builder<'_>, function: &Sexp, seq: &Sexp) -> Sexp {
    let f = b.hidden("f");
    let index = b.hidden("i");
    let element = b.hidden("e");
    let next = b.call("1+", [index.clone()]);
    let bump = b.setq(&index, next);
    let call = b.funcall(&f, [element.clone(), bump]);
    let per_element = lambda(b, vec![element], call);
    let whole = b.as_list(seq);
    let mapped = b.call("mapcar", [per_element, whole]);
    let minus_one = Sexp::new(SexpKind::Int(-1), b.span);
    let bindings = vec![b.binding(f, function.clone()), b.binding(index, minus_one)];
    b.let_form(false, bindings, vec![mapped])
}

fn sort_by(b: &mut Builder<'_>, function: &Sexp, pred: &Sexp, seq: &Sexp) -> Sexp {
    let f = b.hidden("f");
    let p = b.hidden("p");
    let x = b.hidden("a");
    let y = b.hidden("b");
    let fx = b.funcall(&f, [x.clone()]);
    let fy = b.funcall(&f, [y.clone()]);
    let test = b.funcall(&p, [fx, fy]);
    let by = lambda(b, vec![x, y], test);
    let sorted = b.sort(seq, &by);
    let bindings = vec![b.binding(f, function.clone()), b.binding(p, pred.clone())];
    b.let_form(false, bindings, vec![sorted])
}

fn reduce(b: &mut Builder<'_>, function: &Sexp, seq: &Sexp) -> Sexp {
    let f = b.hidden("f");
    let s = b.hidden("s");
    let rest = b.call("cdr", [s.clone()]);
    let first = b.call("car", [s.clone()]);
    let folded = b.reduce(&f, &rest, &first);
    let empty = b.funcall(&f, []);
    let pick = b.call("if", [s.clone(), folded, empty]);
    let whole = b.as_list(seq);
    let bindings = vec![b.binding(f, function.clone()), b.binding(s, whole)];
    b.let_form(false, bindings, vec![pick])
}
