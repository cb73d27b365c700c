//! The downstream side: the MCP server a client talks to (spec/reference/mcp.md §2–§7).
//!
//! The client sees two tools, `ToolCall` (the static description `ptc describe` prints) and
//! `ToolSearch`; the tool listing goes in the initialize `instructions`. A ToolCall is
//! compiled against the current roster first (through the gateway's program cache) —
//! diagnostics come back as `isError: true`
//! with the caret text, before any upstream call — and then run by ptc-runtime's
//! [`Runner`], with a permission policy that asks the user (MCP elicitation) before each
//! call of an `ask` tool.
//!
//! Invariants:
//! - A direct call (the whole expression is one upstream call) returns the upstream's
//!   `CallToolResult` as it came; every other outcome returns one text block (the
//!   model-facing text) and `structuredContent` `{value, calls, stats}`, `isError` unless
//!   it completed.
//! - The client's `notifications/cancelled` interrupts the run; every nested call in flight
//!   is dropped, which cancels it upstream.
//! - With a `progressToken`, a `notifications/progress` goes out each time a nested call
//!   starts or settles (progress = settled calls, total = calls issued so far).

use crate::gateway::{Gateway, RawSlot, Roster};
use crate::search;
use ptc_runtime::core::{Progress, expression_of, listing};
use ptc_runtime::{
    BoxFuture, CancelToken, Decision, OutcomeKind, PermissionPolicy, RunOptions, Runner,
    ToolRequestCtx,
};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ElicitRequestParams,
    ElicitationAction, Implementation, InitializeRequestParams, InitializeResult, ListToolsResult,
    PaginatedRequestParams, ProgressNotificationParam, ProgressToken, ProtocolVersion,
    ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::{ElicitationMode, RequestContext};
use rmcp::{ErrorData, Peer, RoleServer, ServerHandler};
use serde_json::{Value as Json, json};
use std::borrow::Cow;
use std::sync::Arc;

/// The search tool's name.
pub const SEARCH_TOOL: &str = "ToolSearch";

/// The MCP server over a [`Gateway`]. Cheap to clone: one per HTTP session.
#[derive(Debug, Clone)]
pub struct PtcServer {
    gateway: Arc<Gateway>,
}

impl PtcServer {
    /// A server over `gateway`.
    #[must_use]
    pub fn new(gateway: Arc<Gateway>) -> Self {
        PtcServer { gateway }
    }

    /// The initialize `instructions`: how to use ToolCall, then the tool listing.
    #[must_use]
    pub fn instructions(roster: &Roster) -> String {
        format!(
            "ptc: call the tools below through the ToolCall tool, one small Lisp expression \
             per call (composition, parallel batches and result processing without a model \
             turn between calls). ToolSearch returns a tool's full contract; an empty \
             ToolSearch query returns the current listing after a tools/list_changed.\n\n{}",
            roster.listing
        )
    }

    /// The two tools the client sees, with annotations that are true of every exposed
    /// upstream tool.
    #[must_use]
    pub fn tools(roster: &Roster) -> Vec<Tool> {
        let hint = |get: fn(&rmcp::model::ToolAnnotations) -> Option<bool>, default: bool| {
            roster
                .entries
                .iter()
                .map(|e| e.tool.annotations.as_ref().and_then(get).unwrap_or(default))
                .collect::<Vec<_>>()
        };
        let read_only = hint(|a| a.read_only_hint, false).iter().all(|b| *b);
        let destructive = !read_only && hint(|a| a.destructive_hint, true).iter().any(|b| *b);
        let open_world = hint(|a| a.open_world_hint, true).iter().any(|b| *b);
        let idempotent = hint(|a| a.idempotent_hint, false).iter().all(|b| *b);
        let tool_call = Tool::new(
            listing::TOOL_NAME,
            listing::DESCRIPTION,
            schema_object(listing::input_schema()),
        )
        .with_annotations(
            ToolAnnotations::new()
                .read_only(read_only)
                .destructive(destructive)
                .idempotent(idempotent)
                .open_world(open_world),
        );
        let tool_search = Tool::new(
            SEARCH_TOOL,
            search::DESCRIPTION,
            schema_object(search::input_schema()),
        )
        .with_annotations(
            ToolAnnotations::new()
                .read_only(true)
                .destructive(false)
                .idempotent(true)
                .open_world(false),
        );
        vec![tool_call, tool_search]
    }

    async fn tool_call(
        &self,
        arguments: &Json,
        context: &RequestContext<RoleServer>,
        progress_token: Option<ProgressToken>,
    ) -> CallToolResult {
        let roster = self.gateway.roster();
        let limits = *self.gateway.limits();
        let script = match expression_of(arguments) {
            Ok(script) => script,
            Err(message) => return text_result(&format!("Error: {message}"), true),
        };
        let compiled = match self.gateway.compile(script, &roster) {
            Ok(compiled) => compiled,
            Err(diagnostics) => {
                let text = ptc_compiler::render::render(script, "expression", &diagnostics);
                return text_result(&text, true);
            }
        };
        let policy = AskPolicy {
            peer: context.peer.clone(),
            roster: roster.clone(),
        };
        let runner = Runner::new(roster.registry.clone())
            .with_limits(limits)
            .with_policy(Arc::new(policy));
        let mut options = RunOptions::default();
        // Only a direct call can pass its upstream result through: only it keeps one.
        let slot = compiled.direct.is_some().then(RawSlot::default);
        if let Some(slot) = &slot {
            options = options.data(ptc_runtime::RunData::new().with(slot.clone()));
        }
        let mut forwarder = None;
        if let Some(token) = progress_token {
            let (sink, task) = progress_sink(context.peer.clone(), token);
            options = options.progress(sink);
            forwarder = Some(task);
        }
        let cancel: CancelToken = options.cancel_token().clone();
        let run = runner.run(
            ptc_runtime::Source::Program {
                program: &compiled.program,
                direct: compiled.direct.as_deref(),
                text: script,
            },
            options,
        );
        tokio::pin!(run);
        let outcome = tokio::select! {
            outcome = &mut run => outcome,
            () = context.ct.cancelled() => {
                tracing::info!("the client cancelled a ToolCall");
                cancel.cancel();
                run.await
            }
        };
        // The run dropped the sink: let the last notifications go out before the result.
        if let Some(task) = forwarder {
            let _ = tokio::time::timeout(std::time::Duration::from_secs(1), task).await;
        }
        let direct_kind = matches!(
            outcome.kind,
            OutcomeKind::Completed | OutcomeKind::ToolError
        );
        if outcome.direct.is_some()
            && direct_kind
            && outcome.calls.len() == 1
            && let Some(slot) = &slot
            && let Some(result) = slot.take(&outcome.calls[0].id)
        {
            return result;
        }
        drop(slot);
        let structured = json!({
            "value": outcome.value,
            "calls": outcome.calls,
            "stats": outcome.stats,
        });
        let mut result = text_result(&outcome.text_with_notes(), !outcome.is_completed());
        result.structured_content = Some(structured);
        result
    }
}

/// One of ptc's own input schemas (object literals by construction; a test checks both
/// tools) as rmcp holds it.
fn schema_object(schema: Json) -> Arc<rmcp::model::JsonObject> {
    match schema {
        Json::Object(map) => Arc::new(map),
        _ => Arc::default(),
    }
}

/// A result of one text block.
fn text_result(text: &str, is_error: bool) -> CallToolResult {
    if is_error {
        CallToolResult::error(vec![rmcp::model::ContentBlock::text(text)])
    } else {
        CallToolResult::success(vec![rmcp::model::ContentBlock::text(text)])
    }
}

/// A progress sink that forwards each change of the settled/issued counts to the client,
/// and the forwarding task, which ends once the sink is dropped and everything is sent.
fn progress_sink(
    peer: Peer<RoleServer>,
    token: ProgressToken,
) -> (
    Arc<dyn ptc_runtime::core::ProgressSink>,
    tokio::task::JoinHandle<()>,
) {
    let (sender, mut receiver) = tokio::sync::mpsc::unbounded_channel::<(usize, usize, String)>();
    let task = tokio::spawn(async move {
        let mut last = None;
        while let Some((done, total, message)) = receiver.recv().await {
            if last == Some((done, total)) {
                continue;
            }
            last = Some((done, total));
            // Call counts: far below 2^53, exact as f64.
            #[allow(clippy::cast_precision_loss)]
            let param = ProgressNotificationParam::new(token.clone(), done as f64)
                .with_total(total as f64)
                .with_message(message);
            if peer.notify_progress(param).await.is_err() {
                break;
            }
        }
    });
    let sink = Arc::new(move |snapshot: &Progress| {
        let message = if snapshot.active.is_empty() {
            format!("{}/{} calls settled", snapshot.completed, snapshot.total)
        } else {
            format!(
                "{}/{} calls settled; running {}",
                snapshot.completed,
                snapshot.total,
                snapshot.active.join(", ")
            )
        };
        let _ = sender.send((snapshot.completed, snapshot.total, message));
    });
    (sink, task)
}

/// The permission policy: calls of `ask` tools need the user's consent through MCP
/// elicitation; a decline, a cancel, a failed elicitation or a client without elicitation
/// is a denial.
struct AskPolicy {
    peer: Peer<RoleServer>,
    roster: Arc<Roster>,
}

impl PermissionPolicy for AskPolicy {
    fn check(&self, request: &ToolRequestCtx) -> BoxFuture<Decision> {
        let asks = self.roster.entry(&request.tool).is_some_and(|e| e.ask);
        if !asks {
            return Box::pin(std::future::ready(Decision::Allow));
        }
        let peer = self.peer.clone();
        let tool = request.tool.clone();
        let arguments = request.arguments.clone();
        Box::pin(async move {
            if !peer
                .supported_elicitation_modes()
                .contains(&ElicitationMode::Form)
            {
                return Decision::Deny(format!(
                    "{tool} needs the user's approval for each call, and this MCP client does \
                     not support elicitation"
                ));
            }
            let params = json!({
                "mode": "form",
                "message": approval_message(&tool, &arguments),
                "requestedSchema": {"type": "object", "properties": {}},
                // The call in full, for a client that renders it safely.
                "_meta": {"ptc/tool": &*tool, "ptc/arguments": &*arguments},
            });
            let params: ElicitRequestParams = match serde_json::from_value(params) {
                Ok(params) => params,
                Err(error) => {
                    return Decision::Deny(format!("approval request not built: {error}"));
                }
            };
            match peer.create_elicitation(params).await {
                Ok(result) => match result.action {
                    ElicitationAction::Accept => Decision::Allow,
                    ElicitationAction::Decline => {
                        Decision::Deny(format!("the user declined the call of {tool}"))
                    }
                    _ => Decision::Deny(format!("the user dismissed the approval of {tool}")),
                },
                Err(error) => Decision::Deny(format!("the approval of {tool} failed: {error}")),
            }
        })
    }
}

/// The most characters of a call's arguments an approval prompt shows.
pub const APPROVAL_SHOWN_CHARS: usize = 400;

/// The approval prompt's text for calling `tool` with `arguments`: format and control
/// characters (bidi overrides, zero-width characters, line breaks, escapes) shown as
/// `\u{XXXX}`, and at most [`APPROVAL_SHOWN_CHARS`] characters of the arguments, with a
/// visible count of what is left out. The request's `_meta` carries the call in full.
#[must_use]
pub fn approval_message(tool: &str, arguments: &Json) -> String {
    let text = arguments.to_string();
    let total = text.chars().count();
    let shown: String = text.chars().take(APPROVAL_SHOWN_CHARS).collect();
    let mut message = format!(
        "ptc: allow the call {} {}",
        escape_shown(tool),
        escape_shown(&shown)
    );
    if total > APPROVAL_SHOWN_CHARS {
        message.push_str(&format!(
            " … [{} more characters not shown]",
            total - APPROVAL_SHOWN_CHARS
        ));
    }
    message.push('?');
    message
}

/// `text` with every control or invisible formatting character as `\u{XXXX}`.
fn escape_shown(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if is_hidden(c) {
            out.push_str(&format!("\\u{{{:04X}}}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    out
}

/// Control characters and the format characters (Unicode category Cf) that change how
/// text around them is shown or hide themselves: bidi embeddings, overrides, isolates
/// and marks, zero-width characters, the BOM, soft hyphen, tags, interlinear annotation.
fn is_hidden(c: char) -> bool {
    c.is_control()
        || matches!(u32::from(c),
            0x00AD | 0x034F | 0x061C | 0x115F | 0x1160 | 0x17B4 | 0x17B5 | 0x180B..=0x180F
            | 0x200B..=0x200F | 0x2028..=0x202E | 0x2060..=0x206F | 0x3164 | 0xFE00..=0xFE0F
            | 0xFEFF | 0xFFA0 | 0xFFF0..=0xFFFB | 0x1D173..=0x1D17A | 0xE0000..=0xE0FFF)
}

impl ServerHandler for PtcServer {
    fn get_info(&self) -> ServerConfig {
        let roster = self.gateway.roster();
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_tool_list_changed()
            .build();
        ServerConfig::new(capabilities)
            .with_protocol_version(ProtocolVersion::V_2025_11_25)
            .with_server_info(Implementation::new("ptc", env!("CARGO_PKG_VERSION")))
            .with_instructions(PtcServer::instructions(&roster))
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        // 2026-07-28 forbids server-to-client requests (elicitation) and has no
        // initialize, which is where the listing goes.
        Cow::Borrowed(ProtocolVersion::known_up_to(&ProtocolVersion::V_2025_11_25))
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, ErrorData> {
        context.peer.set_peer_info(request.clone());
        self.gateway.add_downstream(context.peer.clone());
        self.negotiate_initialize(&request)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(PtcServer::tools(
            &self.gateway.roster(),
        )))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let arguments = Json::Object(request.arguments.clone().unwrap_or_default());
        let progress_token = request
            .meta
            .as_ref()
            .and_then(|m| m.get_progress_token())
            .or_else(|| context.meta.get_progress_token());
        match &*request.name {
            listing::TOOL_NAME => {
                // The MCP conventions' server span; its parent is the request's
                // `_meta.traceparent` when an exporter installed the propagation hook.
                let span = tracing::info_span!(
                    target: "ptc",
                    "tools/call",
                    otel.name = "tools/call ToolCall",
                    otel.kind = "server",
                    mcp.method.name = "tools/call",
                    gen_ai.operation.name = "execute_tool",
                    gen_ai.tool.name = listing::TOOL_NAME,
                );
                let traceparent = request
                    .meta
                    .as_ref()
                    .and_then(|m| m.get_traceparent())
                    .or_else(|| context.meta.get_traceparent());
                let tracestate = request
                    .meta
                    .as_ref()
                    .and_then(|m| m.get_tracestate())
                    .or_else(|| context.meta.get_tracestate());
                crate::propagation::set_parent(&span, traceparent, tracestate);
                Ok(tracing::Instrument::instrument(
                    self.tool_call(&arguments, &context, progress_token),
                    span,
                )
                .await
                .into())
            }
            SEARCH_TOOL => {
                let query = arguments.get("query").and_then(Json::as_str);
                let Some(query) = query else {
                    return Ok(text_result(
                        "Error: ToolSearch takes {\"query\": \"names or keywords\"}",
                        true,
                    )
                    .into());
                };
                let limit = arguments.get("limit").and_then(Json::as_u64);
                let roster = self.gateway.roster();
                let query = query.to_owned();
                let searched =
                    tokio::task::spawn_blocking(move || search::search(&roster, &query, limit))
                        .await;
                let Ok((text, structured)) = searched else {
                    return Ok(text_result("Error: ToolSearch failed", true).into());
                };
                let mut result = text_result(&text, false);
                result.structured_content = Some(structured);
                Ok(result.into())
            }
            other => Err(ErrorData::invalid_params(
                format!("no tool `{other}`: this server has ToolCall and ToolSearch"),
                None,
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_approval_prompt_shows_hidden_characters_and_caps_what_it_shows() {
        let arguments = json!({"path": "safe\u{202E}txt.exe\u{200B}\n"});
        let message = approval_message("fs.rm\u{2066}", &arguments);
        assert!(!message.chars().any(is_hidden), "{message}");
        assert!(message.contains("\\u{202E}") && message.contains("\\u{200B}"));
        assert!(message.contains("\\u{2066}"), "{message}");
        let long = json!({"text": "a".repeat(10_000)});
        let message = approval_message("t", &long);
        assert!(message.chars().count() < APPROVAL_SHOWN_CHARS + 100);
        assert!(
            message.contains("9611 more characters not shown"),
            "{message}"
        );
    }

    #[test]
    fn the_two_tools_are_built_whole() {
        let tools = PtcServer::tools(&Roster::default());
        let names: Vec<&str> = tools.iter().map(|t| &*t.name).collect();
        assert_eq!(names, [listing::TOOL_NAME, SEARCH_TOOL]);
        for tool in &tools {
            let properties = tool
                .input_schema
                .get("properties")
                .and_then(Json::as_object);
            assert!(properties.is_some_and(|p| !p.is_empty()), "{tool:?}");
            assert!(tool.annotations.is_some(), "{tool:?}");
        }
        let search = &tools[1];
        let hints = search.annotations.as_ref().unwrap();
        assert_eq!(hints.read_only_hint, Some(true));
        assert_eq!(hints.open_world_hint, Some(false));
    }
}
