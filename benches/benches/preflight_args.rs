//! The cost of judging tool arguments in preflight (issue 15): a 10-line script with 12
//! tool calls against a 50-tool roster whose contracts the runtime summarised from real
//! JSON Schemas, with and without those contracts. The added check time is the difference
//! of the `contracts` and `names-only` rows, for preflight alone and for the whole static
//! pipeline. Target: at most 5 µs added.

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use ptc_compiler::{Roster, compile, definitions, direct, preflight, reader};
use ptc_runtime::{Registry, ToolContract, ToolRequestCtx, ToolResult};
use ptc_vm::Limits;
use serde_json::json;
use std::hint::black_box;

const SCRIPT: &str = r#"(defun hits (p) (split-string (Grep :pattern p :path "src" :ignore_case nil) "\n" t))
(let* ((files (split-string (Glob :pattern "**/*.rs") "\n" t))
       (heads (parallel-map (lambda (f) (Read :file_path f :offset 1 :limit 20)) (take 3 files)))
       (both (parallel (Tool7 :query "a" :mode "fast" :count 3 :verbose t)
                       (Tool19 :query "b" :mode "full" :count 1)
                       (Tool33 :query "c" :tags ["x" "y"]))))
  (dolist (h (hits "^fn "))
    (Tool41 :query h :mode "fast"))
  (list :files (length files) :heads (length heads) :both both
        :more (Tool2 :query "d" :count 10) :last (Tool46 :query "e" :verbose :json-false)))
"#;

/// The 50-tool registry: Read, Glob, Grep with their CLI schemas, and 47 tools with four
/// typed properties each (one an enum).
fn registry() -> Registry {
    let mut registry = Registry::new();
    let handler = |_r: ToolRequestCtx| async { ToolResult::text("") };
    let tools = [
        (
            "Read",
            json!({"type": "object", "properties": {
            "file_path": {"type": "string"}, "offset": {"type": "integer", "minimum": 1},
            "limit": {"type": "integer", "minimum": 1}},
          "required": ["file_path"], "additionalProperties": false}),
        ),
        (
            "Glob",
            json!({"type": "object", "properties": {
            "pattern": {"type": "string"}, "path": {"type": "string"}},
          "required": ["pattern"], "additionalProperties": false}),
        ),
        (
            "Grep",
            json!({"type": "object", "properties": {
            "pattern": {"type": "string"}, "path": {"type": "string"},
            "glob": {"type": "string"}, "ignore_case": {"type": "boolean"}},
          "required": ["pattern"], "additionalProperties": false}),
        ),
    ];
    for (name, schema) in tools {
        registry
            .register(ToolContract::new(name, "A tool.", schema), handler)
            .expect("registers");
    }
    for n in 0..47 {
        let schema = json!({"type": "object", "properties": {
            "query": {"type": "string"}, "mode": {"enum": ["fast", "full", "none"]},
            "count": {"type": "integer"}, "verbose": {"type": "boolean"},
            "tags": {"type": "array", "items": {"type": "string"}}},
          "required": ["query"], "additionalProperties": false});
        registry
            .register(
                ToolContract::new(format!("Tool{n}"), "A tool.", schema),
                handler,
            )
            .expect("registers");
    }
    registry
}

fn preflight_args(c: &mut Criterion) {
    let limits = Limits::default();
    let registry = registry();
    assert_eq!(registry.len(), 50);
    let contracts = registry.roster();
    let names_only = Roster {
        tools: contracts
            .tools
            .iter()
            .map(|t| ptc_compiler::RosterTool {
                args: None,
                ..t.clone()
            })
            .collect(),
    };
    assert_eq!(SCRIPT.lines().count(), 10);
    for roster in [&contracts, &names_only] {
        compile(SCRIPT, roster, &limits).expect("the benchmark script compiles");
    }
    // A wrong call is caught, so the contracts are really in use.
    assert!(compile("(Tool7 :query 1)", &contracts, &limits).is_err());

    let mut group = c.benchmark_group("preflight_args");
    for (label, roster) in [("contracts", &contracts), ("names-only", &names_only)] {
        // Preflight alone, on the read and collected script.
        let mut interner = ptc_vm::Interner::new();
        let forms = reader::read(SCRIPT, &limits, &mut interner).expect("reads");
        let direct = direct::classify(&forms, roster, &interner);
        let effective = direct::effective_roster(roster, direct.as_ref());
        let collected = definitions::collect(forms, &effective, &interner).expect("collects");
        group.bench_function(format!("preflight/{label}"), |b| {
            b.iter_batched_ref(
                || interner.clone(),
                |interner| {
                    black_box(
                        preflight::preflight(
                            &collected,
                            roster,
                            direct.as_ref(),
                            &limits,
                            interner,
                        )
                        .is_ok(),
                    )
                },
                BatchSize::SmallInput,
            );
        });
        group.bench_function(format!("compile/{label}"), |b| {
            b.iter(|| black_box(compile(SCRIPT, roster, &limits).is_ok()));
        });
    }
    group.finish();
}

criterion_group!(benches, preflight_args);
criterion_main!(benches);
