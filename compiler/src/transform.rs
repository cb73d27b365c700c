//! The original six syntax transformers (dialect §5) as pure, one-level `Sexp` → `Sexp`
//! rewrites, and the dispatch to the Emacs conveniences of [`crate::sugar`].
//!
//! | Form | Expansion |
//! |------|-----------|
//! | `(when C BODY...)` | `(if C (progn BODY...))` |
//! | `(unless C BODY...)` | `(if C nil (progn BODY...))` |
//! | `(push V VAR)` | `(setq VAR (cons V VAR))` |
//! | `(dolist (VAR LIST) BODY...)` | `(let ((TAIL LIST)) (while TAIL (let ((VAR (car TAIL))) BODY...) (setq TAIL (cdr TAIL))))` |
//! | `(dotimes (VAR COUNT) BODY...)` | `(let ((LIMIT COUNT) (I 0)) (while (< I LIMIT) (let ((VAR I)) BODY...) (setq I (+ I 1))))` |
//! | `` (` TEMPLATE) `` | one-level quasiquote to `quote` / `list` / `append` |
//!
//! `TAIL`, `LIMIT` and `I` are fresh uninterned symbols ([`Interner::gensym`]), so they
//! cannot clash with guest names; `dolist`/`dotimes` bind VAR in a fresh `let` per
//! iteration, so closures capture per-iteration values and mutating VAR does not move the
//! loop. Both return nil (the value of `while`).
//!
//! New nodes carry the span of the transformed form; argument forms keep their own spans.
//! Each expansion is limited to [`Limits::expansion_nodes`] nodes (cons cells plus atoms).
//!
//! | Code  | Kind      | Message |
//! |-------|-----------|---------|
//! | E0201 | script    | `'when': expects (when CONDITION BODY...)` |
//! | E0202 | script    | `'unless': expects (unless CONDITION BODY...)` |
//! | E0203 | script    | `'push': expects (push VALUE VARIABLE)` |
//! | E0204 | script    | `'push': PLACE must be a variable name, not %S` |
//! | E0205 | script    | `'dolist': expects (dolist (VAR LIST) BODY...); the RESULT form is not supported` |
//! | E0206 | script    | `'dolist': VAR must be a variable name, not %S` |
//! | E0207 | script    | `'dotimes': expects (dotimes (VAR COUNT) BODY...); the RESULT form is not supported` |
//! | E0208 | script    | `'dotimes': VAR must be a variable name, not %S` |
//! | E0209 | script    | `Malformed backquote` |
//! | E0210 | script    | `',@' is only valid as a list element inside a backquote` |
//! | E0211 | script    | `Nested backquote is not supported` |
//! | E0212 | script    | `Malformed ',': expects exactly one expression` (also `',@'`) |
//! | E0213 | script    | `Dotted ',' is not supported inside a backquote` (also `',@'`) |
//! | E0220 | expansion | `Expansion of NAME exceeded its size limit` |
//! | E0221 | input     | `Script nesting exceeds the depth limit of %d` (a template deeper than the limit) |
//!
//! A vector inside a template is scanned like a list and rebuilt with `(apply 'vector
//! LIST)` when it holds an unquote (`` `[,(+ 1 2)] `` → `[3]`, as in Emacs); a dotted tail is
//! a template too (`` `(,k . ,v) ``, `` `(a ,b . c) ``), joined as `append`'s last argument.

use crate::ast::{Sexp, SexpKind};
use crate::diagnostic::Diagnostic;
use crate::tables::{name_of, prin1};
use ptc_vm::{ErrorKind, Interner, Limits, Span};

/// One of the transformers: the original six, or one of `crate::sugar`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transformer {
    /// `when`.
    When,
    /// `unless`.
    Unless,
    /// `push`.
    Push,
    /// `dolist`.
    Dolist,
    /// `dotimes`.
    Dotimes,
    /// `` ` ``.
    Backquote,
    /// One of the forms of [`crate::sugar`], by name (`"sort"` for the two-argument
    /// `sort`, which is not in the table: one-argument `sort` is the primitive).
    Sugar(&'static str),
}

impl Transformer {
    /// The transformer named `name`.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Transformer> {
        // Asked for every list head preflight and expansion see: most are no transformer
        // and are rejected by length and first byte before any name is compared.
        const FILTER: crate::tables::NameFilter =
            crate::tables::name_filter(&crate::tables::TRANSFORMERS);
        if !crate::tables::may_hold(&FILTER, name) {
            return None;
        }
        Some(match name {
            "when" => Transformer::When,
            "unless" => Transformer::Unless,
            "push" => Transformer::Push,
            "dolist" => Transformer::Dolist,
            "dotimes" => Transformer::Dotimes,
            "`" => Transformer::Backquote,
            _ => Transformer::Sugar(crate::sugar::lookup(name)?),
        })
    }

    /// The operator name.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Transformer::When => "when",
            Transformer::Unless => "unless",
            Transformer::Push => "push",
            Transformer::Dolist => "dolist",
            Transformer::Dotimes => "dotimes",
            Transformer::Backquote => "`",
            Transformer::Sugar(name) => name,
        }
    }

    /// The transformer `form` calls, if its operator is one.
    #[must_use]
    pub fn of(form: &Sexp, interner: &Interner) -> Option<Transformer> {
        let head = form.head_symbol()?;
        Transformer::of_named(form, name_of(interner, head))
    }

    /// [`Transformer::of`] for a caller that has the name of `form`'s head symbol already.
    #[must_use]
    pub fn of_named(form: &Sexp, name: &str) -> Option<Transformer> {
        if name == "sort" && form.as_list().is_some_and(|items| items.len() == 3) {
            return Some(Transformer::Sugar("sort"));
        }
        Transformer::from_name(name)
    }
}

/// Nodes of `form` counted as cons cells plus atoms (a list of n elements is n cells plus
/// its elements; a vector is one node plus its elements), stopping once past `cap`: the
/// count is exact up to `cap`, and above `cap` whenever the real count is.
///
/// Recursive to [`COUNT_RECURSION`] levels (no allocation for ordinary code), iterative
/// below that, so an unvalidated macro expansion of any depth cannot exhaust the stack.
#[must_use]
pub fn count_nodes(form: &Sexp, cap: u64) -> u64 {
    let mut count = 0;
    count_into(form, cap, &mut count, 0);
    count
}

/// How deep [`count_nodes`] recurses before it switches to a heap stack.
const COUNT_RECURSION: u32 = 64;

fn count_into(form: &Sexp, cap: u64, count: &mut u64, depth: u32) {
    let (own, children, tail): (u64, &[Sexp], Option<&Sexp>) = match &form.kind {
        SexpKind::List(items) => (items.len() as u64, items, None),
        SexpKind::Vector(items) => (1, items, None),
        SexpKind::Dotted(items, tail) => (items.len() as u64, items, Some(tail)),
        _ => {
            *count = count.saturating_add(1);
            return;
        }
    };
    if depth >= COUNT_RECURSION {
        *count = count.saturating_add(count_iteratively(form, cap.saturating_sub(*count)));
        return;
    }
    *count = count.saturating_add(own);
    for child in children.iter().chain(tail) {
        if *count > cap {
            return;
        }
        match child.kind {
            SexpKind::List(_) | SexpKind::Vector(_) | SexpKind::Dotted(..) => {
                count_into(child, cap, count, depth + 1);
            }
            // Atoms are counted here: no call per leaf.
            _ => *count = count.saturating_add(1),
        }
    }
}

fn count_iteratively(form: &Sexp, cap: u64) -> u64 {
    let mut count: u64 = 0;
    let mut pending = vec![form];
    while let Some(item) = pending.pop() {
        match &item.kind {
            SexpKind::List(items) => {
                count = count.saturating_add(items.len() as u64);
                pending.extend(items.iter());
            }
            SexpKind::Vector(items) => {
                count = count.saturating_add(1);
                pending.extend(items.iter());
            }
            SexpKind::Dotted(items, tail) => {
                count = count.saturating_add(items.len() as u64);
                pending.extend(items.iter());
                pending.push(tail);
            }
            _ => count = count.saturating_add(1),
        }
        if count > cap {
            return count;
        }
    }
    count
}

/// Expands one call of `transformer`, one level.
///
/// # Errors
/// The transformer's shape error (kind `script`, E0201–E0213), E0220 (kind `expansion`)
/// when the expansion exceeds [`Limits::expansion_nodes`], E0221 (kind `input`) for a
/// backquote template deeper than [`Limits::depth`].
pub fn expand(
    transformer: Transformer,
    form: &Sexp,
    limits: &Limits,
    interner: &mut Interner,
) -> Result<Sexp, Diagnostic> {
    expand_counted(transformer, form, limits, interner).map(|(expansion, _)| expansion)
}

/// [`expand`], with the expansion's node count ([`count_nodes`], exact: it is within
/// [`Limits::expansion_nodes`]).
///
/// # Errors
/// As [`expand`].
pub fn expand_counted(
    transformer: Transformer,
    form: &Sexp,
    limits: &Limits,
    interner: &mut Interner,
) -> Result<(Sexp, u64), Diagnostic> {
    let items = form.as_list().unwrap_or_default();
    let mut build = Builder {
        span: form.span,
        interner,
    };
    let (front, body) = items.split_at(items.len().min(2));
    let body = body.iter().cloned();
    let expansion = match transformer {
        Transformer::When | Transformer::Unless => build.conditional(transformer, front, body)?,
        Transformer::Push => build.push(items)?,
        Transformer::Dolist => build.dolist(front, body)?,
        Transformer::Dotimes => build.dotimes(front, body)?,
        Transformer::Backquote => build.backquote(items, limits)?,
        Transformer::Sugar(name) => crate::sugar::expand(&mut build, name, items)?,
    };
    counted(transformer, expansion, limits, form.span)
}

/// [`expand_counted`] of a form about to be replaced by its expansion: the body forms of
/// `when`, `unless`, `dolist` and `dotimes` move into the expansion instead of being
/// copied, each left as nil in `form`. The same expansion, count and errors (the body is
/// moved only once the form's shape is checked).
///
/// `size` is `form`'s [`count_nodes`] under a cap of at least [`Limits::expansion_nodes`]
/// (the caller counted it already): these four expansions hold every node of the form
/// but its operator and spec list, plus a fixed scaffold, so their count is `size` plus a
/// constant ([`scaffold_nodes`]) instead of a walk of the moved body.
///
/// # Errors
/// As [`expand`].
pub(crate) fn expand_counted_moving(
    transformer: Transformer,
    form: &mut Sexp,
    size: u64,
    limits: &Limits,
    interner: &mut Interner,
) -> Result<(Sexp, u64), Diagnostic> {
    let span = form.span;
    let SexpKind::List(items) = &mut form.kind else {
        return expand_counted(transformer, form, limits, interner);
    };
    let with_result = matches!(items.get(1).and_then(Sexp::as_list), Some([_, _, _]));
    let Some(added) = scaffold_nodes(transformer, with_result) else {
        return expand_counted(transformer, form, limits, interner);
    };
    let split = items.len().min(2);
    let (front, body) = items.split_at_mut(split);
    let body = body
        .iter_mut()
        .map(|f| std::mem::replace(f, Sexp::new(SexpKind::Nil, f.span)));
    let mut build = Builder { span, interner };
    let expansion = match transformer {
        Transformer::Dolist => build.dolist(front, body)?,
        Transformer::Dotimes => build.dotimes(front, body)?,
        _ => build.conditional(transformer, front, body)?,
    };
    // Exact within the cap: `size` is exact up to a cap at least `expansion_nodes`, and
    // past it whenever the form is, and then so is the expansion.
    let nodes = size.saturating_add(added);
    if nodes > limits.expansion_nodes {
        return Err(too_big(transformer, span));
    }
    debug_assert_eq!(nodes, count_nodes(&expansion, limits.expansion_nodes));
    Ok((expansion, nodes))
}

/// How many more nodes the expansion of a well-formed `when`, `unless`, `dolist` or
/// `dotimes` form (with a RESULT form or not) has than the form: `(when C B...)` becomes
/// `(if C (progn B...))` (+3), `(unless C B...)` `(if C nil (progn B...))` (+5); the loops
/// add their `let`, `while`, `car`/`cdr` or counter scaffold (see the module docs).
/// `None` for the other transformers. Checked against [`count_nodes`] by the tests and,
/// in debug builds, at every expansion.
fn scaffold_nodes(transformer: Transformer, with_result: bool) -> Option<u64> {
    Some(match (transformer, with_result) {
        (Transformer::When, _) => 3,
        (Transformer::Unless, _) => 5,
        (Transformer::Dolist, false) => 28,
        (Transformer::Dolist, true) => 37,
        (Transformer::Dotimes, false) => 37,
        (Transformer::Dotimes, true) => 46,
        _ => return None,
    })
}

/// `expansion` with its node count, or E0220 when it is past [`Limits::expansion_nodes`].
fn counted(
    transformer: Transformer,
    expansion: Sexp,
    limits: &Limits,
    span: Span,
) -> Result<(Sexp, u64), Diagnostic> {
    let nodes = count_nodes(&expansion, limits.expansion_nodes);
    if nodes > limits.expansion_nodes {
        return Err(too_big(transformer, span));
    }
    Ok((expansion, nodes))
}

/// E0220: the expansion of `transformer` at `span` is past [`Limits::expansion_nodes`].
fn too_big(transformer: Transformer, span: Span) -> Diagnostic {
    Diagnostic::new(
        "E0220",
        ErrorKind::Expansion,
        format!(
            "Expansion of {} exceeded its size limit",
            transformer.name()
        ),
        span,
    )
}

/// A loop's VAR, its LIST or COUNT and its optional RESULT form.
type LoopParts<'f> = (&'f Sexp, &'f Sexp, Option<&'f Sexp>);

use crate::builders::{Builder, is_variable, shape};

impl Builder<'_> {
    /// `when`/`unless` of `front` (the operator and CONDITION, when present) and `body`
    /// (the forms after them).
    fn conditional(
        &mut self,
        which: Transformer,
        front: &[Sexp],
        body: impl ExactSizeIterator<Item = Sexp>,
    ) -> Result<Sexp, Diagnostic> {
        let [_, condition] = front else {
            let name = which.name();
            let (code, usage) = if which == Transformer::When {
                ("E0201", "when CONDITION BODY...")
            } else {
                ("E0202", "unless CONDITION BODY...")
            };
            return Err(shape(
                code,
                format!("'{name}': expects ({usage})"),
                self.span,
            ));
        };
        let progn = self.call("progn", body);
        let mut args = vec![condition.clone()];
        if which == Transformer::Unless {
            args.push(Sexp::new(SexpKind::Nil, self.span));
        }
        args.push(progn);
        Ok(self.call("if", args))
    }

    fn push(&mut self, items: &[Sexp]) -> Result<Sexp, Diagnostic> {
        let [_, value, place] = items else {
            return Err(shape(
                "E0203",
                "'push': expects (push VALUE VARIABLE)".to_owned(),
                self.span,
            ));
        };
        if crate::places::is_compound(place) {
            return crate::places::expand(self, "push", &items[1..]);
        }
        if !is_variable(place) {
            return Err(shape(
                "E0204",
                format!(
                    "'push': PLACE must be a variable name, not {}",
                    prin1(place, self.interner)
                ),
                place.span,
            ));
        }
        let cons = self.call("cons", [value.clone(), place.clone()]);
        Ok(self.call("setq", [place.clone(), cons]))
    }

    /// The `(VAR EXPR)` spec of a `dolist`/`dotimes`, validated.
    fn loop_parts<'f>(
        &self,
        items: &'f [Sexp],
        name: &str,
        usage: &str,
        codes: (&'static str, &'static str),
    ) -> Result<LoopParts<'f>, Diagnostic> {
        let spec = items.get(1).and_then(Sexp::as_list);
        let (variable, expression, result) = match spec {
            Some([variable, expression]) => (variable, expression, None),
            Some([variable, expression, result]) => (variable, expression, Some(result)),
            _ => {
                return Err(shape(
                    codes.0,
                    format!("'{name}': expects ({usage} BODY...)"),
                    items.get(1).map_or(self.span, |s| s.span),
                ));
            }
        };
        if !is_variable(variable) {
            return Err(shape(
                codes.1,
                format!(
                    "'{name}': VAR must be a variable name, not {}",
                    prin1(variable, self.interner)
                ),
                variable.span,
            ));
        }
        Ok((variable, expression, result))
    }

    /// `dolist` of `front` (the operator and the spec, when present) and `body`.
    fn dolist(
        &mut self,
        front: &[Sexp],
        body: impl ExactSizeIterator<Item = Sexp>,
    ) -> Result<Sexp, Diagnostic> {
        let (variable, list, result) = self.loop_parts(
            front,
            "dolist",
            "dolist (VAR LIST [RESULT])",
            ("E0205", "E0206"),
        )?;
        let tail = Sexp::new(SexpKind::Sym(self.interner.gensym("tail")), self.span);
        let car = self.call("car", [tail.clone()]);
        let binding = self.list(vec![variable.clone(), car]);
        let bindings = self.list(vec![binding]);
        let mut each = Vec::with_capacity(2 + body.len());
        each.push(self.sym("let"));
        each.push(bindings);
        each.extend(body);
        let each = self.list(each);
        let cdr = self.call("cdr", [tail.clone()]);
        let advance = self.call("setq", [tail.clone(), cdr]);
        let looping = self.call("while", [tail.clone(), each, advance]);
        let outer = self.list(vec![tail, list.clone()]);
        let outer = self.list(vec![outer]);
        let mut forms = vec![outer, looping];
        if let Some(result) = result {
            // Emacs evaluates RESULT with VAR bound to nil.
            let nil = Sexp::new(SexpKind::Nil, self.span);
            let binding = self.list(vec![variable.clone(), nil]);
            let bindings = self.list(vec![binding]);
            forms.push(self.call("let", [bindings, result.clone()]));
        }
        Ok(self.call("let", forms))
    }

    /// `dotimes` of `front` (the operator and the spec, when present) and `body`.
    fn dotimes(
        &mut self,
        front: &[Sexp],
        body: impl ExactSizeIterator<Item = Sexp>,
    ) -> Result<Sexp, Diagnostic> {
        let (variable, count, result) = self.loop_parts(
            front,
            "dotimes",
            "dotimes (VAR COUNT [RESULT])",
            ("E0207", "E0208"),
        )?;
        let limit = Sexp::new(SexpKind::Sym(self.interner.gensym("limit")), self.span);
        let counter = Sexp::new(SexpKind::Sym(self.interner.gensym("i")), self.span);
        let zero = Sexp::new(SexpKind::Int(0), self.span);
        let one = Sexp::new(SexpKind::Int(1), self.span);
        let test = self.call("<", [counter.clone(), limit.clone()]);
        let binding = self.list(vec![variable.clone(), counter.clone()]);
        let bindings = self.list(vec![binding]);
        let mut each = Vec::with_capacity(2 + body.len());
        each.push(self.sym("let"));
        each.push(bindings);
        each.extend(body);
        let each = self.list(each);
        let next = self.call("+", [counter.clone(), one]);
        let advance = self.call("setq", [counter.clone(), next]);
        let looping = self.call("while", [test, each, advance]);
        let limit_binding = self.list(vec![limit, count.clone()]);
        let counter_binding = self.list(vec![counter.clone(), zero]);
        let outer = self.list(vec![limit_binding, counter_binding]);
        let mut forms = vec![outer, looping];
        if let Some(result) = result {
            // Emacs evaluates RESULT with VAR bound to the final count.
            let binding = self.list(vec![variable.clone(), counter]);
            let bindings = self.list(vec![binding]);
            forms.push(self.call("let", [bindings, result.clone()]));
        }
        Ok(self.call("let", forms))
    }

    fn backquote(&mut self, items: &[Sexp], limits: &Limits) -> Result<Sexp, Diagnostic> {
        let [_, template] = items else {
            return Err(shape("E0209", "Malformed backquote".to_owned(), self.span));
        };
        self.template(template, limits, 0)
    }

    /// The name of `datum` when it is one of the symbols `,`, `,@` or `` ` ``.
    fn quasi_symbol(&self, datum: &Sexp) -> Option<&'static str> {
        let name = name_of(self.interner, datum.as_symbol()?);
        [",", ",@", "`"].into_iter().find(|q| *q == name)
    }

    fn contains_quasi(&self, template: &Sexp) -> bool {
        let mut pending = vec![template];
        while let Some(item) = pending.pop() {
            match &item.kind {
                SexpKind::List(items) | SexpKind::Vector(items) => pending.extend(items.iter()),
                SexpKind::Dotted(items, tail) => {
                    pending.extend(items.iter());
                    pending.push(tail);
                }
                SexpKind::Sym(_) if self.quasi_symbol(item).is_some() => return true,
                _ => {}
            }
        }
        false
    }

    /// The single expression of an unquote form `(, X)` / `(,@ X)`.
    fn unquoted<'f>(
        &self,
        items: &'f [Sexp],
        name: &str,
        span: Span,
    ) -> Result<&'f Sexp, Diagnostic> {
        match items {
            [_, expression] => Ok(expression),
            _ => Err(shape(
                "E0212",
                format!("Malformed '{name}': expects exactly one expression"),
                span,
            )),
        }
    }

    fn template(
        &mut self,
        template: &Sexp,
        limits: &Limits,
        depth: u64,
    ) -> Result<Sexp, Diagnostic> {
        if depth > limits.depth {
            return Err(Diagnostic::new(
                "E0221",
                ErrorKind::Input,
                format!("Script nesting exceeds the depth limit of {}", limits.depth),
                template.span,
            ));
        }
        let (items, dotted_tail) = match &template.kind {
            SexpKind::List(items) => (items, None),
            SexpKind::Dotted(items, tail) => (items, Some(&**tail)),
            SexpKind::Vector(items) if self.contains_quasi(template) => {
                // `[a ,b]` → `(apply 'vector LIST)`, LIST the expansion of `(a ,b)`.
                let as_list = Sexp::new(SexpKind::List(items.clone()), template.span);
                let list = self.template(&as_list, limits, depth)?;
                let vector = self.sym("vector");
                let vector = self.quote(&vector);
                return Ok(self.call("apply", [vector, list]));
            }
            _ => return Ok(self.quote(template)),
        };
        match items.first().and_then(|head| self.quasi_symbol(head)) {
            Some(",") => return Ok(self.unquoted(items, ",", template.span)?.clone()),
            Some(",@") => {
                return Err(shape(
                    "E0210",
                    "',@' is only valid as a list element inside a backquote".to_owned(),
                    template.span,
                ));
            }
            Some(_) => {
                return Err(shape(
                    "E0211",
                    "Nested backquote is not supported".to_owned(),
                    template.span,
                ));
            }
            None => {}
        }
        if !self.contains_quasi(template) {
            return Ok(self.quote(template));
        }
        let mut segments: Vec<Sexp> = Vec::new();
        let mut run: Vec<Sexp> = Vec::new();
        // `(a . ,b)` reads as `(a \, b)`: a bare `,` second to last unquotes the tail.
        let (items, mut tail) = match items.len().checked_sub(2).map(|at| items.split_at(at)) {
            Some((head, [comma, last]))
                if dotted_tail.is_none() && self.quasi_symbol(comma) == Some(",") =>
            {
                (head, Some(last.clone()))
            }
            _ => (&items[..], None),
        };
        if let Some(atom) = dotted_tail {
            tail = Some(self.template(atom, limits, depth.saturating_add(1))?);
        }
        for element in items {
            if let Some(bare @ (",@" | ",")) = self.quasi_symbol(element) {
                return Err(shape(
                    "E0213",
                    format!("Dotted '{bare}' is not supported inside a backquote"),
                    element.span,
                ));
            }
            let splice = element
                .as_list()
                .filter(|inner| inner.first().and_then(|h| self.quasi_symbol(h)) == Some(",@"));
            if let Some(inner) = splice {
                let spliced = self.unquoted(inner, ",@", element.span)?.clone();
                if !run.is_empty() {
                    let list = self.call("list", std::mem::take(&mut run));
                    segments.push(list);
                }
                segments.push(spliced);
            } else {
                run.push(self.template(element, limits, depth.saturating_add(1))?);
            }
        }
        if !run.is_empty() {
            let list = self.call("list", run);
            segments.push(list);
        }
        if let Some(tail) = tail {
            // `append` shares its last argument, which may be any value: the dotted tail.
            if segments.is_empty() {
                return Ok(tail);
            }
            segments.push(tail);
            return Ok(self.call("append", segments));
        }
        if segments.len() == 1
            && let Some(only) = segments.pop()
        {
            return Ok(only);
        }
        Ok(self.call("append", segments))
    }
}

#[cfg(test)]
mod tests {
    use super::{count_iteratively, count_nodes};
    use crate::ast::{Sexp, SexpKind};
    use ptc_vm::Span;

    fn atom() -> Sexp {
        Sexp::new(SexpKind::Int(1), Span::default())
    }

    /// A tree `depth` levels deep whose every level holds a list, a vector, a dotted list
    /// and two atoms.
    fn tree(depth: usize) -> Sexp {
        let mut inner = atom();
        for level in 0..depth {
            let vector = Sexp::new(SexpKind::Vector(vec![atom(), atom()]), Span::default());
            let dotted = Sexp::new(
                SexpKind::Dotted(vec![atom()], Box::new(vector.clone())),
                Span::default(),
            );
            let items = if level % 2 == 0 {
                vec![inner, vector, dotted, atom(), atom()]
            } else {
                vec![atom(), dotted, inner, vector]
            };
            inner = Sexp::new(SexpKind::List(items), Span::default());
        }
        inner
    }

    #[test]
    fn the_recursive_count_is_the_iterative_one_at_every_depth_and_cap() {
        for depth in [0, 1, 5, 63, 64, 65, 200] {
            let form = tree(depth);
            let exact = count_iteratively(&form, u64::MAX);
            assert_eq!(count_nodes(&form, u64::MAX), exact, "depth {depth}");
            for cap in [0, 1, 7, exact / 2, exact - 1, exact, exact + 1] {
                let counted = count_nodes(&form, cap);
                if exact <= cap {
                    assert_eq!(counted, exact, "depth {depth} cap {cap}");
                } else {
                    assert!(counted > cap, "depth {depth} cap {cap}: {counted}");
                }
            }
        }
    }

    /// Moving the body into the expansion gives the expansion, count and error copying it
    /// gives, for well-formed and malformed forms alike.
    #[test]
    fn the_moving_expansion_is_the_copying_one() {
        use super::{Transformer, count_nodes, expand_counted, expand_counted_moving};
        use ptc_vm::{Interner, Limits};
        let limits = Limits::default();
        let sources = [
            "(when (> x 1) (f x) (g \"s\" [1 2]))",
            "(unless x)",
            "(when)",
            "(unless)",
            "(dolist (x xs) (print x) (setq n (+ n 1)))",
            "(dolist (x xs n))",
            "(dolist (x) (f))",
            "(dolist (:k xs) (f))",
            "(dolist)",
            "(dotimes (i 3) (push i acc))",
            "(dotimes (i n i) (f i) (g))",
            "(dotimes (1 n) (f))",
            "(push 1 xs)",
            "(when-let ((a (f))) (g a))",
        ];
        for source in sources {
            let mut interner = Interner::new();
            let forms = crate::reader::read(source, &limits, &mut interner).expect("reads");
            let mut form = forms.into_iter().next().expect("one form");
            let transformer = Transformer::of(&form, &interner).expect("a transformer");
            let mut copying_interner = interner.clone();
            let copied = expand_counted(transformer, &form, &limits, &mut copying_interner);
            let size = count_nodes(&form, u64::MAX);
            let moved = expand_counted_moving(transformer, &mut form, size, &limits, &mut interner);
            assert_eq!(copied, moved, "{source}");
        }
    }
}
