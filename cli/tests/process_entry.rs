//! The `ptc` process entry (`cli/src/start.rs` on Linux with glibc, std's elsewhere): a run
//! started with standard descriptors closed reads its script, runs, and exits with the
//! CLI's status, its files untouched. (The entry reopens closed descriptors on `/dev/null`,
//! as std's start-up does; std's own tolerance of a closed stdout hides the difference in
//! what a test can observe, so this checks the outcome, not the reopening. A closed pipe on
//! stdout, which needs SIGPIPE ignored, is `broken_pipe.rs`.)

#![cfg(unix)]

use std::process::Command;

/// Runs `ptc ARGS` under `sh` with `redirections` applied to the exec'd process.
fn ptc_with(redirections: &str, args: &str) -> std::process::ExitStatus {
    Command::new("sh")
        .arg("-c")
        .arg(format!("exec \"$0\" {args} {redirections}"))
        .arg(env!("CARGO_BIN_EXE_ptc"))
        .status()
        .expect("sh runs")
}

#[test]
fn runs_with_closed_standard_descriptors_keep_their_status_and_files() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("script.lisp");
    std::fs::write(&script, "(+ 1 2)\n").unwrap();
    let path = script.display();
    for redirections in ["<&- >&- 2>&-", ">&-", ">&- 2>&-", "<&-"] {
        let status = ptc_with(redirections, &format!("run '{path}'"));
        assert_eq!(status.code(), Some(0), "{redirections}");
    }
    assert_eq!(std::fs::read_to_string(&script).unwrap(), "(+ 1 2)\n");
    // And a failing run still reports its status with every descriptor closed.
    let status = ptc_with("<&- >&- 2>&-", "run -e '(car 1)'");
    assert_eq!(status.code(), Some(1));
    let status = ptc_with("<&- >&- 2>&-", "run --no-such-flag");
    assert_eq!(status.code(), Some(2));
}
