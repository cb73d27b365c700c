//! The pure workloads of `js/bench/workloads.json` natively (not a test): each ptc script
//! run through the binding's `Engine`/`Run` exactly as `js/index.js` drives it, to set
//! beside the WebAssembly build's `node js/bench/engines.js`. Prints the median of ROUNDS
//! runs per workload and fails when a result differs from the file's `expect`.
//!
//! ```sh
//! cargo run --release -p ptc-js --example native_workloads [ROUNDS=5]
//! ```

use ptc_js::Engine;
use serde_json::Value;
use std::time::Instant;

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .and_then(|r| r.parse().ok())
        .unwrap_or(5);
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/bench/workloads.json");
    let file: Value = match std::fs::read_to_string(path).map(|text| serde_json::from_str(&text)) {
        Ok(Ok(file)) => file,
        _ => panic!("cannot read {path}"),
    };
    let Ok(engine) = Engine::new("[]", Some(file["limits"].to_string())) else {
        panic!("the limits of {path} are refused");
    };
    for workload in file["workloads"].as_array().into_iter().flatten() {
        let (name, script) = (
            workload["name"].as_str().unwrap_or(""),
            workload["ptc"].as_str().unwrap_or(""),
        );
        let mut times = Vec::with_capacity(rounds);
        for _ in 0..rounds {
            let started = Instant::now();
            let mut run = engine.start(script, "bench", false);
            let settled = loop {
                let event = run.step(started.elapsed().as_secs_f64() * 1e3);
                if event.starts_with(r#"{"kind":"settled""#) {
                    break event;
                }
            };
            times.push(started.elapsed().as_secs_f64() * 1e3);
            let outcome: Value = serde_json::from_str(&settled).unwrap_or_default();
            let text = &outcome["outcome"]["text"];
            assert!(
                text == &workload["expect"],
                "{name}: {text} (expected {})",
                workload["expect"]
            );
        }
        times.sort_by(f64::total_cmp);
        println!(
            "native  {name}: median {:.1} ms of {rounds}",
            times[rounds / 2]
        );
    }
}
