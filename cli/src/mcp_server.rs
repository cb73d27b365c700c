//! `ptc-mcp --config FILE [--http ADDR [AUTH]]`: ptc as an MCP code-mode server over the
//! MCP servers the file names (spec/reference/mcp.md). Over a non-loopback address it
//! refuses to start without an auth mode (`--auth-token-env`, `--auth-token-file`,
//! `--oauth-issuer`) unless `--unsafe-no-auth` is given. `ptc mcp` runs this binary with the
//! same arguments; it is a binary of its own so that the MCP and HTTP stack (rmcp, hyper,
//! reqwest, rustls) stays out of `ptc`, whose start-up it would slow (see `ptc`'s `mcp`
//! module).
//!
//! Standard output carries MCP messages only; logs go to stderr through `tracing`,
//! filtered by `PTC_LOG` (EnvFilter syntax, default `info,rmcp=warn`). Exit status: 0 when
//! the client closed the session, 1 when serving failed, 2 for usage errors.

#![forbid(unsafe_code)]

use clap::Parser;
use ptc_cli::log_line;
use ptc_cli::mcp_args::McpArgs;
use ptc_mcp::auth::{
    AuthMode, HttpAuth, JwksSource, OAuth, PublicUrl, StaticToken, jwt::DEFAULT_LEEWAY,
    jwt::OAuthSettings,
};
use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::Duration;
use tracing_subscriber::Layer as _;
use tracing_subscriber::layer::SubscriberExt as _;
use tracing_subscriber::util::SubscriberInitExt as _;

/// The environment variable that filters the server's logs.
const LOG_ENV: &str = "PTC_LOG";

#[derive(Debug, Parser)]
#[command(name = "ptc-mcp", version)]
struct Cli {
    #[command(flatten)]
    args: McpArgs,
}

/// `ADDR` as a socket address; a bare port means loopback.
fn address(text: &str) -> Result<SocketAddr, String> {
    if let Ok(port) = text.trim_start_matches(':').parse::<u16>() {
        return Ok(SocketAddr::from(([127, 0, 0, 1], port)));
    }
    text.parse()
        .map_err(|e| format!("--http {text}: not HOST:PORT or PORT ({e})"))
}

fn main() -> ExitCode {
    let args = Cli::parse().args;
    let filter = tracing_subscriber::EnvFilter::try_from_env(LOG_ENV)
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info,rmcp=warn"));
    let fmt = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_filter(filter);
    #[cfg(feature = "otel")]
    let (exporting, otel) = ptc_cli::otel::layer().unzip();
    #[cfg(not(feature = "otel"))]
    let (exporting, otel) = (
        None::<ptc_cli::otel::Exporting>,
        None::<tracing_subscriber::layer::Identity>,
    );
    let _ = tracing_subscriber::registry()
        .with(fmt)
        .with(otel)
        .try_init();
    let code = serve(&args);
    drop(exporting);
    match code {
        Ok(code) => code,
        Err(message) => {
            log_line!("ptc: error: {message}");
            ExitCode::from(2)
        }
    }
}

/// Serves until the client goes away; `Err` is a usage error.
fn serve(args: &McpArgs) -> Result<ExitCode, String> {
    let config = ptc_mcp::Config::load(&args.config).map_err(|e| e.to_string())?;
    let http = args.http.as_deref().map(address).transpose()?;
    let auth = http_auth(args)?;
    if let Some(addr) = http
        && !addr.ip().is_loopback()
        && !auth.is_on()
    {
        if !args.unsafe_no_auth {
            return Err(format!(
                "--http {addr} is not a loopback address and no authentication is set: \
                 give --auth-token-env, --auth-token-file or --oauth-issuer (or, to expose \
                 every upstream tool to anyone who reaches it, --unsafe-no-auth)"
            ));
        }
        tracing::warn!(
            "--unsafe-no-auth: --http {addr} is not a loopback address and has no \
             authentication: anyone who reaches it can call every upstream tool"
        );
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the runtime: {e}"))?;
    let result = runtime.block_on(async {
        match http {
            Some(addr) => ptc_mcp::serve_http(&config, addr, auth).await,
            None => ptc_mcp::serve_stdio(&config).await,
        }
    });
    // Upstream stderr forwarders may still be reading; do not wait for them.
    runtime.shutdown_timeout(std::time::Duration::from_secs(2));
    match result {
        Ok(()) => Ok(ExitCode::SUCCESS),
        Err(error) => {
            log_line!("ptc: error: {error}");
            Ok(ExitCode::from(1))
        }
    }
}

/// The inbound authentication the arguments ask for (clap has already refused two modes
/// at once and auth flags without `--http`).
fn http_auth(args: &McpArgs) -> Result<HttpAuth, String> {
    let public_url = args
        .public_url
        .as_deref()
        .map(|url| PublicUrl::parse(url).map_err(|e| format!("--public-url {e}")))
        .transpose()?;
    let mode = if let Some(name) = &args.auth_token_env {
        AuthMode::Static(StaticToken::from_env(name).map_err(|e| e.to_string())?)
    } else if let Some(path) = &args.auth_token_file {
        AuthMode::Static(StaticToken::from_file(path).map_err(|e| e.to_string())?)
    } else if let Some(issuer) = &args.oauth_issuer {
        let jwks = match (&args.oauth_jwks_url, &args.oauth_jwks_file) {
            (Some(url), _) => JwksSource::Url(url.clone()),
            (None, Some(path)) => JwksSource::File(path.clone()),
            // Neither: the keys named by the issuer's own metadata (discovery).
            (None, None) => JwksSource::Issuer(issuer.clone()),
        };
        let Some(resource) = public_url.clone() else {
            return Err("--oauth-issuer needs --public-url (the tokens' audience)".to_owned());
        };
        let settings = OAuthSettings {
            resource,
            issuer: issuer.clone(),
            jwks,
            scopes: args.oauth_scope.clone(),
            leeway: args
                .oauth_leeway
                .map_or(DEFAULT_LEEWAY, Duration::from_secs),
        };
        AuthMode::OAuth(Box::new(OAuth::new(settings).map_err(|e| e.to_string())?))
    } else {
        AuthMode::None
    };
    Ok(HttpAuth { mode, public_url })
}
