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
//! Contracts follow Claude Code's Read, Glob and Grep where they overlap, so a model
//! writes the calls it already knows: Read prints `cat -n` style numbered lines, Glob
//! newline-separated paths in path order, Grep ripgrep's output modes ([`crate::grep`]).
//! Paths in results are relative to the root unless the call named an absolute `path`.
//! No match is the empty string, never prose: every line of a result is a datum, so a
//! script that splits and counts counts right. Every output is bounded
//! ([`MAX_OUTPUT_BYTES`], bytes per file, characters per line, walk entries); where a
//! bound cuts a result short, it ends at a whole line and carries a note (a context note of
//! the ToolCall result) instead of a line of prose.

use crate::confine::{self, Kind, ReadError, Refusal};
use crate::walk;
use ptc_runtime::core::RegistryError;
use ptc_runtime::{CancelToken, Registry, ToolContract, ToolRequestCtx, ToolResult};
use serde_json::{Value as Json, json};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Largest file Read or Grep opens, counted in bytes read.
pub const MAX_FILE_BYTES: u64 = 10 * 1024 * 1024;
/// Largest text one Read, Glob or Grep answers, in bytes (cut at a whole line, with a note).
pub const MAX_OUTPUT_BYTES: usize = 10 * 1024 * 1024;
/// Lines one Read returns when no `limit` is given (Claude Code's default).
const DEFAULT_READ_LINES: u64 = 2000;
/// Longest line Read and Grep print, in characters.
const MAX_LINE_CHARS: usize = 2000;

/// What a built-in tool answers: its text, and the notes that say where a bound cut it
/// short (context notes of the ToolCall result, never part of the text).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Answer {
    /// The result text: one datum per line, empty when nothing matched.
    pub text: String,
    /// Truncation notes.
    pub notes: Vec<String>,
}

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

pub(crate) fn arg_str<'a>(arguments: &'a Json, key: &str) -> Option<&'a str> {
    arguments.get(key).and_then(Json::as_str)
}

pub(crate) fn arg_u64(arguments: &Json, key: &str) -> Option<u64> {
    arguments.get(key).and_then(Json::as_u64)
}

pub(crate) fn arg_bool(arguments: &Json, key: &str) -> bool {
    arguments.get(key).and_then(Json::as_bool) == Some(true)
}

pub(crate) fn cut_line(line: &str) -> String {
    match line.char_indices().nth(MAX_LINE_CHARS) {
        Some((byte, _)) => format!("{}...", line.get(..byte).unwrap_or_default()),
        None => line.to_owned(),
    }
}

/// How a result names `file` (a resolved path inside the root): absolute when the call's
/// `path` was absolute, else relative to the root.
pub(crate) fn display_path(workspace: &Workspace, arguments: &Json, file: &Path) -> String {
    let absolute = arg_str(arguments, "path").is_some_and(|p| Path::new(p).has_root());
    if absolute {
        return file.display().to_string();
    }
    match file.strip_prefix(workspace.root()) {
        Ok(relative) if relative.as_os_str().is_empty() => ".".to_owned(),
        Ok(relative) => relative.display().to_string(),
        Err(_) => file.display().to_string(),
    }
}

/// The bytes of the regular file at `path` (resolved), up to [`MAX_FILE_BYTES`] read.
pub(crate) fn read_file(path: &Path, requested: &str, stop: &Stop) -> Result<Vec<u8>, String> {
    let (mut file, _) = confine::open_regular(path).map_err(|r| r.message(requested))?;
    confine::read_bounded(&mut file, MAX_FILE_BYTES, &|| stop.is_set()).map_err(|error| match error
    {
        ReadError::TooLarge => format!("Error: {requested} is larger than {MAX_FILE_BYTES} bytes"),
        ReadError::Failed => format!("Error: cannot read {requested}"),
        ReadError::Stopped => Refusal::Stopped.message(requested),
    })
}

/// Read with its truncation note: the file's lines from `offset` (1-based), `limit` of them
/// (default 2000), numbered `cat -n` style (the number right-aligned in 6 columns, a tab,
/// the line cut at 2000 characters).
///
/// # Errors
/// A guest-visible message: a path refused by [`crate::confine`], a directory, a file
/// over [`MAX_FILE_BYTES`], an offset past the end, or the call being stopped.
pub fn read_answer(workspace: &Workspace, arguments: &Json, stop: &Stop) -> Result<Answer, String> {
    let requested = arg_str(arguments, "file_path").unwrap_or_default();
    let (path, kind) = workspace.resolve(requested)?;
    if kind == Kind::Dir {
        return Err(format!("Error: {requested} is a directory"));
    }
    let bytes = read_file(&path, requested, stop)?;
    let text = String::from_utf8_lossy(&bytes);
    let offset = arg_u64(arguments, "offset").unwrap_or(1).max(1);
    let limit = arg_u64(arguments, "limit").unwrap_or(DEFAULT_READ_LINES);
    let total = text.lines().count() as u64;
    if total == 0 {
        return Ok(Answer::default());
    }
    if offset > total {
        return Err(format!(
            "Error: offset {offset} is past the end of {requested} ({total} lines)"
        ));
    }
    let mut answer = Answer::default();
    let skip = usize::try_from(offset - 1).unwrap_or(usize::MAX);
    let take = usize::try_from(limit).unwrap_or(usize::MAX);
    for (number, line) in (offset..).zip(text.lines().skip(skip).take(take)) {
        let entry = format!("{number:>6}\t{}", cut_line(line));
        if answer.text.len() + entry.len() + 1 > MAX_OUTPUT_BYTES {
            answer.notes.push(format!(
                "Read stopped before line {number} of {requested}: the output would exceed \
                 {MAX_OUTPUT_BYTES} bytes; continue with :offset {number}"
            ));
            break;
        }
        if !answer.text.is_empty() {
            answer.text.push('\n');
        }
        answer.text.push_str(&entry);
    }
    Ok(answer)
}

/// Read's text (see [`read_answer`]), without its notes.
///
/// # Errors
/// As [`read_answer`].
pub fn read(workspace: &Workspace, arguments: &Json, stop: &Stop) -> Result<String, String> {
    read_answer(workspace, arguments, stop).map(|answer| answer.text)
}

/// The walk base: the `path` argument resolved, or the root.
pub(crate) fn base_dir(workspace: &Workspace, arguments: &Json) -> Result<(PathBuf, Kind), String> {
    match arg_str(arguments, "path") {
        Some(path) => workspace.resolve(path),
        None => Ok((workspace.root().to_path_buf(), Kind::Dir)),
    }
}

pub(crate) fn walk_files(
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

/// Glob with its truncation notes: the files under `path` (default the root) whose path
/// relative to it matches `pattern` (`*` within one component, `**` across components,
/// `{a,b}` alternatives), in path order, one per line; empty when none match.
///
/// # Errors
/// A guest-visible message: an invalid pattern, a path refused by [`crate::confine`], or
/// the call being stopped.
pub fn glob_answer(workspace: &Workspace, arguments: &Json, stop: &Stop) -> Result<Answer, String> {
    let pattern = arg_str(arguments, "pattern").unwrap_or_default();
    let matcher = globset::GlobBuilder::new(pattern)
        .literal_separator(true)
        .build()
        .map_err(|error| format!("Error: invalid glob pattern: {error}"))?
        .compile_matcher();
    let (base, kind) = base_dir(workspace, arguments)?;
    let walked = walk_files(workspace, &base, kind, stop)?;
    let mut answer = Answer::default();
    for file in &walked.files {
        let relative = file.strip_prefix(&base).unwrap_or(file);
        if matcher.is_match(relative) {
            let shown = display_path(workspace, arguments, file);
            if answer.text.len() + shown.len() + 1 > MAX_OUTPUT_BYTES {
                answer.notes.push(format!(
                    "Glob listing stopped at {MAX_OUTPUT_BYTES} bytes; narrow the pattern or path"
                ));
                break;
            }
            if !answer.text.is_empty() {
                answer.text.push('\n');
            }
            answer.text.push_str(&shown);
        }
    }
    if walked.truncated {
        answer.notes.push(format!(
            "Glob examined only the first {} directory entries",
            walk::MAX_WALK_ENTRIES
        ));
    }
    Ok(answer)
}

/// Glob's text (see [`glob_answer`]), without its notes.
///
/// # Errors
/// As [`glob_answer`].
pub fn glob(workspace: &Workspace, arguments: &Json, stop: &Stop) -> Result<String, String> {
    glob_answer(workspace, arguments, stop).map(|answer| answer.text)
}

pub use crate::grep::{grep, grep_answer};

type ToolFn = fn(&Workspace, &Json, &Stop) -> Result<Answer, String>;

/// Sees every built-in call's arguments and answer (on the call's worker thread), before
/// the answer goes back to the run: what a test harness records.
pub type Observer = Arc<dyn Fn(&str, &Json, &Result<Answer, String>) + Send + Sync>;

/// Runs `tool` on a worker thread of its own; the returned future waits for it and raises
/// the stop flag when dropped.
fn offload(
    workspace: Arc<Workspace>,
    tool: ToolFn,
    observer: Option<Observer>,
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
            if let Some(observer) = observer {
                observer(&request.tool, &request.arguments, &result);
            }
            // The receiver is gone when the call was abandoned: nothing to do.
            let _ = send.send(result);
        });
    async move {
        let _guard = guard;
        if spawned.is_err() {
            return ToolResult::error(format!("Error: {name} could not start a worker thread"));
        }
        match receive.await {
            Ok(Ok(answer)) => {
                let mut result = ToolResult::text(answer.text);
                result.notes = answer.notes;
                result
            }
            Ok(Err(message)) => ToolResult::error(message),
            // The worker died without answering (a panic, reported on the host's stderr).
            Err(_) => ToolResult::error(format!("Error: {name} failed internally")),
        }
    }
}

fn handler(
    workspace: Arc<Workspace>,
    tool: ToolFn,
    observer: Option<Observer>,
) -> impl ptc_runtime::ToolHandler {
    move |request: ToolRequestCtx| offload(workspace.clone(), tool, observer.clone(), request)
}

/// Read's description: what the model reads.
const READ_DESCRIPTION: &str = "Reads a text file of the workspace, lines numbered like `cat -n`. \
Each line is the line number right-aligned in 6 columns, a tab, then the text (lines over 2000 \
characters are cut). offset is the first line (1-based), limit the number of lines (default 2000). \
An empty file gives the empty string.";

/// Glob's description.
const GLOB_DESCRIPTION: &str = "Lists the workspace files whose path matches a glob pattern such as \
**/*.rs or src/**/*.{ts,tsx}, one path per line, sorted by path. Paths are relative to the \
workspace root (absolute when path is given as an absolute path), ready for Read. No match gives \
the empty string. Hidden files and files ignored by .gitignore/.ignore are skipped.";

/// Grep's description.
const GREP_DESCRIPTION: &str = "Searches workspace file contents with a regular expression \
(ripgrep/Rust regex syntax: \\s, \\w, \\b, (a|b), (?:...), {n,m}; escape literal braces). \
output_mode files_with_matches (default) gives one matching file path per line; content gives \
PATH:LINE:TEXT per matching line (PATH-LINE-TEXT for context lines, -- between separate groups; \
without -n, PATH:TEXT); count gives PATH:N (matching lines per file). Paths are relative to the \
workspace root (absolute when path is absolute), files in path order. No match gives the empty \
string. Filter files with glob (e.g. *.rs, **/*.{ts,tsx}) or type (ripgrep file types: rust, py, \
js, ts, go, java, c, cpp, md, toml, json, ...). head_limit keeps the first N entries (lines in \
content mode) after skipping offset. multiline lets . match newlines and matches span lines.";

/// Listing summaries (the one line per tool the ToolCall listing shows): the contract a
/// script depends on, where the description's first sentence would not carry it.
const GLOB_SUMMARY: &str = "Lists workspace files matching a glob such as **/*.rs: one \
root-relative path per line, sorted by path; empty when none match.";
const GREP_SUMMARY: &str = "Searches file contents with a Rust (ripgrep) regex: output_mode \
files_with_matches (default: one path per line), content (PATH:LINE:TEXT lines) or count \
(PATH:N lines); empty when nothing matches.";

fn summary(name: &str) -> Option<&'static str> {
    match name {
        "Glob" => Some(GLOB_SUMMARY),
        "Grep" => Some(GREP_SUMMARY),
        _ => None,
    }
}

fn schemas() -> [(&'static str, &'static str, Json, ToolFn); 3] {
    [
        (
            "Read",
            READ_DESCRIPTION,
            json!({"type": "object", "properties": {
                "file_path": {"type": "string", "description": "Path relative to the workspace root, or absolute inside it"},
                "offset": {"type": "integer", "minimum": 1, "description": "First line to read (1-based), default 1"},
                "limit": {"type": "integer", "minimum": 1, "description": "Number of lines to read, default 2000"}},
              "required": ["file_path"], "additionalProperties": false}),
            read_answer,
        ),
        (
            "Glob",
            GLOB_DESCRIPTION,
            json!({"type": "object", "properties": {
                "pattern": {"type": "string", "description": "Glob pattern matched against paths relative to path, e.g. **/*.rs"},
                "path": {"type": "string", "description": "Directory to search, default the workspace root"}},
              "required": ["pattern"], "additionalProperties": false}),
            glob_answer,
        ),
        (
            "Grep",
            GREP_DESCRIPTION,
            json!({"type": "object", "properties": {
                "pattern": {"type": "string", "description": "Regular expression (Rust regex syntax, as ripgrep)"},
                "path": {"type": "string", "description": "File or directory to search, default the workspace root"},
                "glob": {"type": "string", "description": "Only files whose name or relative path matches this glob, e.g. *.rs"},
                "type": {"type": "string", "description": "Only files of this ripgrep type, e.g. rust, py, js"},
                "output_mode": {"type": "string", "enum": ["content", "files_with_matches", "count"], "description": "Default files_with_matches"},
                "-n": {"type": "boolean", "description": "Line numbers in content mode, default true"},
                "-i": {"type": "boolean", "description": "Case-insensitive search"},
                "-A": {"type": "integer", "minimum": 0, "description": "Context lines after each match (content mode)"},
                "-B": {"type": "integer", "minimum": 0, "description": "Context lines before each match (content mode)"},
                "-C": {"type": "integer", "minimum": 0, "description": "Context lines before and after each match (content mode)"},
                "head_limit": {"type": "integer", "minimum": 0, "description": "Keep only the first N entries (0: all)"},
                "offset": {"type": "integer", "minimum": 0, "description": "Skip the first N entries"},
                "multiline": {"type": "boolean", "description": ". matches newlines; matches may span lines"},
                "ignore_case": {"type": "boolean", "description": "Same as -i"}},
              "required": ["pattern"], "additionalProperties": false}),
            grep_answer,
        ),
    ]
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
    register_observed(registry, workspace, skip, None)
}

/// [`register`], with `observer` seeing every call's arguments and answer (the realistic
/// corpus records them to replay the run under GNU Emacs).
///
/// # Errors
/// As [`Registry::register_trusted`].
pub fn register_observed(
    registry: &mut Registry,
    workspace: &Arc<Workspace>,
    skip: &[String],
    observer: Option<Observer>,
) -> Result<(), RegistryError> {
    for (name, description, schema, tool) in schemas() {
        if skip.iter().any(|s| s == name) {
            continue;
        }
        // Constant schemas, compiled on first call (the tests compile each one).
        let mut contract = ToolContract::new(name, description, schema);
        if let Some(summary) = summary(name) {
            contract = contract.summary(summary);
        }
        registry.register_trusted(contract, handler(workspace.clone(), tool, observer.clone()))?;
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
                ""
            );
        }
    }

    #[test]
    fn glob_lists_relative_paths_in_path_order_and_nothing_as_empty() {
        let (_dir, workspace) = fixture();
        let root = workspace.root().display().to_string();
        let never = &Stop::never();
        assert_eq!(
            glob(&workspace, &json!({"pattern": "**/*"}), never).unwrap(),
            "notes.txt\nsrc/a.rs"
        );
        assert_eq!(
            glob(
                &workspace,
                &json!({"pattern": "*.rs", "path": "src"}),
                never
            )
            .unwrap(),
            "src/a.rs"
        );
        assert_eq!(
            glob(
                &workspace,
                &json!({"pattern": "*.rs", "path": format!("{root}/src")}),
                never
            )
            .unwrap(),
            format!("{root}/src/a.rs")
        );
        assert_eq!(
            glob(&workspace, &json!({"pattern": "*.rs"}), never).unwrap(),
            ""
        );
        assert_eq!(
            glob(&workspace, &json!({"pattern": "**/*.{rs,txt}"}), never).unwrap(),
            "notes.txt\nsrc/a.rs"
        );
    }

    #[test]
    fn grep_output_modes() {
        let (_dir, workspace) = fixture();
        let never = &Stop::never();
        let grep = |arguments: Json| grep(&workspace, &arguments, never).unwrap();
        // files_with_matches by default; no match is empty.
        assert_eq!(grep(json!({"pattern": "^let"})), "src/a.rs");
        assert_eq!(grep(json!({"pattern": "nowhere"})), "");
        assert_eq!(
            grep(json!({"pattern": "^let", "output_mode": "content"})),
            "src/a.rs:2:let x = 1;"
        );
        assert_eq!(
            grep(json!({"pattern": "^let", "output_mode": "content", "-n": false})),
            "src/a.rs:let x = 1;"
        );
        assert_eq!(
            grep(json!({"pattern": "T", "-i": true, "glob": "*.txt", "output_mode": "content"})),
            "notes.txt:2:two\nnotes.txt:3:three"
        );
        assert_eq!(
            grep(json!({"pattern": "^T", "ignore_case": true, "output_mode": "count"})),
            "notes.txt:2"
        );
        assert_eq!(grep(json!({"pattern": "o", "type": "rust"})), "");
        assert_eq!(grep(json!({"pattern": "fn", "type": "rust"})), "src/a.rs");
        let unknown = super::grep(&workspace, &json!({"pattern": "x", "type": "nope"}), never);
        assert!(
            unknown
                .unwrap_err()
                .starts_with("Error: unknown file type: nope")
        );
        assert!(super::grep(&workspace, &json!({"pattern": "("}), never).is_err());
    }

    #[test]
    fn grep_context_limits_and_multiline() {
        let dir = tempfile::tempdir().unwrap();
        let lines: Vec<String> = (1..=12).map(|n| format!("line {n}")).collect();
        std::fs::write(dir.path().join("f.txt"), lines.join("\n") + "\n").unwrap();
        std::fs::write(dir.path().join("g.txt"), "alpha {\n  beta\n}\nline 2\n").unwrap();
        let workspace = Workspace::new(dir.path()).unwrap();
        let never = &Stop::never();
        let grep = |arguments: Json| grep(&workspace, &arguments, never).unwrap();
        let content = |extra: Json| {
            let mut arguments =
                json!({"pattern": "^line (2|3|9)$", "path": "f.txt", "output_mode": "content"});
            for (key, value) in extra.as_object().unwrap() {
                arguments[key] = value.clone();
            }
            grep(arguments)
        };
        assert_eq!(
            content(json!({"-C": 1})),
            "f.txt-1-line 1\nf.txt:2:line 2\nf.txt:3:line 3\nf.txt-4-line 4\n--\n\
             f.txt-8-line 8\nf.txt:9:line 9\nf.txt-10-line 10"
        );
        assert_eq!(
            content(json!({"-A": 1, "-n": false})),
            "f.txt:line 2\nf.txt:line 3\nf.txt-line 4\n--\nf.txt:line 9\nf.txt-line 10"
        );
        assert_eq!(
            content(json!({"-B": 2, "head_limit": 3})),
            "f.txt-1-line 1\nf.txt:2:line 2\nf.txt:3:line 3"
        );
        assert_eq!(
            content(json!({"offset": 1, "head_limit": 1})),
            "f.txt:3:line 3"
        );
        // Context across files is separated too.
        assert_eq!(
            grep(json!({"pattern": "^line 2$", "output_mode": "content", "-A": 1})),
            "f.txt:2:line 2\nf.txt-3-line 3\n--\ng.txt:4:line 2"
        );
        assert_eq!(
            grep(json!({"pattern": "^line", "output_mode": "count"})),
            "f.txt:12\ng.txt:1"
        );
        assert_eq!(grep(json!({"pattern": "line", "head_limit": 1})), "f.txt");
        std::fs::write(workspace.root().join("empty.txt"), "").unwrap();
        assert_eq!(
            grep(json!({"pattern": "", "path": "empty.txt", "multiline": true})),
            ""
        );
        // Multiline: a match spanning lines prints every line it spans.
        assert_eq!(
            grep(
                json!({"pattern": "alpha \\{.*?\\}", "multiline": true, "output_mode": "content"})
            ),
            "g.txt:1:alpha {\ng.txt:2:  beta\ng.txt:3:}"
        );
        assert_eq!(
            grep(json!({"pattern": "alpha \\{.*?\\}", "output_mode": "content"})),
            ""
        );
    }

    #[test]
    fn read_pages_past_the_default_and_cuts_at_the_output_bound() {
        let dir = tempfile::tempdir().unwrap();
        let text: String = (1..=2500).map(|n| format!("{n}\n")).collect();
        std::fs::write(dir.path().join("long.txt"), text).unwrap();
        let workspace = Workspace::new(dir.path()).unwrap();
        let never = &Stop::never();
        let count = |arguments: Json| read(&workspace, &arguments, never).unwrap().lines().count();
        assert_eq!(count(json!({"file_path": "long.txt"})), 2000);
        assert_eq!(
            count(json!({"file_path": "long.txt", "limit": 100_000})),
            2500
        );
        let answer = read_answer(&workspace, &json!({"file_path": "long.txt"}), never).unwrap();
        assert!(answer.notes.is_empty());
    }

    #[test]
    fn answers_stop_at_the_output_bound_on_a_whole_line_with_a_note() {
        let dir = tempfile::tempdir().unwrap();
        // Two 6 MiB files of 100-byte lines: their matching lines exceed the bound together.
        let line = format!("{}\n", "x".repeat(99));
        let text = line.repeat(6 * 1024 * 1024 / 100);
        std::fs::write(dir.path().join("a.txt"), &text).unwrap();
        std::fs::write(dir.path().join("b.txt"), &text).unwrap();
        // 8 MiB of 2-byte lines: numbered, they exceed the bound alone.
        std::fs::write(dir.path().join("short.txt"), "x\n".repeat(4 * 1024 * 1024)).unwrap();
        let workspace = Workspace::new(dir.path()).unwrap();
        let never = &Stop::never();
        let arguments = json!({"pattern": "x", "glob": "[ab].txt", "output_mode": "content"});
        let answer = grep_answer(&workspace, &arguments, never).unwrap();
        assert!(answer.text.len() <= MAX_OUTPUT_BYTES);
        assert!(answer.text.len() > MAX_OUTPUT_BYTES - 200);
        assert!(answer.text.lines().all(|l| l.ends_with(&"x".repeat(99))));
        assert_eq!(answer.notes.len(), 1, "{:?}", answer.notes);
        assert!(answer.notes[0].starts_with("Grep output stopped after "));
        let arguments = json!({"file_path": "short.txt", "limit": 100_000_000});
        let answer = read_answer(&workspace, &arguments, never).unwrap();
        assert!(answer.text.len() <= MAX_OUTPUT_BYTES);
        let last = answer.text.lines().last().unwrap();
        let number: u64 = last
            .trim_start()
            .split('\t')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert!(answer.notes[0].ends_with(&format!("continue with :offset {}", number + 1)));
    }
}
