//! `ptc serve` driven through pipes: the spec's transcript, concurrent runs, out-of-order
//! answers, cancellation, timeouts, EOF, malformed frames and oversized lines.

use serde_json::{Value as Json, json};
use std::io::{BufRead as _, BufReader, Write as _};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

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

fn answer(id: &Json, result: Json) -> Json {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
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

fn zero_elapsed(mut frame: Json) -> Json {
    if let Some(stats) = frame.pointer_mut("/result/stats")
        && stats.get("elapsed_ms").is_some()
    {
        stats["elapsed_ms"] = json!(0);
    }
    frame
}

#[test]
fn the_protocol_chapter_transcript_is_what_the_engine_does() {
    let doc = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec/reference/protocol.md"),
    )
    .unwrap();
    let block = doc
        .split("```transcript\n")
        .nth(1)
        .and_then(|rest| rest.split("\n```").next())
        .expect("protocol.md has a ```transcript block");
    let mut server = Server::start();
    let mut checked = 0;
    for line in block.lines() {
        if let Some(frame) = line.strip_prefix("-> ") {
            server.send_raw(frame.as_bytes());
        } else if let Some(expected) = line.strip_prefix("<- ") {
            let expected: Json = serde_json::from_str(expected).unwrap();
            assert_eq!(
                zero_elapsed(server.recv()),
                expected,
                "transcript line: {line}"
            );
            checked += 1;
        } else {
            panic!("a transcript line starts with -> or <-: {line}");
        }
    }
    assert!(checked >= 10, "{checked}");
    let (rest, status, stderr) = server.finish();
    assert!(rest.is_empty(), "{rest:?}");
    assert!(status.success());
    assert!(
        stderr.contains("ignored an answer to unknown request id \"c4\""),
        "{stderr}"
    );
}

#[test]
fn runs_are_concurrent_and_a_waiting_run_never_stalls_another() {
    let mut server = Server::start();
    server.send(&run(1, "(concat (A :v \"x\") \"!\")", &["A"], json!({})));
    let slow = server.recv();
    assert_eq!(slow["method"], "tool/call");
    assert_eq!(slow["params"]["run"], 1);
    // While run 1 waits on its host, run 2 computes, calls, and settles.
    server.send(&run(
        2,
        "(let ((s 0)) (dotimes (i 5000) (setq s (+ s i))) (list s (B :v s)))",
        &["B"],
        json!({}),
    ));
    let call = server.recv();
    assert_eq!(call["params"]["arguments"], json!({"v": 12_497_500}));
    server.send(&answer(&call["id"], json!("b")));
    let done = server.recv();
    assert_eq!(done["id"], 2);
    assert_eq!(done["result"]["text"], "(12497500 \"b\")");
    // Now run 1 gets its answer.
    server.send(&answer(
        &slow["id"],
        json!({"content": [{"type": "text", "text": "y"}]}),
    ));
    let done = server.recv();
    assert_eq!(done["id"], 1);
    assert_eq!(done["result"]["text"], "y!");
    assert_eq!(done["result"]["outcome"], "completed");
}

#[test]
fn a_batch_answered_in_reverse_joins_in_source_order() {
    let mut server = Server::start();
    server.send(&run(
        "r",
        "(parallel (A :v 1) (A :v 2) (A :v 3) (A :v 4))",
        &["A"],
        json!({}),
    ));
    let calls: Vec<Json> = (0..4).map(|_| server.recv()).collect();
    let ids: Vec<&str> = calls
        .iter()
        .map(|c| c["params"]["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids[3].rsplit('/').next(), Some("4"));
    for call in calls.iter().rev() {
        let v = call["params"]["arguments"]["v"].as_i64().unwrap();
        server.send(&answer(&call["id"], json!(v * 10)));
    }
    let done = server.recv();
    assert_eq!(done["result"]["value"], json!([10, 20, 30, 40]));
    let batches: Vec<&Json> = done["result"]["calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| &c["batch"])
        .collect();
    assert!(batches.iter().all(|b| **b == json!(1)));
}

#[test]
fn host_errors_timeouts_and_the_deadline_are_typed() {
    let mut server = Server::start();
    // A JSON-RPC error answer: the host failed; the guest sees an error value.
    server.send(&run(1, "(list (A))", &["A"], json!({})));
    let call = server.recv();
    server.send(&json!({"jsonrpc": "2.0", "id": call["id"],
                        "error": {"code": -32000, "message": "worker crashed"}}));
    let done = server.recv();
    assert_eq!(
        done["result"]["text"],
        "((:error \"Error: A failed: worker crashed\"))"
    );
    assert_eq!(done["result"]["calls"][0]["status"], "error");
    // A per-call timeout cancels the host's call and fails it.
    server.send(&run(
        2,
        "(list (A) 1)",
        &["A"],
        json!({"tool-timeout-ms": 100}),
    ));
    let call = server.recv();
    let cancelled = server.recv();
    assert_eq!(cancelled["method"], "notifications/cancelled");
    assert_eq!(cancelled["params"]["requestId"], call["id"]);
    let done = server.recv();
    assert_eq!(
        done["result"]["text"],
        "((:error \"Error: A timed out after 100 ms\") 1)"
    );
    // The whole-envelope bound counts tool time.
    server.send(&run(
        3,
        "(progn (A) 1)",
        &["A"],
        json!({"seconds": 0.3, "tool-timeout-ms": "off"}),
    ));
    let _call = server.recv();
    let cancelled = server.recv();
    assert_eq!(cancelled["method"], "notifications/cancelled");
    let done = server.recv();
    assert_eq!(done["result"]["outcome"], "script-error");
    assert_eq!(done["result"]["error"]["kind"], "time");
    assert_eq!(done["result"]["calls"][0]["status"], "cancelled");
    // Bad parameters are invalid-params errors, not runs.
    server.send(&run(4, "1", &["not a name"], json!({})));
    assert_eq!(server.recv()["error"]["code"], -32602);
    server.send(&run(5, "1", &[], json!({"bogus": 1})));
    assert_eq!(server.recv()["error"]["code"], -32602);
    server.send(&request(6, "run", json!({"tools": []})));
    assert_eq!(server.recv()["error"]["code"], -32602);
}

#[test]
fn eof_cancels_every_run_answers_each_and_exits_zero() {
    let mut server = Server::start();
    server.send(&run(1, "(A)", &["A"], json!({})));
    server.send(&run(2, "(parallel (B) (B))", &["B"], json!({})));
    for _ in 0..3 {
        assert_eq!(server.recv()["method"], "tool/call");
    }
    let (rest, status, _stderr) = server.finish();
    assert!(status.success(), "{status}");
    let results: Vec<&Json> = rest.iter().filter(|f| f.get("result").is_some()).collect();
    assert_eq!(results.len(), 2, "{rest:?}");
    assert!(
        results
            .iter()
            .all(|r| r["result"]["outcome"] == "interrupted")
    );
    // Every call the host held was cancelled.
    let cancels = rest
        .iter()
        .filter(|f| f["method"] == "notifications/cancelled")
        .count();
    assert_eq!(cancels, 3);
}

#[test]
fn malformed_frames_get_errors_and_the_connection_stays_up() {
    let mut server = Server::start();
    let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
    let cases: Vec<(Vec<u8>, i64)> = vec![
        (b"not json".to_vec(), -32700),
        (vec![0xff, 0xfe, b'{', b'}'], -32700),
        (deep.into_bytes(), -32700),
        (b"[1, 2]".to_vec(), -32600),
        (br#"{"id": 1, "method": "initialize"}"#.to_vec(), -32600),
        (
            br#"{"jsonrpc": "2.0", "id": {"x": 1}, "method": "initialize"}"#.to_vec(),
            -32600,
        ),
        (
            br#"{"jsonrpc": "2.0", "id": 3, "method": 7}"#.to_vec(),
            -32600,
        ),
        (br#"{"jsonrpc": "2.0", "id": 4}"#.to_vec(), -32600),
        (
            br#"{"jsonrpc": "2.0", "id": 5, "method": "nope"}"#.to_vec(),
            -32601,
        ),
    ];
    for (bytes, code) in cases {
        server.send_raw(&bytes);
        let reply = server.recv();
        assert_eq!(
            reply["error"]["code"],
            code,
            "{}: {reply}",
            String::from_utf8_lossy(&bytes)
        );
    }
    // An oversized line is skipped whole; the next frame is served.
    let huge = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"check\",\"params\":{{\"expression\":\"{}\"}}}}",
        "x".repeat(1_100_000)
    );
    server.send_raw(huge.as_bytes());
    let reply = server.recv();
    assert_eq!(reply["error"]["code"], -32600);
    assert_eq!(reply["id"], Json::Null);
    // Unknown answers and notifications are ignored (logged), and nothing is sent back.
    server.send(&answer(&json!("c77"), json!(1)));
    server.send(&json!({"jsonrpc": "2.0", "method": "notifications/whatever"}));
    server.send(&request(10, "initialize", json!({})));
    let reply = server.recv();
    assert_eq!(reply["id"], 10);
    assert_eq!(reply["result"]["protocolVersion"], "2026-12-01");
    server.send(&request(11, "describe", json!({"tools": [tool("A")]})));
    let reply = server.recv();
    assert!(reply["result"]["listing"].as_str().unwrap().contains('A'));
    assert_eq!(reply["result"]["name"], "ToolCall");
    let (rest, status, stderr) = server.finish();
    assert!(rest.is_empty() && status.success());
    assert!(
        stderr.contains("ignored an answer to unknown request id \"c77\""),
        "{stderr}"
    );
    assert!(
        stderr.contains("unknown notification notifications/whatever"),
        "{stderr}"
    );
}
