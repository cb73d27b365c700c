//! Result conversion: a tool's [`ToolResult`] as the guest and the audit see it — the
//! guest value, the audit status and the preview (`spec/reference/tool-calls.md`). Pure
//! data in, data out: the sans-IO envelope settles every answered call here, and the
//! tokio driver never does (it only launches handlers), so neither depends on the other.

use crate::audit::{PREVIEW_CHARS, Status, preview};
use crate::catalog::{Content, ToolResult};
use crate::convert;
use ptc_vm::{Limits, Machine, Value};

/// A call's end as the guest and the audit see it.
#[derive(Debug)]
pub struct Settled {
    /// The guest value.
    pub value: Value,
    /// The audit status.
    pub status: Status,
    /// The audit preview.
    pub preview: Option<String>,
}

/// The guest value, status and preview of a handler's `result` (spec/reference/tool-calls.md);
/// public for hosts that step the [`Machine`] with their own event loop.
pub fn settle_result(machine: &mut Machine, result: &ToolResult, limits: &Limits) -> Settled {
    let (value, status, preview) = settle_parts(machine, result, limits);
    Settled {
        value,
        status,
        preview: Some(preview.unwrap_or_else(|| text_preview(result))),
    }
}

/// [`settle_result`] of a result the caller owns and reads no text of again: when the
/// preview is the result's lone text block uncut, that string is moved into the preview
/// instead of copied (one allocation less per call). Media and notes stay in `result`.
pub(crate) fn settle_owned(
    machine: &mut Machine,
    result: &mut ToolResult,
    limits: &Limits,
) -> Settled {
    let (value, status, preview) = settle_parts(machine, result, limits);
    let preview = preview.unwrap_or_else(|| match result.content.as_mut_slice() {
        // At most PREVIEW_CHARS bytes is at most PREVIEW_CHARS characters: never cut.
        [Content::Text { text }] if text.len() <= PREVIEW_CHARS => std::mem::take(text),
        _ => text_preview(result),
    });
    Settled {
        value,
        status,
        preview: Some(preview),
    }
}

/// The audit preview of `result`'s text; a structured-only result's JSON is rendered only
/// as far as the preview reaches.
fn text_preview(result: &ToolResult) -> String {
    match result.structured_only() {
        Some(json) => json_preview(json),
        None => preview(&joined_text(result), PREVIEW_CHARS),
    }
}

/// [`preview`] of `json`'s compact text, rendering no more of it than the preview shows.
fn json_preview(json: &serde_json::Value) -> String {
    /// Takes whole writes until it holds `limit` bytes, then refuses the rest.
    struct Upto {
        bytes: Vec<u8>,
        limit: usize,
    }
    impl std::io::Write for Upto {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            if self.bytes.len() >= self.limit {
                return Err(std::io::Error::other("the preview is full"));
            }
            self.bytes.extend_from_slice(buf);
            Ok(buf.len())
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    // PREVIEW_CHARS + 1 characters fit in four bytes each: enough to know whether the
    // text is cut, and where. (128 bytes first, as `serde_json::to_string` starts.)
    let mut upto = Upto {
        bytes: Vec::with_capacity(128),
        limit: 4 * (PREVIEW_CHARS + 1),
    };
    // A refused write only stops the rendering; what was taken is the text's start.
    let _ = serde_json::to_writer(&mut upto, json);
    // serde_json writes whole characters, so the start is UTF-8.
    let mut text = String::from_utf8(upto.bytes)
        .unwrap_or_else(|error| String::from_utf8_lossy(error.as_bytes()).into_owned());
    if text.len() > PREVIEW_CHARS
        && let Some((byte, _)) = text.char_indices().nth(PREVIEW_CHARS)
    {
        text.truncate(byte);
        text.push_str("...");
    }
    text
}

/// The guest value and status of `result`, and its preview when that is not the preview of
/// its text (`None`: it is).
fn settle_parts(
    machine: &mut Machine,
    result: &ToolResult,
    limits: &Limits,
) -> (Value, Status, Option<String>) {
    if result.is_error {
        return (
            machine.error_value(&joined_text(result)),
            Status::Error,
            None,
        );
    }
    let value = if let Some(json) = &result.structured {
        match convert::from_json(json, machine.symbols_mut(), limits) {
            Ok(value) => value,
            Err(error) => {
                return (
                    machine.error_value("Nested tool result rejected"),
                    Status::Error,
                    Some(format!("Error: nested tool result rejected: {}", error.0)),
                );
            }
        }
    } else {
        let text = joined_text(result);
        if text.is_empty() && !result.media().is_empty() {
            media_value(machine, result)
        } else {
            Value::string(&*text)
        }
    };
    let weight = value.weight();
    if weight.bytes > limits.value_bytes || weight.nodes > limits.value_nodes {
        return (
            value,
            Status::Error,
            Some(format!(
                "Error: nested tool result rejected: the result ({} bytes, {} nodes) exceeds the value budget of {} bytes or {} nodes",
                weight.bytes, weight.nodes, limits.value_bytes, limits.value_nodes
            )),
        );
    }
    (value, Status::Success, None)
}

/// [`ToolResult::joined_text`], borrowed when there is at most one text block.
fn joined_text(result: &ToolResult) -> std::borrow::Cow<'_, str> {
    if result.structured_only().is_some() {
        return std::borrow::Cow::Owned(result.joined_text());
    }
    let mut texts = result.content.iter().filter_map(|block| match block {
        Content::Text { text } => Some(text.as_str()),
        _ => None,
    });
    match (texts.next(), texts.next()) {
        (None, _) => std::borrow::Cow::Borrowed(""),
        (Some(only), None) => std::borrow::Cow::Borrowed(only),
        _ => std::borrow::Cow::Owned(result.joined_text()),
    }
}

/// Media-only results reach the guest as descriptors `(:mime M :uri U :name N)`; the bytes
/// never do.
fn media_value(machine: &mut Machine, result: &ToolResult) -> Value {
    let mut items = Vec::new();
    for media in result.media() {
        let mut fields = vec![
            Value::Sym(machine.symbols_mut().intern(":mime")),
            Value::string(media.mime.as_str()),
        ];
        if let Some(uri) = &media.uri {
            fields.push(Value::Sym(machine.symbols_mut().intern(":uri")));
            fields.push(Value::string(uri.as_str()));
        }
        if let Some(name) = &media.name {
            fields.push(Value::Sym(machine.symbols_mut().intern(":name")));
            fields.push(Value::string(name.as_str()));
        }
        items.push(Value::list(fields));
    }
    Value::list(items)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::MediaRef;

    fn machine() -> Machine {
        let limits = Limits::default();
        let compiled = ptc_compiler::compile("nil", &ptc_compiler::Roster::new(), &limits)
            .unwrap_or_else(|d| panic!("{d:?}"));
        Machine::new(compiled.program, limits)
    }

    /// `settle_owned` settles every result as `settle_result` does: the same value text,
    /// status and preview, whether the lone text is moved or copied.
    #[test]
    fn an_owned_result_settles_as_a_borrowed_one() {
        let texts = [
            String::new(),
            "ok".to_owned(),
            "a".repeat(PREVIEW_CHARS),
            "a".repeat(PREVIEW_CHARS + 1),
            "é".repeat(PREVIEW_CHARS / 2),
            "é".repeat(PREVIEW_CHARS / 2 + 1),
            "é".repeat(PREVIEW_CHARS + 1),
        ];
        let media = Content::Media(MediaRef {
            mime: "image/png".to_owned(),
            uri: Some("file:///x.png".to_owned()),
            name: None,
            data: None,
        });
        let mut results = Vec::new();
        for text in &texts {
            results.push(ToolResult::text(text.clone()));
            results.push(ToolResult::error(text.clone()));
            results.push(ToolResult::text(text.clone()).with_note("note"));
            let mut two = ToolResult::text(text.clone());
            two.content.push(Content::Text {
                text: "second".to_owned(),
            });
            results.push(two);
            let mut with_media = ToolResult::text(text.clone());
            with_media.content.push(media.clone());
            results.push(with_media);
        }
        results.push(ToolResult::json(
            serde_json::json!({"id": 7, "name": "ada"}),
        ));
        let too_big = "x".repeat(usize::try_from(Limits::default().value_bytes).unwrap_or(0) + 1);
        results.push(ToolResult::text(too_big));
        let mut machine = machine();
        let limits = Limits::default();
        for result in results {
            let borrowed = settle_result(&mut machine, &result, &limits);
            let mut owned_result = result.clone();
            let owned = settle_owned(&mut machine, &mut owned_result, &limits);
            assert_eq!(owned.status, borrowed.status, "{result:?}");
            assert_eq!(owned.preview, borrowed.preview, "{result:?}");
            assert_eq!(
                machine.render(&owned.value),
                machine.render(&borrowed.value),
                "{result:?}"
            );
            assert_eq!(owned_result.media(), result.media());
            assert_eq!(owned_result.notes, result.notes);
        }
    }

    /// A structured-only result settles as the same value's `ToolResult::json` does: the
    /// same guest value, status and preview (its JSON rendered only as far as the preview
    /// reaches), owned or borrowed.
    #[test]
    fn a_structured_result_settles_as_its_json_result() {
        let values = [
            serde_json::json!({"id": 7, "name": "ada"}),
            serde_json::json!([1, 2.5, null, true, "x"]),
            serde_json::json!("a".repeat(PREVIEW_CHARS - 2)),
            serde_json::json!("a".repeat(PREVIEW_CHARS - 1)),
            serde_json::json!("a".repeat(PREVIEW_CHARS)),
            serde_json::json!({"text": "é\"\n\u{1F600}".repeat(400)}),
            serde_json::json!({"deep": [[[[{"k": "v".repeat(900)}]]]]}),
            serde_json::json!(12),
        ];
        let mut machine = machine();
        let limits = Limits::default();
        for value in values {
            let json = ToolResult::json(value.clone());
            let structured = ToolResult::structured(value.clone());
            assert_eq!(structured.joined_text(), json.joined_text());
            let expected = settle_result(&mut machine, &json, &limits);
            for owned in [false, true] {
                let mut result = structured.clone();
                let settled = if owned {
                    settle_owned(&mut machine, &mut result, &limits)
                } else {
                    settle_result(&mut machine, &result, &limits)
                };
                assert_eq!(settled.status, expected.status, "{value}");
                assert_eq!(settled.preview, expected.preview, "{value}");
                assert_eq!(
                    machine.render(&settled.value),
                    machine.render(&expected.value),
                    "{value}"
                );
            }
        }
    }
}
