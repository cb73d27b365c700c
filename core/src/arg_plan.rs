//! A tool's argument plan: what the runtime understands of the tool's input schema,
//! compiled once beside its validator ([`crate::catalog::CatalogTool`]), so that each
//! call's arguments are shaped without looking keys up in the schema's maps and, when the
//! plan understands the whole schema, checked without the JSON Schema validator.
//!
//! A schema is *understood* when its keywords are only `type` (`object`), `properties`,
//! `required`, `additionalProperties` (a boolean), `$schema` (a draft the validator knows)
//! and annotations, and every property schema holds only `type` and annotations. For such a
//! schema the argument object is valid exactly when every required key is present and every
//! declared key's value has one of its property's types.
//!
//! Invariants:
//! - The plan only ever accepts: [`ArgPlan::fits`] is true only for a value the tool's
//!   compiled validator accepts too. Whatever it cannot decide (a keyword it does not know,
//!   `2.0` for an `integer`, a violation) goes to the validator, whose messages the guest
//!   sees. `runtime/tests/preflight_args.rs` holds the plan to the validator.
//! - Shaping by the plan is shaping by the schema ([`crate::args`]): a property's types and
//!   schema are the schema's own.

use serde_json::Value as Json;

const NULL: u8 = 1;
const BOOLEAN: u8 = 1 << 1;
const INTEGER: u8 = 1 << 2;
const NUMBER: u8 = 1 << 3;
const STRING: u8 = 1 << 4;
const ARRAY: u8 = 1 << 5;
const OBJECT: u8 = 1 << 6;

/// Keywords that never change what validates.
const ANNOTATIONS: [&str; 5] = ["description", "title", "examples", "default", "$comment"];

/// Drafts whose `type` and `required` mean what [`ArgPlan::fits`] checks.
const DRAFTS: [&str; 5] = ["draft-04", "draft-06", "draft-07", "2019-09", "2020-12"];

/// One declared property.
#[derive(Debug, Clone)]
pub(crate) struct Property {
    /// The key, as the schema spells it.
    pub(crate) name: Box<str>,
    /// Its schema (conversion reads `items` and nested `properties` from it).
    pub(crate) schema: Json,
    /// Its `type` names as bits (none when it has no `type` keyword, or one the plan does
    /// not know).
    types: u8,
}

impl Property {
    /// Whether the schema's `type` includes `boolean`.
    pub(crate) fn wants_boolean(&self) -> bool {
        self.types & BOOLEAN != 0
    }

    /// Whether the schema's `type` includes `object` or `array` (shaped by the schema).
    pub(crate) fn wants_aggregate(&self) -> bool {
        self.types & (OBJECT | ARRAY) != 0
    }
}

/// See the module docs.
#[derive(Debug, Clone)]
pub(crate) struct ArgPlan {
    /// Declared properties in the schema's order.
    properties: Vec<Property>,
    /// Undeclared keys are refused ([`crate::contract::is_closed`]).
    pub(crate) closed: bool,
    /// Bit `i` for a required `properties[i]`.
    required: u64,
    /// The plan understands the whole schema.
    understood: bool,
}

impl ArgPlan {
    /// The plan of `schema`.
    pub(crate) fn new(schema: &Json) -> ArgPlan {
        let declared = schema.get("properties").and_then(Json::as_object);
        let properties: Vec<Property> = declared
            .into_iter()
            .flatten()
            .map(|(name, schema)| Property {
                name: name.as_str().into(),
                schema: schema.clone(),
                types: schema.get("type").map_or(0, types_of),
            })
            .collect();
        let mut plan = ArgPlan {
            closed: crate::contract::is_closed(schema),
            required: 0,
            understood: false,
            properties,
        };
        plan.understood = plan.understand(schema);
        plan
    }

    /// Whether every keyword of `schema` is one the plan checks; sets `required`.
    fn understand(&mut self, schema: &Json) -> bool {
        let Some(object) = schema.as_object() else {
            return false;
        };
        if self.properties.len() > 64 {
            return false;
        }
        for (key, value) in object {
            let known = match key.as_str() {
                "type" => value == "object" || value == &Json::Array(vec!["object".into()]),
                "properties" => {
                    value.is_object()
                        && self
                            .properties
                            .iter()
                            .all(|p| understood_property(&p.schema))
                }
                "required" => match value.as_array() {
                    Some(names) => names.iter().all(|name| {
                        let index = name.as_str().and_then(|name| self.index_of(name));
                        if let Some(index) = index {
                            self.required |= 1 << index;
                        }
                        index.is_some()
                    }),
                    None => false,
                },
                "additionalProperties" => value.is_boolean(),
                "$schema" => value
                    .as_str()
                    .is_some_and(|uri| DRAFTS.iter().any(|draft| uri.contains(draft))),
                "$defs" | "definitions" => true,
                other => ANNOTATIONS.contains(&other),
            };
            if !known {
                return false;
            }
        }
        true
    }

    fn index_of(&self, name: &str) -> Option<usize> {
        self.properties.iter().position(|p| &*p.name == name)
    }

    /// The declared property `name` and its index.
    pub(crate) fn property(&self, name: &str) -> Option<(usize, &Property)> {
        self.properties
            .iter()
            .enumerate()
            .find(|(_, p)| &*p.name == name)
    }

    /// The declared keys, comma separated (for a refusal).
    pub(crate) fn accepted(&self) -> String {
        let names: Vec<&str> = self.properties.iter().map(|p| &*p.name).collect();
        names.join(", ")
    }

    /// A fresh check of one argument object, fed each first value of a key.
    pub(crate) fn check(&self) -> Check<'_> {
        Check {
            plan: self,
            seen: 0,
            fits: self.understood,
        }
    }
}

/// One argument object's check against an [`ArgPlan`] ([`ArgPlan::check`]).
pub(crate) struct Check<'p> {
    plan: &'p ArgPlan,
    seen: u64,
    fits: bool,
}

impl Check<'_> {
    /// The first value of declared property `index` is `json`.
    pub(crate) fn declared(&mut self, index: usize, json: &Json) {
        if !self.fits {
            return;
        }
        let types = self.plan.properties.get(index).map_or(0, |p| p.types);
        if types != 0 && types & type_of(json) == 0 {
            self.fits = false;
        }
        self.seen |= 1u64
            .checked_shl(u32::try_from(index).unwrap_or(u32::MAX))
            .unwrap_or(0);
    }

    /// Whether the object is valid by the plan: understood, every required key present and
    /// every declared value of its types. False means "ask the validator", not "invalid".
    pub(crate) fn fits(&self) -> bool {
        self.fits && self.seen & self.plan.required == self.plan.required
    }
}

/// Whether a property schema holds only `type` (with names the plan knows) and annotations.
fn understood_property(schema: &Json) -> bool {
    schema.as_object().is_some_and(|object| {
        object.iter().all(|(key, value)| match key.as_str() {
            "type" => known_types(value),
            other => ANNOTATIONS.contains(&other),
        })
    })
}

fn type_bit(name: &str) -> u8 {
    match name {
        "null" => NULL,
        "boolean" => BOOLEAN,
        "integer" => INTEGER,
        "number" => NUMBER,
        "string" => STRING,
        "array" => ARRAY,
        "object" => OBJECT,
        _ => 0,
    }
}

/// The bits of a `type` value: one name or an array of names (unknown names add nothing).
fn types_of(value: &Json) -> u8 {
    match value {
        Json::String(name) => type_bit(name),
        Json::Array(names) => names
            .iter()
            .filter_map(Json::as_str)
            .fold(0, |bits, name| bits | type_bit(name)),
        _ => 0,
    }
}

/// Whether every name of a `type` value is one the plan knows (and there is one).
fn known_types(value: &Json) -> bool {
    match value {
        Json::String(name) => type_bit(name) != 0,
        Json::Array(names) => {
            !names.is_empty()
                && names
                    .iter()
                    .all(|name| name.as_str().is_some_and(|name| type_bit(name) != 0))
        }
        _ => false,
    }
}

/// The JSON type bits `json` certainly has: an integral number is both `integer` and
/// `number`; any other number only `number` (a draft may or may not call `2.0` an integer,
/// so the validator decides).
fn type_of(json: &Json) -> u8 {
    match json {
        Json::Null => NULL,
        Json::Bool(_) => BOOLEAN,
        Json::Number(n) if n.is_i64() || n.is_u64() => INTEGER | NUMBER,
        Json::Number(_) => NUMBER,
        Json::String(_) => STRING,
        Json::Array(_) => ARRAY,
        Json::Object(_) => OBJECT,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn fits(schema: &Json, args: &Json) -> bool {
        let plan = ArgPlan::new(schema);
        let mut check = plan.check();
        for (key, value) in args.as_object().unwrap() {
            if let Some((index, _)) = plan.property(key) {
                check.declared(index, value);
            }
        }
        check.fits()
    }

    #[test]
    fn understood_schemas_are_checked_by_type_and_required() {
        let schema = json!({"type": "object", "description": "d",
            "properties": {"id": {"type": "integer"}, "tag": {"type": ["string", "null"]}},
            "required": ["id"], "additionalProperties": false});
        assert!(fits(&schema, &json!({"id": 3})));
        assert!(fits(&schema, &json!({"id": 3, "tag": null})));
        assert!(!fits(&schema, &json!({"tag": "x"})));
        assert!(!fits(&schema, &json!({"id": "3"})));
        // Left to the validator, which decides by draft.
        assert!(!fits(&schema, &json!({"id": 3.0})));
    }

    #[test]
    fn other_keywords_leave_the_decision_to_the_validator() {
        for schema in [
            json!({"type": "object", "properties": {"id": {"type": "integer", "minimum": 1}}}),
            json!({"type": "object", "properties": {"id": {"enum": [1]}}}),
            json!({"type": "object", "properties": {"id": true}}),
            json!({"type": "object", "required": ["undeclared"]}),
            json!({"type": "object", "additionalProperties": {"type": "string"}}),
            json!({"$ref": "#/$defs/o", "$defs": {"o": {}}}),
            json!({"type": "object", "$schema": "http://json-schema.org/draft-03/schema#"}),
            json!({"type": "object", "properties": {"a": {"type": "array", "items": {}}}}),
        ] {
            assert!(!fits(&schema, &json!({"id": 1})), "{schema}");
        }
        let draft = json!({"$schema": "http://json-schema.org/draft-07/schema#",
                           "properties": {"id": {"title": "t"}}});
        assert!(fits(&draft, &json!({"id": [1]})));
    }
}
