//! Credentials for HTTP upstreams (mcp/src/credentials.rs): a real rmcp streamable-HTTP
//! server on loopback that requires a bearer token and an API-key header; the gateway
//! reaches it with the configured ones, says clearly what is missing without them, and
//! never passes a downstream client's own token on. The same server over HTTPS (rustls,
//! the test CA in tests/data/tls) is reached with its `caFile` and refused without it.

use ptc_mcp::auth::{AuthMode, HttpAuth, StaticToken};
use ptc_mcp::{Config, Gateway, HttpLimits, upstream};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ListToolsResult,
    PaginatedRequestParams, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt as _};
use serde_json::{Value as Json, json};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

const UP_TOKEN: &str = "upstream-secret-token-1";
const UP_KEY: &str = "key-42";
const INBOUND: &str = "inbound-client-token-0123";

#[derive(Clone)]
struct Upstream;

impl ServerHandler for Upstream {
    fn get_info(&self) -> ServerConfig {
        serde_json::from_value(json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "guarded", "version": "1"}
        }))
        .unwrap()
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(serde_json::from_value(json!({"tools": [{
            "name": "secret", "description": "A guarded answer.",
            "inputSchema": {"type": "object", "properties": {}}}]}))
        .unwrap())
    }

    async fn call_tool(
        &self,
        _request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let result: CallToolResult = serde_json::from_value(
            json!({"content": [{"type": "text", "text": "42"}], "structuredContent": {"answer": 42}}),
        )
        .unwrap();
        Ok(result.into())
    }
}

/// Serves [`Upstream`] at `http://ADDR/mcp`, admitting only requests with the bearer
/// token and the API key; every `Authorization` value it saw is recorded.
async fn guarded_upstream() -> (SocketAddr, Arc<Mutex<Vec<String>>>) {
    let (app, seen) = guarded_app();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    (addr, seen)
}

/// The guarded app over TLS with the test server certificate (tests/data/tls).
async fn guarded_https_upstream() -> SocketAddr {
    use tokio_rustls::rustls;
    use tokio_rustls::rustls::pki_types::pem::PemObject as _;
    use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};
    let data = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/tls");
    let certs: Vec<CertificateDer<'static>> =
        CertificateDer::pem_file_iter(format!("{data}/server.pem"))
            .unwrap()
            .map(Result::unwrap)
            .collect();
    let key = PrivateKeyDer::from_pem_file(format!("{data}/server.key")).unwrap();
    let tls = rustls::ServerConfig::builder()
        .with_no_client_auth()
        .with_single_cert(certs, key)
        .unwrap();
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(tls));
    let (app, _) = guarded_app();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                continue;
            };
            let (acceptor, app) = (acceptor.clone(), app.clone());
            tokio::spawn(async move {
                // A client that does not trust us ends the handshake: nothing to serve.
                let Ok(stream) = acceptor.accept(stream).await else {
                    return;
                };
                let service = hyper_util::service::TowerToHyperService::new(app);
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    addr
}

/// The guarded app and the record of `Authorization` values it saw.
fn guarded_app() -> (axum::Router, Arc<Mutex<Vec<String>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let service = StreamableHttpService::new(
        || Ok(Upstream),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    let record = seen.clone();
    let app = axum::Router::new()
        .nest_service("/mcp", service)
        .layer(axum::middleware::from_fn(
            move |request: axum::extract::Request, next: axum::middleware::Next| {
                let record = record.clone();
                async move {
                    use axum::response::IntoResponse as _;
                    let good = {
                        let header = |name: &str| {
                            request
                                .headers()
                                .get(name)
                                .and_then(|v| v.to_str().ok())
                                .map(str::to_owned)
                        };
                        let authorization = header("authorization");
                        record
                            .lock()
                            .unwrap()
                            .push(authorization.clone().unwrap_or_default());
                        authorization.as_deref() == Some(&format!("Bearer {UP_TOKEN}"))
                            && header("x-api-key").as_deref() == Some(UP_KEY)
                    };
                    if good {
                        next.run(request).await
                    } else {
                        (
                            axum::http::StatusCode::UNAUTHORIZED,
                            [("www-authenticate", "Bearer realm=\"guarded\"")],
                            "no",
                        )
                            .into_response()
                    }
                }
            },
        ));
    (app, seen)
}

fn config(addr: SocketAddr, credentials: &Json) -> Config {
    config_at(&format!("http://{addr}/mcp"), credentials)
}

fn config_at(url: &str, credentials: &Json) -> Config {
    let mut entry = json!({ "url": url });
    for (k, v) in credentials.as_object().unwrap() {
        entry[k] = v.clone();
    }
    let text = json!({"mcpServers": {"up": entry}, "ptc": {"startupTimeoutMs": 5000}});
    Config::parse("test.json", &text.to_string()).unwrap()
}

#[tokio::test]
async fn a_guarded_upstream_works_with_its_credentials_and_never_sees_the_clients_token() {
    let (addr, seen) = guarded_upstream().await;
    let dir = tempfile::tempdir().unwrap();
    let token_file = dir.path().join("up-token");
    std::fs::write(&token_file, format!("{UP_TOKEN}\n")).unwrap();
    let config = config(
        addr,
        &json!({"bearerTokenFile": token_file,
                "headers": {"X-Api-Key": "${PTC_TEST_NEVER_SET_KEY:-key-42}"}}),
    );
    let gateway = Gateway::start(&config).await;
    assert!(
        gateway.roster().entry("up.secret").is_some(),
        "{:?}",
        gateway.roster().skipped
    );

    // A downstream client with its own token, over the gateway's HTTP with a static token.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let gateway_addr = listener.local_addr().unwrap();
    let auth = HttpAuth {
        mode: AuthMode::Static(StaticToken::new(INBOUND, "test").unwrap()),
        public_url: None,
    };
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = tokio::spawn(ptc_mcp::serve_http_secured(
        gateway.clone(),
        listener,
        async {
            let _ = stopped.await;
        },
        HttpLimits::default(),
        Arc::new(auth),
    ));
    let transport = StreamableHttpClientTransport::from_config(
        StreamableHttpClientTransportConfig::with_uri(format!("http://{gateway_addr}/mcp"))
            .auth_header(INBOUND),
    );
    let client = ().serve(transport).await.unwrap();
    let params = CallToolRequestParams::new("ToolCall").with_arguments(
        json!({"expression": "(list (up.secret) (up.secret))"})
            .as_object()
            .unwrap()
            .clone(),
    );
    let result = serde_json::to_value(client.call_tool(params).await.unwrap()).unwrap();
    assert_eq!(
        result["structuredContent"]["value"],
        json!([{"answer": 42}, {"answer": 42}]),
        "{result}"
    );
    client.cancel().await.unwrap();
    let seen = seen.lock().unwrap().clone();
    assert!(seen.len() >= 4, "{seen:?}");
    assert!(
        seen.iter().all(|a| a == &format!("Bearer {UP_TOKEN}")),
        "{seen:?}"
    );
    let _ = stop.send(());
    let _ = tokio::time::timeout(Duration::from_secs(10), serving).await;
    gateway.shutdown().await;
}

/// Why connecting to the one configured server failed.
async fn refusal(config: &Config) -> String {
    let gateway = Gateway::new(config);
    let result = upstream::connect(
        &config.servers[0],
        gateway.change_sender(),
        Duration::from_secs(5),
    )
    .await;
    match result {
        Ok(_) => panic!("the guarded upstream let us in"),
        Err(error) => error,
    }
}

#[tokio::test]
async fn without_credentials_or_with_wrong_ones_the_upstream_is_refused_with_a_clear_reason() {
    let (addr, _) = guarded_upstream().await;
    let missing = refusal(&config(addr, &json!({}))).await;
    assert!(
        missing.contains("the server requires credentials"),
        "{missing}"
    );
    // Gateway::start leaves it out and goes on.
    let gateway = Gateway::start(&config(addr, &json!({}))).await;
    assert!(gateway.roster().entry("up.secret").is_none());
    gateway.shutdown().await;

    let dir = tempfile::tempdir().unwrap();
    let token_file = dir.path().join("up-token");
    std::fs::write(&token_file, "wrong-token-value").unwrap();
    let wrong = refusal(&config(
        addr,
        &json!({"bearerTokenFile": token_file, "headers": {"X-Api-Key": UP_KEY}}),
    ))
    .await;
    assert!(
        wrong.contains("refused the configured credentials"),
        "{wrong}"
    );
    assert!(!wrong.contains("wrong-token-value"), "{wrong}");
    assert!(!wrong.contains(UP_KEY), "{wrong}");
}

#[tokio::test]
async fn an_https_upstream_with_its_own_ca_works_with_a_bearer_token_or_client_credentials() {
    let addr = guarded_https_upstream().await;
    let data = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/tls");
    let dir = tempfile::tempdir().unwrap();
    let token_file = dir.path().join("up-token");
    std::fs::write(&token_file, UP_TOKEN).unwrap();
    let url = format!("https://localhost:{}/mcp", addr.port());
    let credentials = |ca: &str| {
        json!({"bearerTokenFile": token_file, "headers": {"X-Api-Key": UP_KEY},
               "caFile": format!("{data}/{ca}")})
    };
    let gateway = Gateway::new(&config_at(&url, &credentials("ca.pem")));
    let config = config_at(&url, &credentials("ca.pem"));
    let (upstream, tools) = upstream::connect(
        &config.servers[0],
        gateway.change_sender(),
        Duration::from_secs(5),
    )
    .await
    .expect("the HTTPS upstream trusted through caFile");
    assert_eq!(tools.len(), 1);
    let result = upstream::call(&upstream.peer(), "secret", &json!({}), None)
        .await
        .unwrap();
    assert_eq!(result.structured_content, Some(json!({"answer": 42})));
    upstream.close().await;

    // The same HTTPS upstream with client credentials instead of a fixed token.
    let (token_url, exchanges) = token_endpoint(url.clone()).await;
    std::fs::write(dir.path().join("cc-secret"), "cc-secret").unwrap();
    let cc = config_at(
        &url,
        &json!({"headers": {"X-Api-Key": UP_KEY}, "caFile": format!("{data}/ca.pem"),
                "oauthClientCredentials": {"tokenUrl": token_url, "clientId": "ptc-client",
                    "clientSecretFile": dir.path().join("cc-secret"),
                    "scopes": ["tools", "read"]}}),
    );
    let (upstream, _) = upstream::connect(
        &cc.servers[0],
        gateway.change_sender(),
        Duration::from_secs(5),
    )
    .await
    .expect("the HTTPS upstream reached with client credentials");
    let result = upstream::call(&upstream.peer(), "secret", &json!({}), None)
        .await
        .unwrap();
    assert_eq!(result.structured_content, Some(json!({"answer": 42})));
    assert_eq!(exchanges.load(std::sync::atomic::Ordering::SeqCst), 1);
    upstream.close().await;

    // Another CA, or the system roots (no caFile): the certificate is not trusted.
    let other = refusal(&config_at(&url, &credentials("other-ca.pem"))).await;
    assert!(
        other.to_lowercase().contains("certificate") || other.contains("error sending request"),
        "{other}"
    );
    let mut system = credentials("ca.pem");
    system.as_object_mut().unwrap().remove("caFile");
    let system = refusal(&config_at(&url, &system)).await;
    assert!(
        system.contains("invalid peer certificate: UnknownIssuer"),
        "{system}"
    );
}

/// A token endpoint on loopback: the client `ptc-client` with secret `cc-secret` gets
/// [`UP_TOKEN`] for `resource`, valid for one second; counts exchanges.
async fn token_endpoint(resource: String) -> (String, Arc<std::sync::atomic::AtomicUsize>) {
    use axum::response::IntoResponse as _;
    let exchanges = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let count = exchanges.clone();
    let app = axum::Router::new().route(
        "/token",
        axum::routing::post(move |body: String| {
            let (count, resource) = (count.clone(), resource.clone());
            async move {
                count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let form: std::collections::HashMap<String, String> = body
                    .split('&')
                    .filter_map(|pair| pair.split_once('='))
                    .map(|(k, v)| (k.to_owned(), v.replace("%3A", ":").replace("%2F", "/")))
                    .collect();
                let good = form.get("grant_type").map(String::as_str) == Some("client_credentials")
                    && form.get("client_id").map(String::as_str) == Some("ptc-client")
                    && form.get("client_secret").map(String::as_str) == Some("cc-secret")
                    && form.get("resource") == Some(&resource)
                    && form.get("scope").map(String::as_str) == Some("tools+read");
                let (status, answer) = if good {
                    (
                        axum::http::StatusCode::OK,
                        json!({"access_token": UP_TOKEN, "token_type": "Bearer", "expires_in": 1}),
                    )
                } else {
                    (
                        axum::http::StatusCode::UNAUTHORIZED,
                        json!({"error": "invalid_client"}),
                    )
                };
                (status, ptc_mcp::auth::json_body(&answer)).into_response()
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    (format!("http://{addr}/token"), exchanges)
}

#[tokio::test]
async fn client_credentials_are_exchanged_for_the_token_and_again_when_it_expires() {
    let (addr, seen) = guarded_upstream().await;
    let url = format!("http://{addr}/mcp");
    let (token_url, exchanges) = token_endpoint(url.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let secret_file = dir.path().join("secret");
    std::fs::write(&secret_file, "cc-secret\n").unwrap();
    let credentials = |secret: &std::path::Path| {
        json!({"headers": {"X-Api-Key": UP_KEY},
               "oauthClientCredentials": {"tokenUrl": token_url, "clientId": "ptc-client",
                                          "clientSecretFile": secret,
                                          "scopes": ["tools", "read"]}})
    };
    let config = config_at(&url, &credentials(&secret_file));
    let gateway = Gateway::new(&config);
    let (upstream, tools) = upstream::connect(
        &config.servers[0],
        gateway.change_sender(),
        Duration::from_secs(5),
    )
    .await
    .expect("the upstream reached with an exchanged token");
    assert_eq!(tools.len(), 1);
    assert_eq!(exchanges.load(std::sync::atomic::Ordering::SeqCst), 1);
    // The token lives one second: a call after it has expired exchanges again.
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let result = upstream::call(&upstream.peer(), "secret", &json!({}), None)
        .await
        .unwrap();
    assert_eq!(result.structured_content, Some(json!({"answer": 42})));
    assert!(exchanges.load(std::sync::atomic::Ordering::SeqCst) >= 2);
    assert!(
        seen.lock()
            .unwrap()
            .iter()
            .all(|a| a == &format!("Bearer {UP_TOKEN}")),
        "{seen:?}"
    );
    upstream.close().await;

    // A wrong secret: the token endpoint's refusal, without the secret.
    let wrong_file = dir.path().join("wrong");
    std::fs::write(&wrong_file, "not-the-secret").unwrap();
    let wrong = refusal(&config_at(&url, &credentials(&wrong_file))).await;
    assert!(
        wrong.contains("refused the client credentials: HTTP 401 Unauthorized (invalid_client)"),
        "{wrong}"
    );
    assert!(!wrong.contains("not-the-secret"), "{wrong}");
}
