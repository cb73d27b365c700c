//! The ptc front end: model-authored text becomes a checked, bounded program before
//! anything runs.
//!
//! Pipeline: read (logos lexer, depth pre-scan, recursive-descent parser) → collect top-level
//! definitions → preflight → expand transformers and macros → lower to `ptc_vm` bytecode.
//!
//! The public surface is what a host needs: [`compile`], [`compile_with_inputs`] and
//! [`check`] with their [`Compiled`] result and [`Deadline`]; [`decode_script`]; the
//! [`Diagnostic`]/[`Diagnostics`] errors and their caret [`render`]ing; the tool
//! [`Roster`] with its argument contracts; declared [`inputs`]; and the closed
//! [`tables`] (special forms, transformers, primitives). Hosts normally use all of it
//! through `ptc_runtime`, which re-exports what they need.
//!
//! Everything else — the lexer, parser, reader, syntax tree, definitions, preflight,
//! expansion and lowering — is **not API**: it lives behind the `#[doc(hidden)]` module
//! `internals` for the compiler's own tests, the fuzz targets and the benches, and may
//! change at any time. (The same modules also answer at their old top-level paths,
//! hidden too, so branches written before the move still build; new code names
//! `internals`.)
//!
//! ```
//! use ptc_compiler::{Roster, compile_with_inputs};
//! use ptc_vm::Limits;
//!
//! let roster = Roster::new().tool("Weather");
//! let compiled =
//!     compile_with_inputs("(Weather :city city)", &roster, &Limits::default(), &["city"])
//!         .unwrap();
//! assert_eq!(compiled.direct.as_deref(), Some("Weather"));
//! assert_eq!(&*compiled.inputs, ["city"]);
//! let errors = compile_with_inputs("(setq city 1)", &roster, &Limits::default(), &["city"])
//!     .unwrap_err();
//! assert_eq!(errors[0].code, "E0904");
//! ```

#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod compile;
pub mod diagnostic;
pub mod inputs;
mod macros;
pub mod render;
pub mod roster;
pub mod tables;

#[doc(hidden)]
pub mod ast;
#[doc(hidden)]
pub mod definitions;
#[doc(hidden)]
pub mod direct;
#[doc(hidden)]
pub mod expand;
#[doc(hidden)]
pub mod lambda_list;
#[doc(hidden)]
pub mod lexer;
mod list_pool;
#[doc(hidden)]
pub mod lower;
#[doc(hidden)]
pub mod parser;
#[cfg(test)]
mod parser_chumsky;
#[doc(hidden)]
pub mod preflight;
#[doc(hidden)]
pub mod preflight_args;
#[doc(hidden)]
pub mod reader;
mod scratch;
#[doc(hidden)]
pub mod sexp_print;
#[doc(hidden)]
pub mod sugar;

mod cells;
mod cl_loop;
mod control;
mod pcase;
mod places;
mod rx;
mod seq_forms;
#[doc(hidden)]
pub mod suggest;
#[doc(hidden)]
pub mod token;
#[doc(hidden)]
pub mod transform;

/// The front end's internals — not API: for the compiler's tests, fuzz targets and
/// benches only (see the crate docs).
#[doc(hidden)]
pub mod internals {
    pub use crate::reader::{read, read_script};
    pub use crate::{
        ast, definitions, direct, expand, lambda_list, lexer, lower, parser, preflight,
        preflight_args, reader, sexp_print, sugar, suggest, token, transform,
    };
}

pub use compile::{
    Compiled, Deadline, NOT_UTF8_MESSAGE, check, compile, compile_with_clock, compile_with_inputs,
    decode_script,
};
pub use diagnostic::{Diagnostic, Diagnostics};
#[doc(hidden)]
pub use reader::{read, read_script};
pub use roster::{Allowed, ArgContract, ArgSpec, JsonType, Roster, RosterTool};
