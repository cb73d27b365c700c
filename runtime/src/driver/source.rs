//! What a [`crate::Runner`] runs ([`Source`]): the model's text, a compiled [`Script`], the
//! raw ToolCall argument object, or a program the host compiled itself.
//!
//! Invariant: a source is only borrowed while the run starts — the run copies what it
//! keeps (the script text for the journal, the shared program) — so the run's future
//! borrows nothing but its runner.

use ptc_core::script::Script;
use ptc_vm::Program;
use std::sync::Arc;

/// The one thing [`crate::Runner::run`] takes besides its options.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub enum Source<'a> {
    /// Script text, compiled for this run against the runner's tools (the run's tool
    /// filter applied) with the keys of [`crate::RunOptions::inputs`] declared as inputs.
    /// Compile diagnostics settle as `script-error` with every message; nothing runs.
    Text(&'a str),
    /// A script compiled once ([`crate::Runner::compile`]). One compiled for other tools
    /// than the run's settles at once with kind `roster`; inputs that do not fit the
    /// declared ones, with kind `input`.
    Script(&'a Script),
    /// The model's raw ToolCall argument object, which must be exactly
    /// `{"expression": "..."}`; any other shape settles as `script-error` (kind
    /// `arguments`) saying what was expected.
    ToolCall(&'a serde_json::Value),
    /// A verified program the host compiled itself against this runner's roster (a
    /// gateway's program cache, a hand-assembled program in a test): `direct` names the
    /// tool when the script is provably one direct call, `text` is what the journal
    /// records. The host vouches for the roster; prefer [`Source::Script`], which checks it.
    Program {
        /// The program.
        program: &'a Arc<Program>,
        /// The tool of a provably direct call.
        direct: Option<&'a str>,
        /// The script text, for the journal.
        text: &'a str,
    },
}

impl<'a> From<&'a str> for Source<'a> {
    fn from(text: &'a str) -> Self {
        Source::Text(text)
    }
}

impl<'a> From<&'a String> for Source<'a> {
    fn from(text: &'a String) -> Self {
        Source::Text(text)
    }
}

impl<'a> From<&'a Script> for Source<'a> {
    fn from(script: &'a Script) -> Self {
        Source::Script(script)
    }
}

impl<'a> From<&'a serde_json::Value> for Source<'a> {
    fn from(arguments: &'a serde_json::Value) -> Self {
        Source::ToolCall(arguments)
    }
}
