//! What the model is told (dialect notes §14.3, §14.4, §15): the static ToolCall
//! description and input schema, and the tool listing rendered from the registry.
//!
//! The listing gives one calling shape per tool, `(Name :req PLACEHOLDER ...)`, with
//! required arguments only and placeholders `0` (number, integer), `t` (boolean), `[]`
//! (array), `'()` (object) or `"<argname>"` (anything else); then the summary (default:
//! the description's first sentence), the optional argument names, and a mark for
//! standalone-only tools. The description is static so hosts can cache their prompts.

use crate::tool::{Registry, ToolContract};
use serde_json::{Value as Json, json};

/// The envelope tool's name.
pub const TOOL_NAME: &str = "ToolCall";

/// The envelope tool's one argument.
pub const ARGUMENT: &str = "expression";

/// The static description of the ToolCall tool.
pub const DESCRIPTION: &str = "\
Call one or more tools with one small closed Lisp expression.

Use it to invoke a tool from the listing, or to compose dependent calls, parallel batches \
and light result processing without a model turn between them. Don't wrap a single native \
tool call you could make directly.

`expression` is a Lisp call with keyword arguments, e.g. (Read :file_path \"src/main.rs\"), \
or several forms whose last value is returned. Strings come back verbatim; other values \
print Lisp-style. The language is closed: no host evaluation, no ambient state, only the \
listed tools and pure list, string, number and regexp operations, with let, let*, setq, \
if, cond, when, unless, while, dolist, dotimes, lambda, mapcar, defun and defmacro.

Parallel calls: (parallel (A :x 1) (B :y 2)) and (parallel-map (lambda (f) (Read :file_path f)) \
files) run their calls concurrently and return results in source order; their arguments may \
not call another tool.

Results: a tool's text as a string, structured results as keyword plists (JSON objects), \
lists (arrays), :null and :json-false. A failed call returns (:error \"message\"), so guard \
with (and (listp r) (plist-get r :error)). A permission denial aborts the whole \
expression; completed calls are not rolled back. Object arguments are keyword plists, \
arrays are lists or vectors, JSON false is :json-false (or nil for a boolean), JSON null \
is :null.

Standalone-only tools must be the entire expression, and need a model turn before further \
work. Every resource is bounded (steps, time, tool calls, value sizes, regexp work); an \
error names the budget that ran out.

Good: (Grep :pattern \"^fn \" :path \"src\")
Bad: (progn (Ask :question \"ok?\") (Read :file_path \"a\")) when Ask is standalone-only.";

/// The envelope tool's JSON input schema: exactly one required string `expression`.
#[must_use]
pub fn input_schema() -> Json {
    json!({
        "type": "object",
        "properties": {
            ARGUMENT: {
                "type": "string",
                "description": "The orchestration script. See the tool description for the accepted dialect."
            }
        },
        "required": [ARGUMENT],
        "additionalProperties": false
    })
}

/// The placeholder for an argument of `schema` named `name`.
fn placeholder(name: &str, schema: Option<&Json>) -> String {
    let kind = match schema.and_then(|s| s.get("type")) {
        Some(Json::String(t)) => Some(t.as_str()),
        Some(Json::Array(ts)) => ts.iter().filter_map(Json::as_str).find(|t| *t != "null"),
        _ => None,
    };
    match kind {
        Some("number" | "integer") => "0".to_owned(),
        Some("boolean") => "t".to_owned(),
        Some("array") => "[]".to_owned(),
        Some("object") => "'()".to_owned(),
        _ => format!("\"<{name}>\""),
    }
}

/// The calling shape of `contract`: `(Name :req PLACEHOLDER ...)`, required arguments
/// only, in declaration order.
#[must_use]
pub fn calling_shape(contract: &ToolContract) -> String {
    let mut out = format!("({}", contract.name);
    let properties = contract
        .input_schema
        .get("properties")
        .and_then(Json::as_object);
    if let Some(required) = contract
        .input_schema
        .get("required")
        .and_then(Json::as_array)
    {
        for name in required.iter().filter_map(Json::as_str) {
            let schema = properties.and_then(|p| p.get(name));
            out.push_str(&format!(" :{name} {}", placeholder(name, schema)));
        }
    }
    out.push(')');
    out
}

/// The optional argument names of `contract`, in declaration order.
fn optional_arguments(contract: &ToolContract) -> Vec<String> {
    let required: Vec<&str> = contract
        .input_schema
        .get("required")
        .and_then(Json::as_array)
        .map(|r| r.iter().filter_map(Json::as_str).collect())
        .unwrap_or_default();
    contract
        .input_schema
        .get("properties")
        .and_then(Json::as_object)
        .map(|p| {
            p.keys()
                .filter(|k| !required.contains(&k.as_str()))
                .map(|k| format!(":{k}"))
                .collect()
        })
        .unwrap_or_default()
}

/// One listing line for `contract`.
#[must_use]
pub fn listing_line(contract: &ToolContract) -> String {
    let mut line = format!(
        "- {} — {}",
        calling_shape(contract),
        contract.summary_text()
    );
    let optional = optional_arguments(contract);
    if !optional.is_empty() {
        line.push_str(&format!(" Optional: {}.", optional.join(" ")));
    }
    if contract.standalone {
        line.push_str(" [standalone-only: must be the entire expression]");
    }
    line
}

/// The tool listing of `registry`: a header and one line per tool.
#[must_use]
pub fn tool_listing(registry: &Registry) -> String {
    if registry.is_empty() {
        return "No tools are available.".to_owned();
    }
    let mut out = String::from("Tools available in this request:");
    for tool in registry.tools() {
        out.push('\n');
        out.push_str(&listing_line(&tool.contract));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tool::{ToolRequestCtx, ToolResult};

    #[test]
    fn calling_shapes_use_the_placeholders() {
        let contract = ToolContract::new(
            "TemplateProbe",
            "Probes. More text.",
            json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}),
        );
        assert_eq!(calling_shape(&contract), "(TemplateProbe :path \"<path>\")");
        let contract = ToolContract::new(
            "All",
            "Everything",
            json!({"type": "object", "properties": {
                "n": {"type": "integer"}, "x": {"type": "number"}, "b": {"type": "boolean"},
                "a": {"type": "array"}, "o": {"type": "object"}, "s": {"type": ["string", "null"]},
                "opt": {"type": "string"}},
              "required": ["n", "x", "b", "a", "o", "s"]}),
        )
        .standalone(true);
        assert_eq!(
            listing_line(&contract),
            "- (All :n 0 :x 0 :b t :a [] :o '() :s \"<s>\") — Everything Optional: :opt. \
             [standalone-only: must be the entire expression]"
        );
    }

    #[test]
    fn listing_renders_every_tool() {
        let mut registry = Registry::new();
        assert_eq!(tool_listing(&registry), "No tools are available.");
        registry
            .register(
                ToolContract::new(
                    "Read",
                    "Reads a file. Long text.",
                    json!({"type": "object"}),
                ),
                |_r: ToolRequestCtx| async { ToolResult::text("") },
            )
            .unwrap();
        assert_eq!(
            tool_listing(&registry),
            "Tools available in this request:\n- (Read) — Reads a file."
        );
        assert_eq!(input_schema()["required"], json!(["expression"]));
    }
}
