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

// `unsafe` is denied crate-wide and forbidden in every module but one: the register
// window of the dispatch loop (`machine::regs`, audited, its invariant proven by the
// verifier).
#![deny(unsafe_code)]
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

#[forbid(unsafe_code)]
pub mod clock;
#[forbid(unsafe_code)]
pub mod disasm;
pub mod display_width; // forbids `unsafe` itself
#[forbid(unsafe_code)]
pub mod equal;
#[forbid(unsafe_code)]
pub mod error;
#[forbid(unsafe_code)]
pub mod heap;
#[forbid(unsafe_code)]
pub mod isa;
#[forbid(unsafe_code)]
pub mod json;
#[forbid(unsafe_code)]
pub mod limits;
mod machine;
#[forbid(unsafe_code)]
pub mod number;
#[forbid(unsafe_code)]
pub mod prims;
#[forbid(unsafe_code)]
pub mod print;
#[forbid(unsafe_code)]
pub mod program;
#[forbid(unsafe_code)]
pub mod regexp;
#[forbid(unsafe_code)]
pub mod span;
#[forbid(unsafe_code)]
mod step;
#[forbid(unsafe_code)]
pub mod symbol;
#[forbid(unsafe_code)]
pub mod value;
#[forbid(unsafe_code)]
mod verify;

pub use clock::Clock;
pub use error::{Cause, Error, ErrorKind, Result};
pub use limits::Limits;
pub use machine::Machine;
pub use program::{Program, ProgramParts};
pub use span::Span;
pub use step::{Stats, Step, ToolRequest};
pub use symbol::{Interner, Symbol, Symbols};
pub use value::Value;
