//! The JS binding's sans-IO loop natively (not a test): N sequential calls answered at
//! once through `Engine`/`Run` exactly as `js/index.js` drives them, to compare with the
//! WebAssembly build's `node js/bench/nested.js`.
//!
//! ```sh
//! cargo run --release -p ptc-js --example native_loop
//! ```

use ptc_js::Engine;
use std::time::Instant;

fn main() {
    let n = 10_000;
    let Ok(engine) = Engine::new(
        r#"[{"name": "Echo", "inputSchema": {"type": "object"}}]"#,
        Some(format!(r#"{{"tool-calls": {n}, "steps": {}}}"#, 100 * n)),
    ) else {
        return;
    };
    for _ in 0..3 {
        let started = Instant::now();
        let mut run = engine.start(
            &format!("(let ((i 0)) (while (< i {n}) (Echo) (setq i (1+ i))) i)"),
            "x",
            false,
        );
        loop {
            let event = run.step(0.0);
            if event.starts_with(r#"{"kind":"settled""#) {
                break;
            }
            if let Some(at) = event.find(r#""id":""#) {
                let rest = &event[at + 6..];
                let id = &rest[..rest.find('"').unwrap_or(0)];
                let _ = run.complete_text(0.0, id, "ok");
            }
        }
        let per_call = started.elapsed().as_secs_f64() * 1e6 / f64::from(n);
        println!("native: {per_call:.2} µs per nested call");
    }
}
