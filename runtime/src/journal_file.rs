//! The file journal: a directory of JSON records, one per envelope — the embedded default
//! [`JournalStore`] (record types in `ptc_core::journal`).
//!
//! ```
//! use ptc_runtime::{FileJournal, Registry, RunOptions, Runner};
//! use ptc_runtime::core::{JournalState, JournalStore};
//! use std::sync::Arc;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let dir = tempfile::tempdir()?;
//! let journal = Arc::new(FileJournal::open(dir.path())?);
//! // At start-up: runs a crashed process left `running` are settled interrupted.
//! let recovered = journal.recover_now()?;
//! assert!(recovered.is_empty());
//! let runner = Runner::new(Arc::new(Registry::new())).with_journal(journal.clone());
//! let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
//! let outcome = rt.block_on(runner.run("(+ 1 2)", RunOptions::new().id("toolu_7")));
//! assert_eq!(outcome.text, "3");
//! let record = rt.block_on(journal.read("toolu_7"))?;
//! assert_eq!(record.state, JournalState::Settled);
//! assert_eq!(record.expression, "(+ 1 2)");
//! assert_eq!(record.result.as_deref(), Some("3"));
//! # Ok(())
//! # }
//! ```
//!
//! Invariants of [`FileJournal`]:
//! - One file per envelope, `DIR/<escaped id>.json` (an injective escaping, so two ids never
//!   share a file), written atomically (a temporary file in the same directory, then a
//!   rename), so a reader sees the old or the new record, never a torn one.
//! - A `running` record is owned by its run through an advisory lock; recovery never
//!   interrupts a live run, in this process or another.

use ptc_core::BoxFuture;
use ptc_core::journal::{INTERRUPTED_BY_RESTART, JournalRecord, JournalState, JournalStore};
use std::collections::HashMap;
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// A directory of JSON records, one per envelope.
///
/// A run's record is owned while it is `running`: the store holds an exclusive advisory
/// lock on `DIR/<id>.lock` from the start record until the settled one, and
/// [`FileJournal::recover`] only interrupts records whose lock it can take — so one process
/// recovering a shared directory never interrupts another process's live run. The operating
/// system releases the lock when its owner dies.
#[derive(Debug, Clone)]
pub struct FileJournal {
    dir: PathBuf,
    owned: Arc<Mutex<HashMap<String, std::fs::File>>>,
}

impl FileJournal {
    /// A store under `dir`, created if missing.
    ///
    /// # Errors
    /// When the directory cannot be created.
    pub fn open(dir: impl Into<PathBuf>) -> io::Result<Self> {
        let dir = dir.into();
        std::fs::create_dir_all(&dir)?;
        Ok(FileJournal {
            dir,
            owned: Arc::default(),
        })
    }

    /// The directory.
    #[must_use]
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// `id` as a file stem: ASCII letters, digits and `-` stay, every other byte is `_`
    /// and two hex digits, so distinct ids never share a file.
    fn stem(id: &str) -> String {
        let mut stem = String::with_capacity(id.len());
        for byte in id.bytes() {
            if byte.is_ascii_alphanumeric() || byte == b'-' {
                stem.push(char::from(byte));
            } else {
                stem.push_str(&format!("_{byte:02x}"));
            }
        }
        stem
    }

    fn path_of(&self, id: &str) -> PathBuf {
        self.dir.join(format!("{}.json", Self::stem(id)))
    }

    fn lock_path_of(&self, id: &str) -> PathBuf {
        self.dir.join(format!("{}.lock", Self::stem(id)))
    }

    fn owned(&self) -> std::sync::MutexGuard<'_, HashMap<String, std::fs::File>> {
        self.owned
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Reads the record of `id`.
    ///
    /// # Errors
    /// When it is missing or unreadable.
    pub fn read_now(&self, id: &str) -> io::Result<JournalRecord> {
        let text = std::fs::read_to_string(self.path_of(id))?;
        serde_json::from_str(&text).map_err(io::Error::other)
    }

    /// Every record in the directory, oldest id first; unreadable files are skipped.
    ///
    /// # Errors
    /// When the directory cannot be listed.
    pub fn list_now(&self) -> io::Result<Vec<JournalRecord>> {
        let mut out = Vec::new();
        for entry in std::fs::read_dir(&self.dir)? {
            let path = entry?.path();
            if path.extension().is_none_or(|e| e != "json") {
                continue;
            }
            if let Ok(text) = std::fs::read_to_string(&path)
                && let Ok(record) = serde_json::from_str::<JournalRecord>(&text)
            {
                out.push(record);
            }
        }
        out.sort_by(|a, b| a.id.cmp(&b.id));
        Ok(out)
    }

    /// Turns every record left `running` by a dead run into an `interrupted` one (its
    /// unfinished calls marked `interrupted`, result "Error: script interrupted by
    /// restart", outcome `interrupted`) and returns the recovered records. Records whose
    /// run is alive (in this process or another) are left alone.
    ///
    /// # Errors
    /// When the directory cannot be listed or a record cannot be rewritten.
    pub fn recover_now(&self) -> io::Result<Vec<JournalRecord>> {
        let mut recovered = Vec::new();
        for record in self.list_now()? {
            if record.state != JournalState::Running || self.owned().contains_key(&record.id) {
                continue;
            }
            let lock = std::fs::OpenOptions::new()
                .create(true)
                .truncate(false)
                .write(true)
                .open(self.lock_path_of(&record.id))?;
            match lock.try_lock() {
                Ok(()) => {}
                Err(std::fs::TryLockError::WouldBlock) => continue,
                Err(std::fs::TryLockError::Error(error)) => return Err(error),
            }
            let record = record.interrupted(INTERRUPTED_BY_RESTART);
            self.write_file(&record)?;
            let _ = std::fs::remove_file(self.lock_path_of(&record.id));
            drop(lock);
            recovered.push(record);
        }
        Ok(recovered)
    }

    /// Writes `record` durably and takes or releases its ownership lock.
    ///
    /// # Errors
    /// Any I/O failure; also when another live run owns a `running` record of the same id.
    pub fn write_now(&self, record: &JournalRecord) -> io::Result<()> {
        if record.state == JournalState::Running {
            let mut owned = self.owned();
            if !owned.contains_key(&record.id) {
                let lock = std::fs::OpenOptions::new()
                    .create(true)
                    .truncate(false)
                    .write(true)
                    .open(self.lock_path_of(&record.id))?;
                lock.try_lock().map_err(|_| {
                    io::Error::new(
                        io::ErrorKind::AlreadyExists,
                        format!("envelope {} is running in another process", record.id),
                    )
                })?;
                owned.insert(record.id.clone(), lock);
            }
            drop(owned);
            return self.write_file(record);
        }
        self.write_file(record)?;
        if self.owned().remove(&record.id).is_some() {
            let _ = std::fs::remove_file(self.lock_path_of(&record.id));
        }
        Ok(())
    }

    fn write_file(&self, record: &JournalRecord) -> io::Result<()> {
        let text = serde_json::to_vec_pretty(record).map_err(io::Error::other)?;
        let mut temp = tempfile::NamedTempFile::new_in(&self.dir)?;
        temp.write_all(&text)?;
        temp.as_file().sync_all()?;
        temp.persist(self.path_of(&record.id))
            .map_err(|error| error.error)?;
        Ok(())
    }
}

impl JournalStore for FileJournal {
    fn write(&self, record: &JournalRecord) -> BoxFuture<io::Result<()>> {
        Box::pin(std::future::ready(self.write_now(record)))
    }

    fn read(&self, id: &str) -> BoxFuture<io::Result<JournalRecord>> {
        Box::pin(std::future::ready(self.read_now(id)))
    }

    fn list(&self) -> BoxFuture<io::Result<Vec<JournalRecord>>> {
        Box::pin(std::future::ready(self.list_now()))
    }

    fn recover(&self) -> BoxFuture<io::Result<Vec<JournalRecord>>> {
        Box::pin(std::future::ready(self.recover_now()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ptc_core::{AuditRecord, Status};

    #[test]
    fn records_are_written_atomically_and_recovered() {
        let dir = tempfile::tempdir().unwrap();
        let store = FileJournal::open(dir.path().join("journal")).unwrap();
        let mut running = JournalRecord::running("ptc-1", "(Read :file_path \"a\")");
        running
            .calls
            .push(AuditRecord::new("ptc-1", 1, "Read", Status::Running));
        // Written by a run that then crashed: its store (process) is gone.
        FileJournal::open(store.dir())
            .unwrap()
            .write_now(&running)
            .unwrap();
        let mut settled = JournalRecord::running("ptc-2", "1");
        settled.state = JournalState::Settled;
        settled.result = Some("1".into());
        store.write_now(&settled).unwrap();
        assert_eq!(store.read_now("ptc-1").unwrap(), running);

        let recovered = store.recover_now().unwrap();
        assert_eq!(recovered.len(), 1);
        let record = store.read_now("ptc-1").unwrap();
        assert_eq!(record.state, JournalState::Interrupted);
        assert_eq!(record.result.as_deref(), Some(INTERRUPTED_BY_RESTART));
        assert_eq!(record.calls[0].status, Status::Interrupted);
        assert_eq!(store.read_now("ptc-2").unwrap(), settled);
        // Only the two records remain: no temporary or lock files are left behind.
        assert_eq!(std::fs::read_dir(store.dir()).unwrap().count(), 2);
        assert!(store.recover_now().unwrap().is_empty());
    }

    #[test]
    fn ids_never_share_a_file_and_live_runs_are_not_recovered() {
        assert_ne!(FileJournal::stem("a/b"), FileJournal::stem("a_b"));
        assert_ne!(FileJournal::stem("a_2f"), FileJournal::stem("a/"));
        let dir = tempfile::tempdir().unwrap();
        let mine = FileJournal::open(dir.path()).unwrap();
        let other = FileJournal::open(dir.path()).unwrap();
        mine.write_now(&JournalRecord::running("ptc-a", "1"))
            .unwrap();
        // Another store on the same directory (another process) sees a live owner.
        assert!(other.recover_now().unwrap().is_empty());
        assert_eq!(mine.read_now("ptc-a").unwrap().state, JournalState::Running);
        assert!(
            other
                .write_now(&JournalRecord::running("ptc-a", "2"))
                .is_err()
        );
        // Once the owner is gone (its store dropped: the process ended), it is recovered.
        drop(mine);
        let recovered = other.recover_now().unwrap();
        assert_eq!(recovered.len(), 1);
        assert_eq!(
            other.read_now("ptc-a").unwrap().state,
            JournalState::Interrupted
        );
    }
}
