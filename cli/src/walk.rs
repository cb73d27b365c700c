//! The directory walk of Glob and Grep: regular files under a base directory inside the
//! root, sorted by path, decided by nothing outside the root.
//!
//! Invariants:
//!
//! - Symbolic links are never followed (neither to files nor to directories); FIFOs,
//!   sockets and devices are never listed. Hidden entries (names starting with `.`) are
//!   skipped.
//! - Ignore files are honoured only inside the root: `.ignore` and `.gitignore` of the
//!   root and of every directory between it and the walked entries, and only when they are
//!   regular files (a `.gitignore` that is a link is skipped, so it cannot pull rules from
//!   outside), each read up to [`MAX_IGNORE_BYTES`]. No parent directory of the root, no
//!   global git excludes (`core.excludesFile`, `$XDG_CONFIG_HOME/git/ignore`) and no
//!   `.git/info/exclude` (whose git directory may live anywhere) is consulted. Precedence
//!   follows ripgrep: a `.ignore` match (deepest first) beats a `.gitignore` match.
//! - The walk visits at most [`MAX_WALK_ENTRIES`] directory entries and polls the stop
//!   flag at every entry, so a huge tree or a cancelled call ends promptly.

use crate::confine;
use ignore::Match;
use ignore::gitignore::{Gitignore, GitignoreBuilder};
use std::path::{Path, PathBuf};

/// Most directory entries one walk examines.
pub const MAX_WALK_ENTRIES: usize = 100_000;
/// Largest ignore file read.
pub const MAX_IGNORE_BYTES: u64 = 1 << 20;
/// Deepest directory nesting walked below the root.
pub const MAX_WALK_DEPTH: usize = 256;

/// The files a walk found.
#[derive(Debug, Default)]
pub struct Walked {
    /// Regular files, sorted by path.
    pub files: Vec<PathBuf>,
    /// Whether the walk stopped at [`MAX_WALK_ENTRIES`] or [`MAX_WALK_DEPTH`].
    pub truncated: bool,
}

/// The ignore files of one directory.
struct Level {
    ignore: Option<Gitignore>,
    gitignore: Option<Gitignore>,
}

fn load(dir: &Path, name: &str) -> Option<Gitignore> {
    let path = dir.join(name);
    let metadata = std::fs::symlink_metadata(&path).ok()?;
    if !metadata.file_type().is_file() {
        return None;
    }
    let (mut file, _) = confine::open_regular(&path).ok()?;
    let bytes = confine::read_bounded(&mut file, MAX_IGNORE_BYTES, &|| false).ok()?;
    let text = String::from_utf8_lossy(&bytes);
    let mut builder = GitignoreBuilder::new(dir);
    for line in text.lines() {
        // A malformed line is skipped, as git does.
        let _ = builder.add_line(None, line);
    }
    builder.build().ok().filter(|g| !g.is_empty())
}

fn level(dir: &Path) -> Level {
    Level {
        ignore: load(dir, ".ignore"),
        gitignore: load(dir, ".gitignore"),
    }
}

fn ignored(levels: &[Level], path: &Path, is_dir: bool) -> bool {
    let pick = |select: fn(&Level) -> Option<&Gitignore>| {
        for level in levels.iter().rev() {
            if let Some(matcher) = select(level) {
                match matcher.matched(path, is_dir) {
                    Match::None => {}
                    Match::Ignore(_) => return Some(true),
                    Match::Whitelist(_) => return Some(false),
                }
            }
        }
        None
    };
    pick(|l| l.ignore.as_ref())
        .or_else(|| pick(|l| l.gitignore.as_ref()))
        .unwrap_or(false)
}

struct Walker<'a> {
    stopped: &'a dyn Fn() -> bool,
    entries: usize,
    out: Walked,
}

impl Walker<'_> {
    /// Walks `dir` (a real directory inside the root) with `levels` the ignore files of
    /// the root down to `dir`'s parent. Returns false when stopped.
    fn dir(&mut self, dir: &Path, levels: &mut Vec<Level>, depth: usize) -> bool {
        if depth > MAX_WALK_DEPTH {
            self.out.truncated = true;
            return true;
        }
        levels.push(level(dir));
        let keep_going = self.entries_of(dir, levels, depth);
        levels.pop();
        keep_going
    }

    fn entries_of(&mut self, dir: &Path, levels: &mut Vec<Level>, depth: usize) -> bool {
        let Ok(reader) = std::fs::read_dir(dir) else {
            return true;
        };
        let mut entries = Vec::new();
        for entry in reader {
            if (self.stopped)() {
                return false;
            }
            self.entries += 1;
            if self.entries > MAX_WALK_ENTRIES {
                self.out.truncated = true;
                return false;
            }
            let Ok(entry) = entry else { continue };
            let name = entry.file_name();
            if name.as_encoded_bytes().first() == Some(&b'.') {
                continue;
            }
            let Ok(file_type) = entry.file_type() else {
                continue;
            };
            entries.push((name, file_type));
        }
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        for (name, file_type) in entries {
            let path = dir.join(&name);
            if file_type.is_dir() {
                if !ignored(levels, &path, true) && !self.dir(&path, levels, depth + 1) {
                    return false;
                }
            } else if file_type.is_file() && !ignored(levels, &path, false) {
                self.out.files.push(path);
            }
        }
        true
    }
}

/// The regular files under `base` (a real path inside `root`, as [`confine::resolve`]
/// returns it), or `base` itself when it is a file. `stopped` is polled per entry.
#[must_use]
pub fn walk(root: &Path, base: &Path, is_dir: bool, stopped: &dyn Fn() -> bool) -> Walked {
    if !is_dir {
        return Walked {
            files: vec![base.to_path_buf()],
            truncated: false,
        };
    }
    // The ignore files of the root and every directory above `base` inside the root.
    let mut levels = Vec::new();
    let mut depth = 0;
    if let Ok(rest) = base.strip_prefix(root) {
        let mut dir = root.to_path_buf();
        for component in rest.components() {
            levels.push(level(&dir));
            dir.push(component);
            depth += 1;
        }
    }
    let mut walker = Walker {
        stopped,
        entries: 0,
        out: Walked::default(),
    };
    walker.dir(base, &mut levels, depth);
    walker.out.files.sort();
    walker.out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_ignore_files_inside_the_root_count() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().canonicalize().unwrap();
        let root = base.join("root");
        std::fs::create_dir_all(root.join("sub/deep")).unwrap();
        for file in ["a.txt", "b.log", "sub/c.txt", "sub/deep/d.txt", ".hidden"] {
            std::fs::write(root.join(file), "x").unwrap();
        }
        // Above the root: must not matter.
        std::fs::write(base.join(".gitignore"), "*.txt\n").unwrap();
        std::fs::write(base.join(".ignore"), "sub\n").unwrap();
        // Inside the root: honoured, also when walking a subdirectory.
        std::fs::write(root.join(".gitignore"), "*.log\ndeep/\n").unwrap();
        let names = |walked: Walked| -> Vec<String> {
            walked
                .files
                .iter()
                .map(|f| f.strip_prefix(&root).unwrap().display().to_string())
                .collect()
        };
        let all = walk(&root, &root, true, &|| false);
        assert_eq!(names(all), ["a.txt", "sub/c.txt"]);
        let sub = walk(&root, &root.join("sub"), true, &|| false);
        assert_eq!(names(sub), ["sub/c.txt"]);
        assert!(walk(&root, &root, true, &|| true).files.is_empty());
    }

    #[cfg(unix)]
    #[test]
    fn a_linked_ignore_file_is_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().canonicalize().unwrap();
        let root = base.join("root");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::write(root.join("a.txt"), "x").unwrap();
        std::fs::write(base.join("rules"), "*.txt\n").unwrap();
        std::os::unix::fs::symlink(base.join("rules"), root.join(".gitignore")).unwrap();
        assert_eq!(
            walk(&root, &root, true, &|| false).files,
            [root.join("a.txt")]
        );
    }
}
