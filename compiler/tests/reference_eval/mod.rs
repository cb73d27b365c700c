//! A small tree-walking reference evaluator for the pure subset of the dialect (test-only).
//!
//! It reads a script with the real reader and evaluates the [`Sexp`] forms directly:
//! `quote if progn cond and or let let* setq while lambda funcall apply mapcar` and
//! top-level `defun` (fixed, `&optional` and `&rest` parameters). Primitives are called
//! through the same `ptc_vm::prims::PRIMITIVES` functions the VM uses, so a differential
//! test compares only control semantics: binding, closures, evaluation order, function
//! namespaces and error kinds.
//!
//! Invariants: variables live in shared cells (closures capture by reference, as the VM's
//! captured cells do); quoted constants are converted once per source node, so `eq` sees
//! one object per literal as in the VM; host recursion is bounded by [`MAX_DEPTH`] and work
//! by [`MAX_STEPS`] (both surface as kinds `stack` / `step`, which the differential test
//! excludes, because the two evaluators count differently). Anything outside the subset
//! (tools, transformers, macros, closures stored inside data) gives
//! [`RefOutcome::Unsupported`].

#![allow(dead_code)]

use ptc_compiler::internals::ast::{Sexp, SexpKind};
use ptc_compiler::internals::read_script;
use ptc_vm::prims::{PRIMITIVES, PrimCtx};
use ptc_vm::print::{self, Style};
use ptc_vm::{Limits, Symbols, Value};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;

/// Deepest evaluation nesting before the reference gives up with kind `stack`.
pub const MAX_DEPTH: usize = 400;
/// Evaluation steps before the reference gives up with kind `step`.
pub const MAX_STEPS: u64 = 200_000;

/// How a reference evaluation ended.
#[derive(Debug, Clone, PartialEq)]
pub enum RefOutcome {
    /// The `prin1` text of the final value.
    Value(String),
    /// An error of this kind (wire name) with this message.
    Error(String, String),
    /// The script leaves the subset the reference knows.
    Unsupported(String),
}

#[derive(Debug)]
struct Lambda {
    required: Vec<String>,
    optional: Vec<String>,
    rest: Option<String>,
    body: Vec<Sexp>,
    env: Env,
}

#[derive(Debug, Clone)]
enum RVal {
    Data(Value),
    Closure(Rc<Lambda>),
}

type Cell = Rc<RefCell<RVal>>;

#[derive(Debug, Clone, Default)]
struct Env(Option<Rc<Frame>>);

#[derive(Debug)]
struct Frame {
    name: String,
    cell: Cell,
    parent: Env,
}

impl Env {
    fn lookup(&self, name: &str) -> Option<Cell> {
        let mut at = self.0.as_ref();
        while let Some(frame) = at {
            if frame.name == name {
                return Some(Rc::clone(&frame.cell));
            }
            at = frame.parent.0.as_ref();
        }
        None
    }

    fn bind(&self, name: String, value: RVal) -> Env {
        Env(Some(Rc::new(Frame {
            name,
            cell: Rc::new(RefCell::new(value)),
            parent: self.clone(),
        })))
    }
}

enum Stop {
    Error(&'static str, String),
    Unsupported(String),
}

type Eval<T> = Result<T, Stop>;

/// Forms the reference does not implement (transformers, `parallel`, definitions in
/// expression position, unquotes): the comparison skips scripts that reach them.
fn is_unsupported_form(name: &str) -> bool {
    ptc_compiler::tables::is_special_form(name)
        || ptc_compiler::tables::is_transformer(name)
        || ptc_compiler::tables::is_definition_form(name)
        || name == ","
        || name == ",@"
}

fn script_error(message: impl Into<String>) -> Stop {
    Stop::Error("script", message.into())
}

fn unsupported(what: impl Into<String>) -> Stop {
    Stop::Unsupported(what.into())
}

struct Evaluator {
    symbols: Symbols,
    limits: Limits,
    functions: HashMap<String, Rc<Lambda>>,
    quotes: HashMap<*const Sexp, Value>,
    depth: usize,
    steps: u64,
}

/// Reads and evaluates `source` under `limits` (only the value-shaping budgets matter to
/// the primitives: number bits, regexp and value sizes).
pub fn eval_script(source: &str, limits: &Limits) -> RefOutcome {
    let (forms, interner) = match read_script(source, limits) {
        Ok(read) => read,
        Err(diagnostics) => {
            return RefOutcome::Unsupported(format!("read: {:?}", diagnostics.first()));
        }
    };
    let mut evaluator = Evaluator {
        symbols: Symbols::new(Arc::new(interner)),
        limits: *limits,
        functions: HashMap::new(),
        quotes: HashMap::new(),
        depth: 0,
        steps: 0,
    };
    match evaluator.run(&forms) {
        Ok(RVal::Data(value)) => {
            RefOutcome::Value(print::to_string(&value, Style::Prin1, &evaluator.symbols))
        }
        Ok(RVal::Closure(_)) => RefOutcome::Error(
            "value".to_owned(),
            "Guest closures cannot cross a tool or result boundary".to_owned(),
        ),
        Err(Stop::Error(kind, message)) => RefOutcome::Error(kind.to_owned(), message),
        Err(Stop::Unsupported(what)) => RefOutcome::Unsupported(what),
    }
}

impl Evaluator {
    fn name(&self, sexp: &Sexp) -> Option<String> {
        sexp.as_symbol()
            .map(|symbol| self.symbols.name(symbol).to_owned())
    }

    fn run(&mut self, forms: &[Sexp]) -> Eval<RVal> {
        // Definitions first (the compiler collects them before anything runs).
        for form in forms {
            if let Some(items) = form.as_list() {
                let head = items.first().and_then(|h| self.name(h));
                match head.as_deref() {
                    Some("defun") => self.defun(items)?,
                    Some("defmacro") => return Err(unsupported("defmacro")),
                    _ => {}
                }
            }
        }
        let mut last = RVal::Data(Value::Nil);
        for form in forms {
            let is_defun = form
                .as_list()
                .and_then(|i| i.first())
                .and_then(|h| self.name(h))
                == Some("defun".to_owned());
            // Definitions are hoisted out of the body: the value is the last body form's.
            if !is_defun {
                last = self.eval(form, &Env::default())?;
            }
        }
        Ok(last)
    }

    fn defun(&mut self, items: &[Sexp]) -> Eval<()> {
        let name = items
            .get(1)
            .and_then(|n| self.name(n))
            .ok_or_else(|| unsupported("defun name"))?;
        let params = items.get(2).ok_or_else(|| unsupported("defun params"))?;
        let body = items.get(3..).unwrap_or(&[]).to_vec();
        let lambda = self.lambda(params, body, &Env::default())?;
        self.functions.insert(name, lambda);
        Ok(())
    }

    fn lambda(&self, params: &Sexp, body: Vec<Sexp>, env: &Env) -> Eval<Rc<Lambda>> {
        let list: &[Sexp] = match &params.kind {
            SexpKind::Nil => &[],
            SexpKind::List(items) => items,
            _ => return Err(unsupported("lambda list")),
        };
        let (mut required, mut optional, mut rest) = (Vec::new(), Vec::new(), None);
        let mut mode = 0;
        for param in list {
            let name = self.name(param).ok_or_else(|| unsupported("parameter"))?;
            if name.starts_with(':') {
                return Err(unsupported("keyword parameter"));
            }
            match (name.as_str(), mode) {
                ("&optional", 0) => mode = 1,
                ("&rest", 0 | 1) => mode = 2,
                (_, 0) => required.push(name),
                (_, 1) => optional.push(name),
                (_, 2) if rest.is_none() => rest = Some(name),
                _ => return Err(unsupported("lambda list shape")),
            }
        }
        Ok(Rc::new(Lambda {
            required,
            optional,
            rest,
            body,
            env: env.clone(),
        }))
    }

    fn body(&mut self, forms: &[Sexp], env: &Env) -> Eval<RVal> {
        let mut last = RVal::Data(Value::Nil);
        for form in forms {
            last = self.eval(form, env)?;
        }
        Ok(last)
    }

    fn data(&mut self, form: &Sexp, env: &Env) -> Eval<Value> {
        match self.eval(form, env)? {
            RVal::Data(value) => Ok(value),
            RVal::Closure(_) => Err(unsupported("closure used as data")),
        }
    }

    fn truthy(&mut self, form: &Sexp, env: &Env) -> Eval<(bool, RVal)> {
        let value = self.eval(form, env)?;
        let truth = match &value {
            RVal::Data(v) => v.is_true(),
            RVal::Closure(_) => true,
        };
        Ok((truth, value))
    }

    fn eval(&mut self, form: &Sexp, env: &Env) -> Eval<RVal> {
        self.steps += 1;
        if self.steps > MAX_STEPS {
            return Err(Stop::Error("step", "reference step budget".to_owned()));
        }
        if self.depth >= MAX_DEPTH {
            return Err(Stop::Error("stack", "reference depth budget".to_owned()));
        }
        self.depth += 1;
        let result = self.eval_inner(form, env);
        self.depth -= 1;
        result
    }

    fn eval_inner(&mut self, form: &Sexp, env: &Env) -> Eval<RVal> {
        match &form.kind {
            SexpKind::Sym(symbol) => {
                let name = self.symbols.name(*symbol).to_owned();
                if symbol.is_keyword() {
                    return Ok(RVal::Data(Value::Sym(*symbol)));
                }
                match env.lookup(&name) {
                    Some(cell) => Ok(cell.borrow().clone()),
                    None => Err(script_error(format!("Unbound variable: {name}"))),
                }
            }
            SexpKind::List(items) => self.eval_list(form, items, env),
            _ => Ok(RVal::Data(form.to_value())),
        }
    }

    fn eval_list(&mut self, form: &Sexp, items: &[Sexp], env: &Env) -> Eval<RVal> {
        let Some((head, args)) = items.split_first() else {
            return Ok(RVal::Data(Value::Nil));
        };
        let Some(op) = self.name(head) else {
            return Err(unsupported("non-symbol operator"));
        };
        match op.as_str() {
            "quote" => {
                let key: *const Sexp = form;
                if let Some(value) = self.quotes.get(&key) {
                    return Ok(RVal::Data(value.clone()));
                }
                let value = args.first().map_or(Value::Nil, Sexp::to_value);
                self.quotes.insert(key, value.clone());
                Ok(RVal::Data(value))
            }
            "if" => {
                let cond = args.first().ok_or_else(|| unsupported("if shape"))?;
                if self.truthy(cond, env)?.0 {
                    match args.get(1) {
                        Some(then) => self.eval(then, env),
                        None => Ok(RVal::Data(Value::Nil)),
                    }
                } else {
                    self.body(args.get(2..).unwrap_or(&[]), env)
                }
            }
            "progn" => self.body(args, env),
            "cond" => {
                for clause in args {
                    let Some(parts) = clause.as_list() else {
                        return Err(unsupported("cond clause"));
                    };
                    let Some((test, body)) = parts.split_first() else {
                        continue;
                    };
                    let (truth, value) = self.truthy(test, env)?;
                    if truth {
                        return if body.is_empty() {
                            Ok(value)
                        } else {
                            self.body(body, env)
                        };
                    }
                }
                Ok(RVal::Data(Value::Nil))
            }
            "and" => {
                let mut last = RVal::Data(Value::T);
                for arg in args {
                    let (truth, value) = self.truthy(arg, env)?;
                    if !truth {
                        return Ok(value);
                    }
                    last = value;
                }
                Ok(last)
            }
            "or" => {
                for arg in args {
                    let (truth, value) = self.truthy(arg, env)?;
                    if truth {
                        return Ok(value);
                    }
                }
                Ok(RVal::Data(Value::Nil))
            }
            "let" | "let*" => self.eval_let(op == "let*", args, env),
            "setq" => {
                let mut last = RVal::Data(Value::Nil);
                for pair in args.chunks(2) {
                    let [target, value_form] = pair else {
                        return Err(unsupported("odd setq"));
                    };
                    let name = self
                        .name(target)
                        .ok_or_else(|| unsupported("setq target"))?;
                    let value = self.eval(value_form, env)?;
                    let cell = env
                        .lookup(&name)
                        .ok_or_else(|| script_error(format!("'setq': unbound variable {name}")))?;
                    *cell.borrow_mut() = value.clone();
                    last = value;
                }
                Ok(last)
            }
            "while" => {
                let cond = args.first().ok_or_else(|| unsupported("while shape"))?;
                while self.truthy(cond, env)?.0 {
                    self.body(args.get(1..).unwrap_or(&[]), env)?;
                }
                Ok(RVal::Data(Value::Nil))
            }
            "lambda" => {
                let params = args.first().ok_or_else(|| unsupported("lambda shape"))?;
                let body = args.get(1..).unwrap_or(&[]).to_vec();
                Ok(RVal::Closure(self.lambda(params, body, env)?))
            }
            "funcall" => {
                let (function, rest) = args.split_first().ok_or_else(|| unsupported("funcall"))?;
                let function = self.callable(function, env)?;
                let values = self.eval_args(rest, env)?;
                self.apply_value(function, values)
            }
            "apply" => {
                let (function, rest) = args.split_first().ok_or_else(|| unsupported("apply"))?;
                let function = self.callable(function, env)?;
                let mut values = self.eval_args(rest, env)?;
                let last = values.pop().unwrap_or(RVal::Data(Value::Nil));
                let RVal::Data(list) = last else {
                    return Err(script_error("'apply': last argument must be a list"));
                };
                let Some(items) = list.list_to_vec() else {
                    return Err(script_error("'apply': last argument must be a list"));
                };
                values.extend(items.into_iter().map(RVal::Data));
                self.apply_value(function, values)
            }
            "mapcar" => {
                let [function, sequence] = args else {
                    return Err(unsupported("mapcar shape"));
                };
                let function = self.callable(function, env)?;
                let items = match self.eval(sequence, env)? {
                    RVal::Data(value) => value
                        .list_to_vec()
                        .ok_or_else(|| script_error("'mapcar': expects a list"))?,
                    RVal::Closure(_) => return Err(script_error("'mapcar': expects a list")),
                };
                let mut results = Vec::with_capacity(items.len());
                for item in items {
                    match self.apply_value(function.clone(), vec![RVal::Data(item)])? {
                        RVal::Data(value) => results.push(value),
                        RVal::Closure(_) => return Err(unsupported("closure in a list")),
                    }
                }
                Ok(RVal::Data(Value::list(results)))
            }
            "defun" | "defmacro" => Err(unsupported("nested definition")),
            _ => {
                if is_unsupported_form(&op) {
                    return Err(unsupported(format!("form {op}")));
                }
                let values = self.eval_args(args, env)?;
                self.call_named(&op, values)
            }
        }
    }

    fn eval_let(&mut self, sequential: bool, args: &[Sexp], env: &Env) -> Eval<RVal> {
        let (bindings, body) = args.split_first().ok_or_else(|| unsupported("let shape"))?;
        let bindings: &[Sexp] = match &bindings.kind {
            SexpKind::Nil => &[],
            SexpKind::List(items) => items,
            _ => return Err(unsupported("let bindings")),
        };
        let mut inner = env.clone();
        let mut pending = Vec::new();
        for binding in bindings {
            let (name, value) = match &binding.kind {
                SexpKind::Sym(_) => (self.name(binding), RVal::Data(Value::Nil)),
                SexpKind::List(parts) => {
                    let name = parts.first().and_then(|p| self.name(p));
                    let scope = if sequential {
                        inner.clone()
                    } else {
                        env.clone()
                    };
                    let value = match parts.get(1) {
                        Some(form) => self.eval(form, &scope)?,
                        None => RVal::Data(Value::Nil),
                    };
                    (name, value)
                }
                _ => return Err(unsupported("let binding")),
            };
            let name = name.ok_or_else(|| unsupported("let binding name"))?;
            if name.starts_with(':') {
                return Err(unsupported("keyword binding name"));
            }
            if sequential {
                inner = inner.bind(name, value);
            } else {
                pending.push((name, value));
            }
        }
        for (name, value) in pending {
            inner = inner.bind(name, value);
        }
        self.body(body, &inner)
    }

    /// Evaluates the callable of funcall/apply/mapcar and checks it before any argument.
    fn callable(&mut self, form: &Sexp, env: &Env) -> Eval<RVal> {
        let function = self.eval(form, env)?;
        match &function {
            RVal::Closure(_) => Ok(function),
            RVal::Data(Value::Sym(symbol)) if !symbol.is_keyword() => {
                let name = self.symbols.name(*symbol);
                if self.functions.contains_key(name) || PRIMITIVES.iter().any(|p| p.name == name) {
                    Ok(function)
                } else {
                    Err(script_error(format!("Void or forbidden function: {name}")))
                }
            }
            RVal::Data(other) => Err(script_error(format!(
                "Not callable: {}",
                print::to_string(other, Style::Prin1, &self.symbols)
            ))),
        }
    }

    fn eval_args(&mut self, args: &[Sexp], env: &Env) -> Eval<Vec<RVal>> {
        args.iter().map(|arg| self.eval(arg, env)).collect()
    }

    fn apply_value(&mut self, function: RVal, args: Vec<RVal>) -> Eval<RVal> {
        match function {
            RVal::Closure(lambda) => self.call_lambda(&lambda, args),
            RVal::Data(Value::Sym(symbol)) if !symbol.is_keyword() => {
                let name = self.symbols.name(symbol).to_owned();
                self.call_named(&name, args)
            }
            RVal::Data(other) => Err(script_error(format!(
                "Not callable: {}",
                print::to_string(&other, Style::Prin1, &self.symbols)
            ))),
        }
    }

    fn call_named(&mut self, name: &str, args: Vec<RVal>) -> Eval<RVal> {
        if is_unsupported_form(name) {
            return Err(unsupported(format!("form {name}")));
        }
        if let Some(lambda) = self.functions.get(name).cloned() {
            return self.call_lambda(&lambda, args);
        }
        let Some(primitive) = PRIMITIVES.iter().find(|p| p.name == name) else {
            return Err(script_error(format!("Void or forbidden function: {name}")));
        };
        let mut values = Vec::with_capacity(args.len());
        for arg in args {
            match arg {
                RVal::Data(value) => values.push(value),
                RVal::Closure(_) => return Err(unsupported("closure passed to a primitive")),
            }
        }
        if !primitive.accepts(values.len()) {
            return Err(script_error(format!(
                "Wrong number of arguments: {name}, {}",
                values.len()
            )));
        }
        let mut ctx = PrimCtx::new(&self.limits, &mut self.symbols);
        match (primitive.run)(&mut ctx, &values) {
            Ok(value) => Ok(RVal::Data(value)),
            Err(error) => Err(Stop::Error(
                error.kind().as_str(),
                error.message().to_owned(),
            )),
        }
    }

    fn call_lambda(&mut self, lambda: &Lambda, args: Vec<RVal>) -> Eval<RVal> {
        let required = lambda.required.len();
        let most = required + lambda.optional.len();
        if args.len() < required || (lambda.rest.is_none() && args.len() > most) {
            return Err(script_error(format!(
                "Wrong number of arguments: expected {required}, got {}",
                args.len()
            )));
        }
        let mut env = lambda.env.clone();
        let mut args = args.into_iter();
        for name in lambda.required.iter().chain(&lambda.optional) {
            let value = args.next().unwrap_or(RVal::Data(Value::Nil));
            env = env.bind(name.clone(), value);
        }
        if let Some(rest) = &lambda.rest {
            let mut items = Vec::new();
            for arg in args {
                match arg {
                    RVal::Data(value) => items.push(value),
                    RVal::Closure(_) => return Err(unsupported("closure in &rest")),
                }
            }
            env = env.bind(rest.clone(), RVal::Data(Value::list(items)));
        }
        self.body(&lambda.body, &env)
    }
}
