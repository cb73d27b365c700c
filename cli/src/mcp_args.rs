//! The arguments of `ptc mcp --config FILE [--http ADDR]`, parsed by both binaries: `ptc`
//! checks them (and answers `--help`) before it hands over to `ptc-mcp`, which parses the
//! same words again. [`McpArgs::to_args`] gives those words back, so what `ptc` accepted is
//! exactly what `ptc-mcp` receives.

use clap::Args;
use std::ffi::OsString;
use std::path::PathBuf;

// `ptc mcp`'s and `ptc-mcp`'s arguments; the doc comment is their `--help` text.
/// Serve MCP: ToolCall and ToolSearch over the tools of the configured MCP servers.
#[derive(Debug, Args)]
pub struct McpArgs {
    /// The configuration: `{"mcpServers": {...}, "ptc": {...}}`.
    #[arg(long, value_name = "FILE")]
    pub config: PathBuf,
    /// Serve streamable HTTP at http://ADDR/mcp instead of stdio (`PORT` alone binds
    /// 127.0.0.1).
    #[arg(long, value_name = "ADDR")]
    pub http: Option<String>,
    /// Require `Authorization: Bearer TOKEN` over --http, TOKEN read from the environment
    /// variable NAME (at least 16 characters).
    #[arg(long, value_name = "NAME", requires = "http", group = "auth")]
    pub auth_token_env: Option<String>,
    /// Require `Authorization: Bearer TOKEN` over --http, TOKEN read from the file PATH.
    #[arg(long, value_name = "PATH", requires = "http", group = "auth")]
    pub auth_token_file: Option<PathBuf>,
    /// Act as an OAuth 2.1 resource server over --http: require JWT access tokens issued
    /// by URL (their `iss`) for --public-url (their `aud`).
    #[arg(
        long,
        value_name = "URL",
        requires_all = ["http", "public_url"],
        group = "auth"
    )]
    pub oauth_issuer: Option<String>,
    /// The issuer's JWKS (its `jwks_uri`), fetched and cached; without it or
    /// `--oauth-jwks-file`, discovered from the issuer's metadata (RFC 8414 / OpenID).
    #[arg(
        long,
        value_name = "URL",
        requires = "oauth_issuer",
        conflicts_with = "oauth_jwks_file"
    )]
    pub oauth_jwks_url: Option<String>,
    /// The issuer's JWKS from a file (air-gapped set-ups).
    #[arg(long, value_name = "PATH", requires = "oauth_issuer")]
    pub oauth_jwks_file: Option<PathBuf>,
    /// A scope every access token must hold (repeat for several).
    #[arg(long, value_name = "SCOPE", requires = "oauth_issuer")]
    pub oauth_scope: Vec<String>,
    /// Seconds of clock skew allowed on a token's `exp` and `nbf` (default 30).
    #[arg(long, value_name = "SECONDS", requires = "oauth_issuer")]
    pub oauth_leeway: Option<u64>,
    /// This gateway's URL as clients reach it (e.g. https://mcp.example.com/mcp): the OAuth
    /// audience, and a host accepted in `Host` and `Origin`.
    #[arg(long, value_name = "URL", requires = "http")]
    pub public_url: Option<String>,
    /// Serve --http on a non-loopback address WITHOUT authentication: anyone who reaches
    /// it can call every upstream tool.
    #[arg(long, requires = "http", conflicts_with = "auth")]
    pub unsafe_no_auth: bool,
}

impl McpArgs {
    /// The command-line words that parse back to these arguments (`--NAME=VALUE`, so a
    /// value that starts with `-` stays a value).
    #[must_use]
    pub fn to_args(&self) -> Vec<OsString> {
        let mut config = OsString::from("--config=");
        config.push(&self.config);
        let mut words = vec![config];
        if let Some(http) = &self.http {
            words.push(format!("--http={http}").into());
        }
        let mut pair = |name: &str, value: &std::ffi::OsStr| {
            let mut word = OsString::from(format!("--{name}="));
            word.push(value);
            words.push(word);
        };
        if let Some(v) = &self.auth_token_env {
            pair("auth-token-env", v.as_ref());
        }
        if let Some(v) = &self.auth_token_file {
            pair("auth-token-file", v.as_ref());
        }
        if let Some(v) = &self.oauth_issuer {
            pair("oauth-issuer", v.as_ref());
        }
        if let Some(v) = &self.oauth_jwks_url {
            pair("oauth-jwks-url", v.as_ref());
        }
        if let Some(v) = &self.oauth_jwks_file {
            pair("oauth-jwks-file", v.as_ref());
        }
        for v in &self.oauth_scope {
            pair("oauth-scope", v.as_ref());
        }
        if let Some(v) = &self.oauth_leeway {
            pair("oauth-leeway", v.to_string().as_ref());
        }
        if let Some(v) = &self.public_url {
            pair("public-url", v.as_ref());
        }
        if self.unsafe_no_auth {
            words.push("--unsafe-no-auth".into());
        }
        words
    }
}

#[cfg(test)]
mod tests {
    use super::McpArgs;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        args: McpArgs,
    }

    fn round_trip(words: &[&str]) {
        let first = Cli::parse_from(std::iter::once("ptc-mcp").chain(words.iter().copied()));
        let again = Cli::parse_from(std::iter::once("ptc-mcp".into()).chain(first.args.to_args()));
        assert_eq!(first.args.config, again.args.config);
        assert_eq!(first.args.http, again.args.http);
        assert_eq!(format!("{:?}", first.args), format!("{:?}", again.args));
    }

    #[test]
    fn arguments_survive_the_hand_over() {
        round_trip(&["--config", "mcp.json"]);
        round_trip(&["--config=-odd name.json", "--http", "8931"]);
        round_trip(&["--http=127.0.0.1:9000", "--config=/a b/c.json"]);
        round_trip(&["--config=c", "--http=0.0.0.0:1", "--auth-token-env=-T"]);
        round_trip(&["--config=c", "--http=1", "--auth-token-file=/a b"]);
        round_trip(&[
            "--config=c",
            "--http=1",
            "--oauth-issuer=https://idp",
            "--oauth-jwks-file=/k.json",
            "--oauth-scope=a",
            "--oauth-scope=b",
            "--oauth-leeway=5",
            "--public-url=https://gw/mcp",
        ]);
        round_trip(&["--config=c", "--http=0.0.0.0:1", "--unsafe-no-auth"]);
    }

    #[test]
    fn auth_modes_exclude_each_other_and_need_http() {
        let parse = |words: &[&str]| {
            Cli::try_parse_from(std::iter::once("ptc-mcp").chain(words.iter().copied())).is_ok()
        };
        assert!(!parse(&["--config=c", "--auth-token-env=T"]));
        assert!(!parse(&[
            "--config=c",
            "--http=1",
            "--auth-token-env=T",
            "--auth-token-file=f"
        ]));
        assert!(!parse(&[
            "--config=c",
            "--http=1",
            "--auth-token-env=T",
            "--unsafe-no-auth"
        ]));
        assert!(!parse(&[
            "--config=c",
            "--http=1",
            "--oauth-issuer=https://i"
        ]));
        assert!(parse(&[
            "--config=c",
            "--http=1",
            "--oauth-issuer=https://i",
            "--public-url=https://g/mcp",
            "--oauth-jwks-url=https://i/jwks"
        ]));
    }
}
