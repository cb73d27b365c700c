//! Lowering: expanded, preflighted forms become a verified [`ptc_vm::Program`].
//!
//! Input is the script after definition collection, preflight and expansion: no
//! transformer or macro call remains in an evaluated position. Each form lowers into a
//! destination register ([`Lowerer::expr`]); special forms are open-coded with jumps;
//! calls of script functions, primitives and tools use contiguous argument blocks; a
//! handful of primitives (`+ - < = eq car cdr cons null not`) use fast-path instructions
//! with the same semantics.
//!
//! Errors the original raises only when a form is *reached* (unbound variables, bad `let`
//! names, unknown operators produced by macros, bad lambda lists, malformed special forms)
//! lower to a `Fail` instruction at that point, so dead code never fails. Errors of the
//! program as a whole (more than 255 arguments in one call, more registers than the
//! window allows) are diagnostics.
//!
//! Variables live in registers unless a `lambda` inside their scope mentions them; those
//! live in heap cells so that closures capture variables, not values. The capture test is
//! conservative (any mention inside any nested lambda), which only costs speed.

mod builder;
mod calls;
mod capture;
mod forms;
mod handlers;
mod operators;
mod parallel;

use crate::ast::{Sexp, SexpKind};
use crate::diagnostic::Diagnostic;
use crate::roster::RosterTool;
use crate::scratch::{self, slots};
use builder::{FunctionBuilder, Location, Patch};
use capture::{Captured, ScopeIndex};
pub(crate) use operators::is_primitive;
use operators::{Operator, Special, builtin_operator};
use ptc_vm::isa::{ConstIdx, FuncIdx, Op, PrimIdx, Reg, ToolIdx};
use ptc_vm::print::{self, Style};
use ptc_vm::program::{Callable, Capture, Function, ProgramParts};
use ptc_vm::symbol::{Interner, Symbol};
use ptc_vm::{ErrorKind, Program, Span, Value};
use std::borrow::Cow;
use std::sync::Arc;

pub use crate::lambda_list::LambdaList as Params;

/// Parses a lambda list form, or gives the dialect's message for a bad one.
pub type ParamParser<'a> = &'a dyn Fn(&Sexp, &Interner) -> Result<Params, String>;

/// One script function to lower.
#[derive(Debug, Clone)]
pub struct FunctionDef<'a> {
    /// Its name.
    pub name: Symbol,
    /// Its parameters.
    pub params: Params,
    /// Its (expanded) body forms.
    pub body: &'a [Sexp],
    /// The span of the definition.
    pub span: Span,
}

/// Everything lowering needs.
#[derive(Debug)]
pub struct LowerInput<'a> {
    /// The script's symbol table; moved into the program.
    pub interner: Interner,
    /// Script functions, in definition order.
    pub functions: Vec<FunctionDef<'a>>,
    /// Names of script macros (not usable as function values).
    pub macros: Vec<Symbol>,
    /// The (expanded) body forms of the script.
    pub body: &'a [Sexp],
    /// The span of the whole script.
    pub span: Span,
    /// Roster tools the script may call, in roster order (only their names are read).
    pub tools: &'a [RosterTool],
    /// Declared inputs ([`crate::inputs`]): the body function's parameters, read-only.
    pub inputs: Vec<Symbol>,
}

type Lowered<T = ()> = Result<T, Diagnostic>;

slots! {
    /// The symbol table's operator meanings ([`Lowerer::operators`]).
    static OPERATORS: Operator;
    /// The functions being emitted ([`Lowerer::stack`]).
    static FUNCTION_STACK: FunctionBuilder;
}

/// Stack that must remain before lowering one more nesting level.
pub(crate) const RED_ZONE: usize = 128 * 1024;
/// Stack added when less than [`RED_ZONE`] remains.
pub(crate) const STACK_GROWTH: usize = 2 * 1024 * 1024;
/// Stack the lowering may use, below its first level, without asking how much remains:
/// asking costs, on a process's main thread, a parse of `/proc/self/maps` (about 50 k
/// instructions and a trip through the kernel, a tenth of a trivial `ptc run`), which a
/// script of ordinary depth never needs (a release build takes about 3 KiB per level, so
/// some twenty levels). Like the passes bounded by the expanded-depth ceiling, this relies
/// on the caller having the few hundred KiB of stack that any thread Rust starts has;
/// beyond it every level checks, growing the stack on the heap when it runs short.
const UNCHECKED_STACK: usize = 64 * 1024;

/// The address of a local of the caller's frame: where its stack is.
#[inline(always)]
fn stack_address() -> usize {
    let marker = 0_u8;
    (&raw const marker).addr()
}

/// Lowers `input` into a verified program, parsing lambda lists with `parse_params`.
///
/// # Errors
/// A diagnostic when the program exceeds a structural limit (255 arguments in one call,
/// the register window) — or, never for a correct compiler, when the verifier refuses it.
pub fn lower(input: LowerInput<'_>, parse_params: ParamParser<'_>) -> Result<Program, Diagnostic> {
    let LowerInput {
        interner,
        functions,
        macros,
        body,
        span,
        tools,
        inputs,
    } = input;
    let scopes = ScopeIndex::new(
        std::iter::once(body).chain(functions.iter().map(|f| f.body)),
        interner.lookup("setq"),
        interner.lookup("parallel"),
    );
    let mut lowerer = Lowerer::new(&interner, &functions, &macros, tools, parse_params, scopes);
    lowerer.functions.push(None);
    for _ in &functions {
        lowerer.functions.push(None);
    }
    lowerer.inputs = inputs.len();
    let main_params = Params {
        required: inputs.into(),
        ..Params::default()
    };
    // The script body emits about one instruction per two nodes (the agent script of
    // issue 19: 40 for 83), so its code vectors are sized from its node count.
    let expected = lowerer.scopes.first_nodes / 2 + 16;
    lowerer.lower_function(0, "main".into(), &main_params, body, span, expected)?;
    lowerer.inputs = 0;
    for (index, def) in functions.iter().enumerate() {
        let name = Cow::Owned(interner.name(def.name).unwrap_or("?").to_owned());
        lowerer.lower_function(index + 1, name, &def.params, def.body, def.span, 0)?;
    }
    // The named symbols' entries become the callables in place (no second vector).
    let mut callables = std::mem::take(&mut lowerer.named);
    callables.retain_mut(|(symbol, callable)| {
        *callable = match lowerer.operator(*symbol) {
            Operator::Function(f) => Callable::Function(f),
            Operator::Macro => Callable::Macro,
            Operator::Primitive(p) => Callable::Primitive(p),
            Operator::Tool(t) => Callable::Tool(t),
            Operator::Special(_) | Operator::Unknown => return false,
        };
        true
    });
    let constants = std::mem::take(&mut lowerer.constants);
    scratch::give(&OPERATORS, std::mem::take(&mut lowerer.operators));
    scratch::give(&FUNCTION_STACK, std::mem::take(&mut lowerer.stack));
    let functions: Vec<Function> = lowerer
        .functions
        .into_iter()
        .map(Option::unwrap_or_default_function)
        .collect();
    let parts = ProgramParts {
        functions,
        constants,
        tools: tools.iter().map(|t| Arc::clone(&t.name)).collect(),
        symbols: interner,
        callables,
    };
    Program::new(parts).map_err(|e| {
        Diagnostic::new(
            "E0900",
            ErrorKind::Script,
            format!("Internal compiler error: {e}"),
            span,
        )
    })
}

trait UnwrapFunction {
    fn unwrap_or_default_function(self) -> Function;
}

impl UnwrapFunction for Option<Function> {
    fn unwrap_or_default_function(self) -> Function {
        self.unwrap_or_else(|| Function {
            name: "missing".into(),
            code: vec![Op::LoadNil { dst: Reg(0) }, Op::Return { src: Reg(0) }],
            spans: vec![Span::default(); 2],
            registers: 1,
            required: 0,
            optional: 0,
            rest: false,
            captures: Vec::new(),
        })
    }
}

struct Lowerer<'a> {
    interner: &'a Interner,
    parse_params: ParamParser<'a>,
    constants: Vec<Value>,
    functions: Vec<Option<Function>>,
    /// What each symbol of the table names, by id (the table's ids are dense, and no
    /// symbol is made while lowering runs), resolved once: [`Operator::Unknown`] for every
    /// symbol that names nothing.
    operators: Vec<Operator>,
    /// The symbols `operators` gives a meaning other than [`Operator::Unknown`], each with
    /// a placeholder that becomes its [`Callable`] once lowering is done.
    named: Vec<(Symbol, Callable)>,
    /// The functions being emitted, innermost last.
    stack: Vec<FunctionBuilder>,
    /// A destination whose value is never read (statement position), if any.
    discarded: Option<Reg>,
    /// Where the stack was at the outermost [`Lowerer::expr`] ([`UNCHECKED_STACK`]), once
    /// known.
    stack_entry: Option<usize>,
    /// While the body function is lowered: how many of its first bindings are declared
    /// inputs (read-only).
    inputs: usize,
    /// Which nodes of the program hold a `lambda` or a `setq`, so capture walks skip the
    /// rest ([`ScopeIndex`]).
    scopes: ScopeIndex,
}

impl<'a> Lowerer<'a> {
    fn new(
        interner: &'a Interner,
        functions: &[FunctionDef<'_>],
        macros: &[Symbol],
        tools: &[RosterTool],
        parse_params: ParamParser<'a>,
        scopes: ScopeIndex,
    ) -> Self {
        // The script's interned names (a few dozen) against one index of every primitive
        // and special form, built once and keyed by the table's own name hash, so no name
        // is hashed again here. Special forms win over every other kind; otherwise what is
        // defined later (tools, then functions, then macros) wins.
        let mut operators = scratch::take(&OPERATORS, interner.len());
        operators.resize(interner.len(), Operator::Unknown);
        let mut named = Vec::with_capacity(32);
        let mut define = |symbol: Symbol, operator: Operator| {
            let Some(entry) = operators.get_mut(symbol.as_usize()) else {
                return;
            };
            if matches!(entry, Operator::Unknown) {
                named.push((symbol, Callable::Macro));
            }
            if matches!(operator, Operator::Special(_)) || !matches!(entry, Operator::Special(_)) {
                *entry = operator;
            }
        };
        for (symbol, name, hash) in interner.iter_interned() {
            if let Some(operator) = builtin_operator(name, hash) {
                define(symbol, operator);
            }
        }
        for (index, tool) in tools.iter().enumerate() {
            if let (Some(symbol), Ok(index)) = (interner.lookup(&tool.name), u16::try_from(index)) {
                define(symbol, Operator::Tool(ToolIdx(index)));
            }
        }
        for (index, def) in functions.iter().enumerate() {
            if let Ok(index) = u16::try_from(index + 1) {
                define(def.name, Operator::Function(FuncIdx(index)));
            }
        }
        for symbol in macros {
            define(*symbol, Operator::Macro);
        }
        Lowerer {
            interner,
            parse_params,
            // Every keyword, string and float literal becomes a constant, and the messages
            // of checks and failures add some (the agent script of issue 19: 20 for 15).
            constants: Vec::with_capacity((scopes.literals + scopes.literals / 2 + 4).min(4096)),
            // The script body, each definition and each lambda (the agent script: one).
            functions: Vec::with_capacity(1 + functions.len() + scopes.lambdas.min(4096)),
            operators,
            named,
            stack: scratch::take(&FUNCTION_STACK, 4),
            discarded: None,
            stack_entry: None,
            inputs: 0,
            scopes,
        }
    }

    /// Every symbol a `lambda` within `forms` mentions ([`ScopeIndex::lambda_symbols`]).
    fn captured(&self, forms: &[Sexp]) -> Captured {
        self.scopes.lambda_symbols(forms)
    }

    fn name(&self, symbol: Symbol) -> &str {
        self.interner.name(symbol).unwrap_or("#<unknown symbol>")
    }

    fn show(&self, form: &Sexp) -> String {
        print::to_string(&form.to_value(), Style::Prin1, self.interner)
    }

    fn current(&mut self) -> Lowered<&mut FunctionBuilder> {
        let span = Span::default();
        self.stack
            .last_mut()
            .ok_or_else(|| internal("no function", span))
    }

    fn emit(&mut self, op: Op) -> Lowered<usize> {
        Ok(self.current()?.emit(op))
    }

    fn constant(&mut self, value: Value) -> Lowered<ConstIdx> {
        let index = u32::try_from(self.constants.len())
            .map_err(|_| internal("constant pool", Span::default()))?;
        self.constants.push(value);
        Ok(ConstIdx(index))
    }

    fn alloc(&mut self) -> Lowered<Reg> {
        let span = self.current()?.span;
        self.current()?.alloc().map_err(|m| limit(m, span))
    }

    fn mark(&mut self) -> Lowered<u32> {
        Ok(self.current()?.mark())
    }

    fn release(&mut self, mark: u32) -> Lowered {
        self.current()?.release(mark);
        Ok(())
    }

    fn patch_here(&mut self, patch: Patch) -> Lowered {
        let span = self.current()?.span;
        self.current()?
            .patch_here(patch)
            .map_err(|m| limit(m, span))
    }

    /// Emits `Fail` with `message`: the form fails with kind `script` when reached.
    fn fail(&mut self, message: impl Into<String>) -> Lowered {
        let msg = self.constant(Value::string(message.into()))?;
        self.emit(Op::Fail { msg })?;
        Ok(())
    }

    /// Lowers one function (the body or a definition) into slot `index`.
    fn lower_function(
        &mut self,
        index: usize,
        name: Cow<'static, str>,
        params: &Params,
        body: &[Sexp],
        span: Span,
        expected: usize,
    ) -> Lowered {
        let function = self.emit_function(name, params, body, span, expected)?;
        let slot = self
            .functions
            .get_mut(index)
            .ok_or_else(|| internal("function slot", span))?;
        *slot = Some(function);
        Ok(())
    }

    /// Emits one function: binds its parameters, lowers its body in tail position and
    /// returns the body's value. Shared by definitions, the script body and lambdas.
    fn emit_function(
        &mut self,
        name: Cow<'static, str>,
        params: &Params,
        body: &[Sexp],
        span: Span,
        expected: usize,
    ) -> Lowered<Function> {
        let mut builder = FunctionBuilder::new(name, span, expected);
        set_arity(&mut builder, params, span)?;
        self.stack.push(builder);
        self.bind_params(params, body)?;
        let result = self.alloc()?;
        self.progn(body, result, true)?;
        self.current()?.emit_return(result);
        let builder = self
            .stack
            .pop()
            .ok_or_else(|| internal("function stack", span))?;
        Ok(builder.finish())
    }

    /// Binds parameters to registers `0..n`, boxing those a nested lambda mentions.
    fn bind_params(&mut self, params: &Params, body: &[Sexp]) -> Lowered {
        if params.required.is_empty() && params.optional.is_empty() && params.rest.is_none() {
            return Ok(());
        }
        let captured = self.captured(body);
        let all = params
            .required
            .iter()
            .chain(&params.optional)
            .chain(params.rest.iter())
            .copied();
        for symbol in all {
            let reg = self.alloc()?;
            let location = if captured.contains(&symbol) {
                self.emit(Op::NewCell { dst: reg, src: reg })?;
                Location::Cell(reg)
            } else {
                Location::Register(reg)
            };
            self.current()?.bind(symbol, location);
        }
        Ok(())
    }

    /// Where `symbol` lives from the current function, capturing it through every
    /// enclosing lambda if it belongs to an outer function.
    fn resolve(&mut self, symbol: Symbol) -> Lowered<Option<Location>> {
        let depth = self.stack.len();
        self.resolve_at(depth.saturating_sub(1), symbol)
    }

    fn resolve_at(&mut self, level: usize, symbol: Symbol) -> Lowered<Option<Location>> {
        let span = Span::default();
        let builder = self
            .stack
            .get(level)
            .ok_or_else(|| internal("scope level", span))?;
        if let Some((_, location)) = builder.lookup(symbol) {
            return Ok(Some(location));
        }
        if let Some(index) = builder.captures.iter().position(|(s, _, _)| *s == symbol) {
            return Ok(Some(Location::Upvalue(
                u16::try_from(index).map_err(|_| internal("captures", span))?,
            )));
        }
        if level == 0 || self.is_definition_boundary(level) {
            return Ok(None);
        }
        let Some(outer) = self.resolve_at(level - 1, symbol)? else {
            return Ok(None);
        };
        let from = match outer {
            Location::Cell(reg) => Capture::Cell(reg),
            Location::Upvalue(index) => Capture::Upvalue(index),
            // A variable a lambda mentions is always boxed; reaching here means the
            // conservative scan missed it, which lowering treats as a compiler bug.
            Location::Register(_) => {
                return Err(internal("captured variable is not in a cell", span));
            }
        };
        let identity = self
            .stack
            .get(level - 1)
            .and_then(|b| b.lookup(symbol))
            .map_or(usize::MAX, |(i, _)| i);
        let builder = self
            .stack
            .get_mut(level)
            .ok_or_else(|| internal("scope level", span))?;
        let index = builder
            .capture(symbol, identity, from)
            .map_err(|m| limit(m, span))?;
        Ok(Some(Location::Upvalue(index)))
    }

    /// Whether `symbol` here names a declared input: the binding it resolves to is one of
    /// the body function's first `inputs` bindings.
    fn is_input(&self, symbol: Symbol) -> bool {
        for level in (0..self.stack.len()).rev() {
            if let Some((index, _)) = self.stack.get(level).and_then(|b| b.lookup(symbol)) {
                return level == 0 && index < self.inputs;
            }
            if self.is_definition_boundary(level) {
                return false;
            }
        }
        false
    }

    /// Definitions see only their parameters: the stack level right above the body's
    /// function that belongs to a definition has no enclosing scope.
    fn is_definition_boundary(&self, level: usize) -> bool {
        self.stack.get(level).is_some_and(|b| b.name != "lambda")
    }

    fn operator(&self, symbol: Symbol) -> Operator {
        self.operators
            .get(symbol.as_usize())
            .copied()
            .unwrap_or(Operator::Unknown)
    }

    /// Lowers `form`, leaving its value in `dst`. In tail position a call of a script
    /// function replaces the current frame.
    ///
    /// Recursion follows the form's nesting (up to the expanded-depth ceiling of 2048), so
    /// each level past the first [`UNCHECKED_STACK`] bytes makes sure enough host stack
    /// remains, growing it on the heap if not.
    fn expr(&mut self, form: &Sexp, dst: Reg, tail: bool) -> Lowered {
        if !matches!(
            form.kind,
            SexpKind::List(_) | SexpKind::Vector(_) | SexpKind::Dotted(..)
        ) {
            // An atom does not recurse (a vector literal's value is built recursively, so
            // it keeps the check): no stack check, and it never passes its destination
            // through.
            let saved = self.current()?.span;
            self.current()?.span = form.span;
            let discarded = self.discarded.take();
            let result = self.expr_inner(form, dst, tail);
            self.discarded = discarded;
            self.current()?.span = saved;
            return result;
        }
        let here = stack_address();
        let entry = *self.stack_entry.get_or_insert(here);
        // `abs_diff`: on a stack segment stacker has grown, far from the entry, every level
        // checks.
        if here.abs_diff(entry) <= UNCHECKED_STACK {
            self.compound_expr(form, dst, tail)
        } else {
            stacker::maybe_grow(RED_ZONE, STACK_GROWTH, || {
                self.compound_expr(form, dst, tail)
            })
        }
    }

    /// [`Lowerer::expr`] of a list, vector or dotted form, on a stack it has checked.
    fn compound_expr(&mut self, form: &Sexp, dst: Reg, tail: bool) -> Lowered {
        let saved = self.current()?.span;
        self.current()?.span = form.span;
        // Only forms that pass their destination straight through keep it discarded.
        let passes_through = form.head_symbol().is_some_and(|s| {
            matches!(
                self.operator(s),
                Operator::Special(
                    Special::Setq | Special::Progn | Special::If | Special::Let | Special::LetStar
                )
            )
        });
        let discarded = if passes_through {
            self.discarded
        } else {
            self.discarded.take()
        };
        let result = self.expr_inner(form, dst, tail);
        self.discarded = discarded;
        self.current()?.span = saved;
        result
    }

    fn expr_inner(&mut self, form: &Sexp, dst: Reg, tail: bool) -> Lowered {
        match &form.kind {
            SexpKind::Nil => {
                self.emit(Op::LoadNil { dst })?;
            }
            SexpKind::T => {
                self.emit(Op::LoadT { dst })?;
            }
            SexpKind::Int(n) => match i32::try_from(*n) {
                Ok(value) => {
                    self.emit(Op::LoadInt { dst, value })?;
                }
                Err(_) => self.load_constant(dst, Value::Int(*n))?,
            },
            SexpKind::Sym(symbol) if symbol.is_keyword() => {
                self.load_constant(dst, Value::Sym(*symbol))?;
            }
            SexpKind::Sym(symbol) => self.variable(*symbol, dst)?,
            SexpKind::Big(_) | SexpKind::Float(_) | SexpKind::Str(_) | SexpKind::Vector(_) => {
                self.load_constant(dst, form.to_value())?;
            }
            SexpKind::List(items) => self.compound(form, items, dst, tail)?,
            SexpKind::Dotted(..) => {
                return Err(Diagnostic::new(
                    crate::codes::IMPROPER_LIST,
                    ErrorKind::Script,
                    "Improper list in script",
                    form.span,
                ));
            }
        }
        Ok(())
    }

    /// The value of a literal form (a self-evaluating atom or a `quote`), which needs no
    /// code to evaluate.
    fn literal(&self, form: &Sexp) -> Option<Value> {
        match &form.kind {
            SexpKind::Nil => Some(Value::Nil),
            SexpKind::T => Some(Value::T),
            SexpKind::Int(n) => Some(Value::Int(*n)),
            SexpKind::Sym(symbol) if symbol.is_keyword() => Some(Value::Sym(*symbol)),
            SexpKind::Big(_) | SexpKind::Float(_) | SexpKind::Str(_) | SexpKind::Vector(_) => {
                Some(form.to_value())
            }
            SexpKind::List(items) => match items.as_slice() {
                [head, quoted]
                    if matches!(head.kind, SexpKind::Sym(s)
                        if !s.is_keyword()
                            && matches!(self.operator(s), Operator::Special(Special::Quote))) =>
                {
                    Some(quoted.to_value())
                }
                _ => None,
            },
            _ => None,
        }
    }

    /// `value` added to the constant pool, when its index fits a fixed-operand call's
    /// 16-bit constant operand.
    fn small_constant(&mut self, value: Value) -> Lowered<Option<u16>> {
        if u16::try_from(self.constants.len()).is_err() {
            return Ok(None);
        }
        let idx = self.constant(value)?;
        Ok(u16::try_from(idx.0).ok())
    }

    fn load_constant(&mut self, dst: Reg, value: Value) -> Lowered {
        let idx = self.constant(value)?;
        self.emit(Op::LoadConst { dst, idx })?;
        Ok(())
    }

    fn variable(&mut self, symbol: Symbol, dst: Reg) -> Lowered {
        match self.resolve(symbol)? {
            Some(Location::Register(reg)) => {
                if reg != dst {
                    self.emit(Op::Move { dst, src: reg })?;
                }
            }
            Some(Location::Cell(cell)) => {
                self.emit(Op::LoadCell { dst, cell })?;
            }
            Some(Location::Upvalue(idx)) => {
                self.emit(Op::LoadUpval { dst, idx })?;
            }
            None => {
                let message = format!("Unbound variable: {}", self.name(symbol));
                self.fail(message)?;
            }
        }
        Ok(())
    }

    /// The register holding `form`'s value: a plain variable's own register (read-only
    /// use), or a fresh one it was lowered into.
    fn operand(&mut self, form: &Sexp) -> Lowered<Reg> {
        if let SexpKind::Sym(symbol) = form.kind
            && !symbol.is_keyword()
            && let Some(Location::Register(reg)) = self.resolve(symbol)?
        {
            return Ok(reg);
        }
        let reg = self.alloc()?;
        self.expr(form, reg, false)?;
        Ok(reg)
    }

    fn progn(&mut self, forms: &[Sexp], dst: Reg, tail: bool) -> Lowered {
        let Some((last, init)) = forms.split_last() else {
            self.emit(Op::LoadNil { dst })?;
            return Ok(());
        };
        for form in init {
            self.effect(form)?;
        }
        self.expr(last, dst, tail)
    }

    /// Lowers `form` for its effect only: its value goes to a scratch register nobody
    /// reads, which lets `setq` skip copying its value there.
    pub(super) fn effect(&mut self, form: &Sexp) -> Lowered {
        let mark = self.mark()?;
        let scratch = self.alloc()?;
        let saved = self.discarded.replace(scratch);
        let result = self.expr(form, scratch, false);
        self.discarded = saved;
        self.release(mark)?;
        result
    }
}

/// Whether primitive `prim` accepts `count` arguments.
fn accepts(prim: PrimIdx, count: usize) -> bool {
    ptc_vm::prims::PRIMITIVES
        .get(prim.as_usize())
        .is_some_and(|p| p.accepts(count))
}

/// Sets a builder's arity from `params`.
fn set_arity(builder: &mut FunctionBuilder, params: &Params, span: Span) -> Lowered {
    let too_many = || {
        Diagnostic::new(
            "E0902",
            ErrorKind::Input,
            "A lambda list has more than 255 parameters",
            span,
        )
    };
    builder.required = u8::try_from(params.required.len()).map_err(|_| too_many())?;
    builder.optional = u8::try_from(params.optional.len()).map_err(|_| too_many())?;
    builder.rest = params.rest.is_some();
    Ok(())
}

/// A literal integer that fits an immediate operand.
fn small_int(form: &Sexp) -> Option<i16> {
    match form.kind {
        SexpKind::Int(n) => i16::try_from(n).ok(),
        _ => None,
    }
}

fn is_atom(form: &Sexp) -> bool {
    !matches!(form.kind, SexpKind::List(_))
}

/// A structural limit of the program, or (never for a correct compiler) a broken
/// invariant of the emitter, which is reported as the compiler's fault.
fn limit(error: builder::EmitError, span: Span) -> Diagnostic {
    match error {
        builder::EmitError::Internal(what) => internal(what, span),
        builder::EmitError::Limit(message) => {
            Diagnostic::new("E0903", ErrorKind::Input, message, span)
        }
    }
}

fn internal(what: &str, span: Span) -> Diagnostic {
    Diagnostic::new(
        "E0900",
        ErrorKind::Script,
        format!("Internal compiler error: {what}"),
        span,
    )
}
