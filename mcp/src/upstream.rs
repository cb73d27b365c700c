//! The upstream side: one MCP client connection per configured server.
//!
//! [`connect`] spawns a stdio server as a child process (its stderr forwarded to ours, each
//! line prefixed with the server's name) or opens a streamable-HTTP connection, initializes
//! (protocol 2025-11-25, so list-change notifications arrive unsolicited), and lists every
//! tool, following pagination. A `notifications/tools/list_changed` from the server is
//! forwarded as the server's name on the gateway's channel.
//!
//! Invariants:
//! - A child process lives inside its [`Upstream`]'s running service: dropping or closing
//!   the upstream kills it (rmcp's cleanup guard), and a child whose parent died sees EOF on
//!   its stdin, which ends a conforming stdio server.
//! - A nested call whose future is dropped (timeout, cancellation, a sibling's denial) sends
//!   `notifications/cancelled` upstream (rmcp's cancel-on-drop requests).

use crate::config::{ServerConfig, Transport};
use rmcp::model::{CallToolRequestParams, CallToolResult, ClientConfig, Tool};
use rmcp::service::{NotificationContext, RunningService};
use rmcp::transport::{IntoTransport, StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ClientHandler, Peer, RoleClient, ServiceExt as _};
use serde_json::{Value as Json, json};
use std::process::Stdio;
use std::sync::Arc;
use tokio::io::AsyncBufReadExt as _;
use tokio::sync::mpsc;

/// The client half we run against one upstream: it names itself `ptc` and reports list
/// changes.
#[derive(Debug, Clone)]
pub struct UpstreamClient {
    name: String,
    changed: mpsc::UnboundedSender<String>,
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
        let _ = self.changed.send(self.name.clone());
    }
}

/// A live upstream connection and its current tools.
#[derive(Debug)]
pub struct Upstream {
    /// The server's name in the configuration.
    pub name: String,
    service: tokio::sync::Mutex<Option<RunningService<RoleClient, UpstreamClient>>>,
    peer: Peer<RoleClient>,
}

impl Upstream {
    /// The peer to send requests on (cloneable; many calls may be in flight).
    #[must_use]
    pub fn peer(&self) -> Peer<RoleClient> {
        self.peer.clone()
    }

    /// Lists every tool, following pagination.
    ///
    /// # Errors
    /// The transport's or the server's error, as text.
    pub async fn list_tools(&self) -> Result<Vec<Tool>, String> {
        self.peer
            .list_all_tools()
            .await
            .map_err(|e| format!("tools/list failed: {e}"))
    }

    /// Closes the connection; a child process is asked to exit and killed if it does not.
    pub async fn close(&self) {
        if let Some(mut service) = self.service.lock().await.take() {
            let _ = service.close().await;
        }
    }
}

/// Calls `tool` on `peer` with `arguments`; the raw result or the error as text.
///
/// # Errors
/// A JSON-RPC error or a dead transport, as text.
pub async fn call(
    peer: &Peer<RoleClient>,
    tool: &str,
    arguments: &Json,
) -> Result<CallToolResult, String> {
    let mut params = CallToolRequestParams::new(tool.to_owned());
    if let Json::Object(map) = arguments {
        params = params.with_arguments(map.clone());
    }
    peer.call_tool(params).await.map_err(|e| e.to_string())
}

/// Connects to `server`, initializes and checks that it answers `tools/list`.
///
/// # Errors
/// Why it could not start, initialize or list, as text.
pub async fn connect(
    server: &ServerConfig,
    changed: mpsc::UnboundedSender<String>,
) -> Result<(Arc<Upstream>, Vec<Tool>), String> {
    match &server.transport {
        Transport::Stdio {
            command,
            args,
            env,
            cwd,
        } => {
            let mut cmd = tokio::process::Command::new(command);
            cmd.args(args).envs(env).kill_on_drop(true);
            if let Some(cwd) = cwd {
                cmd.current_dir(cwd);
            }
            let (transport, stderr) = TokioChildProcess::builder(cmd)
                .stderr(Stdio::piped())
                .spawn()
                .map_err(|e| format!("cannot start `{command}`: {e}"))?;
            if let Some(stderr) = stderr {
                forward_stderr(server.name.clone(), stderr);
            }
            connect_transport(&server.name, transport, changed).await
        }
        Transport::Http { url } => {
            let transport = StreamableHttpClientTransport::from_uri(url.as_str());
            connect_transport(&server.name, transport, changed).await
        }
    }
}

/// Initializes an MCP client over `transport` (any rmcp client transport, e.g. one half
/// of an in-process duplex pipe) and lists its tools.
///
/// # Errors
/// Why it could not initialize or list, as text.
pub async fn connect_transport<T, E, A>(
    name: &str,
    transport: T,
    changed: mpsc::UnboundedSender<String>,
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
    });
    match upstream.list_tools().await {
        Ok(tools) => Ok((upstream, tools)),
        Err(error) => {
            upstream.close().await;
            Err(error)
        }
    }
}

/// Copies the child's stderr to ours, one `[NAME] line` per line.
fn forward_stderr(name: String, stderr: tokio::process::ChildStderr) {
    tokio::spawn(async move {
        let mut lines = tokio::io::BufReader::new(stderr).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            eprintln!("[{name}] {line}");
        }
    });
}
