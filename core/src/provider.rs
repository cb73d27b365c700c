//! The provider shapes a host sends to its model: the ToolCall tool definition and the
//! tool-result block for a settled [`Outcome`], in the Anthropic Messages and OpenAI
//! Chat Completions formats.
//!
//! Invariants:
//! - The tool definition's description is the static [`listing::DESCRIPTION`] (prompt
//!   caches stay warm); the roster's listing is returned separately, for the host to place
//!   in its system prompt or instructions, as the design asks.
//! - A result block carries the model-facing text with notes ([`Outcome::text_with_notes`])
//!   and is marked as an error for every outcome but `completed`. Media (images) appear only
//!   for a direct call whose underlying tool returned them with payload bytes; a composed
//!   script never sends media to the model (its audit keeps references only).
//!
//! ```
//! use ptc_core::{Catalog, provider::ToolCallDefinition};
//!
//! let definition = ToolCallDefinition::for_registry(&Catalog::new());
//! let anthropic = definition.anthropic();
//! assert_eq!(anthropic["name"], "ToolCall");
//! assert_eq!(anthropic["input_schema"]["required"][0], "expression");
//! let openai = definition.openai();
//! assert_eq!(openai["function"]["parameters"]["required"][0], "expression");
//! ```

use crate::catalog::{Catalog, Content};
use crate::listing;
use crate::outcome::Outcome;
use base64::Engine as _;
use serde_json::{Value as Json, json};

/// What a host tells its model about ToolCall: the static definition and the roster's
/// listing.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCallDefinition {
    /// `ToolCall`.
    pub name: &'static str,
    /// The static description.
    pub description: &'static str,
    /// `{"expression": string}`, required.
    pub input_schema: Json,
    /// One line per tool: calling shape, summary, optional arguments, standalone mark.
    pub listing: String,
}

impl ToolCallDefinition {
    /// The definition and listing for `registry`.
    #[must_use]
    pub fn for_registry(registry: &Catalog) -> Self {
        ToolCallDefinition {
            name: listing::TOOL_NAME,
            description: listing::DESCRIPTION,
            input_schema: listing::input_schema(),
            listing: listing::tool_listing(registry),
        }
    }

    /// The definition and listing a run filtered by `filter` sees
    /// (`ptc_runtime::RunOptions::tools`).
    #[must_use]
    pub fn for_filtered(registry: &Catalog, filter: &crate::filter::ToolFilter) -> Self {
        ToolCallDefinition {
            listing: listing::tool_listing_for(registry, Some(filter)),
            ..ToolCallDefinition::for_registry(&Catalog::new())
        }
    }

    /// An Anthropic Messages `tools` entry: `{name, description, input_schema}`.
    #[must_use]
    pub fn anthropic(&self) -> Json {
        json!({
            "name": self.name,
            "description": self.description,
            "input_schema": self.input_schema,
        })
    }

    /// An OpenAI Chat Completions `tools` entry:
    /// `{"type": "function", "function": {name, description, parameters}}`.
    #[must_use]
    pub fn openai(&self) -> Json {
        json!({
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.input_schema,
            }
        })
    }
}

/// The Anthropic Messages `tool_result` content block answering `tool_use_id`:
/// `{"type": "tool_result", "tool_use_id", "content": [...], "is_error"}`. A direct call's
/// images (with payload bytes) follow its text as base64 image blocks.
#[must_use]
pub fn anthropic_tool_result(outcome: &Outcome, tool_use_id: &str) -> Json {
    let mut content = vec![json!({"type": "text", "text": outcome.text_with_notes()})];
    if let Some(direct) = &outcome.direct_result {
        for block in &direct.content {
            let Content::Media(media) = block else {
                continue;
            };
            let Some(data) = &media.data else { continue };
            if media.mime.starts_with("image/") {
                content.push(json!({
                    "type": "image",
                    "source": {
                        "type": "base64",
                        "media_type": media.mime,
                        "data": base64::engine::general_purpose::STANDARD.encode(data),
                    }
                }));
            }
        }
    }
    json!({
        "type": "tool_result",
        "tool_use_id": tool_use_id,
        "content": content,
        "is_error": !outcome.is_completed(),
    })
}

/// The OpenAI Chat Completions tool message answering `tool_call_id`:
/// `{"role": "tool", "tool_call_id", "content": TEXT}`. The format has no error flag and no
/// media in tool messages, so a failed run's text starts with `Error: ` as the model-facing
/// text always does, and media are left out.
#[must_use]
pub fn openai_tool_message(outcome: &Outcome, tool_call_id: &str) -> Json {
    json!({
        "role": "tool",
        "tool_call_id": tool_call_id,
        "content": outcome.text_with_notes(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{MediaRef, ToolResult};
    use crate::outcome::{OutcomeKind, RunStats};
    use std::sync::Arc;

    fn outcome(kind: OutcomeKind, text: &str) -> Outcome {
        Outcome {
            id: "ptc-1".into(),
            kind,
            text: text.into(),
            value: None,
            error: None,
            direct: None,
            direct_result: None,
            journal: None,
            calls: Vec::new(),
            notes: Box::default(),
            stats: RunStats::default(),
        }
    }

    #[test]
    fn anthropic_blocks_mark_errors_and_carry_direct_images() {
        let mut done = outcome(OutcomeKind::Completed, "(1 2)");
        done.notes = Box::new(["hook said hi".into()]);
        let block = anthropic_tool_result(&done, "toolu_1");
        assert_eq!(block["is_error"], false);
        assert_eq!(block["tool_use_id"], "toolu_1");
        assert_eq!(
            block["content"][0]["text"],
            "(1 2)\n\nNotes:\n- hook said hi"
        );

        let mut image = outcome(OutcomeKind::Completed, "a picture");
        let mut result = ToolResult::text("a picture");
        result.content.push(Content::Media(MediaRef {
            mime: "image/png".into(),
            uri: None,
            name: Some("tiny".into()),
            data: Some(Arc::from(&b"\x89PNG"[..])),
        }));
        image.direct_result = Some(Box::new(result));
        let block = anthropic_tool_result(&image, "toolu_2");
        assert_eq!(block["content"][1]["source"]["data"], "iVBORw==");
        assert_eq!(block["content"][1]["source"]["media_type"], "image/png");

        let failed = outcome(OutcomeKind::ScriptError, "Error: boom");
        assert_eq!(anthropic_tool_result(&failed, "t")["is_error"], true);
        let message = openai_tool_message(&failed, "call_9");
        assert_eq!(message["role"], "tool");
        assert_eq!(message["content"], "Error: boom");
    }
}
