//! The purely syntactic `file-name-*` helpers: they never touch a file system.
//!
//! They follow Emacs on POSIX names with file-name handlers disabled, as the original runs
//! them: `/` is the only separator, nothing is expanded or resolved, a leading `.` does not
//! start an extension (`.emacs` has none) and a backup-version suffix (`~` or `.~N~`) is
//! ignored when looking for the extension, as `file-name-sans-versions` does.
//! `file-name-base` without an argument would read the current buffer's file name; a guest
//! has no buffer, so it fails as Emacs does on a nil file name.

use super::PrimCtx;
use super::string::{new_string, string_arg, text_units, wrong_type};
use crate::error::Result;
use crate::value::Value;

/// The part after the last `/`.
fn nondirectory_of(name: &str) -> &str {
    name.rfind('/')
        .and_then(|slash| name.get(slash + 1..))
        .unwrap_or(name)
}

/// The part up to and including the last `/`, if any.
fn directory_of(name: &str) -> Option<&str> {
    name.rfind('/').and_then(|slash| name.get(..=slash))
}

/// `file-name-sans-versions`: `name` without a trailing `.~N~` or `~`.
fn sans_versions(name: &str) -> &str {
    let Some(body) = name.strip_suffix('~') else {
        return name;
    };
    if let Some(dot) = body.rfind(".~") {
        let version = body.get(dot + 2..).unwrap_or("");
        if !version.is_empty() && version.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
            return name.get(..dot).unwrap_or(name);
        }
    }
    body
}

/// The byte offset of the extension's `.` in `file` (a nondirectory, version-free name):
/// Emacs's `"\\.[^.]*\\'"` matching anywhere but at position 0.
fn extension_dot(file: &str) -> Option<usize> {
    file.rfind('.').filter(|&dot| dot != 0)
}

fn filename_arg<'v>(ctx: &mut PrimCtx<'_>, args: &'v [Value]) -> Result<&'v str> {
    let name = string_arg(ctx, args.first().unwrap_or(&Value::Nil))?;
    ctx.charge(text_units(name.len()));
    Ok(name)
}

/// `(file-name-nondirectory FILENAME)`: `"a/b.c"` → `"b.c"`, `"a/"` → `""`.
pub(super) fn nondirectory(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let name = filename_arg(ctx, args)?;
    Ok(new_string(ctx, nondirectory_of(name).to_owned()))
}

/// `(file-name-directory FILENAME)`: `"a/b"` → `"a/"`, `"b"` → nil.
pub(super) fn directory(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let name = filename_arg(ctx, args)?;
    Ok(match directory_of(name) {
        Some(directory) => new_string(ctx, directory.to_owned()),
        None => Value::Nil,
    })
}

/// `(file-name-concat DIRECTORY &rest COMPONENTS)`: nil and empty components are skipped;
/// a `/` is inserted after every component but the last that does not already end in one.
pub(super) fn concat(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let mut parts = Vec::with_capacity(args.len());
    for arg in args {
        match arg {
            Value::Nil => {}
            Value::Str(text) if text.as_str().is_empty() => {}
            Value::Str(text) => parts.push(text.as_str()),
            other => return Err(wrong_type(ctx, "stringp", other)),
        }
    }
    let mut out = String::new();
    let last = parts.len().saturating_sub(1);
    for (index, part) in parts.into_iter().enumerate() {
        out.push_str(part);
        if index < last && !part.ends_with('/') {
            out.push('/');
        }
    }
    Ok(new_string(ctx, out))
}

/// `(file-name-extension FILENAME &optional PERIOD)`: `"a.b.c"` → `"c"` (`".c"` with
/// PERIOD); no extension → nil (`""` with PERIOD); `".emacs"` has none.
pub(super) fn extension(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let name = filename_arg(ctx, args)?;
    let period = args.get(1).is_some_and(Value::is_true);
    let file = sans_versions(nondirectory_of(name));
    Ok(match extension_dot(file) {
        Some(dot) => {
            let from = if period { dot } else { dot + 1 };
            new_string(ctx, file.get(from..).unwrap_or("").to_owned())
        }
        None if period => new_string(ctx, String::new()),
        None => Value::Nil,
    })
}

/// `FILENAME` without its extension (and version suffix), or unchanged when it has none.
fn sans_extension_of(name: &str) -> String {
    let file = sans_versions(nondirectory_of(name));
    match extension_dot(file) {
        Some(dot) => {
            let mut out = directory_of(name).unwrap_or("").to_owned();
            out.push_str(file.get(..dot).unwrap_or(file));
            out
        }
        None => name.to_owned(),
    }
}

/// `(file-name-sans-extension FILENAME)`: `"a/b.c"` → `"a/b"`, `".emacs"` → `".emacs"`.
pub(super) fn sans_extension(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let name = filename_arg(ctx, args)?;
    Ok(new_string(ctx, sans_extension_of(name)))
}

/// `(file-name-base &optional FILENAME)`: `"a/b.c"` → `"b"`.
pub(super) fn base(ctx: &mut PrimCtx<'_>, args: &[Value]) -> Result<Value> {
    let name = filename_arg(ctx, args)?;
    Ok(new_string(ctx, sans_extension_of(nondirectory_of(name))))
}
