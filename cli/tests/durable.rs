//! Durable runs from the shell (spec/reference/durable-runs.md): `ptc run --record
//! --pause` pauses for a person and writes the journal; `ptc resume` continues it in
//! another process with `--allow`/`--deny`; `ptc replay` re-runs a journal offline and
//! exits 0 only when it settles as recorded; a journal that cannot be used is a clear
//! error.

use std::path::Path;
use std::process::{Command, Output};

const PTC: &str = env!("CARGO_BIN_EXE_ptc");
const TOOLS: [&str; 5] = [
    "--no-builtin-tools",
    "--stub",
    "Read=args",
    "--stub",
    "Send=args",
];
const SCRIPT: &str = r#"(let ((a (Read :v "x"))) (list a (Send :v "y") (Read :v "z")))"#;

fn ptc(args: &[&str]) -> Output {
    Command::new(PTC)
        .args(args)
        .args(TOOLS)
        .env("RUST_BACKTRACE", "0")
        .output()
        .unwrap()
}

fn text(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn journal(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn a_paused_run_is_resumed_by_another_process_and_replays_as_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let paused = dir.path().join("paused.json");
    let done = dir.path().join("done.json");
    let out = ptc(&[
        "run",
        "--id",
        "toolu_1",
        "--record",
        paused.to_str().unwrap(),
        "--pause",
        "Send",
        "-e",
        SCRIPT,
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out).starts_with("Paused: nested Send (toolu_1/2)"),
        "{}",
        text(&out)
    );
    let recorded = journal(&paused);
    assert_eq!(recorded["pending"][0]["id"], "toolu_1/2");
    assert_eq!(recorded["calls"].as_array().unwrap().len(), 1);

    let out = ptc(&[
        "resume",
        paused.to_str().unwrap(),
        "--allow",
        "toolu_1/2",
        "--record",
        done.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(text(&out).trim(), r#"((:v "x") (:v "y") (:v "z"))"#);

    let out = ptc(&["replay", done.to_str().unwrap(), "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let outcome: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(outcome["outcome"], "completed");
    assert_eq!(outcome["calls"].as_array().unwrap().len(), 3);
}

#[test]
fn a_denied_pending_call_and_unusable_journals_are_clear() {
    let dir = tempfile::tempdir().unwrap();
    let paused = dir.path().join("paused.json");
    let path = paused.to_str().unwrap();
    let args = ["run", "--id", "r", "--record", path, "--pause", "Send"];
    ptc(&[&args[..], &["-e", SCRIPT]].concat());
    let out = ptc(&["resume", path, "--deny", "r/2=not today"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out).contains("nested Send was denied: not today"),
        "{}",
        text(&out)
    );

    let out = ptc(&["resume", path, "--deny", "r/9=no"]);
    assert!(
        text(&out).contains("no call `r/9' awaits a decision"),
        "{}",
        text(&out)
    );

    // A journal edited to other arguments diverges, naming the call.
    let mut edited = journal(&paused);
    edited["calls"][0]["arguments"] = serde_json::json!({"v": "other"});
    std::fs::write(&paused, edited.to_string()).unwrap();
    let out = ptc(&["replay", path]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out).contains("replay diverged: call 1 (Read) has other arguments"),
        "{}",
        text(&out)
    );

    // Truncated and foreign files are usage errors (status 2), never a panic.
    std::fs::write(&paused, "{\"format\": 1, \"id\": ").unwrap();
    let out = ptc(&["replay", path]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is not a ptc journal"));
    std::fs::write(&paused, "[1, 2, 3]").unwrap();
    assert_eq!(ptc(&["replay", path]).status.code(), Some(2));
}

#[test]
fn pausing_needs_a_record() {
    let out = ptc(&["run", "--pause", "Send", "-e", SCRIPT]);
    assert_eq!(out.status.code(), Some(2));
}
