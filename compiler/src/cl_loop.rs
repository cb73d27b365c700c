//! `cl-loop` (issue 46): the clauses that cover real use, rewritten into one `while` loop.
//!
//! ```text
//! (catch '--cl-block-nil--           ; only when a clause or the body can return early
//!   (let* (WITH... FOR-STATE... ACCUMULATORS...)
//!     INITIALLY...
//!     (while (and PRE1 ... BODY1 ...) POST...)   ; each part non-nil to go on
//!     FINALLY...
//!     RESULT))
//! ```
//!
//! Each iteration runs, in clause order, the `for` tests and settings (`PRE`) and the body
//! clauses, each a form that is non-nil to go on; the `for` steps (`POST`) run after them.
//! A `for` variable is set at the start of each iteration and a numeric one stepped at its
//! end, as Emacs, so `finally` sees the last values (`for i from 0 below 3` leaves 3).
//!
//! Clauses: `named`, `with VAR [= EXPR] [and ...]`, `for`/`as` VAR (a symbol, or a
//! `(a . b)` / `(a b)` tree destructured with `car-safe`/`cdr-safe`) `in`/`on` LIST
//! `[by FN]`, `across` ARRAY, `being the elements of` SEQ, `being the hash-keys|hash-values
//! of` TABLE `[using (hash-values|hash-keys V)]`, `from`/`upfrom`/`downfrom` A
//! `to`/`upto`/`below`/`downto`/`above` B `by` S, `= A [then B]`; `repeat N`; `while`,
//! `until`; `always`, `never`, `thereis`; `collect`, `append`, `nconc`, `concat`,
//! `vconcat`, `sum`, `count`, `maximize`, `minimize` (and their `-ing` forms) with `into
//! VAR`; `when`/`if`/`unless COND CLAUSE [and CLAUSE]... [else CLAUSE...] [end]` (with
//! `it`); `do FORM...`; `return EXPR`; `initially [do] FORM...`; `finally [do] FORM...`;
//! `finally return EXPR`.
//!
//! Accumulation builds a reversed list and reverses it once at the end (linear work);
//! an `into` variable that the loop's own forms mention is kept current instead.
//!
//! | Code  | Kind      | Message |
//! |-------|-----------|---------|
//! | E0280 | preflight | `'cl-loop': unsupported clause ‘%S’; ...` (names the rewrite) |
//! | E0281 | script    | `'cl-loop': expects %s after ‘%s’` |

use crate::ast::{Sexp, SexpKind};
use crate::builders::{Builder, is_variable, shape};
use crate::diagnostic::Diagnostic;
use crate::tables::{name_of, prin1};
use ptc_vm::ErrorKind;

/// The catch tag of `cl-loop`'s and `cl-dolist`'s implicit nil block.
pub(crate) const NIL_BLOCK: &str = "--cl-block-nil--";

const REWRITE: &str = "supported clauses are for (in, on, across, being the elements/hash-keys/hash-values of, from/to/below/by, = then), repeat, with, while, until, always, never, thereis, collect, append, nconc, concat, vconcat, sum, count, maximize, minimize (into), when/if/unless ... else ... end, do, return, initially, finally [do|return]; otherwise rewrite with dolist, dotimes or while";

/// What an accumulator holds.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Acc {
    /// A reversed list (collect, append, nconc), a reversed list of strings (concat) or of
    /// sequences (vconcat).
    List,
    Concat,
    Vconcat,
    /// A number from 0 (sum, count).
    Number,
    /// nil until the first value (maximize, minimize).
    Extreme,
}

struct Accumulator {
    /// The hidden (or, when kept current, the user's) variable.
    var: Sexp,
    /// The user's `into` variable, if any.
    into: Option<Sexp>,
    /// Whether `var` is the user's variable kept in order at every step.
    live: bool,
    kind: Acc,
}

struct Loop<'b, 'i> {
    b: &'b mut Builder<'i>,
    items: Vec<Sexp>,
    at: usize,
    bindings: Vec<Sexp>,
    initially: Vec<Sexp>,
    /// The parts of an iteration, in order, each non-nil to go on.
    parts: Vec<Sexp>,
    posts: Vec<Sexp>,
    finally: Vec<Sexp>,
    result: Option<Sexp>,
    accumulators: Vec<Accumulator>,
    /// The default accumulator's index.
    default: Option<usize>,
    /// Whether some clause returns early (`return`, `always`...).
    early: bool,
    /// Default result when the loop ends normally (t for always/never).
    normal: Option<Sexp>,
    block: Option<Sexp>,
    /// The symbols every form of the loop mentions (for `into` variables kept current).
    mentioned: Vec<ptc_vm::Symbol>,
}

/// Expands `(cl-loop CLAUSE...)`.
///
/// # Errors
/// E0280 (kind `preflight`) for an unsupported clause, E0281 for a malformed one.
pub(crate) fn expand(b: &mut Builder<'_>, args: &[Sexp]) -> Result<Sexp, Diagnostic> {
    let mut mentioned = Vec::new();
    collect_symbols(args, &mut mentioned);
    let mut lp = Loop {
        b,
        items: args.to_vec(),
        at: 0,
        bindings: Vec::new(),
        initially: Vec::new(),
        parts: Vec::new(),
        posts: Vec::new(),
        finally: Vec::new(),
        result: None,
        accumulators: Vec::new(),
        default: None,
        early: false,
        normal: None,
        block: None,
        mentioned,
    };
    // `(cl-loop FORM...)` with no clause keyword: an endless loop over the forms.
    if args.iter().all(|a| matches!(a.kind, SexpKind::List(_))) && !args.is_empty() {
        let mut body = vec![lp.b.sym("progn")];
        body.extend(args.iter().cloned());
        body.push(lp.b.t());
        let body = lp.b.list(body);
        lp.parts.push(body);
    } else {
        while lp.at < lp.items.len() {
            lp.clause()?;
        }
    }
    lp.build()
}

fn collect_symbols(forms: &[Sexp], out: &mut Vec<ptc_vm::Symbol>) {
    let mut pending: Vec<&Sexp> = forms.iter().collect();
    while let Some(form) = pending.pop() {
        match &form.kind {
            SexpKind::Sym(s) if out.len() < 65536 => out.push(*s),
            SexpKind::List(items) | SexpKind::Vector(items) => pending.extend(items),
            SexpKind::Dotted(items, tail) => {
                pending.extend(items);
                pending.push(tail);
            }
            _ => {}
        }
    }
}

impl Loop<'_, '_> {
    fn word_at(&self, at: usize) -> Option<String> {
        let item = self.items.get(at)?;
        let symbol = item.as_symbol()?;
        Some(name_of(self.b.interner, symbol).to_owned())
    }

    fn peek_word(&self) -> Option<String> {
        self.word_at(self.at)
    }

    fn next(&mut self, what: &str, after: &str) -> Result<Sexp, Diagnostic> {
        let item = self.items.get(self.at).cloned().ok_or_else(|| {
            shape(
                "E0281",
                format!("'cl-loop': expects {what} after ‘{after}’"),
                self.b.span,
            )
        })?;
        self.at += 1;
        Ok(item)
    }

    fn unsupported(&self, item: &Sexp) -> Diagnostic {
        Diagnostic::new(
            "E0280",
            ErrorKind::Preflight,
            format!(
                "'cl-loop': unsupported clause ‘{}’; {REWRITE}",
                prin1(item, self.b.interner)
            ),
            item.span,
        )
    }

    fn int(&self, n: i64) -> Sexp {
        Sexp::new(SexpKind::Int(n), self.b.span)
    }

    fn bind(&mut self, variable: Sexp, value: Sexp) {
        let binding = self.b.binding(variable, value);
        self.bindings.push(binding);
    }

    /// `(progn FORMS... t)`.
    fn then_t(&mut self, forms: Vec<Sexp>) -> Sexp {
        let mut items = vec![self.b.sym("progn")];
        items.extend(forms);
        items.push(self.b.t());
        self.b.list(items)
    }

    fn clause(&mut self) -> Result<(), Diagnostic> {
        let item = self.next("a clause", "cl-loop")?;
        let Some(word) = item
            .as_symbol()
            .map(|s| name_of(self.b.interner, s).to_owned())
        else {
            return Err(self.unsupported(&item));
        };
        match word.as_str() {
            "named" => {
                let name = self.next("a name", "named")?;
                let tag = format!("--cl-block-{}--", prin1(&name, self.b.interner));
                self.block = Some(self.b.sym(&tag));
                Ok(())
            }
            "with" => loop {
                let variable = self.next("a variable", "with")?;
                let value = if self.peek_word().as_deref() == Some("=") {
                    self.at += 1;
                    self.next("a value", "=")?
                } else {
                    self.b.nil()
                };
                self.destructure_bind(&variable, value)?;
                if self.peek_word().as_deref() == Some("and") {
                    self.at += 1;
                } else {
                    return Ok(());
                }
            },
            "for" | "as" => loop {
                self.for_clause()?;
                if self.peek_word().as_deref() == Some("and") {
                    self.at += 1;
                } else {
                    return Ok(());
                }
            },
            "repeat" => {
                let count = self.next("a count", "repeat")?;
                let n = self.b.hidden("n");
                self.bind(n.clone(), count);
                let one = self.int(1);
                let less = self.b.call("-", [n.clone(), one]);
                let step = self.b.setq(&n, less);
                let zero = self.int(0);
                let test = self.b.call(">=", [step, zero]);
                self.parts.push(test);
                Ok(())
            }
            "initially" => {
                if self.peek_word().as_deref() == Some("do") {
                    self.at += 1;
                }
                let forms = self.forms();
                self.initially.extend(forms);
                Ok(())
            }
            "finally" => {
                match self.peek_word().as_deref() {
                    Some("return") => {
                        self.at += 1;
                        let value = self.next("a value", "finally return")?;
                        self.result = Some(value);
                        return Ok(());
                    }
                    Some("do" | "doing") => self.at += 1,
                    _ => {}
                }
                let forms = self.forms();
                self.finally.extend(forms);
                Ok(())
            }
            _ => {
                self.at -= 1;
                let part = self.body_clause()?;
                self.parts.push(part);
                Ok(())
            }
        }
    }

    /// Consecutive list forms (the forms of `do`, `initially`, `finally`).
    fn forms(&mut self) -> Vec<Sexp> {
        let mut forms = Vec::new();
        while let Some(item) = self.items.get(self.at) {
            if !matches!(item.kind, SexpKind::List(_)) {
                break;
            }
            forms.push(item.clone());
            self.at += 1;
        }
        forms
    }

    /// Binds every variable of `pattern` (a symbol or a cons tree) in the loop's `let*`
    /// to the parts of `value`.
    fn destructure_bind(&mut self, pattern: &Sexp, value: Sexp) -> Result<(), Diagnostic> {
        if is_variable(pattern) {
            self.bind(pattern.clone(), value);
            return Ok(());
        }
        let hidden = self.b.hidden("x");
        self.bind(hidden.clone(), value);
        let mut sets = Vec::new();
        self.destructure(pattern, &hidden, &mut sets, 0)?;
        for (variable, value) in sets {
            self.bind(variable, value);
        }
        Ok(())
    }

    /// The `(VAR PATH)` pairs of a destructuring pattern over `source`.
    fn destructure(
        &mut self,
        pattern: &Sexp,
        source: &Sexp,
        out: &mut Vec<(Sexp, Sexp)>,
        depth: u32,
    ) -> Result<(), Diagnostic> {
        if depth > 64 {
            return Err(self.unsupported(pattern));
        }
        let (items, tail): (&[Sexp], Option<&Sexp>) = match &pattern.kind {
            SexpKind::Nil => return Ok(()),
            SexpKind::Sym(_) if is_variable(pattern) => {
                out.push((pattern.clone(), source.clone()));
                return Ok(());
            }
            SexpKind::List(items) => (items, None),
            SexpKind::Dotted(items, tail) => (items, Some(&**tail)),
            _ => return Err(self.unsupported(pattern)),
        };
        let mut cell = source.clone();
        for item in items {
            let car = self.b.call("car-safe", [cell.clone()]);
            self.destructure(item, &car, out, depth + 1)?;
            cell = self.b.call("cdr-safe", [cell]);
        }
        if let Some(tail) = tail {
            self.destructure(tail, &cell, out, depth + 1)?;
        }
        Ok(())
    }

    /// Variables of a `for` pattern bound to nil, and the forms setting them from `value`.
    fn for_variable(&mut self, pattern: &Sexp, value: Sexp) -> Result<Vec<Sexp>, Diagnostic> {
        if is_variable(pattern) {
            let nil = self.b.nil();
            self.bind(pattern.clone(), nil);
            return Ok(vec![self.b.setq(pattern, value)]);
        }
        let element = self.b.hidden("elt");
        let nil = self.b.nil();
        self.bind(element.clone(), nil);
        let mut pairs = Vec::new();
        self.destructure(pattern, &element, &mut pairs, 0)?;
        let mut sets = vec![self.b.setq(&element, value)];
        for (variable, path) in pairs {
            let nil = self.b.nil();
            self.bind(variable.clone(), nil);
            sets.push(self.b.setq(&variable, path));
        }
        Ok(sets)
    }

    /// A list walk: `tail` bound to `list`, the variable set from `(car tail)` (`in`) or
    /// `tail` (`on`) while `tail` is a cons, stepped by `(cdr tail)` or `(funcall BY tail)`.
    fn walk_list(&mut self, pattern: &Sexp, list: Sexp, on: bool) -> Result<(), Diagnostic> {
        let tail = self.b.hidden("tail");
        self.bind(tail.clone(), list);
        let step = if self.peek_word().as_deref() == Some("by") {
            self.at += 1;
            let function = self.next("a function", "by")?;
            self.b.call("funcall", [function, tail.clone()])
        } else {
            self.b.call("cdr", [tail.clone()])
        };
        let value = if on {
            tail.clone()
        } else {
            self.b.call("car", [tail.clone()])
        };
        let sets = self.for_variable(pattern, value)?;
        let test = self.b.call("consp", [tail.clone()]);
        self.parts.push(test);
        let sets = self.then_t(sets);
        self.parts.push(sets);
        let advance = self.b.setq(&tail, step);
        self.posts.push(advance);
        Ok(())
    }

    #[allow(clippy::too_many_lines)]
    fn for_clause(&mut self) -> Result<(), Diagnostic> {
        let pattern = self.next("a variable", "for")?;
        let keyword = self.next("a for clause", "for")?;
        let word = keyword
            .as_symbol()
            .map(|s| name_of(self.b.interner, s).to_owned())
            .unwrap_or_default();
        match word.as_str() {
            "in" => {
                let list = self.next("a list", "in")?;
                self.walk_list(&pattern, list, false)
            }
            "on" => {
                let list = self.next("a list", "on")?;
                self.walk_list(&pattern, list, true)
            }
            "across" => {
                let array = self.next("an array", "across")?;
                let list = self.b.as_list(&array);
                self.walk_list(&pattern, list, false)
            }
            "being" => {
                // being the elements of SEQ | being the hash-keys of TABLE [using (...)]
                let mut what = self.next("a kind", "being")?;
                if what
                    .as_symbol()
                    .is_some_and(|s| matches!(name_of(self.b.interner, s), "the" | "each"))
                {
                    what = self.next("a kind", "being the")?;
                }
                let kind = what
                    .as_symbol()
                    .map(|s| name_of(self.b.interner, s).to_owned())
                    .unwrap_or_default();
                if !matches!(self.peek_word().as_deref(), Some("of" | "in")) {
                    return Err(self.unsupported(&what));
                }
                self.at += 1;
                let source = self.next("a sequence", "of")?;
                match kind.as_str() {
                    "elements" | "element" => {
                        let list = self.b.as_list(&source);
                        self.walk_list(&pattern, list, false)
                    }
                    "hash-keys" | "hash-key" | "hash-values" | "hash-value" => {
                        let keys = kind.starts_with("hash-key");
                        let mut other: Option<Sexp> = None;
                        if self.peek_word().as_deref() == Some("using") {
                            self.at += 1;
                            let using = self.next("(hash-values VAR)", "using")?;
                            match using.as_list() {
                                Some([_, variable]) if is_variable(variable) => {
                                    other = Some(variable.clone());
                                }
                                _ => return Err(self.unsupported(&using)),
                            }
                        }
                        let table = self.b.hidden("table");
                        self.bind(table.clone(), source);
                        let listing = if keys || other.is_some() {
                            "hash-table-keys"
                        } else {
                            "hash-table-values"
                        };
                        let list = self.b.call(listing, [table.clone()]);
                        match other {
                            None => self.walk_list(&pattern, list, false),
                            Some(other) => {
                                // Walk the keys; the other variable gets each key's value.
                                let key = if keys { pattern.clone() } else { other.clone() };
                                let value = if keys { other } else { pattern.clone() };
                                self.walk_list(&key, list, false)?;
                                let nil = self.b.nil();
                                self.bind(value.clone(), nil);
                                let lookup = self.b.call("gethash", [key, table]);
                                let set = self.b.setq(&value, lookup);
                                let set = self.then_t(vec![set]);
                                self.parts.push(set);
                                Ok(())
                            }
                        }
                    }
                    _ => Err(self.unsupported(&what)),
                }
            }
            "=" => {
                let first = self.next("a value", "=")?;
                if self.peek_word().as_deref() == Some("then") {
                    self.at += 1;
                    let then = self.next("a value", "then")?;
                    if !is_variable(&pattern) {
                        return Err(self.unsupported(&pattern));
                    }
                    // Set at the start of every iteration: FIRST once, THEN after.
                    let started = self.b.hidden("started");
                    let nil = self.b.nil();
                    self.bind(started.clone(), nil.clone());
                    self.bind(pattern.clone(), nil);
                    let value = self.b.call("if", [started.clone(), then, first]);
                    let set = self.b.setq(&pattern, value);
                    let t = self.b.t();
                    let mark = self.b.setq(&started, t);
                    let part = self.then_t(vec![set, mark]);
                    self.parts.push(part);
                    Ok(())
                } else {
                    let sets = self.for_variable(&pattern, first)?;
                    let part = self.then_t(sets);
                    self.parts.push(part);
                    Ok(())
                }
            }
            "from" | "upfrom" | "downfrom" | "to" | "upto" | "below" | "downto" | "above"
            | "by" => {
                if !is_variable(&pattern) {
                    return Err(self.unsupported(&pattern));
                }
                self.at -= 1;
                self.numeric(&pattern)
            }
            _ => Err(self.unsupported(&keyword)),
        }
    }

    fn numeric(&mut self, variable: &Sexp) -> Result<(), Diagnostic> {
        let mut start: Option<Sexp> = None;
        let mut end: Option<(Sexp, &'static str)> = None;
        let mut by: Option<Sexp> = None;
        let mut down = false;
        while let Some(word) = self.peek_word() {
            let (is_end, op, dir): (bool, &'static str, Option<bool>) = match word.as_str() {
                "from" => (false, "", None),
                "upfrom" => (false, "", Some(false)),
                "downfrom" => (false, "", Some(true)),
                "to" => (true, "<=", None),
                "upto" => (true, "<=", Some(false)),
                "below" => (true, "<", Some(false)),
                "downto" => (true, ">=", Some(true)),
                "above" => (true, ">", Some(true)),
                "by" => {
                    self.at += 1;
                    by = Some(self.next("a step", "by")?);
                    continue;
                }
                _ => break,
            };
            self.at += 1;
            let value = self.next("a number", &word)?;
            if let Some(d) = dir {
                down = d;
            }
            if is_end {
                end = Some((value, op));
            } else {
                start = Some(value);
            }
        }
        let start = start.unwrap_or_else(|| self.int(0));
        self.bind(variable.clone(), start);
        if let Some((limit, op)) = end {
            let limit_var = self.b.hidden("limit");
            self.bind(limit_var.clone(), limit);
            let op = match (op, down) {
                ("<=", true) => ">=",
                (op, _) => op,
            };
            let test = self.b.call(op, [variable.clone(), limit_var]);
            self.parts.push(test);
        }
        let step = match by {
            Some(step) => {
                let step_var = self.b.hidden("step");
                self.bind(step_var.clone(), step);
                step_var
            }
            None => self.int(1),
        };
        let next = self
            .b
            .call(if down { "-" } else { "+" }, [variable.clone(), step]);
        let advance = self.b.setq(variable, next);
        self.posts.push(advance);
        Ok(())
    }

    /// The accumulator of `into` (or the default one), made on first use.
    fn accumulator(&mut self, into: Option<Sexp>, kind: Acc) -> usize {
        let found = self
            .accumulators
            .iter()
            .position(|a| match (&a.into, &into) {
                (Some(x), Some(y)) => x.as_symbol() == y.as_symbol(),
                (None, None) => true,
                _ => false,
            });
        if let Some(index) = found {
            return index;
        }
        let live = into
            .as_ref()
            .and_then(Sexp::as_symbol)
            .is_some_and(|s| self.mentioned.iter().filter(|m| **m == s).take(2).count() > 1);
        let var = match (&into, live) {
            (Some(user), true) => user.clone(),
            _ => self.b.hidden("acc"),
        };
        let init = match kind {
            Acc::Number => self.int(0),
            _ => self.b.nil(),
        };
        self.bind(var.clone(), init);
        if let Some(user) = &into
            && !live
        {
            let init = match kind {
                Acc::Number => self.int(0),
                _ => self.b.nil(),
            };
            self.bind(user.clone(), init);
        }
        let index = self.accumulators.len();
        if into.is_none() {
            self.default = Some(index);
        }
        self.accumulators.push(Accumulator {
            var,
            into,
            live,
            kind,
        });
        index
    }

    /// The final value of accumulator `index`.
    fn finished(&mut self, index: usize) -> Sexp {
        let acc = &self.accumulators[index];
        let var = acc.var.clone();
        if acc.live {
            return var;
        }
        match acc.kind {
            Acc::List => self.b.call("reverse", [var]),
            Acc::Concat => {
                let reversed = self.b.call("reverse", [var]);
                let empty = Sexp::new(SexpKind::Str("".into()), self.b.span);
                self.b.call("string-join", [reversed, empty])
            }
            Acc::Vconcat => {
                let reversed = self.b.call("reverse", [var]);
                let vconcat = self.b.sym("vconcat");
                let vconcat = self.b.quote(&vconcat);
                self.b.call("apply", [vconcat, reversed])
            }
            Acc::Number | Acc::Extreme => var,
        }
    }

    #[allow(clippy::too_many_lines)]
    fn body_clause(&mut self) -> Result<Sexp, Diagnostic> {
        let item = self.next("a clause", "cl-loop")?;
        let word = item
            .as_symbol()
            .map(|s| name_of(self.b.interner, s).to_owned())
            .unwrap_or_default();
        let tag = self.tag();
        match word.as_str() {
            "do" | "doing" => {
                let forms = self.forms();
                Ok(self.then_t(forms))
            }
            "while" => self.next("a condition", "while"),
            "until" => {
                let test = self.next("a condition", "until")?;
                Ok(self.b.call("not", [test]))
            }
            "always" | "never" => {
                let test = self.next("a condition", &word)?;
                self.early = true;
                self.normal = Some(self.b.t());
                let quoted = self.b.quote(&tag);
                let nil = self.b.nil();
                let stop = self.b.call("throw", [quoted, nil]);
                let t = self.b.t();
                Ok(if word == "always" {
                    self.b.call("if", [test, t, stop])
                } else {
                    self.b.call("if", [test, stop, t])
                })
            }
            "thereis" => {
                let test = self.next("a condition", "thereis")?;
                self.early = true;
                let v = self.b.hidden("v");
                let quoted = self.b.quote(&tag);
                let stop = self.b.call("throw", [quoted, v.clone()]);
                let t = self.b.t();
                let branch = self.b.call("if", [v.clone(), stop, t]);
                let binding = self.b.binding(v, test);
                Ok(self.b.let_form(false, vec![binding], vec![branch]))
            }
            "return" => {
                let value = self.next("a value", "return")?;
                self.early = true;
                let quoted = self.b.quote(&tag);
                Ok(self.b.call("throw", [quoted, value]))
            }
            "when" | "if" | "unless" => {
                let test = self.next("a condition", &word)?;
                let then = self.conditional_body()?;
                let mut otherwise = None;
                if self.peek_word().as_deref() == Some("else") {
                    self.at += 1;
                    otherwise = Some(self.conditional_body()?);
                }
                if self.peek_word().as_deref() == Some("end") {
                    self.at += 1;
                }
                let t = self.b.t();
                let otherwise = otherwise.unwrap_or(t);
                let uses_it = {
                    let mut seen = Vec::new();
                    let parts = [then.clone(), otherwise.clone()];
                    collect_symbols(&parts, &mut seen);
                    seen.iter().any(|s| name_of(self.b.interner, *s) == "it")
                };
                let (test, binding) = if uses_it && word != "unless" {
                    let it = self.b.sym("it");
                    (it.clone(), Some(self.b.binding(it, test)))
                } else {
                    (test, None)
                };
                let form = if word == "unless" {
                    self.b.call("if", [test, otherwise, then])
                } else {
                    self.b.call("if", [test, then, otherwise])
                };
                Ok(match binding {
                    Some(binding) => self.b.let_form(false, vec![binding], vec![form]),
                    None => form,
                })
            }
            _ => self.accumulate(&item, &word),
        }
    }

    /// The clauses of a `when` branch joined by `and`: `(and CLAUSE1 CLAUSE2...)`.
    fn conditional_body(&mut self) -> Result<Sexp, Diagnostic> {
        let mut parts = vec![self.body_clause()?];
        while self.peek_word().as_deref() == Some("and") {
            self.at += 1;
            parts.push(self.body_clause()?);
        }
        if parts.len() == 1 {
            return Ok(parts.remove(0));
        }
        Ok(self.b.call("and", parts))
    }

    fn accumulate(&mut self, item: &Sexp, word: &str) -> Result<Sexp, Diagnostic> {
        let kind = match word {
            "collect" | "collecting" | "append" | "appending" | "nconc" | "nconcing" => Acc::List,
            "concat" | "concating" => Acc::Concat,
            "vconcat" | "vconcating" => Acc::Vconcat,
            "sum" | "summing" | "count" | "counting" => Acc::Number,
            "maximize" | "maximizing" | "minimize" | "minimizing" => Acc::Extreme,
            _ => return Err(self.unsupported(item)),
        };
        let value = self.next("a value", word)?;
        let into = if self.peek_word().as_deref() == Some("into") {
            self.at += 1;
            let variable = self.next("a variable", "into")?;
            if !is_variable(&variable) {
                return Err(self.unsupported(&variable));
            }
            Some(variable)
        } else {
            None
        };
        let index = self.accumulator(into, kind);
        let var = self.accumulators[index].var.clone();
        let live = self.accumulators[index].live;
        let update = match (word.trim_end_matches("ing"), live) {
            ("collect" | "collect_", false) => self.b.call("cons", [value, var.clone()]),
            ("collect", true) => {
                let one = self.b.call("list", [value]);
                self.b.call("append", [var.clone(), one])
            }
            ("append" | "nconc", false) => {
                let reversed = self.b.call("reverse", [value]);
                self.b.call("append", [reversed, var.clone()])
            }
            ("append" | "nconc", true) => {
                let nil = self.b.nil();
                let copy = self.b.call("append", [value, nil]);
                self.b.call("append", [var.clone(), copy])
            }
            ("concat", false) | ("vconcat", false) => self.b.call("cons", [value, var.clone()]),
            ("concat", true) => self.b.call("concat", [var.clone(), value]),
            ("vconcat", true) => self.b.call("vconcat", [var.clone(), value]),
            ("sum" | "summ", _) => self.b.call("+", [var.clone(), value]),
            ("count", _) => {
                let one = self.int(1);
                let more = self.b.call("+", [var.clone(), one]);
                let t = self.b.t();
                let set = self.b.setq(&var, more);
                let branch = self.b.call("if", [value, set]);
                return Ok(self.then_t(vec![branch, t]));
            }
            (max_or_min, _) => {
                let op = if max_or_min.starts_with("max") {
                    "max"
                } else {
                    "min"
                };
                let v = self.b.hidden("v");
                let pick = self.b.call(op, [var.clone(), v.clone()]);
                let choose = self.b.call("if", [var.clone(), pick, v.clone()]);
                let set = self.b.setq(&var, choose);
                let binding = self.b.binding(v, value);
                let form = self.b.let_form(false, vec![binding], vec![set]);
                return Ok(self.then_t(vec![form]));
            }
        };
        let set = self.b.setq(&var, update);
        Ok(self.then_t(vec![set]))
    }

    fn tag(&mut self) -> Sexp {
        match &self.block {
            Some(tag) => tag.clone(),
            None => self.b.sym(NIL_BLOCK),
        }
    }

    fn build(mut self) -> Result<Sexp, Diagnostic> {
        let mut forms = std::mem::take(&mut self.initially);
        let condition = match self.parts.len() {
            0 => self.b.t(),
            1 => self.parts.remove(0),
            _ => {
                let parts = std::mem::take(&mut self.parts);
                self.b.call("and", parts)
            }
        };
        let mut looping = vec![self.b.sym("while"), condition];
        looping.append(&mut self.posts);
        forms.push(self.b.list(looping));
        // `into` variables hold their final values for `finally`.
        for index in 0..self.accumulators.len() {
            if let Some(user) = self.accumulators[index].into.clone()
                && !self.accumulators[index].live
            {
                let value = self.finished(index);
                forms.push(self.b.setq(&user, value));
            }
        }
        forms.append(&mut self.finally);
        let result = match (self.result.take(), self.default) {
            (Some(result), _) => result,
            (None, Some(index)) => self.finished(index),
            (None, None) => self.normal.take().unwrap_or_else(|| self.b.nil()),
        };
        forms.push(result);
        let bindings = std::mem::take(&mut self.bindings);
        let body = self.b.let_form(true, bindings, forms);
        let tag = self.tag();
        let mut mentions_return = false;
        for symbol in &self.mentioned {
            if matches!(
                name_of(self.b.interner, *symbol),
                "cl-return" | "cl-return-from" | "return"
            ) {
                mentions_return = true;
            }
        }
        if self.early || mentions_return || self.block.is_some() {
            let quoted = self.b.quote(&tag);
            return Ok(self.b.call("catch", [quoted, body]));
        }
        Ok(body)
    }
}
