//! MCP upstream answers fed to the gateway's result mapping: the bytes are what an upstream
//! server writes on its stdout. They go through the gateway's frame decoder
//! (`ptc_mcp::frame::BoundedLines`, the rmcp client transport, and its `IdScanner`), and
//! every decoded answer's `result` — and every line that is JSON at all, as an arbitrary
//! `CallToolResult`-shaped value — through `ptc_mcp::mapping::to_tool_result`, whose
//! structured value then enters a guest through `ptc_vm::json::from_json` (the runtime's
//! JSON mapping, under the pinned small budgets).
//!
//! Oracles: no panic; the scanner's answer does not depend on how the bytes are chunked and
//! keeps at most `MAX_ID_BYTES`; the decoder yields at most one message per line; the mapping is
//! deterministic, `is_error` exactly when `isError` is `true`, media keep no payload,
//! descriptors carry only `type`, `mimeType`, `size`, `uri`, `name`, and its output is no
//! larger than its input plus a constant per block; the guest conversion fails only with a
//! typed error whose message leaks nothing.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ptc_mcp::frame::{BoundedLines, IdScanner, MAX_ID_BYTES, answered_id};
use ptc_mcp::mapping::to_tool_result;
use ptc_runtime::Content;
use rmcp::transport::Transport as _;
use serde_json::Value as Json;

/// Checks the mapping of one upstream result.
fn check_mapping(result: &Json, input_len: usize) {
    let mapped = to_tool_result(result);
    assert_eq!(
        mapped,
        to_tool_result(result),
        "the mapping is not deterministic"
    );
    assert_eq!(
        mapped.is_error,
        result.get("isError").and_then(Json::as_bool) == Some(true),
        "is_error differs from isError: {result}"
    );
    assert!(
        mapped.media().iter().all(|m| m.data.is_none()),
        "a payload reached the result"
    );
    let blocks = result
        .get("content")
        .and_then(Json::as_array)
        .map_or(0, Vec::len);
    let mut size = 0usize;
    for content in &mapped.content {
        if let Content::Text { text } = content {
            size += text.len();
        }
    }
    if result.get("structuredContent").is_none()
        && let Some(Json::Array(items)) = &mapped.structured
    {
        assert_eq!(items.len(), blocks, "one item per block: {result}");
        for item in items {
            if let Json::Object(descriptor) = item {
                for key in descriptor.keys() {
                    assert!(
                        ["type", "mimeType", "size", "uri", "name"].contains(&key.as_str()),
                        "descriptor key {key}: {result}"
                    );
                }
            }
        }
        size += serde_json::to_string(items).map_or(0, |s| s.len());
    }
    // The text blocks appear twice at most (content and items), each descriptor adds its
    // keys and a size, an error without text adds its placeholder.
    let bound = 2 * input_len + 128 * blocks + 128;
    assert!(
        size <= bound,
        "mapped {size} bytes from {input_len}: {result}"
    );
    if let Some(structured) = &mapped.structured {
        let limits = ptc_fuzz::small_limits();
        let mut symbols = ptc_vm::Symbols::new(std::sync::Arc::new(ptc_vm::Interner::new()));
        let first = ptc_vm::json::from_json(structured, &mut symbols, &limits);
        let second = ptc_vm::json::from_json(structured, &mut symbols, &limits);
        match (&first, &second) {
            (Ok(_), Ok(_)) => {}
            (Err(a), Err(b)) => {
                assert_eq!(
                    a.kind(),
                    b.kind(),
                    "the guest conversion is not deterministic"
                );
                ptc_fuzz::check_message(a.message());
            }
            _ => panic!("the guest conversion is not deterministic"),
        }
    }
}

fuzz_target!(|data: &[u8]| {
    ptc_fuzz::set_input(data);
    // The scanner, whole and in chunks (the transport feeds it whatever the pipe gives).
    let step = usize::from(data.first().copied().unwrap_or(1)).max(1);
    for line in data.split(|&b| b == b'\n') {
        let mut whole = IdScanner::new();
        whole.feed(line);
        let mut chunked = IdScanner::new();
        for chunk in line.chunks(step) {
            chunked.feed(chunk);
        }
        assert_eq!(whole.raw_id(), chunked.raw_id(), "chunking changed the id");
        assert_eq!(
            whole.has_method(),
            chunked.has_method(),
            "chunking changed the method"
        );
        assert!(whole.raw_id().is_none_or(|id| id.len() <= MAX_ID_BYTES));
        let _ = answered_id(&whole);
        if let Ok(json) = serde_json::from_slice::<Json>(line) {
            check_mapping(&json, line.len());
            if let Some(result) = json.get("result") {
                check_mapping(result, line.len());
            }
        }
    }
    // The decoder: every message it yields; a result goes through the mapping.
    let lines = data
        .split(|&b| b == b'\n')
        .filter(|l| !l.iter().all(u8::is_ascii_whitespace))
        .count();
    let Ok(runtime) = tokio::runtime::Builder::new_current_thread().build() else {
        return;
    };
    let messages = runtime.block_on(async {
        let mut transport =
            BoundedLines::new(std::io::Cursor::new(data.to_vec()), tokio::io::sink());
        let mut messages = Vec::new();
        while let Some(message) = transport.receive().await {
            messages.push(message);
            assert!(messages.len() <= lines, "more messages than lines");
        }
        messages
    });
    for message in messages {
        let json = serde_json::to_value(&message).unwrap_or_else(|e| panic!("{e}"));
        if let Some(result) = json.get("result") {
            check_mapping(result, data.len());
        }
    }
});
