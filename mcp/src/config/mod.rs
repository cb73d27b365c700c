//! The gateway's configuration file: the `mcpServers` object MCP clients already use, plus an
//! optional `ptc` section (spec/reference/mcp.md §1).
//!
//! Parsing is strict so that every refusal names the file, the server and the field: serde
//! derive reads the file's shape (`raw`: closed objects, typed fields) with
//! `serde_path_to_error` giving the location of an unknown key, a value of the wrong type or
//! a missing field; this module then checks what serde cannot (one transport per server,
//! URLs, secrets, globs, budgets) at the same locations. Every refusal is a [`ConfigError`]
//! at start-up, never a silent default.
//!
//! Invariants:
//! - Every server has exactly one transport: `command` (stdio child process) or `url`
//!   (streamable HTTP).
//! - Every glob in a tool filter compiled; every budget went through
//!   [`ptc_vm::Limits::set`], so the limits are the ones `--limit` would give.
//! - Per-server filters in `ptc.servers` only name servers that exist in `mcpServers`.

mod raw;

use crate::client_credentials::ClientCredentials;
use crate::credentials::{self, Secret};
use globset::{Glob, GlobMatcher};
use ptc_vm::Limits;
use raw::{RawClientCredentials, RawFile, RawFilter, RawPtc, RawServer};
use serde_json::Value as Json;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A refused configuration: the file, the place inside it, and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}: {location}: {message}")]
pub struct ConfigError {
    /// The configuration file.
    pub file: String,
    /// Where in it, e.g. `mcpServers.fs.args[1]`.
    pub location: String,
    /// What is wrong.
    pub message: String,
}

/// How ptc reaches one upstream server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Transport {
    /// A child process speaking MCP on its stdin/stdout.
    Stdio {
        /// The program.
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Extra environment variables.
        env: BTreeMap<String, String>,
        /// Its working directory.
        cwd: Option<PathBuf>,
    },
    /// A streamable-HTTP MCP endpoint.
    Http {
        /// The endpoint URL.
        url: String,
        /// Headers sent with every request (`headers`, `${NAME}` expanded).
        headers: Vec<(String, Secret)>,
        /// The bearer token sent as `Authorization` (`bearerTokenEnv` / `bearerTokenFile`).
        bearer: Option<Secret>,
        /// The only CAs its TLS certificate may chain to (`caFile`), instead of the
        /// system's roots.
        ca: Option<CaFile>,
        /// OAuth client credentials exchanged for its bearer token
        /// (`oauthClientCredentials`).
        client_credentials: Option<ClientCredentials>,
    },
}

/// A PEM file of CA certificates (`caFile`), read and checked at start-up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaFile {
    /// Where it was read from.
    pub path: PathBuf,
    /// Its PEM text (one or more certificates).
    pub pem: Vec<u8>,
}

/// Which of a server's tools are exposed, and which need the user's consent per call.
#[derive(Debug, Clone, Default)]
pub struct ToolFilter {
    /// When present, only tools matching one of these globs are exposed.
    pub allow: Option<Vec<GlobMatcher>>,
    /// Tools matching one of these are never exposed.
    pub deny: Vec<GlobMatcher>,
    /// Tools matching one of these are asked about (MCP elicitation) before each call.
    pub ask: Vec<GlobMatcher>,
}

impl ToolFilter {
    /// Whether the MCP tool `name` is exposed.
    #[must_use]
    pub fn exposes(&self, name: &str) -> bool {
        let allowed = self
            .allow
            .as_ref()
            .is_none_or(|globs| globs.iter().any(|g| g.is_match(name)));
        allowed && !self.deny.iter().any(|g| g.is_match(name))
    }

    /// Whether each call of the MCP tool `name` needs the user's consent.
    #[must_use]
    pub fn asks(&self, name: &str) -> bool {
        self.ask.iter().any(|g| g.is_match(name))
    }
}

/// One upstream server.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// The key in `mcpServers`: the prefix of its tools in the roster.
    pub name: String,
    /// How to reach it.
    pub transport: Transport,
    /// Its tool filter (`ptc.servers.NAME`).
    pub filter: ToolFilter,
}

/// The whole configuration.
#[derive(Debug, Clone)]
pub struct Config {
    /// Where it was read from.
    pub file: String,
    /// The upstream servers, in file order.
    pub servers: Vec<ServerConfig>,
    /// Budgets for every ToolCall (including `parallelism` and `tool-timeout-ms`).
    pub limits: Limits,
    /// Roster names (`SERVER.TOOL`) that are standalone-only.
    pub standalone: Vec<String>,
    /// How long one upstream may take to start, initialize and list its tools.
    pub startup_timeout: Duration,
    /// Compiled programs kept for ToolCalls sent again (`ptc.programCache`; 0: none).
    pub program_cache: usize,
}

/// The per-call timeout when the file sets none: long operations are normal upstream, a
/// call that never answers is not.
pub const DEFAULT_TOOL_TIMEOUT_MS: u64 = 120_000;

/// The start-up timeout per upstream when the file sets none.
pub const DEFAULT_STARTUP_TIMEOUT_MS: u64 = 30_000;

/// Compiled programs kept when the file sets no `ptc.programCache`.
pub const DEFAULT_PROGRAM_CACHE: usize = 128;

struct Ctx<'a> {
    file: &'a str,
}

impl Ctx<'_> {
    fn err(&self, location: impl Into<String>, message: impl Into<String>) -> ConfigError {
        ConfigError {
            file: self.file.to_owned(),
            location: location.into(),
            message: message.into(),
        }
    }

    fn globs(&self, patterns: &[String], at: &str) -> Result<Vec<GlobMatcher>, ConfigError> {
        patterns
            .iter()
            .enumerate()
            .map(|(i, p)| {
                Glob::new(p)
                    .map(|g| g.compile_matcher())
                    .map_err(|e| self.err(format!("{at}[{i}]"), format!("bad glob: {e}")))
            })
            .collect()
    }

    fn millis(&self, value: &Json, at: &str) -> Result<Option<u64>, ConfigError> {
        match value {
            Json::String(s) if s == "off" => Ok(None),
            Json::Number(n) if n.as_u64().is_some_and(|n| n > 0) => Ok(n.as_u64()),
            other => Err(self.err(
                at,
                format!(
                    "expected a positive integer of milliseconds or \"off\", found {}",
                    kind(other)
                ),
            )),
        }
    }
}

fn join(at: &str, key: &str) -> String {
    if at.is_empty() {
        key.to_owned()
    } else {
        format!("{at}.{key}")
    }
}

fn kind(value: &Json) -> &'static str {
    match value {
        Json::Null => "null",
        Json::Bool(_) => "a boolean",
        Json::Number(_) => "a number",
        Json::String(_) => "a string",
        Json::Array(_) => "an array",
        Json::Object(_) => "an object",
    }
}

impl Config {
    /// Reads and checks the file at `path`.
    ///
    /// # Errors
    /// [`ConfigError`] naming the file, the place and the problem.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| ConfigError {
            file: file.clone(),
            location: "(file)".to_owned(),
            message: format!("cannot read it: {e}"),
        })?;
        Config::parse(&file, &text)
    }

    /// Checks the configuration `text`, reporting errors against `file`.
    ///
    /// # Errors
    /// [`ConfigError`] naming the file, the place and the problem.
    pub fn parse(file: &str, text: &str) -> Result<Config, ConfigError> {
        let cx = Ctx { file };
        let root: Json = serde_json::from_str(text).map_err(|e| {
            cx.err(
                format!("line {} column {}", e.line(), e.column()),
                format!("not valid JSON: {e}"),
            )
        })?;
        let root: RawFile = serde_path_to_error::deserialize(root).map_err(|e| {
            let location = match e.path().to_string() {
                root if root == "." => "(top level)".to_owned(),
                path => path,
            };
            cx.err(location, e.into_inner().to_string())
        })?;
        let mut parsed = Vec::new();
        for (name, entry) in &root.mcp_servers {
            parsed.push(parse_server(&cx, name, entry)?);
        }
        let mut config = Config {
            file: file.to_owned(),
            servers: parsed,
            limits: Limits {
                tool_timeout_ms: Some(DEFAULT_TOOL_TIMEOUT_MS),
                ..Limits::default()
            },
            standalone: Vec::new(),
            startup_timeout: Duration::from_millis(DEFAULT_STARTUP_TIMEOUT_MS),
            program_cache: DEFAULT_PROGRAM_CACHE,
        };
        if let Some(ptc) = &root.ptc {
            parse_ptc(&cx, ptc, &mut config)?;
        }
        Ok(config)
    }
}

fn parse_server(cx: &Ctx<'_>, name: &str, entry: &RawServer) -> Result<ServerConfig, ConfigError> {
    let at = format!("mcpServers.{name}");
    if name.is_empty() || name.contains('.') || name.chars().any(char::is_whitespace) {
        return Err(cx.err(
            &at,
            "a server name must be non-empty, without dots or white space (it prefixes its tools as NAME.TOOL)",
        ));
    }
    let declared = entry.kind.as_deref();
    let transport = match (&entry.command, &entry.url) {
        (Some(_), Some(_)) => {
            return Err(cx.err(
                &at,
                "give either `command` (stdio) or `url` (HTTP), not both",
            ));
        }
        (None, None) => {
            return Err(cx.err(
                join(&at, "command"),
                "missing field (or give `url` for an HTTP server)",
            ));
        }
        (Some(command), None) => {
            if let Some(t) = declared.filter(|t| *t != "stdio") {
                return Err(cx.err(
                    join(&at, "type"),
                    format!("`{t}` does not go with `command`; expected \"stdio\""),
                ));
            }
            if let Some(key) = entry.http_keys().first() {
                return Err(cx.err(join(&at, key), "only an HTTP server (`url`) takes it"));
            }
            if command.is_empty() {
                return Err(cx.err(join(&at, "command"), "must not be empty"));
            }
            let env: BTreeMap<String, String> = entry
                .env
                .iter()
                .flatten()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            Transport::Stdio {
                command: command.clone(),
                args: entry.args.clone().unwrap_or_default(),
                env,
                cwd: entry.cwd.as_ref().map(PathBuf::from),
            }
        }
        (None, Some(url)) => {
            match declared {
                None | Some("http" | "streamable-http" | "streamableHttp") => {}
                Some(t) => {
                    return Err(cx.err(
                        join(&at, "type"),
                        format!(
                            "`{t}` is not supported with `url`; expected \"http\" (streamable HTTP)"
                        ),
                    ));
                }
            }
            if let Some(key) = entry.stdio_keys().first() {
                return Err(cx.err(join(&at, key), "only a stdio server (`command`) takes it"));
            }
            let loc = join(&at, "url");
            if !(url.starts_with("http://") || url.starts_with("https://")) {
                return Err(cx.err(loc, "expected an http:// or https:// URL"));
            }
            let headers = match &entry.headers {
                Some(headers) => parse_headers(cx, headers, &join(&at, "headers"))?,
                None => Vec::new(),
            };
            let bearer = parse_bearer(cx, entry, &at)?;
            if bearer.is_some()
                && let Some((name, _)) = headers
                    .iter()
                    .find(|(n, _)| n.eq_ignore_ascii_case("authorization"))
            {
                return Err(cx.err(
                    join(&join(&at, "headers"), name),
                    "give either an Authorization header or bearerTokenEnv/bearerTokenFile, not both",
                ));
            }
            let ca = match &entry.ca_file {
                Some(path) => {
                    let loc = join(&at, "caFile");
                    if !url.starts_with("https://") {
                        return Err(cx.err(loc, "only an https:// server takes it"));
                    }
                    Some(parse_ca(cx, path, &loc)?)
                }
                None => None,
            };
            let client_credentials = match &entry.oauth_client_credentials {
                Some(raw) => {
                    let loc = join(&at, "oauthClientCredentials");
                    if bearer.is_some()
                        || headers
                            .iter()
                            .any(|(n, _)| n.eq_ignore_ascii_case("authorization"))
                    {
                        return Err(cx.err(
                            loc,
                            "give either client credentials or a bearer token / Authorization header, not both",
                        ));
                    }
                    Some(parse_client_credentials(cx, raw, &loc, url)?)
                }
                None => None,
            };
            Transport::Http {
                url: url.clone(),
                headers,
                bearer,
                ca,
                client_credentials,
            }
        }
    };
    Ok(ServerConfig {
        name: name.to_owned(),
        transport,
        filter: ToolFilter::default(),
    })
}

/// `headers`: an object of strings, each name settable and each value valid after
/// `${NAME}` expansion (errors never show the value).
fn parse_headers(
    cx: &Ctx<'_>,
    given: &indexmap::IndexMap<String, String>,
    at: &str,
) -> Result<Vec<(String, Secret)>, ConfigError> {
    let mut headers: Vec<(String, Secret)> = Vec::new();
    for (name, text) in given {
        let loc = join(at, name);
        credentials::check_header_name(name).map_err(|e| cx.err(&loc, e))?;
        if headers.iter().any(|(n, _)| n.eq_ignore_ascii_case(name)) {
            return Err(cx.err(&loc, "the header is given twice"));
        }
        let expanded =
            credentials::expand(text, credentials::env_lookup).map_err(|e| cx.err(&loc, e))?;
        credentials::check_header_value(&expanded).map_err(|e| cx.err(&loc, e))?;
        headers.push((name.clone(), Secret::new(expanded)));
    }
    Ok(headers)
}

/// `oauthClientCredentials`: `tokenUrl`, `clientId`, the secret from `clientSecretEnv` or
/// `clientSecretFile`, optional `scopes` and `resource` (default: the server's URL).
fn parse_client_credentials(
    cx: &Ctx<'_>,
    raw: &RawClientCredentials,
    at: &str,
    url: &str,
) -> Result<ClientCredentials, ConfigError> {
    let token_url = raw
        .token_url
        .clone()
        .ok_or_else(|| cx.err(join(at, "tokenUrl"), "missing field"))?;
    let loopback = ["http://127.0.0.1", "http://localhost", "http://[::1]"]
        .iter()
        .any(|p| token_url.starts_with(p));
    if !(token_url.starts_with("https://") || loopback) {
        return Err(cx.err(
            join(at, "tokenUrl"),
            "expected an https:// URL (http:// only on loopback)",
        ));
    }
    let client_id = raw
        .client_id
        .clone()
        .filter(|c| !c.is_empty())
        .ok_or_else(|| cx.err(join(at, "clientId"), "missing field"))?;
    let secret = match (&raw.client_secret_env, &raw.client_secret_file) {
        (Some(name), None) => std::env::var(name).ok().ok_or_else(|| {
            cx.err(
                join(at, "clientSecretEnv"),
                format!("the environment variable {name} is not set"),
            )
        })?,
        (None, Some(path)) => std::fs::read_to_string(path).map_err(|e| {
            cx.err(
                join(at, "clientSecretFile"),
                format!("cannot read {path}: {e}"),
            )
        })?,
        _ => {
            return Err(cx.err(
                at,
                "give exactly one of clientSecretEnv and clientSecretFile",
            ));
        }
    };
    let secret = secret.trim();
    if secret.is_empty() {
        return Err(cx.err(at, "the client secret is empty"));
    }
    Ok(ClientCredentials {
        token_url,
        client_id,
        client_secret: Secret::new(secret.to_owned()),
        scopes: raw.scopes.clone().unwrap_or_default(),
        resource: raw.resource.clone().unwrap_or_else(|| url.to_owned()),
    })
}

/// `caFile`: a readable PEM file holding at least one certificate.
fn parse_ca(cx: &Ctx<'_>, path: &str, at: &str) -> Result<CaFile, ConfigError> {
    let pem = std::fs::read(path).map_err(|e| cx.err(at, format!("cannot read {path}: {e}")))?;
    match reqwest::Certificate::from_pem_bundle(&pem) {
        Ok(certs) if !certs.is_empty() => Ok(CaFile {
            path: PathBuf::from(path),
            pem,
        }),
        Ok(_) => Err(cx.err(at, format!("{path} holds no PEM certificate"))),
        Err(e) => Err(cx.err(at, format!("{path}: not PEM certificates: {e}"))),
    }
}

/// `bearerTokenEnv` (a variable's name) or `bearerTokenFile` (a path), at most one.
fn parse_bearer(cx: &Ctx<'_>, entry: &RawServer, at: &str) -> Result<Option<Secret>, ConfigError> {
    let token = match (&entry.bearer_token_env, &entry.bearer_token_file) {
        (Some(_), Some(_)) => {
            return Err(cx.err(
                at,
                "give either bearerTokenEnv or bearerTokenFile, not both",
            ));
        }
        (Some(name), None) => {
            let loc = join(at, "bearerTokenEnv");
            std::env::var(name)
                .ok()
                .filter(|t| !t.trim().is_empty())
                .ok_or_else(|| {
                    cx.err(&loc, format!("the environment variable {name} is not set"))
                })?
        }
        (None, Some(path)) => {
            let loc = join(at, "bearerTokenFile");
            std::fs::read_to_string(path)
                .map_err(|e| cx.err(&loc, format!("cannot read {path}: {e}")))?
        }
        (None, None) => return Ok(None),
    };
    let token = token.trim();
    let loc = join(
        at,
        if entry.bearer_token_env.is_some() {
            "bearerTokenEnv"
        } else {
            "bearerTokenFile"
        },
    );
    if token.is_empty() {
        return Err(cx.err(loc, "the token is empty"));
    }
    credentials::check_header_value(&format!("Bearer {token}")).map_err(|e| cx.err(loc, e))?;
    Ok(Some(Secret::new(token.to_owned())))
}

fn parse_ptc(cx: &Ctx<'_>, ptc: &RawPtc, config: &mut Config) -> Result<(), ConfigError> {
    for (name, filter) in ptc.servers.iter().flatten() {
        let at = format!("ptc.servers.{name}");
        let Some(server) = config.servers.iter_mut().find(|s| &s.name == name) else {
            return Err(cx.err(at, "no such server in mcpServers"));
        };
        let RawFilter { allow, deny, ask } = filter;
        if let Some(patterns) = allow {
            server.filter.allow = Some(cx.globs(patterns, &join(&at, "allow"))?);
        }
        if let Some(patterns) = deny {
            server.filter.deny = cx.globs(patterns, &join(&at, "deny"))?;
        }
        if let Some(patterns) = ask {
            server.filter.ask = cx.globs(patterns, &join(&at, "ask"))?;
        }
    }
    if let Some(standalone) = &ptc.standalone {
        config.standalone.clone_from(standalone);
    }
    for (key, value) in ptc.limits.iter().flatten() {
        let text = match value {
            Json::String(s) => s.clone(),
            Json::Number(n) => n.to_string(),
            other => {
                return Err(cx.err(
                    join("ptc.limits", key),
                    format!("expected a number or a string, found {}", kind(other)),
                ));
            }
        };
        config
            .limits
            .set(key, &text)
            .map_err(|e| cx.err(join("ptc.limits", key), e.to_string()))?;
    }
    if let Some(v) = &ptc.parallelism {
        let n = v
            .as_u64()
            .filter(|n| *n > 0)
            .ok_or_else(|| cx.err("ptc.parallelism", "expected a positive integer"))?;
        config
            .limits
            .set("parallelism", &n.to_string())
            .map_err(|e| cx.err("ptc.parallelism", e.to_string()))?;
    }
    if let Some(v) = &ptc.tool_timeout_ms {
        config.limits.tool_timeout_ms = cx.millis(v, "ptc.toolTimeoutMs")?;
    }
    if let Some(v) = &ptc.startup_timeout_ms {
        let ms = cx
            .millis(v, "ptc.startupTimeoutMs")?
            .unwrap_or(DEFAULT_STARTUP_TIMEOUT_MS);
        config.startup_timeout = Duration::from_millis(ms);
    }
    if let Some(v) = &ptc.program_cache {
        config.program_cache = v
            .as_u64()
            .and_then(|n| usize::try_from(n).ok())
            .ok_or_else(|| cx.err("ptc.programCache", "expected a non-negative integer"))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> String {
        Config::parse("c.json", text).unwrap_err().to_string()
    }

    #[test]
    fn a_full_file_parses() {
        let config = Config::parse(
            "c.json",
            r#"{"mcpServers": {
                 "fs": {"command": "srv", "args": ["/tmp"], "env": {"A": "1"}, "cwd": "/"},
                 "web": {"type": "http", "url": "http://127.0.0.1:9/mcp"}},
               "ptc": {"servers": {"fs": {"allow": ["read_*"], "deny": ["read_media*"], "ask": ["read_text_file"]}},
                       "standalone": ["fs.read_file"], "limits": {"steps": 5000, "tool-calls": "9"},
                       "parallelism": 2, "toolTimeoutMs": 500, "startupTimeoutMs": 100,
                       "programCache": 7}}"#,
        )
        .unwrap();
        assert_eq!(config.servers.len(), 2);
        let fs = &config.servers[0];
        assert!(fs.filter.exposes("read_file"));
        assert!(!fs.filter.exposes("read_media_file"));
        assert!(!fs.filter.exposes("write_file"));
        assert!(fs.filter.asks("read_text_file") && !fs.filter.asks("read_file"));
        assert!(config.servers[1].filter.exposes("anything"));
        assert_eq!(config.limits.parallelism, 2);
        assert_eq!(config.limits.tool_timeout_ms, Some(500));
        assert_eq!(config.limits.steps, 5000);
        assert_eq!(config.standalone, vec!["fs.read_file".to_owned()]);
        assert_eq!(config.startup_timeout, Duration::from_millis(100));
        assert_eq!(config.program_cache, 7);
    }

    #[test]
    fn http_credentials_expand_and_their_values_never_show() {
        // PTC_TEST_UNSET_VAR is set nowhere.
        let config = Config::parse(
            "c.json",
            r#"{"mcpServers": {"web": {"url": "https://x/mcp",
                 "headers": {"X-Api-Key": "k-${PTC_TEST_UNSET_VAR:-fallback}", "X-Plain": "p"},
                 "bearerTokenFile": "/nonexistent/ptc-token"}}}"#,
        );
        let err = config.unwrap_err().to_string();
        assert!(
            err.starts_with(
                "c.json: mcpServers.web.bearerTokenFile: cannot read /nonexistent/ptc-token"
            ),
            "{err}"
        );
        let dir = tempfile::tempdir().unwrap();
        let token = dir.path().join("token");
        std::fs::write(&token, "tok-123\n").unwrap();
        let text = json_with_token_file(&token);
        let config = Config::parse("c.json", &text).unwrap();
        let Transport::Http {
            headers, bearer, ..
        } = &config.servers[0].transport
        else {
            panic!("not HTTP");
        };
        assert_eq!(headers[0].0, "X-Api-Key");
        assert_eq!(headers[0].1.expose(), "k-fallback");
        assert_eq!(bearer.as_ref().unwrap().expose(), "tok-123");
        let shown = format!("{config:?}");
        assert!(
            !shown.contains("tok-123") && !shown.contains("k-fallback"),
            "{shown}"
        );
        assert_eq!(
            err_of(
                r#"{"mcpServers": {"w": {"url": "http://x", "headers": {"X": "${PTC_TEST_UNSET_VAR}"}}}}"#
            ),
            "c.json: mcpServers.w.headers.X: the environment variable PTC_TEST_UNSET_VAR is not set"
        );
        assert_eq!(
            err_of(
                r#"{"mcpServers": {"w": {"url": "http://x", "headers": {"Mcp-Session-Id": "1"}}}}"#
            ),
            "c.json: mcpServers.w.headers.Mcp-Session-Id: ptc sets this header itself"
        );
        assert_eq!(
            err_of(
                r#"{"mcpServers": {"w": {"url": "http://x", "bearerTokenEnv": "PTC_TEST_UNSET_VAR"}}}"#
            ),
            "c.json: mcpServers.w.bearerTokenEnv: the environment variable PTC_TEST_UNSET_VAR is not set"
        );
        assert_eq!(
            err_of(r#"{"mcpServers": {"s": {"command": "x", "headers": {}}}}"#),
            "c.json: mcpServers.s.headers: only an HTTP server (`url`) takes it"
        );
        let both = format!(
            r#"{{"mcpServers": {{"w": {{"url": "http://x", "headers": {{"authorization": "Bearer a"}}, "bearerTokenFile": {}}}}}}}"#,
            serde_json::to_string(&token.display().to_string()).unwrap()
        );
        assert!(err_of(&both).contains("not both"), "{}", err_of(&both));
        let ca = serde_json::to_string(&token.display().to_string()).unwrap();
        assert_eq!(
            err_of(&format!(
                r#"{{"mcpServers": {{"w": {{"url": "http://x", "caFile": {ca}}}}}}}"#
            )),
            "c.json: mcpServers.w.caFile: only an https:// server takes it"
        );
        assert!(
            err_of(&format!(
                r#"{{"mcpServers": {{"w": {{"url": "https://x", "caFile": {ca}}}}}}}"#
            ))
            .contains("holds no PEM certificate")
        );
    }

    #[test]
    fn client_credentials_are_checked() {
        assert_eq!(
            err_of(
                r#"{"mcpServers": {"w": {"url": "https://x/mcp", "oauthClientCredentials": {"clientId": "c", "clientSecretEnv": "PTC_TEST_UNSET_VAR"}}}}"#
            ),
            "c.json: mcpServers.w.oauthClientCredentials.tokenUrl: missing field"
        );
        assert_eq!(
            err_of(
                r#"{"mcpServers": {"w": {"url": "https://x/mcp", "oauthClientCredentials": {"tokenUrl": "http://idp.example/token", "clientId": "c", "clientSecretEnv": "X"}}}}"#
            ),
            "c.json: mcpServers.w.oauthClientCredentials.tokenUrl: expected an https:// URL (http:// only on loopback)"
        );
        assert_eq!(
            err_of(
                r#"{"mcpServers": {"w": {"url": "https://x/mcp", "oauthClientCredentials": {"tokenUrl": "https://idp/token", "clientId": "c", "clientSecretEnv": "PTC_TEST_UNSET_VAR"}}}}"#
            ),
            "c.json: mcpServers.w.oauthClientCredentials.clientSecretEnv: the environment variable PTC_TEST_UNSET_VAR is not set"
        );
        assert_eq!(
            err_of(
                r#"{"mcpServers": {"w": {"url": "https://x/mcp", "oauthClientCredentials": {"tokenUrl": "https://idp/token", "clientId": "c"}}}}"#
            ),
            "c.json: mcpServers.w.oauthClientCredentials: give exactly one of clientSecretEnv and clientSecretFile"
        );
        assert!(
            err_of(
                r#"{"mcpServers": {"w": {"url": "https://x/mcp", "headers": {"Authorization": "Bearer a"}, "oauthClientCredentials": {}}}}"#
            )
            .contains("not both")
        );
    }

    fn err_of(text: &str) -> String {
        Config::parse("c.json", text).unwrap_err().to_string()
    }

    fn json_with_token_file(token: &Path) -> String {
        format!(
            r#"{{"mcpServers": {{"web": {{"url": "https://x/mcp",
                 "headers": {{"X-Api-Key": "k-${{PTC_TEST_UNSET_VAR:-fallback}}"}},
                 "bearerTokenFile": {}}}}}}}"#,
            serde_json::to_string(&token.display().to_string()).unwrap()
        )
    }

    #[test]
    fn errors_name_the_file_the_server_and_the_field() {
        assert_eq!(
            err(r#"{"mcpServers": {"fs": {"command": "x", "argz": []}}}"#),
            "c.json: mcpServers.fs.argz: unknown field `argz`, expected one of `type`, `command`, `args`, `env`, `cwd`, `url`, `headers`, `bearerTokenEnv`, `bearerTokenFile`, `caFile`, `oauthClientCredentials`"
        );
        assert_eq!(
            err(r#"{"mcpServers": {"fs": {"command": "x", "args": ["a", 3]}}}"#),
            "c.json: mcpServers.fs.args[1]: invalid type: integer `3`, expected a string"
        );
        assert_eq!(
            err(r#"{"mcpServers": {"fs": {"args": []}}}"#),
            "c.json: mcpServers.fs.command: missing field (or give `url` for an HTTP server)"
        );
        assert_eq!(
            err(r#"{"servers": {}}"#),
            "c.json: servers: unknown field `servers`, expected `mcpServers` or `ptc`"
        );
        assert_eq!(
            err(r#"{}"#),
            "c.json: (top level): missing field `mcpServers`"
        );
        assert_eq!(
            err(r#"{"mcpServers": {}, "ptc": {"servers": {"gh": {}}}}"#),
            "c.json: ptc.servers.gh: no such server in mcpServers"
        );
        assert_eq!(
            err(
                r#"{"mcpServers": {"a": {"command": "x"}}, "ptc": {"servers": {"a": {"ask": "x"}}}}"#
            ),
            "c.json: ptc.servers.a.ask: invalid type: string \"x\", expected a sequence"
        );
        assert!(
            err(r#"{"mcpServers": {}, "ptc": {"limits": {"stepz": 1}}}"#)
                .starts_with("c.json: ptc.limits.stepz: ")
        );
        assert!(err("{").starts_with("c.json: line 1 column 1: not valid JSON"));
        assert_eq!(
            err(r#"{"mcpServers": {"a.b": {"command": "x"}}}"#),
            "c.json: mcpServers.a.b: a server name must be non-empty, without dots or white space (it prefixes its tools as NAME.TOOL)"
        );
        assert_eq!(
            err(r#"{"mcpServers": {"w": {"type": "sse", "url": "http://x"}}}"#),
            "c.json: mcpServers.w.type: `sse` is not supported with `url`; expected \"http\" (streamable HTTP)"
        );
    }
}
