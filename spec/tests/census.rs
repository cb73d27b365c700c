//! The Emacs Lisp census table (issue 46) is in step with the compiler.
//!
//! `spec/reference/census.md` is generated from the committed counts
//! (`spec/census/counts.tsv`, written by `spec/census/census.py count` from the pinned
//! repositories), the hand-audited classification (`spec/census/classification.tsv`) and
//! the compiler itself: a name's status is what `ptc_compiler::check` answers for the probe
//! script `(NAME)` — refused when it reports the name as an unknown function (E0301), with
//! the compiler's own advice, supported otherwise. This test regenerates the table in
//! memory and compares it with the committed file, so adding or removing a callable name,
//! changing its advice, or editing the counts or the classification without regenerating
//! fails here. Regenerate with `PTC_CENSUS_WRITE=1 cargo test -p ptc-spec --test census`.
//! No network and no mirrors are needed.

use ptc_compiler::Roster;
use ptc_vm::Limits;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;

/// How many of the most used names the census audits.
const TOP: usize = 600;

fn spec_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &PathBuf) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

struct Counts {
    /// `# key<TAB>value` header lines.
    meta: BTreeMap<String, String>,
    /// `(name, occurrences, files)`, most used first.
    rows: Vec<(String, u64, u64)>,
}

fn counts() -> Counts {
    let text = read(&spec_dir().join("census/counts.tsv"));
    let mut meta = BTreeMap::new();
    let mut rows = Vec::new();
    for line in text.lines() {
        if let Some(comment) = line.strip_prefix("# ") {
            if let Some((key, value)) = comment.split_once('\t') {
                meta.insert(key.to_owned(), value.to_owned());
            }
            continue;
        }
        let cells: Vec<&str> = line.split('\t').collect();
        let [name, occurrences, files] = cells[..] else {
            panic!("counts.tsv: bad line {line:?}");
        };
        if name == "name" {
            continue;
        }
        let number = |cell: &str| -> u64 {
            cell.parse()
                .unwrap_or_else(|_| panic!("counts.tsv: bad number in {line:?}"))
        };
        rows.push((name.to_owned(), number(occurrences), number(files)));
    }
    Counts { meta, rows }
}

/// What the classification says of a name.
struct Class {
    class: String,
    note: String,
}

const CLASSES: [&str; 4] = ["pure", "impure", "structure", "package"];

fn classification() -> BTreeMap<String, Class> {
    let text = read(&spec_dir().join("census/classification.tsv"));
    let mut out = BTreeMap::new();
    for line in text.lines() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let mut cells = line.splitn(3, '\t');
        let name = cells.next().unwrap_or_default().to_owned();
        let class = cells.next().unwrap_or_default().to_owned();
        let note = cells.next().unwrap_or_default().trim().to_owned();
        assert!(
            CLASSES.contains(&class.as_str()),
            "classification.tsv: {name}: class {class:?} is not one of {CLASSES:?}"
        );
        let previous = out.insert(name.clone(), Class { class, note });
        assert!(
            previous.is_none(),
            "classification.tsv: {name} is listed twice"
        );
    }
    out
}

/// What the compiler says of `name`: `None` when supported, else its advice for the
/// unknown function (possibly empty).
fn compiler_status(name: &str) -> Option<String> {
    let probe = format!("({name})");
    let diagnostics = ptc_compiler::check(&probe, &Roster::default(), &Limits::default());
    let unknown = diagnostics.iter().find(|d| d.code == "E0301")?;
    let message = &unknown.message;
    let listed = message
        .split_once("Unknown functions: ")
        .map_or(message.as_str(), |(_, rest)| rest);
    let listed = listed
        .split_once(".  Callable names")
        .map_or(listed, |(l, _)| l);
    let advice = listed.strip_prefix(name).unwrap_or(listed).trim();
    let advice = advice
        .strip_prefix('(')
        .and_then(|a| a.strip_suffix(')'))
        .unwrap_or(advice);
    Some(advice.to_owned())
}

/// What the compiler says of a probe script: `None` when it compiles without diagnostics,
/// else its first diagnostic (an unknown function's advice as [`compiler_status`] gives
/// it).
fn script_status(probe: &str) -> Option<String> {
    let diagnostics = ptc_compiler::check(probe, &Roster::default(), &Limits::default());
    let first = diagnostics
        .iter()
        .find(|d| d.code == "E0301")
        .or(diagnostics.first())?;
    let message = first
        .message
        .split_once(".  Callable names")
        .map_or(first.message.as_str(), |(m, _)| m);
    Some(format!("{}: {message}", first.code))
}

/// One form issue 46 names: its label, its probe script (`None`: the name probe) and the
/// note for it when refused.
struct IssueForm {
    label: String,
    probe: Option<String>,
    note: String,
}

fn issue_forms() -> Vec<IssueForm> {
    let text = read(&spec_dir().join("census/issue-46-forms.tsv"));
    text.lines()
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
        .map(|line| {
            let mut cells = line.splitn(3, '\t');
            let label = cells.next().unwrap_or_default().to_owned();
            let probe = cells
                .next()
                .map(str::trim)
                .filter(|p| !p.is_empty())
                .map(str::to_owned);
            let note = cells.next().unwrap_or_default().trim().to_owned();
            IssueForm { label, probe, note }
        })
        .collect()
}

fn is_reasoned(note: &str) -> bool {
    note.starts_with("refused:") || note.starts_with("gap:")
}

fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

fn code(name: &str) -> String {
    if name.contains('`') {
        format!("`` {name} ``")
    } else {
        format!("`{name}`")
    }
}

fn percent(part: u64, whole: u64) -> String {
    if whole == 0 {
        return "n/a".to_owned();
    }
    // One decimal, rounded down, so the table never claims more than was measured.
    let tenths = part * 1000 / whole;
    format!("{}.{}%", tenths / 10, tenths % 10)
}

struct Row<'a> {
    rank: usize,
    name: &'a str,
    occurrences: u64,
    files: u64,
    class: &'a Class,
    advice: Option<String>,
}

fn generate() -> Result<String, Vec<String>> {
    let counts = counts();
    let classes = classification();
    let mut problems = Vec::new();
    let mut rows = Vec::new();
    for (index, (name, occurrences, files)) in counts.rows.iter().take(TOP).enumerate() {
        let Some(class) = classes.get(name) else {
            problems.push(format!(
                "{name} ({occurrences}) is in the top {TOP} but not in classification.tsv"
            ));
            continue;
        };
        let advice = compiler_status(name);
        if class.class == "pure" && advice.is_some() && !is_reasoned(&class.note) {
            problems.push(format!(
                "{name} is pure and refused by the compiler: classification.tsv must give \
                 `refused: REASON; rewrite: ...` or `gap: WHAT IT TAKES`"
            ));
        }
        rows.push(Row {
            rank: index + 1,
            name,
            occurrences: *occurrences,
            files: *files,
            class,
            advice,
        });
    }
    let mut issue = Vec::new();
    for form in issue_forms() {
        let status = match &form.probe {
            None => compiler_status(&form.label),
            Some(probe) => script_status(probe),
        };
        let note = if form.note.is_empty() {
            classes
                .get(&form.label)
                .map(|c| c.note.clone())
                .unwrap_or_default()
        } else {
            form.note.clone()
        };
        if status.is_some() && !is_reasoned(&note) {
            problems.push(format!(
                "{}, named in issue 46, is refused by the compiler: issue-46-forms.tsv (or \
                 classification.tsv) must give `refused: REASON; rewrite: ...` or `gap: ...`",
                form.label
            ));
        }
        issue.push((form, status, note));
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    Ok(render(&counts, &rows, &issue))
}

fn render(
    counts: &Counts,
    rows: &[Row<'_>],
    issue: &[(IssueForm, Option<String>, String)],
) -> String {
    let meta = |key: &str| counts.meta.get(key).cloned().unwrap_or_default();
    let mut by_class: BTreeMap<&str, (u64, u64, usize)> = BTreeMap::new();
    for row in rows {
        let entry = by_class.entry(row.class.class.as_str()).or_default();
        entry.0 += row.occurrences;
        entry.2 += 1;
        if row.advice.is_none() {
            entry.1 += row.occurrences;
        }
    }
    let (pure_all, pure_supported, pure_names) = by_class.get("pure").copied().unwrap_or_default();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# The Emacs Lisp census\n\n\
         Generated by `PTC_CENSUS_WRITE=1 cargo test -p ptc-spec --test census` from \
         `spec/census/counts.tsv` (written by `spec/census/census.py count` from the pinned \
         repositories of `spec/census/repos.toml`), `spec/census/classification.tsv` (hand \
         audited) and the compiler. Do not edit by hand: `cargo test -p ptc-spec --test \
         census` fails when this table and the code disagree. The method is \
         `spec/census/README.md`.\n\n\
         A name's **status** is the compiler's answer to the probe script `(NAME)`: \
         *refused* when it reports the name as an unknown function (E0301), with the \
         compiler's own advice; *supported* otherwise.\n\n\
         Corpus: {} repositories, {} files, {} call heads, {} distinct head names.\n",
        meta("repos"),
        meta("files"),
        meta("call-heads"),
        meta("names"),
    );
    let _ = writeln!(
        out,
        "**Coverage: {pure_supported} of {pure_all} pure call occurrences ({}) among the \
         {TOP} most used names have a supported operator** ({pure_names} pure names).\n",
        percent(pure_supported, pure_all)
    );
    out.push_str("| class | names | occurrences | supported occurrences |\n");
    out.push_str("| --- | --- | --- | --- |\n");
    for (class, (all, supported, names)) in &by_class {
        let _ = writeln!(
            out,
            "| {class} | {names} | {all} | {supported} ({}) |",
            percent(*supported, *all)
        );
    }
    out.push_str(
        "\nClasses: **pure** — data, control, strings, lists, numbers, hash tables, errors \
         and the definitions a script uses (the coverage's denominator); **impure** — \
         buffers, windows, text properties and faces, processes, files, I/O, UI, keymaps, \
         timers, advice, modes, hooks, global and buffer-local state, the clock, loading \
         and compiling; **structure** — what packages are built with and a one-shot script \
         is not (EIEIO classes, generic functions, customization groups); **package** — \
         defined by a corpus package or a third-party library (dash, s, f, ht), not \
         Emacs's vocabulary.\n\n",
    );
    out.push_str("## Refused pure names\n\n");
    out.push_str(
        "Every pure name of the top 600 the compiler refuses, by occurrences. *refused* is \
         a reasoned refusal with its rewrite; *gap* is vocabulary still to add, with what \
         it takes.\n\n",
    );
    out.push_str(
        "| name | occurrences | compiler's advice | reason |\n| --- | --- | --- | --- |\n",
    );
    let mut refused: Vec<&Row<'_>> = rows
        .iter()
        .filter(|r| r.class.class == "pure" && r.advice.is_some())
        .collect();
    refused.sort_by_key(|r| (std::cmp::Reverse(r.occurrences), r.name));
    for row in refused {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} |",
            code(row.name),
            row.occurrences,
            cell(row.advice.as_deref().unwrap_or_default()),
            cell(&row.class.note)
        );
    }
    let supported = issue
        .iter()
        .filter(|(_, status, _)| status.is_none())
        .count();
    let _ = writeln!(
        out,
        "\n## The forms issue 46 names\n\n\
         {supported} of {} supported. A bare name is probed as `(NAME)`; a form with a probe \
         is supported when `ptc check` accepts the probe without any diagnostic \
         (`spec/census/issue-46-forms.tsv`).\n",
        issue.len()
    );
    out.push_str("| form | probe | status | note |\n| --- | --- | --- | --- |\n");
    for (form, status, note) in issue {
        let probe = form.probe.as_deref().map_or_else(String::new, code);
        let status = match status {
            None => "supported".to_owned(),
            Some(answer) if answer.is_empty() => "refused".to_owned(),
            Some(answer) => format!("refused ({})", cell(answer)),
        };
        let note = if status == "supported" {
            ""
        } else {
            note.as_str()
        };
        let _ = writeln!(
            out,
            "| {} | {} | {status} | {} |",
            code(&form.label),
            cell(&probe),
            cell(note)
        );
    }
    let _ = writeln!(out, "\n## The top {TOP}\n");
    out.push_str(
        "| rank | name | occurrences | files | class | status | note |\n\
         | --- | --- | --- | --- | --- | --- | --- |\n",
    );
    for row in rows {
        let status = match &row.advice {
            None => "supported".to_owned(),
            Some(advice) if advice.is_empty() => "refused".to_owned(),
            Some(advice) => format!("refused ({})", cell(advice)),
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} |",
            row.rank,
            code(row.name),
            row.occurrences,
            row.files,
            row.class.class,
            status,
            cell(&row.class.note)
        );
    }
    out
}

#[test]
fn the_census_table_is_in_step_with_the_compiler() {
    let path = spec_dir().join("reference/census.md");
    let generated = match generate() {
        Ok(text) => text,
        Err(problems) => panic!("the census cannot be generated:\n{}", problems.join("\n")),
    };
    if std::env::var_os("PTC_CENSUS_WRITE").is_some() {
        std::fs::write(&path, &generated).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        return;
    }
    let committed = read(&path);
    if committed != generated {
        let differing: Vec<String> = committed
            .lines()
            .zip(generated.lines())
            .filter(|(a, b)| a != b)
            .take(20)
            .map(|(a, b)| format!("committed: {a}\n     code: {b}"))
            .collect();
        panic!(
            "spec/reference/census.md is out of step with the code (regenerate with \
             PTC_CENSUS_WRITE=1 cargo test -p ptc-spec --test census):\n{}\n({} lines \
             committed, {} generated)",
            differing.join("\n"),
            committed.lines().count(),
            generated.lines().count()
        );
    }
}

#[test]
fn the_probe_tells_known_from_unknown() {
    assert_eq!(compiler_status("car"), None);
    assert_eq!(compiler_status("when"), None);
    assert_eq!(compiler_status("defun"), None);
    assert_eq!(compiler_status("qqzzx"), Some(String::new()));
    assert!(
        compiler_status("loop").is_some_and(|advice| advice.contains("cl-loop")),
        "{:?}",
        compiler_status("loop")
    );
}
