//! The upstream side: one MCP client connection per configured server.
//!
//! [`connect`] spawns a stdio server as a child process (its stderr forwarded to ours, each
//! line prefixed with the server's name) or opens a streamable-HTTP connection, initializes
//! (protocol 2025-11-25, so list-change notifications arrive unsolicited), and lists every
//! tool, following pagination. An HTTP server gets the credentials its entry configures
//! ([`crate::credentials`]) and nothing else; a 401/403 from it says which to set. A `notifications/tools/list_changed` from the server is
//! forwarded as the server's name to the gateway ([`crate::gateway::ChangeSender`]).
//!
//! Every listing — at start-up and each re-list — is bounded: at most [`MAX_PAGES`] pages,
//! [`MAX_TOOLS`] tools and [`MAX_LISTING_BYTES`] bytes of tool definitions, no cursor seen
//! twice, and the caller's time limit; past any bound the listing fails with the reason
//! (and the gateway keeps the tools it had). A stdio server's lines go through
//! [`crate::frame::BoundedLines`], so an answer it sends that cannot be decoded fails its
//! request at once.
//!
//! Invariants:
//! - A child process lives inside its [`Upstream`]'s running service: dropping or closing
//!   the upstream kills it (rmcp's cleanup guard), and a child whose parent died sees EOF on
//!   its stdin, which ends a conforming stdio server.
//! - A nested call whose future is dropped (timeout, cancellation, a sibling's denial) sends
//!   `notifications/cancelled` upstream (rmcp's cancel-on-drop requests).

use crate::checked_http::CheckedClient;
use crate::client_credentials::{TokenClient, TokenSource};
use crate::config::{CaFile, ServerConfig, Transport};
use crate::frame::BoundedLines;
use crate::gateway::ChangeSender;
use axum::http::{HeaderName, HeaderValue};
use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientConfig, PaginatedRequestParams, Tool,
};
use rmcp::service::{NotificationContext, RunningService};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{IntoTransport, StreamableHttpClientTransport};
use rmcp::{ClientHandler, Peer, RoleClient, ServiceExt as _};
use serde_json::{Value as Json, json};
use std::collections::{HashMap, HashSet};
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::AsyncBufReadExt as _;

/// The most pages one listing follows.
pub const MAX_PAGES: usize = 100;
/// The most tools one listing takes.
pub const MAX_TOOLS: usize = 10_000;
/// The most bytes of tool definitions (their JSON) one listing takes.
pub const MAX_LISTING_BYTES: usize = 32 << 20;
/// The longest cursor followed, in bytes.
pub const MAX_CURSOR_BYTES: usize = 4096;

/// The client half we run against one upstream: it names itself `ptc` and reports list
/// changes.
#[derive(Debug, Clone)]
pub struct UpstreamClient {
    name: String,
    changed: ChangeSender,
}

impl ClientHandler for UpstreamClient {
    fn get_info(&self) -> ClientConfig {
        serde_json::from_value(json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "ptc", "version": env!("CARGO_PKG_VERSION")}
        }))
        .unwrap_or_default()
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        tracing::info!(server = %self.name, "upstream tool list changed");
        self.changed.notice(&self.name);
    }
}

/// A live upstream connection and its current tools.
#[derive(Debug)]
pub struct Upstream {
    /// The server's name in the configuration.
    pub name: String,
    service: tokio::sync::Mutex<Option<RunningService<RoleClient, UpstreamClient>>>,
    peer: Peer<RoleClient>,
    /// A stdio server's process (killed when dropped).
    child: tokio::sync::Mutex<Option<tokio::process::Child>>,
}

impl Upstream {
    /// The peer to send requests on (cloneable; many calls may be in flight).
    #[must_use]
    pub fn peer(&self) -> Peer<RoleClient> {
        self.peer.clone()
    }

    /// Lists every tool, following pagination, within `within` and the bounds in the
    /// module docs.
    ///
    /// # Errors
    /// The transport's or the server's error, or the bound passed, as text.
    pub async fn list_tools(&self, within: Duration) -> Result<Vec<Tool>, String> {
        tokio::time::timeout(within, list_pages(&self.peer))
            .await
            .unwrap_or_else(|_| {
                Err(format!(
                    "tools/list did not finish within {} ms",
                    within.as_millis()
                ))
            })
    }

    /// Closes the connection; a child process is asked to exit (its stdin closes) and
    /// killed if it has not within two seconds.
    pub async fn close(&self) {
        if let Some(mut service) = self.service.lock().await.take() {
            let _ = service.close().await;
        }
        if let Some(mut child) = self.child.lock().await.take() {
            let ended = tokio::time::timeout(Duration::from_secs(2), child.wait()).await;
            if ended.is_err() {
                let _ = child.kill().await;
            }
        }
    }
}

/// The pages of `tools/list`, bounded (see the module docs).
async fn list_pages(peer: &Peer<RoleClient>) -> Result<Vec<Tool>, String> {
    let mut tools = Vec::new();
    let mut bytes = 0usize;
    let mut seen = HashSet::new();
    let mut cursor: Option<String> = None;
    for _ in 0..MAX_PAGES {
        let params = cursor
            .take()
            .map(|c| PaginatedRequestParams::default().with_cursor(Some(c)));
        let page = peer
            .list_tools(params)
            .await
            .map_err(|e| format!("tools/list failed: {e}"))?;
        for tool in page.tools {
            bytes = bytes.saturating_add(serde_json::to_vec(&tool).map_or(0, |v| v.len()));
            if tools.len() >= MAX_TOOLS {
                return Err(format!("tools/list gave more than {MAX_TOOLS} tools"));
            }
            if bytes > MAX_LISTING_BYTES {
                return Err(format!(
                    "tools/list gave more than {MAX_LISTING_BYTES} bytes of tool definitions"
                ));
            }
            tools.push(tool);
        }
        match page.next_cursor {
            None => return Ok(tools),
            Some(next) => {
                if next.len() > MAX_CURSOR_BYTES {
                    return Err(format!(
                        "tools/list gave a cursor of {} bytes; the limit is {MAX_CURSOR_BYTES}",
                        next.len()
                    ));
                }
                if !seen.insert(next.clone()) {
                    return Err("tools/list gave the same cursor twice".to_owned());
                }
                cursor = Some(next);
            }
        }
    }
    Err(format!("tools/list gave more than {MAX_PAGES} pages"))
}

/// Calls `tool` on `peer` with `arguments`; the raw result or the error as text. For nested
/// call `call_id`, `_meta` carries the trace context of its `execute_tool` span when an
/// exporter installed the propagation hook ([`crate::propagation`]).
///
/// # Errors
/// A JSON-RPC error or a dead transport, as text.
pub async fn call(
    peer: &Peer<RoleClient>,
    tool: &str,
    arguments: &Json,
    call_id: Option<&str>,
) -> Result<CallToolResult, String> {
    let mut params = CallToolRequestParams::new(tool.to_owned());
    if let Json::Object(map) = arguments {
        params = params.with_arguments(map.clone());
    }
    if let Some((traceparent, tracestate)) = call_id.and_then(crate::propagation::of_call) {
        let meta = params.meta.get_or_insert_with(Default::default);
        meta.set_traceparent(traceparent);
        if let Some(tracestate) = tracestate {
            meta.set_tracestate(tracestate);
        }
    }
    peer.call_tool(params).await.map_err(|e| e.to_string())
}

/// Connects to `server`, initializes and checks that it answers `tools/list` (within
/// `within`).
///
/// # Errors
/// Why it could not start, initialize or list, as text.
pub async fn connect(
    server: &ServerConfig,
    changed: ChangeSender,
    within: Duration,
) -> Result<(Arc<Upstream>, Vec<Tool>), String> {
    match &server.transport {
        Transport::Stdio {
            command,
            args,
            env,
            cwd,
        } => {
            let mut cmd = tokio::process::Command::new(command);
            cmd.args(args)
                .envs(env)
                .kill_on_drop(true)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped());
            if let Some(cwd) = cwd {
                cmd.current_dir(cwd);
            }
            let mut child = cmd
                .spawn()
                .map_err(|e| format!("cannot start `{command}`: {e}"))?;
            if let Some(stderr) = child.stderr.take() {
                forward_stderr(server.name.clone(), stderr);
            }
            let (Some(stdout), Some(stdin)) = (child.stdout.take(), child.stdin.take()) else {
                return Err(format!("`{command}` started without its pipes"));
            };
            let transport = BoundedLines::new(stdout, stdin);
            let connected = connect_transport(&server.name, transport, changed, within).await;
            if let Ok((upstream, _)) = &connected {
                *upstream.child.lock().await = Some(child);
            }
            connected
        }
        Transport::Http {
            url,
            headers,
            bearer,
            ca,
            client_credentials,
        } => {
            let mut config = StreamableHttpClientTransportConfig::with_uri(url.as_str());
            let mut custom = HashMap::new();
            for (name, value) in headers {
                // Checked when the configuration was read; the value is never shown.
                let name = HeaderName::from_bytes(name.as_bytes())
                    .map_err(|_| format!("header {name}: not a valid name"))?;
                let mut value = HeaderValue::from_str(value.expose())
                    .map_err(|_| format!("header {name}: not a valid value"))?;
                value.set_sensitive(true);
                custom.insert(name, value);
            }
            config = config.custom_headers(custom);
            if let Some(token) = bearer {
                config = config.auth_header(token.expose());
            }
            let credentials = bearer.is_some() || !headers.is_empty();
            if let Some(cc) = client_credentials {
                let client = match ca {
                    None => default_client()?,
                    Some(ca) => client_for(ca)?,
                };
                let source = Arc::new(TokenSource::new(cc.clone())?);
                // Exchange now, so a refusal says so instead of failing initialize.
                source.token().await?;
                let transport = StreamableHttpClientTransport::with_client(
                    CheckedClient::new(TokenClient::new(client.clone(), source)),
                    config,
                );
                return match connect_transport(&server.name, transport, changed, within).await {
                    Err(error) if error.contains("error sending request") => {
                        Err(format!("{error}{}", probe(&client, url).await))
                    }
                    other => other.map_err(|error| explain_http_refusal(error, true)),
                };
            }
            // Without a CA file, a client like rmcp's own (same-origin redirects only);
            // either way every answer is checked ([`CheckedClient`]).
            let (transport, client) = match ca {
                None => (
                    StreamableHttpClientTransport::with_client(
                        CheckedClient::new(same_origin_client()?),
                        config,
                    ),
                    default_client()?,
                ),
                Some(ca) => {
                    let client = client_for(ca)?;
                    (
                        StreamableHttpClientTransport::with_client(
                            CheckedClient::new(client.clone()),
                            config,
                        ),
                        client,
                    )
                }
            };
            match connect_transport(&server.name, transport, changed, within).await {
                Ok(connected) => Ok(connected),
                Err(error) if error.contains("error sending request") => {
                    Err(format!("{error}{}", probe(&client, url).await))
                }
                Err(error) => Err(explain_http_refusal(error, credentials)),
            }
        }
    }
}

/// rmcp's default upstream client, rebuilt (its constructor is private): no idle pooling
/// (a reused connection stalled on delayed ACKs) and redirects followed only to the same
/// origin, at most ten.
fn same_origin_client() -> Result<reqwest::Client, String> {
    let policy = reqwest::redirect::Policy::custom(|attempt| {
        let same_origin = attempt.previous().first().is_some_and(|first| {
            let next = attempt.url();
            first.scheme() == next.scheme()
                && first.host_str() == next.host_str()
                && first.port_or_known_default() == next.port_or_known_default()
        });
        if attempt.previous().len() > 10 || !same_origin {
            attempt.stop()
        } else {
            attempt.follow()
        }
    });
    reqwest::Client::builder()
        .pool_max_idle_per_host(0)
        .redirect(policy)
        .build()
        .map_err(|e| format!("cannot build the HTTP client: {e}"))
}

/// An HTTP client like rmcp's default one (rustls with the system's roots), to probe with.
fn default_client() -> Result<reqwest::Client, String> {
    reqwest::Client::builder()
        .pool_max_idle_per_host(0)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|e| format!("cannot build the HTTP client: {e}"))
}

/// Why `url` cannot be reached at all (rmcp's error does not carry the cause, e.g. an
/// untrusted TLS certificate): one bare request's error with its causes, or nothing.
async fn probe(client: &reqwest::Client, url: &str) -> String {
    match tokio::time::timeout(Duration::from_secs(5), client.get(url).send()).await {
        Ok(Err(error)) => format!(" (cause: {})", with_causes(&error)),
        _ => String::new(),
    }
}

/// `error` and the causes under it, each once.
fn with_causes(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut cause = error.source();
    while let Some(inner) = cause {
        let line = inner.to_string();
        if !text.contains(&line) {
            text.push_str(": ");
            text.push_str(&line);
        }
        cause = inner.source();
    }
    text
}

/// The HTTP client of a server with its own CA file: TLS (rustls) trusting only those
/// certificates, no idle connections kept (as rmcp's default client), and no redirects
/// followed, so the configured credentials go to the configured origin only.
fn client_for(ca: &CaFile) -> Result<reqwest::Client, String> {
    let certs = reqwest::Certificate::from_pem_bundle(&ca.pem)
        .map_err(|e| format!("caFile {}: {e}", ca.path.display()))?;
    reqwest::Client::builder()
        .pool_max_idle_per_host(0)
        .redirect(reqwest::redirect::Policy::none())
        .tls_certs_only(certs)
        .build()
        .map_err(|e| {
            format!(
                "caFile {}: cannot build the HTTP client: {e}",
                ca.path.display()
            )
        })
}

/// `error` with what to do about it when an HTTP upstream refused us (401 or 403):
/// configure credentials, or check the ones configured.
fn explain_http_refusal(error: String, credentials: bool) -> String {
    let refused = [
        "Auth required",
        "authorization required",
        "Insufficient scope",
    ]
    .iter()
    .any(|needle| error.contains(needle));
    if !refused {
        return error;
    }
    if credentials {
        format!(
            "{error} (the server refused the configured credentials: check its `headers` / \
             `bearerTokenEnv` / `bearerTokenFile` / `oauthClientCredentials`)"
        )
    } else {
        format!(
            "{error} (the server requires credentials: give it `headers`, `bearerTokenEnv` or \
             `bearerTokenFile` in mcpServers)"
        )
    }
}

/// Connects over a byte stream (one half of an in-process pipe, a socket) with the
/// bounded line transport ([`BoundedLines`]), initializes and lists within `within`.
///
/// # Errors
/// Why it could not initialize or list, as text.
pub async fn connect_stream<S>(
    name: &str,
    stream: S,
    changed: ChangeSender,
    within: Duration,
) -> Result<(Arc<Upstream>, Vec<Tool>), String>
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Send + 'static,
{
    let (read, write) = tokio::io::split(stream);
    connect_transport(name, BoundedLines::new(read, write), changed, within).await
}

/// Initializes an MCP client over `transport` (any rmcp client transport) and lists its
/// tools within `within`.
///
/// # Errors
/// Why it could not initialize or list, as text.
pub async fn connect_transport<T, E, A>(
    name: &str,
    transport: T,
    changed: ChangeSender,
    within: Duration,
) -> Result<(Arc<Upstream>, Vec<Tool>), String>
where
    T: IntoTransport<RoleClient, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    let client = UpstreamClient {
        name: name.to_owned(),
        changed,
    };
    let service = client
        .serve(transport)
        .await
        .map_err(|e| format!("initialize failed: {e}"))?;
    let peer = service.peer().clone();
    let upstream = Arc::new(Upstream {
        name: name.to_owned(),
        service: tokio::sync::Mutex::new(Some(service)),
        peer,
        child: tokio::sync::Mutex::new(None),
    });
    match upstream.list_tools(within).await {
        Ok(tools) => Ok((upstream, tools)),
        Err(error) => {
            upstream.close().await;
            Err(error)
        }
    }
}

/// The longest stderr line of an upstream copied whole; a longer one is copied in pieces
/// of this size, so a child that never ends a line cannot grow our memory.
pub const MAX_STDERR_LINE: usize = 16 << 10;

/// Copies the child's stderr to ours, one `[NAME] line` per line (bounded pieces).
fn forward_stderr(name: String, stderr: tokio::process::ChildStderr) {
    tokio::spawn(async move {
        let mut reader = tokio::io::BufReader::new(stderr);
        let mut line = Vec::new();
        loop {
            let (used, ended) = match reader.fill_buf().await {
                Ok([]) | Err(_) => break,
                Ok(buffer) => {
                    let room = MAX_STDERR_LINE - line.len();
                    match buffer.iter().take(room).position(|&b| b == b'\n') {
                        Some(at) => {
                            line.extend_from_slice(&buffer[..at]);
                            (at + 1, true)
                        }
                        None => {
                            let take = buffer.len().min(room);
                            line.extend_from_slice(&buffer[..take]);
                            (take, line.len() >= MAX_STDERR_LINE)
                        }
                    }
                }
            };
            reader.consume(used);
            if ended {
                eprintln!("[{name}] {}", String::from_utf8_lossy(&line));
                line.clear();
            }
        }
        if !line.is_empty() {
            eprintln!("[{name}] {}", String::from_utf8_lossy(&line));
        }
    });
}
