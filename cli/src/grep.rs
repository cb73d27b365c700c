//! The built-in Grep: ripgrep's search as Claude Code's Grep tool exposes it, over the
//! files a [`crate::walk`] finds under the root.
//!
//! Arguments (what the model knows from Claude Code): `pattern` (Rust `regex` syntax, as
//! ripgrep), `path` (file or directory, default the root), `glob` (a file name or relative
//! path glob), `type` (ripgrep's file types: `rust`, `py`, `js`, ...), `output_mode`
//! (`files_with_matches`, the default; `content`; `count`), `-n` (line numbers in content
//! mode, default true), `-i`, `-A`/`-B`/`-C` (context lines), `head_limit` and `offset`
//! (the first entries skipped, then at most that many printed; 0 = no limit), `multiline`
//! (`.` matches newlines and matches may span lines). `ignore_case` is kept as an alias of
//! `-i`.
//!
//! Output, one entry per line, every line a datum (never prose):
//!
//! - `files_with_matches`: `PATH`;
//! - `content`: `PATH:N:TEXT` for a matching line, `PATH-N-TEXT` for a context line (without
//!   `-n`: `PATH:TEXT` and `PATH-TEXT`), `--` between groups of context that do not touch;
//! - `count`: `PATH:N`, the number of matching lines.
//!
//! No match is the empty string. Files are searched in path order; `PATH` is relative to
//! the root unless `path` was given as an absolute path (then absolute). Binary files (a
//! NUL byte in the first 8 KiB) are skipped, as ripgrep does. When the output reaches
//! [`MAX_OUTPUT_BYTES`] or the walk its entry limit, the result ends at a whole entry and
//! carries a note (a context note of the ToolCall result, not a line of the text).

use crate::builtin::{
    Answer, MAX_OUTPUT_BYTES, Stop, Workspace, arg_bool, arg_str, arg_u64, base_dir, cut_line,
    display_path, read_file, walk_files,
};
use crate::confine::Refusal;
use ignore::Match;
use ignore::types::{Types, TypesBuilder};
use serde_json::Value as Json;
use std::path::Path;

/// Compiled-size limit of a Grep regex (bytes), and of its lazy-DFA cache.
const GREP_REGEX_SIZE: usize = 1 << 20;
/// Most context lines printed before or after one match.
const MAX_CONTEXT: u64 = 10_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Files,
    Content,
    Count,
}

/// The parsed arguments.
struct Options {
    regex: regex::Regex,
    mode: Mode,
    numbers: bool,
    before: usize,
    after: usize,
    multiline: bool,
    glob: Option<globset::GlobMatcher>,
    types: Option<Types>,
}

fn context(arguments: &Json, key: &str) -> Option<usize> {
    arg_u64(arguments, key).map(|n| usize::try_from(n.min(MAX_CONTEXT)).unwrap_or(0))
}

fn options(arguments: &Json) -> Result<Options, String> {
    let pattern = arg_str(arguments, "pattern").unwrap_or_default();
    let multiline = arg_bool(arguments, "multiline");
    let regex = regex::RegexBuilder::new(pattern)
        .case_insensitive(arg_bool(arguments, "-i") || arg_bool(arguments, "ignore_case"))
        .multi_line(true)
        .dot_matches_new_line(multiline)
        .size_limit(GREP_REGEX_SIZE)
        .dfa_size_limit(GREP_REGEX_SIZE)
        .build()
        .map_err(|error| format!("Error: invalid regex: {error}"))?;
    let mode = match arg_str(arguments, "output_mode") {
        None | Some("files_with_matches") => Mode::Files,
        Some("content") => Mode::Content,
        Some("count") => Mode::Count,
        Some(other) => {
            return Err(format!(
                "Error: output_mode must be content, files_with_matches or count, got {other}"
            ));
        }
    };
    let around = context(arguments, "-C").unwrap_or(0);
    let glob = arg_str(arguments, "glob")
        .map(|pattern| {
            globset::Glob::new(pattern)
                .map(|glob| glob.compile_matcher())
                .map_err(|error| format!("Error: invalid glob pattern: {error}"))
        })
        .transpose()?;
    let types = arg_str(arguments, "type")
        .map(|name| {
            let mut builder = TypesBuilder::new();
            builder.add_defaults();
            builder.select(name);
            builder
                .build()
                .map_err(|_| format!("Error: unknown file type: {name} (ripgrep's type names: rust, py, js, ts, go, c, cpp, java, md, toml, json, ...)"))
        })
        .transpose()?;
    Ok(Options {
        regex,
        mode,
        numbers: arguments.get("-n").and_then(Json::as_bool).unwrap_or(true),
        before: context(arguments, "-B").unwrap_or(around),
        after: context(arguments, "-A").unwrap_or(around),
        multiline,
        glob,
        types,
    })
}

/// The output under construction: entries after `offset` are kept, at most `head` of them,
/// within [`MAX_OUTPUT_BYTES`].
struct Out {
    text: String,
    seen: usize,
    offset: usize,
    head: Option<usize>,
    kept: usize,
    /// Why the output ended early, when our own bound (not `head_limit`) ended it.
    cut: Option<String>,
}

impl Out {
    /// Whether no further entry will be kept.
    fn full(&self) -> bool {
        self.cut.is_some() || self.head.is_some_and(|head| self.kept >= head)
    }

    fn push(&mut self, entry: &str) {
        if self.full() {
            return;
        }
        self.seen += 1;
        if self.seen <= self.offset {
            return;
        }
        if self.text.len() + entry.len() + 1 > MAX_OUTPUT_BYTES {
            self.cut = Some(format!(
                "Grep output stopped after {} entries: it would exceed {MAX_OUTPUT_BYTES} bytes; \
                 narrow the search or page with offset",
                self.kept
            ));
            return;
        }
        if !self.text.is_empty() {
            self.text.push('\n');
        }
        self.text.push_str(entry);
        self.kept += 1;
    }
}

/// The lines of `text` (without `\n` or `\r\n`) and the byte offset where each starts.
fn split_lines(text: &str) -> (Vec<&str>, Vec<usize>) {
    let mut lines = Vec::new();
    let mut starts = Vec::new();
    let mut start = 0;
    for piece in text.split_inclusive('\n') {
        starts.push(start);
        start += piece.len();
        let line = piece.strip_suffix('\n').unwrap_or(piece);
        lines.push(line.strip_suffix('\r').unwrap_or(line));
    }
    (lines, starts)
}

/// Indices of the matching lines of `text`, ascending (only the first when `first_only`);
/// `None` when stopped.
fn matching_lines(
    options: &Options,
    text: &str,
    lines: &[&str],
    starts: &[usize],
    first_only: bool,
    stop: &Stop,
) -> Option<Vec<usize>> {
    let mut matched = Vec::new();
    if options.multiline {
        for found in options.regex.find_iter(text) {
            if stop.is_set() {
                return None;
            }
            let first = starts
                .partition_point(|&s| s <= found.start())
                .saturating_sub(1);
            let end = if found.end() > found.start() {
                found.end() - 1
            } else {
                found.start()
            };
            let last = starts.partition_point(|&s| s <= end).saturating_sub(1);
            let from = match matched.last() {
                Some(&previous) if previous >= first => previous + 1,
                _ => first,
            };
            matched.extend(from..=last.min(lines.len().saturating_sub(1)));
            if first_only {
                break;
            }
        }
    } else {
        for (index, line) in lines.iter().enumerate() {
            if index % 4096 == 0 && stop.is_set() {
                return None;
            }
            if options.regex.is_match(line) {
                matched.push(index);
                if first_only {
                    break;
                }
            }
        }
    }
    Some(matched)
}

/// The content-mode entries of one file.
fn content(options: &Options, shown: &str, lines: &[&str], matched: &[usize], out: &mut Out) {
    let line = |index: usize, separator: char| {
        let text = cut_line(lines.get(index).copied().unwrap_or_default());
        if options.numbers {
            format!("{shown}{separator}{}{separator}{text}", index + 1)
        } else {
            format!("{shown}{separator}{text}")
        }
    };
    let with_context = options.before > 0 || options.after > 0;
    // The next line not printed yet in this file.
    let mut next = 0usize;
    let mut printed_any = false;
    for (position, &index) in matched.iter().enumerate() {
        if out.full() {
            return;
        }
        if index < next {
            continue; // printed as part of the previous match's span
        }
        let from = index.saturating_sub(options.before).max(next);
        // A group that does not touch the previous one (in this file or an earlier file)
        // is separated from it, as ripgrep does.
        if with_context && (!printed_any || from > next) && out.seen > 0 {
            out.push("--");
        }
        for context in from..index {
            out.push(&line(context, '-'));
        }
        out.push(&line(index, ':'));
        // Trailing context, stopping at the next match (printed as a match).
        let limit = (index + options.after).min(lines.len().saturating_sub(1));
        let mut last = index;
        let mut cursor = index + 1;
        let mut upcoming = matched.iter().skip(position + 1).peekable();
        while cursor <= limit {
            while upcoming.peek().is_some_and(|&&m| m < cursor) {
                upcoming.next();
            }
            if upcoming.peek().is_some_and(|&&m| m == cursor) {
                break;
            }
            out.push(&line(cursor, '-'));
            last = cursor;
            cursor += 1;
        }
        next = last + 1;
        printed_any = true;
    }
}

fn selected(options: &Options, file: &Path, base: &Path) -> bool {
    if let Some(glob) = &options.glob {
        let name = file.file_name().map(Path::new).unwrap_or(file);
        let relative = file.strip_prefix(base).unwrap_or(file);
        if !glob.is_match(name) && !glob.is_match(relative) {
            return false;
        }
    }
    if let Some(types) = &options.types
        && !matches!(types.matched(file, false), Match::Whitelist(_))
    {
        return false;
    }
    true
}

/// Grep with its truncation note (see the module docs).
///
/// # Errors
/// A guest-visible message: an invalid regex, glob or type, a path refused by
/// [`crate::confine`], or the call being stopped.
pub fn grep_answer(workspace: &Workspace, arguments: &Json, stop: &Stop) -> Result<Answer, String> {
    let options = options(arguments)?;
    let (base, kind) = base_dir(workspace, arguments)?;
    let walked = walk_files(workspace, &base, kind, stop)?;
    let limit = |key| arg_u64(arguments, key).and_then(|n| usize::try_from(n).ok());
    let mut out = Out {
        text: String::new(),
        seen: 0,
        offset: limit("offset").unwrap_or(0),
        head: limit("head_limit").filter(|&n| n > 0),
        kept: 0,
        cut: None,
    };
    for file in &walked.files {
        if out.full() {
            break;
        }
        if !selected(&options, file, &base) {
            continue;
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
        // Every per-line match is a match of the whole text (multi-line anchors): a file
        // without one is skipped without splitting it.
        if !options.regex.is_match(&text) {
            continue;
        }
        let (lines, starts) = split_lines(&text);
        if lines.is_empty() {
            continue; // an empty file has no line to match
        }
        let first_only = options.mode == Mode::Files;
        let matched = matching_lines(&options, &text, &lines, &starts, first_only, stop)
            .ok_or_else(|| Refusal::Stopped.message(""))?;
        if matched.is_empty() {
            continue;
        }
        let shown = display_path(workspace, arguments, file);
        match options.mode {
            Mode::Files => out.push(&shown),
            Mode::Count => out.push(&format!("{shown}:{}", matched.len())),
            Mode::Content => content(&options, &shown, &lines, &matched, &mut out),
        }
    }
    let mut notes = Vec::new();
    notes.extend(out.cut);
    if walked.truncated {
        notes.push(format!(
            "Grep searched only the first {} directory entries",
            crate::walk::MAX_WALK_ENTRIES
        ));
    }
    Ok(Answer {
        text: out.text,
        notes,
    })
}

/// Grep's text (see [`grep_answer`]), without its notes.
///
/// # Errors
/// As [`grep_answer`].
pub fn grep(workspace: &Workspace, arguments: &Json, stop: &Stop) -> Result<String, String> {
    grep_answer(workspace, arguments, stop).map(|answer| answer.text)
}
