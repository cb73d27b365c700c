//! Control and binding conveniences (issue 46), each a one-level rewrite: `catch`/`throw`,
//! `cl-block`/`cl-return`/`cl-return-from`, `cl-dolist`/`cl-dotimes` (with their nil
//! block), `prog1`, `prog2`, `apply-partially`, `thread-first`,
//! `thread-last`, `letrec`, `named-let`, `cl-flet`, `cl-flet*`, `cl-labels`, `cl-case`,
//! `cl-ecase`, `cl-typecase`, `cl-etypecase`, `let-alist`, `cl-destructuring-bind` and
//! `cl-loop` ([`crate::cl_loop`]).
//!
//! Non-local exits reuse the condition system: `(throw TAG VALUE)` signals
//! `(no-catch TAG VALUE)` — Emacs's own error for a throw nothing catches — and
//! `(catch TAG BODY...)` is a `condition-case` with a `no-catch` handler that returns
//! VALUE when the tag is `eq` to its own and signals the error on otherwise. `cl-block
//! NAME` catches the tag `--cl-block-NAME--`, as Emacs's expansion does.
//!
//! Local functions (`cl-flet`, `cl-labels`, `named-let`) are closures held in hidden
//! variables; the calls `(NAME ARGS...)` and `#'NAME` in their scope are rewritten to
//! `(funcall HIDDEN ARGS...)` and `HIDDEN` (not inside `quote`).
//!
//! | Code  | Kind   | Message |
//! |-------|--------|---------|
//! | E0290 | script | `'NAME': expects USAGE` |
//! | E0291 | script | `'NAME': nesting exceeds %d levels` (a body too deep to rewrite) |

use crate::ast::{Sexp, SexpKind};
use crate::builders::{Builder, is_variable, shape};
use crate::diagnostic::Diagnostic;
use crate::tables::{name_of, prin1};
use ptc_vm::Symbol;

/// The names this module expands.
pub(crate) const NAMES: [&str; 24] = [
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
];

/// Deepest body rewritten for local functions and `let-alist`.
const MAX_REWRITE_DEPTH: u32 = 512;

fn usage(name: &str) -> &'static str {
    match name {
        "catch" => "(catch TAG BODY...)",
        "throw" => "(throw TAG VALUE)",
        "cl-block" => "(cl-block NAME BODY...)",
        "cl-return" => "(cl-return [VALUE])",
        "cl-return-from" => "(cl-return-from NAME [VALUE])",
        "cl-dolist" => "(cl-dolist (VAR LIST [RESULT]) BODY...)",
        "cl-dotimes" => "(cl-dotimes (VAR COUNT [RESULT]) BODY...)",
        "prog1" => "(prog1 FIRST BODY...)",
        "prog2" => "(prog2 FORM1 FORM2 BODY...)",
        "apply-partially" => "(apply-partially FUN ARGS...)",
        "thread-first" => "(thread-first VALUE FORMS...)",
        "thread-last" => "(thread-last VALUE FORMS...)",
        "letrec" => "(letrec ((VAR VALUE)...) BODY...)",
        "named-let" => "(named-let NAME ((VAR INIT)...) BODY...)",
        "cl-flet" => "(cl-flet ((NAME ARGLIST BODY...)...) FORMS...)",
        "cl-flet*" => "(cl-flet* ((NAME ARGLIST BODY...)...) FORMS...)",
        "cl-labels" => "(cl-labels ((NAME ARGLIST BODY...)...) FORMS...)",
        "cl-case" => "(cl-case EXPR (KEYS BODY...)...)",
        "cl-ecase" => "(cl-ecase EXPR (KEYS BODY...)...)",
        "cl-typecase" => "(cl-typecase EXPR (TYPE BODY...)...)",
        "cl-etypecase" => "(cl-etypecase EXPR (TYPE BODY...)...)",
        "let-alist" => "(let-alist ALIST BODY...)",
        "cl-destructuring-bind" => "(cl-destructuring-bind ARGLIST EXPR BODY...)",
        _ => "",
    }
}

/// Expands `(NAME ARGS...)` for one of [`NAMES`].
///
/// # Errors
/// E0290/E0291 (kind `script`), or `cl-loop`'s errors.
#[allow(clippy::too_many_lines)]
pub(crate) fn expand(b: &mut Builder<'_>, name: &str, args: &[Sexp]) -> Result<Sexp, Diagnostic> {
    let bad = |b: &Builder<'_>| {
        shape(
            "E0290",
            format!("'{name}': expects {}", usage(name)),
            b.span,
        )
    };
    match name {
        "cl-loop" => crate::cl_loop::expand(b, args),
        "catch" => {
            let Some((tag, body)) = args.split_first() else {
                return Err(bad(b));
            };
            Ok(catch(b, tag.clone(), body.to_vec()))
        }
        "throw" => match args {
            [tag, value] => Ok(throw(b, tag.clone(), value.clone())),
            _ => Err(bad(b)),
        },
        "cl-block" => {
            let Some((block, body)) = args.split_first() else {
                return Err(bad(b));
            };
            let tag = block_tag(b, block);
            Ok(catch(b, tag, body.to_vec()))
        }
        "cl-return" => match args {
            [] => {
                let tag = block_tag(b, &b.nil());
                let nil = b.nil();
                Ok(throw(b, tag, nil))
            }
            [value] => {
                let tag = block_tag(b, &b.nil());
                Ok(throw(b, tag, value.clone()))
            }
            _ => Err(bad(b)),
        },
        "cl-return-from" => match args {
            [block] => {
                let tag = block_tag(b, block);
                let nil = b.nil();
                Ok(throw(b, tag, nil))
            }
            [block, value] => {
                let tag = block_tag(b, block);
                Ok(throw(b, tag, value.clone()))
            }
            _ => Err(bad(b)),
        },
        "cl-dolist" | "cl-dotimes" => {
            if args.is_empty() {
                return Err(bad(b));
            }
            let mut items = vec![b.sym(&name[3..])];
            items.extend(args.iter().cloned());
            let inner = b.list(items);
            let tag = block_tag(b, &b.nil());
            Ok(catch(b, tag, vec![inner]))
        }
        "prog1" => {
            let Some((first, body)) = args.split_first() else {
                return Err(bad(b));
            };
            Ok(prog1(b, first, body))
        }
        "prog2" => {
            let [first, second, body @ ..] = args else {
                return Err(bad(b));
            };
            let kept = prog1(b, second, body);
            Ok(b.call("progn", [first.clone(), kept]))
        }
        "apply-partially" => {
            let Some((function, fixed)) = args.split_first() else {
                return Err(bad(b));
            };
            let f = b.hidden("f");
            let mut bindings = vec![b.binding(f.clone(), function.clone())];
            let mut call = vec![b.sym("apply"), f];
            for arg in fixed {
                let hidden = b.hidden("arg");
                bindings.push(b.binding(hidden.clone(), arg.clone()));
                call.push(hidden);
            }
            let rest = b.hidden("rest");
            call.push(rest.clone());
            let call = b.list(call);
            let marker = b.sym("&rest");
            let params = b.list(vec![marker, rest]);
            let lambda = b.call("lambda", [params, call]);
            Ok(b.let_form(false, bindings, vec![lambda]))
        }
        "thread-first" | "thread-last" => {
            let Some((value, forms)) = args.split_first() else {
                return Err(bad(b));
            };
            let mut acc = value.clone();
            for form in forms {
                acc = match &form.kind {
                    SexpKind::List(items) => {
                        let mut call = items.clone();
                        if name == "thread-first" {
                            call.insert(1, acc);
                        } else {
                            call.push(acc);
                        }
                        b.list(call)
                    }
                    _ => b.list(vec![form.clone(), acc]),
                };
            }
            Ok(acc)
        }
        "letrec" => {
            let Some((bindings, body)) = args.split_first() else {
                return Err(bad(b));
            };
            let pairs = binding_pairs(b, bindings).ok_or_else(|| bad(b))?;
            let names: Vec<Sexp> = pairs.iter().map(|(v, _)| v.clone()).collect();
            let mut forms = Vec::new();
            for (variable, value) in pairs {
                forms.push(b.setq(&variable, value));
            }
            forms.extend(body.iter().cloned());
            let mut items = vec![b.sym("let"), b.list(names)];
            items.extend(forms);
            Ok(b.list(items))
        }
        "named-let" => {
            let [fname, bindings, body @ ..] = args else {
                return Err(bad(b));
            };
            let Some(symbol) = fname.as_symbol().filter(|_| is_variable(fname)) else {
                return Err(bad(b));
            };
            let pairs = binding_pairs(b, bindings).ok_or_else(|| bad(b))?;
            let hidden = b.hidden(name_of(b.interner, symbol).to_owned().as_str());
            let params: Vec<Sexp> = pairs.iter().map(|(v, _)| v.clone()).collect();
            let locals = [(symbol, hidden.clone())];
            let body = rewrite_all(b, name, body, &locals)?;
            let mut lambda = vec![b.sym("lambda"), b.list(params)];
            lambda.extend(body);
            let lambda = b.list(lambda);
            let set = b.setq(&hidden, lambda);
            let mut call = vec![b.sym("funcall"), hidden.clone()];
            call.extend(pairs.into_iter().map(|(_, v)| v));
            let call = b.list(call);
            let names = b.list(vec![hidden]);
            Ok(b.call("let", [names, set, call]))
        }
        "cl-flet" | "cl-flet*" | "cl-labels" => {
            let Some((specs, body)) = args.split_first() else {
                return Err(bad(b));
            };
            local_functions(b, name, specs, body).ok_or_else(|| bad(b))?
        }
        "cl-case" | "cl-ecase" => {
            let Some((subject, clauses)) = args.split_first() else {
                return Err(bad(b));
            };
            case(b, name, subject, clauses).ok_or_else(|| bad(b))?
        }
        "cl-typecase" | "cl-etypecase" => {
            let Some((subject, clauses)) = args.split_first() else {
                return Err(bad(b));
            };
            typecase(b, name, subject, clauses).ok_or_else(|| bad(b))?
        }
        "let-alist" => {
            let Some((alist, body)) = args.split_first() else {
                return Err(bad(b));
            };
            let_alist(b, alist, body)
        }
        "cl-destructuring-bind" => {
            let [params, value, body @ ..] = args else {
                return Err(bad(b));
            };
            destructuring_bind(b, params, value, body).ok_or_else(|| bad(b))
        }
        _ => Err(bad(b)),
    }
}

/// `'--cl-block-NAME--`.
fn block_tag(b: &mut Builder<'_>, block: &Sexp) -> Sexp {
    let shown = prin1(block, b.interner);
    let tag = b.sym(&format!("--cl-block-{shown}--"));
    b.quote(&tag)
}

/// `(let ((tag TAG)) (condition-case c (progn BODY...) (no-catch (if (eq (car (cdr c))
/// tag) (car (cdr (cdr c))) (signal (car c) (cdr c))))))`.
pub(crate) fn catch(b: &mut Builder<'_>, tag: Sexp, body: Vec<Sexp>) -> Sexp {
    let tag_var = b.hidden("tag");
    let caught = b.hidden("caught");
    let data = b.call("cdr", [caught.clone()]);
    let thrown_tag = b.call("car", [data.clone()]);
    let rest = b.call("cdr", [data.clone()]);
    let value = b.call("car", [rest]);
    let same = b.call("eq", [thrown_tag, tag_var.clone()]);
    let symbol = b.call("car", [caught.clone()]);
    let resignal = b.call("signal", [symbol, data]);
    let answer = b.call("if", [same, value, resignal]);
    let no_catch = b.sym("no-catch");
    let handler = b.list(vec![no_catch, answer]);
    let body = b.call("progn", body);
    let guarded = b.call("condition-case", [caught, body, handler]);
    let binding = b.binding(tag_var, tag);
    b.let_form(false, vec![binding], vec![guarded])
}

/// `(signal 'no-catch (list TAG VALUE))`.
pub(crate) fn throw(b: &mut Builder<'_>, tag: Sexp, value: Sexp) -> Sexp {
    let symbol = b.sym("no-catch");
    let symbol = b.quote(&symbol);
    let data = b.call("list", [tag, value]);
    b.call("signal", [symbol, data])
}

fn prog1(b: &mut Builder<'_>, first: &Sexp, body: &[Sexp]) -> Sexp {
    let kept = b.hidden("first");
    let binding = b.binding(kept.clone(), first.clone());
    let mut forms = body.to_vec();
    forms.push(kept);
    b.let_form(false, vec![binding], forms)
}

/// `((VAR VALUE)...)` (a bare `VAR` is nil) as pairs.
fn binding_pairs(b: &Builder<'_>, bindings: &Sexp) -> Option<Vec<(Sexp, Sexp)>> {
    let items: &[Sexp] = match &bindings.kind {
        SexpKind::Nil => &[],
        SexpKind::List(items) => items,
        _ => return None,
    };
    items
        .iter()
        .map(|binding| {
            if is_variable(binding) {
                return Some((binding.clone(), b.nil()));
            }
            match binding.as_list()? {
                [variable] if is_variable(variable) => Some((variable.clone(), b.nil())),
                [variable, value] if is_variable(variable) => {
                    Some((variable.clone(), value.clone()))
                }
                _ => None,
            }
        })
        .collect()
}

/// `forms` with every call `(NAME ARGS...)` of a local function rewritten to
/// `(funcall HIDDEN ARGS...)` and `#'NAME` to `HIDDEN`, outside `quote`.
fn rewrite_all(
    b: &mut Builder<'_>,
    name: &str,
    forms: &[Sexp],
    locals: &[(Symbol, Sexp)],
) -> Result<Vec<Sexp>, Diagnostic> {
    let funcall = b.sym("funcall");
    forms
        .iter()
        .map(|form| rewrite(b, name, &funcall, form, locals, 0))
        .collect()
}

fn rewrite(
    b: &Builder<'_>,
    name: &str,
    funcall: &Sexp,
    form: &Sexp,
    locals: &[(Symbol, Sexp)],
    depth: u32,
) -> Result<Sexp, Diagnostic> {
    if depth > MAX_REWRITE_DEPTH {
        return Err(shape(
            "E0291",
            format!("'{name}': nesting exceeds {MAX_REWRITE_DEPTH} levels"),
            form.span,
        ));
    }
    let SexpKind::List(items) = &form.kind else {
        return Ok(form.clone());
    };
    let head = items.first().and_then(Sexp::as_symbol);
    let head_name = head.map_or("", |s| name_of(b.interner, s));
    if head_name == "quote" {
        return Ok(form.clone());
    }
    if head_name == "function"
        && let [_, target] = &items[..]
        && let Some((_, hidden)) = locals.iter().find(|(s, _)| Some(*s) == target.as_symbol())
    {
        return Ok(hidden.clone());
    }
    let mut out = Vec::with_capacity(items.len() + 1);
    let mut rest = &items[..];
    if let Some(symbol) = head
        && let Some((_, hidden)) = locals.iter().find(|(s, _)| *s == symbol)
    {
        out.push(funcall.clone());
        out.push(hidden.clone());
        rest = &items[1..];
    }
    for item in rest {
        out.push(rewrite(b, name, funcall, item, locals, depth + 1)?);
    }
    Ok(Sexp::new(SexpKind::List(out), form.span))
}

/// `cl-flet`, `cl-flet*` and `cl-labels`: each function a closure in a hidden variable.
fn local_functions(
    b: &mut Builder<'_>,
    name: &str,
    specs: &Sexp,
    body: &[Sexp],
) -> Option<Result<Sexp, Diagnostic>> {
    let items: &[Sexp] = match &specs.kind {
        SexpKind::Nil => &[],
        SexpKind::List(items) => items,
        _ => return None,
    };
    let mut functions = Vec::new();
    for spec in items {
        let [fname, params, fbody @ ..] = spec.as_list()? else {
            return None;
        };
        let symbol = fname.as_symbol().filter(|_| is_variable(fname))?;
        let hidden = b.hidden(name_of(b.interner, symbol).to_owned().as_str());
        functions.push((symbol, hidden, params.clone(), fbody.to_vec()));
    }
    let all: Vec<(Symbol, Sexp)> = functions
        .iter()
        .map(|(s, h, _, _)| (*s, h.clone()))
        .collect();
    let recursive = name == "cl-labels";
    let mut bindings = Vec::new();
    let mut sets = Vec::new();
    for (index, (_, hidden, params, fbody)) in functions.iter().enumerate() {
        // cl-labels: every function sees all; cl-flet*: the earlier ones; cl-flet: none.
        let visible: &[(Symbol, Sexp)] = match name {
            "cl-labels" => &all,
            "cl-flet*" => &all[..index],
            _ => &[],
        };
        let fbody = match rewrite_all(b, name, fbody, visible) {
            Ok(fbody) => fbody,
            Err(error) => return Some(Err(error)),
        };
        let mut lambda = vec![b.sym("lambda"), params.clone()];
        lambda.extend(fbody);
        let lambda = b.list(lambda);
        if recursive {
            bindings.push(hidden.clone());
            sets.push(b.setq(hidden, lambda));
        } else {
            bindings.push(b.binding(hidden.clone(), lambda));
        }
    }
    let body = match rewrite_all(b, name, body, &all) {
        Ok(body) => body,
        Err(error) => return Some(Err(error)),
    };
    sets.extend(body);
    Some(Ok(b.let_form(name != "cl-flet", bindings, sets)))
}

fn case(
    b: &mut Builder<'_>,
    name: &str,
    subject: &Sexp,
    clauses: &[Sexp],
) -> Option<Result<Sexp, Diagnostic>> {
    let value = b.hidden("v");
    let mut arms = Vec::new();
    let mut all_keys = Vec::new();
    for clause in clauses {
        let (keys, body) = clause.as_list()?.split_first()?;
        let keys_name = keys.as_symbol().map(|s| name_of(b.interner, s).to_owned());
        let test = match (&keys.kind, keys_name.as_deref()) {
            (SexpKind::T, _) | (_, Some("otherwise")) => b.t(),
            (SexpKind::Nil, _) => b.nil(),
            (SexpKind::List(list), _) => {
                let tests: Vec<Sexp> = list
                    .iter()
                    .map(|key| {
                        all_keys.push(key.clone());
                        let quoted = b.quote(key);
                        b.call("eql", [value.clone(), quoted])
                    })
                    .collect();
                b.call("or", tests)
            }
            _ => {
                all_keys.push(keys.clone());
                let quoted = b.quote(keys);
                b.call("eql", [value.clone(), quoted])
            }
        };
        let mut arm = vec![test];
        arm.extend(body.iter().cloned());
        if body.is_empty() {
            arm.push(b.nil());
        }
        arms.push(b.list(arm));
    }
    if name == "cl-ecase" {
        let keys = b.list(all_keys);
        let fail = failed(b, "cl-ecase failed: %s, %s", &value, &keys);
        let t = b.t();
        arms.push(b.list(vec![t, fail]));
    }
    let cond = b.call("cond", arms);
    let binding = b.binding(value, subject.clone());
    Some(Ok(b.let_form(false, vec![binding], vec![cond])))
}

fn failed(b: &mut Builder<'_>, message: &str, value: &Sexp, keys: &Sexp) -> Sexp {
    let message = Sexp::new(SexpKind::Str(message.into()), b.span);
    let keys = b.quote(keys);
    b.call("error", [message, value.clone(), keys])
}

fn typecase(
    b: &mut Builder<'_>,
    name: &str,
    subject: &Sexp,
    clauses: &[Sexp],
) -> Option<Result<Sexp, Diagnostic>> {
    let value = b.hidden("v");
    let mut arms = Vec::new();
    let mut all_types = Vec::new();
    for clause in clauses {
        let (type_name, body) = clause.as_list()?.split_first()?;
        let shown = type_name
            .as_symbol()
            .map(|s| name_of(b.interner, s).to_owned());
        let test = match (&type_name.kind, shown.as_deref()) {
            (SexpKind::T, _) | (_, Some("otherwise")) => b.t(),
            _ => {
                all_types.push(type_name.clone());
                let predicate = match crate::pcase::type_predicate(b.interner, type_name) {
                    Ok(predicate) => predicate,
                    Err(error) => return Some(Err(error)),
                };
                b.call(predicate, [value.clone()])
            }
        };
        let mut arm = vec![test];
        arm.extend(body.iter().cloned());
        if body.is_empty() {
            arm.push(b.nil());
        }
        arms.push(b.list(arm));
    }
    if name == "cl-etypecase" {
        let types = b.list(all_types);
        let fail = failed(b, "cl-etypecase failed: %s, %s", &value, &types);
        let t = b.t();
        arms.push(b.list(vec![t, fail]));
    }
    let cond = b.call("cond", arms);
    let binding = b.binding(value, subject.clone());
    Some(Ok(b.let_form(false, vec![binding], vec![cond])))
}

/// `(let-alist ALIST BODY...)`: every `.key` / `.a.b` symbol of BODY (outside `quote`)
/// bound to `(cdr (assq 'key ALIST))`, nested for dotted paths.
fn let_alist(b: &mut Builder<'_>, alist: &Sexp, body: &[Sexp]) -> Result<Sexp, Diagnostic> {
    let mut dotted: Vec<Symbol> = Vec::new();
    let mut pending: Vec<&Sexp> = body.iter().collect();
    while let Some(form) = pending.pop() {
        match &form.kind {
            SexpKind::Sym(s) => {
                let text = name_of(b.interner, *s);
                if text.len() > 1 && text.starts_with('.') && !dotted.contains(s) {
                    dotted.push(*s);
                }
            }
            SexpKind::List(items) => {
                let quoted = items
                    .first()
                    .and_then(Sexp::as_symbol)
                    .is_some_and(|s| name_of(b.interner, s) == "quote");
                if !quoted {
                    pending.extend(items);
                }
            }
            SexpKind::Vector(items) => pending.extend(items),
            _ => {}
        }
    }
    let whole = b.hidden("alist");
    let mut bindings = vec![b.binding(whole.clone(), alist.clone())];
    for symbol in dotted {
        let text = name_of(b.interner, symbol).to_owned();
        let mut access = whole.clone();
        for key in text[1..].split('.') {
            let key = b.sym(key);
            let key = b.quote(&key);
            let found = b.call("assq", [key, access]);
            access = b.call("cdr", [found]);
        }
        let variable = Sexp::new(SexpKind::Sym(symbol), b.span);
        bindings.push(b.binding(variable, access));
    }
    Ok(b.let_form(true, bindings, body.to_vec()))
}

/// `(cl-destructuring-bind ARGLIST EXPR BODY...)`: positional, `&optional` (with
/// defaults), `&rest`/`&body` and `&key` (with defaults) variables, nested lists for
/// positional ones; no arity check.
fn destructuring_bind(
    b: &mut Builder<'_>,
    params: &Sexp,
    value: &Sexp,
    body: &[Sexp],
) -> Option<Sexp> {
    let whole = b.hidden("args");
    let mut bindings = vec![b.binding(whole.clone(), value.clone())];
    destructure_params(b, params, &whole, &mut bindings, 0)?;
    Some(b.let_form(true, bindings, body.to_vec()))
}

fn destructure_params(
    b: &mut Builder<'_>,
    params: &Sexp,
    source: &Sexp,
    bindings: &mut Vec<Sexp>,
    depth: u32,
) -> Option<()> {
    if depth > 64 {
        return None;
    }
    let (items, tail): (&[Sexp], Option<&Sexp>) = match &params.kind {
        SexpKind::Nil => return Some(()),
        SexpKind::List(items) => (items, None),
        SexpKind::Dotted(items, tail) => (items, Some(&**tail)),
        _ => return None,
    };
    let mut mode = "";
    let mut cell = source.clone();
    let mut rest_seen: Option<Sexp> = None;
    let mut index = 0usize;
    let mut items = items.iter();
    while let Some(item) = items.next() {
        if let Some(marker) = item
            .as_symbol()
            .map(|s| name_of(b.interner, s))
            .filter(|n| n.starts_with('&'))
        {
            match marker {
                "&optional" | "&key" => mode = if marker == "&key" { "key" } else { "opt" },
                "&rest" | "&body" => {
                    let variable = items.next()?;
                    bindings.push(b.binding(variable.clone(), cell.clone()));
                    rest_seen = Some(cell.clone());
                }
                "&allow-other-keys" => {}
                _ => return None,
            }
            continue;
        }
        let (variable, default) = match item.as_list() {
            Some([variable, default, ..]) if !mode.is_empty() => {
                (variable.clone(), Some(default.clone()))
            }
            Some([variable]) if !mode.is_empty() => (variable.clone(), None),
            _ => (item.clone(), None),
        };
        if mode == "key" {
            let plist = rest_seen.clone().unwrap_or_else(|| cell.clone());
            let bare = variable
                .as_symbol()
                .map(|s| name_of(b.interner, s).to_owned())?;
            let key = b.sym(&format!(":{bare}"));
            let member = b.call("plist-member", [plist, key.clone()]);
            let after = b.call("cdr", [member.clone()]);
            let found = b.call("car", [after]);
            let access = match default {
                Some(default) => b.call("if", [member, found, default]),
                None => found,
            };
            bindings.push(b.binding(variable, access));
            continue;
        }
        let element = b.call("car-safe", [cell.clone()]);
        let access = match default {
            Some(default) => {
                let present = b.call("consp", [cell.clone()]);
                b.call("if", [present, element, default])
            }
            None => element,
        };
        if is_variable(&variable) {
            bindings.push(b.binding(variable, access));
        } else {
            let hidden = b.hidden("part");
            bindings.push(b.binding(hidden.clone(), access));
            destructure_params(b, &variable, &hidden, bindings, depth + 1)?;
        }
        cell = b.call("cdr-safe", [cell]);
        index += 1;
    }
    let _ = index;
    if let Some(tail) = tail {
        bindings.push(b.binding(tail.clone(), cell));
    }
    Some(())
}
