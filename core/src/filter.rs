//! Which of the catalog's tools one run may use ([`ToolFilter`]): names or globs in the one
//! glob dialect ptc uses for tool names everywhere (globset's, as in the MCP gateway's
//! `allow`/`deny` lists: `*` any run of characters, `?` one character, `[...]` a class,
//! `{a,b}` alternatives), matched against the whole tool name.
//!
//! Invariants:
//! - A filter only narrows: a filtered run sees the allowed tools and no others, in its
//!   listing, its compilation (so preflight reports a disallowed tool as an unknown
//!   function) and its dispatch. Filtering compiles no schema: the catalog's validators are
//!   shared.
//! - Two filters are equal (and hash alike) when their pattern lists are equal.

use globset::{Glob, GlobSet, GlobSetBuilder};
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// A set of tool-name patterns; see the module docs.
#[derive(Debug, Clone)]
pub struct ToolFilter {
    patterns: Arc<[String]>,
    set: GlobSet,
}

/// A pattern of a [`ToolFilter`] that is not a glob.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("tool filter pattern `{pattern}` is not a glob: {reason}")]
pub struct FilterError {
    /// The pattern.
    pub pattern: String,
    /// Why globset refused it.
    pub reason: String,
}

impl ToolFilter {
    /// Allows exactly the tools matching one of `patterns`.
    ///
    /// # Errors
    /// [`FilterError`] naming the first pattern that is not a glob (an unclosed `[` or `{`).
    pub fn allow<I, S>(patterns: I) -> Result<Self, FilterError>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let patterns: Arc<[String]> = patterns.into_iter().map(Into::into).collect();
        let mut builder = GlobSetBuilder::new();
        for pattern in patterns.iter() {
            let glob = Glob::new(pattern).map_err(|error| FilterError {
                pattern: pattern.clone(),
                reason: error.kind().to_string(),
            })?;
            builder.add(glob);
        }
        let set = builder.build().map_err(|error| FilterError {
            pattern: error.glob().unwrap_or_default().to_owned(),
            reason: error.kind().to_string(),
        })?;
        Ok(ToolFilter { patterns, set })
    }

    /// The patterns.
    #[must_use]
    pub fn patterns(&self) -> &[String] {
        &self.patterns
    }

    /// Whether `tool` is allowed.
    #[must_use]
    pub fn allows(&self, tool: &str) -> bool {
        self.set.is_match(tool)
    }
}

impl PartialEq for ToolFilter {
    fn eq(&self, other: &Self) -> bool {
        self.patterns == other.patterns
    }
}

impl Eq for ToolFilter {}

impl Hash for ToolFilter {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.patterns.hash(state);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_match_whole_names() {
        for (pattern, name, expected) in [
            ("Read", "Read", true),
            ("Read", "ReadMore", false),
            ("Re*", "Read", true),
            ("*d", "Read", true),
            ("R?ad", "Read", true),
            ("mcp/*", "mcp/fs.read", true),
            ("*a*b*", "xaxxbx", true),
            ("*a*b", "xaxxbx", false),
            ("{Read,Grep}", "Grep", true),
            ("[RG]*", "Glob", true),
            ("", "", true),
            ("*", "", true),
        ] {
            let filter = ToolFilter::allow([pattern]).unwrap();
            assert_eq!(filter.allows(name), expected, "{pattern} {name}");
        }
    }

    #[test]
    fn a_pattern_that_is_not_a_glob_is_named() {
        let error = ToolFilter::allow(["Read", "Gr[ep"]).unwrap_err();
        assert_eq!(error.pattern, "Gr[ep");
        assert!(error.to_string().contains("Gr[ep"), "{error}");
    }

    #[test]
    fn filters_compare_by_patterns() {
        let a = ToolFilter::allow(["A*"]).unwrap();
        assert_eq!(a, ToolFilter::allow(["A*"]).unwrap());
        assert_ne!(a, ToolFilter::allow(["B*"]).unwrap());
    }
}
