//! The ptc front end: model-authored text becomes a checked, bounded program before
//! anything runs.
//!
//! Pipeline: read (logos lexer, depth pre-scan, chumsky parser) → collect top-level
//! definitions → preflight → expand transformers and macros → lower to `ptc_vm` bytecode.

#![forbid(unsafe_code)]

pub mod ast;
mod compile;
pub mod definitions;
pub mod diagnostic;
pub mod direct;
pub mod expand;
pub mod inputs;
pub mod lambda_list;
pub mod lexer;
pub mod lower;
mod macros;
pub mod parser;
pub mod preflight;
pub mod preflight_args;
pub mod reader;
pub mod render;
pub mod roster;
pub mod sexp_print;
pub mod sugar;
pub mod suggest;
pub mod tables;
pub mod token;
pub mod transform;

pub use compile::{
    Compiled, Deadline, NOT_UTF8_MESSAGE, check, compile, compile_with_inputs, decode_script,
};
pub use diagnostic::{Diagnostic, Diagnostics};
pub use reader::{read, read_script};
pub use roster::{Allowed, ArgContract, ArgSpec, JsonType, Roster, RosterTool};
