//! `ptc mcp --config FILE [--http ADDR]`: ptc as an MCP code-mode server over the MCP
//! servers the file names (spec/reference/mcp.md). Standard output carries MCP messages
//! only; logs go to stderr through `tracing`, filtered by `PTC_LOG` (EnvFilter syntax,
//! default `info,rmcp=warn`).

use crate::Usage;
use clap::Args;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

/// The environment variable that filters the server's logs.
const LOG_ENV: &str = "PTC_LOG";

#[derive(Debug, Args)]
pub(crate) struct McpArgs {
    /// The configuration: `{"mcpServers": {...}, "ptc": {...}}`.
    #[arg(long, value_name = "FILE")]
    config: PathBuf,
    /// Serve streamable HTTP at http://ADDR/mcp instead of stdio (`PORT` alone binds
    /// 127.0.0.1).
    #[arg(long, value_name = "ADDR")]
    http: Option<String>,
}

/// `ADDR` as a socket address; a bare port means loopback.
fn address(text: &str) -> Result<SocketAddr, Usage> {
    if let Ok(port) = text.trim_start_matches(':').parse::<u16>() {
        return Ok(SocketAddr::from(([127, 0, 0, 1], port)));
    }
    text.parse()
        .map_err(|e| Usage(format!("--http {text}: not HOST:PORT or PORT ({e})")))
}

pub(crate) fn run(args: &McpArgs) -> Result<ExitCode, Usage> {
    let filter = tracing_subscriber::EnvFilter::try_from_env(LOG_ENV)
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info,rmcp=warn"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .try_init();
    let config = ptc_mcp::Config::load(&args.config).map_err(|e| Usage(e.to_string()))?;
    let http = args.http.as_deref().map(address).transpose()?;
    if let Some(addr) = http
        && !addr.ip().is_loopback()
    {
        tracing::warn!(
            "--http {addr} is not a loopback address: anyone who reaches it can call every upstream tool"
        );
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| Usage(format!("cannot start the runtime: {e}")))?;
    let result = runtime.block_on(async {
        match http {
            Some(addr) => ptc_mcp::serve_http(&config, addr).await,
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
