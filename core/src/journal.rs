//! Journal records: what a run's envelope writes durably (spec/reference/embedding.md).
//!
//! A journal is not a checkpoint: the machine is never snapshotted. The envelope emits a
//! *start* record (state `running`, the script) before any child runs and a *settled* record
//! (the outcome, the model-facing text and the audit) when the script settles; progress in
//! between stays in memory. A record left `running` after a crash only tells the host that
//! the run was interrupted and what its calls had done (the design's rule: earlier effects
//! are not rolled back).
//!
//! This module owns the record types and the [`JournalStore`] trait; the stores themselves
//! (a directory of files, a database) live with the hosts that do I/O (`ptc-runtime`'s
//! `FileJournal`).

use crate::BoxFuture;
use crate::audit::{AuditRecord, Status};
use serde::{Deserialize, Serialize};
use std::io;
/// The life cycle of an envelope record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum JournalState {
    /// Written before any child runs.
    Running,
    /// Written when the script settled.
    Settled,
    /// A `running` record found after a restart.
    Interrupted,
}

/// One envelope's durable record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JournalRecord {
    /// The envelope id.
    pub id: String,
    /// Where it stands.
    pub state: JournalState,
    /// The script.
    pub expression: String,
    /// The outcome's wire name, once settled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<String>,
    /// The model-facing result text, once settled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<String>,
    /// The audit, once settled.
    #[serde(default)]
    pub calls: Vec<AuditRecord>,
}

impl JournalRecord {
    /// The start record of `id` running `expression`.
    #[must_use]
    pub fn running(id: &str, expression: &str) -> Self {
        JournalRecord {
            id: id.to_owned(),
            state: JournalState::Running,
            expression: expression.to_owned(),
            outcome: None,
            result: None,
            calls: Vec::new(),
        }
    }
}

/// Where the driver persists envelope records: asynchronous, so a store may be a database
/// or a remote service. Implementations must make each write durable before its future
/// resolves, and must keep records of different ids apart (two processes sharing a store
/// never overwrite each other's records: envelope ids are unique across processes, see
/// the runtime's `fresh_id`).
pub trait JournalStore: Send + Sync {
    /// Persists `record`, replacing any earlier record of the same id.
    ///
    /// # Errors
    /// Any I/O failure; the driver reports it as spec/reference/embedding.md, "The journal", says.
    fn write(&self, record: &JournalRecord) -> BoxFuture<io::Result<()>>;

    /// The record of `id`.
    ///
    /// # Errors
    /// When it is missing or unreadable.
    fn read(&self, id: &str) -> BoxFuture<io::Result<JournalRecord>>;

    /// Every record, oldest id first.
    ///
    /// # Errors
    /// When the store cannot be listed.
    fn list(&self) -> BoxFuture<io::Result<Vec<JournalRecord>>>;

    /// Settles every record left `running` by a run that no longer exists as
    /// `interrupted` (see [`JournalRecord::interrupted`]) and returns those records. A record
    /// that a live run still owns is left alone.
    ///
    /// # Errors
    /// When the store cannot be listed or a record cannot be rewritten.
    fn recover(&self) -> BoxFuture<io::Result<Vec<JournalRecord>>>;
}

impl JournalRecord {
    /// This running record as settled `interrupted` with `message`: its unfinished calls
    /// marked `interrupted`, outcome `interrupted`.
    #[must_use]
    pub fn interrupted(mut self, message: &str) -> Self {
        self.state = JournalState::Interrupted;
        self.outcome = Some("interrupted".to_owned());
        self.result = Some(message.to_owned());
        for call in &mut self.calls {
            if !call.status.is_terminal() {
                call.status = Status::Interrupted;
            }
        }
        self
    }
}

/// The message of a run interrupted by a restart.
pub const INTERRUPTED_BY_RESTART: &str = "Error: script interrupted by restart";

/// The message of a run whose future the host dropped before it settled.
pub const INTERRUPTED_BY_DROP: &str = "Error: script interrupted (the run was dropped)";
