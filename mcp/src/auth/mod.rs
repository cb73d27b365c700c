//! Inbound authentication for `ptc mcp --http` (spec/reference/mcp.md, "Authentication").
//!
//! Three modes ([`AuthMode`]): none (loopback only, unless the operator said otherwise), a
//! static bearer token ([`StaticToken`]) for a simple shared gateway, and an OAuth 2.1
//! resource server ([`OAuth`]): JWT access tokens checked against the issuer's JWKS
//! ([`jwks`], [`jwt`]), with RFC 9728 Protected Resource Metadata served at
//! `/.well-known/oauth-protected-resource` and its path-suffixed variant.
//!
//! [`HttpAuth::admit`] runs on every request to `/mcp` before the session checks, so a
//! caller without a token learns nothing about sessions.
//!
//! Invariants:
//! - A request without a usable token gets 401 with `WWW-Authenticate: Bearer ...`
//!   (`resource_metadata="..."` in OAuth mode, `error="invalid_token"` when a token was
//!   given); a valid token without the required scopes gets 403 `insufficient_scope`.
//! - An admitted request's `Authorization` header is removed before the MCP service sees
//!   it (in every mode, none included): no inbound token can reach an upstream, a log or a
//!   tool.
//! - Token values never appear in errors or logs.

pub mod jwks;
pub mod jwt;
mod token;

pub use jwks::JwksSource;
pub use jwt::OAuth;
pub use token::{MIN_TOKEN_BYTES, StaticToken};

use axum::http::{HeaderMap, HeaderValue, StatusCode, Uri, header};
use axum::response::{IntoResponse as _, Response};
use serde_json::json;

/// The well-known path of RFC 9728 Protected Resource Metadata.
pub const METADATA_PATH: &str = "/.well-known/oauth-protected-resource";

/// A refused authentication set-up: what is wrong, never a secret's value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct AuthSetupError(pub String);

/// How requests to `/mcp` prove who they come from.
#[derive(Debug)]
pub enum AuthMode {
    /// No authentication: every request is served.
    None,
    /// `Authorization: Bearer TOKEN` with this token.
    Static(StaticToken),
    /// An OAuth 2.1 access token (a JWT) issued for this gateway.
    OAuth(Box<OAuth>),
}

/// The inbound authentication of one HTTP server, and the URL clients reach it at.
#[derive(Debug)]
pub struct HttpAuth {
    /// The mode.
    pub mode: AuthMode,
    /// The gateway's URL as its clients reach it (`https://HOST/mcp`), when it is not on
    /// loopback: its host is accepted in `Host` and its origin in `Origin`.
    pub public_url: Option<PublicUrl>,
}

impl HttpAuth {
    /// No authentication, loopback only.
    #[must_use]
    pub fn none() -> Self {
        HttpAuth {
            mode: AuthMode::None,
            public_url: None,
        }
    }

    /// Whether some mode is on.
    #[must_use]
    pub fn is_on(&self) -> bool {
        !matches!(self.mode, AuthMode::None)
    }

    /// The Protected Resource Metadata document, in OAuth mode.
    #[must_use]
    pub fn metadata(&self) -> Option<serde_json::Value> {
        match &self.mode {
            AuthMode::OAuth(oauth) => Some(oauth.metadata()),
            _ => None,
        }
    }

    /// The paths the metadata is served at (OAuth mode only): the well-known path, and it
    /// suffixed with the resource's path and with `/mcp`.
    #[must_use]
    pub fn metadata_paths(&self) -> Vec<String> {
        let AuthMode::OAuth(oauth) = &self.mode else {
            return Vec::new();
        };
        let mut paths = vec![METADATA_PATH.to_owned()];
        for suffix in [oauth.resource().path(), "/mcp"] {
            let path = format!("{METADATA_PATH}{}", suffix.trim_end_matches('/'));
            if !paths.contains(&path) {
                paths.push(path);
            }
        }
        paths
    }

    /// Checks `request`'s credentials; on success removes its `Authorization` header (in
    /// every mode), otherwise gives the response to send (401, 403, or 503 when the
    /// issuer's keys cannot be had).
    ///
    /// # Errors
    /// The refusal, as the response to send.
    pub async fn admit(&self, request: &mut axum::extract::Request) -> Result<(), Response> {
        let outcome = match &self.mode {
            AuthMode::None => Ok(()),
            AuthMode::Static(token) => match bearer(request.headers()) {
                Bearer::Missing => Err(Refusal::NoToken),
                Bearer::Malformed => Err(Refusal::Invalid("malformed Authorization header")),
                Bearer::Token(given) => {
                    if token.matches(given) {
                        Ok(())
                    } else {
                        Err(Refusal::Invalid("the token is not valid"))
                    }
                }
            },
            AuthMode::OAuth(oauth) => match bearer(request.headers()) {
                Bearer::Missing => Err(Refusal::NoToken),
                Bearer::Malformed => Err(Refusal::Invalid("malformed Authorization header")),
                Bearer::Token(given) => oauth.verify(given).await,
            },
        };
        match outcome {
            Ok(()) => {
                request.headers_mut().remove(header::AUTHORIZATION);
                Ok(())
            }
            Err(refusal) => Err(self.refuse(&refusal)),
        }
    }

    /// The response for `refusal` (RFC 6750 §3, MCP authorization).
    fn refuse(&self, refusal: &Refusal) -> Response {
        let mut params: Vec<(&str, String)> = Vec::new();
        let (status, code, description) = match refusal {
            Refusal::NoToken => (StatusCode::UNAUTHORIZED, None, "a bearer token is required"),
            Refusal::Invalid(why) => (StatusCode::UNAUTHORIZED, Some("invalid_token"), *why),
            Refusal::Scope => (
                StatusCode::FORBIDDEN,
                Some("insufficient_scope"),
                "the token lacks a required scope",
            ),
            Refusal::Unavailable(why) => {
                tracing::warn!("token not checked: {why}");
                return (
                    StatusCode::SERVICE_UNAVAILABLE,
                    [(header::RETRY_AFTER, "5")],
                    "Service Unavailable: the issuer's keys cannot be had",
                )
                    .into_response();
            }
        };
        if let Some(code) = code {
            params.push(("error", code.to_owned()));
            params.push(("error_description", (*description).to_owned()));
        }
        match &self.mode {
            AuthMode::OAuth(oauth) => {
                if !oauth.scopes().is_empty() {
                    params.push(("scope", oauth.scopes().join(" ")));
                }
                params.push(("resource_metadata", oauth.metadata_url()));
            }
            _ => params.push(("realm", "ptc".to_owned())),
        }
        let challenge = params
            .iter()
            .map(|(k, v)| format!("{k}=\"{}\"", v.replace(['"', '\\'], "")))
            .collect::<Vec<_>>()
            .join(", ");
        let body = json!({
            "error": code.unwrap_or("invalid_request"),
            "error_description": description,
        });
        let mut response = (status, json_body(&body)).into_response();
        if let Ok(value) = HeaderValue::from_str(&format!("Bearer {challenge}")) {
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, value);
        }
        response
    }
}

/// `value` as an `application/json` response body.
#[must_use]
pub fn json_body(value: &serde_json::Value) -> impl axum::response::IntoResponse + use<> {
    (
        [(header::CONTENT_TYPE, "application/json")],
        value.to_string(),
    )
}

/// Why a request was not admitted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// No `Authorization: Bearer` header.
    NoToken,
    /// A token that is not valid here (the reason, safe to show).
    Invalid(&'static str),
    /// A valid token without every required scope.
    Scope,
    /// The keys to check it with cannot be had (the reason, for the log).
    Unavailable(String),
}

enum Bearer<'a> {
    Missing,
    Malformed,
    Token(&'a str),
}

/// The bearer token of `headers` (RFC 6750 §2.1; one `Authorization` header only).
fn bearer(headers: &HeaderMap) -> Bearer<'_> {
    let mut values = headers.get_all(header::AUTHORIZATION).iter();
    let Some(value) = values.next() else {
        return Bearer::Missing;
    };
    if values.next().is_some() {
        return Bearer::Malformed;
    }
    let Ok(text) = value.to_str() else {
        return Bearer::Malformed;
    };
    let Some((scheme, token)) = text.split_once(' ') else {
        return Bearer::Malformed;
    };
    if !scheme.eq_ignore_ascii_case("bearer") {
        return Bearer::Missing;
    }
    let token = token.trim();
    if token.is_empty() || token.contains(char::is_whitespace) {
        return Bearer::Malformed;
    }
    Bearer::Token(token)
}

/// An absolute `http(s)://` URL of this gateway (`--public-url`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublicUrl {
    text: String,
    uri: Uri,
}

impl PublicUrl {
    /// Parses `text`: `http://` or `https://`, a host, no query or fragment.
    ///
    /// # Errors
    /// What is wrong with it.
    pub fn parse(text: &str) -> Result<Self, AuthSetupError> {
        let bad = |why: &str| AuthSetupError(format!("{text}: {why}"));
        let uri: Uri = text.parse().map_err(|_| bad("not a URL"))?;
        match uri.scheme_str() {
            Some("http" | "https") => {}
            _ => return Err(bad("expected an http:// or https:// URL")),
        }
        let Some(authority) = uri.authority() else {
            return Err(bad("the URL has no host"));
        };
        if authority.as_str().contains('@') {
            return Err(bad("the URL must not carry user information"));
        }
        if uri.query().is_some() || text.contains('#') {
            return Err(bad("the URL must have no query or fragment"));
        }
        Ok(PublicUrl {
            text: text.to_owned(),
            uri,
        })
    }

    /// The URL as given.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Its path (`/` when it has none).
    #[must_use]
    pub fn path(&self) -> &str {
        self.uri.path()
    }

    /// `SCHEME://HOST[:PORT]`.
    #[must_use]
    pub fn origin(&self) -> String {
        let scheme = self.uri.scheme_str().unwrap_or("https");
        let authority = self.uri.authority().map_or("", |a| a.as_str());
        format!("{scheme}://{authority}")
    }

    /// The host, and `HOST:PORT` when a port is given: what `Host` may say.
    #[must_use]
    pub fn hosts(&self) -> Vec<String> {
        let Some(authority) = self.uri.authority() else {
            return Vec::new();
        };
        let host = authority
            .host()
            .trim_start_matches('[')
            .trim_end_matches(']');
        let mut hosts = vec![host.to_owned()];
        if authority.port().is_some() {
            hosts.push(authority.as_str().to_owned());
        }
        hosts
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(values: &[&str]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for v in values {
            map.append(header::AUTHORIZATION, HeaderValue::from_str(v).unwrap());
        }
        map
    }

    #[test]
    fn bearer_tokens_are_read_strictly() {
        assert!(matches!(bearer(&headers(&[])), Bearer::Missing));
        assert!(matches!(bearer(&headers(&["Basic abc"])), Bearer::Missing));
        assert!(matches!(bearer(&headers(&["Bearer"])), Bearer::Malformed));
        assert!(matches!(
            bearer(&headers(&["Bearer a b"])),
            Bearer::Malformed
        ));
        assert!(matches!(
            bearer(&headers(&["Bearer a", "Bearer b"])),
            Bearer::Malformed
        ));
        assert!(matches!(
            bearer(&headers(&["bearer tok"])),
            Bearer::Token("tok")
        ));
    }

    #[tokio::test]
    async fn an_admitted_request_loses_its_authorization_header() {
        let auth = HttpAuth {
            mode: AuthMode::Static(StaticToken::new("abcdefghijklmnop", "t").unwrap()),
            public_url: None,
        };
        let request = |token: &str| {
            axum::http::Request::builder()
                .uri("/mcp")
                .header(header::AUTHORIZATION, format!("Bearer {token}"))
                .body(axum::body::Body::empty())
                .unwrap()
        };
        let mut good = request("abcdefghijklmnop");
        assert!(auth.admit(&mut good).await.is_ok());
        assert!(good.headers().get(header::AUTHORIZATION).is_none());
        let mut bad = request("abcdefghijklmnoX");
        let refused = auth.admit(&mut bad).await.unwrap_err();
        assert_eq!(refused.status(), StatusCode::UNAUTHORIZED);
        let none = HttpAuth::none();
        let mut open = request("anything");
        assert!(none.admit(&mut open).await.is_ok());
        assert!(open.headers().get(header::AUTHORIZATION).is_none());
    }

    #[test]
    fn public_urls_give_hosts_origins_and_paths() {
        let url = PublicUrl::parse("https://gw.example:8443/team/mcp").unwrap();
        assert_eq!(url.origin(), "https://gw.example:8443");
        assert_eq!(url.hosts(), vec!["gw.example", "gw.example:8443"]);
        assert_eq!(url.path(), "/team/mcp");
        assert!(PublicUrl::parse("ftp://x/").is_err());
        assert!(PublicUrl::parse("/mcp").is_err());
        assert!(PublicUrl::parse("https://u:p@x/mcp").is_err());
        assert!(PublicUrl::parse("https://x/mcp?a=1").is_err());
    }
}
