//! `ptc serve` against a hostile host (issue 38): answers it cannot decode fail their call
//! at once with the reason, ids are kept exactly and matched exactly, the nesting limit is
//! the documented one, a closed stdout stops the engine, and a host that never reads its
//! stdout cannot make the engine grow.

use serde_json::{Value as Json, json};
use std::io::{BufRead as _, BufReader, Write as _};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
    stderr: std::thread::JoinHandle<String>,
}

impl Server {
    fn start() -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_ptc"))
            .arg("serve")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("ptc serve starts");
        let stdout = child.stdout.take().unwrap();
        let stderr = child.stderr.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stderr = std::thread::spawn(move || {
            let mut text = String::new();
            let _ = std::io::Read::read_to_string(&mut BufReader::new(stderr), &mut text);
            text
        });
        Server {
            stdin: child.stdin.take(),
            child,
            lines,
            stderr,
        }
    }

    fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    fn send(&mut self, frame: &Json) {
        self.send_raw(frame.to_string().as_bytes());
    }

    fn recv(&mut self) -> Json {
        let line = self
            .lines
            .recv_timeout(Duration::from_secs(20))
            .expect("the engine answers within 20 s");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
    }

    /// Closes stdin and returns the remaining frames, the exit status and stderr.
    fn finish(mut self) -> (Vec<Json>, std::process::ExitStatus, String) {
        drop(self.stdin.take());
        let mut rest = Vec::new();
        while let Ok(line) = self.lines.recv_timeout(Duration::from_secs(20)) {
            rest.push(serde_json::from_str(&line).unwrap());
        }
        let status = self.child.wait().unwrap();
        (rest, status, self.stderr.join().unwrap())
    }
}

fn request(id: impl Into<Json>, method: &str, params: Json) -> Json {
    json!({"jsonrpc": "2.0", "id": id.into(), "method": method, "params": params})
}

fn tool(name: &str) -> Json {
    json!({"name": name, "description": format!("{name} things."),
           "inputSchema": {"type": "object", "properties": {"v": {}}}})
}

fn run(id: impl Into<Json>, expression: &str, tools: &[&str], limits: Json) -> Json {
    let tools: Vec<Json> = tools.iter().map(|t| tool(t)).collect();
    request(
        id,
        "run",
        json!({"expression": expression, "tools": tools, "limits": limits}),
    )
}

/// A tool call the engine sent: its JSON-RPC id.
fn tool_call_id(frame: &Json) -> Json {
    assert_eq!(frame["method"], "tool/call", "{frame}");
    frame["id"].clone()
}

/// Makes the answer line for a `tool/call` id.
type AnswerLine = Box<dyn Fn(&Json) -> String>;

#[test]
fn undecodable_answers_fail_their_call_at_once_with_the_reason() {
    let mut server = Server::start();
    let cases: Vec<(&str, AnswerLine)> = vec![
        (
            "number out of range",
            Box::new(|id| format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{"x":1e999}}}}"#)),
        ),
        (
            "number out of range",
            Box::new(|id| {
                format!(
                    r#"{{"jsonrpc":"2.0","id":{id},"result":{}}}"#,
                    "9".repeat(400)
                )
            }),
        ),
        (
            "expected value",
            Box::new(|id| format!(r#"{{"jsonrpc":"2.0","id":{id},"result":NaN}}"#)),
        ),
        (
            "nested deeper than 128",
            Box::new(|id| {
                format!(
                    r#"{{"jsonrpc":"2.0","id":{id},"result":{}{}}}"#,
                    "[".repeat(300),
                    "]".repeat(300)
                )
            }),
        ),
        (
            "limit is 1048576",
            Box::new(|id| {
                format!(
                    r#"{{"jsonrpc":"2.0","id":{id},"result":"{}"}}"#,
                    "x".repeat(2 << 20)
                )
            }),
        ),
        (
            "limit is 1048576",
            Box::new(|id| {
                format!(
                    r#"{{"jsonrpc":"2.0","result":"{}","id":{id}}}"#,
                    "y".repeat(2 << 20)
                )
            }),
        ),
    ];
    for (n, (reason, line)) in cases.iter().enumerate() {
        let started = Instant::now();
        server.send(&run(
            n as u64 + 1,
            "(list (A))",
            &["A"],
            json!({"tool-timeout-ms": 60000}),
        ));
        let id = tool_call_id(&server.recv());
        server.send_raw(line(&id).as_bytes());
        let parse_error = server.recv();
        assert!(parse_error["error"]["code"].is_i64(), "{parse_error}");
        assert_eq!(parse_error["id"], Json::Null);
        let done = server.recv();
        assert_eq!(done["id"], n as u64 + 1, "{done}");
        let text = done["result"]["value"][0]["error"]
            .as_str()
            .unwrap_or_default();
        assert!(
            text.contains("could not be read") && text.contains(reason),
            "{reason}: {done}"
        );
        assert!(started.elapsed() < Duration::from_secs(10));
    }
    let (_, status, _) = server.finish();
    assert!(status.success());
}

#[test]
fn ids_are_kept_and_matched_exactly() {
    let mut server = Server::start();
    // An integer id past 2^64 comes back exactly as sent.
    let big = "123456789012345678901234567890";
    server.send_raw(format!(r#"{{"jsonrpc":"2.0","id":{big},"method":"initialize"}}"#).as_bytes());
    let line = server.lines.recv_timeout(Duration::from_secs(20)).unwrap();
    assert!(line.contains(&format!(r#""id":{big}"#)), "{line}");
    // A run with such an id: tool/call names it exactly, and a cancellation finds it.
    let tools = json!([{"name": "A", "inputSchema": {"type": "object"}}]);
    server.send_raw(format!(r#"{{"jsonrpc":"2.0","id":{big},"method":"run","params":{{"expression":"(A)","tools":{tools}}}}}"#).as_bytes());
    let line = server.lines.recv_timeout(Duration::from_secs(20)).unwrap();
    assert!(line.contains(&format!(r#""run":{big}"#)), "{line}");
    let call: Json = serde_json::from_str(&line).unwrap();
    let id = tool_call_id(&call);
    // "c01" is not "c1": ignored, the call still waits.
    let text = id.as_str().unwrap();
    let padded = format!("c0{}", &text[1..]);
    server.send(&json!({"jsonrpc": "2.0", "id": padded, "result": "wrong"}));
    server.send_raw(format!(r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":{big}}}}}"#).as_bytes());
    let cancel = server.recv();
    assert_eq!(cancel["method"], "notifications/cancelled", "{cancel}");
    let line = server.lines.recv_timeout(Duration::from_secs(20)).unwrap();
    assert!(line.contains(&format!(r#""id":{big}"#)), "{line}");
    let done: Json = serde_json::from_str(&line).unwrap();
    assert_eq!(done["result"]["outcome"], "interrupted", "{done}");
    // 128 levels parse; 129 do not.
    let nested = |depth: usize| {
        format!(
            r#"{{"jsonrpc":"2.0","id":5,"method":"initialize","params":{{"x":{}{}}}}}"#,
            "[".repeat(depth - 2),
            "]".repeat(depth - 2)
        )
    };
    server.send_raw(nested(128).as_bytes());
    assert_eq!(server.recv()["id"], 5);
    server.send_raw(nested(129).as_bytes());
    assert_eq!(server.recv()["error"]["code"], -32700);
    let (_, status, _) = server.finish();
    assert!(status.success());
}

#[test]
fn a_closed_stdout_stops_the_engine_like_eof() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ptc"))
        .arg("serve")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    drop(child.stdout.take());
    // A busy run, then a frame whose answer cannot be written.
    let busy = run(
        1,
        "(let ((n 0)) (while t (setq n (1+ n))))",
        &[],
        json!({"steps": 1000000000, "seconds": 600}),
    );
    let _ = writeln!(stdin, "{busy}");
    let _ = writeln!(stdin, "{}", request(2, "initialize", json!({})));
    let _ = stdin.flush();
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            assert!(status.success(), "{status}");
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(15),
            "ptc serve kept running"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_host_that_never_reads_cannot_grow_the_engine() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ptc"))
        .arg("serve")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let frame = format!(
            "{}\n",
            request(1, "describe", json!({"tools": [tool("A")]}))
        );
        let started = Instant::now();
        let mut sent = 0usize;
        while started.elapsed() < Duration::from_secs(4) && sent < 400_000 {
            if stdin.write_all(frame.as_bytes()).is_err() {
                break;
            }
            sent += 1;
        }
        sent
    });
    std::thread::sleep(Duration::from_secs(5));
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let rss_kb: u64 = status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let _ = child.kill();
    let _ = child.wait();
    let sent = writer.join().unwrap();
    // The host blocks once the pipes and the bounded queue are full.
    assert!(
        sent < 400_000,
        "the engine read {sent} frames nobody read the answers of"
    );
    assert!(rss_kb < 150_000, "RSS {rss_kb} kB");
}
