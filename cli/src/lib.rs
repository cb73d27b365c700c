//! The library half of the `ptc` and `ptc-mcp` commands: the built-in, root-confined
//! workspace tools (Read, Glob, Grep), public so the fuzz target can drive their path
//! handling directly, and what both binaries share.
//!
//! - [`builtin`]: the tools, their registration and their off-executor worker threads;
//! - [`confine`]: path resolution that never looks outside the root, non-blocking opens of
//!   regular files only, reads bounded by bytes read;
//! - [`grep`]: the built-in Grep (ripgrep's output modes, Claude Code's arguments);
//! - [`walk`]: the directory walk, decided by nothing outside the root;
//! - [`mcp_args`]: the arguments of `ptc mcp`, which the `ptc-mcp` binary serves;
//! - [`serve`]: `ptc serve`, JSON-RPC over JSON lines, public for the `ptc` binary and for
//!   the `serve_frames` fuzz target ([`serve::drive_lines`]);
//! - [`log_line!`] and [`log_text!`]: stderr output that never panics.

#![forbid(unsafe_code)]
#![deny(missing_docs)]

/// `eprintln!` that never panics: a log line that cannot be written (stderr closed) is
/// dropped.
#[macro_export]
macro_rules! log_line {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

/// `eprint!` that never panics (see [`log_line!`]).
#[macro_export]
macro_rules! log_text {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = write!(std::io::stderr(), $($arg)*);
    }};
}

pub mod builtin;
pub mod confine;
pub mod grep;
pub mod mcp_args;
pub mod otel;
pub mod serve;
pub mod walk;
