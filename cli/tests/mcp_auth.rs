//! `ptc mcp --http` and its auth flags (cli/src/mcp_server.rs): a non-loopback address
//! without an auth mode is refused unless `--unsafe-no-auth` says so, and a static token
//! from the environment guards the real server.

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}"#;

fn config() -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mcp.json");
    std::fs::write(&path, r#"{"mcpServers": {}}"#).unwrap();
    let path = path.to_str().unwrap().to_owned();
    (dir, path)
}

fn ptc_mcp(args: &[&str], env: &[(&str, &str)]) -> Child {
    let mut command = Command::new(env!("CARGO_BIN_EXE_ptc"));
    command
        .arg("mcp")
        .args(args)
        .env("PTC_LOG", "info")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        command.env(k, v);
    }
    command.spawn().expect("ptc starts")
}

/// The address the server says it serves at (from its log), or its whole stderr if it
/// exited first.
fn served_at(child: &mut Child) -> Result<String, String> {
    let stderr = child.stderr.take().unwrap();
    let mut lines = BufReader::new(stderr).lines();
    let mut seen = String::new();
    for line in lines.by_ref() {
        let line = line.unwrap();
        if let Some(at) = line.find("at http://") {
            let rest = &line[at + "at http://".len()..];
            let addr = rest.trim_end_matches("/mcp").to_owned();
            // Keep draining stderr so the server never blocks on it.
            std::thread::spawn(move || lines.for_each(drop));
            return Ok(addr);
        }
        seen.push_str(&line);
        seen.push('\n');
    }
    Err(seen)
}

/// POSTs an initialize to `addr` with `authorization`; the status line.
fn post(addr: &str, authorization: Option<&str>) -> String {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let extra = authorization.map_or(String::new(), |a| format!("Authorization: {a}\r\n"));
    write!(
        stream,
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\n{extra}Content-Length: {}\r\n\
         Connection: close\r\n\r\n{INIT}",
        INIT.len()
    )
    .unwrap();
    let mut answer = [0u8; 512];
    let n = stream.read(&mut answer).unwrap_or(0);
    String::from_utf8_lossy(&answer[..n])
        .lines()
        .next()
        .unwrap_or_default()
        .to_owned()
}

#[test]
fn a_non_loopback_address_without_auth_is_refused() {
    let (_dir, config) = config();
    let child = ptc_mcp(&["--config", &config, "--http", "0.0.0.0:0"], &[]);
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("not a loopback address and no authentication is set")
            && stderr.contains("--unsafe-no-auth"),
        "{stderr}"
    );
}

#[test]
fn unsafe_no_auth_serves_a_non_loopback_address_with_a_warning() {
    let (_dir, config) = config();
    let mut child = ptc_mcp(
        &[
            "--config",
            &config,
            "--http",
            "0.0.0.0:0",
            "--unsafe-no-auth",
        ],
        &[],
    );
    let served = served_at(&mut child);
    let _ = child.kill();
    let _ = child.wait();
    assert!(served.is_ok(), "{served:?}");
}

#[test]
fn a_static_token_from_the_environment_guards_the_server() {
    let (_dir, config) = config();
    let token = "cli-test-token-abcdefgh";
    let mut child = ptc_mcp(
        &[
            "--config",
            &config,
            "--http",
            "127.0.0.1:0",
            "--auth-token-env",
            "PTC_TEST_TOKEN",
        ],
        &[("PTC_TEST_TOKEN", token)],
    );
    let addr = served_at(&mut child).expect("the server started");
    let good = post(&addr, Some(&format!("Bearer {token}")));
    let bad = post(&addr, Some("Bearer cli-test-token-abcdefgX"));
    let none = post(&addr, None);
    let _ = child.kill();
    let _ = child.wait();
    assert!(good.contains(" 200 "), "{good}");
    assert!(bad.contains(" 401 "), "{bad}");
    assert!(none.contains(" 401 "), "{none}");
}

#[test]
fn bad_auth_settings_are_usage_errors_that_never_show_the_token() {
    let (_dir, config) = config();
    let child = ptc_mcp(
        &[
            "--config",
            &config,
            "--http",
            "1",
            "--auth-token-env",
            "PTC_TEST_SHORT",
        ],
        &[("PTC_TEST_SHORT", "tiny-secret")],
    );
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("at least 16 bytes"), "{stderr}");
    assert!(!stderr.contains("tiny-secret"), "{stderr}");
    let child = ptc_mcp(
        &[
            "--config",
            &config,
            "--http",
            "1",
            "--oauth-issuer",
            "http://idp.example",
            "--public-url",
            "https://gw.example/mcp",
        ],
        &[],
    );
    // Without a JWKS flag the keys are discovered from the issuer, which must then be
    // https:// (or loopback): a plain-http issuer is refused at once.
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("--oauth-issuer (discovery) http://idp.example: expected an https:// URL"),
        "{stderr}"
    );
}
