//! ptc as an MCP code-mode server over any MCP servers (spec/reference/mcp.md).
//!
//! `ptc mcp --config FILE` reads an `mcpServers` configuration ([`config`]), connects to
//! every upstream server ([`upstream`]), registers their tools as `SERVER.TOOL` in one
//! roster ([`gateway`]) and serves two tools, ToolCall and ToolSearch, over stdio or
//! streamable HTTP ([`server`], [`serve_stdio`], [`serve_http`]). Upstream results enter
//! scripts through [`mapping`]; [`search`] ranks contracts for ToolSearch.
//!
//! rmcp, whose API changes between majors, is used only inside this crate.
//!
//! Invariants:
//! - Standard output carries MCP messages only (stdio); logs go through `tracing`.
//! - Upstream child processes end with the server: on EOF of our stdin, on SIGTERM or
//!   SIGINT (closed and killed), and when we crash (their stdin reaches EOF).

#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod config;
pub mod gateway;
pub mod mapping;
pub mod search;
pub mod server;
pub mod upstream;

pub use config::{Config, ConfigError};
pub use gateway::Gateway;
pub use server::PtcServer;

use rmcp::ServiceExt as _;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use std::net::SocketAddr;
use std::sync::Arc;

/// Why serving stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The downstream client never completed the MCP handshake.
    #[error("MCP handshake with the client failed: {0}")]
    Handshake(String),
    /// The HTTP listener could not start.
    #[error("cannot listen on {addr}: {message}")]
    Listen {
        /// The address.
        addr: SocketAddr,
        /// The OS error.
        message: String,
    },
}

/// Resolves when the process is asked to stop (SIGTERM or SIGINT).
async fn stop_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = term.recv() => {}
                    _ = tokio::signal::ctrl_c() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

/// Serves MCP on stdin/stdout until the client disconnects or a stop signal arrives, then
/// closes every upstream.
///
/// # Errors
/// [`ServeError::Handshake`] when the client's initialize fails.
pub async fn serve_stdio(config: &Config) -> Result<(), ServeError> {
    let gateway = Gateway::start(config).await;
    let result = serve_stdio_on(gateway.clone()).await;
    gateway.shutdown().await;
    result
}

async fn serve_stdio_on(gateway: Arc<Gateway>) -> Result<(), ServeError> {
    let server = PtcServer::new(gateway)
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| ServeError::Handshake(e.to_string()))?;
    let stop = server.cancellation_token();
    tokio::select! {
        quit = server.waiting() => {
            tracing::info!("client disconnected: {quit:?}");
        }
        () = stop_signal() => {
            tracing::info!("stop signal: shutting down");
            stop.cancel();
        }
    }
    Ok(())
}

/// Serves streamable HTTP at `http://ADDR/mcp` until a stop signal arrives, then closes
/// every upstream. Only loopback `Host` headers are accepted (rmcp's default).
///
/// # Errors
/// [`ServeError::Listen`] when the address cannot be bound.
pub async fn serve_http(config: &Config, addr: SocketAddr) -> Result<(), ServeError> {
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| ServeError::Listen {
            addr,
            message: e.to_string(),
        })?;
    let gateway = Gateway::start(config).await;
    let bound = listener.local_addr().unwrap_or(addr);
    tracing::info!("serving MCP over streamable HTTP at http://{bound}/mcp");
    let result = serve_http_on(gateway.clone(), listener, stop_signal()).await;
    gateway.shutdown().await;
    result
}

/// Serves streamable HTTP for `gateway` on `listener` until `stop` resolves.
///
/// # Errors
/// [`ServeError::Listen`] when the listener fails.
pub async fn serve_http_on(
    gateway: Arc<Gateway>,
    listener: tokio::net::TcpListener,
    stop: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<(), ServeError> {
    let addr = listener
        .local_addr()
        .unwrap_or_else(|_| SocketAddr::from(([127, 0, 0, 1], 0)));
    let config = StreamableHttpServerConfig::default();
    let cancel = config.cancellation_token.clone();
    let service = StreamableHttpService::new(
        move || Ok(PtcServer::new(gateway.clone())),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let router = axum::Router::new().nest_service("/mcp", service);
    axum::serve(listener, router)
        .with_graceful_shutdown(async move {
            stop.await;
            cancel.cancel();
        })
        .await
        .map_err(|e| ServeError::Listen {
            addr,
            message: e.to_string(),
        })
}
