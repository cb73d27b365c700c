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
    /// A recorded run continued from its journal (`ptc_core::resume`), in this process or
    /// another with the same tools and budgets: journaled calls are answered from the
    /// journal, `decisions` (by pending call id) settle the calls a person was asked
    /// about, and the rest runs live. The run keeps the journal's id; the options' id is
    /// not used. A journal that cannot be used settles with kind `resume`; a run that makes
    /// another call than its journal holds, `replay-diverged`.
    Resume {
        /// The journal of the paused (or interrupted) run.
        journal: &'a ptc_core::RunJournal,
        /// A decision per pending call id.
        decisions: &'a [(String, ptc_core::Approval)],
    },
    /// A recorded run re-run offline from its journal (`ptc replay`): no tool is called;
    /// a call the journal does not answer settles `replay-diverged`.
    Replay(&'a ptc_core::RunJournal),
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
