//! Per-run options ([`RunOptions`]) and fresh envelope ids ([`fresh_id`]): what a host
//! may set for one run, read by the driver when it starts the run. The fields are private
//! (new options never break a host); the driver reads them within this crate.

use crate::cancel::CancelToken;
use crate::context::{RunData, ToolFilter};
use crate::policy::PermissionPolicy;
use crate::progress::ProgressSink;
use ptc_vm::Limits;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// Per-run options, built with the methods below (`RunOptions::new().id("toolu_1")...`);
/// the fields are private so that new options never break a host.
#[derive(Clone, Default)]
pub struct RunOptions {
    pub(super) id: Option<Arc<str>>,
    /// Made on first ask ([`RunOptions::cancel_token`]): a run nobody can cancel has none.
    pub(super) cancel: std::sync::OnceLock<CancelToken>,
    pub(super) progress: Option<Arc<dyn ProgressSink>>,
    pub(super) inputs: Option<serde_json::Map<String, serde_json::Value>>,
    pub(super) data: RunData,
    pub(super) limits: Option<Limits>,
    pub(super) policy: Option<Arc<dyn PermissionPolicy>>,
    pub(super) tools: Option<ToolFilter>,
}

impl std::fmt::Debug for RunOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunOptions")
            .field("id", &self.id)
            .field("cancel", &self.cancel)
            .field("progress", &self.progress.is_some())
            .field("inputs", &self.inputs)
            .field("data", &self.data)
            .field("limits", &self.limits)
            .field("policy", &self.policy.is_some())
            .field("tools", &self.tools)
            .finish()
    }
}

impl RunOptions {
    /// Default options: a fresh id, a token nobody cancels, no progress, no inputs, no
    /// data, the runner's limits, policy and tools.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// The envelope id (the host's tool-use id); a fresh `ptc-TAG-N` when not set. Kept
    /// as one shared string (`impl Into<Arc<str>>` since 2026-12-03: a `&str` or `String`
    /// as before), which the run's envelope, outcome and calls share.
    #[must_use]
    pub fn id(mut self, id: impl Into<Arc<str>>) -> Self {
        self.id = Some(id.into());
        self
    }

    /// Cancelling `token` interrupts the run (every call's token is a child of it).
    #[must_use]
    pub fn cancel(mut self, token: CancelToken) -> Self {
        self.cancel = std::sync::OnceLock::from(token);
        self
    }

    /// Receives a [`crate::Progress`] snapshot after every change to the nested calls, and
    /// a final one when the run settles (see [`crate::progress`]).
    #[must_use]
    pub fn progress(mut self, sink: Arc<dyn ProgressSink>) -> Self {
        self.progress = Some(sink);
        self
    }

    /// The values of the script's declared inputs ([`crate::script`]): `inputs` serialises
    /// to a JSON object whose keys are input names. With [`Runner::run`] the keys declare
    /// the inputs; with [`Runner::run_script`] they must be names the script declared.
    ///
    /// # Errors
    /// [`InputsError`] when `inputs` does not serialise to a JSON object.
    pub fn inputs<T: serde::Serialize + ?Sized>(mut self, inputs: &T) -> Result<Self, InputsError> {
        match serde_json::to_value(inputs).map_err(|e| InputsError(e.to_string()))? {
            serde_json::Value::Object(map) => {
                self.inputs = Some(map);
                Ok(self)
            }
            other => Err(InputsError(format!(
                "inputs must be a JSON object of name: value, not {other}"
            ))),
        }
    }

    /// Host data every [`ToolRequestCtx`] of the run reads with
    /// [`ToolRequestCtx::data`] (and the policy too).
    #[must_use]
    pub fn data(mut self, data: RunData) -> Self {
        self.data = data;
        self
    }

    /// Budgets for this run: each is the smaller of these and the runner's
    /// ([`crate::context::tighten`]) — a run can tighten, never loosen.
    #[must_use]
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = Some(limits);
        self
    }

    /// A policy for this run, asked after the runner's: a call runs only when both allow.
    #[must_use]
    pub fn policy(mut self, policy: Arc<dyn PermissionPolicy>) -> Self {
        self.policy = Some(policy);
        self
    }

    /// Only the registry's tools `filter` allows exist for this run: its compilation
    /// (preflight reports others as unknown functions) and [`Runner::listing`].
    #[must_use]
    pub fn tools(mut self, filter: ToolFilter) -> Self {
        self.tools = Some(filter);
        self
    }

    /// The token cancelling this run, made on the first call when [`RunOptions::cancel`]
    /// gave none (a run whose token nobody asked for allocates none). Ask before cloning
    /// the options if the clones should share it: a clone made earlier makes its own.
    #[must_use]
    pub fn cancel_token(&self) -> &CancelToken {
        self.cancel.get_or_init(CancelToken::new)
    }

    /// The tool filter, if any.
    #[must_use]
    pub fn tool_filter(&self) -> Option<&ToolFilter> {
        self.tools.as_ref()
    }
}

/// Inputs that are not a JSON object of name: value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct InputsError(pub String);

static NEXT_ENVELOPE: AtomicU64 = AtomicU64::new(1);

/// A fresh envelope id, `ptc-TAG-N`: `TAG` (12 hex digits) is drawn once per process from
/// its id and start time, `N` counts from 1, so two processes sharing a journal never pick
/// the same id (and [`crate::FileJournal`] refuses a `running` record a live run owns).
#[must_use]
pub fn fresh_id() -> String {
    let mut id = String::with_capacity(ID_ROOM);
    push_fresh_id(&mut id);
    id
}

/// Room for `ptc-TAG-N` with any `N`: 4 + 12 + 1 + 20 bytes.
const ID_ROOM: usize = 37;

/// Appends a fresh `ptc-TAG-N` to `out` ([`fresh_id`]), built without the formatting
/// machinery.
fn push_fresh_id(out: &mut impl std::fmt::Write) {
    static TAG: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    let tag = TAG.get_or_init(|| {
        use std::hash::BuildHasher as _;
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |elapsed| elapsed.as_nanos());
        // RandomState adds the standard library's per-process random keys.
        let hash =
            std::collections::hash_map::RandomState::new().hash_one((std::process::id(), nanos));
        format!("{:012x}", hash & 0xffff_ffff_ffff)
    });
    let mut digits = crate::audit::itoa_digits(NEXT_ENVELOPE.fetch_add(1, Ordering::Relaxed));
    // Writing to a string or a stack buffer with room cannot fail.
    let _ = out.write_str("ptc-");
    let _ = out.write_str(tag);
    let _ = out.write_char('-');
    let _ = out.write_str(digits.text());
}

/// [`fresh_id`] as the shared string a run keeps, built on the stack: one allocation.
pub(crate) fn fresh_shared_id() -> Arc<str> {
    /// A stack buffer of [`ID_ROOM`] bytes.
    struct Stack {
        bytes: [u8; ID_ROOM],
        len: usize,
    }
    impl std::fmt::Write for Stack {
        fn write_str(&mut self, text: &str) -> std::fmt::Result {
            let end = self.len + text.len();
            let room = self.bytes.get_mut(self.len..end).ok_or(std::fmt::Error)?;
            room.copy_from_slice(text.as_bytes());
            self.len = end;
            Ok(())
        }
    }
    let mut stack = Stack {
        bytes: [0; ID_ROOM],
        len: 0,
    };
    push_fresh_id(&mut stack);
    let text = stack.bytes.get(..stack.len).unwrap_or_default();
    Arc::from(std::str::from_utf8(text).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    #[test]
    fn fresh_ids_are_tagged_and_counted() {
        let (first, second) = (super::fresh_id(), super::fresh_id());
        let parts = |id: &str| -> (String, u64) {
            let rest = id.strip_prefix("ptc-").expect("ptc- prefix");
            let (tag, n) = rest.rsplit_once('-').expect("a counter");
            assert_eq!(tag.len(), 12, "{id}");
            assert!(tag.chars().all(|c| c.is_ascii_hexdigit()), "{id}");
            (tag.to_owned(), n.parse().expect("a decimal counter"))
        };
        let ((tag1, n1), (tag2, n2)) = (parts(&first), parts(&second));
        assert_eq!(tag1, tag2);
        assert!(n2 > n1, "{first} then {second}");
        // The shared form is the same id, counted on.
        let shared = super::fresh_shared_id();
        let (tag3, n3) = parts(&shared);
        assert_eq!(tag3, tag1);
        assert!(n3 > n2, "{second} then {shared}");
    }
}
