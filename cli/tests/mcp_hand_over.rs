//! `ptc mcp` hands over to the `ptc-mcp` binary (cli/src/mcp.rs): the MCP client's stdio
//! reaches the server unchanged, the server's exit status is `ptc mcp`'s, and a `ptc`
//! without its server says what is missing.

use std::io::Write as _;
use std::process::{Command, Output, Stdio};

fn run(program: &str, args: &[&str], input: &str) -> Output {
    let mut child = Command::new(program)
        .args(args)
        .env("PTC_LOG", "warn")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

/// One MCP session over `ptc mcp`'s stdio: initialize, then list the tools; closing stdin
/// ends it.
#[test]
fn an_mcp_session_runs_through_ptc_mcp() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("mcp.json");
    std::fs::write(&config, r#"{"mcpServers": {}}"#).unwrap();
    let session = [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"hand-over","version":"1"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
    ]
    .join("\n")
        + "\n";
    let output = run(
        env!("CARGO_BIN_EXE_ptc"),
        &["mcp", "--config", config.to_str().unwrap()],
        &session,
    );
    let stdout = String::from_utf8(output.stdout).unwrap();
    let replies: Vec<serde_json::Value> = stdout
        .lines()
        .map(|line| serde_json::from_str(line).expect("stdout carries MCP messages only"))
        .collect();
    assert_eq!(replies.len(), 2, "{stdout}");
    assert_eq!(replies[0]["result"]["serverInfo"]["name"], "ptc");
    let tools: Vec<&str> = replies[1]["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    assert!(tools.contains(&"ToolCall"), "{tools:?}");
    assert_eq!(output.status.code(), Some(0));
}

/// The server's usage error (an unreadable configuration) is `ptc mcp`'s, status 2, and
/// `ptc mcp --config X` is the same command as `ptc-mcp --config X`.
#[test]
fn the_servers_exit_status_is_ptc_mcps() {
    let missing = "/nonexistent/ptc-hand-over.json";
    let through_ptc = run(env!("CARGO_BIN_EXE_ptc"), &["mcp", "--config", missing], "");
    let direct = run(env!("CARGO_BIN_EXE_ptc-mcp"), &["--config", missing], "");
    assert_eq!(through_ptc.status.code(), Some(2));
    assert_eq!(direct.status.code(), Some(2));
    assert_eq!(through_ptc.stderr, direct.stderr);
    assert!(
        String::from_utf8_lossy(&direct.stderr).contains(missing),
        "{}",
        String::from_utf8_lossy(&direct.stderr)
    );
}

/// A `ptc` with no `ptc-mcp` beside it or on PATH names what is missing; `ptc` itself still
/// checks the arguments first.
#[test]
fn a_missing_server_binary_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let alone = dir
        .path()
        .join(format!("ptc{}", std::env::consts::EXE_SUFFIX));
    std::fs::copy(env!("CARGO_BIN_EXE_ptc"), &alone).unwrap();
    let mut command = Command::new(&alone);
    command
        .args(["mcp", "--config", "mcp.json"])
        .env("PATH", dir.path())
        .stdin(Stdio::null());
    let output = command.output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("ptc-mcp"), "{stderr}");
    assert!(stderr.contains("cargo install ptc-cli"), "{stderr}");

    let usage = Command::new(&alone).args(["mcp"]).output().unwrap();
    assert_eq!(usage.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&usage.stderr).contains("--config"));
}
