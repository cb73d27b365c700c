//! Compiled programs: immutable, `Send + Sync`, verified at load time, run many times.
//!
//! A [`Program`] holds the function table (index 0 is the script body), the constant pool,
//! the tool roster, the frozen symbol table and the run-time callable table (which names a
//! computed call such as `(funcall 'Read ...)` may reach). It can only be built through
//! [`Program::new`], which runs the verifier: a program that exists is one whose register,
//! jump, constant, function, tool, primitive and capture references are all in bounds, so
//! the machine's only failures are the guest's.

use crate::isa::{FuncIdx, Op, PrimIdx, Reg, ToolIdx};
use crate::span::Span;
use crate::symbol::{Interner, Symbol};
use crate::value::Value;
use crate::verify;
use std::borrow::Cow;
use std::sync::Arc;

/// Where a closure's captured cell comes from when the closure is made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Capture {
    /// A cell register of the function that makes the closure.
    Cell(Reg),
    /// A captured cell of the function that makes the closure.
    Upvalue(u16),
}

/// One compiled function: the script body, a `defun`, a `defmacro` body or a `lambda`.
#[derive(Debug, Clone)]
pub struct Function {
    /// A name for listings and traces (`main`, the definition's name, `lambda`): borrowed
    /// when it is a fixed name, so most functions' names cost no allocation.
    pub name: Cow<'static, str>,
    /// The instructions.
    pub code: Vec<Op>,
    /// The span of each instruction (same length as `code`).
    pub spans: Vec<Span>,
    /// Size of the register window.
    pub registers: u16,
    /// Required parameters (registers `0..required`).
    pub required: u8,
    /// Optional parameters (the next registers).
    pub optional: u8,
    /// Whether a `&rest` parameter follows (the next register).
    pub rest: bool,
    /// Cells captured when a closure of this function is made.
    pub captures: Vec<Capture>,
}

impl Function {
    /// The number of parameter registers.
    #[must_use]
    pub fn param_count(&self) -> usize {
        usize::from(self.required) + usize::from(self.optional) + usize::from(self.rest)
    }
}

/// What a symbol names when it is called through a value (`funcall`, `apply`, `mapcar`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Callable {
    /// A script function.
    Function(FuncIdx),
    /// A script macro: not usable as a function value.
    Macro,
    /// A pure primitive.
    Primitive(PrimIdx),
    /// A roster tool.
    Tool(ToolIdx),
}

/// The parts a compiler hands to [`Program::new`].
#[derive(Debug, Clone, Default)]
pub struct ProgramParts {
    /// Function 0 is the script body.
    pub functions: Vec<Function>,
    /// The constant pool.
    pub constants: Vec<Value>,
    /// Roster tool names, indexed by [`ToolIdx`].
    pub tools: Vec<Arc<str>>,
    /// The program's symbol table.
    pub symbols: Interner,
    /// Names reachable by computed calls.
    pub callables: Vec<(Symbol, Callable)>,
}

/// A verified, immutable program.
#[derive(Debug)]
pub struct Program {
    pub(crate) functions: Vec<Function>,
    pub(crate) constants: Vec<Value>,
    pub(crate) tools: Vec<Arc<str>>,
    pub(crate) symbols: Arc<Interner>,
    /// Indexed by symbol id.
    pub(crate) callables: Vec<Option<Callable>>,
}

/// A program the verifier refused: always a compiler bug, never a guest error.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid program: function {function} at pc {pc}: {problem}")]
pub struct VerifyError {
    /// The function index.
    pub function: usize,
    /// The instruction index.
    pub pc: usize,
    /// What is wrong.
    pub problem: String,
}

impl Program {
    /// Verifies `parts` and freezes them into a program.
    ///
    /// # Errors
    /// [`VerifyError`] when any reference is out of bounds or a function can fall off its
    /// end.
    pub fn new(parts: ProgramParts) -> Result<Program, VerifyError> {
        verify::verify(&parts)?;
        let mut callables = vec![None; parts.symbols.len()];
        for (symbol, callable) in parts.callables {
            if let Some(slot) = callables.get_mut(symbol.as_usize()) {
                *slot = Some(callable);
            }
        }
        Ok(Program {
            functions: parts.functions,
            constants: parts.constants,
            tools: parts.tools,
            symbols: Arc::new(parts.symbols),
            callables,
        })
    }

    /// The functions; index 0 is the script body.
    #[must_use]
    pub fn functions(&self) -> &[Function] {
        &self.functions
    }

    /// The constant pool.
    #[must_use]
    pub fn constants(&self) -> &[Value] {
        &self.constants
    }

    /// The roster tool names.
    #[must_use]
    pub fn tools(&self) -> &[Arc<str>] {
        &self.tools
    }

    /// The frozen symbol table.
    #[must_use]
    pub fn symbols(&self) -> &Arc<Interner> {
        &self.symbols
    }

    /// What `symbol` names for a computed call, if anything.
    #[must_use]
    pub fn callable(&self, symbol: Symbol) -> Option<Callable> {
        self.callables.get(symbol.as_usize()).copied().flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_send_sync<T: Send + Sync>() {}

    #[test]
    fn program_is_send_and_sync() {
        assert_send_sync::<Program>();
    }
}
