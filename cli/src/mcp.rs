//! `ptc mcp --config FILE [--http ADDR]`: hands over to the `ptc-mcp` binary, which serves
//! MCP (spec/reference/mcp.md). The MCP and HTTP stack (rmcp, hyper, reqwest, rustls) lives
//! in that binary only, so that `ptc run` starts without loading and relocating it (about half
//! of the `ptc` binary's relocated pages; benches/README.md, "Start-up").
//!
//! `ptc-mcp` is looked for beside the running `ptc` (how `cargo install` and the release
//! archives place it), then on `PATH`. On Unix the process becomes `ptc-mcp` (`exec`), so
//! the MCP client's stdio, signals and exit status are the server's own; elsewhere `ptc`
//! runs it as a child with inherited stdio and exits with its status.

use crate::Usage;
use ptc_cli::mcp_args::McpArgs;
use std::path::PathBuf;
use std::process::Command;

/// The server binary's file name.
const SERVER: &str = "ptc-mcp";

/// The server binary beside the running executable, if there is one.
fn beside_this_executable() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let candidate = exe
        .parent()?
        .join(format!("{SERVER}{}", std::env::consts::EXE_SUFFIX));
    candidate.is_file().then_some(candidate)
}

pub(crate) fn run(args: &McpArgs) -> Result<u8, Usage> {
    let program = beside_this_executable().unwrap_or_else(|| PathBuf::from(SERVER));
    let mut command = Command::new(&program);
    command.args(args.to_args());
    let error = hand_over(&mut command);
    let hint = if error.kind() == std::io::ErrorKind::NotFound {
        " (`ptc mcp` runs the ptc-mcp binary, installed beside ptc by `cargo install ptc-cli`; \
         it is neither beside this ptc nor on PATH)"
    } else {
        ""
    };
    log_line!(
        "ptc: error: cannot start {}: {error}{hint}",
        program.display()
    );
    Ok(1)
}

/// Replaces this process with the server; returns only if that failed.
#[cfg(unix)]
fn hand_over(command: &mut Command) -> std::io::Error {
    use std::os::unix::process::CommandExt as _;
    command.exec()
}

/// Runs the server as a child and exits with its status; returns only if it did not start.
#[cfg(not(unix))]
fn hand_over(command: &mut Command) -> std::io::Error {
    match command.status() {
        Ok(status) => std::process::exit(status.code().unwrap_or(1)),
        Err(error) => error,
    }
}
