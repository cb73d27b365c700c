//! Issue 11, items 2 (the host-handler half), 6 and 9 through the binary: the `seconds`
//! budget bounds the whole envelope including tool time, timeouts fire while a tool blocks
//! its thread, and a tool's panic text reaches the host's log but never the model.

use serde_json::Value as Json;
use std::process::Command;
use std::time::{Duration, Instant};

/// `ptc run --format json ARGS -e SCRIPT`: exit code, outcome, stderr, wall time.
fn run(args: &[&str], script: &str) -> (i32, Json, String, Duration) {
    let started = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_ptc"))
        .args(["run", "--format", "json"])
        .args(args)
        .args(["-e", script])
        .output()
        .unwrap();
    let elapsed = started.elapsed();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let json = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout} / {stderr}"));
    (out.status.code().unwrap_or(-1), json, stderr, elapsed)
}

#[test]
fn a_hanging_tool_cannot_outlast_the_seconds_budget() {
    let (code, outcome, _, elapsed) = run(
        &[
            "--no-builtin-tools",
            "--stub",
            "H=hang",
            "--limit",
            "seconds=1",
        ],
        "(progn (H) 1)",
    );
    assert_eq!(code, 1);
    assert!(elapsed < Duration::from_secs(4), "{elapsed:?}");
    assert_eq!(outcome["outcome"], "script-error");
    assert_eq!(outcome["error"]["kind"], "time");
    assert_eq!(outcome["calls"][0]["status"], "cancelled");
    // 80 calls timing out at 300 ms each would take 24 s; the envelope stops at 1 s.
    let (_, outcome, _, elapsed) = run(
        &[
            "--no-builtin-tools",
            "--stub",
            "H=hang",
            "--limit",
            "seconds=1",
            "--limit",
            "tool-timeout-ms=300",
            "--limit",
            "tool-calls=100",
        ],
        "(dotimes (i 80) (H))",
    );
    assert!(elapsed < Duration::from_secs(4), "{elapsed:?}");
    assert_eq!(outcome["error"]["kind"], "time");
    let statuses: Vec<&str> = outcome["calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["status"].as_str().unwrap())
        .collect();
    assert!(statuses.len() < 10, "{statuses:?}");
    assert_eq!(statuses.last(), Some(&"cancelled"));
}

#[test]
fn the_default_limits_bound_tool_time() {
    let limits = ptc_vm::Limits::default();
    assert_eq!(limits.tool_timeout_ms, Some(30_000));
    assert_eq!(limits.seconds, Some(300.0));
}

#[cfg(unix)]
#[test]
fn a_builtin_read_blocked_on_a_fifo_still_times_out() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo");
    let made = Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        assert!(
            std::env::var_os("CI").is_none(),
            "mkfifo is required in CI for this test"
        );
        eprintln!("SKIPPED: mkfifo is not available");
        return;
    }
    let root = dir.path().to_str().unwrap();
    let (_, outcome, _, elapsed) = run(
        &["--root", root, "--limit", "tool-timeout-ms=300"],
        "(list (Read :file_path \"fifo\") 1)",
    );
    assert!(elapsed < Duration::from_secs(4), "{elapsed:?}");
    let text = outcome["text"].as_str().unwrap();
    assert!(text.ends_with(" 1)"), "{text}");
    assert_eq!(outcome["calls"][0]["status"], "error");
}

#[test]
fn a_panic_text_goes_to_the_log_and_never_to_the_model() {
    let (_, outcome, stderr, _) = run(
        &[
            "--no-builtin-tools",
            "--stub",
            "P=panic:/home/alice/.secret/key",
        ],
        "(list (P))",
    );
    let document = outcome.to_string();
    assert!(!document.contains("alice"), "{document}");
    assert_eq!(
        outcome["text"],
        "((:error \"Error: P failed: the tool crashed (details are in the host's log)\"))"
    );
    assert!(stderr.contains("/home/alice/.secret/key"), "{stderr}");
}

#[test]
fn a_failed_compile_counts_its_time_in_elapsed_ms_and_under_seconds() {
    // Issue 11 leftover: a script refused at compile time reported elapsed_ms 0. Each macro
    // run loops long; the static pipeline stops at the `seconds` budget (E0031).
    let (code, outcome, _, elapsed) = run(
        &["--limit", "seconds=0.3", "--limit", "steps=1000000000000"],
        "(defmacro slow () (let ((i 0)) (while (< i 100000000) (setq i (+ i 1))) 1)) \
         (list (slow) (slow) (slow) (slow))",
    );
    assert_eq!(code, 1);
    assert_eq!(outcome["error"]["kind"], "time", "{outcome}");
    let elapsed_ms = outcome["stats"]["elapsed_ms"].as_u64().unwrap();
    assert!(elapsed_ms >= 300, "elapsed_ms {elapsed_ms}");
    assert!(elapsed < Duration::from_secs(4), "{elapsed:?}");
    assert!(
        u128::from(elapsed_ms) <= elapsed.as_millis(),
        "{elapsed_ms} vs {elapsed:?}"
    );
}
