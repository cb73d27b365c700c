//! The closed machine of ptc.
//!
//! This crate owns everything that runs a compiled script: the value model and its size
//! accounting ([`value`]), the per-program symbol table ([`symbol`]), every budget
//! ([`limits`]), the typed failure ([`error`]), the closed table of pure primitives
//! ([`prims`]), the instruction set and program format, the load-time verifier, and the
//! register machine that executes a program and suspends on every tool call.
//!
//! The machine never calls host code: the only way out of it is a suspension that names a
//! tool and carries its arguments as data.

#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![cfg_attr(
    not(test),
    deny(
        clippy::indexing_slicing,
        clippy::panic,
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::string_slice
    )
)]

pub mod disasm;
pub mod display_width;
pub mod equal;
pub mod error;
pub mod heap;
pub mod isa;
pub mod json;
pub mod limits;
mod machine;
pub mod number;
pub mod prims;
pub mod print;
pub mod program;
pub mod regexp;
pub mod span;
mod step;
pub mod symbol;
pub mod value;
mod verify;

pub use error::{Error, ErrorKind, Result};
pub use limits::Limits;
pub use machine::Machine;
pub use program::{Program, ProgramParts};
pub use span::Span;
pub use step::{Stats, Step, ToolRequest};
pub use symbol::{Interner, Symbol, Symbols};
pub use value::Value;
