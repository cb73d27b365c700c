//! A bounded, least-recently-used cache of compiled programs keyed by source, roster and
//! budgets, so that a host (or the JSON-lines and MCP servers) that sees the same script
//! again skips compilation.
//!
//! Invariants:
//! - A hit returns the program that compiling the same source for an equal roster under
//!   equal budgets would return: the key covers everything `ptc_compiler::compile` reads
//!   (the source text, every roster entry with its contract, every budget). Keys compare the
//!   full source and a fingerprint of roster and budgets, so two different scripts never
//!   share an entry.
//! - Only successful compilations are cached; diagnostics are recomputed (a rejected script
//!   is usually fixed, not resent).
//! - At most `capacity` programs are held; inserting past it drops the least recently used.
//!   The cache is `Send + Sync` and shared behind an `Arc`.
//!
//! ```
//! use ptc_core::cache::ProgramCache;
//! use ptc_compiler::Roster;
//! use ptc_vm::Limits;
//!
//! let cache = ProgramCache::new(64);
//! let roster = Roster::new().tool("Read");
//! let limits = Limits::default();
//! let first = cache.get_or_compile("(Read :file_path \"a\")", &roster, &limits, None).unwrap();
//! let again = cache.get_or_compile("(Read :file_path \"a\")", &roster, &limits, None).unwrap();
//! assert!(std::sync::Arc::ptr_eq(&first, &again));
//! assert_eq!(cache.stats().hits, 1);
//! ```

use ptc_compiler::{Compiled, Diagnostic, Roster};
use ptc_vm::{Clock, Limits};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::num::NonZeroUsize;
use std::sync::{Arc, Mutex};

/// Hits and misses since the cache was made.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Lookups answered from the cache.
    pub hits: u64,
    /// Lookups that compiled.
    pub misses: u64,
    /// Programs held now.
    pub len: usize,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Key {
    source: Arc<str>,
    context: u64,
}

#[derive(Debug)]
struct Inner {
    entries: lru::LruCache<Key, Arc<Compiled>>,
    hits: u64,
    misses: u64,
}

/// A bounded LRU cache of compiled programs; see the module docs.
#[derive(Debug)]
pub struct ProgramCache {
    inner: Mutex<Inner>,
}

/// A fingerprint of everything besides the source that compilation depends on.
fn context_fingerprint(roster: &Roster, limits: &Limits) -> u64 {
    let mut hasher = DefaultHasher::new();
    // Debug output lists every field of both, so a new field is covered automatically.
    format!("{roster:?}").hash(&mut hasher);
    format!("{limits:?}").hash(&mut hasher);
    hasher.finish()
}

impl ProgramCache {
    /// A cache holding at most `capacity` programs (at least one).
    #[must_use]
    pub fn new(capacity: usize) -> Self {
        let capacity = NonZeroUsize::new(capacity).unwrap_or(NonZeroUsize::MIN);
        ProgramCache {
            inner: Mutex::new(Inner {
                entries: lru::LruCache::new(capacity),
                hits: 0,
                misses: 0,
            }),
        }
    }

    /// The compiled program for `source` on `roster` under `limits`, from the cache or
    /// freshly compiled (and then cached) under `seconds` by the host's `clock`, if any.
    ///
    /// # Errors
    /// The compiler's diagnostics when the script is rejected (not cached).
    pub fn get_or_compile(
        &self,
        source: &str,
        roster: &Roster,
        limits: &Limits,
        clock: Option<Arc<dyn Clock>>,
    ) -> Result<Arc<Compiled>, Vec<Diagnostic>> {
        let key = Key {
            source: Arc::from(source),
            context: context_fingerprint(roster, limits),
        };
        {
            let mut inner = self.lock();
            if let Some(found) = inner.entries.get(&key).cloned() {
                inner.hits += 1;
                return Ok(found);
            }
            inner.misses += 1;
        }
        // Compile outside the lock: a slow script never blocks other lookups.
        let compiled = Arc::new(ptc_compiler::compile_with_clock(
            source,
            roster,
            limits,
            &[],
            clock,
        )?);
        self.lock().entries.put(key, Arc::clone(&compiled));
        Ok(compiled)
    }

    /// Hits, misses and size.
    #[must_use]
    pub fn stats(&self) -> CacheStats {
        let inner = self.lock();
        CacheStats {
            hits: inner.hits,
            misses: inner.misses,
            len: inner.entries.len(),
        }
    }

    /// Drops every entry (counters are kept).
    pub fn clear(&self) {
        self.lock().entries.clear();
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        // A panic while holding the lock cannot leave the LRU list inconsistent for our
        // use (every operation is one call into `lru`), so a poisoned lock is still usable.
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_cover_source_roster_and_budgets_and_capacity_is_bounded() {
        let cache = ProgramCache::new(2);
        let read = Roster::new().tool("Read");
        let grep = Roster::new().tool("Grep");
        let limits = Limits::default();
        let a = cache
            .get_or_compile("(Read)", &read, &limits, None)
            .unwrap();
        // Another roster: the same source is rejected there (unknown operator), not served.
        assert!(
            cache
                .get_or_compile("(Read)", &grep, &limits, None)
                .is_err()
        );
        let tight = Limits {
            steps: 10,
            ..Limits::default()
        };
        let b = cache.get_or_compile("(Read)", &read, &tight, None).unwrap();
        assert!(!Arc::ptr_eq(&a, &b));
        assert_eq!(cache.stats().len, 2);
        // A third entry evicts the least recently used (`a`).
        cache
            .get_or_compile("(+ 1 2)", &read, &limits, None)
            .unwrap();
        assert_eq!(cache.stats().len, 2);
        let again = cache
            .get_or_compile("(Read)", &read, &limits, None)
            .unwrap();
        assert!(!Arc::ptr_eq(&a, &again));
        let stats = cache.stats();
        assert_eq!((stats.hits, stats.misses), (0, 5));
        let hit = cache
            .get_or_compile("(Read)", &read, &limits, None)
            .unwrap();
        assert!(Arc::ptr_eq(&again, &hit));
        assert_eq!(cache.stats().hits, 1);
    }
}
