//! Golden disassembly of representative programs: the listing pins the lowering of each
//! special form, the fast paths, closures with captured cells, tail calls and batches.
//! Regenerate with `INSTA_UPDATE=always cargo test -p ptc-compiler --test disassembly`
//! and review the diff.

use ptc_compiler::{Roster, compile};
use ptc_vm::Limits;
use ptc_vm::disasm::disassemble;

fn listing(source: &str) -> String {
    let roster = Roster::new().tool("Read").tool("Grep");
    let compiled = compile(source, &roster, &Limits::default()).expect("compiles");
    format!("{source}\n---\n{}", disassemble(&compiled.program))
}

#[test]
fn counting_loop() {
    insta::assert_snapshot!(listing(
        "(let ((n 0)) (while (< n 1000000) (setq n (+ n 1))) n)"
    ));
}

#[test]
fn counting_loops_fuse_their_increment_with_the_bottom_test() {
    // `dotimes` and a hand-written counter fuse into ADDI.JLT; a conditional increment
    // (a jump lands after it) and a constant limit do not.
    insta::assert_snapshot!(listing(
        "(defun sum-below (n) (let ((s 0)) (dotimes (i n) (setq s (+ s i))) s))\n(defun up (n) (let ((i 0)) (while (< i n) (setq i (+ i 2))) i))\n(defun skip (n) (let ((i 0)) (while (< i n) (when (> n 0) (setq i (+ i 1)))) i))\n(list (sum-below 10) (up 7) (skip 3))"
    ));
}

#[test]
fn recursive_function_with_tail_call() {
    insta::assert_snapshot!(listing(
        "(defun fib (n) (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2)))))\n(defun loop (n acc) (if (= n 0) acc (loop (- n 1) (+ acc n))))\n(list (fib 10) (loop 10 0))"
    ));
}

#[test]
fn closure_capturing_a_mutated_variable() {
    insta::assert_snapshot!(listing(
        "(let ((n 0)) (mapcar (lambda (x) (setq n (+ n x))) '(1 2 3)) n)"
    ));
}

#[test]
fn cond_and_or() {
    insta::assert_snapshot!(listing(
        "(let ((x 3)) (cond ((and (> x 1) (< x 5)) 'mid) ((or (= x 0) nil) 'zero) (t x)))"
    ));
}

#[test]
fn tool_calls_and_batches() {
    insta::assert_snapshot!(listing(
        "(let ((files (split-string (Grep :pattern \"x\") \"\\n\" t)))\n  (parallel-map (lambda (f) (Read :file_path f)) files))"
    ));
}

#[test]
fn runtime_failures_lower_to_fail() {
    insta::assert_snapshot!(listing("(if nil undefined-var (let ((:bad 1)) y))"));
}
