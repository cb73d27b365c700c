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
//! - Over HTTP ([`serve_http_with`], [`HttpLimits`]): at most [`MAX_CONNECTIONS`]
//!   connections (one more is closed at once), each with [`HEADER_TIMEOUT`] to send its
//!   request head; at most [`MAX_SESSIONS`] sessions (a new one past that gets 503), each
//!   closed after [`SESSION_IDLE`] without traffic; a request with two `Host` headers, or whose
//!   absolute-form target names another host than its `Host`, gets 400; an `Origin` other
//!   than the server's own gets 403 (MCP streamable HTTP: servers MUST validate it);
//!   `DELETE` of a session that does not exist gets 404.
//! - Over HTTP with an auth mode ([`auth::HttpAuth`], [`serve_http_secured`]): every
//!   request to `/mcp` proves itself (a static bearer token or an OAuth access token)
//!   before anything else about it is looked at but its `Host`. In every mode a request's
//!   `Authorization` header is removed before the MCP service sees it, so no inbound token
//!   reaches an upstream; upstreams get only the credentials their configuration gives
//!   ([`credentials`], [`client_credentials`]).

#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod auth;
pub mod checked_http;
pub mod client_credentials;
pub mod config;
pub mod credentials;
pub mod frame;
pub mod gateway;
pub mod mapping;
pub mod propagation;
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
use std::time::Duration;

/// The most HTTP connections served at once.
pub const MAX_CONNECTIONS: usize = 512;
/// How long a connection may take to send a request's head.
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(10);
/// The most MCP sessions open at once over HTTP.
pub const MAX_SESSIONS: usize = 256;
/// A session without traffic for this long is closed.
pub const SESSION_IDLE: Duration = Duration::from_secs(120);

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
/// every upstream. Only loopback `Host` headers are accepted (rmcp's default), and the
/// host of `auth`'s public URL; requests are admitted as `auth` says.
///
/// # Errors
/// [`ServeError::Listen`] when the address cannot be bound.
pub async fn serve_http(
    config: &Config,
    addr: SocketAddr,
    auth: auth::HttpAuth,
) -> Result<(), ServeError> {
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| ServeError::Listen {
            addr,
            message: e.to_string(),
        })?;
    let gateway = Gateway::start(config).await;
    let bound = listener.local_addr().unwrap_or(addr);
    tracing::info!("serving MCP over streamable HTTP at http://{bound}/mcp");
    if let auth::AuthMode::OAuth(oauth) = &auth.mode
        && let Err(error) = oauth.load_keys().await
    {
        tracing::warn!("the issuer's keys could not be loaded yet ({error}); retried per request");
    }
    let result = serve_http_secured(
        gateway.clone(),
        listener,
        stop_signal(),
        HttpLimits::default(),
        Arc::new(auth),
    )
    .await;
    gateway.shutdown().await;
    result
}

/// The limits of `ptc mcp --http` (the defaults are the constants above).
#[derive(Debug, Clone, Copy)]
pub struct HttpLimits {
    /// Connections served at once.
    pub connections: usize,
    /// Time to send a request's head.
    pub header_timeout: Duration,
    /// Sessions open at once.
    pub sessions: usize,
    /// Idle time after which a session closes.
    pub session_idle: Duration,
}

impl Default for HttpLimits {
    fn default() -> Self {
        HttpLimits {
            connections: MAX_CONNECTIONS,
            header_timeout: HEADER_TIMEOUT,
            sessions: MAX_SESSIONS,
            session_idle: SESSION_IDLE,
        }
    }
}

/// Serves streamable HTTP for `gateway` on `listener` until `stop` resolves, with the
/// default [`HttpLimits`].
///
/// # Errors
/// [`ServeError::Listen`] when the listener's address cannot be read.
pub async fn serve_http_on(
    gateway: Arc<Gateway>,
    listener: tokio::net::TcpListener,
    stop: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<(), ServeError> {
    serve_http_with(gateway, listener, stop, HttpLimits::default()).await
}

/// Serves streamable HTTP for `gateway` on `listener` until `stop` resolves, within
/// `limits` (see the module docs).
///
/// # Errors
/// [`ServeError::Listen`] when the listener's address cannot be read.
pub async fn serve_http_with(
    gateway: Arc<Gateway>,
    listener: tokio::net::TcpListener,
    stop: impl std::future::Future<Output = ()> + Send + 'static,
    limits: HttpLimits,
) -> Result<(), ServeError> {
    serve_http_secured(
        gateway,
        listener,
        stop,
        limits,
        Arc::new(auth::HttpAuth::none()),
    )
    .await
}

/// Serves streamable HTTP for `gateway` on `listener` until `stop` resolves, within
/// `limits`, admitting requests as `auth` says (see the module docs).
///
/// # Errors
/// [`ServeError::Listen`] when the listener's address cannot be read.
pub async fn serve_http_secured(
    gateway: Arc<Gateway>,
    listener: tokio::net::TcpListener,
    stop: impl std::future::Future<Output = ()> + Send + 'static,
    limits: HttpLimits,
    auth: Arc<auth::HttpAuth>,
) -> Result<(), ServeError> {
    let addr = listener.local_addr().map_err(|e| ServeError::Listen {
        addr: SocketAddr::from(([127, 0, 0, 1], 0)),
        message: e.to_string(),
    })?;
    let port = addr.port();
    let mut origins = vec![
        format!("http://127.0.0.1:{port}"),
        format!("http://localhost:{port}"),
        format!("http://[::1]:{port}"),
    ];
    let mut config = StreamableHttpServerConfig::default();
    if let Some(public) = &auth.public_url {
        origins.push(public.origin());
        config.allowed_hosts.extend(public.hosts());
    }
    let config = config
        .with_allowed_origins(origins)
        .enforce_origin_validation();
    let cancel = config.cancellation_token.clone();
    let mut manager = LocalSessionManager::default();
    manager.session_config.keep_alive = Some(limits.session_idle);
    let sessions = Arc::new(manager);
    let service = StreamableHttpService::new(
        move || Ok(PtcServer::new(gateway.clone())),
        sessions.clone(),
        config,
    );
    let mut router = axum::Router::new().nest_service("/mcp", service);
    if let Some(metadata) = auth.metadata() {
        let metadata = Arc::new(metadata);
        for path in auth.metadata_paths() {
            let metadata = metadata.clone();
            router = router.route(
                &path,
                axum::routing::get(move || async move { auth::json_body(&metadata) }),
            );
        }
    }
    let router = router.layer(axum::middleware::from_fn(move |request, next| {
        http_guard(
            sessions.clone(),
            limits.sessions,
            auth.clone(),
            request,
            next,
        )
    }));
    let permits = Arc::new(tokio::sync::Semaphore::new(limits.connections));
    let mut connections = tokio::task::JoinSet::new();
    tokio::pin!(stop);
    loop {
        tokio::select! {
            () = &mut stop => break,
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
            accepted = listener.accept() => {
                let stream = match accepted {
                    Ok((stream, _)) => stream,
                    Err(error) => {
                        // Out of descriptors and the like: pause rather than spin.
                        tracing::warn!("accept failed: {error}");
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        continue;
                    }
                };
                let Ok(permit) = permits.clone().try_acquire_owned() else {
                    tracing::warn!("{} connections open: one more closed", limits.connections);
                    drop(stream);
                    continue;
                };
                let service = hyper_util::service::TowerToHyperService::new(router.clone());
                connections.spawn(async move {
                    let _permit = permit;
                    let connection = hyper::server::conn::http1::Builder::new()
                        .timer(hyper_util::rt::TokioTimer::new())
                        .header_read_timeout(limits.header_timeout)
                        .serve_connection(hyper_util::rt::TokioIo::new(stream), service);
                    if let Err(error) = connection.await {
                        tracing::debug!("HTTP connection ended: {error}");
                    }
                });
            }
        }
    }
    cancel.cancel();
    let drained = async { while connections.join_next().await.is_some() {} };
    if tokio::time::timeout(Duration::from_secs(2), drained)
        .await
        .is_err()
    {
        connections.abort_all();
    }
    Ok(())
}

/// The HTTP checks rmcp does not make (see the module docs).
async fn http_guard(
    sessions: Arc<LocalSessionManager>,
    cap: usize,
    auth: Arc<auth::HttpAuth>,
    mut request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    use axum::http::{StatusCode, header};
    use axum::response::IntoResponse as _;
    let headers = request.headers();
    let hosts: Vec<_> = headers.get_all(header::HOST).iter().collect();
    if hosts.len() > 1 {
        return (
            StatusCode::BAD_REQUEST,
            "Bad Request: more than one Host header",
        )
            .into_response();
    }
    if let Some(authority) = request.uri().authority() {
        let same = hosts
            .first()
            .and_then(|h| h.to_str().ok())
            .is_some_and(|h| h.eq_ignore_ascii_case(authority.as_str()));
        if !same {
            return (
                StatusCode::BAD_REQUEST,
                "Bad Request: the request target names another host than Host",
            )
                .into_response();
        }
    }
    if !request.uri().path().starts_with("/.well-known/")
        && let Err(refused) = auth.admit(&mut request).await
    {
        return refused;
    }
    let headers = request.headers();
    let session = headers
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let method = request.method().clone();
    if method == axum::http::Method::DELETE
        && let Some(id) = &session
        && !sessions.sessions.read().await.contains_key(id.as_str())
    {
        return (StatusCode::NOT_FOUND, "Not Found: no such session").into_response();
    }
    if method == axum::http::Method::POST
        && session.is_none()
        && sessions.sessions.read().await.len() >= cap
    {
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            [(header::RETRY_AFTER, "5")],
            format!("Service Unavailable: {cap} sessions are open"),
        )
            .into_response();
    }
    next.run(request).await
}
