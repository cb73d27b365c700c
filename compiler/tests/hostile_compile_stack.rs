//! Host-stack use of the compiler on scripts within the default depth limit (100).
//!
//! Found while building the hostile suite: lowering recurses once per nesting level with
//! about 23 KiB of stack per level in a debug build (`Lowerer::primitive` ≈ 12.4 KiB,
//! `compound` ≈ 4.3 KiB, `expr_inner` ≈ 3.6 KiB, `expr` ≈ 1.5 KiB, `operand` ≈ 1.3 KiB,
//! measured with gdb), so `compile` of a 98-deep script overflows a 2 MiB thread stack —
//! the default for spawned threads and for tokio worker threads — and aborts the process.
//! Fixed: the reader and lowering now grow the stack on demand (`stacker`), so these
//! tests pin that a deep script compiles on small thread stacks.

use ptc_compiler::{Roster, compile};
use ptc_vm::Limits;

fn compile_on_stack(stack: usize, depth: usize) -> bool {
    let source = format!(
        "(let ((x 1)) {}x{})",
        "(not ".repeat(depth),
        ")".repeat(depth)
    );
    let handle = std::thread::Builder::new()
        .stack_size(stack)
        .spawn(move || compile(&source, &Roster::new(), &Limits::default()).is_ok())
        .expect("spawn");
    handle.join().expect("compile panicked")
}

#[test]
fn compile_within_the_depth_limit_fits_an_eight_mebibyte_stack() {
    assert!(compile_on_stack(8 * 1024 * 1024, 98));
}

#[test]
fn compile_within_the_depth_limit_fits_a_two_mebibyte_stack() {
    assert!(compile_on_stack(2 * 1024 * 1024, 98));
}

#[test]
fn compile_of_a_shallow_script_fits_a_256_kibibyte_stack() {
    assert!(compile_on_stack(256 * 1024, 10));
}

/// The first 64 KiB of lowering run without asking for the stack's bounds (a shallow
/// script does not pay for the probe); past them every level checks, so a script at the
/// depth limit still compiles where only 512 KiB of stack is left (the passes bounded by the
/// expanded-depth ceiling, which never check, need more than 256 KiB of it in a debug
/// build).
#[test]
fn compile_within_the_depth_limit_fits_a_512_kibibyte_stack() {
    assert!(compile_on_stack(512 * 1024, 98));
}
