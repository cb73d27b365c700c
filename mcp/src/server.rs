//! The downstream side: the MCP server a client talks to (spec/reference/mcp.md §2–§7).
//!
//! The client sees two tools, `ToolCall` (the static description `ptc describe` prints) and
//! `ToolSearch`; the tool listing goes in the initialize `instructions`. A ToolCall is
//! compiled against the current roster first — diagnostics come back as `isError: true`
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

use crate::gateway::{Gateway, Roster};
use crate::search;
use ptc_runtime::{
    BoxFuture, CancelToken, Decision, OutcomeKind, PermissionPolicy, Progress, RunOptions, Runner,
    ToolRequestCtx, expression_of, listing,
};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ElicitRequestParams,
    ElicitationAction, InitializeRequestParams, InitializeResult, ListToolsResult,
    PaginatedRequestParams, ProgressNotificationParam, ProtocolVersion, ServerConfig, Tool,
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
        let tool_call = json!({
            "name": listing::TOOL_NAME,
            "description": listing::DESCRIPTION,
            "inputSchema": {"type": "object",
                            "properties": {"expression": {"type": "string"}},
                            "required": ["expression"]},
            "annotations": {"readOnlyHint": read_only, "destructiveHint": destructive,
                            "idempotentHint": idempotent, "openWorldHint": open_world}
        });
        let tool_search = json!({
            "name": SEARCH_TOOL,
            "description": search::DESCRIPTION,
            "inputSchema": search::input_schema(),
            "annotations": {"readOnlyHint": true, "destructiveHint": false,
                            "idempotentHint": true, "openWorldHint": false}
        });
        [tool_call, tool_search]
            .into_iter()
            .filter_map(|t| serde_json::from_value(t).ok())
            .collect()
    }

    async fn tool_call(
        &self,
        arguments: &Json,
        context: &RequestContext<RoleServer>,
        progress_token: Option<Json>,
    ) -> CallToolResult {
        let roster = self.gateway.roster();
        let limits = *self.gateway.limits();
        let script = match expression_of(arguments) {
            Ok(script) => script,
            Err(message) => return text_result(&format!("Error: {message}"), true),
        };
        let compiled = match ptc_compiler::compile(script, &roster.registry.roster(), &limits) {
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
        let mut forwarder = None;
        if let Some(token) = progress_token {
            let (sink, task) = progress_sink(context.peer.clone(), token);
            options = options.progress(sink);
            forwarder = Some(task);
        }
        let cancel: CancelToken = options.cancel_token().clone();
        let run = runner.run_program(compiled.program, compiled.direct, script, options);
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
        let raw: Vec<_> = outcome
            .calls
            .iter()
            .map(|c| self.gateway.take_raw(&c.id))
            .collect();
        let direct_kind = matches!(
            outcome.kind,
            OutcomeKind::Completed | OutcomeKind::ToolError
        );
        if outcome.direct.is_some()
            && direct_kind
            && outcome.calls.len() == 1
            && let Some(Some(result)) = raw.into_iter().next()
        {
            return result;
        }
        let structured = json!({
            "value": outcome.value,
            "calls": outcome.calls,
            "stats": outcome.stats,
        });
        serde_json::from_value(json!({
            "content": [{"type": "text", "text": outcome.text_with_notes()}],
            "structuredContent": structured,
            "isError": !outcome.is_completed(),
        }))
        .unwrap_or_else(|e| text_result(&format!("Error: result not encodable: {e}"), true))
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
    token: Json,
) -> (
    Arc<dyn ptc_runtime::ProgressSink>,
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
            let param = json!({"progressToken": token, "progress": done, "total": total,
                               "message": message});
            if let Ok(param) = serde_json::from_value::<ProgressNotificationParam>(param)
                && peer.notify_progress(param).await.is_err()
            {
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
        let arguments = request.arguments.to_string();
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
                "message": format!("ptc: allow the call {tool} {arguments}?"),
                "requestedSchema": {"type": "object", "properties": {}}
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

impl ServerHandler for PtcServer {
    fn get_info(&self) -> ServerConfig {
        let roster = self.gateway.roster();
        serde_json::from_value(json!({
            "protocolVersion": ProtocolVersion::V_2025_11_25,
            "capabilities": {"tools": {"listChanged": true}},
            "serverInfo": {"name": "ptc", "version": env!("CARGO_PKG_VERSION")},
            "instructions": PtcServer::instructions(&roster),
        }))
        .unwrap_or_default()
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
        let tools = PtcServer::tools(&self.gateway.roster());
        serde_json::from_value(json!({ "tools": tools }))
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))
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
            .or_else(|| context.meta.get_progress_token())
            .and_then(|t| serde_json::to_value(t).ok());
        match &*request.name {
            listing::TOOL_NAME => Ok(self
                .tool_call(&arguments, &context, progress_token)
                .await
                .into()),
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
                let (text, structured) = search::search(&self.gateway.roster(), query, limit);
                let result = serde_json::from_value(json!({
                    "content": [{"type": "text", "text": text}],
                    "structuredContent": structured,
                    "isError": false,
                }))
                .unwrap_or_else(|_| text_result(&text, false));
                Ok(result.into())
            }
            other => Err(ErrorData::invalid_params(
                format!("no tool `{other}`: this server has ToolCall and ToolSearch"),
                None,
            )),
        }
    }
}
