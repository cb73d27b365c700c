//! The built-in, read-only workspace tools of `ptc run`: Read, Glob and Grep, confined to
//! one root directory.
//!
//! Confinement ([`crate::confine`]): every path a guest names is resolved inside the root
//! one component at a time without looking outside it, so everything that does not resolve
//! inside the root gets one answer ("path is outside the workspace root"); only regular
//! files and directories are used, opened without blocking and read up to a byte cap
//! counted on what is read. Walks ([`crate::walk`]) never follow symlinks and honour only
//! the ignore files inside the root.
//!
//! Blocking: each call's file work runs on its own worker thread, never on the async
//! executor, so the runtime's per-call timeout and cancellation fire on time. When the
//! call's future is dropped (timeout, cancellation, the run ending) or the call's cancel
//! token fires, the worker sees its stop flag at its next poll (per directory entry, per
//! 64 KiB read, per line searched) and ends; its result is discarded. The worker holds
//! nothing but its own buffers, so abandoning it is safe.
//!
//! Output formats follow the original's tools: Read prints `cat -n` style numbered lines,
//! Glob newline-separated absolute paths, Grep `path:line:text` lines. Every output is
//! bounded (lines per read, files per glob, matches per grep, bytes per file).

use crate::confine::{self, Kind, ReadError, Refusal};
use crate::walk;
use globset::{Glob, GlobMatcher};
use ptc_runtime::{CancelToken, Registry, RegistryError, ToolContract, ToolRequestCtx, ToolResult};
use serde_json::{Value as Json, json};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Largest file Read or Grep opens, counted in bytes read.
pub const MAX_FILE_BYTES: u64 = 10 * 1024 * 1024;
/// Default and largest number of lines one Read returns.
const MAX_READ_LINES: u64 = 2000;
/// Longest line Read and Grep print, in characters.
const MAX_LINE_CHARS: usize = 2000;
/// Most paths one Glob lists.
const MAX_GLOB_RESULTS: usize = 1000;
/// Most lines one Grep prints.
const MAX_GREP_MATCHES: usize = 1000;
/// Compiled-size limit of a Grep regex (bytes), and of its lazy-DFA cache.
const GREP_REGEX_SIZE: usize = 1 << 20;

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

    /// `requested` resolved inside the root, with its kind, or the guest-visible refusal.
    ///
    /// # Errors
    /// See [`confine::resolve`].
    pub fn resolve(&self, requested: &str) -> Result<(PathBuf, Kind), String> {
        confine::resolve(&self.root, requested).map_err(|refusal| refusal.message(requested))
    }
}

/// A call's stop flag: raised when the call's future is dropped or its cancel token fires.
#[derive(Debug, Clone, Default)]
pub struct Stop {
    flag: Arc<AtomicBool>,
    cancel: Option<CancelToken>,
}

impl Stop {
    /// A flag that is never raised (tests, the fuzz target).
    #[must_use]
    pub fn never() -> Self {
        Stop::default()
    }

    /// Whether the work should stop.
    #[must_use]
    pub fn is_set(&self) -> bool {
        self.flag.load(Ordering::Relaxed)
            || self.cancel.as_ref().is_some_and(CancelToken::is_cancelled)
    }

    /// Raises the flag.
    pub fn raise(&self) {
        self.flag.store(true, Ordering::Relaxed);
    }
}

/// Raises its [`Stop`] when dropped: held by the call's future.
struct RaiseOnDrop(Stop);

impl Drop for RaiseOnDrop {
    fn drop(&mut self) {
        self.0.raise();
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

/// The bytes of the regular file at `path` (resolved), up to [`MAX_FILE_BYTES`] read.
fn read_file(path: &Path, requested: &str, stop: &Stop) -> Result<Vec<u8>, String> {
    let (mut file, _) = confine::open_regular(path).map_err(|r| r.message(requested))?;
    confine::read_bounded(&mut file, MAX_FILE_BYTES, &|| stop.is_set()).map_err(|error| match error
    {
        ReadError::TooLarge => format!("Error: {requested} is larger than {MAX_FILE_BYTES} bytes"),
        ReadError::Failed => format!("Error: cannot read {requested}"),
        ReadError::Stopped => Refusal::Stopped.message(requested),
    })
}

/// Read: the file's lines from `offset` (1-based), at most `limit`, numbered `cat -n`
/// style.
pub fn read(workspace: &Workspace, arguments: &Json, stop: &Stop) -> Result<String, String> {
    let requested = arg_str(arguments, "file_path").unwrap_or_default();
    let (path, kind) = workspace.resolve(requested)?;
    if kind == Kind::Dir {
        return Err(format!("Error: {requested} is a directory"));
    }
    let bytes = read_file(&path, requested, stop)?;
    let text = String::from_utf8_lossy(&bytes);
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

fn matcher(pattern: &str) -> Result<GlobMatcher, String> {
    Glob::new(pattern)
        .map(|glob| glob.compile_matcher())
        .map_err(|error| format!("Error: invalid glob pattern: {error}"))
}

/// The walk base: the `path` argument resolved, or the root.
fn base_dir(workspace: &Workspace, arguments: &Json) -> Result<(PathBuf, Kind), String> {
    match arg_str(arguments, "path") {
        Some(path) => workspace.resolve(path),
        None => Ok((workspace.root().to_path_buf(), Kind::Dir)),
    }
}

fn walk_files(
    workspace: &Workspace,
    base: &Path,
    kind: Kind,
    stop: &Stop,
) -> Result<walk::Walked, String> {
    let walked = walk::walk(workspace.root(), base, kind == Kind::Dir, &|| stop.is_set());
    if stop.is_set() {
        return Err(Refusal::Stopped.message(""));
    }
    Ok(walked)
}

/// Glob: absolute paths of the files under `path` whose path relative to it matches
/// `pattern`.
pub fn glob(workspace: &Workspace, arguments: &Json, stop: &Stop) -> Result<String, String> {
    let pattern = arg_str(arguments, "pattern").unwrap_or_default();
    let matcher = globset::GlobBuilder::new(pattern)
        .literal_separator(true)
        .build()
        .map_err(|error| format!("Error: invalid glob pattern: {error}"))?
        .compile_matcher();
    let (base, kind) = base_dir(workspace, arguments)?;
    let walked = walk_files(workspace, &base, kind, stop)?;
    let mut lines = Vec::new();
    for file in &walked.files {
        let relative = file.strip_prefix(&base).unwrap_or(file);
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
    if walked.truncated {
        lines.push(format!(
            "... (walk stopped after {} entries)",
            walk::MAX_WALK_ENTRIES
        ));
    }
    if lines.is_empty() {
        return Ok("No files found".to_owned());
    }
    Ok(lines.join("\n"))
}

/// Grep: `path:line:text` for every line matching the regex `pattern` in the files under
/// `path` (optionally only those matching `glob`).
pub fn grep(workspace: &Workspace, arguments: &Json, stop: &Stop) -> Result<String, String> {
    let pattern = arg_str(arguments, "pattern").unwrap_or_default();
    let regex = regex::RegexBuilder::new(pattern)
        .case_insensitive(arguments.get("ignore_case").and_then(Json::as_bool) == Some(true))
        .size_limit(GREP_REGEX_SIZE)
        .dfa_size_limit(GREP_REGEX_SIZE)
        .build()
        .map_err(|error| format!("Error: invalid regex: {error}"))?;
    let filter = arg_str(arguments, "glob").map(matcher).transpose()?;
    let (base, kind) = base_dir(workspace, arguments)?;
    let walked = walk_files(workspace, &base, kind, stop)?;
    let mut lines = Vec::new();
    'files: for file in &walked.files {
        if let Some(filter) = &filter {
            let name = file.file_name().map(Path::new).unwrap_or(file);
            let relative = file.strip_prefix(&base).unwrap_or(file);
            if !filter.is_match(name) && !filter.is_match(relative) {
                continue;
            }
        }
        let Ok(bytes) = read_file(file, "", stop) else {
            if stop.is_set() {
                return Err(Refusal::Stopped.message(""));
            }
            continue;
        };
        if bytes.iter().take(8192).any(|b| *b == 0) {
            continue; // binary
        }
        let text = String::from_utf8_lossy(&bytes);
        for (number, line) in (1u64..).zip(text.lines()) {
            if stop.is_set() {
                return Err(Refusal::Stopped.message(""));
            }
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
    if walked.truncated {
        lines.push(format!(
            "... (walk stopped after {} entries)",
            walk::MAX_WALK_ENTRIES
        ));
    }
    if lines.is_empty() {
        return Ok("No matches found".to_owned());
    }
    Ok(lines.join("\n"))
}

type ToolFn = fn(&Workspace, &Json, &Stop) -> Result<String, String>;

/// Runs `tool` on a worker thread of its own; the returned future waits for it and raises
/// the stop flag when dropped.
fn offload(
    workspace: Arc<Workspace>,
    tool: ToolFn,
    request: ToolRequestCtx,
) -> impl Future<Output = ToolResult> + Send + 'static {
    let stop = Stop {
        flag: Arc::default(),
        cancel: Some(request.cancel().clone()),
    };
    let guard = RaiseOnDrop(stop.clone());
    let (send, receive) = tokio::sync::oneshot::channel();
    let name = request.tool.clone();
    let spawned = std::thread::Builder::new()
        .name(format!("ptc-{name}"))
        .spawn(move || {
            let result = tool(&workspace, &request.arguments, &stop);
            // The receiver is gone when the call was abandoned: nothing to do.
            let _ = send.send(result);
        });
    async move {
        let _guard = guard;
        if spawned.is_err() {
            return ToolResult::error(format!("Error: {name} could not start a worker thread"));
        }
        match receive.await {
            Ok(Ok(text)) => ToolResult::text(text),
            Ok(Err(message)) => ToolResult::error(message),
            // The worker died without answering (a panic, reported on the host's stderr).
            Err(_) => ToolResult::error(format!("Error: {name} failed internally")),
        }
    }
}

fn handler(workspace: Arc<Workspace>, tool: ToolFn) -> impl ptc_runtime::ToolHandler {
    move |request: ToolRequestCtx| offload(workspace.clone(), tool, request)
}

/// Registers Read, Glob and Grep over `workspace`, skipping names in `skip`. Their schemas
/// are constants: registered trusted ([`Registry::register_trusted`]), compiled on first call.
///
/// # Errors
/// As [`Registry::register_trusted`].
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
        // Constant schemas, compiled on first call (the tests compile each one).
        registry.register_trusted(
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
    fn every_builtin_schema_compiles() {
        // The built-in tools register trusted (compiled on first call): this is the check
        // registration would otherwise make.
        let (_dir, workspace) = fixture();
        let mut registry = Registry::new();
        register(&mut registry, &Arc::new(workspace), &[]).unwrap();
        let names: Vec<_> = registry.tools().map(|t| t.contract.name.clone()).collect();
        assert_eq!(names, ["Read", "Glob", "Grep"]);
        for tool in registry.tools() {
            assert!(tool.validator().is_ok(), "{}", tool.contract.name);
        }
    }

    #[test]
    fn read_numbers_lines_with_offset_and_limit() {
        let (_dir, workspace) = fixture();
        let out = read(
            &workspace,
            &json!({"file_path": "notes.txt", "offset": 2, "limit": 1}),
            &Stop::never(),
        );
        assert_eq!(out.unwrap(), "     2\ttwo");
        let out = read(
            &workspace,
            &json!({"file_path": "notes.txt"}),
            &Stop::never(),
        );
        assert_eq!(out.unwrap(), "     1\tone\n     2\ttwo\n     3\tthree");
        let out = read(
            &workspace,
            &json!({"file_path": "notes.txt", "offset": 9}),
            &Stop::never(),
        );
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
                read(&workspace, &json!({ "file_path": path }), &Stop::never()).unwrap_err(),
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
                read(&workspace, &json!({"file_path": "link"}), &Stop::never()).unwrap_err(),
                "Error: path is outside the workspace root: link"
            );
            assert_eq!(
                grep(
                    &workspace,
                    &json!({"pattern": "secret", "path": "up"}),
                    &Stop::never()
                )
                .unwrap_err(),
                "Error: path is outside the workspace root: up"
            );
            // Walks do not follow symlinks.
            assert_eq!(
                grep(&workspace, &json!({"pattern": "secret"}), &Stop::never()).unwrap(),
                "No matches found"
            );
        }
    }

    #[test]
    fn glob_and_grep_list_workspace_files() {
        let (_dir, workspace) = fixture();
        let root = workspace.root().display().to_string();
        assert_eq!(
            glob(&workspace, &json!({"pattern": "**/*.rs"}), &Stop::never()).unwrap(),
            format!("{root}/src/a.rs")
        );
        assert_eq!(
            glob(&workspace, &json!({"pattern": "*.rs"}), &Stop::never()).unwrap(),
            "No files found"
        );
        assert_eq!(
            grep(&workspace, &json!({"pattern": "^let"}), &Stop::never()).unwrap(),
            format!("{root}/src/a.rs:2:let x = 1;")
        );
        assert_eq!(
            grep(
                &workspace,
                &json!({"pattern": "T", "ignore_case": true, "glob": "*.txt"}),
                &Stop::never()
            )
            .unwrap(),
            format!("{root}/notes.txt:2:two\n{root}/notes.txt:3:three")
        );
        assert!(grep(&workspace, &json!({"pattern": "("}), &Stop::never()).is_err());
    }
}
