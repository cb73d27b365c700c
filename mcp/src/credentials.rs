//! Credentials ptc sends to HTTP upstreams (spec/reference/mcp.md §1): per-server
//! `headers` with `${NAME}` / `${NAME:-default}` environment expansion, and a bearer
//! token from `bearerTokenEnv` (an environment variable) or `bearerTokenFile` (a file).
//!
//! Invariants:
//! - A credential's value lives in a [`Secret`], whose `Debug` is redacted; errors name the
//!   file, the server, the header and the variable, never the value.
//! - Headers rmcp owns (`Accept`, `Mcp-Session-Id`, `Mcp-Protocol-Version`,
//!   `Last-Event-Id`) and hop-by-hop or framing headers cannot be set.
//! - These are the only credentials an upstream ever receives: a downstream client's
//!   token is removed before the MCP service sees the request (`crate::auth`).

/// A credential's value: shown as `<redacted>`.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// Wraps `value`.
    #[must_use]
    pub fn new(value: String) -> Self {
        Secret(value)
    }

    /// The value, to send.
    #[must_use]
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("<redacted>")
    }
}

/// Header names a configuration may not set.
pub const FORBIDDEN_HEADERS: &[&str] = &[
    "accept",
    "mcp-session-id",
    "mcp-protocol-version",
    "last-event-id",
    "host",
    "content-length",
    "content-type",
    "transfer-encoding",
    "connection",
    "upgrade",
    "te",
    "trailer",
    "keep-alive",
    "proxy-connection",
];

/// `text` with every `${NAME}` replaced by the variable's value and `${NAME:-default}` by
/// the value or, when it is unset or empty, `default`, looked up with `lookup`.
///
/// # Errors
/// The message (without any value): an unset variable without a default, an unclosed
/// `${`, or a name that is not `[A-Za-z_][A-Za-z0-9_]*`.
pub fn expand(text: &str, lookup: impl Fn(&str) -> Option<String>) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("${") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        let Some(end) = after.find('}') else {
            return Err("`${` without its closing `}`".to_owned());
        };
        let inner = &after[..end];
        let (name, default) = match inner.split_once(":-") {
            Some((name, default)) => (name, Some(default)),
            None => (inner, None),
        };
        let valid = name
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !valid {
            return Err(format!("`${{{name}}}` is not a variable name"));
        }
        match (lookup(name).filter(|v| !v.is_empty()), default) {
            (Some(value), _) => out.push_str(&value),
            (None, Some(default)) => out.push_str(default),
            (None, None) => {
                return Err(format!("the environment variable {name} is not set"));
            }
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// The environment, for [`expand`].
#[must_use]
pub fn env_lookup(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

/// Checks that `name` is a header a configuration may set.
///
/// # Errors
/// Why not.
pub fn check_header_name(name: &str) -> Result<(), String> {
    if axum::http::HeaderName::from_bytes(name.as_bytes()).is_err() {
        return Err("not a valid HTTP header name".to_owned());
    }
    if FORBIDDEN_HEADERS
        .iter()
        .any(|h| h.eq_ignore_ascii_case(name))
    {
        return Err("ptc sets this header itself".to_owned());
    }
    Ok(())
}

/// Checks that `value` can be sent as a header value (no control characters).
///
/// # Errors
/// Why not (without the value).
pub fn check_header_value(value: &str) -> Result<(), String> {
    if axum::http::HeaderValue::from_str(value).is_err() {
        return Err("the value (after expansion) is not a valid header value".to_owned());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(name: &str) -> Option<String> {
        match name {
            "TOKEN" => Some("t0k".to_owned()),
            "EMPTY" => Some(String::new()),
            _ => None,
        }
    }

    #[test]
    fn variables_expand_with_defaults_and_unset_ones_are_named() {
        assert_eq!(expand("Bearer ${TOKEN}", env).unwrap(), "Bearer t0k");
        assert_eq!(expand("${TOKEN}${TOKEN}x", env).unwrap(), "t0kt0kx");
        assert_eq!(expand("${NOPE:-d}", env).unwrap(), "d");
        assert_eq!(expand("${EMPTY:-d}", env).unwrap(), "d");
        assert_eq!(expand("$TOKEN $", env).unwrap(), "$TOKEN $");
        assert_eq!(
            expand("${NOPE}", env).unwrap_err(),
            "the environment variable NOPE is not set"
        );
        assert!(expand("${TOKEN", env).is_err());
        assert!(expand("${1X}", env).is_err());
    }

    #[test]
    fn reserved_headers_are_refused_and_secrets_are_redacted() {
        assert!(check_header_name("X-Api-Key").is_ok());
        assert!(check_header_name("Authorization").is_ok());
        assert!(check_header_name("mcp-session-id").is_err());
        assert!(check_header_name("Host").is_err());
        assert!(check_header_name("bad name").is_err());
        assert!(check_header_value("a\nb").is_err());
        assert_eq!(format!("{:?}", Secret::new("t0k".into())), "<redacted>");
    }
}
