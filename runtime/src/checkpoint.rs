//! Durable envelope checkpoints (dialect notes §12.9).
//!
//! The driver writes a *start* record (state `running`, the script) before any child runs
//! and a *settled* record (the outcome, the model-facing text and the audit) when the
//! script settles; progress in between stays in memory. After a crash, [`FileStore::recover`]
//! turns every record left `running` into an `interrupted` one. The machine itself is
//! never serialised or resumed.
//!
//! Invariants of [`FileStore`]:
//! - One file per envelope, `DIR/<sanitised id>.json`, written atomically (a temporary file
//!   in the same directory, then a rename), so a reader sees the old or the new record,
//!   never a torn one.

use crate::audit::{AuditRecord, Status};
use serde::{Deserialize, Serialize};
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};

/// The life cycle of an envelope record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CheckpointState {
    /// Written before any child runs.
    Running,
    /// Written when the script settled.
    Settled,
    /// A `running` record found after a restart.
    Interrupted,
}

/// One envelope's durable record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Checkpoint {
    /// The envelope id.
    pub id: String,
    /// Where it stands.
    pub state: CheckpointState,
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

impl Checkpoint {
    /// The start record of `id` running `expression`.
    #[must_use]
    pub fn running(id: &str, expression: &str) -> Self {
        Checkpoint {
            id: id.to_owned(),
            state: CheckpointState::Running,
            expression: expression.to_owned(),
            outcome: None,
            result: None,
            calls: Vec::new(),
        }
    }
}

/// Where the driver persists envelopes. Implementations must make each write durable
/// before returning.
pub trait CheckpointStore: Send + Sync {
    /// Persists `checkpoint`, replacing any earlier record of the same id.
    ///
    /// # Errors
    /// Any I/O failure; the driver reports it per §12.9.
    fn write(&self, checkpoint: &Checkpoint) -> io::Result<()>;
}

/// A directory of JSON records, one per envelope.
#[derive(Debug, Clone)]
pub struct FileStore {
    dir: PathBuf,
}

/// The message of a run interrupted by a restart.
pub const INTERRUPTED_BY_RESTART: &str = "Error: script interrupted by restart";

impl FileStore {
    /// A store under `dir`, created if missing.
    ///
    /// # Errors
    /// When the directory cannot be created.
    pub fn open(dir: impl Into<PathBuf>) -> io::Result<Self> {
        let dir = dir.into();
        std::fs::create_dir_all(&dir)?;
        Ok(FileStore { dir })
    }

    /// The directory.
    #[must_use]
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn path_of(&self, id: &str) -> PathBuf {
        let safe: String = id
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        self.dir.join(format!("{safe}.json"))
    }

    /// Reads the record of `id`.
    ///
    /// # Errors
    /// When it is missing or unreadable.
    pub fn read(&self, id: &str) -> io::Result<Checkpoint> {
        let text = std::fs::read_to_string(self.path_of(id))?;
        serde_json::from_str(&text).map_err(io::Error::other)
    }

    /// Every record in the directory, oldest id first; unreadable files are skipped.
    ///
    /// # Errors
    /// When the directory cannot be listed.
    pub fn list(&self) -> io::Result<Vec<Checkpoint>> {
        let mut out = Vec::new();
        for entry in std::fs::read_dir(&self.dir)? {
            let path = entry?.path();
            if path.extension().is_none_or(|e| e != "json") {
                continue;
            }
            if let Ok(text) = std::fs::read_to_string(&path)
                && let Ok(checkpoint) = serde_json::from_str::<Checkpoint>(&text)
            {
                out.push(checkpoint);
            }
        }
        out.sort_by(|a, b| a.id.cmp(&b.id));
        Ok(out)
    }

    /// Turns every record left `running` into an `interrupted` one (its unfinished calls
    /// marked `interrupted`, result "Error: script interrupted by restart", outcome
    /// `interrupted`) and returns the recovered records.
    ///
    /// # Errors
    /// When the directory cannot be listed or a record cannot be rewritten.
    pub fn recover(&self) -> io::Result<Vec<Checkpoint>> {
        let mut recovered = Vec::new();
        for mut checkpoint in self.list()? {
            if checkpoint.state != CheckpointState::Running {
                continue;
            }
            checkpoint.state = CheckpointState::Interrupted;
            checkpoint.outcome = Some("interrupted".to_owned());
            checkpoint.result = Some(INTERRUPTED_BY_RESTART.to_owned());
            for call in &mut checkpoint.calls {
                if !call.status.is_terminal() {
                    call.status = Status::Interrupted;
                }
            }
            self.write(&checkpoint)?;
            recovered.push(checkpoint);
        }
        Ok(recovered)
    }
}

impl CheckpointStore for FileStore {
    fn write(&self, checkpoint: &Checkpoint) -> io::Result<()> {
        let text = serde_json::to_vec_pretty(checkpoint).map_err(io::Error::other)?;
        let mut temp = tempfile::NamedTempFile::new_in(&self.dir)?;
        temp.write_all(&text)?;
        temp.as_file().sync_all()?;
        temp.persist(self.path_of(&checkpoint.id))
            .map_err(|error| error.error)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_are_written_atomically_and_recovered() {
        let dir = tempfile::tempdir().unwrap();
        let store = FileStore::open(dir.path().join("journal")).unwrap();
        let mut running = Checkpoint::running("ptc-1", "(Read :file_path \"a\")");
        running
            .calls
            .push(AuditRecord::new("ptc-1", 1, "Read", Status::Running));
        store.write(&running).unwrap();
        let mut settled = Checkpoint::running("ptc-2", "1");
        settled.state = CheckpointState::Settled;
        settled.result = Some("1".into());
        store.write(&settled).unwrap();
        assert_eq!(store.read("ptc-1").unwrap(), running);

        let recovered = store.recover().unwrap();
        assert_eq!(recovered.len(), 1);
        let record = store.read("ptc-1").unwrap();
        assert_eq!(record.state, CheckpointState::Interrupted);
        assert_eq!(record.result.as_deref(), Some(INTERRUPTED_BY_RESTART));
        assert_eq!(record.calls[0].status, Status::Interrupted);
        assert_eq!(store.read("ptc-2").unwrap(), settled);
        // Only the two records remain: no temporary files are left behind.
        assert_eq!(std::fs::read_dir(store.dir()).unwrap().count(), 2);
        assert!(store.recover().unwrap().is_empty());
    }
}
