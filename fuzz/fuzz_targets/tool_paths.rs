//! The built-in tools' path handling over a generated directory tree with symlinks.
//!
//! Input: a little program of bytes. Each 3-byte op builds the tree inside `root/`
//! (directories, files, symlinks to targets in the root, climbing out of it, absolute in
//! and out, loops; ignore files); after a `0xff` byte, pairs of bytes make Read, Glob and
//! Grep calls with generated paths (relative, `..`, `.`, absolute under the root and
//! outside it).
//!
//! Oracles: no panic; every call answers the same under two different states of
//! everything *outside* the root (files present or absent, different contents, ignore
//! files above the root); no answer contains the content marker of an outside file.

#![no_main]

use libfuzzer_sys::fuzz_target;
use ptc_cli::builtin::{Stop, Workspace, glob, grep, read};
use serde_json::json;
use std::path::{Path, PathBuf};

const NAMES: [&str; 8] = ["a", "b", "c.txt", "d", ".h", "e.rs", "f", "up"];
const IGNORES: [&str; 4] = ["*.txt\n", "b\n", "!c.txt\n*\n", "d/\n"];
const MARKER: &str = "OUTSIDE-CONTENT";

fn name(byte: u8) -> &'static str {
    NAMES[usize::from(byte) % NAMES.len()]
}

/// A path of up to 3 components inside the root, from the low bits of `byte`.
fn rel(byte: u8, extra: u8) -> String {
    let depth = 1 + usize::from(extra % 3);
    let mut parts = vec![name(byte)];
    for i in 1..depth {
        parts.push(name(byte.rotate_left(3 * i as u32) ^ extra));
    }
    parts.join("/")
}

/// Symlink targets: inside, climbing out, absolute in and out, self, loops.
fn target(byte: u8, root: &Path, outside: &Path) -> PathBuf {
    match byte % 12 {
        0 => PathBuf::from(name(byte >> 4)),
        1 => PathBuf::from(format!("../{}", name(byte >> 4))),
        2 => PathBuf::from(".."),
        3 => PathBuf::from("."),
        4 => root.join(name(byte >> 4)),
        5 => root.to_path_buf(),
        6 => outside.join("secret.txt"),
        7 => outside.join("nope.txt"),
        8 => outside.to_path_buf(),
        9 => PathBuf::from("../../outside/secret.txt"),
        10 => PathBuf::from(format!("{}/../..", name(byte >> 4))),
        _ => PathBuf::from("/etc"),
    }
}

/// A requested path for a tool call.
fn request(byte: u8, extra: u8, root: &Path, outside: &Path) -> String {
    let tail = rel(byte, extra);
    match extra % 8 {
        0 | 1 | 2 => tail,
        3 => format!("../{tail}"),
        4 => format!("{}/{tail}", root.display()),
        5 => format!("{}/{tail}", outside.display()),
        6 => format!("{tail}/../../{}", name(byte)),
        _ => format!("./{tail}/."),
    }
}

/// The outside world, state A or B: different files, contents and ignore files.
fn set_outside(base: &Path, outside: &Path, state_b: bool) {
    let _ = std::fs::remove_dir_all(outside);
    let _ = std::fs::remove_file(base.join(".gitignore"));
    let _ = std::fs::remove_file(base.join(".ignore"));
    if state_b {
        std::fs::create_dir_all(outside.join("nope.txt")).ok();
        std::fs::write(base.join(".gitignore"), "*\n").ok();
        std::fs::write(base.join(".ignore"), "*.rs\nc.txt\n").ok();
    } else {
        std::fs::create_dir_all(outside.join("a/b")).ok();
        std::fs::write(outside.join("secret.txt"), format!("{MARKER} a\n")).ok();
        std::fs::write(outside.join("a/c.txt"), format!("{MARKER} b\n")).ok();
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(dir) = tempfile::tempdir() else { return };
    let Ok(base) = dir.path().canonicalize() else {
        return;
    };
    let root = base.join("root");
    let outside = base.join("outside");
    if std::fs::create_dir_all(&root).is_err() {
        return;
    }
    let (ops, calls) = match data.iter().position(|b| *b == 0xff) {
        Some(at) => (&data[..at], &data[at + 1..]),
        None => (data, &[][..]),
    };
    for op in ops.chunks(3).take(48) {
        let [kind, a, b] = [op[0], *op.get(1).unwrap_or(&0), *op.get(2).unwrap_or(&0)];
        let path = root.join(rel(a, b));
        if let Some(parent) = path.parent() {
            let _ = std::fs::create_dir_all(parent);
        }
        match kind % 5 {
            0 => drop(std::fs::create_dir_all(&path)),
            1 => drop(std::fs::write(&path, format!("in {}\n", rel(a, b)))),
            2 | 3 => {
                #[cfg(unix)]
                drop(std::os::unix::fs::symlink(
                    target(b, &root, &outside),
                    &path,
                ));
            }
            _ => {
                let dir = path.parent().unwrap_or(&root).to_path_buf();
                let file = if b % 2 == 0 { ".gitignore" } else { ".ignore" };
                drop(std::fs::write(dir.join(file), IGNORES[usize::from(b) % 4]));
            }
        }
    }
    let Ok(workspace) = Workspace::new(&root) else {
        return;
    };
    let stop = Stop::never();
    let mut answers: [Vec<Result<String, String>>; 2] = [Vec::new(), Vec::new()];
    for (state, slot) in answers.iter_mut().enumerate() {
        set_outside(&base, &outside, state == 1);
        for call in calls.chunks(2).take(16) {
            let [a, b] = [call[0], *call.get(1).unwrap_or(&0)];
            let path = request(a, b, &root, &outside);
            let answer = match a % 3 {
                0 => read(&workspace, &json!({ "file_path": path }), &stop),
                1 => glob(
                    &workspace,
                    &json!({ "pattern": "**/*", "path": path }),
                    &stop,
                ),
                _ => grep(
                    &workspace,
                    &json!({ "pattern": "in|OUTSIDE", "path": path, "output_mode": "content" }),
                    &stop,
                ),
            };
            let (Ok(text) | Err(text)) = &answer;
            assert!(
                !text.contains(MARKER),
                "outside content leaked for {path}: {text}"
            );
            slot.push(answer);
        }
        // Whole-root walks too.
        slot.push(glob(&workspace, &json!({"pattern": "**"}), &stop));
        slot.push(grep(
            &workspace,
            &json!({"pattern": ".", "output_mode": "content"}),
            &stop,
        ));
    }
    assert_eq!(
        answers[0], answers[1],
        "an answer depends on something outside the root"
    );
});
