//! Generalised places (issue 46): `setf`, `cl-callf`, `cl-callf2`, `cl-pushnew`, and
//! `push`, `pop`, `cl-incf`/`cl-decf`/`incf`/`decf` on places other than variables.
//!
//! A place is analysed into the hidden bindings of its subforms (each evaluated once, left
//! to right, as Emacs's `gv` does), a getter form and a setter (a form per new value). The
//! setters are Emacs's: in place where Emacs mutates, through the variable where Emacs does.
//!
//! | Place | Getter | Setter of V |
//! |-------|--------|-------------|
//! | VAR | VAR | `(setq VAR V)` |
//! | `(car X)` `(cdr X)` | | X (a place) set to `(cons V (cdr X))` / `(cons (car X) V)` |
//! | `(caar X)` `(cadr X)` `(cdar X)` `(cddr X)` | | as `(car (car X))`, `(car (cdr X))`... |
//! | `(nth N L)` | | L set to `(append (take N L) (cons V (nthcdr (1+ N) L)))` |
//! | `(nthcdr N L)` | | L set to V when N <= 0, else to `(append (take N L) V)` |
//! | `(elt S N)` | | as `nth` on a list, as `aref` on an array |
//! | `(aref A N)` | | A set to a fresh string or vector with element N replaced |
//!
//! Conses and arrays are immutable (deviation 104), so where Emacs mutates a cons or an array
//! in place, the container is rebuilt and stored into its own place (deviation 148): the
//! place reads as after Emacs's `setcar`/`setcdr`/`aset`, with Emacs's errors on a container
//! too short or of the wrong type, but another reference to the old container does not see
//! the change. A container that is not itself a place (`(setf (car (f)) V)`) keeps Emacs's
//! in-place setter, which is refused.
//! | `(gethash K H [D])` | | `(puthash K V H)` |
//! | `(alist-get K PLACE [D R TESTFN])` | `(cdr p)` or D | PLACE set to a copy with p replaced by `(K . V)` when the pair p exists (deviation 148), else PLACE set to `(cons (cons K V) PLACE)`; with R and V `equal` to D, PLACE set to `(delq p PLACE)` |
//! | `(plist-get PLACE K)` | `(car p)`, p the cell after K | PLACE set to `(plist-put PLACE K V)` when K is present (deviation 148), else PLACE set to `(cons K (cons V PLACE))` |
//! | `(map-elt M K [D])` | | `(map-put! M K V)`, or on an error M (a place) set to the map with the key added |
//!
//! | Code  | Kind   | Message |
//! |-------|--------|---------|
//! | E0295 | script | `'NAME': expects USAGE` |
//! | E0296 | script | `'NAME': PLACE must be a variable name or a supported place, not %S` |

use crate::ast::{Sexp, SexpKind};
use crate::builders::{Builder, is_variable, shape};
use crate::diagnostic::Diagnostic;
use crate::tables::{name_of, prin1};

/// The names this module expands (besides `push`, `pop` and the `incf` family on places).
pub(crate) const NAMES: [&str; 4] = ["setf", "cl-callf", "cl-callf2", "cl-pushnew"];

/// Deepest nesting of places (`(car (nth 1 (alist-get ...)))`).
const MAX_PLACE_DEPTH: u32 = 64;

fn usage(name: &str) -> &'static str {
    match name {
        "setf" => "(setf PLACE VALUE...)",
        "cl-callf" => "(cl-callf FUNC PLACE ARGS...)",
        "cl-callf2" => "(cl-callf2 FUNC ARG1 PLACE ARGS...)",
        "cl-pushnew" => "(cl-pushnew VALUE PLACE [:test TEST])",
        "push" => "(push VALUE PLACE)",
        "pop" => "(pop PLACE)",
        _ => "(NAME PLACE [DELTA])",
    }
}

/// An analysed place.
struct Place {
    bindings: Vec<Sexp>,
    getter: Sexp,
    kind: Setter,
}

/// How a place is set.
enum Setter {
    Variable(Sexp),
    /// `(OP ARGS... V)`.
    Call(&'static str, Vec<Sexp>),
    /// `(setcar (nthcdr N L) V)`.
    Nth(Sexp, Sexp),
    /// `(setcdr (nthcdr (1- N) L) V)`.
    Nthcdr(Sexp, Sexp),
    /// `elt`'s list-or-array setter.
    Elt(Sexp, Sexp),
    /// `(puthash K V H)`.
    Puthash(Sexp, Sexp),
    /// `alist-get`: the pair variable, key, default, remove flag, and the alist's place.
    Alist(Sexp, Sexp, Sexp, Option<Sexp>, Box<Place>),
    /// `plist-get`: the value's cell, the key and the plist's place.
    Plist(Sexp, Sexp, Box<Place>),
    /// `map-elt`: the key and the map's place.
    Map(Sexp, Box<Place>),
    /// A part of a list or array whose container is itself a place: the container is
    /// rebuilt with the part replaced and stored into its place (deviation 148).
    Part(Part, Box<Place>),
}

/// Which part of its container a [`Setter::Part`] place is.
enum Part {
    Car,
    Cdr,
    /// `(nth N L)`: the index.
    Nth(Sexp),
    /// `(nthcdr N L)`: the count.
    Nthcdr(Sexp),
    /// `(aref A N)`: the index.
    Aref(Sexp),
    /// `(elt S N)`: the index.
    Elt(Sexp),
}

fn bad_place(b: &Builder<'_>, name: &str, place: &Sexp) -> Diagnostic {
    let code = if name == "push" { "E0204" } else { "E0296" };
    shape(
        code,
        format!(
            "'{name}': PLACE must be a variable name or a supported place, not {}",
            prin1(place, b.interner)
        ),
        place.span,
    )
}

/// Whether `place` is a list form (a candidate generalised place).
pub(crate) fn is_compound(place: &Sexp) -> bool {
    matches!(place.kind, SexpKind::List(_))
}

fn analyse(b: &mut Builder<'_>, name: &str, place: &Sexp, depth: u32) -> Result<Place, Diagnostic> {
    if is_variable(place) {
        return Ok(Place {
            bindings: Vec::new(),
            getter: place.clone(),
            kind: Setter::Variable(place.clone()),
        });
    }
    if depth > MAX_PLACE_DEPTH {
        return Err(bad_place(b, name, place));
    }
    let Some(items) = place.as_list() else {
        return Err(bad_place(b, name, place));
    };
    let head = items
        .first()
        .and_then(Sexp::as_symbol)
        .map(|s| name_of(b.interner, s).to_owned())
        .unwrap_or_default();
    let args = &items[1..];
    let mut bindings = Vec::new();
    let hold = |b: &mut Builder<'_>, bindings: &mut Vec<Sexp>, form: &Sexp| {
        if matches!(
            form.kind,
            SexpKind::Int(_) | SexpKind::Str(_) | SexpKind::Nil | SexpKind::T
        ) || form
            .as_list()
            .and_then(|i| i.first())
            .and_then(Sexp::as_symbol)
            .is_some_and(|s| name_of(b.interner, s) == "quote")
        {
            return form.clone();
        }
        let hidden = b.hidden("p");
        bindings.push(b.binding(hidden.clone(), form.clone()));
        hidden
    };
    let call = |b: &mut Builder<'_>, op: &str, args: Vec<Sexp>| b.call(op, args);
    if let Some(place) = analyse_part(b, name, &head, args, depth)? {
        return Ok(place);
    }
    let place = match (head.as_str(), args) {
        ("car" | "cdr" | "caar" | "cadr" | "cdar" | "cddr", [x]) => {
            let h = hold(b, &mut bindings, x);
            let getter = call(b, &head, vec![h.clone()]);
            let (inner, op): (Sexp, &'static str) = match head.as_str() {
                "car" => (h, "setcar"),
                "cdr" => (h, "setcdr"),
                "caar" => (call(b, "car", vec![h]), "setcar"),
                "cadr" => (call(b, "cdr", vec![h]), "setcar"),
                "cdar" => (call(b, "car", vec![h]), "setcdr"),
                _ => (call(b, "cdr", vec![h]), "setcdr"),
            };
            Place {
                bindings,
                getter,
                kind: Setter::Call(op, vec![inner]),
            }
        }
        ("nth" | "nthcdr" | "elt" | "aref", [first, second]) => {
            let f = hold(b, &mut bindings, first);
            let s = hold(b, &mut bindings, second);
            let getter = call(b, &head, vec![f.clone(), s.clone()]);
            let kind = match head.as_str() {
                "nth" => Setter::Nth(f, s),
                "nthcdr" => Setter::Nthcdr(f, s),
                "elt" => Setter::Elt(f, s),
                _ => Setter::Call("aset", vec![f, s]),
            };
            Place {
                bindings,
                getter,
                kind,
            }
        }
        ("gethash", [key, table, rest @ ..]) if rest.len() <= 1 => {
            let k = hold(b, &mut bindings, key);
            let h = hold(b, &mut bindings, table);
            let mut get = vec![k.clone(), h.clone()];
            if let Some(default) = rest.first() {
                get.push(hold(b, &mut bindings, default));
            }
            let getter = call(b, "gethash", get);
            Place {
                bindings,
                getter,
                kind: Setter::Puthash(k, h),
            }
        }
        ("alist-get", [key, alist, rest @ ..]) if rest.len() <= 3 => {
            let k = hold(b, &mut bindings, key);
            let inner = analyse(b, name, alist, depth + 1)?;
            bindings.extend(inner.bindings.iter().cloned());
            let default = match rest.first() {
                Some(d) => hold(b, &mut bindings, d),
                None => b.nil(),
            };
            // A literal nil REMOVE is no REMOVE.
            let remove = rest
                .get(1)
                .filter(|r| !matches!(r.kind, SexpKind::Nil))
                .map(|r| hold(b, &mut bindings, r));
            let lookup = match rest.get(2) {
                Some(testfn) => {
                    let f = hold(b, &mut bindings, testfn);
                    call(b, "assoc", vec![k.clone(), inner.getter.clone(), f])
                }
                None => call(b, "assq", vec![k.clone(), inner.getter.clone()]),
            };
            let pair = b.hidden("pair");
            bindings.push(b.binding(pair.clone(), lookup));
            let cdr = call(b, "cdr", vec![pair.clone()]);
            let getter = call(b, "if", vec![pair.clone(), cdr, default.clone()]);
            let inner = Place {
                bindings: Vec::new(),
                ..inner
            };
            Place {
                bindings,
                getter,
                kind: Setter::Alist(pair, k, default, remove, Box::new(inner)),
            }
        }
        ("plist-get", [plist, key, rest @ ..]) if rest.len() <= 1 => {
            let inner = analyse(b, name, plist, depth + 1)?;
            bindings.extend(inner.bindings.iter().cloned());
            let k = hold(b, &mut bindings, key);
            // Emacs: p = (cdr (plist-member PLIST K)); the value is (car p).
            let member = call(b, "plist-member", vec![inner.getter.clone(), k.clone()]);
            let tail = call(b, "cdr", vec![member]);
            let p = b.hidden("p");
            bindings.push(b.binding(p.clone(), tail));
            let getter = call(b, "car", vec![p.clone()]);
            let inner = Place {
                bindings: Vec::new(),
                ..inner
            };
            Place {
                bindings,
                getter,
                kind: Setter::Plist(p, k, Box::new(inner)),
            }
        }
        ("map-elt", [map, key, rest @ ..]) if rest.len() <= 1 => {
            let inner = analyse(b, name, map, depth + 1)?;
            bindings.extend(inner.bindings.iter().cloned());
            let k = hold(b, &mut bindings, key);
            let mut get = vec![inner.getter.clone(), k.clone()];
            if let Some(default) = rest.first() {
                get.push(hold(b, &mut bindings, default));
            }
            let getter = call(b, "map-elt", get);
            let inner = Place {
                bindings: Vec::new(),
                ..inner
            };
            Place {
                bindings,
                getter,
                kind: Setter::Map(k, Box::new(inner)),
            }
        }
        _ => return Err(bad_place(b, name, place)),
    };
    Ok(place)
}

/// A `car`/`cdr`/`c[ad][ad]r`/`nth`/`nthcdr`/`aref`/`elt` place whose container is itself a
/// place (a variable, a `gethash`, an `alist-get`...): `Some` of the [`Setter::Part`] place.
/// `None` when the container is not a place (the in-place setter is then used, which
/// refuses with its own error since conses and arrays are immutable, deviation 104).
fn analyse_part(
    b: &mut Builder<'_>,
    name: &str,
    head: &str,
    args: &[Sexp],
    depth: u32,
) -> Result<Option<Place>, Diagnostic> {
    let span = b.span;
    let (container, index) = match (head, args) {
        ("car" | "cdr", [x]) => (x.clone(), None),
        ("caar" | "cadr" | "cdar" | "cddr", [x]) => {
            // (cadr X) is (car (cdr X)): the inner part is itself a part place.
            let inner_op = if head.as_bytes()[2] == b'a' {
                "car"
            } else {
                "cdr"
            };
            (b.call(inner_op, [x.clone()]), None)
        }
        ("nth" | "nthcdr", [n, l]) => (l.clone(), Some(n.clone())),
        ("aref" | "elt", [a, n]) => (a.clone(), Some(n.clone())),
        _ => return Ok(None),
    };
    if !is_variable(&container) && !is_compound(&container) {
        return Ok(None);
    }
    let Ok(inner) = analyse(b, name, &container, depth + 1) else {
        return Ok(None);
    };
    let mut bindings = inner.bindings.clone();
    let index = index.map(|n| {
        if matches!(n.kind, SexpKind::Int(_)) {
            return n;
        }
        let hidden = b.hidden("n");
        bindings.push(b.binding(hidden.clone(), n));
        hidden
    });
    let outer_op = match head {
        "car" | "caar" | "cadr" => "car",
        "cdr" | "cdar" | "cddr" => "cdr",
        other => other,
    };
    let getter = match (&index, outer_op) {
        (Some(n), "aref" | "elt") => b.call(outer_op, [inner.getter.clone(), n.clone()]),
        (Some(n), _) => b.call(outer_op, [n.clone(), inner.getter.clone()]),
        (None, _) => b.call(outer_op, [inner.getter.clone()]),
    };
    let part = match (outer_op, index) {
        ("car", _) => Part::Car,
        ("cdr", _) => Part::Cdr,
        ("nth", Some(n)) => Part::Nth(n),
        ("nthcdr", Some(n)) => Part::Nthcdr(n),
        ("aref", Some(n)) => Part::Aref(n),
        (_, Some(n)) => Part::Elt(n),
        _ => return Err(shape("E0296", format!("'{name}': unsupported place"), span)),
    };
    let inner = Place {
        bindings: Vec::new(),
        ..inner
    };
    Ok(Some(Place {
        bindings,
        getter,
        kind: Setter::Part(part, Box::new(inner)),
    }))
}

/// `(signal 'ERROR (list 'PREDICATE DATUM...))`.
fn signal(b: &mut Builder<'_>, error: &str, data: Vec<Sexp>) -> Sexp {
    let error = b.sym(error);
    let error = b.quote(&error);
    let data = b.call("list", data);
    b.call("signal", [error, data])
}

/// The setter of a [`Setter::Part`] place: the container (`inner`'s getter) rebuilt with the
/// part replaced by `value`, stored into `inner`, with the errors Emacs's in-place setter
/// signals on a container too short or of the wrong type.
fn set_part(b: &mut Builder<'_>, part: &Part, inner: &Place, value: Sexp) -> Sexp {
    let g = inner.getter.clone();
    match part {
        Part::Car | Part::Cdr => {
            let rebuilt = if matches!(part, Part::Car) {
                let rest = b.call("cdr", [g.clone()]);
                b.call("cons", [value, rest])
            } else {
                let first = b.call("car", [g.clone()]);
                b.call("cons", [first, value])
            };
            let store = set(b, inner, rebuilt);
            let consp = b.call("consp", [g.clone()]);
            let predicate = b.sym("consp");
            let predicate = b.quote(&predicate);
            let error = signal(b, "wrong-type-argument", vec![predicate, g]);
            b.call("if", [consp, store, error])
        }
        Part::Nth(n) => set_nth(b, n, inner, value),
        Part::Nthcdr(n) => {
            // Emacs: N <= 0 sets the place itself; else (setcdr (nthcdr (1- N) L) V).
            let zero = Sexp::new(SexpKind::Int(0), b.span);
            let at_most_zero = b.call("<=", [n.clone(), zero]);
            let whole = set(b, inner, value.clone());
            let before = b.call("1-", [n.clone()]);
            let cell = b.hidden("cell");
            let cell_value = b.call("nthcdr", [before, g.clone()]);
            let head = b.call("take", [n.clone(), g]);
            let rebuilt = b.call("append", [head, value]);
            let store = set(b, inner, rebuilt);
            let consp = b.call("consp", [cell.clone()]);
            let predicate = b.sym("consp");
            let predicate = b.quote(&predicate);
            let error = signal(b, "wrong-type-argument", vec![predicate, cell.clone()]);
            let checked = b.call("if", [consp, store, error]);
            let binding = b.binding(cell, cell_value);
            let tail = b.let_form(false, vec![binding], vec![checked]);
            b.call("if", [at_most_zero, whole, tail])
        }
        Part::Aref(n) => set_aref(b, n, inner, value),
        Part::Elt(n) => {
            let listp = b.call("listp", [g]);
            let on_list = set_nth(b, n, inner, value.clone());
            let on_array = set_aref(b, n, inner, value);
            b.call("if", [listp, on_list, on_array])
        }
    }
}

/// `(setf (nth N L) V)` on a list place: `(append (take N L) (cons V (cdr tail)))`, tail
/// being `(nthcdr N L)`, which must be a cons as Emacs's `setcar` requires.
fn set_nth(b: &mut Builder<'_>, n: &Sexp, inner: &Place, value: Sexp) -> Sexp {
    let g = inner.getter.clone();
    let tail = b.hidden("tail");
    let tail_value = b.call("nthcdr", [n.clone(), g.clone()]);
    let head = b.call("take", [n.clone(), g]);
    let rest = b.call("cdr", [tail.clone()]);
    let replaced = b.call("cons", [value, rest]);
    let rebuilt = b.call("append", [head, replaced]);
    let store = set(b, inner, rebuilt);
    let consp = b.call("consp", [tail.clone()]);
    let predicate = b.sym("consp");
    let predicate = b.quote(&predicate);
    let error = signal(b, "wrong-type-argument", vec![predicate, tail.clone()]);
    let checked = b.call("if", [consp, store, error]);
    let binding = b.binding(tail, tail_value);
    b.let_form(false, vec![binding], vec![checked])
}

/// `(setf (aref A N) V)` on an array place: a fresh string or vector with element N
/// replaced, after Emacs's checks (an array; N in range).
fn set_aref(b: &mut Builder<'_>, n: &Sexp, inner: &Place, value: Sexp) -> Sexp {
    let g = inner.getter.clone();
    let stringp = b.call("stringp", [g.clone()]);
    let vectorp = b.call("vectorp", [g.clone()]);
    let arrayp = b.call("or", [stringp.clone(), vectorp]);
    let natnump = b.call("natnump", [n.clone()]);
    let length = b.call("length", [g.clone()]);
    let below = b.call("<", [n.clone(), length]);
    let in_range = b.call("and", [natnump, below]);
    let zero = Sexp::new(SexpKind::Int(0), b.span);
    let after = b.call("1+", [n.clone()]);
    let string_head = b.call("substring", [g.clone(), zero, n.clone()]);
    let char = b.call("char-to-string", [value.clone()]);
    let string_tail = b.call("substring", [g.clone(), after.clone()]);
    let new_string = b.call("concat", [string_head, char, string_tail]);
    let vector_head = b.call("seq-take", [g.clone(), n.clone()]);
    let element = b.call("list", [value]);
    let vector_tail = b.call("seq-drop", [g.clone(), after]);
    let new_vector = b.call("vconcat", [vector_head, element, vector_tail]);
    let rebuilt = b.call("if", [stringp, new_string, new_vector]);
    let store = set(b, inner, rebuilt);
    let range_error = signal(b, "args-out-of-range", vec![g.clone(), n.clone()]);
    let checked = b.call("if", [in_range, store, range_error]);
    let predicate = b.sym("arrayp");
    let predicate = b.quote(&predicate);
    let type_error = signal(b, "wrong-type-argument", vec![predicate, g]);
    b.call("if", [arrayp, checked, type_error])
}

/// The form setting `place` to `value` (a hidden variable or a constant).
fn set(b: &mut Builder<'_>, place: &Place, value: Sexp) -> Sexp {
    match &place.kind {
        Setter::Variable(variable) => b.setq(variable, value),
        Setter::Call(op, args) => {
            let mut all = args.clone();
            all.push(value);
            b.call(op, all)
        }
        Setter::Nth(n, list) => {
            let cell = b.call("nthcdr", [n.clone(), list.clone()]);
            b.call("setcar", [cell, value])
        }
        Setter::Nthcdr(n, list) => {
            let one = Sexp::new(SexpKind::Int(1), b.span);
            let before = b.call("-", [n.clone(), one]);
            let cell = b.call("nthcdr", [before, list.clone()]);
            b.call("setcdr", [cell, value])
        }
        Setter::Elt(seq, n) => {
            let listp = b.call("listp", [seq.clone()]);
            let cell = b.call("nthcdr", [n.clone(), seq.clone()]);
            let on_list = b.call("setcar", [cell, value.clone()]);
            let on_array = b.call("aset", [seq.clone(), n.clone(), value]);
            b.call("if", [listp, on_list, on_array])
        }
        Setter::Puthash(key, table) => b.call("puthash", [key.clone(), value, table.clone()]),
        Setter::Part(part, inner) => set_part(b, part, inner, value),
        Setter::Alist(pair, key, default, remove, inner) => {
            // Conses are immutable (deviation 104): the pair is replaced by a fresh one in a
            // rebuilt alist stored back into the alist's place, at the same position, so
            // the place reads as Emacs's in-place `setcdr` leaves it (deviation 148).
            let c = b.hidden("c");
            let same_pair = b.call("eq", [c.clone(), pair.clone()]);
            let fresh_pair = b.call("cons", [key.clone(), value.clone()]);
            let pick = b.call("if", [same_pair, fresh_pair, c.clone()]);
            let lambda = b.sym("lambda");
            let params = b.list(vec![c]);
            let replace = b.list(vec![lambda, params, pick]);
            let rebuilt = b.call("mapcar", [replace, inner.getter.clone()]);
            let stored = set(b, inner, rebuilt);
            let in_place = b.call("progn", [stored, value.clone()]);
            let fresh = b.call("cons", [key.clone(), value.clone()]);
            let fresh = b.setq(pair, fresh);
            let added = b.call("cons", [fresh, inner.getter.clone()]);
            let add = set(b, inner, added);
            let store = b.call("if", [pair.clone(), in_place, add]);
            let Some(remove) = remove else {
                return store;
            };
            let same = b.call("equal", [value.clone(), default.clone()]);
            let removing = b.call("and", [remove.clone(), same]);
            let without = b.call("delq", [pair.clone(), inner.getter.clone()]);
            let drop = set(b, inner, without);
            let drop = b.call("if", [pair.clone(), drop]);
            b.call("if", [removing, drop, store])
        }
        Setter::Plist(cell, key, inner) => {
            // As for `alist-get`: a fresh plist with the key's value replaced where it
            // stands (`plist-put` returns a fresh list, deviation 41), stored into the place.
            let put = b.call(
                "plist-put",
                [inner.getter.clone(), key.clone(), value.clone()],
            );
            let stored = set(b, inner, put);
            let in_place = b.call("progn", [stored, value.clone()]);
            let pair = b.call("cons", [value, inner.getter.clone()]);
            let added = b.call("cons", [key.clone(), pair]);
            let add = set(b, inner, added);
            b.call("if", [cell.clone(), in_place, add])
        }
        Setter::Map(key, inner) => {
            let put = b.call(
                "map-put!",
                [inner.getter.clone(), key.clone(), value.clone()],
            );
            // The key is new to a list map: add it, as map-insert would.
            let first = b.call("car", [inner.getter.clone()]);
            let alist = b.call("consp", [first]);
            let empty = b.call("null", [inner.getter.clone()]);
            let as_alist = b.call("or", [empty, alist]);
            let pair = b.call("cons", [key.clone(), value.clone()]);
            let consed = b.call("cons", [pair, inner.getter.clone()]);
            let plist = b.call("plist-put", [inner.getter.clone(), key.clone(), value]);
            let inserted = b.call("if", [as_alist, consed, plist]);
            let fallback = set(b, inner, inserted);
            let nil = b.nil();
            let error = b.sym("error");
            let handler = b.list(vec![error, fallback]);
            b.call("condition-case", [nil, put, handler])
        }
    }
}

/// `(let* (PLACE-BINDINGS... EXTRA...) FORMS...)`.
fn wrap(b: &mut Builder<'_>, mut bindings: Vec<Sexp>, forms: Vec<Sexp>) -> Sexp {
    if bindings.is_empty() {
        return b.call("progn", forms);
    }
    bindings.shrink_to_fit();
    b.let_form(true, bindings, forms)
}

/// `(let* (PLACE... (v NEW)) SET(v) v)` where NEW is built from the getter.
fn update(
    b: &mut Builder<'_>,
    name: &str,
    place: &Sexp,
    mut before: Vec<Sexp>,
    new: impl FnOnce(&mut Builder<'_>, Sexp) -> Sexp,
) -> Result<Sexp, Diagnostic> {
    let analysed = analyse(b, name, place, 0)?;
    let value = b.hidden("v");
    let computed = new(b, analysed.getter.clone());
    before.extend(analysed.bindings.iter().cloned());
    before.push(b.binding(value.clone(), computed));
    let store = set(b, &analysed, value.clone());
    Ok(wrap(b, before, vec![store, value]))
}

/// Expands `setf`, `cl-callf`, `cl-callf2` or `cl-pushnew`, or `push`/`pop`/the `incf`
/// family on a place that is not a variable.
///
/// # Errors
/// E0295 (shape), E0296 / E0204 (unsupported place).
pub(crate) fn expand(b: &mut Builder<'_>, name: &str, args: &[Sexp]) -> Result<Sexp, Diagnostic> {
    let bad = |b: &Builder<'_>| {
        shape(
            "E0295",
            format!("'{name}': expects {}", usage(name)),
            b.span,
        )
    };
    match name {
        "setf" => {
            if !args.len().is_multiple_of(2) {
                return Err(bad(b));
            }
            let mut forms = Vec::new();
            for pair in args.chunks(2) {
                let [place, value] = pair else { continue };
                let value = value.clone();
                forms.push(update(b, name, place, Vec::new(), |_, _| value)?);
            }
            Ok(b.call("progn", forms))
        }
        "push" => {
            let [value, place] = args else {
                return Err(bad(b));
            };
            let x = b.hidden("x");
            let before = vec![b.binding(x.clone(), value.clone())];
            update(b, name, place, before, |b, get| b.call("cons", [x, get]))
        }
        "pop" => {
            let [place] = args else {
                return Err(bad(b));
            };
            let analysed = analyse(b, name, place, 0)?;
            let old = b.hidden("x");
            let mut bindings = analysed.bindings.clone();
            bindings.push(b.binding(old.clone(), analysed.getter.clone()));
            let rest = b.call("cdr", [old.clone()]);
            let store = set(b, &analysed, rest);
            let head = b.call("car", [old]);
            Ok(wrap(b, bindings, vec![store, head]))
        }
        "cl-incf" | "cl-decf" | "incf" | "decf" => {
            let (place, delta) = match args {
                [place] => (place, Sexp::new(SexpKind::Int(1), b.span)),
                [place, delta] => (place, delta.clone()),
                _ => return Err(bad(b)),
            };
            let op = if name.ends_with("incf") { "+" } else { "-" };
            update(b, name, place, Vec::new(), |b, get| {
                b.call(op, [get, delta])
            })
        }
        "cl-callf" | "cl-callf2" => {
            let (function, before_args, place, after) = match (name, args) {
                ("cl-callf", [function, place, rest @ ..]) => (function, &[][..], place, rest),
                ("cl-callf2", [function, first, place, rest @ ..]) => {
                    (function, std::slice::from_ref(first), place, rest)
                }
                _ => return Err(bad(b)),
            };
            let function = function.clone();
            let before_args = before_args.to_vec();
            let after = after.to_vec();
            update(b, name, place, Vec::new(), move |b, get| {
                let mut call_args = before_args;
                call_args.push(get);
                call_args.extend(after);
                if let Some(symbol) = function.as_symbol() {
                    let op = name_of(b.interner, symbol).to_owned();
                    b.call(&op, call_args)
                } else {
                    let mut all = vec![function];
                    all.extend(call_args);
                    b.call("funcall", all)
                }
            })
        }
        "cl-pushnew" => {
            let (value, place, test) = match args {
                [value, place] => (value, place, None),
                [value, place, key, test]
                    if key
                        .as_symbol()
                        .is_some_and(|s| name_of(b.interner, s) == ":test") =>
                {
                    (value, place, Some(test.clone()))
                }
                _ => return Err(bad(b)),
            };
            let x = b.hidden("x");
            let mut before = vec![b.binding(x.clone(), value.clone())];
            let f = test.map(|test| {
                let f = b.hidden("test");
                before.push(b.binding(f.clone(), test));
                f
            });
            let analysed = analyse(b, name, place, 0)?;
            before.extend(analysed.bindings.iter().cloned());
            let current = b.hidden("cur");
            before.push(b.binding(current.clone(), analysed.getter.clone()));
            // (let ((tail cur) (found nil)) (while (and tail (not found)) (if TEST (setq found t)) (setq tail (cdr tail))) found)
            let tail = b.hidden("tail");
            let found = b.hidden("found");
            let element = b.call("car", [tail.clone()]);
            let test = match f {
                Some(f) => b.call("funcall", [f, x.clone(), element]),
                None => b.call("eql", [x.clone(), element]),
            };
            let t = b.t();
            let mark = b.setq(&found, t);
            let check = b.call("if", [test, mark]);
            let cdr = b.call("cdr", [tail.clone()]);
            let advance = b.setq(&tail, cdr);
            let not_found = b.call("not", [found.clone()]);
            let condition = b.call("and", [tail.clone(), not_found]);
            let looping = b.call("while", [condition, check, advance]);
            let nil = b.nil();
            let search = b.let_form(
                false,
                vec![
                    b.binding(tail, current.clone()),
                    b.binding(found.clone(), nil),
                ],
                vec![looping, found],
            );
            let value = b.hidden("v");
            let consed = b.call("cons", [x, current.clone()]);
            let store = set(b, &analysed, value.clone());
            let add = b.let_form(
                false,
                vec![b.binding(value.clone(), consed)],
                vec![store, value],
            );
            let body = b.call("if", [search, current, add]);
            Ok(wrap(b, before, vec![body]))
        }
        _ => Err(bad(b)),
    }
}
