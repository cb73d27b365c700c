//! Guest argument lists → the JSON argument object a tool's schema describes, then
//! validation against that schema (spec/reference/tool-calls.md).
//!
//! A guest call `(Read :file_path "a.rs" :limit 10)` reaches the runtime as the argument
//! list `(:file_path "a.rs" :limit 10)`. Each value is converted by its declared property
//! schema: `:null`/`:json-false` are JSON null/false anywhere; nil for a `boolean` is
//! false; an `object` takes a keyword plist (nil → `{}`); an `array` takes a list or a
//! vector; everything else follows the generic mapping of [`crate::convert`]. The object
//! is then checked with the tool's compiled JSON Schema validator.
//!
//! Every failure is an [`ArgsError`] whose message the driver hands the guest as
//! `(:error "Error: MESSAGE")`; a malformed call never aborts the script.

use crate::arg_plan::{ArgPlan, Property};
use crate::catalog::CatalogTool;
use crate::convert::{self, ConvertError, MAX_JSON_DEPTH, keyword_key};
use ptc_vm::print::SymbolNames as _;
use ptc_vm::symbol::well_known;
use ptc_vm::{Limits, Symbols, Value};
use serde_json::{Map, Value as Json};

/// Why a call's arguments were refused; the message is model-facing, without `Error: `.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ArgsError(pub String);

/// How many schema violations one message lists.
const MAX_REPORTED_VIOLATIONS: usize = 3;

/// Converts and validates the guest argument list `args` for `tool`.
///
/// # Errors
/// [`ArgsError`] with the original's messages for shape errors, and the validator's for
/// schema violations.
pub fn prepare(
    tool: &CatalogTool,
    args: &Value,
    symbols: &Symbols,
    limits: &Limits,
) -> Result<Json, ArgsError> {
    let (json, fits) = convert_planned(&tool.contract.name, args, tool.plan(), symbols, limits)?;
    let validator = tool
        .validator()
        .map_err(|error| ArgsError(error.to_string()))?;
    // The plan accepts only what the validator accepts (crate::arg_plan); anything else
    // is the validator's to decide and to word.
    if !fits {
        validate(&tool.contract.name, validator, &json)?;
    }
    Ok(json)
}

/// The guest argument list as a JSON object, shaped by `schema`.
///
/// # Errors
/// See [`prepare`].
pub fn convert_args(
    name: &str,
    args: &Value,
    schema: &Json,
    symbols: &Symbols,
    limits: &Limits,
) -> Result<Json, ArgsError> {
    let plan = ArgPlan::new(schema);
    convert_planned(name, args, &plan, symbols, limits).map(|(json, _)| json)
}

/// [`convert_args`] by the tool's plan; also whether the plan accepts the object
/// ([`crate::arg_plan::Check::fits`]).
fn convert_planned(
    name: &str,
    args: &Value,
    plan: &ArgPlan,
    symbols: &Symbols,
    limits: &Limits,
) -> Result<(Json, bool), ArgsError> {
    let pairs_error = || ArgsError(format!("{name}: arguments must be :keyword value pairs"));
    if args.weight().has_closure {
        return Err(ArgsError(format!(
            "{name}: a closure cannot be passed as a tool argument"
        )));
    }
    let mut check = plan.check();
    // Sized once (a plist's pairs): the map never regrows while filling.
    let mut object = Map::with_capacity(args.iter().count() / 2);
    let mut iter = args.iter();
    while let Some(key) = iter.next() {
        let key = match key {
            Value::Sym(symbol) if symbol.is_keyword() => symbols.symbol_name(*symbol),
            _ => return Err(pairs_error()),
        };
        let Some(value) = iter.next() else {
            return Err(ArgsError(format!("{name}: argument {key} has no value")));
        };
        let property = keyword_key(key);
        let declared = plan.property(property);
        // The same rule the preflight contract states (crate::contract).
        if declared.is_none() && plan.closed {
            return Err(ArgsError(format!(
                "{name} has no argument `{property}'; it accepts: {}",
                plan.accepted()
            )));
        }
        let json = match declared {
            Some((_, declared)) => by_property(value, declared, symbols, limits),
            None => by_schema(value, None, symbols, limits, 0),
        }
        .map_err(|error| ArgsError(format!("{name}: argument {key}: {}", error.0)))?;
        // A repeated key keeps its first value, as `plist-get` would.
        if let serde_json::map::Entry::Vacant(slot) = object.entry(property) {
            if let Some((index, _)) = declared {
                check.declared(index, &json);
            }
            slot.insert(json);
        }
    }
    if !iter.rest().is_nil() {
        return Err(pairs_error());
    }
    Ok((Json::Object(object), check.fits()))
}

/// [`by_schema`] for a declared property, deciding by its plan's types (no lookup in its
/// schema unless it is an object or array type, which the schema shapes).
fn by_property(
    value: &Value,
    property: &Property,
    symbols: &Symbols,
    limits: &Limits,
) -> Result<Json, ConvertError> {
    if property.wants_aggregate() {
        return by_schema(value, Some(&property.schema), symbols, limits, 0);
    }
    match value {
        Value::Sym(s) if *s == well_known::NULL => Ok(Json::Null),
        Value::Sym(s) if *s == well_known::JSON_FALSE => Ok(Json::Bool(false)),
        Value::Nil if property.wants_boolean() => Ok(Json::Bool(false)),
        _ => convert::to_json(value, symbols, limits),
    }
}

/// Whether the schema's `type` value (one name or an array of names) includes `wanted`;
/// no allocation, since it runs for every argument value.
fn has_type(types: Option<&Json>, wanted: &str) -> bool {
    match types {
        Some(Json::String(t)) => t == wanted,
        Some(Json::Array(ts)) => ts.iter().any(|t| t.as_str() == Some(wanted)),
        _ => false,
    }
}

fn by_schema(
    value: &Value,
    schema: Option<&Json>,
    symbols: &Symbols,
    limits: &Limits,
    depth: usize,
) -> Result<Json, ConvertError> {
    if depth > MAX_JSON_DEPTH {
        return Err(ConvertError(format!(
            "Guest value nests deeper than the {MAX_JSON_DEPTH} levels JSON allows"
        )));
    }
    match value {
        Value::Sym(s) if *s == well_known::NULL => return Ok(Json::Null),
        Value::Sym(s) if *s == well_known::JSON_FALSE => return Ok(Json::Bool(false)),
        _ => {}
    }
    // One lookup of `type` per value (the schema's maps hash every key).
    let types = schema.and_then(|s| s.get("type"));
    let wants = |t: &str| has_type(types, t);
    if wants("boolean") && matches!(value, Value::Nil) {
        return Ok(Json::Bool(false));
    }
    if wants("object") && value.is_list() {
        return object(value, schema, symbols, limits, depth);
    }
    if wants("array") {
        let item_schema = schema.and_then(|s| s.get("items"));
        match value {
            Value::Nil | Value::Cons(_) => {
                let mut items = Vec::new();
                let mut iter = value.iter();
                for item in iter.by_ref() {
                    items.push(by_schema(item, item_schema, symbols, limits, depth + 1)?);
                }
                if !iter.rest().is_nil() {
                    return Err(ConvertError("array arguments must be proper lists".into()));
                }
                return Ok(Json::Array(items));
            }
            Value::Vector(vector) => {
                return vector
                    .items()
                    .iter()
                    .map(|item| by_schema(item, item_schema, symbols, limits, depth + 1))
                    .collect::<Result<Vec<_>, _>>()
                    .map(Json::Array);
            }
            _ => {}
        }
    }
    convert::to_json(value, symbols, limits)
}

fn object(
    value: &Value,
    schema: Option<&Json>,
    symbols: &Symbols,
    limits: &Limits,
    depth: usize,
) -> Result<Json, ConvertError> {
    let properties = schema
        .and_then(|s| s.get("properties"))
        .and_then(Json::as_object);
    let mut object = Map::with_capacity(value.iter().count() / 2);
    let mut iter = value.iter();
    while let Some(key) = iter.next() {
        let Value::Sym(key) = key else {
            return Err(ConvertError(
                "Object arguments require keyword/value pairs".into(),
            ));
        };
        if !key.is_keyword() {
            return Err(ConvertError(
                "Object arguments require keyword/value pairs".into(),
            ));
        }
        let Some(item) = iter.next() else {
            return Err(ConvertError(
                "Object arguments require keyword/value pairs".into(),
            ));
        };
        let property = keyword_key(symbols.symbol_name(*key));
        let declared = properties.and_then(|p| p.get(property));
        let json = by_schema(item, declared, symbols, limits, depth + 1)?;
        object.entry(property.to_owned()).or_insert(json);
    }
    if !iter.rest().is_nil() {
        return Err(ConvertError("Object arguments must be proper lists".into()));
    }
    Ok(Json::Object(object))
}

/// Checks `json` against the tool's validator.
///
/// # Errors
/// The first few violations, each with its instance path.
pub fn validate(
    name: &str,
    validator: &jsonschema::Validator,
    json: &Json,
) -> Result<(), ArgsError> {
    // The boolean check allocates nothing; the errors are collected only for a refusal.
    if validator.is_valid(json) {
        return Ok(());
    }
    let violations: Vec<String> = validator
        .iter_errors(json)
        .take(MAX_REPORTED_VIOLATIONS)
        .map(|error| {
            let path = error.instance_path().to_string();
            let path = path.trim_start_matches('/');
            if path.is_empty() {
                error.to_string()
            } else {
                format!("argument {path}: {error}")
            }
        })
        .collect();
    if violations.is_empty() {
        Ok(())
    } else {
        Err(ArgsError(format!("{name}: {}", violations.join("; "))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{Catalog, ToolContract};
    use ptc_vm::Interner;
    use serde_json::json;

    struct Fixture {
        interner: Interner,
        registry: Catalog,
    }

    impl Fixture {
        fn new() -> Self {
            let mut registry = Catalog::new();
            let schema = json!({
                "type": "object",
                "properties": {
                    "file_path": {"type": "string"},
                    "limit": {"type": "integer"},
                    "recursive": {"type": "boolean"},
                    "tags": {"type": "array", "items": {"type": "string"}},
                    "options": {"type": "object", "properties": {"deep": {"type": "boolean"}}},
                    "note": {"type": ["string", "null"]}
                },
                "required": ["file_path"],
                "additionalProperties": false
            });
            registry
                .add(ToolContract::new("Read", "Reads.", schema))
                .unwrap();
            Fixture {
                interner: Interner::new(),
                registry,
            }
        }

        fn kw(&mut self, name: &str) -> Value {
            Value::Sym(self.interner.intern(name))
        }

        fn prepare(&self, args: Value) -> Result<Json, String> {
            let tool = self.registry.get("Read").unwrap();
            let symbols = Symbols::new(std::sync::Arc::new(self.interner.clone()));
            prepare(tool, &args, &symbols, &Limits::default()).map_err(|e| e.0)
        }
    }

    fn s(text: &str) -> Value {
        Value::string(text)
    }

    #[test]
    fn converts_by_declared_schema() {
        let mut f = Fixture::new();
        let deep = f.kw(":deep");
        let args = Value::list([
            f.kw(":file_path"),
            s("a.rs"),
            f.kw(":recursive"),
            Value::Nil,
            f.kw(":tags"),
            Value::vector(vec![s("x"), s("y")]),
            f.kw(":options"),
            Value::list([deep, Value::Sym(well_known::JSON_FALSE)]),
            f.kw(":note"),
            Value::Sym(well_known::NULL),
        ]);
        assert_eq!(
            f.prepare(args).unwrap(),
            json!({"file_path": "a.rs", "recursive": false, "tags": ["x", "y"],
                   "options": {"deep": false}, "note": null})
        );
        let args = Value::list([f.kw(":file_path"), s("b"), f.kw(":options"), Value::Nil]);
        assert_eq!(
            f.prepare(args).unwrap(),
            json!({"file_path": "b", "options": {}})
        );
    }

    #[test]
    fn shape_errors_use_the_original_messages() {
        let mut f = Fixture::new();
        assert_eq!(
            f.prepare(Value::list([s("a.rs")])).unwrap_err(),
            "Read: arguments must be :keyword value pairs"
        );
        let key = f.kw(":file_path");
        assert_eq!(
            f.prepare(Value::list([key])).unwrap_err(),
            "Read: argument :file_path has no value"
        );
        let args = Value::list([f.kw(":path"), s("a")]);
        assert_eq!(
            f.prepare(args).unwrap_err(),
            "Read has no argument `path'; it accepts: file_path, limit, recursive, tags, options, note"
        );
        let options = f.kw(":options");
        let args = Value::list([f.kw(":file_path"), s("a"), options, Value::list([s("x")])]);
        assert_eq!(
            f.prepare(args).unwrap_err(),
            "Read: argument :options: Object arguments require keyword/value pairs"
        );
        let deep = f.kw(":deep");
        let dotted = Value::cons(deep, Value::cons(Value::T, Value::Int(3)));
        let args = Value::list([f.kw(":file_path"), s("a"), f.kw(":options"), dotted]);
        assert_eq!(
            f.prepare(args).unwrap_err(),
            "Read: argument :options: Object arguments must be proper lists"
        );
    }

    #[test]
    fn schema_violations_are_reported() {
        let mut f = Fixture::new();
        let args = Value::list([f.kw(":file_path"), Value::Int(12)]);
        assert_eq!(
            f.prepare(args).unwrap_err(),
            "Read: argument file_path: 12 is not of type \"string\""
        );
        let args = Value::list([f.kw(":limit"), Value::Int(3)]);
        assert_eq!(
            f.prepare(args).unwrap_err(),
            "Read: \"file_path\" is a required property"
        );
    }

    #[test]
    fn closures_and_deep_values_do_not_convert() {
        let mut f = Fixture::new();
        let closure = Value::Closure(std::sync::Arc::new(ptc_vm::value::Closure {
            function: 0,
            captures: ptc_vm::value::Captures::new(),
        }));
        let args = Value::list([f.kw(":file_path"), closure]);
        assert_eq!(
            f.prepare(args).unwrap_err(),
            "Read: a closure cannot be passed as a tool argument"
        );
        let mut deep = Value::Nil;
        for _ in 0..10_000 {
            deep = Value::list([deep]);
        }
        let args = Value::list([f.kw(":tags"), deep]);
        assert_eq!(
            f.prepare(args).unwrap_err(),
            "Read: argument :tags: Guest value nests deeper than the 128 levels JSON allows"
        );
    }
}
