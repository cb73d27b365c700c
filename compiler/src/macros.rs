//! Running `defmacro` bodies at compile time, in the same closed, budgeted machine.
//!
//! A macro call is expanded once per call site before the script runs: the macro's body
//! (itself expanded first) is lowered together with every definition already expanded into
//! a scratch program whose body calls the macro with the argument forms as quoted data;
//! the machine runs it; the resulting value becomes code again. Consequences recorded in
//! `spec/reference/definitions.md`: expansion errors surface before anything runs, a macro
//! body cannot call a tool, and a macro body can call only the functions defined before
//! the first use of the macro.
//!
//! Invariants:
//! - All macro runs of one compilation share one fuel budget (`Limits::steps`).
//! - A macro whose body uses itself (directly or through other macros) is an `expansion`
//!   error, not a hang.
//! - Symbols made while a macro runs (`gensym`) become uninterned symbols of the script's
//!   table, one per distinct run-time symbol.

use crate::ast::{Sexp, SexpKind};
use crate::deadline::Deadline;
use crate::definitions::{Definition, DefinitionKind};
use crate::diagnostic::Diagnostic;
use crate::expand::{Expansion, MacroExpander, expanded_depth_limit};
use crate::lambda_list;
use crate::lower::{self, FunctionDef, LowerInput};
use crate::roster::RosterTool;
use ptc_vm::symbol::well_known;
use ptc_vm::{ErrorKind, Interner, Limits, Machine, Span, Step, Symbol, Value};
use rustc_hash::{FxHashMap, FxHashSet};
use std::sync::Arc;

/// The compile-time macro runner of one compilation.
#[derive(Debug)]
pub(crate) struct VmMacros<'a> {
    definitions: &'a [Definition],
    /// Expanded bodies of the definitions prepared so far, by name.
    expanded: FxHashMap<Symbol, Vec<Sexp>>,
    /// Definitions in the order they finished expanding.
    order: Vec<Symbol>,
    in_progress: FxHashSet<Symbol>,
    limits: Limits,
    /// The tools the script may call (their names are the macro programs' roster).
    tools: &'a [RosterTool],
    fuel_left: u64,
    /// The compilation's `seconds` budget: each macro run's clock is the time left.
    deadline: Option<Deadline>,
}

impl<'a> VmMacros<'a> {
    pub(crate) fn new(
        definitions: &'a [Definition],
        limits: &Limits,
        tools: &'a [RosterTool],
    ) -> Self {
        VmMacros {
            definitions,
            expanded: FxHashMap::default(),
            order: Vec::new(),
            in_progress: FxHashSet::default(),
            limits: *limits,
            tools,
            fuel_left: limits.steps,
            deadline: None,
        }
    }

    /// Runs every later macro body under `deadline` (checked between its slices).
    pub(crate) fn set_deadline(&mut self, deadline: Deadline) {
        self.deadline = Some(deadline);
    }

    fn definition(&self, name: Symbol) -> Option<&'a Definition> {
        self.definitions.iter().find(|d| d.name == name)
    }

    /// Expands the body of definition `name` unless already done.
    pub(crate) fn prepare(
        &mut self,
        name: Symbol,
        interner: &mut Interner,
    ) -> Result<(), Diagnostic> {
        if self.expanded.contains_key(&name) {
            return Ok(());
        }
        let Some(definition) = self.definition(name) else {
            return Ok(());
        };
        if !self.in_progress.insert(name) {
            return Err(Diagnostic::new(
                "E0240",
                ErrorKind::Expansion,
                format!(
                    "Macro {} is used while its own definition is being expanded",
                    interner.name(name).unwrap_or("?")
                ),
                definition.span,
            ));
        }
        let limits = self.limits;
        let body = definition.body.clone();
        let expanded = Expansion::new(&limits, interner).expand_forms(body, self, interner);
        self.in_progress.remove(&name);
        self.expanded.insert(name, expanded?);
        self.order.push(name);
        Ok(())
    }

    /// The expanded body of `name`, once prepared.
    pub(crate) fn body(&self, name: Symbol) -> Option<&Vec<Sexp>> {
        self.expanded.get(&name)
    }

    fn run(
        &mut self,
        name: Symbol,
        args: &[Sexp],
        span: Span,
        interner: &mut Interner,
    ) -> Result<Sexp, Diagnostic> {
        let mut call = vec![Sexp::new(SexpKind::Sym(name), span)];
        for arg in args {
            let quote = Sexp::new(SexpKind::Sym(well_known::QUOTE), arg.span);
            call.push(Sexp::new(
                SexpKind::List(vec![quote, arg.clone()]),
                arg.span,
            ));
        }
        let body = [Sexp::new(SexpKind::List(call), span)];
        let functions: Vec<FunctionDef<'_>> = self
            .order
            .iter()
            .filter_map(|n| {
                let definition = self.definition(*n)?;
                Some(FunctionDef {
                    name: definition.name,
                    params: definition.params.clone(),
                    body: self.expanded.get(n)?,
                    span: definition.span,
                })
            })
            .collect();
        let base_len = interner.len();
        let input = LowerInput {
            interner: interner.clone(),
            functions,
            macros: Vec::new(),
            body: &body,
            span,
            tools: self.tools,
            inputs: Vec::new(),
        };
        let program = lower::lower(input, &parse_params)?;
        let limits = Limits {
            steps: self.fuel_left,
            ..self.limits
        };
        let mut machine = Machine::new(Arc::new(program), limits);
        if let Some(clock) = self.deadline.as_ref().and_then(Deadline::clock) {
            machine.set_clock(clock);
        }
        let outcome = loop {
            match machine.step() {
                // The compilation's deadline, by the host's clock, between slices.
                Step::Pause => match &self.deadline {
                    Some(deadline) if deadline.expired() => {
                        return Err(deadline.diagnostic(span));
                    }
                    _ => {}
                },
                other => break other,
            }
        };
        self.fuel_left = self.fuel_left.saturating_sub(machine.stats().fuel_used);
        let value = match outcome {
            Step::Done(value) => value,
            Step::Error(error) if error.cause() == Some(ptc_vm::Cause::ClosureAtBoundary) => {
                return Err(Diagnostic::new(
                    "E0244",
                    ErrorKind::Script,
                    "Unsupported literal of type closure in script",
                    span,
                ));
            }
            Step::Error(error) => {
                let kind = error.kind();
                return Err(Diagnostic::new(
                    "E0241",
                    kind,
                    error.message(),
                    error.span().unwrap_or(span),
                ));
            }
            Step::Tool(request) => {
                return Err(Diagnostic::new(
                    "E0242",
                    ErrorKind::Script,
                    format!("A macro body cannot call a tool ({})", request.tool),
                    request.span,
                ));
            }
            Step::Batch(requests) => {
                let tool = requests
                    .first()
                    .map_or_else(String::new, |r| r.tool.to_string());
                return Err(Diagnostic::new(
                    "E0242",
                    ErrorKind::Script,
                    format!("A macro body cannot call a tool ({tool})"),
                    span,
                ));
            }
            Step::Pause => {
                return Err(Diagnostic::new(
                    "E0900",
                    ErrorKind::Script,
                    "Internal compiler error: macro run paused",
                    span,
                ));
            }
        };
        let mut converter = Converter {
            base_len,
            machine: &machine,
            fresh: FxHashMap::default(),
            span,
            depth_limit: expanded_depth_limit(&self.limits),
        };
        converter.convert(&value, 0, interner)
    }
}

impl MacroExpander for VmMacros<'_> {
    fn is_macro(&self, name: Symbol) -> bool {
        self.definition(name)
            .is_some_and(|d| d.kind == DefinitionKind::Macro)
    }

    fn expand(
        &mut self,
        name: Symbol,
        args: &[Sexp],
        span: Span,
        interner: &mut Interner,
    ) -> Result<Sexp, Diagnostic> {
        self.prepare(name, interner)?;
        self.run(name, args, span, interner)
    }
}

/// Parses a lambda list for lowering, as the dialect's message on failure.
pub(crate) fn parse_params(
    form: &Sexp,
    interner: &Interner,
) -> Result<lambda_list::LambdaList, String> {
    lambda_list::parse(form, interner).map_err(|d| d.message)
}

/// Turns a macro's result value back into code.
struct Converter<'m> {
    base_len: usize,
    machine: &'m Machine,
    fresh: FxHashMap<u32, Symbol>,
    span: Span,
    depth_limit: u64,
}

impl Converter<'_> {
    fn convert(
        &mut self,
        value: &Value,
        depth: u64,
        interner: &mut Interner,
    ) -> Result<Sexp, Diagnostic> {
        let span = self.span;
        if depth > self.depth_limit {
            return Err(Diagnostic::new(
                "E0243",
                ErrorKind::Input,
                format!(
                    "Script nesting exceeds the depth limit of {}",
                    self.depth_limit
                ),
                span,
            ));
        }
        let kind = match value {
            Value::Nil => SexpKind::Nil,
            Value::T => SexpKind::T,
            Value::Int(n) => SexpKind::Int(*n),
            Value::Float(f) => SexpKind::Float(*f),
            Value::Big(n) => SexpKind::Big(Arc::clone(n)),
            Value::Str(s) => SexpKind::Str(Arc::from(s.as_str())),
            Value::Sym(symbol) => SexpKind::Sym(self.symbol(*symbol, interner)),
            Value::Closure(_) => {
                return Err(Diagnostic::new(
                    "E0244",
                    ErrorKind::Script,
                    "Unsupported literal of type closure in script",
                    span,
                ));
            }
            Value::Hash(_) => {
                return Err(Diagnostic::new(
                    "E0244",
                    ErrorKind::Script,
                    "Unsupported literal of type hash-table in script",
                    span,
                ));
            }
            Value::Vector(vector) => {
                let mut items = Vec::with_capacity(vector.items().len());
                for item in vector.items() {
                    items.push(self.convert(item, depth + 1, interner)?);
                }
                SexpKind::Vector(items)
            }
            Value::Cons(_) => {
                let mut items = Vec::new();
                let mut iter = value.iter();
                for item in iter.by_ref() {
                    items.push(self.convert(item, depth + 1, interner)?);
                }
                let rest = iter.rest().clone();
                if rest.is_nil() {
                    SexpKind::List(items)
                } else if matches!(rest, Value::Closure(_)) {
                    return Err(Diagnostic::new(
                        "E0245",
                        ErrorKind::Script,
                        "Improper list in script",
                        span,
                    ));
                } else {
                    let tail = self.convert(&rest, depth + 1, interner)?;
                    SexpKind::Dotted(items, Box::new(tail))
                }
            }
        };
        Ok(Sexp::new(kind, span))
    }

    fn symbol(&mut self, symbol: Symbol, interner: &mut Interner) -> Symbol {
        if symbol.as_usize() < self.base_len {
            return symbol;
        }
        if let Some(mapped) = self.fresh.get(&symbol.id()) {
            return *mapped;
        }
        let name = self.machine.symbols().name(symbol).to_owned();
        let mapped = interner.gensym(&name);
        self.fresh.insert(symbol.id(), mapped);
        mapped
    }
}
