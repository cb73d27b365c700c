//! The transformers added for the Emacs Lisp that models write (issue 18): `function`,
//! the `if-let` family, `pop`, `cl-incf`/`cl-decf`/`incf`/`decf`, `seq-let`,
//! `ignore-errors`, `unwind-protect`, the higher-order sequence functions and `maphash`
//! (issue 46), each a pure,
//! one-level `Sexp` → `Sexp` rewrite into special forms and primitives.
//!
//! Invariants: every expansion evaluates its argument forms exactly once, in source order
//! (as Emacs does); hidden variables are fresh uninterned symbols; sequences are walked as
//! lists made by `(append SEQ nil)`, so lists, vectors and strings are all accepted and the
//! walk is charged as guest work, one loop iteration at a time. The higher-order forms call
//! their function argument with `funcall`, so a `#'name`, a quoted symbol, a lambda or a
//! variable holding a closure all work, and every call is fuel-metered like any other.
//!
//! | Code  | Kind   | Message |
//! |-------|--------|---------|
//! | E0260 | script | `'function': expects a function name or a lambda, not %S` |
//! | E0261 | script | `'NAME': expects (NAME VARLIST BODY...)` (the `if-let` family) |
//! | E0262 | script | `'NAME': a binding must be SYMBOL, (SYMBOL VALUE) or (VALUE), not %S` |
//! | E0263 | script | `'NAME': PLACE must be a variable name, not %S` (`pop`, `cl-incf`...) |
//! | E0264 | script | `'NAME': expects (NAME VARIABLE [DELTA])` (`pop`: `(pop VARIABLE)`) |
//! | E0265 | script | `'NAME': expects USAGE` (the sequence forms, `seq-let`, `unwind-protect`) |
//! | E0266 | script | `'seq-let': the variables must be a list of variable names, not %S` |

use crate::ast::{Sexp, SexpKind};
use crate::builders::{Builder, is_variable, shape};
use crate::diagnostic::Diagnostic;
use crate::tables::{name_of, prin1};

/// The transformer of [`crate::tables::TRANSFORMERS`] named `name` that this module
/// expands (every one after the original six).
#[must_use]
pub fn lookup(name: &str) -> Option<&'static str> {
    // Asked for every list head preflight and expansion see: a hash set over the table's
    // conveniences, built once, instead of a scan; most heads are no convenience and are
    // rejected by length and first byte ([`crate::tables::NameFilter`]) without hashing.
    const FILTER: crate::tables::NameFilter = {
        let (_, conveniences) = crate::tables::TRANSFORMERS.split_at(6);
        crate::tables::name_filter(conveniences)
    };
    static NAMES: std::sync::LazyLock<rustc_hash::FxHashSet<&'static str>> =
        std::sync::LazyLock::new(|| {
            crate::tables::TRANSFORMERS
                .iter()
                .skip(6)
                .copied()
                .collect()
        });
    if !crate::tables::may_hold(&FILTER, name) {
        return None;
    }
    NAMES.get(name).copied()
}

/// The usage a shape error prints.
fn usage(name: &str) -> &'static str {
    match name {
        "function" => "(function NAME-OR-LAMBDA)",
        "if-let" => "(if-let VARLIST THEN ELSE...)",
        "if-let*" => "(if-let* VARLIST THEN ELSE...)",
        "when-let" => "(when-let VARLIST BODY...)",
        "when-let*" => "(when-let* VARLIST BODY...)",
        "and-let*" => "(and-let* VARLIST BODY...)",
        "pop" => "(pop VARIABLE)",
        "cl-incf" => "(cl-incf VARIABLE [DELTA])",
        "cl-decf" => "(cl-decf VARIABLE [DELTA])",
        "incf" => "(incf VARIABLE [DELTA])",
        "decf" => "(decf VARIABLE [DELTA])",
        "seq-let" => "(seq-let (VAR...) SEQUENCE BODY...)",
        "ignore-errors" => "(ignore-errors BODY...)",
        "unwind-protect" => "(unwind-protect BODYFORM UNWINDFORMS...)",
        "seq-filter" => "(seq-filter PRED SEQUENCE)",
        "seq-remove" => "(seq-remove PRED SEQUENCE)",
        "cl-remove-if-not" => "(cl-remove-if-not PRED SEQUENCE)",
        "cl-remove-if" => "(cl-remove-if PRED SEQUENCE)",
        "seq-reduce" => "(seq-reduce FUNCTION SEQUENCE INITIAL-VALUE)",
        "seq-find" => "(seq-find PRED SEQUENCE [DEFAULT])",
        "cl-find-if" => "(cl-find-if PRED SEQUENCE)",
        "seq-some" => "(seq-some PRED SEQUENCE)",
        "cl-some" => "(cl-some PRED SEQUENCE)",
        "seq-every-p" => "(seq-every-p PRED SEQUENCE)",
        "cl-every" => "(cl-every PRED SEQUENCE)",
        "seq-count" => "(seq-count PRED SEQUENCE)",
        "cl-count-if" => "(cl-count-if PRED SEQUENCE)",
        "seq-map" => "(seq-map FUNCTION SEQUENCE)",
        "seq-do" => "(seq-do FUNCTION SEQUENCE)",
        "mapc" => "(mapc FUNCTION SEQUENCE)",
        "mapcan" => "(mapcan FUNCTION SEQUENCE)",
        "mapconcat" => "(mapconcat FUNCTION SEQUENCE [SEPARATOR])",
        "cl-mapcar" => "(cl-mapcar FUNCTION SEQUENCE...)",
        "cl-mapcan" => "(cl-mapcan FUNCTION SEQUENCE...)",
        "seq-sort" => "(seq-sort PRED SEQUENCE)",
        "cl-sort" => "(cl-sort SEQUENCE PRED)",
        "maphash" => "(maphash FUNCTION TABLE)",
        "sort" => "(sort SEQUENCE PREDICATE)",
        _ => "",
    }
}

/// Expands `(NAME ARGS...)` for one of [`NAMES`], or the two-argument `sort` (`"sort"`).
///
/// # Errors
/// The form's shape error (kind `script`, E0260–E0266).
pub(crate) fn expand(b: &mut Builder<'_>, name: &str, items: &[Sexp]) -> Result<Sexp, Diagnostic> {
    let args = items.get(1..).unwrap_or_default();
    let bad = |b: &Builder<'_>| {
        shape(
            "E0265",
            format!("'{name}': expects {}", usage(name)),
            b.span,
        )
    };
    match name {
        "function" => b.function(args),
        "if-let" | "if-let*" | "when-let" | "when-let*" | "and-let*" => b.if_let(name, args),
        "pop" | "cl-incf" | "cl-decf" | "incf" | "decf"
            if args.first().is_some_and(crate::places::is_compound) =>
        {
            crate::places::expand(b, name, args)
        }
        "pop" => b.pop(args),
        "cl-incf" | "cl-decf" | "incf" | "decf" => b.incf(name, args),
        "seq-let" => b.seq_let(args),
        "ignore-errors" => {
            let body = b.call("progn", args.iter().cloned());
            let nil = Sexp::new(SexpKind::Nil, b.span);
            let error = b.sym("error");
            let handler = b.list(vec![error, nil.clone()]);
            Ok(b.call("condition-case", [nil, body, handler]))
        }
        "unwind-protect" => match args.split_first() {
            Some((body, cleanup)) => Ok(b.unwind_protect(body, cleanup)),
            None => Err(bad(b)),
        },
        "seq-filter" | "cl-remove-if-not" | "seq-remove" | "cl-remove-if" => match args {
            [pred, seq] => Ok(b.filter(
                pred,
                seq,
                name.contains("remove-if-not") || name == "seq-filter",
            )),
            _ => Err(bad(b)),
        },
        "seq-reduce" => match args {
            [function, seq, initial] => Ok(b.reduce(function, seq, initial)),
            _ => Err(bad(b)),
        },
        "seq-find" | "cl-find-if" => match (name, args) {
            (_, [pred, seq]) => Ok(b.find(pred, seq, None)),
            ("seq-find", [pred, seq, default]) => Ok(b.find(pred, seq, Some(default))),
            _ => Err(bad(b)),
        },
        "seq-some" | "cl-some" => match args {
            [pred, seq] => Ok(b.some(pred, seq)),
            _ => Err(bad(b)),
        },
        "seq-every-p" | "cl-every" => match args {
            [pred, seq] => Ok(b.every(pred, seq)),
            _ => Err(bad(b)),
        },
        "seq-count" | "cl-count-if" => match args {
            [pred, seq] => Ok(b.count(pred, seq)),
            _ => Err(bad(b)),
        },
        "seq-map" => match args {
            [function, seq] => Ok(b.map(function, seq)),
            _ => Err(bad(b)),
        },
        "seq-do" | "mapc" => match args {
            [function, seq] => Ok(b.each(function, seq)),
            _ => Err(bad(b)),
        },
        "mapcan" => match args {
            [function, seq] => {
                let mapped = b.map(function, seq);
                let append = b.sym("append");
                let append = b.quote(&append);
                Ok(b.call("apply", [append, mapped]))
            }
            _ => Err(bad(b)),
        },
        "mapconcat" => match args {
            [function, seq] => {
                let mapped = b.map(function, seq);
                let empty = Sexp::new(SexpKind::Str("".into()), b.span);
                Ok(b.call("string-join", [mapped, empty]))
            }
            [function, seq, separator] => {
                let mapped = b.map(function, seq);
                Ok(b.call("string-join", [mapped, separator.clone()]))
            }
            _ => Err(bad(b)),
        },
        "cl-mapcar" | "cl-mapcan" => {
            let mapped = match args {
                [function, seq] => b.map(function, seq),
                [function, seqs @ ..] if seqs.len() >= 2 => b.map_n(function, seqs),
                _ => return Err(bad(b)),
            };
            if name == "cl-mapcar" {
                return Ok(mapped);
            }
            let append = b.sym("append");
            let append = b.quote(&append);
            Ok(b.call("apply", [append, mapped]))
        }
        "seq-sort" => match args {
            [pred, seq] => Ok(b.sort(seq, pred)),
            _ => Err(bad(b)),
        },
        _ if crate::pcase::NAMES.contains(&name) => crate::pcase::expand(b, name, args),
        _ if crate::places::NAMES.contains(&name) => crate::places::expand(b, name, args),
        "rx" => crate::rx::expand(b, args),
        _ if crate::seq_forms::NAMES.contains(&name) => crate::seq_forms::expand(b, name, args),
        _ if crate::control::NAMES.contains(&name) => crate::control::expand(b, name, args),
        "cl-sort" | "sort" => match args {
            [seq, pred] => Ok(b.sort(seq, pred)),
            _ => Err(bad(b)),
        },
        "maphash" => match args {
            [function, table] => Ok(b.maphash(function, table)),
            _ => Err(bad(b)),
        },
        _ => Err(bad(b)),
    }
}

impl Builder<'_> {
    pub(crate) fn hidden(&mut self, name: &str) -> Sexp {
        Sexp::new(SexpKind::Sym(self.interner.gensym(name)), self.span)
    }

    pub(crate) fn nil(&self) -> Sexp {
        Sexp::new(SexpKind::Nil, self.span)
    }

    pub(crate) fn t(&self) -> Sexp {
        Sexp::new(SexpKind::T, self.span)
    }

    pub(crate) fn binding(&self, variable: Sexp, value: Sexp) -> Sexp {
        self.list(vec![variable, value])
    }

    pub(crate) fn let_form(&mut self, star: bool, bindings: Vec<Sexp>, body: Vec<Sexp>) -> Sexp {
        let mut items = vec![self.sym(if star { "let*" } else { "let" })];
        items.push(self.list(bindings));
        items.extend(body);
        self.list(items)
    }

    pub(crate) fn setq(&mut self, variable: &Sexp, value: Sexp) -> Sexp {
        self.call("setq", [variable.clone(), value])
    }

    /// `(append SEQ nil)`: a fresh list of the elements of a list, vector or string.
    pub(crate) fn as_list(&mut self, seq: &Sexp) -> Sexp {
        let nil = self.nil();
        self.call("append", [seq.clone(), nil])
    }

    fn function(&mut self, args: &[Sexp]) -> Result<Sexp, Diagnostic> {
        match args {
            [name] if is_variable(name) => Ok(self.quote(name)),
            [lambda]
                if lambda
                    .head_symbol()
                    .is_some_and(|s| name_of(self.interner, s) == "lambda") =>
            {
                Ok(lambda.clone())
            }
            _ => {
                let shown = args
                    .first()
                    .map_or_else(|| "nothing".to_owned(), |a| prin1(a, self.interner));
                Err(shape(
                    "E0260",
                    format!("'function': expects a function name or a lambda, not {shown}"),
                    self.span,
                ))
            }
        }
    }

    /// The `if-let` family, as Emacs expands it: each binding's value is computed only
    /// while the earlier ones are non-nil (`(s2 (and s1 V2))`), all in one `let*`.
    fn if_let(&mut self, name: &str, args: &[Sexp]) -> Result<Sexp, Diagnostic> {
        let Some((spec, rest)) = args.split_first() else {
            return Err(shape(
                "E0261",
                format!("'{name}': expects {}", usage(name)),
                self.span,
            ));
        };
        if name.starts_with("if-let") && rest.is_empty() {
            return Err(shape(
                "E0261",
                format!("'{name}': expects {}", usage(name)),
                self.span,
            ));
        }
        // `(if-let (x V) ...)`: the old single-binding shape of if-let and when-let.
        let single = !name.ends_with('*')
            && spec
                .as_list()
                .is_some_and(|parts| parts.len() <= 2 && parts.first().is_some_and(is_variable));
        let specs: Vec<Sexp> = match &spec.kind {
            SexpKind::Nil => Vec::new(),
            _ if single => vec![spec.clone()],
            SexpKind::List(parts) => parts.clone(),
            _ => {
                return Err(shape(
                    "E0261",
                    format!("'{name}': expects {}", usage(name)),
                    spec.span,
                ));
            }
        };
        let mut bindings = Vec::new();
        let mut last: Option<Sexp> = None;
        for binding in &specs {
            let (variable, value) = match binding.as_list() {
                _ if is_variable(binding) => (binding.clone(), binding.clone()),
                Some([variable, value]) if is_variable(variable) => {
                    (variable.clone(), value.clone())
                }
                Some([value]) => (self.hidden("test"), value.clone()),
                _ => {
                    return Err(shape(
                        "E0262",
                        format!(
                            "'{name}': a binding must be SYMBOL, (SYMBOL VALUE) or (VALUE), not {}",
                            prin1(binding, self.interner)
                        ),
                        binding.span,
                    ));
                }
            };
            let value = match &last {
                Some(previous) => self.call("and", [previous.clone(), value]),
                None => value,
            };
            bindings.push(self.binding(variable.clone(), value));
            last = Some(variable);
        }
        let test = last.unwrap_or_else(|| self.t());
        let body = match name {
            "if-let" | "if-let*" => {
                let mut items = vec![self.sym("if"), test, rest[0].clone()];
                items.extend(rest.iter().skip(1).cloned());
                self.list(items)
            }
            "and-let*" if rest.is_empty() => test,
            _ => {
                let progn = self.call("progn", rest.iter().cloned());
                self.call("if", [test, progn])
            }
        };
        Ok(self.let_form(true, bindings, vec![body]))
    }

    pub(crate) fn place<'f>(&self, name: &str, place: &'f Sexp) -> Result<&'f Sexp, Diagnostic> {
        if is_variable(place) {
            Ok(place)
        } else {
            Err(shape(
                "E0263",
                format!(
                    "'{name}': PLACE must be a variable name, not {}",
                    prin1(place, self.interner)
                ),
                place.span,
            ))
        }
    }

    /// `(pop VAR)`: `(let ((h (car VAR))) (setq VAR (cdr VAR)) h)`.
    fn pop(&mut self, args: &[Sexp]) -> Result<Sexp, Diagnostic> {
        let [place] = args else {
            return Err(shape(
                "E0264",
                "'pop': expects (pop VARIABLE)".to_owned(),
                self.span,
            ));
        };
        let place = self.place("pop", place)?.clone();
        let head = self.hidden("head");
        let car = self.call("car", [place.clone()]);
        let cdr = self.call("cdr", [place.clone()]);
        let advance = self.setq(&place, cdr);
        let binding = self.binding(head.clone(), car);
        Ok(self.let_form(false, vec![binding], vec![advance, head]))
    }

    /// `(cl-incf VAR [DELTA])`: `(setq VAR (+ VAR DELTA))`, DELTA defaulting to 1.
    fn incf(&mut self, name: &str, args: &[Sexp]) -> Result<Sexp, Diagnostic> {
        let (place, delta) = match args {
            [place] => (place, Sexp::new(SexpKind::Int(1), self.span)),
            [place, delta] => (place, delta.clone()),
            _ => {
                return Err(shape(
                    "E0264",
                    format!("'{name}': expects ({name} VARIABLE [DELTA])"),
                    self.span,
                ));
            }
        };
        let place = self.place(name, place)?.clone();
        let operator = if name.ends_with("incf") { "+" } else { "-" };
        let sum = self.call(operator, [place.clone(), delta]);
        Ok(self.setq(&place, sum))
    }

    /// `(seq-let (A B) SEQ BODY...)`: `(let* ((l (append SEQ nil)) (A (nth 0 l)) ...) BODY...)`.
    fn seq_let(&mut self, args: &[Sexp]) -> Result<Sexp, Diagnostic> {
        let [variables, seq, body @ ..] = args else {
            return Err(shape(
                "E0265",
                format!("'seq-let': expects {}", usage("seq-let")),
                self.span,
            ));
        };
        let names: &[Sexp] = match &variables.kind {
            SexpKind::Nil => &[],
            SexpKind::List(names) if names.iter().all(is_variable) => names,
            _ => {
                return Err(shape(
                    "E0266",
                    format!(
                        "'seq-let': the variables must be a list of variable names, not {}",
                        prin1(variables, self.interner)
                    ),
                    variables.span,
                ));
            }
        };
        let list = self.hidden("seq");
        let whole = self.as_list(seq);
        let mut bindings = vec![self.binding(list.clone(), whole)];
        for (index, name) in names.iter().enumerate() {
            let index = Sexp::new(
                SexpKind::Int(i64::try_from(index).unwrap_or(i64::MAX)),
                self.span,
            );
            let nth = self.call("nth", [index, list.clone()]);
            bindings.push(self.binding(name.clone(), nth));
        }
        Ok(self.let_form(true, bindings, body.to_vec()))
    }

    /// `(unwind-protect BODY CLEANUP...)`: CLEANUP runs after BODY, and before a catchable
    /// error from BODY is signalled on. Uncatchable failures end the run, so no guest code
    /// could observe a skipped cleanup.
    fn unwind_protect(&mut self, body: &Sexp, cleanup: &[Sexp]) -> Sexp {
        let result = self.hidden("result");
        let caught = self.hidden("caught");
        let car = self.call("car", [caught.clone()]);
        let cdr = self.call("cdr", [caught.clone()]);
        let resignal = self.call("signal", [car, cdr]);
        let mut handler = vec![self.sym("error")];
        handler.extend(cleanup.iter().cloned());
        handler.push(resignal);
        let handler = self.list(handler);
        let guarded = self.call("condition-case", [caught, body.clone(), handler]);
        let binding = self.binding(result.clone(), guarded);
        let mut rest: Vec<Sexp> = cleanup.to_vec();
        rest.push(result);
        self.let_form(false, vec![binding], rest)
    }

    /// The loop every sequence form shares:
    /// `(let ((f FN) (tail (append SEQ nil)) EXTRA...) (while COND STEP... (setq tail (cdr tail))) RESULT)`,
    /// `step` building the per-element forms from `(f, element)`.
    fn walk(
        &mut self,
        function: &Sexp,
        seq: &Sexp,
        extra: Vec<Sexp>,
        guard: Option<Sexp>,
        step: impl FnOnce(&mut Self, &Sexp, &Sexp) -> Vec<Sexp>,
        result: Sexp,
    ) -> Sexp {
        let f = self.hidden("f");
        let tail = self.hidden("tail");
        let whole = self.as_list(seq);
        let mut bindings = vec![
            self.binding(f.clone(), function.clone()),
            self.binding(tail.clone(), whole),
        ];
        bindings.extend(extra);
        let element = self.call("car", [tail.clone()]);
        let mut body = step(self, &f, &element);
        let cdr = self.call("cdr", [tail.clone()]);
        body.push(self.setq(&tail, cdr));
        let condition = match guard {
            Some(guard) => self.call("and", [guard, tail.clone()]),
            None => tail.clone(),
        };
        let mut looping = vec![self.sym("while"), condition];
        looping.extend(body);
        let looping = self.list(looping);
        self.let_form(false, bindings, vec![looping, result])
    }

    pub(crate) fn funcall(&mut self, f: &Sexp, args: impl IntoIterator<Item = Sexp>) -> Sexp {
        let mut items = vec![f.clone()];
        items.extend(args);
        self.call("funcall", items)
    }

    /// `(maphash F TABLE)` (issue 46): F called with each key and value, in the table's
    /// order, over the keys the table had when the walk started; a key removed meanwhile is
    /// skipped (a fresh cons marks "absent"). nil.
    ///
    /// `(let ((f F) (tbl TABLE) (absent (list nil)))
    ///    (dolist (k (hash-table-keys tbl))
    ///      (let ((v (gethash k tbl absent))) (if (eq v absent) nil (funcall f k v))))
    ///    nil)`
    fn maphash(&mut self, function: &Sexp, table: &Sexp) -> Sexp {
        let f = self.hidden("f");
        let tbl = self.hidden("table");
        let absent = self.hidden("absent");
        let key = self.hidden("key");
        let value = self.hidden("value");
        let nil = self.nil();
        let marker = self.call("list", [nil.clone()]);
        let bindings = vec![
            self.binding(f.clone(), function.clone()),
            self.binding(tbl.clone(), table.clone()),
            self.binding(absent.clone(), marker),
        ];
        let lookup = self.call("gethash", [key.clone(), tbl.clone(), absent.clone()]);
        let missing = self.call("eq", [value.clone(), absent.clone()]);
        let call = self.funcall(&f, [key.clone(), value.clone()]);
        let branch = self.call("if", [missing, nil.clone(), call]);
        let inner = self.binding(value.clone(), lookup);
        let body = self.let_form(false, vec![inner], vec![branch]);
        let keys = self.call("hash-table-keys", [tbl.clone()]);
        let spec = self.list(vec![key.clone(), keys]);
        let walk = self.call("dolist", [spec, body]);
        self.let_form(false, bindings, vec![walk, nil])
    }

    fn filter(&mut self, pred: &Sexp, seq: &Sexp, keep: bool) -> Sexp {
        let out = self.hidden("out");
        let extra = vec![self.binding(out.clone(), self.nil())];
        let reversed = self.call("reverse", [out.clone()]);
        self.walk(
            pred,
            seq,
            extra,
            None,
            |b, f, element| {
                let test = b.funcall(f, [element.clone()]);
                let cons = b.call("cons", [element.clone(), out.clone()]);
                let collect = b.setq(&out, cons);
                let nil = b.nil();
                let branch = if keep {
                    b.call("if", [test, collect])
                } else {
                    b.call("if", [test, nil, collect])
                };
                vec![branch]
            },
            reversed,
        )
    }

    pub(crate) fn reduce(&mut self, function: &Sexp, seq: &Sexp, initial: &Sexp) -> Sexp {
        let acc = self.hidden("acc");
        let extra = vec![self.binding(acc.clone(), initial.clone())];
        self.walk(
            function,
            seq,
            extra,
            None,
            |b, f, element| {
                let call = b.funcall(f, [acc.clone(), element.clone()]);
                vec![b.setq(&acc, call)]
            },
            acc.clone(),
        )
    }

    fn find(&mut self, pred: &Sexp, seq: &Sexp, default: Option<&Sexp>) -> Sexp {
        let found = self.hidden("found");
        let searching = self.hidden("searching");
        let default = default.cloned().unwrap_or_else(|| self.nil());
        let extra = vec![
            self.binding(found.clone(), default),
            self.binding(searching.clone(), self.t()),
        ];
        self.walk(
            pred,
            seq,
            extra,
            Some(searching.clone()),
            |b, f, element| {
                let test = b.funcall(f, [element.clone()]);
                let keep = b.setq(&found, element.clone());
                let nil = b.nil();
                let stop = b.setq(&searching, nil);
                let then = b.call("progn", [keep, stop]);
                vec![b.call("if", [test, then])]
            },
            found.clone(),
        )
    }

    fn some(&mut self, pred: &Sexp, seq: &Sexp) -> Sexp {
        let result = self.hidden("result");
        let extra = vec![self.binding(result.clone(), self.nil())];
        let guard = self.call("not", [result.clone()]);
        self.walk(
            pred,
            seq,
            extra,
            Some(guard),
            |b, f, element| {
                let call = b.funcall(f, [element.clone()]);
                vec![b.setq(&result, call)]
            },
            result.clone(),
        )
    }

    fn every(&mut self, pred: &Sexp, seq: &Sexp) -> Sexp {
        let ok = self.hidden("ok");
        let extra = vec![self.binding(ok.clone(), self.t())];
        self.walk(
            pred,
            seq,
            extra,
            Some(ok.clone()),
            |b, f, element| {
                let test = b.funcall(f, [element.clone()]);
                let nil = b.nil();
                let fail = b.setq(&ok, nil.clone());
                vec![b.call("if", [test, nil, fail])]
            },
            ok.clone(),
        )
    }

    fn count(&mut self, pred: &Sexp, seq: &Sexp) -> Sexp {
        let n = self.hidden("count");
        let zero = Sexp::new(SexpKind::Int(0), self.span);
        let extra = vec![self.binding(n.clone(), zero)];
        self.walk(
            pred,
            seq,
            extra,
            None,
            |b, f, element| {
                let test = b.funcall(f, [element.clone()]);
                let one = Sexp::new(SexpKind::Int(1), b.span);
                let sum = b.call("+", [n.clone(), one]);
                let bump = b.setq(&n, sum);
                vec![b.call("if", [test, bump])]
            },
            n.clone(),
        )
    }

    /// `(mapcar FN (append SEQ nil))`: `mapcar` is the special form.
    pub(crate) fn map(&mut self, function: &Sexp, seq: &Sexp) -> Sexp {
        let whole = self.as_list(seq);
        self.call("mapcar", [function.clone(), whole])
    }

    /// `mapc` / `seq-do`: calls FN on each element for effect and returns SEQ.
    pub(crate) fn each(&mut self, function: &Sexp, seq: &Sexp) -> Sexp {
        let whole = self.hidden("seq");
        let walked = self.walk(
            function,
            &whole,
            Vec::new(),
            None,
            |b, f, element| vec![b.funcall(f, [element.clone()])],
            whole.clone(),
        );
        let binding = self.binding(whole.clone(), seq.clone());
        self.let_form(false, vec![binding], vec![walked])
    }

    /// `(cl-mapcar FN S1 S2...)`: FN on the first elements of each, then the second...,
    /// stopping at the shortest.
    fn map_n(&mut self, function: &Sexp, seqs: &[Sexp]) -> Sexp {
        let f = self.hidden("f");
        let out = self.hidden("out");
        let tails: Vec<Sexp> = seqs.iter().map(|_| self.hidden("tail")).collect();
        let mut bindings = vec![self.binding(f.clone(), function.clone())];
        for (tail, seq) in tails.iter().zip(seqs) {
            let whole = self.as_list(seq);
            bindings.push(self.binding(tail.clone(), whole));
        }
        bindings.push(self.binding(out.clone(), self.nil()));
        let condition = self.call("and", tails.iter().cloned());
        let heads: Vec<Sexp> = tails
            .iter()
            .map(|tail| self.call("car", [tail.clone()]))
            .collect();
        let call = self.funcall(&f, heads);
        let cons = self.call("cons", [call, out.clone()]);
        let mut looping = vec![self.sym("while"), condition, self.setq(&out, cons)];
        for tail in &tails {
            let cdr = self.call("cdr", [tail.clone()]);
            looping.push(self.setq(tail, cdr));
        }
        let looping = self.list(looping);
        let result = self.call("reverse", [out]);
        self.let_form(false, bindings, vec![looping, result])
    }

    /// A stable bottom-up merge sort in guest code, so PRED may be any function; an
    /// element of the second run goes first only when `(PRED b a)` holds. Costs
    /// O(n log n) calls of PRED, each fuel-metered.
    ///
    /// ```text
    /// (let* ((pred PRED) (runs (mapcar 'list (append SEQ nil))))
    ///   (while (cdr runs)
    ///     (let ((merged nil))
    ///       (while runs
    ///         (if (cdr runs)
    ///             (let ((a (car runs)) (b (car (cdr runs))) (acc nil))
    ///               (while (and a b)
    ///                 (if (funcall pred (car b) (car a))
    ///                     (progn (setq acc (cons (car b) acc)) (setq b (cdr b)))
    ///                   (setq acc (cons (car a) acc)) (setq a (cdr a))))
    ///               (setq merged (cons (append (reverse acc) (if a a b)) merged))
    ///               (setq runs (cdr (cdr runs))))
    ///           (setq merged (cons (car runs) merged))
    ///           (setq runs nil)))
    ///       (setq runs (reverse merged))))
    ///   (car runs))
    /// ```
    pub(crate) fn sort(&mut self, seq: &Sexp, pred: &Sexp) -> Sexp {
        let p = self.hidden("pred");
        let runs = self.hidden("runs");
        let merged = self.hidden("merged");
        let a = self.hidden("a");
        let b = self.hidden("b");
        let acc = self.hidden("acc");
        let nil = self.nil();
        let whole = self.as_list(seq);
        let list = self.sym("list");
        let list = self.quote(&list);
        let singletons = self.call("mapcar", [list, whole]);

        // The inner merge of runs a and b.
        let car_b = self.call("car", [b.clone()]);
        let car_a = self.call("car", [a.clone()]);
        let test = self.funcall(&p, [car_b.clone(), car_a.clone()]);
        let take_b = {
            let cons = self.call("cons", [car_b, acc.clone()]);
            let push = self.setq(&acc, cons);
            let cdr = self.call("cdr", [b.clone()]);
            let advance = self.setq(&b, cdr);
            self.call("progn", [push, advance])
        };
        let cons_a = self.call("cons", [car_a, acc.clone()]);
        let push_a = self.setq(&acc, cons_a);
        let cdr_a = self.call("cdr", [a.clone()]);
        let advance_a = self.setq(&a, cdr_a);
        let choose = self.call("if", [test, take_b, push_a, advance_a]);
        let both = self.call("and", [a.clone(), b.clone()]);
        let merge_loop = self.call("while", [both, choose]);
        let reversed = self.call("reverse", [acc.clone()]);
        let rest = self.call("if", [a.clone(), a.clone(), b.clone()]);
        let joined = self.call("append", [reversed, rest]);
        let cons_merged = self.call("cons", [joined, merged.clone()]);
        let keep = self.setq(&merged, cons_merged);
        let cdr_runs = self.call("cdr", [runs.clone()]);
        let cddr_runs = self.call("cdr", [cdr_runs.clone()]);
        let skip = self.setq(&runs, cddr_runs);
        let first_run = self.call("car", [runs.clone()]);
        let second_run = self.call("car", [cdr_runs.clone()]);
        let pair_bindings = vec![
            self.binding(a.clone(), first_run.clone()),
            self.binding(b.clone(), second_run),
            self.binding(acc.clone(), nil.clone()),
        ];
        let merge_pair = self.let_form(false, pair_bindings, vec![merge_loop, keep, skip]);
        let cons_last = self.call("cons", [first_run, merged.clone()]);
        let keep_last = self.setq(&merged, cons_last);
        let finish = self.setq(&runs, nil.clone());
        let step = self.call("if", [cdr_runs.clone(), merge_pair, keep_last, finish]);
        let pass_loop = self.call("while", [runs.clone(), step]);
        let reversed_runs = self.call("reverse", [merged.clone()]);
        let next = self.setq(&runs, reversed_runs);
        let pass = self.let_form(
            false,
            vec![self.binding(merged.clone(), nil)],
            vec![pass_loop, next],
        );
        let outer = self.call("while", [cdr_runs, pass]);
        let result = self.call("car", [runs.clone()]);
        let bindings = vec![
            self.binding(p, pred.clone()),
            self.binding(runs, singletons),
        ];
        self.let_form(true, bindings, vec![outer, result])
    }
}
