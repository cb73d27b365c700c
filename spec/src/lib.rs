//! The ptc dialect reference and its data-driven conformance corpus.
//!
//! This crate owns three things:
//! - the reference (`spec/reference/*.md`), written for people and models, whose closed
//!   tables (primitives, special forms, transformers, budget keys, error kinds, diagnostic
//!   codes) are parsed here so tests can check they list exactly the names in the code;
//! - the conformance corpus (`spec/conformance/*.toml`, format in
//!   `spec/conformance/FORMAT.md`), loaded by [`load_corpus`] into [`Case`]s;
//! - the tests that hold the two against the implementation (`spec/tests/`).
//!
//! Invariants: loading never panics on a malformed corpus file; every problem is reported
//! as a [`CorpusError`] naming the file and line. A loaded case has exactly one expectation
//! (a value or an error), valid limit keys and well-formed tool behaviours.

#![forbid(unsafe_code)]
#![deny(missing_docs)]

use ptc_vm::Limits;
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};

/// The directory holding the reference chapters.
#[must_use]
pub fn reference_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("reference")
}

/// The directory holding the conformance corpus.
#[must_use]
pub fn conformance_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("conformance")
}

/// One conformance case, as written in a corpus file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Case {
    /// Unique (across the corpus) kebab-case name.
    pub name: String,
    /// The script text.
    pub script: String,
    /// Expected final value, printed with `prin1`.
    #[serde(default)]
    pub value: Option<String>,
    /// Expected failure.
    #[serde(default)]
    pub error: Option<ExpectedError>,
    /// Budget overrides, keyed by `ptc_vm::Limits::KEYS` names.
    #[serde(default)]
    pub limits: BTreeMap<String, LimitValue>,
    /// Composable roster tools with their stub behaviours.
    #[serde(default)]
    pub tools: Vec<ToolStub>,
    /// Standalone-only roster tools (their stub returns the tool name).
    #[serde(default)]
    pub standalone: Vec<String>,
    /// Expected tool dispatch order (batches flattened in source order).
    #[serde(default)]
    pub calls: Option<Vec<String>>,
    /// Expected direct-call classification: a tool name, or `""` for "not direct".
    #[serde(default)]
    pub direct: Option<String>,
    /// Expected failure of the current implementation, with the reason.
    #[serde(default)]
    pub xfail: Option<String>,
    /// Free text: where the expectation comes from.
    #[serde(default)]
    pub note: Option<String>,
    /// The corpus file this case came from (set by the loader).
    #[serde(skip)]
    pub file: PathBuf,
    /// The 1-based line of the case's `[[case]]` table (set by the loader).
    #[serde(skip)]
    pub line: usize,
}

/// An expected failure: the kind's wire name and a fragment of the message.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct ExpectedError {
    /// An `ErrorKind` wire name (`script`, `preflight`, ...) or the runner outcome `denied`.
    pub kind: String,
    /// A substring the message must contain.
    pub message: String,
}

/// A budget override: a number, or text such as `"off"`.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum LimitValue {
    /// An integer value.
    Integer(u64),
    /// A float value (seconds).
    Float(f64),
    /// A textual value (`"off"`).
    Text(String),
}

impl fmt::Display for LimitValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LimitValue::Integer(n) => write!(f, "{n}"),
            LimitValue::Float(x) => write!(f, "{x}"),
            LimitValue::Text(t) => f.write_str(t),
        }
    }
}

/// A composable roster tool and what its stub returns.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolStub {
    /// The roster name.
    pub name: String,
    /// The stub behaviour, see [`Behaviour::parse`]; default `name`.
    #[serde(default = "default_behaviour")]
    pub behaviour: String,
    /// The tool's JSON Schema as JSON text: the runner registers it with the runtime, so
    /// preflight judges arguments by its contract and dispatch validates them.
    #[serde(default)]
    pub schema: Option<String>,
}

impl ToolStub {
    /// The parsed schema, if the stub declares one.
    ///
    /// # Errors
    /// A message naming the invalid JSON.
    pub fn schema_json(&self) -> Result<Option<serde_json::Value>, String> {
        self.schema
            .as_deref()
            .map(|text| {
                serde_json::from_str(text)
                    .map_err(|e| format!("tool `{}`: invalid schema JSON: {e}", self.name))
            })
            .transpose()
    }
}

fn default_behaviour() -> String {
    "name".to_owned()
}

/// What a stub tool does with a call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Behaviour {
    /// Returns the tool's name as a string.
    Name,
    /// Returns the argument `:KEY` (after the JSON round trip), or nil when absent.
    Arg(String),
    /// Returns the whole argument list (after the JSON round trip).
    Args,
    /// Returns the given text as a string.
    Text(String),
    /// Returns the given JSON, converted into a guest value.
    Json(String),
    /// Fails: the guest receives `(:error "MSG")`.
    Error(String),
    /// Permission denied: the run is aborted (outcome `denied`).
    Deny(String),
}

impl Behaviour {
    /// Parses `name`, `arg:KEY`, `args`, `text:T`, `json:J`, `error:MSG` or `deny:REASON`.
    ///
    /// # Errors
    /// A message naming the unknown behaviour or the invalid JSON.
    pub fn parse(text: &str) -> Result<Behaviour, String> {
        match text.split_once(':') {
            None if text == "name" => Ok(Behaviour::Name),
            None if text == "args" => Ok(Behaviour::Args),
            Some(("arg", key)) if !key.is_empty() => Ok(Behaviour::Arg(key.to_owned())),
            Some(("text", t)) => Ok(Behaviour::Text(t.to_owned())),
            Some(("json", j)) => match serde_json::from_str::<serde_json::Value>(j) {
                Ok(_) => Ok(Behaviour::Json(j.to_owned())),
                Err(e) => Err(format!("behaviour `{text}`: invalid JSON: {e}")),
            },
            Some(("error", m)) => Ok(Behaviour::Error(m.to_owned())),
            Some(("deny", r)) => Ok(Behaviour::Deny(r.to_owned())),
            _ => Err(format!(
                "unknown behaviour `{text}`; expected name, arg:KEY, args, text:T, json:J, \
                 error:MSG or deny:REASON"
            )),
        }
    }
}

impl Case {
    /// The default limits with this case's overrides applied.
    ///
    /// # Errors
    /// The first override that `Limits::set` refuses.
    pub fn limits(&self) -> Result<Limits, String> {
        let mut limits = Limits::default();
        for (key, value) in &self.limits {
            limits
                .set(key, &value.to_string())
                .map_err(|e| e.to_string())?;
        }
        Ok(limits)
    }

    /// The stub behaviour of each composable tool, in roster order.
    ///
    /// # Errors
    /// The first unparsable behaviour.
    pub fn behaviours(&self) -> Result<Vec<(String, Behaviour)>, String> {
        self.tools
            .iter()
            .map(|t| Ok((t.name.clone(), Behaviour::parse(&t.behaviour)?)))
            .collect()
    }

    /// `file:line` of the case, for reports.
    #[must_use]
    pub fn location(&self) -> String {
        format!("{}:{}", self.file.display(), self.line)
    }

    fn validate(&self) -> Result<(), String> {
        if self.name.is_empty() {
            return Err("case has an empty name".to_owned());
        }
        match (&self.value, &self.error) {
            (Some(_), Some(_)) => {
                return Err(format!("case `{}` has both `value` and `error`", self.name));
            }
            (None, None) => {
                return Err(format!(
                    "case `{}` has neither `value` nor `error`",
                    self.name
                ));
            }
            _ => {}
        }
        if let Some(error) = &self.error
            && error.kind != "denied"
            && ptc_vm::ErrorKind::from_name(&error.kind).is_none()
        {
            return Err(format!(
                "case `{}`: unknown error kind `{}`",
                self.name, error.kind
            ));
        }
        self.limits()
            .map_err(|e| format!("case `{}`: {e}", self.name))?;
        self.behaviours()
            .map_err(|e| format!("case `{}`: {e}", self.name))?;
        for tool in &self.tools {
            tool.schema_json()
                .map_err(|e| format!("case `{}`: {e}", self.name))?;
        }
        Ok(())
    }
}

/// A problem loading the corpus, located in a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CorpusError {
    /// The file.
    pub file: PathBuf,
    /// The 1-based line, when known.
    pub line: Option<usize>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for CorpusError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{line}: {}", self.file.display(), self.message),
            None => write!(f, "{}: {}", self.file.display(), self.message),
        }
    }
}

impl std::error::Error for CorpusError {}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CorpusFile {
    #[serde(default)]
    case: Vec<toml::Spanned<Case>>,
}

fn line_of(text: &str, offset: usize) -> usize {
    let end = offset.min(text.len());
    text.as_bytes()
        .iter()
        .take(end)
        .filter(|&&b| b == b'\n')
        .count()
        .saturating_add(1)
}

/// Parses one corpus file's text; `file` is used for locations only.
///
/// # Errors
/// Every problem found: TOML syntax, unknown fields, invalid expectations, limits or
/// behaviours.
pub fn parse_corpus_file(file: &Path, text: &str) -> Result<Vec<Case>, Vec<CorpusError>> {
    let parsed: CorpusFile = toml::from_str(text).map_err(|e| {
        vec![CorpusError {
            file: file.to_owned(),
            line: e.span().map(|s| line_of(text, s.start)),
            message: e.message().to_owned(),
        }]
    })?;
    let mut cases = Vec::new();
    let mut errors = Vec::new();
    for spanned in parsed.case {
        let line = line_of(text, spanned.span().start);
        let mut case = spanned.into_inner();
        case.file = file.to_owned();
        case.line = line;
        match case.validate() {
            Ok(()) => cases.push(case),
            Err(message) => errors.push(CorpusError {
                file: file.to_owned(),
                line: Some(line),
                message,
            }),
        }
    }
    if errors.is_empty() {
        Ok(cases)
    } else {
        Err(errors)
    }
}

/// Loads every `*.toml` file of `dir` (sorted by name), checking that case names are
/// unique across the corpus.
///
/// # Errors
/// Every problem found in every file.
pub fn load_corpus(dir: &Path) -> Result<Vec<Case>, Vec<CorpusError>> {
    let entries = std::fs::read_dir(dir).map_err(|e| {
        vec![CorpusError {
            file: dir.to_owned(),
            line: None,
            message: e.to_string(),
        }]
    })?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    let mut cases = Vec::new();
    let mut errors = Vec::new();
    for file in files {
        match std::fs::read_to_string(&file) {
            Ok(text) => match parse_corpus_file(&file, &text) {
                Ok(mut found) => cases.append(&mut found),
                Err(mut found) => errors.append(&mut found),
            },
            Err(e) => errors.push(CorpusError {
                file: file.clone(),
                line: None,
                message: e.to_string(),
            }),
        }
    }
    let mut seen = BTreeMap::new();
    for case in &cases {
        if let Some(first) = seen.insert(case.name.clone(), case.location()) {
            errors.push(CorpusError {
                file: case.file.clone(),
                line: Some(case.line),
                message: format!("duplicate case name `{}` (first at {first})", case.name),
            });
        }
    }
    if errors.is_empty() {
        Ok(cases)
    } else {
        Err(errors)
    }
}

/// The rows of the first Markdown table in `text` whose header's first cell is `header`
/// (compared after removing backticks and spaces). Each row is its cells, trimmed, with
/// escaped pipes (`\|`) unescaped.
#[must_use]
pub fn markdown_table(text: &str, header: &str) -> Vec<Vec<String>> {
    let mut lines = text.lines().map(str::trim);
    let mut rows = Vec::new();
    while let Some(line) = lines.next() {
        let cells = split_row(line);
        if cells.first().is_some_and(|c| strip_code(c) == header) {
            // The separator row, then the body up to the first non-table line.
            let _separator = lines.next();
            for body in lines.by_ref() {
                if !body.starts_with('|') {
                    break;
                }
                rows.push(split_row(body));
            }
            break;
        }
    }
    rows
}

fn split_row(line: &str) -> Vec<String> {
    let Some(inner) = line.strip_prefix('|') else {
        return Vec::new();
    };
    let mut cells = Vec::new();
    let mut cell = String::new();
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'|') => {
                cell.push('|');
                chars.next();
            }
            '|' => cells.push(std::mem::take(&mut cell).trim().to_owned()),
            _ => cell.push(c),
        }
    }
    cells
}

/// A cell's text without its surrounding code marks: `` `car` `` → `car`,
/// ``` `` ` `` ``` → `` ` ``.
#[must_use]
pub fn strip_code(cell: &str) -> String {
    let cell = cell.trim();
    let ticks = cell.chars().take_while(|&c| c == '`').count();
    if ticks == 0 {
        return cell.to_owned();
    }
    let fence = "`".repeat(ticks);
    match cell
        .strip_prefix(fence.as_str())
        .and_then(|c| c.strip_suffix(fence.as_str()))
    {
        Some(inner) => inner.trim().to_owned(),
        None => cell.to_owned(),
    }
}

fn chapter(name: &str) -> String {
    std::fs::read_to_string(reference_dir().join(name)).unwrap_or_default()
}

fn first_column(chapter_name: &str, header: &str) -> Vec<String> {
    markdown_table(&chapter(chapter_name), header)
        .into_iter()
        .filter_map(|row| row.first().map(|c| strip_code(c)))
        .collect()
}

/// `(name, signature)` of every row of the primitive table in `primitives.md`.
#[must_use]
pub fn reference_primitives() -> Vec<(String, String)> {
    markdown_table(&chapter("primitives.md"), "Primitive")
        .into_iter()
        .filter_map(|row| match (row.first(), row.get(1)) {
            (Some(name), Some(signature)) => Some((strip_code(name), strip_code(signature))),
            _ => None,
        })
        .collect()
}

/// The names in the primitive table of `primitives.md`, in table order.
#[must_use]
pub fn reference_primitive_names() -> Vec<String> {
    reference_primitives().into_iter().map(|(n, _)| n).collect()
}

/// The names in the special-form table of `special-forms.md`.
#[must_use]
pub fn reference_special_form_names() -> Vec<String> {
    first_column("special-forms.md", "Form")
}

/// The names in the transformer table of `transformers.md` (backquote is `` ` ``).
#[must_use]
pub fn reference_transformer_names() -> Vec<String> {
    first_column("transformers.md", "Transformer")
}

/// The keys in the budget table of `budgets.md`.
#[must_use]
pub fn reference_budget_keys() -> Vec<String> {
    first_column("budgets.md", "Key")
}

/// The kinds in the error-kind table of `errors.md`.
#[must_use]
pub fn reference_error_kinds() -> Vec<String> {
    first_column("errors.md", "Kind")
}

/// One row of the code table in `diagnostics.md`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiagnosticRow {
    /// The stable code, e.g. `E0101`.
    pub code: String,
    /// An `ErrorKind` wire name, or `any` when the diagnostic keeps the kind of the
    /// run-time error it wraps.
    pub kind: String,
    /// The pipeline stage that raises it (`reader`, `definitions`, `preflight`, ...).
    pub stage: String,
    /// The message template (`%d`, `%s`, `%S` placeholders), or a description of it.
    pub message: String,
    /// When it is raised.
    pub when: String,
}

/// The rows of the code table of `diagnostics.md`, in table order; rows with fewer than
/// five cells are skipped.
#[must_use]
pub fn reference_diagnostics() -> Vec<DiagnosticRow> {
    diagnostic_rows(&chapter("diagnostics.md"))
}

/// The code-table rows of a `diagnostics.md` text (see [`reference_diagnostics`]).
#[must_use]
pub fn diagnostic_rows(text: &str) -> Vec<DiagnosticRow> {
    markdown_table(text, "Code")
        .into_iter()
        .filter_map(|row| match row.as_slice() {
            [code, kind, stage, message, when, ..] => Some(DiagnosticRow {
                code: strip_code(code),
                kind: strip_code(kind),
                stage: stage.trim().to_owned(),
                message: strip_code(message),
                when: when.trim().to_owned(),
            }),
            _ => None,
        })
        .collect()
}

/// Names that appear more than once in `names`.
#[must_use]
pub fn duplicates(names: &[String]) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    names
        .iter()
        .filter(|n| !seen.insert(n.as_str()))
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn behaviours_parse() {
        assert_eq!(Behaviour::parse("name"), Ok(Behaviour::Name));
        assert_eq!(
            Behaviour::parse("arg:file_path"),
            Ok(Behaviour::Arg("file_path".to_owned()))
        );
        assert_eq!(
            Behaviour::parse("text:a:b"),
            Ok(Behaviour::Text("a:b".to_owned()))
        );
        assert!(Behaviour::parse("json:{").is_err());
        assert!(Behaviour::parse("arg:").is_err());
        assert!(Behaviour::parse("bogus").is_err());
    }

    #[test]
    fn parse_errors_carry_lines() {
        let text = "[[case]]\nname = \"a\"\nscript = \"1\"\nvalue = \"1\"\n\n[[case]]\nname = \"b\"\nscript = \"1\"\n";
        let errors = parse_corpus_file(Path::new("x.toml"), text).unwrap_err();
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].line, Some(6));
        assert!(errors[0].message.contains("neither"), "{}", errors[0]);

        let syntax = "[[case]]\nname = \"a\"\nscript = \n";
        let errors = parse_corpus_file(Path::new("x.toml"), syntax).unwrap_err();
        assert_eq!(errors[0].line, Some(3), "{}", errors[0]);

        let unknown = "[[case]]\nname = \"a\"\nscript = \"1\"\nvalue = \"1\"\nbogus = 1\n";
        let errors = parse_corpus_file(Path::new("x.toml"), unknown).unwrap_err();
        assert!(errors[0].message.contains("bogus"), "{}", errors[0]);
    }

    #[test]
    fn case_fields_validate() {
        let bad_limit =
            "[[case]]\nname = \"a\"\nscript = \"1\"\nvalue = \"1\"\nlimits = { nope = 1 }\n";
        assert!(parse_corpus_file(Path::new("x"), bad_limit).is_err());
        let bad_kind =
            "[[case]]\nname = \"a\"\nscript = \"1\"\nerror = { kind = \"oops\", message = \"\" }\n";
        assert!(parse_corpus_file(Path::new("x"), bad_kind).is_err());
        let good = "[[case]]\nname = \"a\"\nscript = \"1\"\nvalue = \"1\"\nlimits = { steps = 5, seconds = \"off\" }\n";
        let cases = parse_corpus_file(Path::new("x"), good).unwrap();
        let limits = cases[0].limits().unwrap();
        assert_eq!(limits.steps, 5);
        assert_eq!(limits.seconds, None);
        assert_eq!(cases[0].line, 1);
    }

    #[test]
    fn tables_parse() {
        let text = "intro\n\n| Primitive | Signature |\n|---|---|\n| `car` | `(car LIST)` |\n| `/=` | `(/= A B)` |\n| `a\\|b` | x |\n\nafter\n| Primitive | no |\n";
        let rows = markdown_table(text, "Primitive");
        assert_eq!(rows.len(), 3);
        assert_eq!(strip_code(&rows[1][0]), "/=");
        assert_eq!(strip_code(&rows[2][0]), "a|b");
        assert_eq!(strip_code("`` ` ``"), "`");
    }

    #[test]
    fn diagnostic_rows_parse() {
        let text = "| Code | Kind | Stage | Message | Raised when |\n|---|---|---|---|---|\n| `E0001` | `input` | reader | `Script exceeds the %d byte limit` | too long |\n| `E0002` | short |\n";
        let rows = diagnostic_rows(text);
        assert_eq!(
            rows,
            vec![DiagnosticRow {
                code: "E0001".to_owned(),
                kind: "input".to_owned(),
                stage: "reader".to_owned(),
                message: "Script exceeds the %d byte limit".to_owned(),
                when: "too long".to_owned(),
            }]
        );
    }

    #[test]
    fn corpus_loads() {
        let cases = load_corpus(&conformance_dir()).unwrap_or_else(|errors| {
            panic!(
                "{}",
                errors
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join("\n")
            )
        });
        assert!(cases.len() >= 300, "only {} cases", cases.len());
    }
}
