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
#![cfg_attr(
    not(test),
    deny(
        clippy::indexing_slicing,
        clippy::panic,
        clippy::unwrap_used,
        clippy::expect_used
    )
)]
#![deny(missing_docs)]

pub mod disasm;
pub mod display_width;
pub mod equal;
pub mod error;
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
#[allow(
    clippy::expect_used,
    reason = "temporary on the speed branch: symbol.rs is the hostile branch's to make comply"
)]
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
