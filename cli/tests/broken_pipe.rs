//! Issue 11 leftover: every CLI output path meets a closed pipe quietly. Through a real
//! shell pipe (`ptc ... | head -c1`, under `pipefail`) and through a pipe whose reader is
//! already closed, stdout output ends with status 141 (128 + SIGPIPE) and nothing on
//! stderr; stderr output (diagnostics, logs) to a closed pipe is dropped, the exit status
//! is the command's own, and no panic-hook text appears.

use std::io::Read as _;
use std::process::{Command, Stdio};

const PTC: &str = env!("CARGO_BIN_EXE_ptc");

/// Output well past a pipe's 64 KiB buffer, so the writer is still writing when `head`
/// exits.
const BIG: &str = "(make-string 200000 ?a)";

/// Runs `ptc ARGS | head -c1` in bash with `pipefail`: ptc's exit status, its stderr, and
/// the bytes head printed.
fn through_head(args: &[&str]) -> (i32, String, Vec<u8>) {
    let quoted: Vec<String> = args
        .iter()
        .map(|a| format!("'{}'", a.replace('\'', r"'\''")))
        .collect();
    let script = format!(
        "set -o pipefail; '{PTC}' {} 2>\"$ERR\" | head -c1; echo \" ${{PIPESTATUS[0]}}\"",
        quoted.join(" ")
    );
    let dir = tempfile::tempdir().unwrap();
    let err = dir.path().join("stderr");
    let out = Command::new("bash")
        .args(["-c", &script])
        .env("ERR", &err)
        .output()
        .expect("bash runs");
    let stdout = out.stdout;
    let text = String::from_utf8_lossy(&stdout);
    let status: i32 = text
        .rsplit(' ')
        .next()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or_else(|| panic!("no status in {text:?}"));
    let stderr = std::fs::read_to_string(&err).unwrap_or_default();
    (status, stderr, stdout.get(..1).unwrap_or_default().to_vec())
}

/// Runs ptc with stdout (or stderr) a pipe whose read end is closed before ptc starts, so
/// its first write always meets a closed pipe (closing it after the spawn raced a fast
/// command's write into the pipe buffer).
fn closed(args: &[&str], close_stderr: bool) -> (i32, String) {
    let (reader, writer) = std::io::pipe().expect("a pipe");
    drop(reader);
    let mut command = Command::new(PTC);
    command.args(args).stdin(Stdio::null());
    if close_stderr {
        command.stdout(Stdio::null()).stderr(writer);
    } else {
        command.stdout(writer).stderr(Stdio::piped());
    }
    let mut child = command.spawn().expect("ptc starts");
    // The parent's copy of the write end went with `command`; drop it so only ptc holds it.
    drop(command);
    let mut stderr_text = String::new();
    if !close_stderr {
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut stderr_text)
            .unwrap();
    }
    let status = child.wait().unwrap();
    (status.code().unwrap_or(-1), stderr_text)
}

#[test]
fn run_check_and_describe_through_head_exit_141_without_a_word() {
    // A direct Read's result is not cut to the ToolCall's 30,000 characters, so the text
    // output is as large as the file (1,000 lines of 200 characters).
    let root = tempfile::tempdir().unwrap();
    std::fs::write(
        root.path().join("big.txt"),
        format!("{}\n", "b".repeat(200)).repeat(1000),
    )
    .unwrap();
    let root_arg = root.path().to_str().unwrap();
    let (status, stderr, first) = through_head(&[
        "run",
        "--root",
        root_arg,
        "-e",
        "(Read :file_path \"big.txt\")",
    ]);
    assert_eq!((status, stderr.as_str()), (141, ""));
    assert!(!first.is_empty());
    for args in [
        &["run", "--format", "json", "-e", BIG][..],
        &["run", "-e", BIG],
        &["describe"],
        &["describe", "--format", "json"],
        &["check", "--format", "json", "-e", BIG],
    ] {
        let (status, stderr, first) = through_head(args);
        assert!(!first.is_empty(), "{args:?}: head printed nothing");
        // describe's and check's output may fit the pipe buffer before head exits; then ptc
        // finishes normally. Either way, no panic text and no error line.
        assert!(
            status == 141 || status == 0,
            "{args:?}: status {status}, stderr {stderr:?}"
        );
        assert_eq!(stderr, "", "{args:?}");
        if args.get(..2) == Some(&["run", "--format"]) {
            assert_eq!(status, 141, "{args:?}");
        }
    }
}

#[test]
fn every_stdout_path_to_a_closed_pipe_exits_141_quietly() {
    for args in [
        &["run", "-e", "1"][..],
        &["run", "--format", "json", "-e", "(error \"boom\")"],
        &["run", "-e", "(car 1)"],
        &["describe"],
        &["describe", "--format", "json"],
        &["check", "--format", "json", "-e", "(car"],
        &["check", "--format", "json", "-e", "(+ 1 2)"],
    ] {
        let (status, stderr) = closed(args, false);
        assert_eq!(status, 141, "{args:?}: stderr {stderr:?}");
        assert_eq!(stderr, "", "{args:?}");
    }
}

#[test]
fn stderr_output_to_a_closed_pipe_is_dropped_and_the_status_is_kept() {
    // Diagnostics (check's text output), usage errors and log lines go to stderr.
    for (args, expected) in [
        (&["check", "-e", "(Nope 1)"][..], 1),
        (&["check", "-e", "(+ 1 2)"], 0),
        (&["run", "--limit", "nonsense=1", "-e", "1"], 2),
        (&["run", "-e", "1"], 0),
        (&["run", "-e", "(error \"boom\")"], 1),
    ] {
        let (status, _) = closed(args, true);
        assert_eq!(status, expected, "{args:?}");
    }
}

#[test]
fn help_through_head_is_quiet() {
    let (status, stderr, first) = through_head(&["--help"]);
    assert!(!first.is_empty());
    assert!(status == 0 || status == 141, "status {status}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}
