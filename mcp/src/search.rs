//! ToolSearch: full contracts for exact names or keywords, ranked and bounded
//! (spec/reference/mcp.md §3).
//!
//! A query is split on white space and commas. A term equal to a roster name (or to its
//! MCP name after the dot) ranks that tool first; otherwise each term scores a tool by
//! where it occurs, case-insensitively: in the name (8), in an argument name (3), in the
//! description (2). Ties keep roster order. At most `limit` tools (default
//! [`DEFAULT_LIMIT`], at most [`MAX_LIMIT`]) are returned, and contracts stop being added
//! once the answer would pass [`MAX_CHARS`] characters; the answer says how many matched
//! and how many were left out. An empty query returns the current tool listing.
//!
//! Scoring is bounded whatever the query: at most [`MAX_TERMS`] terms of at most
//! [`MAX_TERM_CHARS`] characters are used (the answer says when some were dropped), each
//! compared with at most [`MAX_SCORED_CHARS`] characters of a description; the query is
//! echoed back cut to [`MAX_ECHO_CHARS`] characters. The server runs a search off the
//! async workers (`spawn_blocking`).

use crate::gateway::{Entry, Roster};
use ptc_runtime::core::listing;
use serde_json::{Value as Json, json};

/// Tools returned when the query gives no limit.
pub const DEFAULT_LIMIT: usize = 5;
/// The largest limit honoured.
pub const MAX_LIMIT: usize = 20;
/// The most characters of contracts one answer carries.
pub const MAX_CHARS: usize = 20_000;
/// The most query terms scored.
pub const MAX_TERMS: usize = 16;
/// The longest term scored, in characters (a longer one is cut).
pub const MAX_TERM_CHARS: usize = 128;
/// The most characters of a description a term is looked for in.
pub const MAX_SCORED_CHARS: usize = 4096;
/// The most characters of the query an answer repeats.
pub const MAX_ECHO_CHARS: usize = 200;

/// ToolSearch's input schema.
#[must_use]
pub fn input_schema() -> Json {
    json!({
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "Exact tool names (SERVER.TOOL) or keywords; empty for the whole listing."},
            "limit": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT, "description": "How many tools at most (default 5)."}
        },
        "required": ["query"],
        "additionalProperties": false
    })
}

/// ToolSearch's description.
pub const DESCRIPTION: &str = "Look up the full contracts of tools callable from ToolCall: \
name, calling shape, description and inputSchema. Give exact names (SERVER.TOOL) or keywords; \
results are ranked and bounded. An empty query returns the current tool listing.";

fn score(entry: &Entry, terms: &[String]) -> u64 {
    let name = entry.name.to_lowercase();
    let description: String = entry
        .tool
        .description
        .as_deref()
        .unwrap_or_default()
        .chars()
        .take(MAX_SCORED_CHARS)
        .collect::<String>()
        .to_lowercase();
    let arguments: Vec<String> = entry
        .tool
        .input_schema
        .get("properties")
        .and_then(Json::as_object)
        .map(|p| p.keys().map(|k| k.to_lowercase()).collect())
        .unwrap_or_default();
    let mut total = 0;
    for term in terms {
        if name == *term || entry.tool.name.to_lowercase() == *term {
            total += 1_000;
            continue;
        }
        if name.contains(term.as_str()) {
            total += 8;
        }
        if arguments.iter().any(|a| a.contains(term.as_str())) {
            total += 3;
        }
        if description.contains(term.as_str()) {
            total += 2;
        }
    }
    total
}

/// One tool's full contract as ToolSearch returns it.
fn contract(roster: &Roster, entry: &Entry) -> Json {
    let registered = roster.registry.get(&entry.name);
    json!({
        "name": entry.name,
        "callingShape": registered.map(|t| listing::calling_shape(&t.contract)),
        "description": entry.tool.description,
        "inputSchema": *entry.tool.input_schema,
        "standalone": registered.is_some_and(|t| t.contract.standalone),
        "needsApproval": entry.ask,
    })
}

/// The answer to `query`: the model-facing text and the structured result.
#[must_use]
pub fn search(roster: &Roster, query: &str, limit: Option<u64>) -> (String, Json) {
    let mut all_terms = query
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|t| !t.is_empty());
    let terms: Vec<String> = all_terms
        .by_ref()
        .take(MAX_TERMS)
        .map(|t| {
            t.chars()
                .take(MAX_TERM_CHARS)
                .collect::<String>()
                .to_lowercase()
        })
        .collect();
    let dropped = all_terms.count();
    if terms.is_empty() {
        let text = roster.listing.clone();
        return (text.clone(), json!({"listing": text, "tools": []}));
    }
    let limit = limit
        .and_then(|l| usize::try_from(l).ok())
        .unwrap_or(DEFAULT_LIMIT)
        .clamp(1, MAX_LIMIT);
    let mut ranked: Vec<(u64, usize)> = roster
        .entries
        .iter()
        .enumerate()
        .map(|(i, e)| (score(e, &terms), i))
        .filter(|(s, _)| *s > 0)
        .collect();
    ranked.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let matched = ranked.len();
    let mut tools = Vec::new();
    let mut chars = 0;
    for (_, index) in ranked.iter().take(limit) {
        let Some(entry) = roster.entries.get(*index) else {
            continue;
        };
        let item = contract(roster, entry);
        let size = item.to_string().chars().count();
        if !tools.is_empty() && chars + size > MAX_CHARS {
            break;
        }
        chars += size;
        tools.push(item);
    }
    let omitted = matched - tools.len();
    let structured = json!({"matched": matched, "omitted": omitted, "tools": tools});
    let mut text = if tools.is_empty() {
        let shown: String = query.chars().take(MAX_ECHO_CHARS).collect();
        let cut = if shown.len() < query.len() { "…" } else { "" };
        format!("No tool matches `{shown}{cut}`.")
    } else {
        serde_json::to_string_pretty(&tools).unwrap_or_default()
    };
    if dropped > 0 {
        text.push_str(&format!(
            "\n(only the first {MAX_TERMS} terms were used; {dropped} more ignored)"
        ));
    }
    if omitted > 0 {
        text.push_str(&format!(
            "\n({matched} tools matched; {omitted} more left out: narrow the query or raise limit)"
        ));
    }
    (text, structured)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_huge_query_is_bounded_and_not_echoed() {
        let roster = Roster::default();
        let query = "x".repeat(4 << 20);
        let (text, structured) = search(&roster, &query, None);
        assert!(text.len() < 1000, "{}", text.len());
        assert_eq!(structured["matched"], 0);
        let many = "a ".repeat(100_000);
        let (text, _) = search(&roster, &many, None);
        assert!(text.contains("99984 more ignored"), "{text}");
    }
}
