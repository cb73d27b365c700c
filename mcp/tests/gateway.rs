//! The gateway end to end with in-process rmcp servers: real MCP framing over duplex pipes
//! on both sides (upstream servers ← ptc ← a downstream rmcp client), no mocks of ptc.

use ptc_mcp::{Config, Gateway, PtcServer, upstream};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ClientConfig, ElicitRequestParams,
    ElicitResult, ElicitationAction, ListToolsResult, PaginatedRequestParams, ServerConfig, Tool,
};
use rmcp::service::{NotificationContext, RequestContext, RunningService};
use rmcp::{ClientHandler, ErrorData, RoleClient, RoleServer, ServerHandler, ServiceExt as _};
use serde_json::{Value as Json, json};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A 1x1 PNG, base64.
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

fn tool(name: &str, schema: Json) -> Tool {
    serde_json::from_value(
        json!({"name": name, "description": format!("The {name} tool. More."),
                                  "inputSchema": schema}),
    )
    .unwrap()
}

fn object(props: Json, required: &[&str]) -> Json {
    json!({"type": "object", "properties": props, "required": required})
}

#[derive(Default)]
struct State {
    tools: Mutex<Vec<Tool>>,
    peer: Mutex<Option<rmcp::Peer<RoleServer>>>,
    calls: AtomicUsize,
    finished: Mutex<Vec<String>>,
    hang_cancelled: AtomicBool,
    crash: Mutex<Option<rmcp::service::RunningServiceCancellationToken>>,
}

/// Sets a flag when dropped: a hanging call's future was dropped or cancelled.
struct Flag(Arc<State>);
impl Drop for Flag {
    fn drop(&mut self) {
        self.0.hang_cancelled.store(true, Ordering::SeqCst);
    }
}

#[derive(Clone)]
struct TestServer(Arc<State>);

impl TestServer {
    fn new() -> Self {
        let state = State::default();
        *state.tools.lock().unwrap() = vec![
            tool(
                "echo",
                object(json!({"text": {"type": "string"}}), &["text"]),
            ),
            tool(
                "sum",
                object(
                    json!({"a": {"type": "number"}, "b": {"type": "number"}}),
                    &["a", "b"],
                ),
            ),
            tool(
                "sleep",
                object(
                    json!({"ms": {"type": "integer"}, "tag": {"type": "string"}}),
                    &["ms", "tag"],
                ),
            ),
            tool("fail", object(json!({}), &[])),
            tool("image", object(json!({}), &[])),
            tool("hang", object(json!({}), &[])),
            tool("crash", object(json!({}), &[])),
            tool("rpcerror", object(json!({}), &[])),
            tool("has space", object(json!({}), &[])),
            tool("a(b", object(json!({}), &[])),
        ];
        TestServer(Arc::new(state))
    }
}

impl ServerHandler for TestServer {
    fn get_info(&self) -> ServerConfig {
        serde_json::from_value(json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {"tools": {"listChanged": true}},
            "serverInfo": {"name": "test", "version": "1"}
        }))
        .unwrap()
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let tools = self.0.tools.lock().unwrap().clone();
        Ok(serde_json::from_value(json!({ "tools": tools })).unwrap())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.0.calls.fetch_add(1, Ordering::SeqCst);
        let args = Json::Object(request.arguments.unwrap_or_default());
        let text = |t: &Json| json!({"content": [{"type": "text", "text": t}]});
        let result = match &*request.name {
            "echo" | "late" => text(&args["text"]),
            "sum" => {
                let sum = args["a"].as_f64().unwrap_or(0.0) + args["b"].as_f64().unwrap_or(0.0);
                json!({"content": [{"type": "text", "text": format!("{{\"sum\":{sum}}}")}],
                       "structuredContent": {"sum": sum}})
            }
            "sleep" => {
                tokio::time::sleep(Duration::from_millis(args["ms"].as_u64().unwrap_or(0))).await;
                let tag = args["tag"].as_str().unwrap_or_default().to_owned();
                self.0.finished.lock().unwrap().push(tag.clone());
                text(&json!(tag))
            }
            "fail" => json!({"content": [{"type": "text", "text": "boom: no such thing"}],
                             "isError": true}),
            "image" => json!({"content": [
                {"type": "text", "text": "Here is an image:"},
                {"type": "image", "data": PNG, "mimeType": "image/png"},
                {"type": "text", "text": "Done."}]}),
            "hang" => {
                let _flag = Flag(self.0.clone());
                tokio::select! {
                    () = context.ct.cancelled() => {}
                    () = tokio::time::sleep(Duration::from_secs(60)) => {}
                }
                return Err(ErrorData::internal_error("hang ended", None));
            }
            "rpcerror" => return Err(ErrorData::internal_error("the database is down", None)),
            "crash" => {
                if let Some(token) = self.0.crash.lock().unwrap().take() {
                    token.cancel();
                }
                std::future::pending::<()>().await;
                unreachable!()
            }
            other => return Err(ErrorData::invalid_params(format!("no {other}"), None)),
        };
        let result: CallToolResult = serde_json::from_value(result).unwrap();
        Ok(result.into())
    }
}

/// A downstream client: answers elicitation with `action` (no capability when `None`).
#[derive(Clone, Default)]
struct TestClient {
    action: Option<ElicitationAction>,
    asked: Arc<AtomicUsize>,
    list_changed: Arc<AtomicUsize>,
}

impl ClientHandler for TestClient {
    fn get_info(&self) -> ClientConfig {
        let capabilities = if self.action.is_some() {
            json!({"elicitation": {"form": {}}})
        } else {
            json!({})
        };
        serde_json::from_value(
            json!({"protocolVersion": "2025-11-25", "capabilities": capabilities,
                                      "clientInfo": {"name": "test-client", "version": "1"}}),
        )
        .unwrap()
    }

    async fn create_elicitation(
        &self,
        _request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        self.asked.fetch_add(1, Ordering::SeqCst);
        let action = self.action.clone().unwrap_or(ElicitationAction::Decline);
        Ok(serde_json::from_value(json!({"action": action, "content": {}})).unwrap())
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.list_changed.fetch_add(1, Ordering::SeqCst);
    }
}

struct Harness {
    gateway: Arc<Gateway>,
    servers: Vec<(String, TestServer)>,
}

/// A gateway over in-process test servers named `names`, with the `ptc` section `ptc`.
async fn harness(names: &[&str], ptc: Json) -> Harness {
    let servers: serde_json::Map<String, Json> = names
        .iter()
        .map(|n| ((*n).to_owned(), json!({"command": "unused"})))
        .collect();
    let config = Config::parse(
        "test.json",
        &json!({"mcpServers": servers, "ptc": ptc}).to_string(),
    )
    .unwrap();
    let gateway = Gateway::new(&config);
    let mut made = Vec::new();
    for name in names {
        let server = TestServer::new();
        let (ours, theirs) = tokio::io::duplex(1 << 20);
        let serving = server.clone();
        tokio::spawn(async move {
            if let Ok(running) = serving.clone().serve(theirs).await {
                *serving.0.crash.lock().unwrap() = Some(running.cancellation_token());
                *serving.0.peer.lock().unwrap() = Some(running.peer().clone());
                let _ = running.waiting().await;
            }
        });
        let (upstream, tools) =
            upstream::connect_stream(name, ours, gateway.change_sender(), Duration::from_secs(10))
                .await
                .unwrap();
        gateway.add(upstream, tools);
        made.push(((*name).to_owned(), server));
    }
    gateway.rebuild();
    Harness {
        gateway,
        servers: made,
    }
}

impl Harness {
    fn server(&self, name: &str) -> &Arc<State> {
        &self.servers.iter().find(|(n, _)| n == name).unwrap().1.0
    }

    fn calls(&self, name: &str) -> usize {
        self.server(name).calls.load(Ordering::SeqCst)
    }

    /// A downstream rmcp client connected to a PtcServer over this gateway.
    async fn client(&self, client: TestClient) -> RunningService<RoleClient, TestClient> {
        let (ours, theirs) = tokio::io::duplex(1 << 20);
        let server = PtcServer::new(self.gateway.clone());
        tokio::spawn(async move {
            if let Ok(running) = server.serve(theirs).await {
                let _ = running.waiting().await;
            }
        });
        client.serve(ours).await.unwrap()
    }
}

/// Calls ToolCall with `expression` and returns the result as JSON.
async fn tool_call(client: &RunningService<RoleClient, TestClient>, expression: &str) -> Json {
    let params = CallToolRequestParams::new("ToolCall").with_arguments(
        json!({"expression": expression})
            .as_object()
            .unwrap()
            .clone(),
    );
    let result = client.call_tool(params).await.unwrap();
    serde_json::to_value(result).unwrap()
}

fn text_of(result: &Json) -> String {
    result["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

fn is_error(result: &Json) -> bool {
    result["isError"] == json!(true)
}

#[tokio::test]
async fn the_client_sees_two_tools_and_the_listing_in_instructions() {
    let h = harness(&["up", "other"], json!({})).await;
    let client = h.client(TestClient::default()).await;
    let info = client.peer_info().unwrap();
    let instructions = info.instructions.clone().unwrap();
    assert!(
        instructions.contains("- (up.echo :text STRING) — The echo tool."),
        "{instructions}"
    );
    assert!(
        instructions.contains("(other.sum :a NUMBER :b NUMBER)"),
        "{instructions}"
    );
    // Names the reader cannot take as one symbol are skipped.
    assert!(!instructions.contains("has space") && !instructions.contains("a(b"));
    let roster = h.gateway.roster();
    assert_eq!(roster.skipped.len(), 4, "{:?}", roster.skipped);
    assert!(roster.skipped[0].contains("cannot be read as one symbol"));
    let tools = client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| &*t.name).collect();
    assert_eq!(names, ["ToolCall", "ToolSearch"]);
    assert_eq!(
        serde_json::to_value(&*tools[0].input_schema).unwrap(),
        ptc_runtime::core::listing::input_schema()
    );
    assert_eq!(
        tools[0].description.as_deref(),
        Some(ptc_runtime::core::listing::DESCRIPTION)
    );
    // Upstream tools make no read-only claim, so neither does ToolCall.
    let annotations = tools[0].annotations.clone().unwrap();
    assert_eq!(annotations.read_only_hint, Some(false));

    let params = CallToolRequestParams::new("ToolSearch").with_arguments(
        json!({"query": "up.sum sleep"})
            .as_object()
            .unwrap()
            .clone(),
    );
    let found = serde_json::to_value(client.call_tool(params).await.unwrap()).unwrap();
    let tools = found["structuredContent"]["tools"].as_array().unwrap();
    assert_eq!(tools[0]["name"], "up.sum", "{found}");
    assert_eq!(tools[0]["callingShape"], "(up.sum :a NUMBER :b NUMBER)");
    assert_eq!(tools[0]["inputSchema"]["required"], json!(["a", "b"]));
    assert!(tools.iter().any(|t| t["name"] == "other.sleep"));
    assert!(tools.len() <= 5);
}

#[tokio::test]
async fn allow_and_deny_shape_the_roster_and_unknown_tools_never_reach_upstream() {
    let h = harness(
        &["up"],
        json!({"servers": {"up": {"allow": ["e*", "s*"], "deny": ["sleep"]}}}),
    )
    .await;
    let names: Vec<String> = h
        .gateway
        .roster()
        .entries
        .iter()
        .map(|e| e.name.clone())
        .collect();
    assert_eq!(names, ["up.echo", "up.sum"]);
    let client = h.client(TestClient::default()).await;
    let result = tool_call(&client, r#"(up.sleep :ms 1 :tag "x")"#).await;
    assert!(is_error(&result), "{result}");
    assert!(text_of(&result).contains("up.sleep"), "{result}");
    // A diagnostic with carets, and no upstream call at all.
    let result = tool_call(&client, r#"(list (up.echo :text "a") (up.echo :text"#).await;
    assert!(is_error(&result));
    assert!(
        text_of(&result).contains('^') || text_of(&result).contains('─'),
        "{}",
        text_of(&result)
    );
    assert_eq!(h.calls("up"), 0);
}

#[tokio::test]
async fn parallel_results_join_in_source_order_under_shuffled_completion() {
    let h = harness(&["up", "other"], json!({"parallelism": 3})).await;
    let client = h.client(TestClient::default()).await;
    let started = Instant::now();
    let result = tool_call(
        &client,
        r#"(parallel (up.sleep :ms 300 :tag "a") (other.sleep :ms 10 :tag "b") (up.sleep :ms 150 :tag "c"))"#,
    )
    .await;
    let elapsed = started.elapsed();
    assert!(!is_error(&result), "{result}");
    assert_eq!(result["structuredContent"]["value"], json!(["a", "b", "c"]));
    assert_eq!(text_of(&result), r#"("a" "b" "c")"#);
    assert_eq!(*h.server("up").finished.lock().unwrap(), ["c", "a"]);
    assert!(
        elapsed < Duration::from_millis(440),
        "not parallel: {elapsed:?}"
    );
    let calls = result["structuredContent"]["calls"].as_array().unwrap();
    let tools: Vec<&str> = calls.iter().map(|c| c["tool"].as_str().unwrap()).collect();
    assert_eq!(tools, ["up.sleep", "other.sleep", "up.sleep"]);
    assert_eq!(result["structuredContent"]["stats"]["tool_calls"], 3);
}

#[tokio::test]
async fn upstream_failures_are_error_values_and_structured_results_are_plists() {
    let h = harness(&["up"], json!({})).await;
    let client = h.client(TestClient::default()).await;
    let result = tool_call(
        &client,
        r#"(let ((r (up.fail)) (s (up.sum :a 2 :b 3)))
             (list (plist-get r :error) (plist-get s :sum)))"#,
    )
    .await;
    assert!(!is_error(&result), "{result}");
    let value = &result["structuredContent"]["value"];
    assert!(
        value[0].as_str().unwrap().contains("boom: no such thing"),
        "{value}"
    );
    assert_eq!(value[1], json!(5.0));
    // A JSON-RPC error from the upstream is an error value too.
    let result = tool_call(&client, r#"(plist-get (up.rpcerror) :error)"#).await;
    let message = result["structuredContent"]["value"]
        .as_str()
        .unwrap_or_default();
    assert!(
        message.contains("up.rpcerror") && message.contains("the database is down"),
        "{result}"
    );
}

#[tokio::test]
async fn a_direct_call_passes_the_upstream_result_through_media_included() {
    let h = harness(&["up"], json!({})).await;
    let client = h.client(TestClient::default()).await;
    let result = tool_call(&client, "(up.image)").await;
    assert_eq!(
        result["content"],
        json!([{"type": "text", "text": "Here is an image:"},
               {"type": "image", "data": PNG, "mimeType": "image/png"},
               {"type": "text", "text": "Done."}])
    );
    assert!(result.get("structuredContent").is_none(), "{result}");
    // A direct failing call is the upstream's own error result.
    let result = tool_call(&client, "(up.fail)").await;
    assert_eq!(
        result["content"],
        json!([{"type": "text", "text": "boom: no such thing"}])
    );
    assert!(is_error(&result));
    // Composed, the guest sees descriptors and no payload.
    let result = tool_call(&client, "(nth 1 (up.image))").await;
    assert_eq!(
        result["structuredContent"]["value"],
        json!({"type": "image", "mimeType": "image/png", "size": 70})
    );
    assert!(!result.to_string().contains(PNG));
    let media = &result["structuredContent"]["calls"][0]["media"];
    assert_eq!(media[0]["mime"], "image/png", "{result}");
}

#[tokio::test]
async fn cancelling_the_tool_call_cancels_the_upstream_request() {
    let h = harness(&["up"], json!({})).await;
    let client = h.client(TestClient::default()).await;
    let params = CallToolRequestParams::new("ToolCall").with_arguments(
        json!({"expression": "(list (up.hang))"})
            .as_object()
            .unwrap()
            .clone(),
    );
    // Dropping the request future sends notifications/cancelled to ptc.
    let call = tokio::time::timeout(Duration::from_millis(300), client.call_tool(params)).await;
    assert!(call.is_err(), "the hanging call returned: {call:?}");
    let deadline = Instant::now() + Duration::from_secs(5);
    while !h.server("up").hang_cancelled.load(Ordering::SeqCst) {
        assert!(
            Instant::now() < deadline,
            "the upstream request was never cancelled"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // The gateway still serves.
    let result = tool_call(&client, r#"(up.echo :text "after")"#).await;
    assert_eq!(text_of(&result), "after");
}

#[tokio::test]
async fn a_crashed_upstream_fails_its_calls_and_the_others_go_on() {
    let h = harness(&["up", "other"], json!({"toolTimeoutMs": 5000})).await;
    let client = h.client(TestClient::default()).await;
    let result = tool_call(
        &client,
        r#"(let ((r (up.crash))) (list (and (listp r) (plist-get r :error) t) (other.echo :text "still")))"#,
    )
    .await;
    assert!(!is_error(&result), "{result}");
    assert_eq!(result["structuredContent"]["value"], json!([true, "still"]));
    let result = tool_call(&client, r#"(plist-get (up.echo :text "x") :error)"#).await;
    assert!(result["structuredContent"]["value"].is_string(), "{result}");
}

#[tokio::test]
async fn list_changed_upstream_re_lists_and_notifies_downstream() {
    let h = harness(&["up"], json!({})).await;
    let client_state = TestClient::default();
    let client = h.client(client_state.clone()).await;
    let result = tool_call(&client, r#"(up.late :text "x")"#).await;
    assert!(is_error(&result));
    let server = h.server("up");
    server.tools.lock().unwrap().push(tool(
        "late",
        object(json!({"text": {"type": "string"}}), &["text"]),
    ));
    let peer = server.peer.lock().unwrap().clone().unwrap();
    peer.notify_tool_list_changed().await.unwrap();
    let deadline = Instant::now() + Duration::from_secs(5);
    while client_state.list_changed.load(Ordering::SeqCst) == 0 {
        assert!(
            Instant::now() < deadline,
            "no tools/list_changed downstream"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(h.gateway.roster().entry("up.late").is_some());
    let result = tool_call(&client, r#"(up.late :text "now")"#).await;
    assert_eq!(text_of(&result), "now", "{result}");
}

#[tokio::test]
async fn ask_tools_need_the_users_consent_through_elicitation() {
    let ptc = json!({"servers": {"up": {"ask": ["echo"]}}});
    let h = harness(&["up"], ptc).await;
    // Declined: a permission denial; the upstream is never called.
    let declining = TestClient {
        action: Some(ElicitationAction::Decline),
        ..TestClient::default()
    };
    let client = h.client(declining.clone()).await;
    let result = tool_call(&client, r#"(list (up.sum :a 1 :b 1) (up.echo :text "x"))"#).await;
    assert!(is_error(&result), "{result}");
    assert!(
        text_of(&result).contains("declined"),
        "{}",
        text_of(&result)
    );
    assert_eq!(declining.asked.load(Ordering::SeqCst), 1);
    assert_eq!(h.calls("up"), 1);
    // Accepted: the call runs.
    let accepting = TestClient {
        action: Some(ElicitationAction::Accept),
        ..TestClient::default()
    };
    let client = h.client(accepting).await;
    let result = tool_call(&client, r#"(up.echo :text "ok")"#).await;
    assert_eq!(text_of(&result), "ok", "{result}");
    // No elicitation support: denied, saying why.
    let client = h.client(TestClient::default()).await;
    let result = tool_call(&client, r#"(up.echo :text "x")"#).await;
    assert!(is_error(&result));
    assert!(
        text_of(&result).contains("does not support elicitation"),
        "{}",
        text_of(&result)
    );
}

#[tokio::test]
async fn streamable_http_on_loopback_serves_the_same_tools() {
    let h = harness(&["up"], json!({})).await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = tokio::spawn(ptc_mcp::serve_http_on(h.gateway.clone(), listener, async {
        let _ = stopped.await;
    }));
    let transport =
        rmcp::transport::StreamableHttpClientTransport::from_uri(format!("http://{addr}/mcp"));
    let client = TestClient::default().serve(transport).await.unwrap();
    let instructions = client.peer_info().unwrap().instructions.clone().unwrap();
    assert!(instructions.contains("(up.echo :text"), "{instructions}");
    let tools = client.list_all_tools().await.unwrap();
    assert_eq!(tools.len(), 2);
    let params = CallToolRequestParams::new("ToolCall").with_arguments(
        json!({"expression": r#"(parallel (up.echo :text "over") (up.sum :a 1 :b 2))"#})
            .as_object()
            .unwrap()
            .clone(),
    );
    let result = serde_json::to_value(client.call_tool(params).await.unwrap()).unwrap();
    assert_eq!(
        result["structuredContent"]["value"],
        json!(["over", {"sum": 3.0}]),
        "{result}"
    );
    drop(client);
    let _ = stop.send(());
    tokio::time::timeout(Duration::from_secs(10), serving)
        .await
        .expect("the HTTP server did not stop")
        .unwrap()
        .unwrap();
}

#[tokio::test]
async fn upstreams_that_fail_to_start_or_initialize_are_left_out() {
    let config = Config::parse(
        "test.json",
        r#"{"mcpServers": {"missing": {"command": "/nonexistent/ptc-test-server"},
                           "exits": {"command": "true"},
                           "silent": {"command": "sleep", "args": ["30"]}},
            "ptc": {"startupTimeoutMs": 500}}"#,
    )
    .unwrap();
    let started = Instant::now();
    let gateway = Gateway::start(&config).await;
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert!(gateway.roster().entries.is_empty());
    assert_eq!(gateway.roster().listing, "No tools are available.");
    gateway.shutdown().await;
}

#[tokio::test]
async fn repeated_tool_calls_hit_the_program_cache_and_a_roster_change_misses() {
    let h = harness(&["up"], json!({"programCache": 4})).await;
    let client_state = TestClient::default();
    let client = h.client(client_state.clone()).await;
    let stats = || h.gateway.cache_stats().unwrap();
    let script = r#"(up.echo :text "x")"#;
    assert_eq!(text_of(&tool_call(&client, script).await), "x");
    assert_eq!((stats().hits, stats().misses), (0, 1));
    assert_eq!(text_of(&tool_call(&client, script).await), "x");
    assert_eq!((stats().hits, stats().misses), (1, 1));
    // A rejected script is diagnosed every time, never cached.
    assert!(is_error(&tool_call(&client, "(up.late)").await));
    assert_eq!((stats().hits, stats().misses, stats().len), (1, 2, 1));
    // The upstream adds a tool: after list_changed the same script compiles again.
    let server = h.server("up");
    server
        .tools
        .lock()
        .unwrap()
        .push(tool("late", object(json!({}), &[])));
    let peer = server.peer.lock().unwrap().clone().unwrap();
    peer.notify_tool_list_changed().await.unwrap();
    let deadline = Instant::now() + Duration::from_secs(5);
    while h.gateway.roster().entry("up.late").is_none() {
        assert!(Instant::now() < deadline, "the roster was not rebuilt");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(text_of(&tool_call(&client, script).await), "x");
    assert_eq!((stats().hits, stats().misses), (1, 3));
    assert_eq!(text_of(&tool_call(&client, script).await), "x");
    assert_eq!((stats().hits, stats().misses), (2, 3));
}

#[tokio::test]
async fn program_cache_zero_turns_the_cache_off() {
    let h = harness(&["up"], json!({"programCache": 0})).await;
    let client = h.client(TestClient::default()).await;
    assert!(h.gateway.cache_stats().is_none());
    assert_eq!(
        text_of(&tool_call(&client, r#"(up.echo :text "y")"#).await),
        "y"
    );
}
