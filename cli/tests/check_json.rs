//! `ptc check --format json` carries each diagnostic's secondary labels and notes (issue 15,
//! "each with its span and caret, in text and JSON").

use serde_json::{Value as Json, json};
use std::process::Command;

fn check_json(script: &str) -> Json {
    let out = Command::new(env!("CARGO_BIN_EXE_ptc"))
        .args(["check", "--format", "json", "-e", script])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn secondary_labels_and_notes_are_in_the_json_report() {
    let report = check_json("(list (frob 1) (zork 2))");
    let first = &report["diagnostics"][0];
    assert_eq!(first["code"], "E0301");
    assert_eq!(first["span"], json!({"start": 7, "end": 11}));
    assert_eq!(
        first["labels"],
        json!([{"span": {"start": 16, "end": 20}, "label": "unknown function zork"}])
    );
    assert_eq!(first["notes"], json!([]));

    let report = check_json("(list (car 1)");
    assert_eq!(
        report["diagnostics"][0]["labels"],
        json!([{"span": {"start": 0, "end": 1}, "label": "opened here and never closed"}])
    );

    let report = check_json("(defun f () 1) (defun f () 2)");
    assert_eq!(
        report["diagnostics"][0]["labels"][0]["label"],
        "first defined here"
    );
}
