//! Confinement of the built-in tools to one root: path resolution that never looks outside
//! the root, and opening and reading that never block or grow without bound.
//!
//! # Resolution
//!
//! [`resolve`] walks the requested path one component at a time from the canonical root,
//! `lstat`-ing only paths made of real (non-link) directories already proved to lie inside
//! the root. A `..` at the root, an absolute path (or absolute link target) that does not
//! start with the root, and a relative link target that climbs above the root all end the
//! walk with [`Refusal::Outside`] *before* anything outside the root is touched. So:
//!
//! - every path that does not resolve inside the root gets the same answer, "path is
//!   outside the workspace root", whether or not anything exists out there (no existence
//!   oracle through symlinks, `..` or absolute paths);
//! - every answer is a function of the root's contents alone.
//!
//! A walk follows at most [`MAX_LINKS`] symbolic links (then [`Refusal::Loop`]) and at
//! most [`MAX_COMPONENTS`] components in all.
//!
//! # Opening and reading
//!
//! Only regular files and directories are used: a FIFO, socket or device inside the root is
//! refused by type before it is opened ([`Refusal::NotRegular`]), and [`open_regular`]
//! opens with `O_NONBLOCK | O_NOFOLLOW | O_NOCTTY` and re-checks the type on the open
//! descriptor, so a file swapped for a FIFO or a link between the check and the open is
//! still refused rather than blocking or escaping. [`read_bounded`] bounds a read by the
//! bytes actually read (never by metadata, which says 0 for `/dev/zero`) and polls the
//! caller's stop flag between chunks.

use std::ffi::OsString;
use std::fs::{File, Metadata};
use std::io::Read as _;
use std::path::{Component, Path, PathBuf};

/// Most symbolic links one resolution follows (Linux's `MAXSYMLINKS`).
pub const MAX_LINKS: u32 = 40;
/// Most path components one resolution processes, link targets included.
pub const MAX_COMPONENTS: usize = 4096;
/// Chunk size of [`read_bounded`]; the stop flag is polled once per chunk.
const CHUNK: usize = 64 * 1024;

/// What a resolved path is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A regular file.
    File,
    /// A directory.
    Dir,
}

/// Why a path is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// It does not resolve inside the root (whether or not it exists).
    Outside,
    /// It resolves inside the root but nothing is there.
    Missing,
    /// It is inside the root but neither a regular file nor a directory.
    NotRegular,
    /// Too many symbolic links (or components) on the way.
    Loop,
    /// It is inside the root but could not be examined (permissions).
    Unreadable,
    /// The caller asked the work to stop.
    Stopped,
}

impl Refusal {
    /// The guest-visible message for `requested`.
    #[must_use]
    pub fn message(self, requested: &str) -> String {
        match self {
            Refusal::Outside => format!("Error: path is outside the workspace root: {requested}"),
            Refusal::Missing => format!("Error: file does not exist: {requested}"),
            Refusal::NotRegular => {
                format!("Error: not a regular file or directory: {requested}")
            }
            Refusal::Loop => {
                format!("Error: too many levels of symbolic links: {requested}")
            }
            Refusal::Unreadable => format!("Error: cannot access: {requested}"),
            Refusal::Stopped => "Error: the call was cancelled".to_owned(),
        }
    }
}

/// `path`'s components relative to `root`, or `None` when `path` (absolute) does not start
/// with `root`.
fn under_root(root: &Path, path: &Path) -> Option<Vec<OsString>> {
    let rest = path.strip_prefix(root).ok()?;
    Some(
        rest.components()
            .map(|c| c.as_os_str().to_owned())
            .collect(),
    )
}

/// Resolves `requested` (relative to `root`, or absolute) inside the canonical `root`,
/// touching nothing outside it; returns the symlink-free path and its kind.
///
/// # Errors
/// See [`Refusal`]; `Outside` for everything that does not resolve inside the root.
pub fn resolve(root: &Path, requested: &str) -> Result<(PathBuf, Kind), Refusal> {
    let requested_path = Path::new(requested);
    let mut pending: Vec<OsString> = if requested_path.has_root() {
        under_root(root, requested_path).ok_or(Refusal::Outside)?
    } else {
        requested_path
            .components()
            .map(|c| c.as_os_str().to_owned())
            .collect()
    };
    // Processed from the end: `pending` is a stack of components still to walk.
    pending.reverse();
    let mut current = root.to_path_buf();
    let mut depth = 0usize; // components of `current` below the root
    let mut kind = Kind::Dir;
    let mut links = 0u32;
    let mut processed = 0usize;
    while let Some(component) = pending.pop() {
        processed += 1;
        if processed > MAX_COMPONENTS {
            return Err(Refusal::Loop);
        }
        let component_path = Path::new(&component);
        match component_path.components().next() {
            None | Some(Component::CurDir) => continue,
            Some(Component::ParentDir) => {
                if kind != Kind::Dir {
                    return Err(Refusal::Missing);
                }
                if depth == 0 {
                    return Err(Refusal::Outside);
                }
                current.pop();
                depth -= 1;
                continue;
            }
            Some(Component::RootDir | Component::Prefix(_)) => return Err(Refusal::Outside),
            Some(Component::Normal(_)) => {}
        }
        if kind != Kind::Dir {
            // `file/x`: the walk went through something that is not a directory.
            return Err(Refusal::Missing);
        }
        let candidate = current.join(&component);
        let metadata = match std::fs::symlink_metadata(&candidate) {
            Ok(metadata) => metadata,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                return Err(Refusal::Missing);
            }
            Err(_) => return Err(Refusal::Unreadable),
        };
        let file_type = metadata.file_type();
        if file_type.is_symlink() {
            links += 1;
            if links > MAX_LINKS {
                return Err(Refusal::Loop);
            }
            let target = std::fs::read_link(&candidate).map_err(|_| Refusal::Unreadable)?;
            let components: Vec<OsString> = if target.has_root() {
                // An absolute target restarts from the root, if it names a place under it.
                let rest = under_root(root, &target).ok_or(Refusal::Outside)?;
                current = root.to_path_buf();
                depth = 0;
                rest
            } else {
                target
                    .components()
                    .map(|c| c.as_os_str().to_owned())
                    .collect()
            };
            pending.extend(components.into_iter().rev());
            continue;
        }
        current = candidate;
        depth += 1;
        kind = if file_type.is_dir() {
            Kind::Dir
        } else if file_type.is_file() {
            Kind::File
        } else {
            // A FIFO, socket or device: refused by type, never opened. Whatever follows it
            // in the path could only fail.
            return Err(Refusal::NotRegular);
        };
    }
    Ok((current, kind))
}

/// Opens `path` (already resolved) for reading without following a final link, without
/// blocking on a FIFO and without acquiring a terminal, and checks on the descriptor that
/// it is a regular file.
///
/// # Errors
/// `NotRegular` when the descriptor is not a regular file; `Unreadable` when it cannot be
/// opened.
pub fn open_regular(path: &Path) -> Result<(File, Metadata), Refusal> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW | libc::O_NOCTTY);
    }
    let file = options.open(path).map_err(|_| Refusal::Unreadable)?;
    let metadata = file.metadata().map_err(|_| Refusal::Unreadable)?;
    if !metadata.is_file() {
        return Err(Refusal::NotRegular);
    }
    Ok((file, metadata))
}

/// Why [`read_bounded`] stopped short.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadError {
    /// More than the cap was there.
    TooLarge,
    /// The read failed.
    Failed,
    /// The stop flag was raised.
    Stopped,
}

/// At most `cap` bytes of `reader`: the whole content when it is no longer, else
/// `TooLarge` after reading `cap + 1` bytes. `stopped` is polled between chunks.
///
/// # Errors
/// See [`ReadError`].
pub fn read_bounded(
    reader: &mut impl std::io::Read,
    cap: u64,
    stopped: &dyn Fn() -> bool,
) -> Result<Vec<u8>, ReadError> {
    let mut out = Vec::new();
    let mut limited = reader.take(cap.saturating_add(1));
    let mut chunk = vec![0u8; CHUNK];
    loop {
        if stopped() {
            return Err(ReadError::Stopped);
        }
        let n = match limited.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(error) if error.kind() == std::io::ErrorKind::WouldBlock => {
                return Err(ReadError::Failed);
            }
            Err(_) => return Err(ReadError::Failed),
        };
        out.extend_from_slice(chunk.get(..n).unwrap_or_default());
        if u64::try_from(out.len()).unwrap_or(u64::MAX) > cap {
            return Err(ReadError::TooLarge);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_are_bounded_by_bytes_read_not_metadata() {
        // /dev/zero reports length 0 and never ends.
        #[cfg(unix)]
        {
            let mut zero = File::open("/dev/zero").unwrap();
            assert_eq!(
                read_bounded(&mut zero, 1000, &|| false),
                Err(ReadError::TooLarge)
            );
        }
        let mut text: &[u8] = b"hello";
        assert_eq!(read_bounded(&mut text, 5, &|| false).unwrap(), b"hello");
        let mut text: &[u8] = b"hello!";
        assert_eq!(
            read_bounded(&mut text, 5, &|| false),
            Err(ReadError::TooLarge)
        );
        let mut text: &[u8] = b"hello";
        assert_eq!(
            read_bounded(&mut text, 5, &|| true),
            Err(ReadError::Stopped)
        );
    }

    #[cfg(unix)]
    #[test]
    fn resolution_never_looks_outside_the_root() {
        use std::os::unix::fs::symlink;
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().canonicalize().unwrap();
        let root = base.join("root");
        std::fs::create_dir_all(root.join("sub")).unwrap();
        std::fs::write(root.join("sub/f.txt"), "x").unwrap();
        std::fs::write(base.join("secret.txt"), "s").unwrap();
        symlink(&base, root.join("updir")).unwrap();
        symlink("..", root.join("rel_up")).unwrap();
        symlink(&root, root.join("self")).unwrap();
        symlink("sub/f.txt", root.join("ok")).unwrap();
        symlink("loop", root.join("loop")).unwrap();
        let outside = Err(Refusal::Outside);
        for path in [
            "updir/secret.txt",
            "updir/nope.txt",
            "updir/nope/deeper",
            "rel_up/secret.txt",
            "rel_up/nope.txt",
            "self/../secret.txt",
            "self/../nope.txt",
            "../secret.txt",
            "/etc/passwd",
            "/no/such/place",
        ] {
            assert_eq!(resolve(&root, path), outside, "{path}");
        }
        assert_eq!(
            resolve(&root, "ok"),
            Ok((root.join("sub/f.txt"), Kind::File))
        );
        assert_eq!(
            resolve(&root, "self/sub/f.txt"),
            Ok((root.join("sub/f.txt"), Kind::File))
        );
        assert_eq!(
            resolve(&root, &root.join("sub").display().to_string()),
            Ok((root.join("sub"), Kind::Dir))
        );
        assert_eq!(resolve(&root, "sub/nope"), Err(Refusal::Missing));
        assert_eq!(resolve(&root, "sub/f.txt/x"), Err(Refusal::Missing));
        assert_eq!(resolve(&root, "loop"), Err(Refusal::Loop));
        assert_eq!(resolve(&root, ""), Ok((root.clone(), Kind::Dir)));
    }
}
