//! The workload of the argument-preflight measurements, shared by the criterion bench
//! (`benches/preflight_args.rs`) and the callgrind binary (`examples/preflight_measure.rs`):
//! a 10-line script with 12 tool calls against a 50-tool roster whose contracts the runtime
//! summarised from real JSON Schemas, and the same roster without contracts.

use ptc_compiler::{Roster, RosterTool};
use ptc_runtime::{Registry, ToolContract, ToolRequestCtx, ToolResult};
use serde_json::json;

pub const SCRIPT: &str = r#"(defun hits (p) (split-string (Grep :pattern p :path "src" :ignore_case nil) "\n" t))
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
pub fn registry() -> Registry {
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

/// The roster with contracts, and the same roster with every contract removed.
pub fn rosters() -> (Roster, Roster) {
    let registry = registry();
    assert_eq!(registry.len(), 50);
    let contracts = registry.roster();
    let names_only = Roster {
        tools: contracts
            .tools
            .iter()
            .map(|t| RosterTool {
                args: None,
                ..t.clone()
            })
            .collect(),
    };
    (contracts, names_only)
}
