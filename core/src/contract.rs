//! A tool's JSON Schema summarised into the compiler's argument contract
//! ([`ptc_compiler::ArgContract`]), which preflight uses to judge literal arguments before
//! anything runs (spec/reference/preflight.md, "Tool arguments").
//!
//! What is summarised, and only as a necessary condition of the runtime's own checks:
//! - whether the object is closed — the same rule [`crate::args`] applies before validation
//!   ([`is_closed`]: `additionalProperties: false`, or no `additionalProperties` next to
//!   `properties`);
//! - the declared property names, in declaration order;
//! - the top-level `required` keys;
//! - each property's `type` (a name or a list of names) and `enum` members.
//!
//! Everything else (`minimum`, `pattern`, `items`, `oneOf`, `anyOf`, `allOf`, `not`,
//! `if`, nested objects, `patternProperties`, ...) is left to the validator at dispatch.
//! A schema or property with a `$ref` contributes no `required`, `type` or `enum` (older
//! drafts ignore the siblings of `$ref`), so a `$ref` cycle is never followed. A boolean
//! property schema contributes nothing. The summary can therefore only check less than the
//! schema, never more.

use ptc_compiler::{Allowed, ArgContract, ArgSpec, JsonType};
use serde_json::Value as Json;

/// Whether `schema` refuses undeclared keys, as the runtime's conversion decides it:
/// `additionalProperties: false`, or `properties` without `additionalProperties`.
#[must_use]
pub fn is_closed(schema: &Json) -> bool {
    let has_properties = schema.get("properties").and_then(Json::as_object).is_some();
    match schema.get("additionalProperties") {
        None => has_properties,
        Some(Json::Bool(allowed)) => !allowed,
        Some(_) => false,
    }
}

/// The argument contract of a tool whose input schema is `schema`.
#[must_use]
pub fn summarise(schema: &Json) -> ArgContract {
    let by_ref = schema.get("$ref").is_some();
    let args = schema
        .get("properties")
        .and_then(Json::as_object)
        .map(|properties| {
            properties
                .iter()
                .map(|(name, property)| spec(name, property, by_ref))
                .collect()
        })
        .unwrap_or_default();
    let required = if by_ref {
        Vec::new()
    } else {
        schema
            .get("required")
            .and_then(Json::as_array)
            .map(|r| {
                r.iter()
                    .filter_map(Json::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default()
    };
    ArgContract {
        args,
        required,
        closed: is_closed(schema),
    }
}

fn spec(name: &str, property: &Json, by_ref: bool) -> ArgSpec {
    let mut spec = ArgSpec {
        name: name.to_owned(),
        ..ArgSpec::default()
    };
    if by_ref || !property.is_object() || property.get("$ref").is_some() {
        return spec;
    }
    spec.types = types(property.get("type"));
    spec.allowed = property
        .get("enum")
        .and_then(Json::as_array)
        .map(|members| members.iter().map(member).collect());
    spec
}

/// The type names of a `type` keyword; empty when absent or not understood.
fn types(keyword: Option<&Json>) -> Vec<JsonType> {
    let names: Vec<&str> = match keyword {
        Some(Json::String(name)) => vec![name.as_str()],
        Some(Json::Array(names)) => names.iter().filter_map(Json::as_str).collect(),
        _ => return Vec::new(),
    };
    let types: Option<Vec<JsonType>> = names.into_iter().map(JsonType::from_schema_name).collect();
    types.unwrap_or_default()
}

fn member(value: &Json) -> Allowed {
    match value {
        Json::String(s) => Allowed::Str(s.clone()),
        Json::Bool(b) => Allowed::Bool(*b),
        Json::Null => Allowed::Null,
        Json::Number(n) => n.as_i64().map_or(Allowed::Other, Allowed::Int),
        Json::Array(_) | Json::Object(_) => Allowed::Other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn summarises_keys_types_and_enums() {
        let contract = summarise(&json!({
            "type": "object",
            "properties": {
                "file_path": {"type": "string"},
                "limit": {"type": "integer", "minimum": 1},
                "mode": {"enum": ["fast", "full", 3, 1.5, null, true, [1]]},
                "note": {"type": ["string", "null"]},
                "weird": {"type": ["string", "nonsense"]},
                "any": true
            },
            "required": ["file_path"]
        }));
        assert!(contract.closed);
        assert_eq!(contract.required, ["file_path"]);
        let names: Vec<&str> = contract.args.iter().map(|a| a.name.as_str()).collect();
        assert_eq!(
            names,
            ["file_path", "limit", "mode", "note", "weird", "any"]
        );
        assert_eq!(contract.arg("limit").unwrap().types, [JsonType::Integer]);
        assert_eq!(
            contract.arg("note").unwrap().types,
            [JsonType::String, JsonType::Null]
        );
        assert!(contract.arg("weird").unwrap().types.is_empty());
        assert_eq!(
            contract.arg("mode").unwrap().allowed.as_deref().unwrap(),
            [
                Allowed::Str("fast".into()),
                Allowed::Str("full".into()),
                Allowed::Int(3),
                Allowed::Other,
                Allowed::Null,
                Allowed::Bool(true),
                Allowed::Other
            ]
        );
        assert_eq!(
            contract.arg("any").unwrap(),
            &ArgSpec {
                name: "any".into(),
                ..ArgSpec::default()
            }
        );
    }

    #[test]
    fn what_cannot_be_summarised_checks_less() {
        // Open objects.
        assert!(!summarise(&json!({"type": "object"})).closed);
        let open = json!({"properties": {"a": {}}, "additionalProperties": true});
        assert!(!summarise(&open).closed);
        let typed = json!({"properties": {"a": {}}, "additionalProperties": {"type": "string"}});
        assert!(!summarise(&typed).closed);
        // A `$ref` cycle is not followed: no required keys, no types.
        let cyclic = json!({
            "$ref": "#/$defs/node",
            "$defs": {"node": {"properties": {"next": {"$ref": "#/$defs/node"}}}},
            "properties": {"a": {"type": "string"}},
            "required": ["a"]
        });
        let contract = summarise(&cyclic);
        assert!(contract.required.is_empty());
        assert!(contract.arg("a").unwrap().types.is_empty());
        // `oneOf` of objects: only the top-level keys are summarised.
        let one_of = json!({
            "oneOf": [{"properties": {"x": {"type": "string"}}, "required": ["x"]},
                      {"properties": {"y": {"type": "integer"}}, "required": ["y"]}]
        });
        let contract = summarise(&one_of);
        assert!(!contract.closed && contract.args.is_empty() && contract.required.is_empty());
    }
}
