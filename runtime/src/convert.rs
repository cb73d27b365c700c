//! Plain data between guest values and JSON, for tool arguments and tool results.
//!
//! The mapping is the workspace's (brief decision 4): objects ↔ keyword plists
//! (`{"a":1}` ↔ `(:a 1)`), arrays → lists (lists and vectors → arrays), `null` ↔ `:null`,
//! `false` ↔ `:json-false`, `true` ↔ `t`, nil → `null`.
//!
//! Invariants:
//! - Conversion recurses only on nesting, and nesting is bounded by [`MAX_JSON_DEPTH`]
//!   (serde_json's own parser bound), so a hostile 50 000-deep value is a typed error,
//!   never a host stack overflow. Long lists are walked iteratively.
//! - Closures never convert.

use num_bigint::BigInt;
use ptc_vm::print::SymbolNames;
use ptc_vm::symbol::well_known;
use ptc_vm::{Symbols, Value};
use serde_json::{Map, Number, Value as Json};

/// The deepest nesting converted either way.
pub const MAX_JSON_DEPTH: usize = 128;

/// Why a value did not convert. The message is model-facing, without `Error: `.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConvertError(pub String);

fn fail<T>(message: impl Into<String>) -> Result<T, ConvertError> {
    Err(ConvertError(message.into()))
}

/// The JSON key of a keyword: its name without the colon.
#[must_use]
pub fn keyword_key(name: &str) -> &str {
    name.strip_prefix(':').unwrap_or(name)
}

/// Whether `value` is a non-empty proper list of keyword/value pairs.
#[must_use]
pub fn is_plist(value: &Value) -> bool {
    let mut iter = value.iter();
    let mut count = 0usize;
    loop {
        match iter.next() {
            None => break,
            Some(Value::Sym(s)) if s.is_keyword() => {}
            Some(_) => return false,
        }
        if iter.next().is_none() {
            return false;
        }
        count += 1;
    }
    count > 0 && iter.rest().is_nil()
}

/// A number as JSON, or an error for values JSON cannot hold.
fn number(value: &Value) -> Result<Json, ConvertError> {
    match value {
        Value::Int(n) => Ok(Json::from(*n)),
        Value::Float(f) => match Number::from_f64(*f) {
            Some(n) => Ok(Json::Number(n)),
            None => fail("a NaN or infinite float cannot be passed as JSON"),
        },
        Value::Big(n) => match u64::try_from(n.as_ref()) {
            Ok(n) => Ok(Json::from(n)),
            Err(_) => fail("an integer this large cannot be passed as JSON"),
        },
        _ => fail("not a number"),
    }
}

/// `value` as JSON by the generic mapping.
///
/// # Errors
/// Closures, improper lists, non-finite floats, integers outside 64 bits, nesting deeper
/// than [`MAX_JSON_DEPTH`].
pub fn to_json(value: &Value, names: &dyn SymbolNames) -> Result<Json, ConvertError> {
    to_json_at(value, names, 0)
}

fn to_json_at(value: &Value, names: &dyn SymbolNames, depth: usize) -> Result<Json, ConvertError> {
    if depth > MAX_JSON_DEPTH {
        return fail(format!(
            "value nested more than {MAX_JSON_DEPTH} levels deep"
        ));
    }
    Ok(match value {
        Value::Nil => Json::Null,
        Value::T => Json::Bool(true),
        Value::Int(_) | Value::Float(_) | Value::Big(_) => number(value)?,
        Value::Str(s) => Json::String(s.as_str().to_owned()),
        Value::Sym(s) if *s == well_known::NULL => Json::Null,
        Value::Sym(s) if *s == well_known::JSON_FALSE => Json::Bool(false),
        Value::Sym(s) => Json::String(names.symbol_name(*s).to_owned()),
        Value::Cons(_) if is_plist(value) => {
            let mut object = Map::new();
            let mut iter = value.iter();
            while let (Some(key), Some(item)) = (iter.next(), iter.next()) {
                let Value::Sym(key) = key else {
                    return fail("object keys must be keywords");
                };
                let key = keyword_key(names.symbol_name(*key)).to_owned();
                let item = to_json_at(item, names, depth + 1)?;
                object.entry(key).or_insert(item);
            }
            Json::Object(object)
        }
        Value::Cons(_) => {
            let mut items = Vec::new();
            let mut iter = value.iter();
            for item in iter.by_ref() {
                items.push(to_json_at(item, names, depth + 1)?);
            }
            if !iter.rest().is_nil() {
                return fail("a dotted list cannot be passed as JSON");
            }
            Json::Array(items)
        }
        Value::Vector(v) => Json::Array(
            v.items()
                .iter()
                .map(|item| to_json_at(item, names, depth + 1))
                .collect::<Result<_, _>>()?,
        ),
        Value::Closure(_) => return fail("a closure cannot cross a tool boundary"),
    })
}

/// `json` as a guest value, interning object keys as keywords in the run's table.
///
/// # Errors
/// Nesting deeper than [`MAX_JSON_DEPTH`].
pub fn from_json(json: &Json, symbols: &mut Symbols) -> Result<Value, ConvertError> {
    from_json_at(json, symbols, 0)
}

fn from_json_at(json: &Json, symbols: &mut Symbols, depth: usize) -> Result<Value, ConvertError> {
    if depth > MAX_JSON_DEPTH {
        return fail(format!(
            "JSON nested more than {MAX_JSON_DEPTH} levels deep"
        ));
    }
    Ok(match json {
        Json::Null => Value::Sym(well_known::NULL),
        Json::Bool(false) => Value::Sym(well_known::JSON_FALSE),
        Json::Bool(true) => Value::T,
        Json::Number(n) => {
            if let Some(i) = n.as_i64() {
                Value::Int(i)
            } else if let Some(u) = n.as_u64() {
                Value::integer(BigInt::from(u))
            } else {
                Value::Float(n.as_f64().unwrap_or(f64::NAN))
            }
        }
        Json::String(s) => Value::string(s.as_str()),
        Json::Array(items) => {
            let items = items
                .iter()
                .map(|item| from_json_at(item, symbols, depth + 1))
                .collect::<Result<Vec<_>, _>>()?;
            Value::list(items)
        }
        Json::Object(object) => {
            let mut items = Vec::with_capacity(object.len().saturating_mul(2));
            for (key, item) in object {
                let keyword = symbols.intern(&format!(":{key}"));
                items.push(Value::Sym(keyword));
                items.push(from_json_at(item, symbols, depth + 1)?);
            }
            Value::list(items)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use ptc_vm::Interner;
    use serde_json::json;
    use std::sync::Arc;

    #[test]
    fn round_trip_follows_the_mapping() {
        let mut symbols = Symbols::new(Arc::new(Interner::new()));
        let json = json!({"a": [1, 2.5, "x"], "b": null, "c": false, "d": true, "e": {"f": 18446744073709551615u64}});
        let value = from_json(&json, &mut symbols).unwrap();
        let text = ptc_vm::print::to_string(&value, ptc_vm::print::Style::Prin1, &symbols);
        assert_eq!(
            text,
            "(:a (1 2.5 \"x\") :b :null :c :json-false :d t :e (:f 18446744073709551615))"
        );
        assert_eq!(to_json(&value, &symbols).unwrap(), json);
        assert_eq!(to_json(&Value::Nil, &symbols).unwrap(), Json::Null);
        let vector = Value::vector(vec![Value::Int(1), Value::T]);
        assert_eq!(to_json(&vector, &symbols).unwrap(), json!([1, true]));
    }

    #[test]
    fn hostile_shapes_are_errors_not_crashes() {
        let symbols = Symbols::new(Arc::new(Interner::new()));
        let mut deep = Value::Nil;
        for _ in 0..50_000 {
            deep = Value::list([deep]);
        }
        let error = to_json(&deep, &symbols).unwrap_err();
        assert_eq!(error.0, "value nested more than 128 levels deep");
        let dotted = Value::cons(Value::Int(1), Value::Int(2));
        assert_eq!(
            to_json(&dotted, &symbols).unwrap_err().0,
            "a dotted list cannot be passed as JSON"
        );
        assert!(to_json(&Value::Float(f64::NAN), &symbols).is_err());
    }
}
