//! Hostile inputs, round two (issue 11, items 2, 3, 7, 8, 10), against the `ptc` binary
//! and its built-in Read, Glob and Grep: tools that used to block the runtime, reads bounded
//! by metadata, an existence oracle outside the root, ignore files above the root, and
//! scripts that are not UTF-8.

use serde_json::Value as Json;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

struct Output {
    code: i32,
    stdout: String,
    elapsed: Duration,
}

fn ptc_env(args: &[&str], input: &[u8], env: &[(&str, &Path)]) -> Output {
    let started = Instant::now();
    let mut command = Command::new(env!("CARGO_BIN_EXE_ptc"));
    command
        .args(args)
        .env_remove("RUST_BACKTRACE")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (key, value) in env {
        command.env(key, value);
    }
    let mut child = command.spawn().expect("ptc starts");
    child.stdin.take().unwrap().write_all(input).unwrap();
    let output = child.wait_with_output().unwrap();
    Output {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        elapsed: started.elapsed(),
    }
}

fn ptc(args: &[&str]) -> Output {
    ptc_env(args, b"", &[])
}

/// `ptc run --format json --root ROOT ARGS -e SCRIPT`, parsed, with the wall time.
fn run_in(root: &Path, args: &[&str], script: &str) -> (Json, Duration) {
    let root = root.display().to_string();
    let mut all = vec!["run", "--format", "json", "--root", root.as_str()];
    all.extend_from_slice(args);
    all.extend_from_slice(&["-e", script]);
    let out = ptc(&all);
    let json = serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", out.stdout));
    (json, out.elapsed)
}

/// A temporary directory holding `root/` (the workspace) and `secret.txt` beside it.
fn layout() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().canonicalize().unwrap();
    let root = base.join("root");
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(root.join("notes.txt"), "one\ntwo\n").unwrap();
    std::fs::write(root.join("src/a.txt"), "alpha\n").unwrap();
    std::fs::write(base.join("secret.txt"), "top secret\n").unwrap();
    (dir, root)
}

/// Whether `program` can be run; absent programs skip loudly, or fail under CI.
fn have(program: &str) -> bool {
    let found = Command::new(program)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok();
    if !found {
        assert!(
            std::env::var_os("CI").is_none(),
            "{program} is required under CI"
        );
        eprintln!("SKIPPED: {program} is not installed");
    }
    found
}

#[test]
fn item2_item3_a_fifo_inside_the_root_is_refused_at_once() {
    if !have("mkfifo") {
        return;
    }
    let (_dir, root) = layout();
    let status = Command::new("mkfifo")
        .arg(root.join("fifo"))
        .status()
        .unwrap();
    assert!(status.success());
    for script in [
        "(Read :file_path \"fifo\")",
        "(parallel (Read :file_path \"fifo\") (Read :file_path \"notes.txt\"))",
        "(Grep :pattern \"x\" :path \"fifo\")",
    ] {
        let (outcome, elapsed) = run_in(&root, &["--limit", "tool-timeout-ms=500"], script);
        assert!(elapsed < Duration::from_secs(5), "{script}: {elapsed:?}");
        assert!(
            outcome["text"]
                .as_str()
                .unwrap()
                .contains("not a regular file or directory: fifo"),
            "{script}: {outcome}"
        );
    }
    // A walk lists regular files only: the FIFO is never opened.
    let (outcome, elapsed) = run_in(
        &root,
        &[],
        "(list (Grep :pattern \"alpha\") (Grep :pattern \"alpha\" :output_mode \"content\"))",
    );
    assert!(elapsed < Duration::from_secs(5));
    assert_eq!(
        outcome["text"].as_str().unwrap(),
        "(\"src/a.txt\" \"src/a.txt:1:alpha\")"
    );
}

#[test]
fn item2_a_slow_grep_stops_at_the_timeout() {
    let (_dir, root) = layout();
    // 10 MB of a/b: `a[ab]{200}[^ab]` makes the lazy DFA thrash on every line.
    // Pseudo-random (an LCG), so the lazy DFA meets ever new states: without the timeout
    // this Grep runs for tens of seconds in a debug build.
    let mut state: u64 = 1;
    let mut text = String::with_capacity(10_010_000);
    for i in 0..10_000_000u64 {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1);
        text.push(if (state >> 33) & 1 == 0 { 'a' } else { 'b' });
        if i % 1000 == 999 {
            text.push('\n');
        }
    }
    std::fs::write(root.join("big.txt"), text).unwrap();
    let (outcome, elapsed) = run_in(
        &root,
        &["--limit", "tool-timeout-ms=200"],
        "(Grep :pattern \"a[ab]{200}[^ab]\" :path \"big.txt\" :output_mode \"content\")",
    );
    assert!(elapsed < Duration::from_secs(5), "{elapsed:?}");
    assert_eq!(
        outcome["text"].as_str().unwrap(),
        "Error: Grep timed out after 200 ms"
    );
}

#[cfg(unix)]
#[test]
fn item7_one_answer_for_everything_outside_the_root() {
    use std::os::unix::fs::symlink;
    let (dir, root) = layout();
    let base = dir.path().canonicalize().unwrap();
    symlink(&base, root.join("updir")).unwrap();
    symlink(&root, root.join("self")).unwrap();
    symlink("..", root.join("rel")).unwrap();
    let outside = |path: &str| format!("Error: path is outside the workspace root: {path}");
    let secret = base.join("secret.txt").display().to_string();
    let nope = base.join("nope.txt").display().to_string();
    for path in [
        "updir/secret.txt",
        "updir/nope.txt",
        "updir/nope/deeper.txt",
        "rel/secret.txt",
        "rel/nope.txt",
        "self/../secret.txt",
        "self/../nope.txt",
        secret.as_str(),
        nope.as_str(),
        "/etc/passwd",
        "/no/such/file",
    ] {
        let (outcome, _) = run_in(&root, &[], &format!("(Read :file_path \"{path}\")"));
        assert_eq!(outcome["text"].as_str().unwrap(), outside(path), "{path}");
        let (outcome, _) = run_in(
            &root,
            &[],
            &format!("(Glob :pattern \"*\" :path \"{path}\")"),
        );
        assert_eq!(outcome["text"].as_str().unwrap(), outside(path), "{path}");
    }
    // Inside the root, through links, everything works.
    let (outcome, _) = run_in(&root, &[], "(Read :file_path \"self/src/a.txt\")");
    assert_eq!(outcome["text"].as_str().unwrap(), "     1\talpha");
}

#[test]
fn item8_nothing_above_the_root_hides_files() {
    if !have("git") {
        return;
    }
    let (dir, root) = layout();
    let base = dir.path().canonicalize().unwrap();
    // Ignore files above the root, and a global excludes file through a fake HOME.
    std::fs::write(base.join(".gitignore"), "*.txt\n").unwrap();
    std::fs::write(base.join(".ignore"), "src\n").unwrap();
    let home = base.join("home");
    std::fs::create_dir_all(home.join(".config/git")).unwrap();
    std::fs::write(home.join(".config/git/ignore"), "notes.txt\n").unwrap();
    std::fs::write(home.join("excludes"), "a.txt\n").unwrap();
    std::fs::write(
        home.join(".gitconfig"),
        format!(
            "[core]\n\texcludesFile = {}\n",
            home.join("excludes").display()
        ),
    )
    .unwrap();
    // The parent is a git repository whose info/exclude names the root's files.
    let status = Command::new("git")
        .args(["init", "-q"])
        .current_dir(&base)
        .env("HOME", &home)
        .status()
        .unwrap();
    assert!(status.success());
    std::fs::write(base.join(".git/info/exclude"), "root\n*.txt\n").unwrap();
    let root_text = root.display().to_string();
    let args = [
        "run",
        "--format",
        "json",
        "--root",
        root_text.as_str(),
        "-e",
        "(Glob :pattern \"**/*.txt\")",
    ];
    let out = ptc_env(
        &args,
        b"",
        &[("HOME", &home), ("XDG_CONFIG_HOME", &home.join(".config"))],
    );
    let outcome: Json = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(outcome["text"].as_str().unwrap(), "notes.txt\nsrc/a.txt");
    // The root's own ignore files still count.
    std::fs::write(root.join(".gitignore"), "notes.txt\n").unwrap();
    let out = ptc_env(&args, b"", &[("HOME", &home)]);
    let outcome: Json = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(outcome["text"].as_str().unwrap(), "src/a.txt");
}

#[cfg(unix)]
#[test]
fn item10_a_script_that_is_not_utf8_is_bad_input() {
    use std::os::unix::ffi::OsStrExt as _;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bad.lisp");
    std::fs::write(&file, b"(list 1 \"\xff\")").unwrap();
    let file = file.display().to_string();
    let expected_message = "Script is not valid UTF-8 (invalid byte at offset 9)";
    let check_outcome = |out: &Output| {
        assert_eq!(out.code, 1, "{}", out.stdout);
        let json: Json = serde_json::from_str(&out.stdout).unwrap();
        assert_eq!(json["outcome"], "script-error");
        assert_eq!(json["error"]["kind"], "input");
        assert_eq!(json["error"]["message"], expected_message);
    };
    let common = ["run", "--format", "json", "--no-builtin-tools"];
    let mut via_file = common.to_vec();
    via_file.push(&file);
    check_outcome(&ptc(&via_file));
    let mut via_stdin = common.to_vec();
    via_stdin.push("-");
    check_outcome(&ptc_env(&via_stdin, b"(list 1 \"\xff\")", &[]));
    // -e with raw bytes.
    let output = Command::new(env!("CARGO_BIN_EXE_ptc"))
        .args(common)
        .arg("-e")
        .arg(std::ffi::OsStr::from_bytes(b"(list 1 \"\xff\")"))
        .output()
        .unwrap();
    check_outcome(&Output {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        elapsed: Duration::ZERO,
    });
    // Text format and check: exit 1 with the message, never a usage error (exit 2).
    let out = ptc(&["run", "--no-builtin-tools", &file]);
    assert_eq!(
        (out.code, out.stdout.trim()),
        (1, format!("Error: {expected_message}").as_str())
    );
    let out = ptc(&["check", "--format", "json", "--no-builtin-tools", &file]);
    assert_eq!(out.code, 1);
    let json: Json = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(json["diagnostics"][0]["code"], "E0030");
    assert_eq!(json["diagnostics"][0]["kind"], "input");
}
