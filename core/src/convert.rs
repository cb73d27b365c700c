//! Plain data between guest values and JSON, for tool arguments, tool results and final
//! values: thin wrappers over [`ptc_vm::json`], whose table is the workspace's mapping
//! (objects ↔ keyword plists, arrays → lists, `null` ↔ `:null`, `false` ↔ `:json-false`,
//! `true` ↔ `t`, nil → `null`), iterative and checked against the value budget.
//!
//! The wrappers turn the VM's typed errors into plain model-facing messages, because the
//! runtime reports them inside guest `(:error ...)` values and audit previews.

use ptc_vm::{Limits, Symbols, Value};
use serde_json::Value as Json;

/// The deepest nesting converted either way.
pub const MAX_JSON_DEPTH: usize = ptc_vm::json::JSON_DEPTH;

/// Why a value did not convert. The message is model-facing, without `Error: `.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ConvertError(pub String);

/// The JSON key of a keyword: its name without the colon.
#[must_use]
pub fn keyword_key(name: &str) -> &str {
    name.strip_prefix(':').unwrap_or(name)
}

/// `value` as JSON.
///
/// # Errors
/// Closures, improper lists, non-finite floats, integers outside 64 bits, nesting deeper
/// than [`MAX_JSON_DEPTH`], values over the value budget.
pub fn to_json(value: &Value, symbols: &Symbols, limits: &Limits) -> Result<Json, ConvertError> {
    ptc_vm::json::to_json(value, symbols, limits).map_err(|e| ConvertError(e.message().to_owned()))
}

/// `json` as a guest value, interning object keys as keywords in the run's table.
///
/// # Errors
/// Results over the value budget or the number-bit budget.
pub fn from_json(
    json: &Json,
    symbols: &mut Symbols,
    limits: &Limits,
) -> Result<Value, ConvertError> {
    ptc_vm::json::from_json(json, symbols, limits).map_err(|e| ConvertError(e.message().to_owned()))
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
        let limits = Limits::default();
        let json = json!({"a": [1, 2.5, "x"], "b": null, "c": false, "d": true});
        let value = from_json(&json, &mut symbols, &limits).unwrap();
        let text = ptc_vm::print::to_string(&value, ptc_vm::print::Style::Prin1, &symbols);
        assert_eq!(text, "(:a (1 2.5 \"x\") :b :null :c :json-false :d t)");
        assert_eq!(to_json(&value, &symbols, &limits).unwrap(), json);
        // Members keep their order at every level, and a key longer than the short-key
        // buffer interns the same keyword.
        let long = "k".repeat(100);
        let nested =
            json!({"z": [{"y": 1, "x": [2, 3]}, [], {}], long.clone(): "v", "a": [[1], [2, [3]]]});
        let value = from_json(&nested, &mut symbols, &limits).unwrap();
        let text = ptc_vm::print::to_string(&value, ptc_vm::print::Style::Prin1, &symbols);
        assert_eq!(
            text,
            format!("(:z ((:y 1 :x (2 3)) nil nil) :{long} \"v\" :a ((1) (2 (3))))")
        );
        assert_eq!(
            to_json(&value, &symbols, &limits).unwrap()["z"][0]["x"],
            json!([2, 3])
        );
        let mut deep = Value::Nil;
        for _ in 0..1_000 {
            deep = Value::list([deep]);
        }
        assert_eq!(
            to_json(&deep, &symbols, &limits).unwrap_err().0,
            "Guest value nests deeper than the 128 levels JSON allows"
        );
    }
}
