//! OAuth 2.0 client credentials for HTTP upstreams (`oauthClientCredentials`,
//! spec/reference/mcp.md §1): ptc exchanges its client id and secret at the token endpoint
//! for an access token (RFC 6749 §4.4, with the RFC 8707 `resource`), sends it as the
//! bearer token, and exchanges again shortly before it expires.
//!
//! [`TokenClient`] is rmcp's reqwest client with the current token put on every request.
//!
//! Invariants:
//! - The secret and the tokens live in [`Secret`]s; errors name the token endpoint and
//!   the status, never a secret, a token or the endpoint's answer body.
//! - One exchange at a time per upstream; a token is reused until [`EARLY_REFRESH`] before
//!   its `expires_in` (a token without one is reused for [`DEFAULT_LIFETIME`]).
//! - A token request is bounded: [`TOKEN_TIMEOUT`], [`MAX_TOKEN_RESPONSE`] bytes, no
//!   redirects.

use crate::credentials::Secret;
use axum::http::{HeaderName, HeaderValue};
use futures::stream::BoxStream;
use rmcp::model::ClientJsonRpcMessage;
use rmcp::transport::streamable_http_client::{
    SseError, StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
    StreamableHttpResponseLimits,
};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long a token request may take.
pub const TOKEN_TIMEOUT: Duration = Duration::from_secs(10);
/// The largest token response read.
pub const MAX_TOKEN_RESPONSE: usize = 64 << 10;
/// A token is exchanged again this long before it expires.
pub const EARLY_REFRESH: Duration = Duration::from_secs(30);
/// How long a token without `expires_in` is reused.
pub const DEFAULT_LIFETIME: Duration = Duration::from_secs(300);

/// What the configuration gives for the exchange.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientCredentials {
    /// The authorization server's token endpoint.
    pub token_url: String,
    /// The client id.
    pub client_id: String,
    /// The client secret.
    pub client_secret: Secret,
    /// Scopes asked for (none: the server's default).
    pub scopes: Vec<String>,
    /// The resource the token is for (RFC 8707; by default the server's URL).
    pub resource: String,
}

/// A token and when to stop using it.
#[derive(Debug)]
struct Cached {
    token: Secret,
    until: Instant,
}

/// The token source of one upstream.
#[derive(Debug)]
pub struct TokenSource {
    credentials: ClientCredentials,
    client: reqwest::Client,
    cached: tokio::sync::Mutex<Option<Cached>>,
}

impl TokenSource {
    /// A source exchanging `credentials` (rustls with the system's roots; the server's
    /// `caFile` does not apply to the token endpoint; no redirects).
    ///
    /// # Errors
    /// The HTTP client cannot be built.
    pub fn new(credentials: ClientCredentials) -> Result<Self, String> {
        let client = reqwest::Client::builder()
            .timeout(TOKEN_TIMEOUT)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| format!("cannot build the HTTP client: {e}"))?;
        Ok(TokenSource {
            credentials,
            client,
            cached: tokio::sync::Mutex::new(None),
        })
    }

    /// The current access token, exchanged anew when there is none or it is about to
    /// expire.
    ///
    /// # Errors
    /// Why the token endpoint gave no token (never a secret).
    pub async fn token(&self) -> Result<String, String> {
        let mut cached = self.cached.lock().await;
        if let Some(c) = cached.as_ref()
            && Instant::now() < c.until
        {
            return Ok(c.token.expose().to_owned());
        }
        let (token, lifetime) = self.exchange().await?;
        let until = Instant::now() + lifetime.saturating_sub(EARLY_REFRESH.min(lifetime / 2));
        *cached = Some(Cached {
            token: Secret::new(token.clone()),
            until,
        });
        Ok(token)
    }

    async fn exchange(&self) -> Result<(String, Duration), String> {
        let c = &self.credentials;
        let at = format!("token endpoint {}", c.token_url);
        let mut form = vec![
            ("grant_type", "client_credentials".to_owned()),
            ("client_id", c.client_id.clone()),
            ("client_secret", c.client_secret.expose().to_owned()),
            ("resource", c.resource.clone()),
        ];
        if !c.scopes.is_empty() {
            form.push(("scope", c.scopes.join(" ")));
        }
        let body = form
            .iter()
            .map(|(k, v)| format!("{k}={}", form_encode(v)))
            .collect::<Vec<_>>()
            .join("&");
        let mut response = self
            .client
            .post(&c.token_url)
            .header("content-type", "application/x-www-form-urlencoded")
            .header("accept", "application/json")
            .body(body)
            .send()
            .await
            .map_err(|e| format!("{at}: request failed: {}", e.without_url()))?;
        let status = response.status();
        let mut bytes = Vec::new();
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|e| format!("{at}: reading the answer failed: {}", e.without_url()))?
        {
            if bytes.len() + chunk.len() > MAX_TOKEN_RESPONSE {
                return Err(format!(
                    "{at}: answer larger than {MAX_TOKEN_RESPONSE} bytes"
                ));
            }
            bytes.extend_from_slice(&chunk);
        }
        let answer: serde_json::Value = serde_json::from_slice(&bytes).unwrap_or_default();
        if !status.is_success() {
            let code = answer["error"].as_str().unwrap_or("no error code");
            return Err(format!(
                "{at} refused the client credentials: HTTP {status} ({code})"
            ));
        }
        let Some(token) = answer["access_token"].as_str().filter(|t| !t.is_empty()) else {
            return Err(format!("{at}: the answer has no access_token"));
        };
        if let Some(kind) = answer["token_type"].as_str()
            && !kind.eq_ignore_ascii_case("bearer")
        {
            return Err(format!("{at}: token_type {kind:?} is not Bearer"));
        }
        if HeaderValue::from_str(&format!("Bearer {token}")).is_err() {
            return Err(format!("{at}: the access_token cannot be sent in a header"));
        }
        let lifetime = answer["expires_in"]
            .as_u64()
            .map_or(DEFAULT_LIFETIME, Duration::from_secs);
        Ok((token.to_owned(), lifetime))
    }
}

/// `application/x-www-form-urlencoded` encoding of one value.
fn form_encode(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for byte in value.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'*' => {
                out.push(char::from(byte));
            }
            b' ' => out.push('+'),
            other => out.push_str(&format!("%{other:02X}")),
        }
    }
    out
}

/// rmcp's reqwest client with the token source's current token on every request.
#[derive(Debug, Clone)]
pub struct TokenClient {
    inner: reqwest::Client,
    source: Arc<TokenSource>,
}

impl TokenClient {
    /// Wraps `inner`.
    #[must_use]
    pub fn new(inner: reqwest::Client, source: Arc<TokenSource>) -> Self {
        TokenClient { inner, source }
    }

    async fn bearer(&self) -> Result<Option<String>, StreamableHttpError<reqwest::Error>> {
        self.source
            .token()
            .await
            .map(Some)
            .map_err(|e| StreamableHttpError::UnexpectedServerResponse(e.into()))
    }
}

impl StreamableHttpClient for TokenClient {
    type Error = reqwest::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        _auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<StreamableHttpPostResponse, StreamableHttpError<Self::Error>> {
        let token = self.bearer().await?;
        self.inner
            .post_message(uri, message, session_id, token, custom_headers)
            .await
    }

    async fn post_message_with_response_limits(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        _auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        limits: StreamableHttpResponseLimits,
    ) -> Result<StreamableHttpPostResponse, StreamableHttpError<Self::Error>> {
        let token = self.bearer().await?;
        self.inner
            .post_message_with_response_limits(
                uri,
                message,
                session_id,
                token,
                custom_headers,
                limits,
            )
            .await
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        _auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), StreamableHttpError<Self::Error>> {
        let token = self.bearer().await?;
        self.inner
            .delete_session(uri, session_id, token, custom_headers)
            .await
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        _auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<
        BoxStream<'static, Result<sse_stream::Sse, SseError>>,
        StreamableHttpError<Self::Error>,
    > {
        let token = self.bearer().await?;
        self.inner
            .get_stream(uri, session_id, last_event_id, token, custom_headers)
            .await
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        _auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<
        BoxStream<'static, Result<sse_stream::Sse, SseError>>,
        StreamableHttpError<Self::Error>,
    > {
        let token = self.bearer().await?;
        self.inner
            .get_stream_with_max_sse_event_size(
                uri,
                session_id,
                last_event_id,
                token,
                custom_headers,
                max_sse_event_size,
            )
            .await
    }
}

#[cfg(test)]
mod tests {
    use super::form_encode;

    #[test]
    fn form_values_are_encoded() {
        assert_eq!(form_encode("a b&c=d/é"), "a+b%26c%3Dd%2F%C3%A9");
    }
}
