use ptc_compiler::{Roster, compile};
use ptc_vm::{Limits, Machine, Step, Value};
use std::time::Instant;
fn main() {
    let src = std::fs::read_to_string("benches/programs/cold_tiny.lisp").unwrap();
    let roster = Roster::new().tool("read");
    let limits = Limits::default();
    let n = 2000;
    let t = Instant::now();
    for _ in 0..n {
        let c = compile(&src, &roster, &limits).unwrap();
        let mut m = Machine::new(c.program, limits);
        let mut s = m.step();
        loop {
            s = match s {
                Step::Pause => m.step(),
                Step::Tool(_) => m.resume_tool(Value::string("x".repeat(10))),
                Step::Batch(r) => m.resume_batch(r.iter().map(|_| Value::Int(1)).collect()),
                Step::Done(_) => break,
                Step::Error(e) => panic!("{e:?}"),
            }
        }
    }
    println!(
        "compile+run: {:.1} us",
        t.elapsed().as_secs_f64() * 1e6 / n as f64
    );
    let t = Instant::now();
    for _ in 0..n {
        let _ = ptc_compiler::read_script(&src, &limits).unwrap();
    }
    println!(
        "read only: {:.1} us",
        t.elapsed().as_secs_f64() * 1e6 / n as f64
    );
}
