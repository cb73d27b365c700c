//! Misbehaving upstreams and HTTP clients (issue 38): an rmcp server whose listing never
//! ends or never answers, a raw server whose answers cannot be decoded, list-change
//! storms, and HTTP requests that break the transport's rules. Each must fail promptly and
//! boundedly, with the real reason, and leave the rest of the gateway working.

use futures::StreamExt as _;
use ptc_mcp::{Config, Gateway, HttpLimits, PtcServer, upstream};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ClientConfig, ListToolsResult, PaginatedRequestParams,
    ServerConfig, Tool,
};
use rmcp::service::{NotificationContext, RequestContext, RunningService};
use rmcp::{ClientHandler, ErrorData, RoleClient, RoleServer, ServerHandler, ServiceExt as _};
use serde_json::{Value as Json, json};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt as _, AsyncReadExt as _, AsyncWriteExt as _};

fn tool(name: &str) -> Tool {
    serde_json::from_value(json!({"name": name, "description": "t",
                                  "inputSchema": {"type": "object"}}))
    .unwrap()
}

/// How an rmcp test server answers `tools/list` after its first listing.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Listing {
    /// The current tools, one page.
    Normal,
    /// A new cursor on every page, for ever.
    EndlessCursors,
    /// The same cursor again and again.
    SameCursor,
    /// 1000 tools a page, for ever.
    EndlessTools,
    /// Never answers.
    Hang,
}

#[derive(Clone)]
struct Lister {
    tools: Arc<Mutex<Vec<Tool>>>,
    mode: Arc<Mutex<Listing>>,
    lists: Arc<AtomicUsize>,
    peer: Arc<Mutex<Option<rmcp::Peer<RoleServer>>>>,
}

impl Lister {
    fn new() -> Self {
        Lister {
            tools: Arc::new(Mutex::new(vec![tool("a")])),
            mode: Arc::new(Mutex::new(Listing::Normal)),
            lists: Arc::default(),
            peer: Arc::default(),
        }
    }
}

impl ServerHandler for Lister {
    fn get_info(&self) -> ServerConfig {
        serde_json::from_value(json!({"protocolVersion": "2025-11-25",
            "capabilities": {"tools": {"listChanged": true}},
            "serverInfo": {"name": "lister", "version": "1"}}))
        .unwrap()
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let n = self.lists.fetch_add(1, Ordering::SeqCst);
        let mode = *self.mode.lock().unwrap();
        let cursor = request.and_then(|r| r.cursor);
        let page = match mode {
            Listing::Normal => json!({"tools": *self.tools.lock().unwrap()}),
            Listing::EndlessCursors => json!({"tools": [tool(&format!("p{n}"))],
                                              "nextCursor": format!("cursor-{n}")}),
            Listing::SameCursor => json!({"tools": [tool("same")], "nextCursor": "again"}),
            Listing::EndlessTools => {
                let tools: Vec<Tool> = (0..1000).map(|i| tool(&format!("t{n}_{i}"))).collect();
                json!({"tools": tools, "nextCursor": format!("{n}-{cursor:?}")})
            }
            Listing::Hang => {
                std::future::pending::<()>().await;
                unreachable!()
            }
        };
        Ok(serde_json::from_value(page).unwrap())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let result: rmcp::model::CallToolResult = serde_json::from_value(
            json!({"content": [{"type": "text", "text": request.name.to_string()}]}),
        )
        .unwrap();
        Ok(result.into())
    }
}

#[derive(Clone, Default)]
struct Client {
    list_changed: Arc<AtomicUsize>,
}

impl ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        serde_json::from_value(json!({"protocolVersion": "2025-11-25", "capabilities": {},
                                      "clientInfo": {"name": "c", "version": "1"}}))
        .unwrap()
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.list_changed.fetch_add(1, Ordering::SeqCst);
    }
}

fn config(names: &[&str], ptc: Json) -> Config {
    let servers: serde_json::Map<String, Json> = names
        .iter()
        .map(|n| ((*n).to_owned(), json!({"command": "unused"})))
        .collect();
    Config::parse(
        "test.json",
        &json!({"mcpServers": servers, "ptc": ptc}).to_string(),
    )
    .unwrap()
}

/// Serves `lister` on one end of a pipe and connects `name` to the other.
async fn connect_lister(gateway: &Arc<Gateway>, name: &str, lister: &Lister) -> Result<(), String> {
    let (ours, theirs) = tokio::io::duplex(1 << 20);
    let serving = lister.clone();
    tokio::spawn(async move {
        if let Ok(running) = serving.clone().serve(theirs).await {
            *serving.peer.lock().unwrap() = Some(running.peer().clone());
            let _ = running.waiting().await;
        }
    });
    let (upstream, tools) =
        upstream::connect_stream(name, ours, gateway.change_sender(), Duration::from_secs(5))
            .await?;
    gateway.add(upstream, tools);
    gateway.rebuild();
    Ok(())
}

async fn client(gateway: &Arc<Gateway>, state: Client) -> RunningService<RoleClient, Client> {
    let (ours, theirs) = tokio::io::duplex(1 << 20);
    let server = PtcServer::new(gateway.clone());
    tokio::spawn(async move {
        if let Ok(running) = server.serve(theirs).await {
            let _ = running.waiting().await;
        }
    });
    state.serve(ours).await.unwrap()
}

async fn tool_call(client: &RunningService<RoleClient, Client>, expression: &str) -> Json {
    let params = CallToolRequestParams::new("ToolCall").with_arguments(
        json!({"expression": expression})
            .as_object()
            .unwrap()
            .clone(),
    );
    serde_json::to_value(client.call_tool(params).await.unwrap()).unwrap()
}

async fn until(what: &str, within: Duration, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + within;
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn a_listing_that_never_ends_is_bounded_and_the_old_tools_stay() {
    for mode in [
        Listing::EndlessCursors,
        Listing::SameCursor,
        Listing::EndlessTools,
    ] {
        // At start-up: the upstream is refused, saying why.
        let gateway = Gateway::new(&config(&["up"], json!({})));
        let lister = Lister::new();
        *lister.mode.lock().unwrap() = mode;
        let error = connect_lister(&gateway, "up", &lister).await.unwrap_err();
        assert!(
            error.contains("pages") || error.contains("cursor") || error.contains("tools"),
            "{mode:?}: {error}"
        );
        assert!(lister.lists.load(Ordering::SeqCst) <= upstream::MAX_PAGES + 1);
        // On a re-list: bounded, and the roster keeps the tools it had.
        let gateway = Gateway::new(&config(&["up"], json!({})));
        let lister = Lister::new();
        connect_lister(&gateway, "up", &lister).await.unwrap();
        *lister.mode.lock().unwrap() = mode;
        let before = lister.lists.load(Ordering::SeqCst);
        let peer = lister.peer.lock().unwrap().clone().unwrap();
        peer.notify_tool_list_changed().await.unwrap();
        let lists = lister.lists.clone();
        until("the re-list to start", Duration::from_secs(5), || {
            lists.load(Ordering::SeqCst) > before
        })
        .await;
        // Let it run to its bound, then check it stopped there.
        tokio::time::sleep(Duration::from_millis(500)).await;
        let made = lister.lists.load(Ordering::SeqCst) - before;
        assert!(made <= upstream::MAX_PAGES, "{mode:?}: {made} pages");
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert_eq!(lister.lists.load(Ordering::SeqCst) - before, made);
        let roster = gateway.roster();
        assert!(roster.entry("up.a").is_some(), "{mode:?}");
        assert_eq!(roster.entries.len(), 1, "{mode:?}");
    }
}

#[tokio::test]
async fn a_re_list_that_never_answers_times_out_and_never_blocks_another_upstream() {
    let gateway = Gateway::new(&config(
        &["stuck", "good"],
        json!({"startupTimeoutMs": 800}),
    ));
    let stuck = Lister::new();
    let good = Lister::new();
    connect_lister(&gateway, "stuck", &stuck).await.unwrap();
    connect_lister(&gateway, "good", &good).await.unwrap();
    let downstream = Client::default();
    let _client = client(&gateway, downstream.clone()).await;
    *stuck.mode.lock().unwrap() = Listing::Hang;
    let stuck_peer = stuck.peer.lock().unwrap().clone().unwrap();
    stuck_peer.notify_tool_list_changed().await.unwrap();
    tokio::time::sleep(Duration::from_millis(50)).await;
    // The good upstream's change goes through while the stuck one's re-list hangs.
    good.tools.lock().unwrap().push(tool("b"));
    let started = Instant::now();
    let good_peer = good.peer.lock().unwrap().clone().unwrap();
    good_peer.notify_tool_list_changed().await.unwrap();
    let g = gateway.clone();
    until("good.b", Duration::from_secs(5), || {
        g.roster().entry("good.b").is_some()
    })
    .await;
    assert!(
        started.elapsed() < Duration::from_millis(700),
        "{:?}",
        started.elapsed()
    );
    // The stuck re-list times out; its tools stay.
    tokio::time::sleep(Duration::from_millis(1000)).await;
    assert!(gateway.roster().entry("stuck.a").is_some());
    // A storm of notices coalesces: far fewer listings and downstream notices.
    let before = good.lists.load(Ordering::SeqCst);
    let notices_before = downstream.list_changed.load(Ordering::SeqCst);
    for _ in 0..500 {
        good_peer.notify_tool_list_changed().await.unwrap();
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let lists = good.lists.load(Ordering::SeqCst) - before;
    let notices = downstream.list_changed.load(Ordering::SeqCst) - notices_before;
    assert!(
        (1..100).contains(&lists),
        "{lists} listings for 500 notices"
    );
    assert!(
        (1..100).contains(&notices),
        "{notices} notices for 500 changes"
    );
}

/// A raw JSON-lines MCP server (no SDK: it sends what no SDK would) whose `bad` tool
/// answers with the line `bad_answer(kind, id)`.
async fn raw_server(stream: tokio::io::DuplexStream) {
    let (read, mut write) = tokio::io::split(stream);
    let mut lines = tokio::io::BufReader::new(read).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        let Ok(message) = serde_json::from_str::<Json>(&line) else {
            continue;
        };
        let id = message["id"].clone();
        let reply = match message["method"].as_str() {
            Some("initialize") => json!({"jsonrpc": "2.0", "id": id, "result": {
                "protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                "serverInfo": {"name": "raw", "version": "1"}}})
            .to_string(),
            Some("tools/list") => json!({"jsonrpc": "2.0", "id": id, "result": {"tools": [
                {"name": "bad", "inputSchema": {"type": "object",
                 "properties": {"kind": {"type": "string"}}}}]}})
            .to_string(),
            Some("tools/call") => {
                let kind = message["params"]["arguments"]["kind"]
                    .as_str()
                    .unwrap_or("");
                bad_answer(kind, &id)
            }
            _ => continue,
        };
        if write
            .write_all(format!("{reply}\n").as_bytes())
            .await
            .is_err()
        {
            return;
        }
    }
}

fn bad_answer(kind: &str, id: &Json) -> String {
    let result = |structured: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[],"structuredContent":{structured}}}}}"#
        )
    };
    match kind {
        "inf" => result("1e999"),
        "bigint" => result(&"9".repeat(400)),
        "nan" => result("NaN"),
        "deep" => result(&format!("{}{}", "[".repeat(200), "]".repeat(200))),
        "huge" => result(&format!("\"{}\"", "x".repeat(17 << 20))),
        // The id after a huge result: found by streaming past the bytes.
        "huge-late-id" => format!(
            r#"{{"jsonrpc":"2.0","result":{{"content":[{{"type":"text","text":"{}"}}]}},"id":{id}}}"#,
            "y".repeat(17 << 20)
        ),
        _ => result("{\"ok\": true}"),
    }
}

/// Each `(raw.bad :kind KIND)` fails in under 10 s with "could not be read" and `reason`.
async fn fails_at_once(client: &RunningService<RoleClient, Client>, cases: &[(&str, &str)]) {
    for (kind, reason) in cases {
        let started = Instant::now();
        let result = tool_call(client, &format!(r#"(raw.bad :kind "{kind}")"#)).await;
        let text = result["content"][0]["text"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        assert_eq!(result["isError"], json!(true), "{kind}: {result}");
        assert!(
            text.contains("could not be read") && text.contains(reason),
            "{kind}: {text}"
        );
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{kind}: {:?}",
            started.elapsed()
        );
    }
}

#[tokio::test]
async fn undecodable_answers_fail_their_call_at_once_with_the_reason() {
    let gateway = Gateway::new(&config(&["raw"], json!({})));
    let (ours, theirs) = tokio::io::duplex(1 << 16);
    tokio::spawn(raw_server(theirs));
    let (upstream, tools) =
        upstream::connect_stream("raw", ours, gateway.change_sender(), Duration::from_secs(5))
            .await
            .unwrap();
    gateway.add(upstream, tools);
    gateway.rebuild();
    let client = client(&gateway, Client::default()).await;
    fails_at_once(
        &client,
        &[
            ("inf", "number out of range"),
            ("bigint", "number out of range"),
            ("nan", "expected value"),
            ("deep", "recursion limit"),
            ("huge", "bytes; the limit is"),
            ("huge-late-id", "bytes; the limit is"),
        ],
    )
    .await;
    // The connection is still good.
    let result = tool_call(&client, r#"(raw.bad :kind "ok")"#).await;
    assert_eq!(result["structuredContent"], json!({"ok": true}), "{result}");
}

/// A raw streamable-HTTP MCP server (no SDK): JSON answers to `initialize` and
/// `tools/list`, 202 to notifications, 405 to the GET stream, and to a `tools/call` of its
/// `bad` tool an SSE stream whose one message frame is `bad_answer(kind, id)`, then held
/// open for a minute: rmcp alone drops such a frame and the call would wait.
async fn raw_http_upstream() -> std::net::SocketAddr {
    use axum::http::{StatusCode, header};
    use axum::response::IntoResponse as _;
    let app = axum::Router::new().route(
        "/mcp",
        axum::routing::post(|body: String| async move {
            let message: Json = serde_json::from_str(&body).unwrap_or_default();
            let id = message["id"].clone();
            let json_answer = |result: Json| {
                (
                    [(header::CONTENT_TYPE, "application/json")],
                    json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string(),
                )
                    .into_response()
            };
            match message["method"].as_str() {
                Some("initialize") => json_answer(json!({
                    "protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                    "serverInfo": {"name": "raw-http", "version": "1"}})),
                Some("tools/list") => json_answer(json!({"tools": [
                    {"name": "bad", "inputSchema": {"type": "object",
                     "properties": {"kind": {"type": "string"}}}}]})),
                Some("tools/call") => {
                    let kind = message["params"]["arguments"]["kind"]
                        .as_str()
                        .unwrap_or("")
                        .to_owned();
                    let frame = format!("data: {}\n\n", bad_answer(&kind, &message["id"]));
                    let stream =
                        futures::stream::once(
                            async move { Ok::<_, std::convert::Infallible>(frame) },
                        )
                        .chain(futures::stream::once(async {
                            tokio::time::sleep(Duration::from_secs(60)).await;
                            Ok(String::new())
                        }));
                    (
                        [(header::CONTENT_TYPE, "text/event-stream")],
                        axum::body::Body::from_stream(stream),
                    )
                        .into_response()
                }
                _ => StatusCode::ACCEPTED.into_response(),
            }
        })
        .get(|| async { StatusCode::METHOD_NOT_ALLOWED }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    addr
}

#[tokio::test]
async fn undecodable_answers_from_an_http_upstream_fail_their_call_at_once() {
    let addr = raw_http_upstream().await;
    let text = json!({"mcpServers": {"raw": {"url": format!("http://{addr}/mcp")}},
                      "ptc": {"startupTimeoutMs": 5000, "toolTimeoutMs": 30000}});
    let config = Config::parse("test.json", &text.to_string()).unwrap();
    let gateway = Gateway::start(&config).await;
    assert!(
        gateway.roster().entry("raw.bad").is_some(),
        "{:?}",
        gateway.roster().skipped
    );
    let client = client(&gateway, Client::default()).await;
    fails_at_once(
        &client,
        &[
            ("inf", "number out of range"),
            ("bigint", "number out of range"),
            ("nan", "expected value"),
            ("deep", "recursion limit"),
        ],
    )
    .await;
    gateway.shutdown().await;
}

/// Sends raw HTTP/1.1 `request` and returns the status line ("" when the server closed).
async fn http(addr: std::net::SocketAddr, request: &str) -> String {
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut answer = vec![0u8; 4096];
    let n = tokio::time::timeout(Duration::from_secs(5), stream.read(&mut answer))
        .await
        .expect("no answer")
        .unwrap_or(0);
    String::from_utf8_lossy(&answer[..n])
        .lines()
        .next()
        .unwrap_or_default()
        .to_owned()
}

const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}"#;

fn post(addr: std::net::SocketAddr, extra: &str) -> String {
    format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\n{extra}Content-Length: {}\r\n\
         Connection: close\r\n\r\n{INIT}",
        INIT.len()
    )
}

#[tokio::test]
async fn http_checks_origin_host_targets_sessions_and_slow_connections() {
    let gateway = Gateway::new(&config(&[], json!({})));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let limits = HttpLimits {
        connections: 4,
        header_timeout: Duration::from_millis(300),
        sessions: 3,
        session_idle: Duration::from_secs(60),
    };
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = tokio::spawn(ptc_mcp::serve_http_with(
        gateway.clone(),
        listener,
        async {
            let _ = stopped.await;
        },
        limits,
    ));
    assert!(http(addr, &post(addr, "")).await.contains("200"));
    // Another site's page: 403. Our own origin: served.
    let evil = http(addr, &post(addr, "Origin: https://evil.example\r\n")).await;
    assert!(evil.contains("403"), "{evil}");
    let own = http(addr, &post(addr, &format!("Origin: http://{addr}\r\n"))).await;
    assert!(own.contains("200"), "{own}");
    // Two Host headers, or a target naming another host: 400.
    let two = http(addr, &post(addr, "Host: evil.example\r\n")).await;
    assert!(two.contains("400"), "{two}");
    let absolute = post(addr, "").replacen("POST /mcp", "POST http://evil.example/mcp", 1);
    assert!(http(addr, &absolute).await.contains("400"));
    // DELETE of an unknown session: 404.
    let delete = format!(
        "DELETE /mcp HTTP/1.1\r\nHost: {addr}\r\nMcp-Session-Id: nope\r\nConnection: close\r\n\r\n"
    );
    let deleted = http(addr, &delete).await;
    assert!(deleted.contains("404"), "{deleted}");
    // Two sessions were opened above; a third is the last one allowed.
    assert!(http(addr, &post(addr, "")).await.contains("200"));
    let full = http(addr, &post(addr, "")).await;
    assert!(full.contains("503"), "{full}");
    // A connection that never finishes its head is closed after the header timeout.
    let mut slow = tokio::net::TcpStream::connect(addr).await.unwrap();
    slow.write_all(b"POST /mcp HTTP/1.1\r\n").await.unwrap();
    let mut buffer = [0u8; 256];
    let started = Instant::now();
    let read = tokio::time::timeout(Duration::from_secs(5), slow.read(&mut buffer))
        .await
        .expect("a stalled head was held open");
    assert!(matches!(read, Ok(_) | Err(_)));
    assert!(started.elapsed() < Duration::from_secs(3));
    // Past the connection cap, one more is closed at once.
    let mut idle = Vec::new();
    for _ in 0..4 {
        idle.push(tokio::net::TcpStream::connect(addr).await.unwrap());
    }
    tokio::time::sleep(Duration::from_millis(50)).await;
    let mut extra = tokio::net::TcpStream::connect(addr).await.unwrap();
    let n = tokio::time::timeout(Duration::from_secs(2), extra.read(&mut buffer))
        .await
        .expect("the connection past the cap was held")
        .unwrap_or(0);
    assert_eq!(n, 0);
    drop(idle);
    let _ = stop.send(());
    tokio::time::timeout(Duration::from_secs(10), serving)
        .await
        .expect("the HTTP server did not stop")
        .unwrap()
        .unwrap();
}

#[tokio::test]
async fn closed_http_sessions_do_not_keep_their_peers() {
    let gateway = Gateway::new(&config(&[], json!({})));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = tokio::spawn(ptc_mcp::serve_http_on(gateway.clone(), listener, async {
        let _ = stopped.await;
    }));
    for _ in 0..30 {
        let transport =
            rmcp::transport::StreamableHttpClientTransport::from_uri(format!("http://{addr}/mcp"));
        let client = Client::default().serve(transport).await.unwrap();
        client.cancel().await.unwrap();
    }
    let transport =
        rmcp::transport::StreamableHttpClientTransport::from_uri(format!("http://{addr}/mcp"));
    let last = Client::default().serve(transport).await.unwrap();
    let g = gateway.clone();
    until("closed peers to be dropped", Duration::from_secs(5), || {
        g.downstream_count() <= 3
    })
    .await;
    drop(last);
    let _ = stop.send(());
    let _ = tokio::time::timeout(Duration::from_secs(10), serving).await;
}
