//! The pcase family (issue 46): `pcase`, `pcase-exhaustive`, `pcase-let`, `pcase-let*`,
//! `pcase-dolist`, `pcase-lambda` and `pcase-setq`, each a one-level rewrite into special
//! forms and primitives.
//!
//! A pattern is compiled, in evaluation order, into a flat list of [`Step`]s — a test
//! (`(if TEST REST)`) or a binding (`(let* ((VAR EXPR)) REST)`) — which is then folded
//! around the clause's continuation. Every subject is held in a hidden variable, so each
//! part of the value is computed once and the continuation (the clause body) appears once:
//! the expansion is linear in the patterns and bodies. `pcase` itself becomes
//!
//! ```text
//! (let* ((val EXPR) (done nil) (res nil))
//!   MATCH1[(progn (setq done t) (setq res (progn BODY1...)))]
//!   (if done nil MATCH2[...]) ...
//!   res)
//! ```
//!
//! Patterns: `_`; a symbol (binds it; a second use in one pattern tests `eq`, as Emacs);
//! literals (integers, floats, strings, keywords) and `'X` (tested with `equal`);
//! backquote patterns with `,PAT` at any depth, dotted tails and vectors; `(pred F)`,
//! `(pred (not F))`; `(guard E)`; `(and P...)`; `(or P...)` (a variable bound in only some
//! alternatives is nil in the others); `(app F P)`; `(let P E)`; `(cl-type TYPE)`;
//! `(seq P... [&rest P])`; `(map KEY...)` (through `map-elt`). F in `pred`/`app` is a
//! function name (`(F x)`), a lambda (`(funcall F x)`) or a call `(F A...)` (`(F A... x)`).
//!
//! `pcase-let`, `pcase-let*`, `pcase-dolist`, `pcase-lambda` and `pcase-setq` destructure
//! without testing, as Emacs does: `car-safe`/`cdr-safe` walk the value, so a shorter list
//! leaves the extra variables nil and a longer one is not an error; `pred`, `guard` and
//! literals check nothing there; an `or` pattern is matched for real.
//!
//! | Code  | Kind   | Message |
//! |-------|--------|---------|
//! | E0270 | script | `'NAME': expects USAGE` |
//! | E0271 | script | `Unknown pattern ‘%S’` (Emacs's text) |
//! | E0272 | script | `'cl-type': unknown type %S; use (pred PREDICATE)` |
//! | E0273 | script | `'NAME': pattern nesting exceeds %d levels` |
//!
//! `pcase-exhaustive` with no matching clause signals `(error "No clause matching ‘%S’")`.

use crate::ast::{Sexp, SexpKind};
use crate::builders::{Builder, is_variable, shape};
use crate::diagnostic::Diagnostic;
use crate::tables::{name_of, prin1};
use ptc_vm::Symbol;

/// The names this module expands.
pub(crate) const NAMES: [&str; 7] = [
    "pcase",
    "pcase-exhaustive",
    "pcase-let",
    "pcase-let*",
    "pcase-dolist",
    "pcase-lambda",
    "pcase-setq",
];

/// Deepest pattern nesting compiled (patterns come from the script, within its depth).
const MAX_PATTERN_DEPTH: u32 = 256;

fn usage(name: &str) -> &'static str {
    match name {
        "pcase" => "(pcase EXP (PATTERN BODY...)...)",
        "pcase-exhaustive" => "(pcase-exhaustive EXP (PATTERN BODY...)...)",
        "pcase-let" => "(pcase-let ((PATTERN EXP)...) BODY...)",
        "pcase-let*" => "(pcase-let* ((PATTERN EXP)...) BODY...)",
        "pcase-dolist" => "(pcase-dolist (PATTERN LIST) BODY...)",
        "pcase-lambda" => "(pcase-lambda (PATTERN...) BODY...)",
        "pcase-setq" => "(pcase-setq PATTERN VALUE...)",
        _ => "",
    }
}

/// One step of a compiled pattern.
enum Step {
    /// Go on only when the form is non-nil.
    Test(Sexp),
    /// Bind a variable (a user's when the flag is set) to the form's value.
    Bind(Sexp, Sexp, bool),
}

/// Compiles patterns of one form.
struct Patterns<'b, 'i> {
    b: &'b mut Builder<'i>,
    name: &'static str,
    /// Test as `pcase` does (false: destructure as `pcase-let` does).
    checks: bool,
    /// User variables bound so far in the current pattern.
    bound: Vec<Symbol>,
}

/// Expands `(NAME ARGS...)` for one of [`NAMES`].
///
/// # Errors
/// E0270–E0273 (kind `script`).
pub(crate) fn expand(b: &mut Builder<'_>, name: &str, args: &[Sexp]) -> Result<Sexp, Diagnostic> {
    let name: &'static str = NAMES
        .iter()
        .find(|n| **n == name)
        .copied()
        .unwrap_or("pcase");
    let bad = |b: &Builder<'_>| {
        shape(
            "E0270",
            format!("'{name}': expects {}", usage(name)),
            b.span,
        )
    };
    match name {
        "pcase" | "pcase-exhaustive" => {
            let Some((subject, clauses)) = args.split_first() else {
                return Err(bad(b));
            };
            pcase(b, name, subject, clauses)
        }
        "pcase-let" | "pcase-let*" => {
            let Some((bindings, body)) = args.split_first() else {
                return Err(bad(b));
            };
            let pairs = match &bindings.kind {
                SexpKind::Nil => Vec::new(),
                SexpKind::List(items) => {
                    let mut pairs = Vec::new();
                    for item in items {
                        match item.as_list() {
                            Some([pattern, value]) => pairs.push((pattern.clone(), value.clone())),
                            Some([pattern]) => pairs.push((pattern.clone(), b.nil())),
                            _ => return Err(bad(b)),
                        }
                    }
                    pairs
                }
                _ => return Err(bad(b)),
            };
            pcase_let(b, name, name == "pcase-let*", &pairs, body.to_vec())
        }
        "pcase-dolist" => {
            let Some((spec, body)) = args.split_first() else {
                return Err(bad(b));
            };
            let Some([pattern, list]) = spec.as_list() else {
                return Err(bad(b));
            };
            if is_variable(pattern) {
                let mut items = vec![b.sym("dolist"), spec.clone()];
                items.extend(body.iter().cloned());
                return Ok(b.list(items));
            }
            let element = b.hidden("elt");
            let inner = pcase_let(
                b,
                name,
                true,
                &[(pattern.clone(), element.clone())],
                body.to_vec(),
            )?;
            let spec = b.list(vec![element, list.clone()]);
            Ok(b.call("dolist", [spec, inner]))
        }
        "pcase-lambda" => {
            let Some((params, body)) = args.split_first() else {
                return Err(bad(b));
            };
            let params: &[Sexp] = match &params.kind {
                SexpKind::Nil => &[],
                SexpKind::List(items) => items,
                _ => return Err(bad(b)),
            };
            let mut plain = Vec::new();
            let mut pairs = Vec::new();
            for param in params {
                let marker = param
                    .as_symbol()
                    .is_some_and(|s| matches!(name_of(b.interner, s), "&optional" | "&rest"));
                if marker || is_variable(param) {
                    plain.push(param.clone());
                } else {
                    let hidden = b.hidden("arg");
                    plain.push(hidden.clone());
                    pairs.push((param.clone(), hidden));
                }
            }
            let body = if pairs.is_empty() {
                body.to_vec()
            } else {
                vec![pcase_let(b, name, true, &pairs, body.to_vec())?]
            };
            let mut items = vec![b.sym("lambda"), b.list(plain)];
            items.extend(body);
            Ok(b.list(items))
        }
        _ => {
            // pcase-setq
            if args.is_empty() || !args.len().is_multiple_of(2) {
                return Err(bad(b));
            }
            pcase_setq(b, name, args)
        }
    }
}

fn pcase(
    b: &mut Builder<'_>,
    name: &'static str,
    subject: &Sexp,
    clauses: &[Sexp],
) -> Result<Sexp, Diagnostic> {
    let value = b.hidden("val");
    let done = b.hidden("done");
    let result = b.hidden("res");
    let mut forms = Vec::with_capacity(clauses.len() + 2);
    for clause in clauses {
        let Some((pattern, body)) = clause.as_list().and_then(<[Sexp]>::split_first) else {
            return Err(shape(
                "E0270",
                format!("'{name}': expects {}", usage(name)),
                clause.span,
            ));
        };
        let t = b.t();
        let mark = b.setq(&done, t);
        let run = b.call("progn", body.iter().cloned());
        let keep = b.setq(&result, run);
        let k = b.call("progn", [mark, keep]);
        let mut patterns = Patterns {
            b,
            name,
            checks: true,
            bound: Vec::new(),
        };
        let steps = patterns.compile(pattern, &value, 0)?;
        let matched = fold(b, steps, k);
        if forms.is_empty() {
            forms.push(matched);
        } else {
            let nil = b.nil();
            forms.push(b.call("if", [done.clone(), nil, matched]));
        }
    }
    if name == "pcase-exhaustive" {
        let message = Sexp::new(SexpKind::Str("No clause matching ‘%S’".into()), b.span);
        let fail = b.call("error", [message, value.clone()]);
        let nil = b.nil();
        forms.push(b.call("if", [done.clone(), nil, fail]));
    }
    forms.push(result.clone());
    let nil = b.nil();
    let bindings = vec![
        b.binding(value, subject.clone()),
        b.binding(done, nil.clone()),
        b.binding(result, nil),
    ];
    Ok(b.let_form(true, bindings, forms))
}

/// Folds `steps` around `k`: consecutive bindings become one `let*`, consecutive tests one
/// `(if (and ...))`.
fn fold(b: &mut Builder<'_>, steps: Vec<Step>, k: Sexp) -> Sexp {
    let mut form = k;
    let mut steps = steps.into_iter().rev().peekable();
    while let Some(step) = steps.next() {
        match step {
            Step::Test(test) => {
                let mut tests = vec![test];
                while let Some(Step::Test(_)) = steps.peek() {
                    if let Some(Step::Test(test)) = steps.next() {
                        tests.push(test);
                    }
                }
                tests.reverse();
                let test = if tests.len() == 1 {
                    tests.pop().unwrap_or_else(|| b.t())
                } else {
                    b.call("and", tests)
                };
                form = b.call("if", [test, form]);
            }
            Step::Bind(variable, value, _) => {
                let mut bindings = vec![b.binding(variable, value)];
                while let Some(Step::Bind(..)) = steps.peek() {
                    if let Some(Step::Bind(variable, value, _)) = steps.next() {
                        bindings.push(b.binding(variable, value));
                    }
                }
                bindings.reverse();
                form = b.let_form(true, bindings, vec![form]);
            }
        }
    }
    form
}

/// `pcase-let` (`star` false: every value first, then the patterns) and `pcase-let*`.
fn pcase_let(
    b: &mut Builder<'_>,
    name: &'static str,
    star: bool,
    pairs: &[(Sexp, Sexp)],
    body: Vec<Sexp>,
) -> Result<Sexp, Diagnostic> {
    let mut outer = Vec::new();
    let mut inner = Vec::new();
    for (pattern, value) in pairs {
        if is_variable(pattern) && !star {
            outer.push(b.binding(pattern.clone(), value.clone()));
            continue;
        }
        let subject = if is_variable(value) && star {
            value.clone()
        } else {
            let hidden = b.hidden("x");
            let binding = b.binding(hidden.clone(), value.clone());
            if star {
                inner.push(binding);
            } else {
                outer.push(binding);
            }
            hidden
        };
        let mut patterns = Patterns {
            b,
            name,
            checks: false,
            bound: Vec::new(),
        };
        for step in patterns.compile(pattern, &subject, 0)? {
            if let Step::Bind(variable, value, _) = step {
                inner.push(b.binding(variable, value));
            }
        }
    }
    if outer.is_empty() {
        return Ok(b.let_form(true, inner, body));
    }
    if inner.is_empty() {
        return Ok(b.let_form(false, outer, body));
    }
    let inner = b.let_form(true, inner, body);
    Ok(b.let_form(false, outer, vec![inner]))
}

/// `(pcase-setq P1 V1 P2 V2...)`: each pattern destructured into hidden variables, then
/// the user variables set; the value is the last one set.
fn pcase_setq(b: &mut Builder<'_>, name: &'static str, args: &[Sexp]) -> Result<Sexp, Diagnostic> {
    let mut forms = Vec::new();
    for pair in args.chunks(2) {
        let [pattern, value] = pair else { continue };
        if is_variable(pattern) {
            forms.push(b.setq(pattern, value.clone()));
            continue;
        }
        let subject = b.hidden("x");
        let mut bindings = vec![b.binding(subject.clone(), value.clone())];
        let mut sets = Vec::new();
        let mut patterns = Patterns {
            b,
            name,
            checks: false,
            bound: Vec::new(),
        };
        for step in patterns.compile(pattern, &subject, 0)? {
            if let Step::Bind(variable, value, user) = step {
                if user {
                    let hidden = b.hidden("v");
                    bindings.push(b.binding(hidden.clone(), value));
                    sets.push(b.setq(&variable, hidden));
                } else {
                    bindings.push(b.binding(variable, value));
                }
            }
        }
        forms.push(b.let_form(true, bindings, sets));
    }
    Ok(b.call("progn", forms))
}

impl Patterns<'_, '_> {
    fn error_unknown(&self, pattern: &Sexp) -> Diagnostic {
        shape(
            "E0271",
            format!("Unknown pattern ‘{}’", prin1(pattern, self.b.interner)),
            pattern.span,
        )
    }

    fn quoted_equal(&mut self, subject: &Sexp, datum: &Sexp) -> Sexp {
        let quoted = self.b.quote(datum);
        let op = if datum.as_symbol().is_some() || matches!(datum.kind, SexpKind::Nil) {
            "eq"
        } else {
            "equal"
        };
        self.b.call(op, [subject.clone(), quoted])
    }

    /// A hidden variable bound to `value`, pushed as a step.
    fn temp(&mut self, steps: &mut Vec<Step>, prefix: &str, value: Sexp) -> Sexp {
        let hidden = self.b.hidden(prefix);
        steps.push(Step::Bind(hidden.clone(), value, false));
        hidden
    }

    /// `F` applied to `subject`: `(F x)`, `(funcall F x)` or `(F A... x)`.
    fn apply_fn(&mut self, function: &Sexp, subject: &Sexp) -> Result<Sexp, Diagnostic> {
        if let Some(symbol) = function.as_symbol().filter(|s| !s.is_keyword()) {
            let name = name_of(self.b.interner, symbol).to_owned();
            return Ok(self.b.call(&name, [subject.clone()]));
        }
        let Some(items) = function.as_list() else {
            return Err(self.error_unknown(function));
        };
        let head = items
            .first()
            .and_then(Sexp::as_symbol)
            .map(|s| name_of(self.b.interner, s).to_owned());
        match head.as_deref() {
            Some("lambda") => Ok(self.b.call("funcall", [function.clone(), subject.clone()])),
            Some("function" | "quote") if items.len() == 2 => {
                Ok(self.b.call("funcall", [function.clone(), subject.clone()]))
            }
            Some("not") if items.len() == 2 => {
                let inner = self.apply_fn(&items[1], subject)?;
                Ok(self.b.call("not", [inner]))
            }
            Some(_) => {
                let mut call = items.to_vec();
                call.push(subject.clone());
                Ok(self.b.list(call))
            }
            None => Err(self.error_unknown(function)),
        }
    }

    /// The steps of matching `pattern` against the variable `subject`.
    fn compile(
        &mut self,
        pattern: &Sexp,
        subject: &Sexp,
        depth: u32,
    ) -> Result<Vec<Step>, Diagnostic> {
        let mut steps = Vec::new();
        self.steps(pattern, subject, depth, &mut steps)?;
        Ok(steps)
    }

    fn steps(
        &mut self,
        pattern: &Sexp,
        subject: &Sexp,
        depth: u32,
        steps: &mut Vec<Step>,
    ) -> Result<(), Diagnostic> {
        if depth > MAX_PATTERN_DEPTH {
            return Err(shape(
                "E0273",
                format!(
                    "'{}': pattern nesting exceeds {MAX_PATTERN_DEPTH} levels",
                    self.name
                ),
                pattern.span,
            ));
        }
        let depth = depth + 1;
        match &pattern.kind {
            SexpKind::Sym(symbol) if !symbol.is_keyword() => {
                if name_of(self.b.interner, *symbol) == "_" {
                    return Ok(());
                }
                if self.bound.contains(symbol) {
                    if self.checks {
                        steps.push(Step::Test(
                            self.b.call("eq", [subject.clone(), pattern.clone()]),
                        ));
                    }
                    return Ok(());
                }
                self.bound.push(*symbol);
                steps.push(Step::Bind(pattern.clone(), subject.clone(), true));
                Ok(())
            }
            SexpKind::T => Ok(()),
            SexpKind::Nil => Err(self.error_unknown(pattern)),
            SexpKind::Int(_)
            | SexpKind::Big(_)
            | SexpKind::Float(_)
            | SexpKind::Str(_)
            | SexpKind::Sym(_) => {
                if self.checks {
                    let test = self.b.call("equal", [subject.clone(), pattern.clone()]);
                    steps.push(Step::Test(test));
                }
                Ok(())
            }
            SexpKind::Vector(_) | SexpKind::Dotted(..) => Err(self.error_unknown(pattern)),
            SexpKind::List(items) => self.list_pattern(pattern, items, subject, depth, steps),
        }
    }

    #[allow(clippy::too_many_lines)]
    fn list_pattern(
        &mut self,
        pattern: &Sexp,
        items: &[Sexp],
        subject: &Sexp,
        depth: u32,
        steps: &mut Vec<Step>,
    ) -> Result<(), Diagnostic> {
        let head = items
            .first()
            .and_then(Sexp::as_symbol)
            .map(|s| name_of(self.b.interner, s).to_owned());
        let args = &items[1..];
        match (head.as_deref(), args) {
            (Some("quote"), [datum]) => {
                if self.checks {
                    let test = self.quoted_equal(subject, datum);
                    steps.push(Step::Test(test));
                }
                Ok(())
            }
            (Some("`"), [template]) => self.qpat(template, subject, depth, steps),
            (Some("pred"), [function]) => {
                if self.checks {
                    let test = self.apply_fn(function, subject)?;
                    steps.push(Step::Test(test));
                }
                Ok(())
            }
            (Some("guard"), [test]) => {
                if self.checks {
                    steps.push(Step::Test(test.clone()));
                }
                Ok(())
            }
            (Some("and"), _) => {
                for part in args {
                    self.steps(part, subject, depth, steps)?;
                }
                Ok(())
            }
            (Some("or"), [_, ..]) => self.or_pattern(args, subject, depth, steps),
            (Some("app"), [function, inner]) => {
                let applied = self.apply_fn(function, subject)?;
                let value = self.temp(steps, "app", applied);
                self.steps(inner, &value, depth, steps)
            }
            (Some("let"), [inner, expression]) => {
                let value = self.temp(steps, "let", expression.clone());
                self.steps(inner, &value, depth, steps)
            }
            (Some("cl-type"), [type_name]) => {
                if self.checks {
                    let predicate = type_predicate(self.b.interner, type_name)?;
                    let test = self.b.call(predicate, [subject.clone()]);
                    steps.push(Step::Test(test));
                }
                Ok(())
            }
            (Some("seq"), _) => {
                if self.checks {
                    let test = self.b.call("sequencep", [subject.clone()]);
                    steps.push(Step::Test(test));
                }
                let whole = self.b.as_list(subject);
                let list = self.temp(steps, "seq", whole);
                let mut index: i64 = 0;
                let mut parts = args.iter();
                while let Some(part) = parts.next() {
                    let at = Sexp::new(SexpKind::Int(index), self.b.span);
                    if part
                        .as_symbol()
                        .is_some_and(|s| name_of(self.b.interner, s) == "&rest")
                    {
                        let Some(rest) = parts.next() else {
                            return Err(self.error_unknown(pattern));
                        };
                        let tail = self.b.call("nthcdr", [at, list.clone()]);
                        let tail = self.temp(steps, "rest", tail);
                        return self.steps(rest, &tail, depth, steps);
                    }
                    let element = self.b.call("nth", [at, list.clone()]);
                    let element = self.temp(steps, "elt", element);
                    self.steps(part, &element, depth, steps)?;
                    index += 1;
                }
                Ok(())
            }
            (Some("map"), _) => {
                for part in args {
                    let (key, inner, default) = match &part.kind {
                        SexpKind::Sym(s) if s.is_keyword() => {
                            let bare = name_of(self.b.interner, *s)
                                .trim_start_matches(':')
                                .to_owned();
                            (part.clone(), self.b.sym(&bare), None)
                        }
                        SexpKind::Sym(_) => (self.b.quote(part), part.clone(), None),
                        SexpKind::List(kv) if (2..=3).contains(&kv.len()) => {
                            (kv[0].clone(), kv[1].clone(), kv.get(2).cloned())
                        }
                        _ => return Err(self.error_unknown(pattern)),
                    };
                    let mut call = vec![subject.clone(), key];
                    call.extend(default);
                    let element = self.b.call("map-elt", call);
                    let element = self.temp(steps, "elt", element);
                    self.steps(&inner, &element, depth, steps)?;
                }
                Ok(())
            }
            _ => Err(self.error_unknown(pattern)),
        }
    }

    /// `(or P...)`: without variables, one test of every alternative; with variables,
    /// `(hit (or ALT1[(list VARS)] ...))`, then each variable bound from `hit`.
    fn or_pattern(
        &mut self,
        alternatives: &[Sexp],
        subject: &Sexp,
        depth: u32,
        steps: &mut Vec<Step>,
    ) -> Result<(), Diagnostic> {
        let before = self.bound.clone();
        let mut compiled = Vec::new();
        let mut variables: Vec<Symbol> = Vec::new();
        let checks = std::mem::replace(&mut self.checks, true);
        for alternative in alternatives {
            self.bound.clone_from(&before);
            let alt_steps = self.compile(alternative, subject, depth)?;
            for name in &self.bound[before.len()..] {
                if !variables.contains(name) {
                    variables.push(*name);
                }
            }
            compiled.push((alt_steps, self.bound[before.len()..].to_vec()));
        }
        self.checks = checks;
        self.bound = before;
        let span = self.b.span;
        let as_sexp = |s: Symbol| Sexp::new(SexpKind::Sym(s), span);
        if variables.is_empty() {
            if !self.checks {
                return Ok(());
            }
            let mut tests = Vec::new();
            for (alt_steps, _) in compiled {
                let t = self.b.t();
                tests.push(fold(self.b, alt_steps, t));
            }
            steps.push(Step::Test(self.b.call("or", tests)));
            return Ok(());
        }
        let mut tests = Vec::new();
        for (alt_steps, own) in compiled {
            let k = self.b.call("list", variables.iter().map(|v| as_sexp(*v)));
            let matched = fold(self.b, alt_steps, k);
            // Variables this alternative does not bind are nil in it.
            let missing: Vec<Sexp> = variables
                .iter()
                .filter(|v| !own.contains(v))
                .map(|v| {
                    let nil = self.b.nil();
                    self.b.binding(as_sexp(*v), nil)
                })
                .collect();
            tests.push(if missing.is_empty() {
                matched
            } else {
                self.b.let_form(false, missing, vec![matched])
            });
        }
        let any = self.b.call("or", tests);
        let hit = self.temp(steps, "hit", any);
        if self.checks {
            steps.push(Step::Test(hit.clone()));
        }
        for (index, variable) in variables.iter().enumerate() {
            let at = Sexp::new(
                SexpKind::Int(i64::try_from(index).unwrap_or(i64::MAX)),
                span,
            );
            let value = self.b.call("nth", [at, hit.clone()]);
            self.bound.push(*variable);
            steps.push(Step::Bind(as_sexp(*variable), value, true));
        }
        Ok(())
    }

    /// A backquote pattern: `,P` matches P; a list or dotted list matches cell by cell; a
    /// vector element by element; any other datum by `equal`.
    fn qpat(
        &mut self,
        template: &Sexp,
        subject: &Sexp,
        depth: u32,
        steps: &mut Vec<Step>,
    ) -> Result<(), Diagnostic> {
        let comma = |b: &Builder<'_>, datum: &Sexp| {
            datum
                .as_symbol()
                .is_some_and(|s| name_of(b.interner, s) == ",")
        };
        let (items, dotted): (&[Sexp], Option<&Sexp>) = match &template.kind {
            SexpKind::List(items) => {
                if let [head, inner] = &items[..]
                    && comma(self.b, head)
                {
                    return self.steps(inner, subject, depth, steps);
                }
                (items, None)
            }
            SexpKind::Dotted(items, tail) => (items, Some(&**tail)),
            SexpKind::Vector(items) => {
                if self.checks {
                    let seq = self.b.call("sequencep", [subject.clone()]);
                    let listp = self.b.call("listp", [subject.clone()]);
                    let not_list = self.b.call("not", [listp]);
                    let stringp = self.b.call("stringp", [subject.clone()]);
                    let not_string = self.b.call("not", [stringp]);
                    let length = self.b.call("length", [subject.clone()]);
                    let n = Sexp::new(
                        SexpKind::Int(i64::try_from(items.len()).unwrap_or(i64::MAX)),
                        self.b.span,
                    );
                    let same = self.b.call("=", [length, n]);
                    let test = self.b.call("and", [seq, not_list, not_string, same]);
                    steps.push(Step::Test(test));
                }
                for (index, item) in items.iter().enumerate() {
                    let at = Sexp::new(
                        SexpKind::Int(i64::try_from(index).unwrap_or(i64::MAX)),
                        self.b.span,
                    );
                    let element = self.b.call("aref", [subject.clone(), at]);
                    let element = self.temp(steps, "elt", element);
                    self.qpat(item, &element, depth + 1, steps)?;
                }
                return Ok(());
            }
            SexpKind::Sym(_) | SexpKind::Nil => {
                if self.checks {
                    let test = self.quoted_equal(subject, template);
                    steps.push(Step::Test(test));
                }
                return Ok(());
            }
            _ => {
                if self.checks {
                    let test = self.quoted_equal(subject, template);
                    steps.push(Step::Test(test));
                }
                return Ok(());
            }
        };
        // `(a . ,b)` reads as `(a \, b)`: a bare `,` second to last unquotes the tail.
        let (items, comma_tail) = match items.len().checked_sub(2).map(|at| items.split_at(at)) {
            Some((front, [bare, last])) if dotted.is_none() && comma(self.b, bare) => {
                (front, Some(last))
            }
            _ => (items, None),
        };
        let (car, cdr) = if self.checks {
            ("car", "cdr")
        } else {
            ("car-safe", "cdr-safe")
        };
        let mut cell = subject.clone();
        for item in items {
            if self.checks {
                steps.push(Step::Test(self.b.call("consp", [cell.clone()])));
            }
            let head = self.b.call(car, [cell.clone()]);
            let rest = self.b.call(cdr, [cell.clone()]);
            // `,VAR` binds VAR to the car directly; anything else gets a hidden variable.
            let unquoted_var = item
                .as_list()
                .filter(|parts| parts.len() == 2 && comma(self.b, &parts[0]))
                .map(|parts| &parts[1])
                .filter(|inner| is_variable(inner) && !self.is_wild(inner));
            if let Some(variable) = unquoted_var.cloned() {
                let element = self.temp(steps, "car", head);
                self.steps(&variable, &element, depth + 1, steps)?;
            } else {
                let element = self.temp(steps, "car", head);
                self.qpat(item, &element, depth + 1, steps)?;
            }
            cell = self.temp(steps, "cdr", rest);
        }
        match (comma_tail, dotted) {
            (Some(tail), _) => self.steps(tail, &cell, depth + 1, steps),
            (None, Some(tail)) => self.qpat(tail, &cell, depth + 1, steps),
            (None, None) => {
                if self.checks {
                    steps.push(Step::Test(self.b.call("null", [cell])));
                }
                Ok(())
            }
        }
    }

    fn is_wild(&self, datum: &Sexp) -> bool {
        datum
            .as_symbol()
            .is_some_and(|s| name_of(self.b.interner, s) == "_")
    }
}

/// The predicate of a `cl-type` TYPE.
pub(crate) fn type_predicate(
    interner: &ptc_vm::Interner,
    type_name: &Sexp,
) -> Result<&'static str, Diagnostic> {
    let name = type_name
        .as_symbol()
        .map(|s| name_of(interner, s))
        .unwrap_or_default();
    Ok(match name {
        "string" => "stringp",
        "integer" | "fixnum" | "bignum" => "integerp",
        "number" => "numberp",
        "float" => "floatp",
        "list" => "listp",
        "cons" => "consp",
        "symbol" => "symbolp",
        "null" => "null",
        "atom" => "atom",
        "sequence" => "sequencep",
        "vector" | "array" => "vectorp",
        "keyword" => "keywordp",
        "boolean" => "booleanp",
        "natnum" => "natnump",
        "function" => "functionp",
        "hash-table" => "hash-table-p",
        _ => {
            return Err(shape(
                "E0272",
                format!(
                    "'cl-type': unknown type {}; use (pred PREDICATE)",
                    prin1(type_name, interner)
                ),
                type_name.span,
            ));
        }
    })
}
