//! The configuration file's shape, as serde reads it: every object closed
//! (`deny_unknown_fields`), every field typed, objects in file order. What serde cannot say —
//! one transport per server, the keys a transport takes, URLs, secrets, globs, budgets — the
//! parent module checks on these structs, naming the same locations.
//!
//! Invariant: a file that deserialises here has only known keys, each of the right JSON
//! type; `serde_path_to_error` gives the location of the first that does not.

use indexmap::IndexMap;
use serde::Deserialize;
use serde_json::Value as Json;

/// The whole file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(super) struct RawFile {
    pub(super) mcp_servers: IndexMap<String, RawServer>,
    #[serde(default)]
    pub(super) ptc: Option<RawPtc>,
}

/// One entry of `mcpServers`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(super) struct RawServer {
    #[serde(rename = "type")]
    pub(super) kind: Option<String>,
    pub(super) command: Option<String>,
    pub(super) args: Option<Vec<String>>,
    pub(super) env: Option<IndexMap<String, String>>,
    pub(super) cwd: Option<String>,
    pub(super) url: Option<String>,
    pub(super) headers: Option<IndexMap<String, String>>,
    pub(super) bearer_token_env: Option<String>,
    pub(super) bearer_token_file: Option<String>,
    pub(super) ca_file: Option<String>,
    pub(super) oauth_client_credentials: Option<RawClientCredentials>,
}

impl RawServer {
    /// The HTTP-only keys present, by their names in the file.
    pub(super) fn http_keys(&self) -> Vec<&'static str> {
        let present = [
            ("headers", self.headers.is_some()),
            ("bearerTokenEnv", self.bearer_token_env.is_some()),
            ("bearerTokenFile", self.bearer_token_file.is_some()),
            ("caFile", self.ca_file.is_some()),
            (
                "oauthClientCredentials",
                self.oauth_client_credentials.is_some(),
            ),
        ];
        present
            .iter()
            .filter(|(_, on)| *on)
            .map(|(k, _)| *k)
            .collect()
    }

    /// The stdio-only keys present, by their names in the file.
    pub(super) fn stdio_keys(&self) -> Vec<&'static str> {
        let present = [
            ("args", self.args.is_some()),
            ("env", self.env.is_some()),
            ("cwd", self.cwd.is_some()),
        ];
        present
            .iter()
            .filter(|(_, on)| *on)
            .map(|(k, _)| *k)
            .collect()
    }
}

/// `oauthClientCredentials`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(super) struct RawClientCredentials {
    pub(super) token_url: Option<String>,
    pub(super) client_id: Option<String>,
    pub(super) client_secret_env: Option<String>,
    pub(super) client_secret_file: Option<String>,
    pub(super) scopes: Option<Vec<String>>,
    pub(super) resource: Option<String>,
}

/// The `ptc` section.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(super) struct RawPtc {
    pub(super) servers: Option<IndexMap<String, RawFilter>>,
    pub(super) standalone: Option<Vec<String>>,
    /// Budgets by `--limit` name: numbers or strings, checked by `Limits::set`.
    pub(super) limits: Option<IndexMap<String, Json>>,
    pub(super) parallelism: Option<Json>,
    pub(super) tool_timeout_ms: Option<Json>,
    pub(super) startup_timeout_ms: Option<Json>,
    pub(super) program_cache: Option<Json>,
}

/// `ptc.servers.NAME`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawFilter {
    pub(super) allow: Option<Vec<String>>,
    pub(super) deny: Option<Vec<String>>,
    pub(super) ask: Option<Vec<String>>,
}
