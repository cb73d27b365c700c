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
    }

    #[test]
    fn arguments_survive_the_hand_over() {
        round_trip(&["--config", "mcp.json"]);
        round_trip(&["--config=-odd name.json", "--http", "8931"]);
        round_trip(&["--http=127.0.0.1:9000", "--config=/a b/c.json"]);
    }
}
