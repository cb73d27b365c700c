//! Live progress of a run, for a host's view of the nested calls (spec/reference/tool-calls.md).
//!
//! A host that passes a [`ProgressSink`] in a driver's run options (`ptc_runtime::RunOptions::progress`) receives a
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
//! - Each call carries its arguments cut to [`PROGRESS_ARGS_CHARS`] characters, the audit's
//!   bounded result preview, its status, and when it started and finished in milliseconds
//!   since the run began (the envelope's clock, which the tokio driver advances before it
//!   feeds each answer, so the times are exact to the millisecond).
//!
//! `ptc_runtime::RunOptions::progress` shows a host's sink receiving the snapshots.

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
#[non_exhaustive]
pub struct CallProgress {
    /// The nested call's id, `ENVELOPE/N`.
    pub id: String,
    /// The tool.
    pub tool: String,
    /// Its audit status.
    pub status: Status,
    /// Its arguments as compact JSON, at most [`PROGRESS_ARGS_CHARS`] characters plus
    /// `...`; `None` when the audit dropped them.
    pub args: Option<String>,
    /// The audit's bounded preview of its result or failure, once there is one.
    pub preview: Option<String>,
    /// When it started running (permission granted, dispatched), in milliseconds since
    /// the run began by the envelope's clock; `None` while queued or awaiting permission,
    /// and for a call that never ran (denied, cancelled first).
    pub started_ms: Option<u64>,
    /// When it reached its terminal status, in milliseconds since the run began.
    pub finished_ms: Option<u64>,
}

/// Longest argument text in a [`CallProgress`], in characters.
pub const PROGRESS_ARGS_CHARS: usize = 200;

/// What progress tracks of one call: whether it awaits its permission decision (only
/// meaningful while it is `running`), and when it started and finished, in milliseconds
/// since the run began.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Track {
    pub(crate) waiting: bool,
    started: Option<u64>,
    finished: Option<u64>,
}

impl Track {
    /// A call's track before any timing: `waiting` while it awaits its permission.
    pub(crate) fn waiting(waiting: bool) -> Track {
        Track {
            waiting,
            ..Track::default()
        }
    }
}

/// Records `now` as the start of every call that is running (not awaiting permission)
/// without a start yet, and as the end of every terminal call without an end yet.
pub(crate) fn stamp(tracks: &mut [Track], calls: &[AuditRecord], now: u64) {
    for (timing, call) in tracks.iter_mut().zip(calls) {
        if call.status == Status::Running && !timing.waiting && timing.started.is_none() {
            timing.started = Some(now);
        }
        if call.status.is_terminal() && timing.finished.is_none() {
            timing.finished = Some(now);
        }
    }
}

/// `args` as compact JSON cut to [`PROGRESS_ARGS_CHARS`] characters.
fn args_preview(args: Option<&serde_json::Value>) -> Option<String> {
    let text = args?.to_string();
    if text.chars().count() <= PROGRESS_ARGS_CHARS {
        return Some(text);
    }
    let mut cut: String = text.chars().take(PROGRESS_ARGS_CHARS).collect();
    cut.push_str("...");
    Some(cut)
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

/// The snapshot of `calls`; `tracks[i]` is call `i`'s [`Track`].
pub(crate) fn snapshot(
    id: &str,
    direct: Option<&str>,
    live: bool,
    calls: &[AuditRecord],
    tracks: &[Track],
) -> Progress {
    let awaiting = |index: usize| tracks.get(index).is_some_and(|track| track.waiting);
    let mut active = Vec::new();
    let mut permission_waits = Vec::new();
    for (index, call) in calls.iter().enumerate() {
        if call.status == Status::Running {
            if awaiting(index) {
                permission_waits.push(call.id.to_string());
            } else {
                active.push(call.tool.to_string());
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
            .enumerate()
            .map(|(index, c)| {
                let timing = tracks.get(index).copied().unwrap_or_default();
                CallProgress {
                    id: c.id.to_string(),
                    tool: c.tool.to_string(),
                    status: c.status,
                    args: args_preview(c.args.as_deref()),
                    preview: c.preview.clone(),
                    started_ms: timing.started,
                    finished_ms: timing.finished,
                }
            })
            .collect(),
    }
}
