//! The reference's closed tables list exactly the names in the code's closed tables.
//!
//! Each test compares a table parsed from `spec/reference/*.md` with the corresponding
//! constant of the implementation, reporting the names missing on either side. The
//! diagnostics chapter is compared with the `"E0000"` literals found by scanning
//! `compiler/src/**/*.rs` (the compiler keeps no closed table of its codes).

use ptc_spec::{
    duplicates, reference_budget_keys, reference_error_kinds, reference_primitive_names,
    reference_primitives,
};
use std::collections::{BTreeMap, BTreeSet};

fn compare(what: &str, reference: &[String], code: &[&str]) {
    let dup = duplicates(reference);
    assert!(dup.is_empty(), "{what}: reference lists twice: {dup:?}");
    let reference: BTreeSet<&str> = reference.iter().map(String::as_str).collect();
    let code: BTreeSet<&str> = code.iter().copied().collect();
    let missing: Vec<_> = code.difference(&reference).collect();
    let extra: Vec<_> = reference.difference(&code).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "{what}: missing from the reference: {missing:?}; not in the code: {extra:?}"
    );
}

#[test]
fn primitive_table_matches_the_code() {
    let names: Vec<&str> = ptc_vm::prims::PRIMITIVES.iter().map(|p| p.name).collect();
    compare("primitives", &reference_primitive_names(), &names);
    assert_eq!(
        reference_primitive_names().len(),
        ptc_vm::prims::PRIMITIVES.len()
    );
}

#[test]
fn primitive_signatures_match_the_code() {
    let mut wrong = Vec::new();
    for (name, signature) in reference_primitives() {
        if let Some(p) = ptc_vm::prims::PRIMITIVES.iter().find(|p| p.name == name)
            && p.signature != signature
        {
            wrong.push(format!(
                "{name}: reference `{signature}`, code `{}`",
                p.signature
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn budget_table_matches_the_code() {
    let keys: Vec<&str> = ptc_vm::Limits::KEYS.iter().map(|k| k.name).collect();
    compare("budgets", &reference_budget_keys(), &keys);
}

#[test]
fn error_kind_table_matches_the_code() {
    let kinds: Vec<&str> = ptc_vm::ErrorKind::ALL.iter().map(|k| k.as_str()).collect();
    compare("error kinds", &reference_error_kinds(), &kinds);
}

#[test]
fn special_form_table_matches_the_compiler() {
    compare(
        "special forms",
        &ptc_spec::reference_special_form_names(),
        &ptc_compiler::tables::SPECIAL_FORMS,
    );
}

#[test]
fn transformer_table_matches_the_compiler() {
    compare(
        "transformers",
        &ptc_spec::reference_transformer_names(),
        &ptc_compiler::tables::TRANSFORMERS,
    );
}

/// One `"E0000"` string literal in the compiler source: where it is, and the
/// `ErrorKind` written right after it (`"E0305", ErrorKind::AtomicWork`) or, for a
/// constant of the reader's `codes` module, in its doc comment (`` (`input`) ``).
struct CodeUse {
    location: String,
    kind: Option<String>,
}

/// `AtomicWork` → `atomic-work`.
fn wire_name(variant: &str) -> String {
    let mut name = String::new();
    for c in variant.chars() {
        if c.is_ascii_uppercase() && !name.is_empty() {
            name.push('-');
        }
        name.push(c.to_ascii_lowercase());
    }
    name
}

fn kind_after(rest: &str) -> Option<String> {
    let rest = rest.trim_start().strip_prefix(',')?.trim_start();
    let variant = rest.strip_prefix("ErrorKind::")?;
    let end = variant
        .find(|c: char| !c.is_ascii_alphanumeric())
        .unwrap_or(variant.len());
    Some(wire_name(variant.get(..end)?))
}

fn kind_in_doc(previous_line: &str) -> Option<String> {
    let doc = previous_line.trim().strip_prefix("///")?;
    let (_, tail) = doc.rsplit_once("(`")?;
    let (kind, _) = tail.split_once("`)")?;
    Some(kind.to_owned())
}

/// Every `"E` + four digits + `"` literal of `text`, with its line and kind evidence.
fn code_literals(text: &str) -> Vec<(String, usize, Option<String>)> {
    let mut found = Vec::new();
    let mut previous = "";
    for (index, line) in text.lines().enumerate() {
        let mut rest = line;
        while let Some(at) = rest.find("\"E") {
            let after = rest.get(at + 1..).unwrap_or_default();
            let candidate = after.get(..6).unwrap_or_default();
            let bytes = candidate.as_bytes();
            let is_code = bytes.len() == 6
                && bytes[0] == b'E'
                && bytes[1..5].iter().all(u8::is_ascii_digit)
                && bytes[5] == b'"';
            if is_code {
                let tail = after.get(6..).unwrap_or_default();
                let following: String = text
                    .lines()
                    .skip(index + 1)
                    .take(2)
                    .collect::<Vec<_>>()
                    .join("\n");
                let kind = kind_after(&format!("{tail}\n{following}")).or_else(|| {
                    line.contains("pub const")
                        .then(|| kind_in_doc(previous))
                        .flatten()
                });
                found.push((candidate[..5].to_owned(), index + 1, kind));
                rest = after.get(6..).unwrap_or_default();
            } else {
                rest = after;
            }
        }
        previous = line;
    }
    found
}

fn rust_files(dir: &std::path::Path, files: &mut Vec<std::path::PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, files);
        } else if path.extension().is_some_and(|x| x == "rs") {
            files.push(path);
        }
    }
}

/// Every diagnostic code literal in `compiler/src/**/*.rs`.
fn compiler_codes() -> BTreeMap<String, Vec<CodeUse>> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../compiler/src");
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    let mut codes: BTreeMap<String, Vec<CodeUse>> = BTreeMap::new();
    for file in files {
        let text =
            std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let name = file
            .strip_prefix(&root)
            .unwrap_or(&file)
            .display()
            .to_string();
        for (code, line, kind) in code_literals(&text) {
            codes.entry(code).or_default().push(CodeUse {
                location: format!("{name}:{line}"),
                kind,
            });
        }
    }
    codes
}

#[test]
fn code_literals_are_found_with_their_kinds() {
    let text = "x(\"E0101\", ErrorKind::AtomicWork, m)\n\"E12\" \"E12345\" \"e0001\"\nf(\n    \"E0203\",\n    ErrorKind::Input,\n)\n/// Too big (`input`).\npub const A: &str = \"E0001\";\n(\"E0205\", \"E0206\")\n";
    let found = code_literals(text);
    let summary: Vec<(&str, usize, Option<&str>)> = found
        .iter()
        .map(|(c, l, k)| (c.as_str(), *l, k.as_deref()))
        .collect();
    assert_eq!(
        summary,
        vec![
            ("E0101", 1, Some("atomic-work")),
            ("E0203", 4, Some("input")),
            ("E0001", 8, Some("input")),
            ("E0205", 9, None),
            ("E0206", 9, None),
        ]
    );
}

/// The pipeline stages of `diagnostics.md`.
const STAGES: [&str; 6] = [
    "reader",
    "definitions",
    "preflight",
    "expansion",
    "macro run",
    "lowering",
];

#[test]
fn diagnostic_table_matches_the_compiler() {
    let rows = ptc_spec::reference_diagnostics();
    let mut problems = Vec::new();

    // Each code once, with one kind, a known stage and a message.
    let mut kinds: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for row in &rows {
        kinds.entry(&row.code).or_default().insert(&row.kind);
        let well_formed = row.code.len() == 5
            && row.code.starts_with('E')
            && row.code.bytes().skip(1).all(|b| b.is_ascii_digit());
        if !well_formed {
            problems.push(format!("malformed code `{}`", row.code));
        }
        if row.kind != "any" && ptc_vm::ErrorKind::from_name(&row.kind).is_none() {
            problems.push(format!("{}: unknown kind `{}`", row.code, row.kind));
        }
        if !STAGES.contains(&row.stage.as_str()) {
            problems.push(format!("{}: unknown stage `{}`", row.code, row.stage));
        }
        if row.message.is_empty() || row.when.is_empty() {
            problems.push(format!("{}: empty message or description", row.code));
        }
    }
    for (code, found) in &kinds {
        if found.len() > 1 {
            problems.push(format!("{code} is listed with several kinds: {found:?}"));
        }
    }
    let listed: Vec<String> = rows.iter().map(|r| r.code.clone()).collect();
    let dup = duplicates(&listed);
    if !dup.is_empty() {
        problems.push(format!("listed twice: {dup:?}"));
    }

    // Exactly the codes of the compiler.
    let used = compiler_codes();
    let listed: BTreeSet<&str> = listed.iter().map(String::as_str).collect();
    let missing: Vec<_> = used
        .iter()
        .filter(|(code, _)| !listed.contains(code.as_str()))
        .map(|(code, uses)| format!("{code} ({})", uses[0].location))
        .collect();
    let extra: Vec<_> = listed
        .iter()
        .filter(|code| !used.contains_key(**code))
        .collect();
    if !missing.is_empty() {
        problems.push(format!("missing from diagnostics.md: {missing:?}"));
    }
    if !extra.is_empty() {
        problems.push(format!("not in compiler/src: {extra:?}"));
    }

    // The kind the source writes next to a code agrees with the table.
    for (code, uses) in &used {
        let Some(row) = rows.iter().find(|r| &r.code == code) else {
            continue;
        };
        for code_use in uses {
            if let Some(kind) = &code_use.kind
                && row.kind != "any"
                && *kind != row.kind
            {
                problems.push(format!(
                    "{code}: the table says `{}`, {} raises `{kind}`",
                    row.kind, code_use.location
                ));
            }
        }
    }
    assert!(used.len() >= 60, "only {} codes found", used.len());
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
