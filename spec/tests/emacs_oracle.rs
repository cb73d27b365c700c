//! GNU Emacs as the oracle (issue 10): pure programs run through ptc and through
//! `emacs --batch` (Emacs 28.2, lexical binding, `prin1-to-string` of the value, errors
//! caught and reported by kind) must agree, or the disagreement is listed with the
//! deviation that explains it.
//!
//! - `conformance_cases_agree_with_emacs`: every conformance case that is pure (no tools,
//!   no budget overrides, no direct-call expectation) and inside the shared subset (it
//!   expects a value or a `script` error — not a preflight, input or budget outcome) runs
//!   in ONE Emacs process. A disagreement must be listed in
//!   `emacs_oracle/known-disagreements.txt` (`NAME<TAB>DEVIATION<TAB>why`); a new one fails,
//!   and so does a listed case that now agrees. `PTC_ORACLE_PRINT=1` prints the current
//!   disagreements in the file's format, to regenerate it.
//! - `generated_programs_agree_with_emacs`: random well-typed programs
//!   (`emacs_oracle/generator.rs`), `PTC_ORACLE_PROGRAMS` of them (default 300) from seed
//!   `PTC_ORACLE_SEED` (default 1), in batches of 2,000 per Emacs process. Counts per class
//!   are printed; any internal compiler error or any disagreement fails, each shrunk to a
//!   minimal program first. Long mode by hand:
//!   `PTC_ORACLE_PROGRAMS=100000 nice cargo test -p ptc-spec --test emacs_oracle -- --nocapture generated`.
//!
//! Emacs 28 lacks `take` (29) and the one-argument `sort` (30): the Emacs-side runner
//! (`emacs_oracle/runner.el`) shims both. Without `emacs` on PATH the tests are skipped
//! with a loud message, and fail when `CI` is set.

#[path = "emacs_oracle/generator.rs"]
mod generator;

use ptc_compiler::{Roster, compile};
use ptc_spec::{Case, conformance_dir, load_corpus};
use ptc_vm::print::{Style, to_string};
use ptc_vm::{Limits, Machine, Step};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// How one side ended.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Outcome {
    /// The `prin1` text of the value.
    Value(String),
    /// The error kind (ptc's kind, or the car of Emacs's error data) and text.
    Error(String, String),
}

/// The comparison classes the issue asks to count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Class {
    Agree,
    ValueDiffers,
    PtcErrorsEmacsSucceeds,
    EmacsErrorsPtcSucceeds,
    BothError,
}

fn classify(ptc: &Outcome, emacs: &Outcome) -> Class {
    match (ptc, emacs) {
        (Outcome::Value(a), Outcome::Value(b)) if a == b => Class::Agree,
        (Outcome::Value(_), Outcome::Value(_)) => Class::ValueDiffers,
        (Outcome::Error(..), Outcome::Value(_)) => Class::PtcErrorsEmacsSucceeds,
        (Outcome::Value(_), Outcome::Error(..)) => Class::EmacsErrorsPtcSucceeds,
        (Outcome::Error(..), Outcome::Error(..)) => Class::BothError,
    }
}

fn oracle_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("emacs_oracle")
}

/// The `emacs` executable, or `None` after a loud skip message (a panic under CI).
fn emacs() -> Option<PathBuf> {
    let found = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join("emacs"))
            .find(|candidate| candidate.is_file())
    });
    if found.is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI is set but `emacs` is not on PATH: .ci/dialect.sh installs emacs-nox"
        );
        eprintln!(
            "\n*** SKIPPED: the Emacs oracle tests need `emacs` on PATH (apt-get install emacs-nox) ***\n"
        );
    }
    found
}

fn limits() -> Limits {
    Limits {
        slice_seconds: None,
        seconds: None,
        ..Limits::default()
    }
}

/// Runs `script` on ptc with no tools.
fn run_ptc(script: &str) -> Outcome {
    let limits = limits();
    let compiled = match compile(script, &Roster::new(), &limits) {
        Ok(compiled) => compiled,
        Err(diagnostics) => {
            return diagnostics.first().map_or_else(
                || Outcome::Error("none".into(), "no diagnostics".into()),
                |d| Outcome::Error(d.kind.as_str().to_owned(), d.message.clone()),
            );
        }
    };
    let mut machine = Machine::new(compiled.program, limits);
    let mut step = machine.step();
    loop {
        step = match step {
            Step::Pause => machine.step(),
            Step::Done(value) => {
                return Outcome::Value(to_string(&value, Style::Prin1, machine.symbols()));
            }
            Step::Error(error) => {
                return Outcome::Error(
                    error.kind().as_str().to_owned(),
                    error.message().to_owned(),
                );
            }
            Step::Tool(_) | Step::Batch(_) => {
                return Outcome::Error("tool".into(), "a pure program called a tool".into());
            }
        };
    }
}

/// An Emacs Lisp string literal of `text`.
fn elisp_string(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

fn unhex(hex: &str) -> String {
    let bytes: Vec<u8> = (0..hex.len() / 2)
        .filter_map(|i| u8::from_str_radix(hex.get(2 * i..2 * i + 2)?, 16).ok())
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Evaluates every script in one Emacs process; outcomes in input order.
fn run_emacs(emacs: &Path, scripts: &[String]) -> Vec<Outcome> {
    let dir = std::env::temp_dir().join(format!(
        "ptc-emacs-oracle-{}-{:?}",
        std::process::id(),
        std::thread::current().id()
    ));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let input = dir.join("input.el");
    let output = dir.join("output.txt");
    let mut text = String::new();
    for (index, script) in scripts.iter().enumerate() {
        text.push_str(&format!("(\"{index}\" {})\n", elisp_string(script)));
    }
    std::fs::write(&input, text).expect("write input");
    let _ = std::fs::remove_file(&output);
    let mut child = Command::new(emacs)
        .args(["--batch", "-Q", "-l"])
        .arg(oracle_dir().join("runner.el"))
        .arg(&input)
        .arg(&output)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start emacs");
    // A generous bound: Emacs evaluates thousands of these programs per second.
    let deadline = Instant::now() + Duration::from_secs(60 + scripts.len() as u64 / 10);
    loop {
        if child.try_wait().expect("wait emacs").is_some() {
            break;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("emacs did not finish the batch in time");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let printed = std::fs::read_to_string(&output).unwrap_or_else(|e| {
        let mut stderr = String::new();
        if let Some(mut pipe) = child.stderr.take() {
            let _ = std::io::Read::read_to_string(&mut pipe, &mut stderr);
        }
        panic!("emacs wrote no results ({e}): {stderr}")
    });
    let mut outcomes = vec![Outcome::Error("missing".into(), String::new()); scripts.len()];
    for line in printed.lines() {
        let mut fields = line.splitn(3, '\t');
        let (Some(id), Some(status), Some(hex)) = (fields.next(), fields.next(), fields.next())
        else {
            continue;
        };
        let Ok(index) = id.parse::<usize>() else {
            continue;
        };
        let text = unhex(hex);
        let outcome = if status == "value" {
            Outcome::Value(text)
        } else if status == "skip" {
            Outcome::Error(SKIP.into(), String::new())
        } else {
            let kind = text
                .trim_start_matches('(')
                .split([' ', ')'])
                .next()
                .unwrap_or("")
                .to_owned();
            Outcome::Error(kind, text)
        };
        if let Some(slot) = outcomes.get_mut(index) {
            *slot = outcome;
        }
    }
    if let Some(first) = outcomes
        .iter()
        .position(|o| matches!(o, Outcome::Error(k, _) if k == "missing"))
    {
        let mut stderr = String::new();
        if let Some(mut pipe) = child.stderr.take() {
            let _ = std::io::Read::read_to_string(&mut pipe, &mut stderr);
        }
        panic!(
            "emacs gave no result from case {first} on ({:?}); input kept in {}: {stderr}",
            scripts.get(first),
            dir.display()
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
    outcomes
}

/// The Emacs outcome of a script that redefines an Emacs function (outside the subset).
const SKIP: &str = "skip";

fn skipped(outcome: &Outcome) -> bool {
    matches!(outcome, Outcome::Error(kind, _) if kind == SKIP)
}

/// Whether a conformance case is pure and inside the shared subset.
fn shared(case: &Case) -> bool {
    case.tools.is_empty()
        && case.standalone.is_empty()
        && case.limits.is_empty()
        && case.calls.is_none()
        && case.direct.is_none()
        && case.error.as_ref().is_none_or(|e| e.kind == "script")
}

fn known_disagreements() -> BTreeMap<String, String> {
    let text = std::fs::read_to_string(oracle_dir().join("known-disagreements.txt"))
        .expect("known-disagreements.txt");
    text.lines()
        .filter(|line| !line.trim().is_empty() && !line.starts_with('#'))
        .filter_map(|line| {
            let mut fields = line.splitn(3, '\t');
            let name = fields.next()?.trim().to_owned();
            let deviation = fields.next()?.trim().to_owned();
            Some((name, deviation))
        })
        .collect()
}

#[test]
fn conformance_cases_agree_with_emacs() {
    let Some(emacs) = emacs() else { return };
    let corpus = load_corpus(&conformance_dir()).expect("corpus loads");
    let cases: Vec<&Case> = corpus.iter().filter(|c| shared(c)).collect();
    let scripts: Vec<String> = cases.iter().map(|c| c.script.clone()).collect();
    let emacs_outcomes = run_emacs(&emacs, &scripts);
    let known = known_disagreements();
    let mut disagreeing = BTreeMap::new();
    let mut counts: BTreeMap<Class, usize> = BTreeMap::new();
    let mut redefining = 0usize;
    for (case, emacs_outcome) in cases.iter().zip(&emacs_outcomes) {
        if skipped(emacs_outcome) {
            redefining += 1;
            continue;
        }
        let ptc = run_ptc(&case.script);
        let class = classify(&ptc, emacs_outcome);
        *counts.entry(class).or_default() += 1;
        if !matches!(class, Class::Agree | Class::BothError) {
            disagreeing.insert(case.name.clone(), (class, ptc, emacs_outcome.clone()));
        }
    }
    eprintln!(
        "emacs oracle over {} shared conformance cases ({redefining} more redefine an Emacs \
         function and are skipped): {counts:?}",
        cases.len() - redefining
    );
    if std::env::var_os("PTC_ORACLE_PRINT").is_some() {
        for (name, (class, ptc, emacs)) in &disagreeing {
            let deviation = known.get(name).map_or("?", String::as_str);
            println!("{name}\t{deviation}\t{class:?}: ptc {ptc:?}, emacs {emacs:?}");
        }
    }
    let mut problems = Vec::new();
    for (name, (class, ptc, emacs)) in &disagreeing {
        if !known.contains_key(name) {
            problems.push(format!(
                "new disagreement {name} ({class:?}): ptc {ptc:?}, emacs {emacs:?}"
            ));
        }
    }
    let names: BTreeSet<&String> = cases.iter().map(|c| &c.name).collect();
    for name in known.keys() {
        if !disagreeing.contains_key(name) {
            let why = if names.contains(name) {
                "now agrees"
            } else {
                "is not a shared case"
            };
            problems.push(format!(
                "listed case {name} {why}: remove it from known-disagreements.txt"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// A shrinkable s-expression (script text, tokenised loosely: atoms, strings, lists and
/// reader prefixes).
#[derive(Clone, Debug)]
enum Node {
    Atom(String),
    List(Vec<Node>),
    Prefixed(String, Box<Node>),
}

fn parse_forms(text: &str) -> Vec<Node> {
    fn parse(chars: &[char], at: &mut usize) -> Option<Node> {
        while *at < chars.len() && chars[*at].is_whitespace() {
            *at += 1;
        }
        let c = *chars.get(*at)?;
        match c {
            '(' => {
                *at += 1;
                let mut items = Vec::new();
                loop {
                    while *at < chars.len() && chars[*at].is_whitespace() {
                        *at += 1;
                    }
                    match chars.get(*at) {
                        None => return Some(Node::List(items)),
                        Some(')') => {
                            *at += 1;
                            return Some(Node::List(items));
                        }
                        _ => items.push(parse(chars, at)?),
                    }
                }
            }
            '\'' | '`' | ',' => {
                let mut prefix = c.to_string();
                *at += 1;
                if c == ',' && chars.get(*at) == Some(&'@') {
                    prefix.push('@');
                    *at += 1;
                }
                Some(Node::Prefixed(prefix, Box::new(parse(chars, at)?)))
            }
            '"' => {
                let start = *at;
                *at += 1;
                while *at < chars.len() && chars[*at] != '"' {
                    if chars[*at] == '\\' {
                        *at += 1;
                    }
                    *at += 1;
                }
                *at += 1;
                Some(Node::Atom(
                    chars[start..(*at).min(chars.len())].iter().collect(),
                ))
            }
            _ => {
                let start = *at;
                if c == '?' {
                    *at += 2;
                }
                while *at < chars.len()
                    && !chars[*at].is_whitespace()
                    && !"()'\"".contains(chars[*at])
                {
                    *at += 1;
                }
                Some(Node::Atom(
                    chars[start..(*at).min(chars.len())].iter().collect(),
                ))
            }
        }
    }
    let chars: Vec<char> = text.chars().collect();
    let mut at = 0;
    let mut forms = Vec::new();
    while let Some(node) = parse(&chars, &mut at) {
        forms.push(node);
    }
    forms
}

fn print_node(node: &Node) -> String {
    match node {
        Node::Atom(text) => text.clone(),
        Node::List(items) => format!(
            "({})",
            items.iter().map(print_node).collect::<Vec<_>>().join(" ")
        ),
        Node::Prefixed(prefix, inner) => format!("{prefix}{}", print_node(inner)),
    }
}

fn size(node: &Node) -> usize {
    match node {
        Node::Atom(_) => 1,
        Node::List(items) => 1 + items.iter().map(size).sum::<usize>(),
        Node::Prefixed(_, inner) => 1 + size(inner),
    }
}

/// Every program one step smaller than `forms`: a form dropped, a list replaced by one of
/// its elements, an element dropped, an atom replaced by `0`, `nil` or `""`.
fn shrink_candidates(forms: &[Node]) -> Vec<Vec<Node>> {
    fn variants(node: &Node) -> Vec<Node> {
        let mut out = Vec::new();
        match node {
            Node::Atom(text) => {
                for small in ["0", "nil", "\"\"", "1"] {
                    if text != small {
                        out.push(Node::Atom(small.to_owned()));
                    }
                }
            }
            Node::Prefixed(prefix, inner) => {
                out.push((**inner).clone());
                for v in variants(inner) {
                    out.push(Node::Prefixed(prefix.clone(), Box::new(v)));
                }
            }
            Node::List(items) => {
                out.extend(items.iter().cloned());
                for index in 0..items.len() {
                    let mut fewer = items.clone();
                    fewer.remove(index);
                    out.push(Node::List(fewer));
                }
                for (index, item) in items.iter().enumerate() {
                    for v in variants(item) {
                        let mut changed = items.clone();
                        changed[index] = v;
                        out.push(Node::List(changed));
                    }
                }
            }
        }
        out
    }
    let mut out = Vec::new();
    for index in 0..forms.len() {
        if forms.len() > 1 {
            let mut fewer = forms.to_vec();
            fewer.remove(index);
            out.push(fewer);
        }
        for v in variants(&forms[index]) {
            let mut changed = forms.to_vec();
            changed[index] = v;
            out.push(changed);
        }
    }
    out
}

/// Shrinks `script` while it stays in `class` (one Emacs process per round).
fn shrink(emacs: &Path, script: &str, class: Class) -> String {
    let mut best = parse_forms(script);
    let total = |forms: &[Node]| forms.iter().map(size).sum::<usize>();
    for _ in 0..200 {
        let mut candidates: Vec<Vec<Node>> = shrink_candidates(&best);
        candidates.sort_by_key(|c| total(c));
        candidates.truncate(1_500);
        // ptc first: a candidate that runs out of a budget there (a loop whose bound was
        // shrunk away) could run forever in Emacs, so it is never sent.
        let mut kept: Vec<(Vec<Node>, String, Outcome)> = Vec::new();
        for forms in candidates {
            let text = forms.iter().map(print_node).collect::<Vec<_>>().join("\n");
            let ptc = run_ptc(&text);
            if !matches!(&ptc, Outcome::Error(kind, _) if is_budget(kind)) {
                kept.push((forms, text, ptc));
            }
        }
        let texts: Vec<String> = kept.iter().map(|(_, text, _)| text.clone()).collect();
        let emacs_outcomes = run_emacs(emacs, &texts);
        let found = kept
            .iter()
            .zip(&emacs_outcomes)
            .position(|((_, _, ptc), emacs_outcome)| classify(ptc, emacs_outcome) == class);
        match found {
            Some(index) => best = kept.swap_remove(index).0,
            None => break,
        }
    }
    best.iter().map(print_node).collect::<Vec<_>>().join("\n")
}

/// ptc's budget kinds: outcomes that say nothing about Emacs's.
fn is_budget(kind: &str) -> bool {
    matches!(
        kind,
        "step" | "stack" | "value" | "retained-value" | "atomic-work" | "time" | "tool-call"
    )
}

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[test]
fn generated_programs_agree_with_emacs() {
    let Some(emacs) = emacs() else { return };
    let total = env_number("PTC_ORACLE_PROGRAMS", 300);
    let seed = env_number("PTC_ORACLE_SEED", 1);
    let mut rng = generator::Rng::new(seed);
    let mut counts: BTreeMap<Class, usize> = BTreeMap::new();
    let mut internal_errors = Vec::new();
    let mut examples: BTreeMap<Class, Vec<(String, Outcome, Outcome)>> = BTreeMap::new();
    let mut ptc_error_kinds: BTreeMap<String, usize> = BTreeMap::new();
    let mut emacs_error_kinds: BTreeMap<String, usize> = BTreeMap::new();
    let started = Instant::now();
    let mut done = 0u64;
    while done < total {
        let batch = (total - done).min(2_000);
        let scripts: Vec<String> = (0..batch).map(|_| generator::program(&mut rng)).collect();
        let emacs_outcomes = run_emacs(&emacs, &scripts);
        for (script, emacs_outcome) in scripts.iter().zip(emacs_outcomes) {
            assert!(
                !skipped(&emacs_outcome),
                "the generator redefined an Emacs function: {script}"
            );
            let ptc = run_ptc(script);
            if let Outcome::Error(_, message) = &ptc
                && message.contains("Internal compiler error")
            {
                internal_errors.push(script.clone());
            }
            if let Outcome::Error(kind, _) = &ptc {
                *ptc_error_kinds.entry(kind.clone()).or_default() += 1;
            }
            if let Outcome::Error(kind, _) = &emacs_outcome {
                *emacs_error_kinds.entry(kind.clone()).or_default() += 1;
            }
            let class = classify(&ptc, &emacs_outcome);
            *counts.entry(class).or_default() += 1;
            let kept = examples.entry(class).or_default();
            if class != Class::Agree && kept.len() < 20 {
                kept.push((script.clone(), ptc, emacs_outcome));
            }
        }
        done += batch;
    }
    eprintln!(
        "emacs oracle over {total} generated programs (seed {seed}) in {:.1} s: {counts:?}; \
         ptc error kinds {ptc_error_kinds:?}; emacs error kinds {emacs_error_kinds:?}; \
         internal compiler errors {}",
        started.elapsed().as_secs_f64(),
        internal_errors.len()
    );
    let mut problems = Vec::new();
    for script in internal_errors.iter().take(5) {
        problems.push(format!("internal compiler error: {script}"));
    }
    for (class, kept) in &examples {
        if matches!(class, Class::Agree | Class::BothError) {
            continue;
        }
        for (script, ptc, emacs_outcome) in kept.iter().take(3) {
            eprintln!("{class:?}: ptc {ptc:?}, emacs {emacs_outcome:?} for\n{script}");
            let small = shrink(&emacs, script, *class);
            let small_ptc = run_ptc(&small);
            problems.push(format!(
                "{class:?}:\n  program: {script}\n  shrunk:  {small}\n  ptc {small_ptc:?}\n  (unshrunk: ptc {ptc:?}, emacs {emacs_outcome:?})"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
