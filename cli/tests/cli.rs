//! End-to-end tests of the `ptc` binary: every behaviour of the runtime issue's
//! "Done when" list, driven through the command line as a user or host would.

use serde_json::{Value as Json, json};
use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

struct Output {
    code: i32,
    stdout: String,
    stderr: String,
}

fn ptc(args: &[&str]) -> Output {
    ptc_with_input(args, "")
}

fn ptc_with_input(args: &[&str], input: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ptc"))
        .args(args)
        .env_remove("RUST_BACKTRACE")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("ptc starts");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    Output {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8(output.stdout).unwrap(),
        stderr: String::from_utf8(output.stderr).unwrap(),
    }
}

/// `ptc run --format json ARGS -e SCRIPT`, parsed.
fn run_json(args: &[&str], script: &str) -> (i32, Json) {
    let mut all = vec![
        "run",
        "--format",
        "json",
        "--no-builtin-tools",
        "--id",
        "ptc-1",
    ];
    all.extend_from_slice(args);
    all.extend_from_slice(&["-e", script]);
    let out = ptc(&all);
    let json = serde_json::from_str(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {} / {}", out.stdout, out.stderr));
    (out.code, json)
}

fn statuses(outcome: &Json) -> Vec<&str> {
    outcome["calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["status"].as_str().unwrap())
        .collect()
}

#[test]
fn parallel_results_keep_source_order_under_shuffled_completion() {
    let (code, outcome) = run_json(
        &[
            "--stub",
            "A=sleep:80",
            "--stub",
            "B=sleep:5",
            "--stub",
            "C=sleep:40",
        ],
        "(parallel (A) (B) (C))",
    );
    assert_eq!(code, 0);
    assert_eq!(outcome["outcome"], "completed");
    assert_eq!(outcome["text"], "(\"<A>\" \"<B>\" \"<C>\")");
    assert_eq!(outcome["value"], json!(["<A>", "<B>", "<C>"]));
    let ids: Vec<_> = outcome["calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].clone())
        .collect();
    assert_eq!(ids, [json!("ptc-1/1"), json!("ptc-1/2"), json!("ptc-1/3")]);
    assert!(
        outcome["calls"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["batch"] == 1)
    );
    // Sequential calls and a one-element batch carry no batch number: (nil 1 1 nil).
    let (_, outcome) = run_json(
        &["--stub", "A"],
        "(list (A) (parallel (A) (A)) (parallel (A)))",
    );
    let batches: Vec<_> = outcome["calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["batch"].clone())
        .collect();
    assert_eq!(batches, [Json::Null, json!(1), json!(1), Json::Null]);
}

#[test]
fn batches_run_with_bounded_concurrency() {
    let script = "(parallel (S) (S) (S) (S))";
    let (_, limited) = run_json(
        &["--stub", "S=sleep:100", "--limit", "parallelism=2"],
        script,
    );
    assert_eq!(limited["outcome"], "completed");
    let elapsed = limited["stats"]["elapsed_ms"].as_u64().unwrap();
    assert!(elapsed >= 200, "two at a time takes two rounds: {elapsed}");
    let (_, default) = run_json(&["--stub", "S=sleep:100"], script);
    let elapsed = default["stats"]["elapsed_ms"].as_u64().unwrap();
    assert!(elapsed < 390, "four at a time take one round: {elapsed}");
}

#[test]
fn denial_in_sequence_aborts_the_script() {
    let (code, outcome) = run_json(
        &["--stub", "A", "--stub", "D=deny:not allowed here"],
        "(progn (A :n 1) (D) (A :n 2))",
    );
    assert_eq!(code, 1);
    assert_eq!(outcome["outcome"], "denied");
    assert_eq!(
        outcome["text"],
        "Error: script aborted because nested D was denied: not allowed here\n\n\
         Nested call audit:\n- ptc-1/1 A {\"n\":1} (success)\n- ptc-1/2 D {} (denied)"
    );
    assert_eq!(outcome["error"]["kind"], "denied");
    assert_eq!(statuses(&outcome), ["success", "denied"]);
}

#[test]
fn denial_in_a_batch_cancels_its_siblings() {
    let (code, outcome) = run_json(
        &["--stub", "A=sleep:300", "--stub", "D=deny:no"],
        "(parallel (A) (D) (A))",
    );
    assert_eq!(code, 1);
    assert_eq!(outcome["outcome"], "denied");
    assert!(
        outcome["text"].as_str().unwrap().starts_with(
            "Error: batch aborted because nested D was denied: no\n\nNested call audit:\n"
        ),
        "{}",
        outcome["text"]
    );
    assert_eq!(statuses(&outcome), ["cancelled", "denied", "cancelled"]);
    assert!(outcome["stats"]["elapsed_ms"].as_u64().unwrap() < 300);
}

#[cfg(unix)]
#[test]
fn interrupt_signal_settles_interrupted() {
    let child = Command::new(env!("CARGO_BIN_EXE_ptc"))
        .args([
            "run",
            "--id",
            "ptc-1",
            "--no-builtin-tools",
            "--format",
            "json",
            "--stub",
            "H=hang",
            "-e",
            "(list (H))",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(400));
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(1));
    let outcome: Json = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(outcome["outcome"], "interrupted");
    assert_eq!(
        outcome["text"],
        "Error: script interrupted\n\nNested call audit:\n- ptc-1/1 H {} (cancelled)"
    );
}

#[test]
fn panics_and_timeouts_become_error_values() {
    let (code, outcome) = run_json(
        &[
            "--stub",
            "P=panic:kaboom",
            "--stub",
            "H=hang",
            "--stub",
            "A",
            "--limit",
            "tool-timeout-ms=50",
        ],
        "(list (P) (H) (A))",
    );
    assert_eq!(code, 0);
    assert_eq!(
        outcome["text"],
        "((:error \"Error: P failed: the tool crashed (details are in the host's log)\") (:error \"Error: H timed out after 50 ms\") \"<A>\")"
    );
    assert_eq!(statuses(&outcome), ["error", "error", "success"]);
    // As a direct call, the failure is the tool's own: outcome tool-error.
    let (code, outcome) = run_json(&["--stub", "P=panic:kaboom"], "(P)");
    assert_eq!(code, 1);
    assert_eq!(outcome["outcome"], "tool-error");
    assert_eq!(
        outcome["text"],
        "Error: P failed: the tool crashed (details are in the host's log)"
    );
    // A failing tool is an error value the script can inspect.
    let (_, outcome) = run_json(
        &["--stub", "E=error:disk on fire"],
        "(let ((r (E))) (if (and (listp r) (plist-get r :error)) (concat \"caught: \" (plist-get r :error)) r))",
    );
    assert_eq!(outcome["text"], "caught: disk on fire");
}

#[test]
fn direct_calls_return_the_tool_result_and_composed_scripts_their_value() {
    let long = "z".repeat(1000);
    let stub = format!("L=text:{long}");
    let (_, outcome) = run_json(&["--stub", &stub], "(L)");
    assert_eq!(outcome["direct"], "L");
    assert_eq!(outcome["text"], long.as_str());
    assert_eq!(outcome["calls"][0]["preview"].as_str().unwrap().len(), 203);
    let (_, outcome) = run_json(&["--stub", &stub], "(length (L))");
    assert_eq!(outcome["direct"], Json::Null);
    assert_eq!(outcome["text"], "1000");
    assert_eq!(outcome["value"], 1000);
    let (_, outcome) = run_json(
        &["--stub", "J=json:{\"a\":[1,2],\"b\":null}"],
        "(plist-get (J) :a)",
    );
    assert_eq!(outcome["text"], "(1 2)");
    // Text mode prints strings verbatim.
    let out = ptc(&[
        "run",
        "--no-builtin-tools",
        "--stub",
        "T=text:line one",
        "-e",
        "(T)",
    ]);
    assert_eq!((out.code, out.stdout.as_str()), (0, "line one\n"));
}

#[test]
fn child_notes_survive_a_discarded_value_in_text_and_json() {
    let args = [
        "run",
        "--no-builtin-tools",
        "--stub",
        "H=note:hook says: re-read the file",
        "--stub",
        "K=note:second\nline",
        "-e",
        "(progn (H) (K) (length (H)) (+ 1 2))",
    ];
    let out = ptc(&args);
    assert_eq!(
        (out.code, out.stdout.as_str()),
        (
            0,
            "3\n\nNotes:\n- hook says: re-read the file\n- second\n  line\n\
             - hook says: re-read the file\n"
        )
    );
    // Without notes, nothing follows the result.
    let out = ptc(&[
        "run",
        "--no-builtin-tools",
        "--stub",
        "P",
        "-e",
        "(progn (P) 1)",
    ]);
    assert_eq!(out.stdout, "1\n");
    // JSON carries them in `notes`, in arrival order; a failed script keeps them too.
    let (code, outcome) = run_json(&["--stub", "H=note:ctx"], "(progn (H) (car 5))");
    assert_eq!(code, 1);
    assert_eq!(outcome["outcome"], "script-error");
    assert_eq!(outcome["notes"], json!(["ctx"]));
    let (_, outcome) = run_json(&["--stub", "H=note:ctx"], "(progn (H) nil)");
    assert_eq!(outcome["text"], "nil");
    assert_eq!(outcome["notes"], json!(["ctx"]));
}

#[test]
fn audit_arguments_are_bounded_for_composed_scripts() {
    let long = "x".repeat(600);
    let script = format!("(list (A :s \"{long}\"))");
    let (_, outcome) = run_json(&["--stub", "A=args"], &script);
    let kept = outcome["calls"][0]["args"]["s"].as_str().unwrap();
    assert_eq!(kept.len(), 503);
    assert!(kept.ends_with("x..."));
    // The tool itself received the whole string.
    assert_eq!(outcome["value"][0]["s"].as_str().unwrap().len(), 600);
    // A direct call keeps its arguments whole.
    let (_, outcome) = run_json(&["--stub", "A=args"], &format!("(A :s \"{long}\")"));
    assert_eq!(
        outcome["calls"][0]["args"]["s"].as_str().unwrap().len(),
        600
    );
    // Over 4000 bytes after cutting: dropped whole.
    let chunk = "y".repeat(500);
    let pairs: String = (0..9).map(|i| format!(" :k{i} \"{chunk}\"")).collect();
    let (_, outcome) = run_json(&["--stub", "A"], &format!("(list (A{pairs}))"));
    assert_eq!(outcome["calls"][0]["args"], Json::Null);
    assert_eq!(outcome["calls"][0]["args_omitted"], true);
}

#[test]
fn schema_errors_are_guest_error_values() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_str().unwrap();
    let out = ptc(&[
        "run",
        "--root",
        root,
        "-e",
        "(let ((k :path) (n 12) (f :file_path)) (list (Read k \"x\") (Read :file_path n) (Read f)))",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        out.stdout,
        "((:error \"Error: Read has no argument `path'; it accepts: file_path, offset, limit\") \
         (:error \"Error: Read: argument file_path: 12 is not of type \\\"string\\\"\") \
         (:error \"Error: Read: argument :file_path has no value\"))\n"
    );
    // A malformed direct call is a tool error with the conversion message.
    let out = ptc(&["run", "--root", root, "-e", "(Read (car '(:path)) \"x\")"]);
    assert_eq!(out.code, 1);
    assert_eq!(
        out.stdout,
        "Error: Read has no argument `path'; it accepts: file_path, offset, limit\n"
    );
    // Literal arguments are judged by preflight instead, before anything runs.
    let out = ptc(&["run", "--root", root, "-e", "(Read :path \"x\")"]);
    assert_eq!(out.code, 1);
    assert_eq!(
        out.stdout,
        "Error: Read has no argument :path; it accepts: :file_path, :offset, :limit\n\
         Read needs :file_path\n"
    );
}

#[test]
fn checkpoints_are_written_and_interrupted_runs_recovered() {
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().to_str().unwrap();
    // The script reads its own start checkpoint: it is durable before any child runs.
    let out = ptc(&[
        "run",
        "--id",
        "ptc-1",
        "--journal",
        journal,
        "--root",
        journal,
        "-e",
        "(list (Read :file_path \"ptc-1.json\"))",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout.contains("\\\"state\\\": \\\"running\\\""),
        "{}",
        out.stdout
    );
    let settled: Json =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("ptc-1.json")).unwrap())
            .unwrap();
    assert_eq!(settled["state"], "settled");
    assert_eq!(settled["outcome"], "completed");
    assert_eq!(settled["calls"][0]["status"], "success");
    // A record left running by a crash is recovered as interrupted on the next start.
    let crashed = json!({"id": "ptc-77", "state": "running", "expression": "(A)",
                         "calls": [{"id": "ptc-77/1", "order": 1, "tool": "A", "args": {}, "status": "running"}]});
    std::fs::write(dir.path().join("ptc-77.json"), crashed.to_string()).unwrap();
    let out = ptc(&["run", "--journal", journal, "--no-builtin-tools", "-e", "1"]);
    assert_eq!(out.code, 0);
    assert!(
        out.stderr.contains("ptc: recovered interrupted run ptc-77"),
        "{}",
        out.stderr
    );
    let recovered: Json =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("ptc-77.json")).unwrap())
            .unwrap();
    assert_eq!(recovered["state"], "interrupted");
    assert_eq!(recovered["result"], "Error: script interrupted by restart");
    assert_eq!(recovered["calls"][0]["status"], "interrupted");
}

fn confinement_fixture() -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(root.join("src/lib.rs"), "pub fn answer() -> u32 { 42 }\n").unwrap();
    std::fs::write(dir.path().join("secret.txt"), "password=hunter2\n").unwrap();
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(dir.path().join("secret.txt"), root.join("link.txt")).unwrap();
        std::os::unix::fs::symlink(dir.path(), root.join("up")).unwrap();
    }
    let root = root.to_str().unwrap().to_owned();
    (dir, root)
}

#[test]
fn built_in_tools_stay_inside_the_root() {
    let (dir, root) = confinement_fixture();
    let secret = dir.path().join("secret.txt");
    let secret = secret.to_str().unwrap();
    for path in ["../secret.txt", "src/../../secret.txt", secret] {
        let out = ptc(&[
            "run",
            "--root",
            &root,
            "-e",
            &format!("(Read :file_path \"{path}\")"),
        ]);
        assert_eq!(out.code, 1);
        assert_eq!(
            out.stdout,
            format!("Error: path is outside the workspace root: {path}\n")
        );
    }
    #[cfg(unix)]
    {
        let out = ptc(&[
            "run",
            "--root",
            &root,
            "-e",
            "(Read :file_path \"link.txt\")",
        ]);
        assert_eq!(
            out.stdout,
            "Error: path is outside the workspace root: link.txt\n"
        );
        let out = ptc(&[
            "run",
            "--root",
            &root,
            "-e",
            "(Grep :pattern \"password\" :path \"up\")",
        ]);
        assert_eq!(
            out.stdout,
            "Error: path is outside the workspace root: up\n"
        );
        let out = ptc(&["run", "--root", &root, "-e", "(Grep :pattern \"password\")"]);
        assert_eq!(out.stdout, "\n");
        let out = ptc(&["run", "--root", &root, "-e", "(Glob :pattern \"**/*.txt\")"]);
        assert_eq!(out.stdout, "\n");
    }
    let out = ptc(&[
        "run",
        "--root",
        &root,
        "-e",
        "(parallel (Read :file_path \"src/lib.rs\") (Glob :pattern \"**/*.rs\") (Grep :pattern \"fn answer\" :output_mode \"content\"))",
    ]);
    assert_eq!(
        out.stdout,
        "(\"     1\tpub fn answer() -> u32 { 42 }\" \"src/lib.rs\" \
         \"src/lib.rs:1:pub fn answer() -> u32 { 42 }\")\n"
    );
}

#[test]
fn the_main_job_runs_over_this_repository() {
    let repository = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let out = ptc(&[
        "run",
        "--root",
        repository.to_str().unwrap(),
        "-e",
        "(let ((files (split-string (Glob :pattern \"cli/src/*.rs\") \"\\n\"))) \
           (list (length files) (Read :file_path \"Cargo.toml\" :limit 1)))",
    ]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let count = std::fs::read_dir(repository.join("cli/src"))
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "rs")
        })
        .count();
    assert_eq!(out.stdout, format!("({count} \"     1\t[workspace]\")\n"));
}

#[test]
fn check_reports_every_diagnostic_and_exit_codes_follow_the_outcome() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.el");
    std::fs::write(&bad, "(frobnicate 1)").unwrap();
    let good = dir.path().join("good.el");
    std::fs::write(&good, "(Read :file_path \"x\")").unwrap();
    let out = ptc(&["check", good.to_str().unwrap()]);
    assert_eq!((out.code, out.stderr.as_str()), (0, ""));
    let out = ptc(&["check", bad.to_str().unwrap()]);
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("frobnicate"), "{}", out.stderr);
    assert!(out.stderr.contains("───"), "carets: {}", out.stderr);
    let out = ptc(&["check", "--format", "json", bad.to_str().unwrap()]);
    let report: Json = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(report["ok"], false);
    assert_eq!(report["diagnostics"][0]["kind"], "preflight");
    assert_eq!(
        report["diagnostics"][0]["span"],
        json!({"start": 1, "end": 11})
    );
    // Usage errors exit 2.
    assert_eq!(ptc(&["check"]).code, 2);
    assert_eq!(ptc(&["run", "--limit", "steps=lots", "-e", "1"]).code, 2);
    assert_eq!(ptc(&["run", "--stub", "A=frob", "-e", "1"]).code, 2);
    assert_eq!(ptc(&["run", "--standalone", "Nope", "-e", "1"]).code, 2);
    assert_eq!(ptc(&["frobnicate"]).code, 2);
    // Standard input, and a budget that runs out.
    let out = ptc_with_input(&["run", "--no-builtin-tools", "-"], "(+ 1 2)");
    assert_eq!((out.code, out.stdout.as_str()), (0, "3\n"));
    let (code, outcome) = run_json(
        &["--limit", "steps=50"],
        "(let ((n 0)) (while t (setq n (+ n 1))))",
    );
    assert_eq!(code, 1);
    assert_eq!(outcome["outcome"], "script-error");
    assert_eq!(outcome["error"]["kind"], "step");
}

#[test]
fn describe_prints_the_description_and_listing() {
    let out = ptc(&["describe", "--stub", "Ask=text:yes", "--standalone", "Ask"]);
    assert_eq!(out.code, 0);
    assert!(
        out.stdout.starts_with("Call one or more tools"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("\n- (Read :file_path STRING &optional :offset INTEGER :limit INTEGER) — Reads a text file of the workspace, lines numbered like `cat -n`.\n"), "{}", out.stdout);
    assert!(out.stdout.contains(
        "- (Ask) — Stub tool Ask (text:yes). [standalone-only: must be the entire expression]"
    ));
    // A standalone-only tool may be called directly but not composed.
    let (code, _) = run_json(&["--stub", "Ask=text:yes", "--standalone", "Ask"], "(Ask)");
    assert_eq!(code, 0);
    let (code, outcome) = run_json(
        &["--stub", "Ask=text:yes", "--standalone", "Ask"],
        "(list (Ask))",
    );
    assert_eq!(code, 1);
    assert_eq!(outcome["error"]["kind"], "preflight");
}

#[test]
fn check_takes_an_expression_and_judges_tool_arguments() {
    let out = ptc(&["check", "-e", "(Read :file_path \"x\")"]);
    assert_eq!((out.code, out.stderr.as_str()), (0, ""));
    // Every problem at once, each with its caret, before anything runs.
    let script =
        "(progn (Read :file_pth \"a\") (Grep :pattern \"x\" :ignore_case \"yes\") (frobnicate))";
    let out = ptc(&["check", "-e", script]);
    assert_eq!(out.code, 1);
    for fragment in [
        "Read has no argument :file_pth (try :file_path); it accepts: :file_path, :offset, :limit",
        "Read needs :file_path",
        "Grep :ignore_case expects a boolean, got the string \"yes\"",
        "Unknown functions: frobnicate",
    ] {
        assert!(out.stderr.contains(fragment), "{fragment}: {}", out.stderr);
    }
    let out = ptc(&["check", "--format", "json", "-e", script]);
    let report: Json = serde_json::from_str(&out.stdout).unwrap();
    let codes: Vec<&str> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap())
        .collect();
    assert_eq!(codes, ["E0320", "E0321", "E0322", "E0301"]);
    assert_eq!(
        report["diagnostics"][0]["span"],
        json!({"start": 13, "end": 22})
    );
    // `ptc run` refuses the same script without calling any tool.
    let out = ptc(&["run", "--format", "json", "-e", script]);
    assert_eq!(out.code, 1);
    let outcome: Json = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(outcome["error"]["kind"], "preflight");
    assert_eq!(outcome["calls"], json!([]));
}

#[test]
fn two_processes_sharing_a_journal_never_share_a_record() {
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().to_str().unwrap();
    let args = [
        "run",
        "--journal",
        journal,
        "--no-builtin-tools",
        "--format",
        "json",
        "-e",
        "1",
    ];
    let first: Json = serde_json::from_str(&ptc(&args).stdout).unwrap();
    let second: Json = serde_json::from_str(&ptc(&args).stdout).unwrap();
    assert_ne!(first["id"], second["id"]);
    let records = std::fs::read_dir(dir.path())
        .unwrap()
        .filter(|entry| {
            entry
                .as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|e| e == "json")
        })
        .count();
    assert_eq!(records, 2);
}
