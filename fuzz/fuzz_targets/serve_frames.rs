//! `ptc serve` frames and answer sequences: the bytes are split into lines and fed to one
//! in-process connection (`ptc_cli::serve::drive_lines`: the real frame routing, run tasks
//! and output queue; after each line the runs get turns, so an answer line can meet the
//! `tool/call` it answers; the input's end is EOF). Seeds mix requests (`initialize`,
//! `describe`, `check`, `run`, cancellations) with answers to `"c1"`, `"c2"`, ... (valid,
//! late, duplicate, `"c01"`, undecodable, deep).
//!
//! Oracles (spec/reference/protocol.md, Framing):
//! - no panic (in any thread: libfuzzer-sys aborts on every panic);
//! - every output line is one JSON-RPC 2.0 object;
//! - every input line gets exactly the answers the spec gives it, found by classifying the
//!   line independently: a request one answer with its id; a notification or an answer to
//!   us none; anything else one typed error (`-32700` for what does not parse or nests
//!   deeper than 128 levels, `-32600` for what is not a JSON-RPC 2.0 frame) with its id or
//!   `null`. So the multiset of answer ids equals the multiset of expected ids, and a
//!   number id comes back as the exact text the host wrote;
//! - error answers carry an integer `code` and a string `message`;
//! - bounded output: besides those answers, only `tool/call` requests (ids `"cN"`, unique,
//!   naming an active run, at most the runs' `tool_calls` budgets in all) and
//!   `notifications/cancelled` for ids we sent.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ptc_mcp::frame::IdScanner;
use serde_json::Value as Json;
use std::collections::HashSet;

/// Runs get this many turns of the runtime after each line.
const SETTLE: usize = 24;

/// Nesting depth the way the spec counts it (brackets outside strings).
fn depth(line: &[u8]) -> usize {
    let (mut depth, mut deepest, mut in_string, mut escape) = (0usize, 0usize, false, false);
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
                deepest = deepest.max(depth);
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

/// The exact text of the top-level `"id"` of `line`.
/// Whether `a` and `b` are the same JSON number: floats bit for bit (`0E2` is +0, not the
/// id `-0`), anything else by value.
fn same_number(a: &Json, b: &Json) -> bool {
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) if a.is_f64() && b.is_f64() => x.to_bits() == y.to_bits(),
        _ => a == b,
    }
}

fn raw_id(line: &[u8]) -> Option<Vec<u8>> {
    let mut scanner = IdScanner::for_key(b"id", 1);
    scanner.feed(line);
    scanner.raw_id().map(<[u8]>::to_vec)
}

/// What one input line must be answered with: `Some((id, code))` (code `None`: any
/// answer, result or error), or `None` for no answer.
#[derive(Debug)]
struct Expected {
    id: Json,
    /// The exact text the id must come back as (number ids).
    raw: Option<Vec<u8>>,
    code: Option<i64>,
}

fn parse(line: &[u8]) -> Option<Json> {
    let mut deserializer = serde_json::Deserializer::from_slice(line);
    deserializer.disable_recursion_limit();
    let value = <Json as serde::Deserialize>::deserialize(&mut deserializer).ok()?;
    deserializer.end().ok()?;
    Some(value)
}

fn expected(line: &[u8], budget: &mut u64) -> Option<Expected> {
    let error = |id: Json, code| {
        Some(Expected {
            id,
            raw: None,
            code: Some(code),
        })
    };
    if depth(line) > 128 {
        return error(Json::Null, -32700);
    }
    let Some(frame) = parse(line) else {
        return error(Json::Null, -32700);
    };
    let Some(object) = frame.as_object() else {
        return error(Json::Null, -32600);
    };
    let id = object.get("id");
    let valid_id = id.is_none_or(|id| id.is_string() || id.is_number() || id.is_null());
    if !valid_id {
        return error(Json::Null, -32600);
    }
    // The text the host wrote for the id the frame has (with `"id"` given twice, serde_json
    // keeps the last, the scan finds the first: then the exact text is not asked for).
    let raw = match id {
        Some(Json::Number(_)) => raw_id(line).filter(|raw| {
            serde_json::from_slice::<Json>(raw)
                .ok()
                .is_some_and(|parsed| id.is_some_and(|id| same_number(&parsed, id)))
        }),
        _ => None,
    };
    let with_id = |code| {
        Some(Expected {
            id: id.cloned().unwrap_or(Json::Null),
            raw: raw.clone(),
            code,
        })
    };
    if object.get("jsonrpc") != Some(&Json::String("2.0".into())) {
        return with_id(Some(-32600));
    }
    match (object.get("method"), id) {
        (Some(Json::String(method)), Some(_)) => {
            if method == "run" {
                *budget = budget.saturating_add(tool_calls(object.get("params")));
            }
            with_id(None)
        }
        (Some(Json::String(_)), None) => None,
        (Some(_), _) => with_id(Some(-32600)),
        (None, Some(_)) if object.contains_key("result") || object.contains_key("error") => None,
        (None, _) => with_id(Some(-32600)),
    }
}

/// The `tool_calls` budget a `run` request asks for (the default when it names none or
/// a bad one: then the run is refused and calls nothing).
fn tool_calls(params: Option<&Json>) -> u64 {
    let mut limits = ptc_vm::Limits::default();
    if let Some(Json::Object(pairs)) = params.and_then(|p| p.get("limits")) {
        for (key, value) in pairs {
            let text = match value {
                Json::String(text) => text.clone(),
                other => other.to_string(),
            };
            let _ = limits.set(key, &text);
        }
    }
    limits.tool_calls
}

fuzz_target!(|data: &[u8]| {
    let mut budget = 0u64;
    let mut want: Vec<Expected> = Vec::new();
    for line in data.split(|&b| b == b'\n') {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        if let Some(expected) = expected(line, &mut budget) {
            want.push(expected);
        }
    }
    let output = ptc_cli::serve::drive_lines(data, SETTLE);
    let mut calls: HashSet<String> = HashSet::new();
    let mut cancelled = 0usize;
    let mut answers: Vec<(Json, String)> = Vec::new();
    for line in &output {
        let frame: Json = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("output line is not JSON ({e}): {line}"));
        assert_eq!(frame["jsonrpc"], "2.0", "not JSON-RPC 2.0: {line}");
        match frame.get("method").and_then(Json::as_str) {
            Some("tool/call") => {
                let id = frame["id"].as_str().unwrap_or_else(|| panic!("{line}"));
                let number = id.strip_prefix('c').and_then(|n| n.parse::<u64>().ok());
                assert!(number.is_some(), "tool/call id {id} is not cN");
                assert!(calls.insert(id.to_owned()), "tool/call id {id} sent twice");
                assert!(
                    frame["params"]["run"].is_string()
                        || frame["params"]["run"].is_number()
                        || frame["params"]["run"].is_null(),
                    "{line}"
                );
            }
            Some("notifications/cancelled") => {
                let id = frame["params"]["requestId"].as_str().unwrap_or_default();
                assert!(calls.contains(id), "cancelled {id}, never sent: {line}");
                cancelled += 1;
            }
            Some(other) => panic!("unexpected method {other}: {line}"),
            None => {
                assert!(
                    frame.get("result").is_some() != frame.get("error").is_some(),
                    "an answer has exactly one of result and error: {line}"
                );
                if let Some(error) = frame.get("error") {
                    assert!(error["code"].is_i64(), "error code: {line}");
                    assert!(error["message"].is_string(), "error message: {line}");
                }
                answers.push((frame, line.clone()));
            }
        }
    }
    assert!(
        calls.len() as u64 <= budget,
        "{} tool/call requests beyond the runs' budgets {budget}",
        calls.len()
    );
    assert!(cancelled <= calls.len(), "more cancellations than calls");
    // Every expected answer, matched to one real answer with that id (and code).
    assert_eq!(
        answers.len(),
        want.len(),
        "answers {answers:?}\nexpected {want:?}"
    );
    // A perfect matching (augmenting paths): an answer may fit several expectations.
    let fits: Vec<Vec<usize>> = want
        .iter()
        .map(|expected| {
            (0..answers.len())
                .filter(|&at| {
                    let (frame, line) = &answers[at];
                    frame["id"] == expected.id
                        && expected
                            .code
                            .is_none_or(|code| frame["error"]["code"] == code)
                        && expected
                            .raw
                            .as_ref()
                            .is_none_or(|raw| raw_id(line.as_bytes()).as_ref() == Some(raw))
                })
                .collect()
        })
        .collect();
    let mut owner: Vec<Option<usize>> = vec![None; answers.len()];
    for expected in 0..want.len() {
        let mut seen = vec![false; answers.len()];
        assert!(
            augment(expected, &fits, &mut owner, &mut seen),
            "no answer for {:?} in {answers:?}",
            want[expected]
        );
    }
});

/// Kuhn's augmenting path from `expected` over the answers it `fits`.
fn augment(
    expected: usize,
    fits: &[Vec<usize>],
    owner: &mut [Option<usize>],
    seen: &mut [bool],
) -> bool {
    for &at in &fits[expected] {
        if seen[at] {
            continue;
        }
        seen[at] = true;
        let free = match owner[at] {
            None => true,
            Some(other) => augment(other, fits, owner, seen),
        };
        if free {
            owner[at] = Some(expected);
            return true;
        }
    }
    false
}
