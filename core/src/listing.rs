//! What the model is told (spec/reference/tool-calls.md): the static ToolCall
//! description and input schema, and the tool listing rendered from the registry.
//!
//! The listing gives one calling shape per tool, the argument contract preflight checks
//! ([`crate::contract`]): `(Read :file_path STRING &optional :offset INTEGER :limit
//! INTEGER)` — required arguments first, then `&optional` ones, each with its JSON type in
//! capitals (`STRING|NULL` for a union, `ANY` when the schema states none) or its few
//! `enum` members (`"fast"|"full"`); then the summary (default: the description's first
//! sentence) and a mark for standalone-only tools. The description is static so hosts can
//! cache their prompts.

use crate::catalog::{Catalog, ToolContract};
use crate::contract::summarise;
use ptc_compiler::{Allowed, ArgContract, ArgSpec};
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

Parallel branches: (parallel (A :x 1) (B :y 2)) and (parallel-map (lambda (f) (cons f (length \
(split-string (Read :file_path f) \"\\n\")))) files) run their branches concurrently and return \
their values in source order. A branch may compute, call several tools in turn and return any \
value; a tool error stays an (:error ...) value in its branch, a script error ends the whole \
expression. A branch may not contain another parallel or parallel-map.

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

/// How many `enum` members a listing spells out before falling back to the type.
const MAX_LISTED_MEMBERS: usize = 6;

/// The placeholder of one argument: its `enum` members (`"fast"|"full"`) when there are
/// a few simple ones, else its types (`STRING|NULL`), else `ANY`.
fn placeholder(spec: Option<&ArgSpec>) -> String {
    let Some(spec) = spec else {
        return "ANY".to_owned();
    };
    if let Some(members) = &spec.allowed {
        let texts: Option<Vec<String>> = members
            .iter()
            .map(|m| match m {
                Allowed::Str(s) => Some(Json::String(s.clone()).to_string()),
                Allowed::Int(n) => Some(n.to_string()),
                Allowed::Bool(true) => Some("t".to_owned()),
                Allowed::Bool(false) => Some(":json-false".to_owned()),
                Allowed::Null => Some(":null".to_owned()),
                Allowed::Other => None,
            })
            .collect();
        if let Some(texts) = texts.filter(|t| !t.is_empty() && t.len() <= MAX_LISTED_MEMBERS) {
            return texts.join("|");
        }
    }
    if spec.types.is_empty() {
        return "ANY".to_owned();
    }
    spec.types
        .iter()
        .map(|t| t.placeholder())
        .collect::<Vec<_>>()
        .join("|")
}

/// The calling shape of a tool named `name` with argument contract `args`:
/// `(Read :file_path STRING &optional :offset INTEGER :limit INTEGER)`, required
/// arguments in the schema's `required` order, then the optional ones in declaration
/// order.
#[must_use]
pub fn shape_of(name: &str, args: &ArgContract) -> String {
    let mut out = format!("({name}");
    for key in &args.required {
        out.push_str(&format!(" :{key} {}", placeholder(args.arg(key))));
    }
    let mut optional = args
        .args
        .iter()
        .filter(|a| !args.is_required(&a.name))
        .peekable();
    if optional.peek().is_some() {
        out.push_str(" &optional");
    }
    for spec in optional {
        out.push_str(&format!(" :{} {}", spec.name, placeholder(Some(spec))));
    }
    out.push(')');
    out
}

/// The calling shape of `contract` (see [`shape_of`]).
#[must_use]
pub fn calling_shape(contract: &ToolContract) -> String {
    shape_of(&contract.name, &summarise(&contract.input_schema))
}

/// One listing line for `contract`.
#[must_use]
pub fn listing_line(contract: &ToolContract) -> String {
    let mut line = format!(
        "- {} — {}",
        calling_shape(contract),
        contract.summary_text()
    );
    if contract.standalone {
        line.push_str(" [standalone-only: must be the entire expression]");
    }
    line
}

/// The tool listing of `registry`: a header and one line per tool.
#[must_use]
pub fn tool_listing(registry: &Catalog) -> String {
    tool_listing_for(registry, None)
}

/// The tool listing of the tools of `registry` that `filter` allows (a filtered run's
/// listing: `ptc_runtime::RunOptions::tools`).
#[must_use]
pub fn tool_listing_for(registry: &Catalog, filter: Option<&crate::filter::ToolFilter>) -> String {
    let allowed = |name: &str| filter.is_none_or(|f| f.allows(name));
    let mut out = String::from("Tools available in this request:");
    let mut any = false;
    for tool in registry.tools().filter(|t| allowed(&t.contract.name)) {
        any = true;
        out.push('\n');
        out.push_str(&listing_line(&tool.contract));
    }
    if !any {
        return "No tools are available.".to_owned();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calling_shapes_show_argument_types() {
        let contract = ToolContract::new(
            "Read",
            "Reads. More text.",
            json!({"type": "object", "properties": {
                "file_path": {"type": "string"},
                "offset": {"type": "integer"}, "limit": {"type": "integer"}},
              "required": ["file_path"]}),
        );
        assert_eq!(
            calling_shape(&contract),
            "(Read :file_path STRING &optional :offset INTEGER :limit INTEGER)"
        );
        let contract = ToolContract::new(
            "All",
            "Everything",
            json!({"type": "object", "properties": {
                "n": {"type": "integer"}, "x": {"type": "number"}, "b": {"type": "boolean"},
                "a": {"type": "array"}, "o": {"type": "object"}, "s": {"type": ["string", "null"]},
                "m": {"enum": ["fast", "full", 2, true, false, null]},
                "big": {"type": "string", "enum": ["a", "b", "c", "d", "e", "f", "g"]},
                "mixed": {"type": "number", "enum": [1.5, 2]},
                "opt": {}},
              "required": ["n", "x", "b", "a", "o", "s", "missing"]}),
        )
        .standalone(true);
        assert_eq!(
            listing_line(&contract),
            "- (All :n INTEGER :x NUMBER :b BOOLEAN :a ARRAY :o OBJECT :s STRING|NULL \
             :missing ANY &optional :m \"fast\"|\"full\"|2|t|:json-false|:null :big STRING \
             :mixed NUMBER :opt ANY) — Everything [standalone-only: must be the entire expression]"
        );
    }

    #[test]
    fn listing_renders_every_tool() {
        let mut registry = Catalog::new();
        assert_eq!(tool_listing(&registry), "No tools are available.");
        registry
            .add(ToolContract::new(
                "Read",
                "Reads a file. Long text.",
                json!({"type": "object"}),
            ))
            .unwrap();
        assert_eq!(
            tool_listing(&registry),
            "Tools available in this request:\n- (Read) — Reads a file."
        );
        assert_eq!(input_schema()["required"], json!(["expression"]));
    }
}
