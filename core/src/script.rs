//! Compile once, run many: a [`Script`] is a compiled program with what it was compiled
//! against, run as often as wanted, on any thread.
//!
//! A script may declare *inputs*: read-only variables of the script body whose values each
//! run gives as JSON (a driver's run options), converted by the JSON mapping
//! (`spec/reference/values-json.md`) and each checked against the run's value budget. A
//! script that assigns an input does not compile (E0904); inputs are not visible inside
//! `defun` bodies (they see only their parameters).
//!
//! Invariants:
//! - A `Script` is immutable, `Send + Sync`, and cheap to clone (one `Arc`).
//! - It remembers the roster it was compiled against (every tool name, standalone flag and
//!   argument contract, after the compile's tool filter). Running it where the run's tools
//!   differ settles at once with kind `roster` — never a call of the wrong tool.
//! - The inputs a run gives must be exactly declared names; a declared input the run does
//!   not give is nil; anything else settles at once with kind `input`.
//!
//! `ptc_runtime::Runner::compile` shows a whole host compiling once and running with
//! inputs; a sans-IO host starts the script with [`crate::Envelope::from_script`].

use crate::convert;
use ptc_compiler::Compiled;
use ptc_vm::{Machine, Program};
use serde_json::Value as Json;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::Arc;

/// A compiled script; see the module docs.
#[derive(Debug, Clone)]
pub struct Script {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    source: String,
    compiled: Compiled,
    roster: u64,
}

const fn assert_shareable<T: Send + Sync + Clone>() {}
const _: () = assert_shareable::<Script>();

impl Script {
    /// Compiles `source` once against `catalog`'s tools (those `tools` allows, all without
    /// a filter) under `limits`, with `inputs` declared as read-only variables: the one
    /// compile entry point (`ptc_runtime::Runner::compile` calls it with the runner's
    /// catalog and budgets). `clock`, when the host has one, stops compilation at
    /// `seconds`; without one it is bounded by its budgets of work alone.
    ///
    /// # Errors
    /// Every diagnostic, with the source, when the script is rejected; a `setq` of an
    /// input is E0904.
    pub fn compile(
        catalog: &crate::Catalog,
        source: &str,
        inputs: &[&str],
        tools: Option<&crate::ToolFilter>,
        limits: &ptc_vm::Limits,
        clock: Option<std::sync::Arc<dyn ptc_vm::Clock>>,
    ) -> Result<Script, ptc_compiler::Diagnostics> {
        let roster = catalog.roster_cow(tools);
        match ptc_compiler::compile_with_clock(source, &roster, limits, inputs, clock) {
            Ok(compiled) => Ok(Script::new(
                source,
                compiled,
                catalog.fingerprint_for(tools),
            )),
            Err(diagnostics) => Err(ptc_compiler::Diagnostics::new(source, diagnostics)),
        }
    }

    /// A script from its `source`, its compiled form and the fingerprint of the roster it
    /// was compiled against (a driver's constructor; hosts compile with `Runner::compile`).
    #[must_use]
    pub fn new(source: &str, compiled: Compiled, roster: u64) -> Script {
        Script {
            inner: Arc::new(Inner {
                source: source.to_owned(),
                compiled,
                roster,
            }),
        }
    }

    /// The source text.
    #[must_use]
    pub fn source(&self) -> &str {
        &self.inner.source
    }

    /// The declared inputs, in order.
    #[must_use]
    pub fn inputs(&self) -> &[String] {
        &self.inner.compiled.inputs
    }

    /// The tool, when the script is provably one direct call.
    #[must_use]
    pub fn direct(&self) -> Option<&str> {
        self.inner.compiled.direct.as_deref()
    }

    /// The verified program.
    #[must_use]
    pub fn program(&self) -> &Arc<Program> {
        &self.inner.compiled.program
    }

    /// The fingerprint of the roster the script was compiled against
    /// ([`roster_fingerprint`]).
    #[must_use]
    pub fn roster(&self) -> u64 {
        self.inner.roster
    }

    /// The compiled form.
    #[must_use]
    pub fn compiled(&self) -> &Compiled {
        &self.inner.compiled
    }
}

/// A fingerprint of a roster: every tool with its flags and argument contract, in order.
#[must_use]
pub fn roster_fingerprint(roster: &ptc_compiler::Roster) -> u64 {
    let mut hasher = DefaultHasher::new();
    // The Debug form lists every field, so a new field is covered automatically.
    format!("{roster:?}").hash(&mut hasher);
    hasher.finish()
}

/// Binds `values` to the machine's declared inputs `names`; a message when they do not fit.
pub fn bind(
    machine: Option<&mut Machine>,
    names: &[String],
    values: &serde_json::Map<String, Json>,
) -> Option<String> {
    // An envelope refused before running keeps its own outcome.
    let machine = machine?;
    if let Some(name) = values.keys().find(|key| !names.contains(key)) {
        let declared = if names.is_empty() {
            "none".to_owned()
        } else {
            names.join(", ")
        };
        return Some(format!(
            "Input `{name}' is not declared by the script (declared: {declared})"
        ));
    }
    let limits = *machine.limits();
    for (index, name) in names.iter().enumerate() {
        let Some(json) = values.get(name) else {
            continue;
        };
        match convert::from_json(json, machine.symbols_mut(), &limits) {
            Ok(value) => {
                if !machine.bind_input(index, value) {
                    return Some(format!("Input `{name}' cannot be bound"));
                }
            }
            Err(error) => return Some(format!("Input `{name}': {error}")),
        }
    }
    None
}
