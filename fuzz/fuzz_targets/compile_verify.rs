//! compile → every emitted program passed the verifier (`Program::new` verifies, so a
//! success is a verified program); the disassembler renders it, and the verified program
//! runs under a tiny budget without panicking.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    ptc_fuzz::set_input(data);
    let source = String::from_utf8_lossy(data);
    let limits = ptc_fuzz::small_limits();
    if let Ok(compiled) = ptc_compiler::compile(&source, &ptc_fuzz::roster(), &limits) {
        let text = ptc_vm::disasm::disassemble(&compiled.program);
        assert!(!text.is_empty());
        let tiny = ptc_vm::Limits {
            steps: 2_000,
            slice_steps: 500,
            ..limits
        };
        let _ = ptc_fuzz::run(&compiled.program, tiny, &[]);
    }
});
