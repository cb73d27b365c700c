//! `ptc serve`: the whole envelope for hosts in any language, as JSON-RPC 2.0 over JSON
//! lines on stdin/stdout (`spec/reference/protocol.md`).
//!
//! Each `run` request gets its own task driving a sans-IO [`Envelope`] directly: a
//! dispatched call becomes a `tool/call` request to the host, the host's answer is fed
//! back (a `CallToolResult`, a bare JSON value, `{"denied": ...}` or a JSON-RPC error), a
//! call the envelope abandons becomes a `notifications/cancelled` to the host, and the
//! settled outcome is the run's result — exactly the object `ptc run --format json` prints.
//!
//! Invariants:
//! - stdout carries protocol frames only, one per line, written by one writer thread
//!   through a byte-bounded queue ([`out`]): a host that does not read stalls the engine
//!   rather than growing it; logs go to stderr.
//! - Every frame from the host is untrusted: a line longer than [`MAX_LINE_BYTES`] is
//!   skipped whole and answered with an invalid-request error; JSON nested deeper than
//!   [`MAX_DEPTH`] levels is a parse error; a malformed frame gets a parse or
//!   invalid-request error and the connection stays up; an answer to an unknown id is
//!   ignored with a log line. Nothing the host sends can panic the server or stall another
//!   run.
//! - A host answer that cannot be decoded (too long, too deep, a number out of range, not
//!   JSON) but names one of our `tool/call` ids exactly fails that call at once with the
//!   reason (the id is found by streaming past the bytes: `ptc_mcp::frame::IdScanner`).
//! - Ids are the host's JSON text ([`RpcId`]): an integer id past 2^64 comes back exactly
//!   as sent, and our `tool/call` ids match only exactly (`"c01"` is not `"c1"`).
//! - EOF on stdin, or a failed write to stdout, cancels every run; each still answers its
//!   `run` request (`interrupted`) if stdout is still there, then the process exits 0.
//! - `run` compiles through one [`ProgramCache`] per connection (`--program-cache N`,
//!   default [`DEFAULT_PROGRAM_CACHE`], 0 turns it off): a script sent again for an equal
//!   roster under equal budgets starts without compiling; another roster or other budgets
//!   never share an entry. `check` always compiles.
//!
//! This module owns the connection: the stdin reader thread, the stdout writer thread, the
//! protocol loop and the routing of frames ([`handle`]); [`params`] decodes a request's
//! parameters, [`run`] drives one run. [`drive_lines`] is the same routing fed from a byte
//! buffer, for the `serve_frames` fuzz target.

mod out;
mod params;
mod run;

use out::OutQueue;
use params::{check, initialize, registry};
use ptc_mcp::frame::{IdScanner, answered_id};
use ptc_runtime::CancelToken;
use ptc_runtime::core::cache::ProgramCache;
use ptc_runtime::core::listing;
use run::start_run;
use serde::Deserialize as _;
use serde_json::{Value as Json, json};
use std::collections::HashMap;
use std::io::BufRead as _;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};
use tokio::sync::mpsc;

/// The protocol version this engine speaks.
pub const PROTOCOL_VERSION: &str = "2026-12-01";
/// The longest line accepted from the host, in bytes (newline excluded).
pub const MAX_LINE_BYTES: usize = 1 << 20;
/// Runs active at once on one connection.
pub const MAX_RUNS: usize = 256;
/// Compiled programs kept per connection unless `--program-cache` says otherwise.
pub const DEFAULT_PROGRAM_CACHE: usize = 128;
/// The deepest JSON nesting accepted in a frame (the frame's own object is level 1).
pub const MAX_DEPTH: usize = 128;

// `ptc serve`'s options (a doc comment here would replace the subcommand's about).
#[allow(missing_docs)]
#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// Compiled programs kept for scripts sent again, least recently used dropped first
    /// (0: compile every run).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_PROGRAM_CACHE)]
    program_cache: usize,
}

const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;
const METHOD_NOT_FOUND: i64 = -32601;
const INVALID_PARAMS: i64 = -32602;

/// What the stdin thread hands the protocol loop.
enum Frame {
    Line(Vec<u8>),
    /// A line past the limit: its length and what its scan found.
    Oversized(usize, Box<IdScanner>),
    Eof,
}

/// A JSON-RPC id as the host wrote it: its JSON text, exact for integers serde_json would
/// read as floats (past 2^64), canonical for strings.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct RpcId(String);

impl RpcId {
    /// The null id.
    fn null() -> RpcId {
        RpcId("null".to_owned())
    }

    /// The id `value`; `raw` gives the exact text of a number serde_json rounded. The raw
    /// text is used only when it is that number: with a key given twice the raw scan sees
    /// the first value and serde_json keeps the last.
    fn of(value: &Json, raw: impl FnOnce() -> Option<Vec<u8>>) -> RpcId {
        if let Json::Number(number) = value
            && number.is_f64()
            && let Some(raw) = raw()
            && let Ok(text) = String::from_utf8(raw)
            // The same float bit for bit: `0.0 == -0.0`, and `2` reads as the integer 2, but
            // neither `0` nor `2` is the id `-0` or `2.00` (both found by fuzzing).
            && serde_json::from_str::<Json>(&text).is_ok_and(|v| {
                v.is_f64() && v.as_f64().map(f64::to_bits) == number.as_f64().map(f64::to_bits)
            })
        {
            return RpcId(text);
        }
        RpcId(value.to_string())
    }

    /// The JSON text.
    pub(crate) fn text(&self) -> &str {
        &self.0
    }
}

/// The exact text of the value of `key` in the objects at `depth` of `line`.
fn raw_of(line: &[u8], key: &'static [u8], depth: u32) -> Option<Vec<u8>> {
    let mut scanner = IdScanner::for_key(key, depth);
    scanner.feed(line);
    scanner.raw_id().map(<[u8]>::to_vec)
}

/// Parses one frame: at most [`MAX_DEPTH`] levels deep.
fn parse_frame(line: &[u8]) -> Result<Json, String> {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escape = false;
    for &b in line {
        if in_string {
            if escape {
                escape = false;
            } else if b == b'\\' {
                escape = true;
            } else if b == b'"' {
                in_string = false;
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' | b'[' => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return Err(format!("JSON nested deeper than {MAX_DEPTH} levels"));
                }
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    // The nesting is bounded above, so serde_json's own limit (one lower) is not needed.
    let mut deserializer = serde_json::Deserializer::from_slice(line);
    deserializer.disable_recursion_limit();
    let value = Json::deserialize(&mut deserializer).map_err(|e| e.to_string())?;
    deserializer.end().map_err(|e| e.to_string())?;
    Ok(value)
}

/// An answer from the host to one of our `tool/call` requests.
enum Answer {
    Result(Json),
    Error(String),
}

/// Where a run receives `(call id, answer)` pairs.
type AnswerQueue = mpsc::UnboundedSender<(String, Answer)>;

/// State shared by the protocol loop and the run tasks.
struct Shared {
    out: Arc<OutQueue>,
    next_request: AtomicU64,
    /// Our outstanding `tool/call` requests: the number of the JSON-RPC id `cN` → (the
    /// run's answer queue, call id).
    pending: Mutex<HashMap<u64, (AnswerQueue, String)>>,
    /// Active runs by their request id.
    runs: Mutex<HashMap<RpcId, CancelToken>>,
    /// Compiled programs of earlier runs (`None`: compile every run).
    cache: Option<ProgramCache>,
}

impl Shared {
    fn send(&self, frame: &Json) {
        self.out.send(frame.to_string());
    }

    fn respond(&self, id: &RpcId, result: Json) {
        self.out.send(format!(
            r#"{{"jsonrpc":"2.0","id":{},"result":{result}}}"#,
            id.text()
        ));
    }

    fn error(&self, id: &RpcId, code: i64, message: &str) {
        let error = json!({"code": code, "message": message});
        self.out.send(format!(
            r#"{{"jsonrpc":"2.0","id":{},"error":{error}}}"#,
            id.text()
        ));
    }
}

/// Runs the server until EOF on stdin.
#[must_use]
pub fn main(args: &ServeArgs) -> u8 {
    let out = Arc::new(OutQueue::default());
    let (frames_tx, frames_rx) = mpsc::channel::<Frame>(64);
    let closed = frames_tx.clone();
    let writer = out::spawn_writer(out.clone(), std::io::stdout(), move || {
        log_line!("ptc serve: stdout is closed: stopping as on EOF");
        let _ = closed.blocking_send(Frame::Eof);
    });
    std::thread::spawn(move || read_frames(&frames_tx));
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            log_line!("ptc serve: cannot start the runtime: {error}");
            return 2;
        }
    };
    let shared = Arc::new(Shared {
        out: out.clone(),
        next_request: AtomicU64::new(1),
        pending: Mutex::default(),
        runs: Mutex::default(),
        cache: (args.program_cache > 0).then(|| ProgramCache::new(args.program_cache)),
    });
    runtime.block_on(serve(shared, frames_rx));
    runtime.shutdown_background();
    // The writer drains what is queued and ends.
    out.close();
    let _ = writer.join();
    0
}

/// Reads stdin as lines of at most [`MAX_LINE_BYTES`] bytes.
fn read_frames(frames: &mpsc::Sender<Frame>) {
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    loop {
        let mut line = Vec::new();
        let mut length = 0usize;
        let mut ended = false;
        // Scans a line past the limit as it is skipped (for the id it answers).
        let mut scanner: Option<Box<IdScanner>> = None;
        loop {
            let buffer = match input.fill_buf() {
                Ok(buffer) => buffer,
                Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(_) => &[],
            };
            if buffer.is_empty() {
                ended = true;
                break;
            }
            let (chunk, newline) = match buffer.iter().position(|&b| b == b'\n') {
                Some(at) => (&buffer[..at], true),
                None => (buffer, false),
            };
            length += chunk.len();
            if length <= MAX_LINE_BYTES {
                line.extend_from_slice(chunk);
            } else {
                let scan = scanner.get_or_insert_with(|| {
                    let mut scan = Box::new(IdScanner::new());
                    scan.feed(&std::mem::take(&mut line));
                    scan
                });
                scan.feed(chunk);
            }
            let used = chunk.len() + usize::from(newline);
            input.consume(used);
            if newline {
                break;
            }
        }
        let frame = if length > MAX_LINE_BYTES {
            Some(Frame::Oversized(length, scanner.unwrap_or_default()))
        } else if line.iter().all(u8::is_ascii_whitespace) {
            None
        } else {
            Some(Frame::Line(line))
        };
        if let Some(frame) = frame
            && frames.blocking_send(frame).is_err()
        {
            return;
        }
        if ended {
            let _ = frames.blocking_send(Frame::Eof);
            return;
        }
    }
}

async fn serve(shared: Arc<Shared>, mut frames: mpsc::Receiver<Frame>) {
    let mut tasks = tokio::task::JoinSet::new();
    loop {
        tokio::select! {
            frame = frames.recv() => match frame {
                None | Some(Frame::Eof) => break,
                Some(frame) => on_frame(&shared, frame, &mut tasks),
            },
            Some(_) = tasks.join_next(), if !tasks.is_empty() => {}
        }
    }
    finish(&shared, tasks).await;
}

/// Handles one line (or skipped line) from the host.
fn on_frame(shared: &Arc<Shared>, frame: Frame, tasks: &mut tokio::task::JoinSet<()>) {
    match frame {
        Frame::Eof => {}
        Frame::Oversized(length, scanner) => {
            log_line!("ptc serve: skipped a {length}-byte line");
            let why = format!("the line has {length} bytes; the limit is {MAX_LINE_BYTES}");
            fail_undecodable(shared, &scanner, &why);
            shared.error(
                &RpcId::null(),
                INVALID_REQUEST,
                &format!("Invalid Request: {why}"),
            );
        }
        Frame::Line(line) => handle(shared, &line, tasks),
    }
}

/// EOF: cancels every run and waits for each to answer.
async fn finish(shared: &Shared, mut tasks: tokio::task::JoinSet<()>) {
    if let Ok(runs) = shared.runs.lock() {
        for token in runs.values() {
            token.cancel();
        }
    }
    while tasks.join_next().await.is_some() {}
}

/// Test support for the `serve_frames` fuzz target (fuzz/fuzz_targets/serve_frames.rs):
/// one connection fed `input` split into lines, as `ptc serve` would read it from stdin,
/// with the engine's frames returned as they would be written to stdout.
///
/// The same routing as [`main`] (the frame handling, the run tasks, the output queue),
/// but deterministic in order: after each line the run tasks get `settle` turns of the
/// runtime, so an answer line can meet the `tool/call` it answers; after the last line the
/// input ends (EOF: every run is cancelled and answers). A line longer than
/// [`MAX_LINE_BYTES`] is skipped as stdin's reader would skip it. The program cache holds 8.
#[must_use]
pub fn drive_lines(input: &[u8], settle: usize) -> Vec<String> {
    #[derive(Debug)]
    struct Collect(Arc<Mutex<Vec<u8>>>);
    impl std::io::Write for Collect {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            match self.0.lock() {
                Ok(mut sink) => sink.extend_from_slice(buf),
                Err(_) => return Err(std::io::Error::other("poisoned")),
            }
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    else {
        return Vec::new();
    };
    let out = Arc::new(OutQueue::default());
    let written = Arc::new(Mutex::new(Vec::new()));
    let writer = out::spawn_writer(out.clone(), Collect(written.clone()), || {});
    let shared = Arc::new(Shared {
        out: out.clone(),
        next_request: AtomicU64::new(1),
        pending: Mutex::default(),
        runs: Mutex::default(),
        cache: Some(ProgramCache::new(8)),
    });
    runtime.block_on(async {
        let mut tasks = tokio::task::JoinSet::new();
        for line in input.split(|&b| b == b'\n') {
            let frame = if line.len() > MAX_LINE_BYTES {
                let mut scanner = Box::new(IdScanner::new());
                scanner.feed(line);
                Frame::Oversized(line.len(), scanner)
            } else if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            } else {
                Frame::Line(line.to_vec())
            };
            on_frame(&shared, frame, &mut tasks);
            for _ in 0..settle {
                tokio::task::yield_now().await;
            }
        }
        finish(&shared, tasks).await;
    });
    runtime.shutdown_background();
    out.close();
    let _ = writer.join();
    let bytes = written.lock().map(|w| w.clone()).unwrap_or_default();
    String::from_utf8_lossy(&bytes)
        .lines()
        .map(str::to_owned)
        .collect()
}

/// Handles one frame from the host.
fn handle(shared: &Arc<Shared>, line: &[u8], tasks: &mut tokio::task::JoinSet<()>) {
    let frame: Json = match parse_frame(line) {
        Ok(frame) => frame,
        Err(error) => {
            let mut scanner = IdScanner::new();
            scanner.feed(line);
            fail_undecodable(shared, &scanner, &error);
            shared.error(
                &RpcId::null(),
                PARSE_ERROR,
                &format!("Parse error: {error}"),
            );
            return;
        }
    };
    let Some(object) = frame.as_object() else {
        shared.error(
            &RpcId::null(),
            INVALID_REQUEST,
            "Invalid Request: a frame is one JSON object (batches are not supported)",
        );
        return;
    };
    let valid_id = object
        .get("id")
        .is_none_or(|id| id.is_string() || id.is_number() || id.is_null());
    let id = object
        .get("id")
        .filter(|_| valid_id)
        .map(|id| RpcId::of(id, || raw_of(line, b"id", 1)));
    if object.get("jsonrpc") != Some(&json!("2.0")) || !valid_id {
        shared.error(
            &id.clone().unwrap_or_else(RpcId::null),
            INVALID_REQUEST,
            "Invalid Request: expected {\"jsonrpc\": \"2.0\", ...} with a string or number id",
        );
        return;
    }
    let params = object.get("params").cloned().unwrap_or_else(|| json!({}));
    match (object.get("method"), id) {
        (Some(Json::String(method)), Some(id)) => request(shared, method, &id, &params, tasks),
        (Some(Json::String(method)), None) => notification(shared, method, &params, line),
        (Some(_), id) => shared.error(
            &id.unwrap_or_else(RpcId::null),
            INVALID_REQUEST,
            "Invalid Request: the method must be a string",
        ),
        (None, Some(id)) if object.contains_key("result") || object.contains_key("error") => {
            answer(shared, &id, object);
        }
        (None, id) => shared.error(
            &id.unwrap_or_else(RpcId::null),
            INVALID_REQUEST,
            "Invalid Request: a frame needs a method (request, notification) or a result or error (answer)",
        ),
    }
}

fn request(
    shared: &Arc<Shared>,
    method: &str,
    id: &RpcId,
    params: &Json,
    tasks: &mut tokio::task::JoinSet<()>,
) {
    let outcome = match method {
        "initialize" => initialize(params),
        "describe" => registry(params).map(|registry| {
            let tools: Vec<_> = registry.tools().map(|t| &t.contract).collect();
            json!({
                "name": listing::TOOL_NAME,
                "description": listing::DESCRIPTION,
                "input_schema": listing::input_schema(),
                "listing": listing::tool_listing(&registry),
                "tools": tools,
            })
        }),
        "check" => check(params),
        "run" => match start_run(shared, id, params) {
            Ok(task) => {
                tasks.spawn(task);
                return;
            }
            Err(error) => Err(error),
        },
        other => {
            shared.error(
                id,
                METHOD_NOT_FOUND,
                &format!(
                    "Method not found: {other}; this engine serves initialize, describe, check, run"
                ),
            );
            return;
        }
    };
    match outcome {
        Ok(result) => shared.respond(id, result),
        Err((code, message)) => shared.error(id, code, &message),
    }
}

fn notification(shared: &Shared, method: &str, params: &Json, line: &[u8]) {
    match method {
        "notifications/cancelled" => {
            let key = params
                .get("requestId")
                .map(|id| RpcId::of(id, || raw_of(line, b"requestId", 2)));
            let Some(key) = key else {
                log_line!("ptc serve: notifications/cancelled without a requestId");
                return;
            };
            let token = shared
                .runs
                .lock()
                .ok()
                .and_then(|runs| runs.get(&key).cloned());
            match token {
                Some(token) => token.cancel(),
                None => log_line!(
                    "ptc serve: cancellation of unknown run {} ignored",
                    key.text()
                ),
            }
        }
        "notifications/initialized" => {}
        other => log_line!("ptc serve: unknown notification {other} ignored"),
    }
}

/// The pending call our request `id` (a JSON string) is, forgotten.
fn take_pending(shared: &Shared, id: &Json) -> Option<(AnswerQueue, String)> {
    request_number(id).and_then(|n| {
        shared
            .pending
            .lock()
            .ok()
            .and_then(|mut pending| pending.remove(&n))
    })
}

/// Fails the call an undecodable line answers, if its scan found one of our ids.
fn fail_undecodable(shared: &Shared, scanner: &IdScanner, why: &str) {
    let Some(id) = answered_id(scanner) else {
        return;
    };
    if let Some((run, call)) = take_pending(shared, &id) {
        log_line!("ptc serve: the answer to {id} could not be read: {why}");
        let message = format!("the host's answer could not be read: {why}");
        let _ = run.send((call, Answer::Error(message)));
    }
}

/// Routes the host's answer to one of our `tool/call` requests.
fn answer(shared: &Shared, id: &RpcId, frame: &serde_json::Map<String, Json>) {
    let entry = serde_json::from_str::<Json>(id.text())
        .ok()
        .and_then(|id| take_pending(shared, &id));
    let Some((run, call)) = entry else {
        log_line!(
            "ptc serve: ignored an answer to unknown request id {}",
            id.text()
        );
        return;
    };
    let answer = match frame.get("error") {
        Some(error) => Answer::Error(
            error
                .get("message")
                .and_then(Json::as_str)
                .unwrap_or("the host failed")
                .to_owned(),
        ),
        None => Answer::Result(frame.get("result").cloned().unwrap_or(Json::Null)),
    };
    // The run may have settled meanwhile; then nobody wants the answer.
    let _ = run.send((call, answer));
}

/// Our `tool/call` request ids are `"c1"`, `"c2"`, ...: the number of one, if it is
/// exactly one (`"c01"` or `"c+1"` is not).
fn request_number(id: &Json) -> Option<u64> {
    let text = id.as_str()?;
    let number = text.strip_prefix('c')?.parse().ok()?;
    (request_id(number) == text).then_some(number)
}

fn request_id(number: u64) -> String {
    format!("c{number}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shared(cache: usize) -> (Arc<Shared>, std::sync::mpsc::Receiver<String>) {
        struct Lines(std::sync::mpsc::Sender<String>, Vec<u8>);
        impl std::io::Write for Lines {
            fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
                self.1.extend_from_slice(buf);
                while let Some(at) = self.1.iter().position(|&b| b == b'\n') {
                    let line: Vec<u8> = self.1.drain(..=at).collect();
                    let _ = self
                        .0
                        .send(String::from_utf8_lossy(&line[..at]).into_owned());
                }
                Ok(buf.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let (sink, frames) = std::sync::mpsc::channel();
        let out = Arc::new(OutQueue::default());
        let _writer = out::spawn_writer(out.clone(), Lines(sink, Vec::new()), || {});
        let shared = Arc::new(Shared {
            out,
            next_request: AtomicU64::new(1),
            pending: Mutex::default(),
            runs: Mutex::default(),
            cache: (cache > 0).then(|| ProgramCache::new(cache)),
        });
        (shared, frames)
    }

    /// Runs `params` as request `id` to its end and returns the result object.
    fn run(
        shared: &Arc<Shared>,
        frames: &std::sync::mpsc::Receiver<String>,
        id: u64,
        params: &Json,
    ) -> Json {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let rpc = RpcId::of(&json!(id), || None);
        let task = start_run(shared, &rpc, params).unwrap_or_else(|(_, m)| panic!("{m}"));
        runtime.block_on(task);
        let frame: Json = serde_json::from_str(&frames.recv().unwrap()).unwrap();
        assert_eq!(frame["id"], json!(id), "{frame}");
        frame["result"].clone()
    }

    fn tool(name: &str) -> Json {
        json!({"name": name, "inputSchema": {"type": "object"}})
    }

    #[test]
    fn a_script_sent_again_hits_the_cache_and_another_roster_or_budget_misses() {
        let (shared, frames) = shared(8);
        let stats = || shared.cache.as_ref().unwrap().stats();
        let script = "(let ((x 20)) (+ x 22))";
        let one = json!({"expression": script, "tools": [tool("A")]});
        assert_eq!(run(&shared, &frames, 1, &one)["text"], "42");
        assert_eq!((stats().hits, stats().misses), (0, 1));
        assert_eq!(run(&shared, &frames, 2, &one)["text"], "42");
        assert_eq!((stats().hits, stats().misses), (1, 1));
        // The roster changed (a tool more): a miss, then that roster's own entry hits.
        let two = json!({"expression": script, "tools": [tool("A"), tool("B")]});
        assert_eq!(run(&shared, &frames, 3, &two)["text"], "42");
        assert_eq!((stats().hits, stats().misses), (1, 2));
        assert_eq!(run(&shared, &frames, 4, &two)["text"], "42");
        assert_eq!((stats().hits, stats().misses), (2, 2));
        // Other budgets: a miss (and the tighter budget is the one that applies).
        let tight = json!({"expression": script, "tools": [tool("A")], "limits": {"steps": 1}});
        assert_eq!(run(&shared, &frames, 5, &tight)["error"]["kind"], "step");
        assert_eq!((stats().hits, stats().misses), (2, 3));
        // A rejected script is never cached: it is diagnosed again each time.
        let bad = json!({"expression": "(B)", "tools": [tool("A")]});
        assert_eq!(run(&shared, &frames, 6, &bad)["error"]["kind"], "preflight");
        assert_eq!(run(&shared, &frames, 7, &bad)["error"]["kind"], "preflight");
        assert_eq!((stats().hits, stats().misses, stats().len), (2, 5, 3));
    }

    /// Found by the `serve_frames` fuzz target: with `"id"` given twice, the answer echoed
    /// the first id's text while the frame's id (serde_json's) is the last.
    #[test]
    fn a_number_id_given_twice_is_echoed_as_the_id_the_frame_has() {
        let (shared, frames) = shared(0);
        let mut tasks = tokio::task::JoinSet::new();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let _guard = runtime.enter();
        for (line, id) in [
            (
                &br#"{"id":1,"jsonrpc":"2.0","id":2.50,"method":"initialize"}"#[..],
                "2.5",
            ),
            (
                br#"{"id":1.5,"jsonrpc":"2.0","id":2.50,"method":"initialize"}"#,
                "2.5",
            ),
            (
                br#"{"jsonrpc":"2.0","id":2.50,"method":"initialize"}"#,
                "2.50",
            ),
            (
                br#"{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"initialize"}"#,
                "123456789012345678901234567890",
            ),
            // `0` and `-0` are equal as floats but not the same id (found by fuzzing).
            (
                br#"{"jsonrpc":"2.0","id":0,"id":-0,"method":"initialize"}"#,
                "-0.0",
            ),
            (br#"{"jsonrpc":"2.0","id":-0,"method":"initialize"}"#, "-0"),
            (
                br#"{"id":2,"jsonrpc":"2.0","id":2.00,"method":"initialize"}"#,
                "2.0",
            ),
        ] {
            handle(&shared, line, &mut tasks);
            let answer = frames.recv().unwrap();
            assert!(answer.contains(&format!(r#""id":{id},"#)), "{answer}");
        }
    }

    #[test]
    fn program_cache_zero_compiles_every_run() {
        let (shared, frames) = shared(0);
        assert!(shared.cache.is_none());
        let params = json!({"expression": "(+ 1 2)"});
        assert_eq!(run(&shared, &frames, 1, &params)["text"], "3");
        assert_eq!(run(&shared, &frames, 2, &params)["text"], "3");
    }
}
