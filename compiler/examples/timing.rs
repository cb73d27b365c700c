use ptc_compiler::{Roster, compile};
use ptc_vm::{Limits, Machine, Step};
use std::time::Instant;
fn main() {
    let scripts = [
        (
            "loop",
            "(let ((n 0)) (while (< n 1000000) (setq n (+ n 1))) n)",
        ),
        (
            "fib",
            "(defun fib (n) (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2))))) (fib 25)",
        ),
    ];
    let limits = Limits {
        steps: u64::MAX / 2,
        ..Limits::default()
    };
    let only = std::env::args().nth(1);
    let reps: usize = std::env::args()
        .nth(2)
        .and_then(|r| r.parse().ok())
        .unwrap_or(10);
    for (name, src) in scripts {
        if only.as_deref().is_some_and(|o| o != name) {
            continue;
        }
        let c = compile(src, &Roster::new(), &limits).unwrap();
        for metered in [true] {
            let mut best = f64::MAX;
            for _ in 0..reps {
                let mut m = Machine::new(c.program.clone(), limits);
                if !metered {
                    m.set_unmetered();
                }
                let t = Instant::now();
                let out = loop {
                    match m.step() {
                        Step::Pause => {}
                        o => break o,
                    }
                };
                let e = t.elapsed().as_secs_f64();
                assert!(matches!(out, Step::Done(_)), "{out:?}");
                best = best.min(e);
            }
            println!("{name} metered={metered}: {:.3} ms", best * 1e3);
        }
    }
}
