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
// Without the `internals` feature the entry points only the tests, fuzz targets and benches
// call are unused; every build that enables it (the workspace's clippy run does) lints them.
#![cfg_attr(not(feature = "internals"), allow(dead_code))]

pub mod codes;
mod compile;
mod deadline;
pub mod diagnostic;
pub mod inputs;
mod macros;
pub mod render;
pub mod roster;
pub mod tables;

mod list_pool;
mod scratch;

mod builders;
mod cells;
mod cl_loop;
mod control;
mod pcase;
mod places;
mod rx;
mod seq_forms;

/// The front end's internals — not API, and the only public path to them
/// (`src/internals.rs`): public with the `internals` feature only, for the compiler's own
/// tests, the fuzz targets and the benches. Inside the crate they are `crate::NAME`.
#[cfg(feature = "internals")]
#[doc(hidden)]
pub mod internals;
#[cfg(not(feature = "internals"))]
mod internals;
#[allow(unused_imports)]
pub(crate) use internals::{
    ast, definitions, direct, expand, lambda_list, lexer, lower, parser, preflight, preflight_args,
    reader, sexp_print, sugar, suggest, token, transform,
};

pub use compile::{
    Compiled, NOT_UTF8_MESSAGE, check, compile, compile_with_clock, compile_with_inputs,
    decode_script,
};
pub use deadline::Deadline;
pub use diagnostic::{Diagnostic, Diagnostics};
pub use roster::{Allowed, ArgContract, ArgSpec, JsonType, Roster, RosterTool};
