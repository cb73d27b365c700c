//! How an upstream `CallToolResult` enters the guest (spec/reference/mcp.md §4, the result
//! mapping table).
//!
//! The mapping works on the result's JSON form, so it does not depend on rmcp's model types:
//! - `isError: true` → a failed [`ToolResult`] (the guest gets `(:error "TEXT")`), TEXT the
//!   joined text blocks, or a stated placeholder when the tool sent none;
//! - `structuredContent` present → that JSON value, through the runtime's JSON mapping;
//! - exactly one `text` block and nothing else → that string;
//! - no content → the empty string;
//! - anything else (several blocks, or any media) → a list, one item per block: a text
//!   block's string, or a descriptor object for image, audio, resource and resource-link
//!   blocks: `type`, `mimeType`, `size` (payload bytes), `uri`, `name` when known. No
//!   payload byte ever reaches the guest.
//!
//! Invariant: media blocks always leave a [`MediaRef`] (without payload) in the result's
//! content, so the audit keeps a reference to every image, audio clip and resource.

use ptc_runtime::core::MediaRef;
use ptc_runtime::{Content, ToolResult};
use serde_json::{Map, Value as Json, json};

/// The guest-facing [`ToolResult`] of an upstream result given as JSON.
#[must_use]
pub fn to_tool_result(result: &Json) -> ToolResult {
    let blocks: &[Json] = result
        .get("content")
        .and_then(Json::as_array)
        .map_or(&[], Vec::as_slice);
    let mut content = Vec::new();
    let mut items = Vec::new();
    let mut only_text = true;
    for block in blocks {
        match block.get("type").and_then(Json::as_str) {
            Some("text") => {
                let text = block.get("text").and_then(Json::as_str).unwrap_or_default();
                content.push(Content::Text {
                    text: text.to_owned(),
                });
                items.push(Json::String(text.to_owned()));
            }
            _ => {
                only_text = false;
                let descriptor = descriptor(block);
                content.push(Content::Media(media_ref(&descriptor)));
                items.push(Json::Object(descriptor));
            }
        }
    }
    let is_error = result.get("isError").and_then(Json::as_bool) == Some(true);
    if is_error {
        let mut failed = ToolResult {
            content,
            is_error: true,
            ..ToolResult::default()
        };
        if failed.joined_text().is_empty() {
            failed.content.insert(
                0,
                Content::Text {
                    text: "the tool reported an error without a message".to_owned(),
                },
            );
        }
        return failed;
    }
    let structured = match result.get("structuredContent") {
        Some(value) => Some(value.clone()),
        None if only_text && items.len() <= 1 => None,
        None => Some(Json::Array(items)),
    };
    if structured.is_none() && content.is_empty() {
        return ToolResult::text("");
    }
    if content.is_empty() {
        // An upstream result with no blocks reads as an empty text, as it always has (a
        // runtime result without blocks reads as its structured value's JSON instead:
        // `ToolResult::structured`).
        content.push(Content::Text {
            text: String::new(),
        });
    }
    ToolResult {
        content,
        structured,
        ..ToolResult::default()
    }
}

/// The descriptor object of a non-text block.
fn descriptor(block: &Json) -> Map<String, Json> {
    let kind = block
        .get("type")
        .and_then(Json::as_str)
        .unwrap_or("unknown");
    let mut out = Map::new();
    out.insert("type".into(), json!(kind));
    let str_of = |value: &Json, key: &str| value.get(key).and_then(Json::as_str).map(str::to_owned);
    match kind {
        "image" | "audio" => {
            if let Some(mime) = str_of(block, "mimeType") {
                out.insert("mimeType".into(), json!(mime));
            }
            let size = block.get("data").and_then(Json::as_str).map(base64_len);
            out.insert("size".into(), json!(size));
        }
        "resource" => {
            let resource = block.get("resource").unwrap_or(&Json::Null);
            if let Some(uri) = str_of(resource, "uri") {
                out.insert("uri".into(), json!(uri));
            }
            if let Some(mime) = str_of(resource, "mimeType") {
                out.insert("mimeType".into(), json!(mime));
            }
            let size = match (str_of(resource, "text"), str_of(resource, "blob")) {
                (Some(text), _) => Some(text.len()),
                (None, Some(blob)) => Some(base64_len(&blob)),
                (None, None) => None,
            };
            out.insert("size".into(), json!(size));
        }
        "resource_link" => {
            for key in ["uri", "name", "mimeType"] {
                if let Some(value) = str_of(block, key) {
                    out.insert(key.into(), json!(value));
                }
            }
            if let Some(size) = block.get("size").and_then(Json::as_u64) {
                out.insert("size".into(), json!(size));
            }
        }
        _ => {}
    }
    out
}

/// The audit's reference to a media block.
fn media_ref(descriptor: &Map<String, Json>) -> MediaRef {
    let get = |key: &str| {
        descriptor
            .get(key)
            .and_then(Json::as_str)
            .map(str::to_owned)
    };
    MediaRef {
        mime: get("mimeType").unwrap_or_else(|| "application/octet-stream".to_owned()),
        uri: get("uri"),
        name: get("name").or_else(|| get("type")),
        data: None,
    }
}

/// The decoded length of base64 `text` (padding and white space not counted).
fn base64_len(text: &str) -> usize {
    let significant = text
        .bytes()
        .filter(|b| !b.is_ascii_whitespace() && *b != b'=')
        .count();
    significant * 3 / 4
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lone_text_block_is_a_string() {
        let r = to_tool_result(&json!({"content": [{"type": "text", "text": "hi"}]}));
        assert_eq!(r, ToolResult::text("hi"));
        assert_eq!(
            to_tool_result(&json!({"content": []})),
            ToolResult::text("")
        );
    }

    #[test]
    fn structured_content_wins_and_errors_keep_their_text() {
        let r = to_tool_result(&json!({"content": [{"type": "text", "text": "{}"}],
                                       "structuredContent": {"t": 1}}));
        assert_eq!(r.structured, Some(json!({"t": 1})));
        // Structured content with no blocks still reads as an empty text.
        let r = to_tool_result(&json!({"content": [], "structuredContent": {"t": 1}}));
        assert_eq!(r.structured, Some(json!({"t": 1})));
        assert_eq!(r.joined_text(), "");
        let r = to_tool_result(&json!({"content": [{"type": "text", "text": "no"}],
                                       "isError": true}));
        assert!(r.is_error);
        assert_eq!(r.joined_text(), "no");
        let r = to_tool_result(&json!({"content": [], "isError": true}));
        assert_eq!(
            r.joined_text(),
            "the tool reported an error without a message"
        );
    }

    #[test]
    fn media_become_descriptors_without_payload() {
        let r = to_tool_result(&json!({"content": [
            {"type": "text", "text": "a"},
            {"type": "image", "data": "aGVsbG8=", "mimeType": "image/png"},
            {"type": "resource", "resource": {"uri": "file:///x", "text": "abc", "mimeType": "text/plain"}},
            {"type": "resource_link", "uri": "file:///y", "name": "y"}]}));
        assert_eq!(
            r.structured,
            Some(json!(["a",
                {"type": "image", "mimeType": "image/png", "size": 5},
                {"type": "resource", "uri": "file:///x", "mimeType": "text/plain", "size": 3},
                {"type": "resource_link", "uri": "file:///y", "name": "y"}]))
        );
        let media = r.media();
        assert_eq!(media.len(), 3);
        assert_eq!(media[0].mime, "image/png");
        assert_eq!(media[1].uri.as_deref(), Some("file:///x"));
        assert!(media.iter().all(|m| m.data.is_none()));
    }
}
