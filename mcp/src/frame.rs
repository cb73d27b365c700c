//! JSON-RPC lines a peer sends that cannot be decoded: finding which request they answer.
//!
//! A line that is too long, nested too deep, or holds a number serde_json refuses (`1e999`,
//! a 400-digit integer, `NaN`) cannot become a message, so the request it answers would
//! wait for its timeout. [`IdScanner`] reads the raw bytes as they stream past — also the
//! bytes of a line being skipped for its length — and keeps only the top-level `"id"`
//! value (at most [`MAX_ID_BYTES`]) and whether the line has a top-level `"method"` (a
//! request or notification, which answers nothing). Its memory is constant whatever the
//! line's size or nesting.
//!
//! [`BoundedLines`] is the upstream transport built on it (stdio and in-process pipes):
//! lines of at most [`MAX_LINE_BYTES`], and a line that does not decode but names one of
//! our requests becomes a JSON-RPC error answer to that request, with the real reason, so
//! the nested call fails at once instead of timing out. `ptc serve` uses the scanner for
//! its host's answers the same way (cli/src/serve).
//!
//! Invariants: the scanner never allocates more than [`MAX_ID_BYTES`] + 8 bytes; the
//! transport never buffers more than [`MAX_LINE_BYTES`] of one line.

use rmcp::RoleClient;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::Value as Json;
use std::marker::PhantomData;
use std::sync::Arc;
use tokio::io::{AsyncBufReadExt as _, AsyncRead, AsyncWrite, AsyncWriteExt as _, BufReader};

/// The longest id value kept, in bytes (longer ones are not ids we sent).
pub const MAX_ID_BYTES: usize = 128;
/// The longest line an upstream may send, in bytes (rmcp's own limit, which its HTTP
/// client also applies to one event).
pub const MAX_LINE_BYTES: usize = 16 << 20;

/// Reads one JSON text as it streams past and keeps its top-level `"id"` value (or, with
/// [`IdScanner::for_key`], the value of another key in the objects at another depth).
#[derive(Debug, Clone)]
pub struct IdScanner {
    want: &'static [u8],
    at: u32,
    /// Whether the container open at depth `at` is an object.
    in_object: bool,
    depth: u32,
    started: bool,
    not_object: bool,
    in_string: bool,
    escape: bool,
    /// Reading a top-level key: its first bytes (up to 8), `None` once past 8.
    key: Option<Vec<u8>>,
    reading_key: bool,
    expect_key: bool,
    key_is_id: bool,
    capture: Option<Vec<u8>>,
    capture_bad: bool,
    id: Option<Vec<u8>>,
    method: bool,
}

impl Default for IdScanner {
    fn default() -> Self {
        IdScanner::for_key(b"id", 1)
    }
}

impl IdScanner {
    /// A scanner at the start of a line, for the top-level `"id"`.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// A scanner for key `want` (at most 16 bytes, no escapes) in the objects at `depth`
    /// (1: the top level).
    #[must_use]
    pub fn for_key(want: &'static [u8], depth: u32) -> Self {
        IdScanner {
            want,
            at: depth.max(1),
            in_object: false,
            depth: 0,
            started: false,
            not_object: false,
            in_string: false,
            escape: false,
            key: None,
            reading_key: false,
            expect_key: false,
            key_is_id: false,
            capture: None,
            capture_bad: false,
            id: None,
            method: false,
        }
    }

    /// Feeds the next bytes of the line.
    pub fn feed(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.byte(b);
        }
    }

    fn byte(&mut self, b: u8) {
        if self.not_object {
            return;
        }
        if !self.started {
            if b.is_ascii_whitespace() {
                return;
            }
            self.started = true;
            if b != b'{' {
                self.not_object = true;
                return;
            }
        }
        if let Some(capture) = &mut self.capture
            && self.depth >= self.at
        {
            let ends = !self.in_string && self.depth == self.at && (b == b',' || b == b'}');
            if !ends {
                if self.depth > self.at || (!self.in_string && (b == b'{' || b == b'[')) {
                    self.capture_bad = true;
                }
                if capture.len() < MAX_ID_BYTES {
                    if !(capture.is_empty() && b.is_ascii_whitespace()) {
                        capture.push(b);
                    }
                } else {
                    self.capture_bad = true;
                }
            }
        }
        if self.in_string {
            if self.escape {
                self.escape = false;
            } else if b == b'\\' {
                self.escape = true;
                // An escaped key is never the plain `id`/`method` we look for.
                if self.reading_key {
                    self.key = None;
                }
                return;
            } else if b == b'"' {
                self.in_string = false;
                if self.reading_key {
                    self.reading_key = false;
                    let key = self.key.take();
                    self.key_is_id = key.as_deref() == Some(self.want);
                    if self.at == 1 && key.as_deref() == Some(b"method") {
                        self.method = true;
                    }
                }
                return;
            }
            if self.reading_key
                && let Some(key) = &mut self.key
            {
                if key.len() < 16 {
                    key.push(b);
                } else {
                    self.key = None;
                }
            }
            return;
        }
        match b {
            b'"' => {
                self.in_string = true;
                if self.depth == self.at && self.in_object && self.expect_key {
                    self.reading_key = true;
                    self.key = Some(Vec::new());
                }
            }
            b'{' | b'[' => {
                self.depth = self.depth.saturating_add(1);
                if self.depth == self.at {
                    self.in_object = b == b'{';
                    self.expect_key = true;
                }
            }
            b'}' | b']' => {
                if self.depth == self.at {
                    self.finish_capture();
                }
                self.depth = self.depth.saturating_sub(1);
            }
            b',' if self.depth == self.at => {
                self.finish_capture();
                self.expect_key = true;
            }
            b':' if self.depth == self.at && self.in_object => {
                self.expect_key = false;
                if self.key_is_id && self.id.is_none() {
                    self.capture = Some(Vec::new());
                    self.capture_bad = false;
                }
                self.key_is_id = false;
            }
            _ => {}
        }
    }

    fn finish_capture(&mut self) {
        if let Some(mut capture) = self.capture.take() {
            while capture.last().is_some_and(u8::is_ascii_whitespace) {
                capture.pop();
            }
            if !self.capture_bad && !capture.is_empty() {
                self.id = Some(capture);
            }
        }
    }

    /// The top-level `"id"` value seen so far, as JSON (a string or a number), if the
    /// line is an object whose id was complete and short.
    #[must_use]
    pub fn id(&self) -> Option<Json> {
        let raw = self.id.as_deref()?;
        match serde_json::from_slice::<Json>(raw).ok()? {
            id @ (Json::String(_) | Json::Number(_)) => Some(id),
            _ => None,
        }
    }

    /// The raw text of the top-level `"id"` value (exactly as sent), if any.
    #[must_use]
    pub fn raw_id(&self) -> Option<&[u8]> {
        self.id.as_deref()
    }

    /// Whether the line has a top-level `"method"` key (a request or a notification).
    #[must_use]
    pub fn has_method(&self) -> bool {
        self.method
    }
}

/// The id an undecodable line answers, if it looks like an answer: the scanner's id
/// when the line has no `"method"`.
#[must_use]
pub fn answered_id(scanner: &IdScanner) -> Option<Json> {
    if scanner.has_method() {
        return None;
    }
    scanner.id()
}

/// What a read of one line gave.
enum Line {
    Whole,
    Oversized(usize),
    Eof,
}

/// An rmcp client transport over a byte stream pair (a child's stdout and stdin, one
/// half of an in-process pipe): newline-delimited JSON-RPC with bounded lines, where an
/// undecodable answer fails its request at once (see the module docs).
pub struct BoundedLines<R, W> {
    read: BufReader<R>,
    /// The line being read, its length so far and its scan: kept across cancelled polls.
    line: Vec<u8>,
    length: usize,
    scanner: IdScanner,
    write: Arc<tokio::sync::Mutex<Option<W>>>,
    _role: PhantomData<fn() -> RoleClient>,
}

impl<R, W> std::fmt::Debug for BoundedLines<R, W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BoundedLines").finish_non_exhaustive()
    }
}

impl<R: AsyncRead + Unpin, W: AsyncWrite + Unpin> BoundedLines<R, W> {
    /// The transport reading `read` and writing `write`.
    pub fn new(read: R, write: W) -> Self {
        BoundedLines {
            read: BufReader::new(read),
            line: Vec::new(),
            length: 0,
            scanner: IdScanner::new(),
            write: Arc::new(tokio::sync::Mutex::new(Some(write))),
            _role: PhantomData,
        }
    }
}

impl<R: AsyncRead + Unpin, W> BoundedLines<R, W> {
    /// Reads one line into `self.line` (at most [`MAX_LINE_BYTES`]), feeding `scanner`
    /// every byte, also those of a line too long to keep.
    ///
    /// Cancel-safe: the rmcp service loop polls `receive` in a `select!`, so the partial
    /// line, its length and its scan live in `self` between polls, and each chunk is
    /// taken in full (scanned, kept, consumed) with no await in between.
    async fn read_line(&mut self) -> Line {
        loop {
            let available = match self.read.fill_buf().await {
                Ok(available) => available,
                Err(error) => {
                    tracing::warn!("upstream read failed: {error}");
                    return Line::Eof;
                }
            };
            if available.is_empty() {
                return Line::Eof;
            }
            let newline = available.iter().position(|&b| b == b'\n');
            let chunk = &available[..newline.unwrap_or(available.len())];
            self.scanner.feed(chunk);
            self.length = self.length.saturating_add(chunk.len());
            if self.length <= MAX_LINE_BYTES {
                self.line.extend_from_slice(chunk);
            } else if !self.line.is_empty() {
                self.line = Vec::new();
            }
            let used = chunk.len() + usize::from(newline.is_some());
            self.read.consume(used);
            if newline.is_some() {
                return if self.length > MAX_LINE_BYTES {
                    Line::Oversized(self.length)
                } else {
                    Line::Whole
                };
            }
        }
    }
}

/// The error answer that fails request `id` because its answer could not be decoded.
/// `None` only when `id` is not a JSON-RPC id (a string or an integer), which names no
/// request of ours.
fn undecodable(id: Json, why: &str) -> Option<RxJsonRpcMessage<RoleClient>> {
    let id: rmcp::model::RequestId = serde_json::from_value(id).ok()?;
    let message = format!("the server's answer could not be read: {why}");
    Some(rmcp::model::JsonRpcMessage::error(
        rmcp::ErrorData::internal_error(message, None),
        Some(id),
    ))
}

impl<R, W> Transport<RoleClient> for BoundedLines<R, W>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let write = self.write.clone();
        let encoded = serde_json::to_vec(&item);
        async move {
            let mut bytes = encoded.map_err(std::io::Error::other)?;
            bytes.push(b'\n');
            let mut guard = write.lock().await;
            let Some(writer) = guard.as_mut() else {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::NotConnected,
                    "the transport is closed",
                ));
            };
            writer.write_all(&bytes).await?;
            writer.flush().await
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        loop {
            let line = self.read_line().await;
            let bytes = std::mem::take(&mut self.line);
            let scanner = std::mem::take(&mut self.scanner);
            self.length = 0;
            let why = match line {
                Line::Eof => return None,
                Line::Oversized(length) => {
                    format!("it has {length} bytes; the limit is {MAX_LINE_BYTES}")
                }
                Line::Whole => {
                    let text = bytes.strip_suffix(b"\r").unwrap_or(&bytes);
                    if text.iter().all(u8::is_ascii_whitespace) {
                        continue;
                    }
                    match serde_json::from_slice::<RxJsonRpcMessage<RoleClient>>(text) {
                        Ok(message) => return Some(message),
                        Err(error) => error.to_string(),
                    }
                }
            };
            match answered_id(&scanner) {
                Some(id) => {
                    tracing::warn!("an upstream answer to request {id} could not be read: {why}");
                    if let Some(message) = undecodable(id, &why) {
                        return Some(message);
                    }
                }
                None => tracing::warn!("ignored an upstream line that could not be read: {why}"),
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        let writer = self.write.lock().await.take();
        if let Some(mut writer) = writer {
            let _ = writer.shutdown().await;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn scan(text: &str) -> IdScanner {
        let mut s = IdScanner::new();
        for chunk in text.as_bytes().chunks(3) {
            s.feed(chunk);
        }
        s
    }

    #[test]
    fn finds_the_top_level_id_wherever_it_is() {
        assert_eq!(
            scan(r#"{"jsonrpc":"2.0","id":7,"result":1e999}"#).id(),
            Some(json!(7))
        );
        assert_eq!(
            scan(r#"{"result":{"id":1,"x":[{"id":2}]},"id":"c3"}"#).id(),
            Some(json!("c3"))
        );
        let deep = format!(
            r#"{{"id": 4 , "result":{}{}}}"#,
            "[".repeat(500),
            "]".repeat(500)
        );
        assert_eq!(scan(&deep).id(), Some(json!(4)));
        // Cut short (an oversized line whose end is unknown): the id read so far.
        assert_eq!(
            scan(r#"{"id":12,"result":{"content":[{"te"#).id(),
            Some(json!(12))
        );
        assert_eq!(scan(r#"{"result":"x\"id\":1"}"#).id(), None);
        assert_eq!(scan(r#"[{"id":1}]"#).id(), None);
        assert_eq!(scan(r#"{"id":{"a":1}}"#).id(), None);
        assert_eq!(scan(r#"{"i\u0064":5}"#).id(), None);
        let request = scan(r#"{"id":1,"method":"ping","params":NaN}"#);
        assert!(request.has_method());
        assert_eq!(answered_id(&request), None);
        assert_eq!(scan(r#"{"id":"c01"}"#).raw_id(), Some(&b"\"c01\""[..]));
        assert_eq!(
            scan("{\"id\": 123456789012345678901234567890}").raw_id(),
            Some(&b"123456789012345678901234567890"[..])
        );
    }

    #[test]
    fn finds_a_key_at_another_depth() {
        let mut s = IdScanner::for_key(b"requestId", 2);
        s.feed(br#"{"x":["requestId",{"requestId":1}],"params":{"requestId": 99999999999999999999999 ,"a":1}}"#);
        assert_eq!(s.raw_id(), Some(&b"99999999999999999999999"[..]));
    }

    /// Random JSON objects with an `id` somewhere among other keys, nested values that
    /// hold `id` keys and strings that look like them, fed in random chunks: the scanner
    /// finds exactly the id serde_json reads, and nothing in a line that is not an object.
    #[test]
    fn agrees_with_serde_on_random_objects() {
        fn value(next: &mut dyn FnMut(u64) -> u64, depth: u32) -> Json {
            match next(if depth > 3 { 4 } else { 7 }) {
                0 => json!(next(1000)),
                1 => json!("id\"\\,:{}[]"),
                2 => Json::Null,
                3 => json!(-1.5e3),
                4 => Json::Array((0..next(3)).map(|_| value(next, depth + 1)).collect()),
                5 => json!({"id": value(next, depth + 1), "x": value(next, depth + 1)}),
                _ => json!({"method": "m", "ids": [1, 2]}),
            }
        }
        let mut seed = 38u64;
        let mut next = move |n: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) % n
        };
        for _ in 0..2000 {
            let mut object = serde_json::Map::new();
            let keys = next(4);
            for k in 0..keys {
                object.insert(format!("k{k}"), value(&mut next, 1));
            }
            let id = match next(3) {
                0 => Some(json!(next(1 << 40))),
                1 => Some(json!(format!("c{}", next(100)))),
                _ => None,
            };
            if let Some(id) = &id {
                object.insert("id".into(), id.clone());
            }
            for k in keys..keys + next(3) {
                object.insert(format!("z{k}"), value(&mut next, 1));
            }
            let text = Json::Object(object).to_string();
            let mut scanner = IdScanner::new();
            let mut rest = text.as_bytes();
            while !rest.is_empty() {
                let take = (next(7) as usize + 1).min(rest.len());
                scanner.feed(&rest[..take]);
                rest = &rest[take..];
            }
            assert_eq!(scanner.id(), id, "{text}");
            assert!(!scanner.has_method(), "{text}");
        }
    }
}
