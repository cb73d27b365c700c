//! The JSON shapes the language bindings (Python, JavaScript) share with their hosts: a
//! roster of tool contracts, budgets keyed like `ptc run --limit`, and a tool's answer
//! (`{"value": ...}`, `{"text": ...}` or `{"error": ...}`, with optional `notes`).
//!
//! Invariant: every malformed input is an `Err` naming what is wrong; nothing panics.

use crate::catalog::{ToolContract, ToolResult};
use ptc_vm::Limits;
use serde_json::Value as Json;

/// The tools' contracts from the package's JSON: a list of objects with `name`,
/// `description`, `input_schema` (or MCP's `inputSchema`), optional `standalone` and
/// `summary`.
///
/// # Errors
/// A message naming the malformed entry.
pub fn contracts_from_json(text: &str) -> Result<Vec<ToolContract>, String> {
    let value: Json = serde_json::from_str(text).map_err(|e| format!("tools: {e}"))?;
    let Json::Array(items) = value else {
        return Err("tools must be a list".to_owned());
    };
    items
        .iter()
        .enumerate()
        .map(|(index, item)| {
            let field = |name: &str| item.get(name);
            let name = field("name")
                .and_then(Json::as_str)
                .ok_or_else(|| format!("tool {index} has no string `name`"))?;
            let description = field("description").and_then(Json::as_str).unwrap_or("");
            let schema = field("input_schema")
                .or_else(|| field("inputSchema"))
                .cloned()
                .unwrap_or_else(|| serde_json::json!({"type": "object"}));
            let mut contract = ToolContract::new(name, description, schema)
                .standalone(field("standalone").and_then(Json::as_bool).unwrap_or(false));
            if let Some(summary) = field("summary").and_then(Json::as_str) {
                contract = contract.summary(summary);
            }
            Ok(contract)
        })
        .collect()
}

/// Budgets from the package's JSON object: keys as in `--limit` (`_` may stand for `-`),
/// values numbers, numeric strings, or `null`/`"off"` for the optional clocks.
///
/// # Errors
/// The runtime's message for an unknown key or a bad value.
pub fn limits_from_json(text: Option<&str>) -> Result<Limits, String> {
    let mut limits = Limits::default();
    let Some(text) = text else {
        return Ok(limits);
    };
    let value: Json = serde_json::from_str(text).map_err(|e| format!("limits: {e}"))?;
    let Json::Object(map) = value else {
        return Err("limits must be a dict".to_owned());
    };
    for (key, value) in &map {
        let text = match value {
            Json::Null => "off".to_owned(),
            Json::String(s) => s.clone(),
            Json::Number(n) => n.to_string(),
            Json::Bool(_) | Json::Array(_) | Json::Object(_) => {
                return Err(format!("limit `{key}` takes a number or None"));
            }
        };
        limits
            .set(&key.replace('_', "-"), &text)
            .map_err(|e| e.to_string())?;
    }
    Ok(limits)
}

/// A tool's answer as a [`ToolResult`]: `{"value": JSON}` (structured), `{"text": str}`,
/// `{"error": str}` (the tool failed), each with optional `"notes"` (a list of strings).
///
/// # Errors
/// An answer that is not an object, or has none of the three keys.
pub fn answer_to_result(answer: Json) -> Result<ToolResult, String> {
    let Json::Object(mut map) = answer else {
        return Err("each answer must be a JSON object".to_owned());
    };
    let notes: Vec<String> = match map.remove("notes") {
        Some(Json::Array(items)) => items
            .into_iter()
            .map(|n| match n {
                Json::String(s) => s,
                other => other.to_string(),
            })
            .collect(),
        _ => Vec::new(),
    };
    let mut result = if let Some(value) = map.remove("value") {
        ToolResult::json(value)
    } else if let Some(Json::String(text)) = map.remove("text") {
        ToolResult::text(text)
    } else if let Some(Json::String(message)) = map.remove("error") {
        ToolResult::error(message)
    } else {
        return Err("an answer needs \"value\", \"text\" or \"error\"".to_owned());
    };
    result.notes = notes;
    Ok(result)
}
