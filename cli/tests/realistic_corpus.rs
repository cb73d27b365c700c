//! The realistic-workload corpus (`spec/realistic-corpus/*.toml`, format in its README):
//! tasks a model writes with Read, Glob and Grep over real source trees, checked against
//! GNU Emacs running the same script (issue 37).
//!
//! Oracle: each task runs in ptc under the default budgets with the real built-in tools,
//! every call's arguments and answer recorded ([`builtin::register_observed`]). Then GNU
//! Emacs (batch, lexical binding) runs the same script with stand-in Read, Glob and Grep
//! that answer each call with the recorded answer for the same arguments. A task passes
//! when ptc completes, Emacs made no call ptc did not record, and both render the same
//! value (a string verbatim, anything else as `prin1` prints it); and, when the task states
//! a `value`, when that is it too.
//!
//! Repositories: `ptc` is this repository; any other name is a crate of this workspace's
//! dependency graph, pinned by Cargo.lock, whose sources cargo has already fetched (found
//! with `cargo metadata --filter-platform HOST`, from the package's `manifest_path`): CI
//! reaches the package registries only, so nothing is vendored.
//!
//! `realistic_corpus_quick` (in `cargo test`) runs the tasks marked `quick`;
//! `realistic_corpus_all` (ignored; `.ci/run` runs it) runs every task and prints the pass
//! rate and each failure with its reason. Both fail on a task that fails without an
//! `xfail` reason and on an `xfail` task that passes (so the reason is removed when the fix
//! lands).

use ptc_cli::builtin::{self, Answer, Workspace};
use ptc_runtime::{Registry, RunOptions, Runner};
use ptc_vm::Limits;
use serde::Deserialize;
use serde_json::Value as Json;
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

#[derive(Debug, Deserialize)]
struct File {
    task: Vec<Task>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Task {
    name: String,
    repository: String,
    script: String,
    value: Option<String>,
    xfail: Option<String>,
    #[serde(default)]
    quick: bool,
}

/// One recorded call: tool, arguments, answer.
type Call = (String, Json, Result<Answer, String>);

/// What ptc did with a task.
struct Run {
    completed: bool,
    text: String,
    calls: Vec<Call>,
    elapsed: Duration,
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("cli/ has a parent")
        .to_path_buf()
}

fn corpus_dir() -> PathBuf {
    workspace_root().join("spec/realistic-corpus")
}

fn load() -> Vec<(String, Task)> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(corpus_dir())
        .expect("spec/realistic-corpus exists")
        .map(|entry| entry.expect("readable directory").path())
        .filter(|path| path.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    let mut tasks = Vec::new();
    for path in files {
        let text = std::fs::read_to_string(&path).expect("readable corpus file");
        let file: File =
            toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let stem = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        tasks.extend(file.task.into_iter().map(|task| (stem.clone(), task)));
    }
    let mut names: Vec<&str> = tasks.iter().map(|(_, t)| t.name.as_str()).collect();
    names.sort_unstable();
    let before = names.len();
    names.dedup();
    assert_eq!(before, names.len(), "task names must be unique");
    tasks
}

/// The source directory of every repository the tasks name.
fn repositories(tasks: &[(String, Task)]) -> HashMap<String, PathBuf> {
    let mut found = HashMap::new();
    found.insert("ptc".to_owned(), workspace_root());
    let wanted: Vec<&str> = tasks
        .iter()
        .map(|(_, t)| t.repository.as_str())
        .filter(|r| *r != "ptc")
        .collect();
    if wanted.is_empty() {
        return found;
    }
    // Only the host's packages: those a build here has already fetched.
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_owned());
    let version = Command::new(rustc)
        .arg("-vV")
        .output()
        .expect("rustc -vV runs");
    let host = String::from_utf8_lossy(&version.stdout)
        .lines()
        .find_map(|line| line.strip_prefix("host: ").map(str::to_owned))
        .expect("rustc -vV names the host");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let output = Command::new(cargo)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--locked",
            "--filter-platform",
        ])
        .arg(&host)
        .current_dir(workspace_root())
        .stderr(Stdio::inherit())
        .output()
        .expect("cargo metadata runs");
    assert!(output.status.success(), "cargo metadata failed");
    let metadata: Json = serde_json::from_slice(&output.stdout).expect("cargo metadata JSON");
    // The highest version of each wanted package.
    let mut best: HashMap<String, (Vec<u64>, PathBuf)> = HashMap::new();
    for package in metadata["packages"].as_array().into_iter().flatten() {
        let Some(name) = package["name"].as_str() else {
            continue;
        };
        if !wanted.contains(&name) {
            continue;
        }
        let version: Vec<u64> = package["version"]
            .as_str()
            .unwrap_or_default()
            .split(['.', '-', '+'])
            .map(|part| part.parse().unwrap_or(0))
            .collect();
        let dir = Path::new(package["manifest_path"].as_str().unwrap_or_default())
            .parent()
            .expect("a manifest has a directory")
            .to_path_buf();
        if best.get(name).is_none_or(|(v, _)| *v < version) {
            best.insert(name.to_owned(), (version, dir));
        }
    }
    for name in wanted {
        let (_, dir) = best
            .get(name)
            .unwrap_or_else(|| panic!("repository {name} is not a package of Cargo.lock"));
        found.insert(name.to_owned(), dir.clone());
    }
    found
}

fn run_ptc(runtime: &tokio::runtime::Runtime, root: &Path, script: &str) -> Run {
    let calls: Arc<Mutex<Vec<Call>>> = Arc::default();
    let sink = calls.clone();
    let observer: builtin::Observer = Arc::new(move |tool, arguments, answer| {
        if let Ok(mut calls) = sink.lock() {
            calls.push((tool.to_owned(), arguments.clone(), answer.clone()));
        }
    });
    let workspace = Arc::new(Workspace::new(root).expect("repository root"));
    let mut registry = Registry::new();
    builtin::register_observed(&mut registry, &workspace, &[], Some(observer))
        .expect("built-in tools register");
    let runner = Runner::new(Arc::new(registry)).with_limits(Limits::default());
    let started = Instant::now();
    let outcome = runtime.block_on(runner.run(script, RunOptions::new()));
    let elapsed = started.elapsed();
    let calls = std::mem::take(&mut *calls.lock().expect("no poisoned lock"));
    Run {
        completed: outcome.is_completed(),
        text: outcome.text,
        calls,
        elapsed,
    }
}

/// `text` as an Emacs string literal.
fn el_str(text: &str) -> String {
    format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\""))
}

/// The lookup key of a call, built the same way as `ptc--key` in [`PRELUDE`].
fn call_key(tool: &str, arguments: &Json) -> String {
    let mut pairs: Vec<(String, String)> = Vec::new();
    if let Some(object) = arguments.as_object() {
        for (key, value) in object {
            let shown = match value {
                Json::String(s) => el_str(s),
                Json::Bool(true) => "true".to_owned(),
                Json::Bool(false) | Json::Null => "false".to_owned(),
                other => other.to_string(),
            };
            pairs.push((key.clone(), shown));
        }
    }
    pairs.sort();
    let inner: Vec<String> = pairs.iter().map(|(k, v)| format!("{k}={v}")).collect();
    format!("{tool}({})", inner.join(" "))
}

/// Shims for what the dialect has and Emacs 28 lacks (as `spec/model-corpus/emacs_check.py`),
/// the stand-in tools, and the task driver. Each task prints one line:
/// `@@NAME\tTAG\tMISSING\tTEXT`: TAG `V` (TEXT is the rendered value) or `E` (the error),
/// MISSING the first call ptc did not record (a JSON string) or `null`, TEXT a JSON string.
/// A call ptc did not record is answered live by the `ptc` binary, so Emacs's value is
/// known even for a task ptc fails.
const PRELUDE: &str = r#"
(setq lexical-binding t)
(require 'cl-lib) (require 'seq) (require 'subr-x) (require 'json)
(prefer-coding-system 'utf-8)
(setq locale-coding-system 'utf-8)
(defmacro parallel (&rest calls) `(list ,@calls))
(defmacro parallel-map (fn list) `(mapcar ,fn ,list))
(unless (fboundp 'take) (defun take (n l) (seq-take l n)))
(unless (fboundp 'incf) (defalias 'incf 'cl-incf))
(unless (fboundp 'decf) (defalias 'decf 'cl-decf))
(defvar ptc--answers (make-hash-table :test 'equal))
(defvar ptc--missing nil)
(defun ptc--val (v)
  (cond ((eq v t) "true") ((memq v '(nil :json-false :null)) "false")
        ((stringp v) (prin1-to-string v)) (t (prin1-to-string v))))
(defun ptc--key (tool args)
  (let (pairs)
    (while args
      (push (cons (substring (symbol-name (car args)) 1) (ptc--val (cadr args))) pairs)
      (setq args (cddr args)))
    (concat tool "("
            (mapconcat (lambda (p) (concat (car p) "=" (cdr p)))
                       (sort pairs (lambda (a b) (string< (car a) (car b)))) " ")
            ")")))
(defvar ptc--binary nil)
(defvar ptc--root nil)
(defun ptc--live (tool args)
  "The answer of the real built-in TOOL, from `ptc run` with the call alone (a direct call
prints the tool's own text): for calls ptc did not record, so Emacs still finds its value."
  (with-temp-buffer
    (let* ((print-escape-newlines nil)
           (script (format "(%s %s)" tool (mapconcat #'prin1-to-string args " ")))
           (status (call-process ptc--binary nil t nil "run" "--root" ptc--root
                                 "--limit" "value-bytes=1000000000"
                                 "--limit" "value-nodes=100000000" "-e" script))
           (text (buffer-string)))
      (when (string-suffix-p "\n" text) (setq text (substring text 0 -1)))
      (if (eq status 0) text (list :error text)))))
(defun ptc--call (tool args)
  (let* ((key (ptc--key tool args))
         (answer (gethash key ptc--answers 'ptc--none)))
    (if (eq answer 'ptc--none)
        (progn (unless ptc--missing (setq ptc--missing key)) (ptc--live tool args))
      answer)))
(defun Read (&rest args) (ptc--call "Read" args))
(defun Glob (&rest args) (ptc--call "Glob" args))
(defun Grep (&rest args) (ptc--call "Grep" args))
(defun ptc--task (name root answers script)
  (setq ptc--root root)
  (clrhash ptc--answers)
  (setq ptc--missing nil)
  (dolist (a answers) (puthash (car a) (cdr a) ptc--answers))
  (let* ((result (condition-case e
                     (let ((v (eval (car (read-from-string (concat "(progn " script "\n)"))) t)))
                       (cons "V" (json-encode-string (if (stringp v) v (prin1-to-string v)))))
                   (error (cons "E" (json-encode-string (format "%S" e))))))
         (missing (if ptc--missing (json-encode-string ptc--missing) "null")))
    (princ (format "@@%s\t%s\t%s\t%s\n" name (car result) missing (cdr result)))))
"#;

/// What Emacs gave for each task: (tag, text).
fn run_emacs(
    tasks: &[&Task],
    roots: &HashMap<String, PathBuf>,
    runs: &[Run],
) -> HashMap<String, Emacs> {
    let mut program = String::from(PRELUDE);
    let _ = writeln!(
        program,
        "(setq ptc--binary {})",
        el_str(env!("CARGO_BIN_EXE_ptc"))
    );
    for (task, run) in tasks.iter().zip(runs) {
        program.push_str("(ptc--task ");
        program.push_str(&el_str(&task.name));
        program.push(' ');
        program.push_str(&el_str(&roots[&task.repository].display().to_string()));
        program.push_str(" '(");
        let mut seen = std::collections::HashSet::new();
        for (tool, arguments, answer) in &run.calls {
            let key = call_key(tool, arguments);
            if !seen.insert(key.clone()) {
                continue;
            }
            let value = match answer {
                Ok(answer) => el_str(&answer.text),
                Err(message) => format!("(:error {})", el_str(message)),
            };
            let _ = writeln!(program, "({} . {value})", el_str(&key));
        }
        program.push_str(") ");
        program.push_str(&el_str(&task.script));
        program.push_str(")\n");
    }
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("realistic_corpus.el");
    std::fs::write(&path, program).expect("the Emacs program is written");
    let output = Command::new("emacs")
        .args(["--batch", "-Q", "-l"])
        .arg(&path)
        .env("LC_ALL", "C.UTF-8")
        .output()
        .expect("emacs runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let mut got = HashMap::new();
    for line in stdout.lines() {
        let Some(rest) = line.strip_prefix("@@") else {
            continue;
        };
        let mut parts = rest.splitn(4, '\t');
        let (Some(name), Some(tag), Some(missing), Some(json)) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        let text: String = serde_json::from_str(json).unwrap_or_else(|_| json.to_owned());
        let missing: Option<String> = serde_json::from_str(missing).unwrap_or_default();
        got.insert(
            name.to_owned(),
            Emacs {
                failed: tag == "E",
                missing,
                text,
            },
        );
    }
    if got.len() < tasks.len() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        eprintln!("emacs stderr (tail): {}", tail(&stderr, 2000));
    }
    got
}

fn tail(text: &str, chars: usize) -> &str {
    let start = text
        .char_indices()
        .rev()
        .nth(chars)
        .map_or(0, |(index, _)| index);
    text.get(start..).unwrap_or(text)
}

fn shorten(text: &str) -> String {
    let one_line = text.replace('\n', "\\n");
    match one_line.char_indices().nth(160) {
        Some((end, _)) => format!("{}...", one_line.get(..end).unwrap_or_default()),
        None => one_line,
    }
}

/// Whether GNU Emacs can be run; without it the corpus is skipped loudly (failed under CI).
fn have_emacs() -> bool {
    let found = Command::new("emacs")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok();
    if !found {
        assert!(
            std::env::var_os("CI").is_none(),
            "emacs is required under CI"
        );
        eprintln!("SKIPPED: emacs is not installed");
    }
    found
}

/// What Emacs gave for one task.
struct Emacs {
    /// The script signalled an error (`text` is it).
    failed: bool,
    /// The first call ptc did not record, answered live.
    missing: Option<String>,
    /// The rendered value, or the error.
    text: String,
}

/// `None` when the task passes, else why not.
fn problem(task: &Task, run: &Run, emacs: Option<&Emacs>) -> Option<String> {
    let Some(emacs) = emacs else {
        return Some("no answer from Emacs".to_owned());
    };
    if emacs.failed {
        return Some(format!(
            "Emacs failed (the task is wrong): {}",
            shorten(&emacs.text)
        ));
    }
    if !run.completed {
        return Some(format!(
            "ptc: {} (Emacs: {})",
            shorten(&run.text),
            shorten(&emacs.text)
        ));
    }
    if let Some(missing) = &emacs.missing {
        return Some(format!(
            "Emacs made a call ptc did not: {}",
            shorten(missing)
        ));
    }
    let emacs = &emacs.text;
    if &run.text != emacs {
        return Some(format!(
            "ptc {} but Emacs {}",
            shorten(&run.text),
            shorten(emacs)
        ));
    }
    match &task.value {
        Some(want) if want != &run.text => Some(format!(
            "both give {} but the task states {}",
            shorten(&run.text),
            shorten(want)
        )),
        _ => None,
    }
}

fn run_corpus(only_quick: bool) {
    if !have_emacs() {
        return;
    }
    let all = load();
    let selected: Vec<&(String, Task)> =
        all.iter().filter(|(_, t)| !only_quick || t.quick).collect();
    let owned: Vec<(String, Task)> = selected.iter().map(|&pair| pair.clone()).collect();
    let roots = repositories(&owned);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a tokio runtime");
    let runs: Vec<Run> = selected
        .iter()
        .map(|(_, task)| run_ptc(&runtime, &roots[&task.repository], &task.script))
        .collect();
    let tasks: Vec<&Task> = selected.iter().map(|(_, t)| t).collect();
    let emacs = run_emacs(&tasks, &roots, &runs);
    let mut passed = 0usize;
    let mut known = Vec::new();
    let mut unexpected = Vec::new();
    let mut unexpected_passes = Vec::new();
    let mut by_repository: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for ((file, task), run) in selected.iter().zip(&runs) {
        if std::env::var_os("PTC_CORPUS_VERBOSE").is_some() {
            println!("  {}: {}", task.name, shorten(&run.text));
        }
        let entry = by_repository.entry(task.repository.as_str()).or_default();
        entry.1 += 1;
        match (problem(task, run, emacs.get(&task.name)), &task.xfail) {
            (None, None) => {
                passed += 1;
                entry.0 += 1;
            }
            (None, Some(reason)) => {
                passed += 1;
                entry.0 += 1;
                unexpected_passes
                    .push(format!("{file} {}: passes but xfail ({reason})", task.name));
            }
            (Some(what), Some(reason)) => {
                known.push(format!("{file} {}: {reason}\n      [{what}]", task.name));
            }
            (Some(what), None) => unexpected.push(format!("{file} {}: {what}", task.name)),
        }
    }
    let total = selected.len();
    #[allow(clippy::cast_precision_loss)]
    let rate = if total == 0 {
        0.0
    } else {
        passed as f64 / total as f64 * 100.0
    };
    let calls: usize = runs.iter().map(|r| r.calls.len()).sum();
    let seconds: f64 = runs.iter().map(|r| r.elapsed.as_secs_f64()).sum();
    println!(
        "realistic corpus: {total} tasks, {calls} tool calls, ptc {seconds:.1} s; \
         Emacs's answer: {passed} ({rate:.1}%); known failures: {}",
        known.len()
    );
    for (repository, (ok, count)) in &by_repository {
        println!("  {repository}: {ok}/{count}");
    }
    for line in &known {
        println!("  xfail {line}");
    }
    for line in &unexpected {
        println!("  FAIL {line}");
    }
    for line in &unexpected_passes {
        println!("  XPASS {line}");
    }
    assert!(
        unexpected.is_empty() && unexpected_passes.is_empty(),
        "unexpected failures:\n{}\nunexpected passes:\n{}",
        unexpected.join("\n"),
        unexpected_passes.join("\n")
    );
}

#[test]
fn realistic_corpus_quick() {
    run_corpus(true);
}

#[test]
#[ignore = "the whole corpus: .ci/run runs it"]
fn realistic_corpus_all() {
    run_corpus(false);
}
