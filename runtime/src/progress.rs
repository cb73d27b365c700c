//! Live progress of a run, for a host's view of the nested calls (dialect notes §12.8).
//!
//! A host that passes a [`ProgressSink`] in [`crate::RunOptions::progress`] receives a
//! [`Progress`] snapshot after every change a user could see: a call queued, waiting for its
//! permission decision, running, finished (any terminal status), and once more when the run
//! settles (`live: false`). Snapshots are whole (not deltas), so a view can simply redraw.
//!
//! Invariants:
//! - The sink is called on the driver's task, synchronously, between machine steps: it must
//!   be cheap and must not block (send on a channel, store in a cell). A panicking sink is
//!   the host's bug and is not contained.
//! - Snapshots follow the audit: every call listed has the status its audit record has at
//!   that moment; `completed` counts terminal statuses only; `total` counts every call the
//!   script has issued so far (later calls are unknown until the script reaches them).
//! - A run that starts sends exactly one snapshot with `live: false`, and it is the last. A
//!   script refused before running (compile errors, a malformed argument object) sends
//!   none: its outcome is immediate.

use crate::audit::{AuditRecord, Status};
use serde::Serialize;

/// One snapshot of a run's nested calls.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Progress {
    /// Always `ptc`: the kind of envelope, for views that show several kinds.
    pub kind: &'static str,
    /// The envelope id.
    pub id: String,
    /// The tool, while the script may still settle as one direct call.
    pub direct: Option<String>,
    /// False on the final snapshot, sent when the run has settled.
    pub live: bool,
    /// Tools of the calls that are running (permission granted, handler not finished).
    pub active: Vec<String>,
    /// Calls with a terminal status.
    pub completed: usize,
    /// Calls issued so far.
    pub total: usize,
    /// Ids of the calls waiting for the permission policy's decision.
    pub permission_waits: Vec<String>,
    /// Every call issued so far, in order.
    pub calls: Vec<CallProgress>,
}

/// One call in a [`Progress`] snapshot.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CallProgress {
    /// The nested call's id, `ENVELOPE/N`.
    pub id: String,
    /// The tool.
    pub tool: String,
    /// Its audit status.
    pub status: Status,
}

/// Receives progress snapshots; see the module docs for when and on which task.
pub trait ProgressSink: Send + Sync {
    /// One snapshot.
    fn progress(&self, snapshot: &Progress);
}

impl<F> ProgressSink for F
where
    F: Fn(&Progress) + Send + Sync,
{
    fn progress(&self, snapshot: &Progress) {
        self(snapshot);
    }
}

/// The snapshot of `calls`; `waiting[i]` says whether call `i` awaits its permission
/// decision (only meaningful while it is `running`).
pub(crate) fn snapshot(
    id: &str,
    direct: Option<&str>,
    live: bool,
    calls: &[AuditRecord],
    waiting: &[bool],
) -> Progress {
    let awaiting = |index: usize| waiting.get(index).copied().unwrap_or(false);
    let mut active = Vec::new();
    let mut permission_waits = Vec::new();
    for (index, call) in calls.iter().enumerate() {
        if call.status == Status::Running {
            if awaiting(index) {
                permission_waits.push(call.id.clone());
            } else {
                active.push(call.tool.clone());
            }
        }
    }
    Progress {
        kind: "ptc",
        id: id.to_owned(),
        direct: direct.map(str::to_owned),
        live,
        active,
        completed: calls.iter().filter(|c| c.status.is_terminal()).count(),
        total: calls.len(),
        permission_waits,
        calls: calls
            .iter()
            .map(|c| CallProgress {
                id: c.id.clone(),
                tool: c.tool.clone(),
                status: c.status,
            })
            .collect(),
    }
}
