//! Compile once, run many: a [`Script`] is a compiled program with what it was compiled
//! against, run by [`crate::Runner::run_script`] as often as wanted, on any thread.
//!
//! A script may declare *inputs*: read-only variables of the script body whose values each
//! run gives as JSON ([`crate::RunOptions::inputs`]), converted by the JSON mapping
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
//! ```
//! use ptc_runtime::{Registry, RunOptions, Runner, ToolContract, ToolRequestCtx, ToolResult};
//! use serde_json::json;
//! use std::sync::Arc;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let mut registry = Registry::new();
//! let schema = json!({"type": "object", "properties": {"city": {"type": "string"}}});
//! registry.register(
//!     ToolContract::new("Weather", "Gives the weather.", schema),
//!     |request: ToolRequestCtx| async move {
//!         let temp = if request.arguments["city"] == "Rome" { 24 } else { 11 };
//!         ToolResult::json(json!({"temp": temp}))
//!     },
//! )?;
//! let runner = Runner::new(Arc::new(registry));
//! let script = runner.compile_with_inputs(
//!     "(plist-get (Weather :city city) :temp)",
//!     &["city"],
//! )?;
//! let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
//! for (city, temp) in [("Rome", "24"), ("Oslo", "11")] {
//!     let options = RunOptions::new().inputs(&json!({"city": city}))?;
//!     let outcome = rt.block_on(runner.run_script(&script, options)).into_result()?;
//!     assert_eq!(outcome.text, temp);
//! }
//! // Assigning an input is a compile error with a code.
//! let refused = runner.compile_with_inputs("(setq city \"Paris\")", &["city"]).unwrap_err();
//! assert_eq!(refused.diagnostics[0].code, "E0904");
//! # Ok(())
//! # }
//! ```

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
    pub(crate) fn new(source: &str, compiled: Compiled, roster: u64) -> Script {
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

    pub(crate) fn roster(&self) -> u64 {
        self.inner.roster
    }

    pub(crate) fn compiled(&self) -> &Compiled {
        &self.inner.compiled
    }
}

/// A fingerprint of a roster: every tool with its flags and argument contract, in order.
pub(crate) fn roster_fingerprint(roster: &ptc_compiler::Roster) -> u64 {
    let mut hasher = DefaultHasher::new();
    // The Debug form lists every field, so a new field is covered automatically.
    format!("{roster:?}").hash(&mut hasher);
    hasher.finish()
}

/// Binds `values` to the machine's declared inputs `names`; a message when they do not fit.
pub(crate) fn bind(
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
