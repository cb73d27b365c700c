//! Host-stack use of the compiler on scripts within the default depth limit (100).
//!
//! Found while building the hostile suite: lowering recurses once per nesting level with
//! about 23 KiB of stack per level in a debug build (`Lowerer::primitive` ≈ 12.4 KiB,
//! `compound` ≈ 4.3 KiB, `expr_inner` ≈ 3.6 KiB, `expr` ≈ 1.5 KiB, `operand` ≈ 1.3 KiB,
//! measured with gdb), so `compile` of a 98-deep script overflows a 2 MiB thread stack —
//! the default for spawned threads and for tokio worker threads — and aborts the process.
//! The reader already moves deep scripts to a helper thread sized for their depth; the later
//! passes do not. A stack overflow aborts the whole test binary, so these tests are
//! ignored until the fix lands (run them with `--ignored`).

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
#[ignore = "BUG: compile of a script 98 levels deep (inside the default depth limit of 100) \
            overflows a 2 MiB thread stack in a debug build (tokio's worker default) and \
            aborts the process: lowering (compiler/src/lower/mod.rs expr → compound → \
            primitive → operand) uses ~23 KiB per level. Fix: run the passes after reading \
            on the same depth-sized helper thread the reader uses (reader.rs parse_tokens), \
            or shrink Lowerer::primitive's frame (box its large locals)."]
fn compile_within_the_depth_limit_fits_a_two_mebibyte_stack() {
    assert!(compile_on_stack(2 * 1024 * 1024, 98));
}

#[test]
#[ignore = "BUG: compile of a script only 10 levels deep overflows a 256 KiB thread stack in \
            a debug build: gdb shows the overflow in lowering (Lowerer::primitive at depth 10, \
            ~23 KiB per level). Same fix as above; note also that the reader parses up to \
            INLINE_DEPTH = 32 levels on the caller's stack at ~13 KiB per level (its own \
            estimate), i.e. ~416 KiB."]
fn compile_of_a_shallow_script_fits_a_256_kibibyte_stack() {
    assert!(compile_on_stack(256 * 1024, 10));
}
