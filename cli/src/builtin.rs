//! The built-in, read-only workspace tools of `ptc run`: Read, Glob and Grep, confined to
//! one root directory.
//!
//! Confinement: every path a guest names is resolved against the root, first lexically
//! (a `..` that climbs above the root is refused before touching the file system), then
//! canonically (symlinks resolved); the canonical path must lie under the canonical root.
//! Directory walks never follow symlinks and list regular files only, so a symlink
//! pointing outside the root can neither be read nor searched.
//!
//! Output formats follow the original's tools: Read prints `cat -n` style numbered lines,
//! Glob newline-separated absolute paths, Grep `path:line:text` lines. Every output is
//! bounded (lines per read, files per glob, matches per grep, bytes per file).

use globset::{Glob, GlobMatcher};
use ptc_runtime::{Registry, RegistryError, ToolContract, ToolRequestCtx, ToolResult};
use serde_json::{Value as Json, json};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

/// Largest file Read or Grep opens.
const MAX_FILE_BYTES: u64 = 10 * 1024 * 1024;
/// Default and largest number of lines one Read returns.
const MAX_READ_LINES: u64 = 2000;
/// Longest line Read and Grep print, in characters.
const MAX_LINE_CHARS: usize = 2000;
/// Most paths one Glob lists.
const MAX_GLOB_RESULTS: usize = 1000;
/// Most lines one Grep prints.
const MAX_GREP_MATCHES: usize = 1000;

/// The root every built-in tool is confined to.
#[derive(Debug, Clone)]
pub struct Workspace {
    root: PathBuf,
}

impl Workspace {
    /// A workspace over `root`, canonicalised.
    ///
    /// # Errors
    /// When the root does not exist or is not a directory.
    pub fn new(root: &Path) -> Result<Self, String> {
        let root = root
            .canonicalize()
            .map_err(|error| format!("cannot use root {}: {error}", root.display()))?;
        if !root.is_dir() {
            return Err(format!("root {} is not a directory", root.display()));
        }
        Ok(Workspace { root })
    }

    /// The canonical root.
    #[must_use]
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// `requested` resolved inside the root, or why it is refused.
    ///
    /// # Errors
    /// The path climbs out of the root (lexically or through a symlink) or does not exist.
    pub fn resolve(&self, requested: &str) -> Result<PathBuf, String> {
        let outside = || format!("Error: path is outside the workspace root: {requested}");
        let joined = if Path::new(requested).is_absolute() {
            PathBuf::from(requested)
        } else {
            self.root.join(requested)
        };
        // Lexical check first, so a path outside the root is refused without revealing
        // whether it exists.
        let mut lexical = PathBuf::new();
        for component in joined.components() {
            match component {
                Component::ParentDir => {
                    if !lexical.pop() {
                        return Err(outside());
                    }
                }
                Component::CurDir => {}
                other => lexical.push(other.as_os_str()),
            }
        }
        if !lexical.starts_with(&self.root) {
            return Err(outside());
        }
        let canonical = joined
            .canonicalize()
            .map_err(|_| format!("Error: file does not exist: {requested}"))?;
        if !canonical.starts_with(&self.root) {
            return Err(outside());
        }
        Ok(canonical)
    }
}

fn arg_str<'a>(arguments: &'a Json, key: &str) -> Option<&'a str> {
    arguments.get(key).and_then(Json::as_str)
}

fn arg_u64(arguments: &Json, key: &str) -> Option<u64> {
    arguments.get(key).and_then(Json::as_u64)
}

fn cut_line(line: &str) -> String {
    match line.char_indices().nth(MAX_LINE_CHARS) {
        Some((byte, _)) => format!("{}...", line.get(..byte).unwrap_or_default()),
        None => line.to_owned(),
    }
}

fn read_text(path: &Path) -> Result<String, String> {
    let metadata = std::fs::metadata(path).map_err(|e| format!("Error: {e}"))?;
    if metadata.is_dir() {
        return Err(format!("Error: {} is a directory", path.display()));
    }
    if metadata.len() > MAX_FILE_BYTES {
        return Err(format!(
            "Error: {} is larger than {MAX_FILE_BYTES} bytes",
            path.display()
        ));
    }
    let bytes = std::fs::read(path).map_err(|e| format!("Error: {e}"))?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// Read: the file's lines from `offset` (1-based), at most `limit`, numbered `cat -n`
/// style.
fn read(workspace: &Workspace, arguments: &Json) -> Result<String, String> {
    let requested = arg_str(arguments, "file_path").unwrap_or_default();
    let path = workspace.resolve(requested)?;
    let text = read_text(&path)?;
    let offset = arg_u64(arguments, "offset").unwrap_or(1).max(1);
    let limit = arg_u64(arguments, "limit")
        .unwrap_or(MAX_READ_LINES)
        .min(MAX_READ_LINES);
    let total = text.lines().count() as u64;
    if total == 0 {
        return Ok(String::new());
    }
    if offset > total {
        return Err(format!(
            "Error: offset {offset} is past the end of {requested} ({total} lines)"
        ));
    }
    let mut out = String::new();
    let skip = usize::try_from(offset - 1).unwrap_or(usize::MAX);
    let take = usize::try_from(limit).unwrap_or(usize::MAX);
    for (number, line) in (offset..).zip(text.lines().skip(skip).take(take)) {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&format!("{number:>6}\t{}", cut_line(line)));
    }
    Ok(out)
}

/// Regular files under `dir` (or `dir` itself when it is a file), sorted, not following
/// symlinks, honouring ignore files, skipping hidden entries.
fn walk(dir: &Path) -> Vec<PathBuf> {
    if dir.is_file() {
        return vec![dir.to_path_buf()];
    }
    let mut files: Vec<PathBuf> = ignore::WalkBuilder::new(dir)
        .follow_links(false)
        .require_git(false)
        .sort_by_file_name(std::cmp::Ord::cmp)
        .build()
        .filter_map(Result::ok)
        .filter(|entry| entry.file_type().is_some_and(|t| t.is_file()))
        .map(ignore::DirEntry::into_path)
        .collect();
    files.sort();
    files
}

fn matcher(pattern: &str) -> Result<GlobMatcher, String> {
    Glob::new(pattern)
        .map(|glob| glob.compile_matcher())
        .map_err(|error| format!("Error: invalid glob pattern: {error}"))
}

fn base_dir(workspace: &Workspace, arguments: &Json) -> Result<PathBuf, String> {
    match arg_str(arguments, "path") {
        Some(path) => workspace.resolve(path),
        None => Ok(workspace.root().to_path_buf()),
    }
}

/// Glob: absolute paths of the files under `path` whose path relative to it matches
/// `pattern`.
fn glob(workspace: &Workspace, arguments: &Json) -> Result<String, String> {
    let pattern = arg_str(arguments, "pattern").unwrap_or_default();
    let matcher = globset::GlobBuilder::new(pattern)
        .literal_separator(true)
        .build()
        .map_err(|error| format!("Error: invalid glob pattern: {error}"))?
        .compile_matcher();
    let base = base_dir(workspace, arguments)?;
    let mut lines = Vec::new();
    for file in walk(&base) {
        let relative = file.strip_prefix(&base).unwrap_or(&file);
        if matcher.is_match(relative) {
            if lines.len() == MAX_GLOB_RESULTS {
                lines.push(format!(
                    "... (results truncated at {MAX_GLOB_RESULTS} files)"
                ));
                break;
            }
            lines.push(file.display().to_string());
        }
    }
    if lines.is_empty() {
        return Ok("No files found".to_owned());
    }
    Ok(lines.join("\n"))
}

/// Grep: `path:line:text` for every line matching the regex `pattern` in the files under
/// `path` (optionally only those matching `glob`).
fn grep(workspace: &Workspace, arguments: &Json) -> Result<String, String> {
    let pattern = arg_str(arguments, "pattern").unwrap_or_default();
    let regex = regex::RegexBuilder::new(pattern)
        .case_insensitive(arguments.get("ignore_case").and_then(Json::as_bool) == Some(true))
        .size_limit(1 << 20)
        .build()
        .map_err(|error| format!("Error: invalid regex: {error}"))?;
    let filter = arg_str(arguments, "glob").map(matcher).transpose()?;
    let base = base_dir(workspace, arguments)?;
    let mut lines = Vec::new();
    'files: for file in walk(&base) {
        if let Some(filter) = &filter {
            let name = file.file_name().map(Path::new).unwrap_or(&file);
            let relative = file.strip_prefix(&base).unwrap_or(&file);
            if !filter.is_match(name) && !filter.is_match(relative) {
                continue;
            }
        }
        let Ok(metadata) = std::fs::metadata(&file) else {
            continue;
        };
        if metadata.len() > MAX_FILE_BYTES {
            continue;
        }
        let Ok(bytes) = std::fs::read(&file) else {
            continue;
        };
        if bytes.iter().take(8192).any(|b| *b == 0) {
            continue; // binary
        }
        let text = String::from_utf8_lossy(&bytes);
        for (number, line) in (1u64..).zip(text.lines()) {
            if regex.is_match(line) {
                if lines.len() == MAX_GREP_MATCHES {
                    lines.push(format!(
                        "... (results truncated at {MAX_GREP_MATCHES} matches)"
                    ));
                    break 'files;
                }
                lines.push(format!("{}:{number}:{}", file.display(), cut_line(line)));
            }
        }
    }
    if lines.is_empty() {
        return Ok("No matches found".to_owned());
    }
    Ok(lines.join("\n"))
}

type ToolFn = fn(&Workspace, &Json) -> Result<String, String>;

fn handler(workspace: Arc<Workspace>, tool: ToolFn) -> impl ptc_runtime::ToolHandler {
    move |request: ToolRequestCtx| {
        let result = match tool(&workspace, &request.arguments) {
            Ok(text) => ToolResult::text(text),
            Err(message) => ToolResult::error(message),
        };
        std::future::ready(result)
    }
}

/// Registers Read, Glob and Grep over `workspace`, skipping names in `skip`.
///
/// # Errors
/// As [`Registry::register`].
pub fn register(
    registry: &mut Registry,
    workspace: &Arc<Workspace>,
    skip: &[String],
) -> Result<(), RegistryError> {
    let tools: [(&str, &str, Json, ToolFn); 3] = [
        (
            "Read",
            "Reads a text file of the workspace, lines numbered like `cat -n`. offset is the first line (1-based), limit the number of lines (at most 2000).",
            json!({"type": "object", "properties": {
                "file_path": {"type": "string", "description": "Path relative to the workspace root, or absolute inside it"},
                "offset": {"type": "integer", "minimum": 1},
                "limit": {"type": "integer", "minimum": 1}},
              "required": ["file_path"], "additionalProperties": false}),
            read,
        ),
        (
            "Glob",
            "Lists workspace files whose path matches a glob pattern such as **/*.rs, as newline-separated absolute paths.",
            json!({"type": "object", "properties": {
                "pattern": {"type": "string"},
                "path": {"type": "string", "description": "Directory to search, default the root"}},
              "required": ["pattern"], "additionalProperties": false}),
            glob,
        ),
        (
            "Grep",
            "Searches workspace files for a regular expression, printing path:line:text for every matching line.",
            json!({"type": "object", "properties": {
                "pattern": {"type": "string"},
                "path": {"type": "string", "description": "File or directory to search, default the root"},
                "glob": {"type": "string", "description": "Only files whose name or relative path matches"},
                "ignore_case": {"type": "boolean"}},
              "required": ["pattern"], "additionalProperties": false}),
            grep,
        ),
    ];
    for (name, description, schema, tool) in tools {
        if skip.iter().any(|s| s == name) {
            continue;
        }
        registry.register(
            ToolContract::new(name, description, schema),
            handler(workspace.clone(), tool),
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture() -> (tempfile::TempDir, Workspace) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("root");
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::write(root.join("src/a.rs"), "fn main() {}\nlet x = 1;\n").unwrap();
        std::fs::write(root.join("notes.txt"), "one\ntwo\nthree\n").unwrap();
        std::fs::write(dir.path().join("secret.txt"), "top secret\n").unwrap();
        let workspace = Workspace::new(&root).unwrap();
        (dir, workspace)
    }

    #[test]
    fn read_numbers_lines_with_offset_and_limit() {
        let (_dir, workspace) = fixture();
        let out = read(
            &workspace,
            &json!({"file_path": "notes.txt", "offset": 2, "limit": 1}),
        );
        assert_eq!(out.unwrap(), "     2\ttwo");
        let out = read(&workspace, &json!({"file_path": "notes.txt"}));
        assert_eq!(out.unwrap(), "     1\tone\n     2\ttwo\n     3\tthree");
        let out = read(&workspace, &json!({"file_path": "notes.txt", "offset": 9}));
        assert_eq!(
            out.unwrap_err(),
            "Error: offset 9 is past the end of notes.txt (3 lines)"
        );
    }

    #[test]
    fn paths_cannot_escape_the_root() {
        let (dir, workspace) = fixture();
        for path in ["../secret.txt", "src/../../secret.txt", "/etc/passwd"] {
            assert_eq!(
                read(&workspace, &json!({ "file_path": path })).unwrap_err(),
                format!("Error: path is outside the workspace root: {path}")
            );
        }
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(
                dir.path().join("secret.txt"),
                workspace.root().join("link"),
            )
            .unwrap();
            std::os::unix::fs::symlink(dir.path(), workspace.root().join("up")).unwrap();
            assert_eq!(
                read(&workspace, &json!({"file_path": "link"})).unwrap_err(),
                "Error: path is outside the workspace root: link"
            );
            assert_eq!(
                grep(&workspace, &json!({"pattern": "secret", "path": "up"})).unwrap_err(),
                "Error: path is outside the workspace root: up"
            );
            // Walks do not follow symlinks.
            assert_eq!(
                grep(&workspace, &json!({"pattern": "secret"})).unwrap(),
                "No matches found"
            );
        }
    }

    #[test]
    fn glob_and_grep_list_workspace_files() {
        let (_dir, workspace) = fixture();
        let root = workspace.root().display().to_string();
        assert_eq!(
            glob(&workspace, &json!({"pattern": "**/*.rs"})).unwrap(),
            format!("{root}/src/a.rs")
        );
        assert_eq!(
            glob(&workspace, &json!({"pattern": "*.rs"})).unwrap(),
            "No files found"
        );
        assert_eq!(
            grep(&workspace, &json!({"pattern": "^let"})).unwrap(),
            format!("{root}/src/a.rs:2:let x = 1;")
        );
        assert_eq!(
            grep(
                &workspace,
                &json!({"pattern": "T", "ignore_case": true, "glob": "*.txt"})
            )
            .unwrap(),
            format!("{root}/notes.txt:2:two\n{root}/notes.txt:3:three")
        );
        assert!(grep(&workspace, &json!({"pattern": "("})).is_err());
    }
}
