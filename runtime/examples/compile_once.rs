//! What compiling once saves: the same 10-line script with three nested calls, run N
//! times through `Runner::run` of its text (compiles every time) and of a `Script` compiled
//! once (its input bound per run). Prints the median and minimum time
//! per run of each, in microseconds.
//!
//! `cargo run --release -p ptc-runtime --example compile_once [N]`

use ptc_runtime::{Isolation, Registry, RunOptions, Runner, ToolRequestCtx};
use schemars::JsonSchema;
use serde::Deserialize;
use std::error::Error;
use std::sync::Arc;
use std::time::Instant;

#[derive(Deserialize, JsonSchema)]
struct Args {
    /// A city.
    city: String,
}

const SCRIPT: &str = r#"
(defun temp-of (reading) (plist-get reading :temp))
(let* ((readings (parallel (Weather :city city) (Weather :city "Oslo")))
       (temps (mapcar #'temp-of readings))
       (extra (Weather :city "Lima")))
  (list :max (apply #'max temps)
        :min (apply #'min temps)
        :lima (temp-of extra)
        :cities (length readings)
        :label (format "%s: %d" city (car temps))))
"#;

fn median(mut samples: Vec<f64>) -> (f64, f64) {
    samples.sort_by(f64::total_cmp);
    let min = samples.first().copied().unwrap_or_default();
    (
        samples.get(samples.len() / 2).copied().unwrap_or_default(),
        min,
    )
}

fn main() -> Result<(), Box<dyn Error>> {
    let n: usize = std::env::args().nth(1).map_or(Ok(2000), |a| a.parse())?;
    let mut registry = Registry::new();
    registry.register_typed(
        "Weather",
        "Gives a temperature.",
        |args: Args, _request: ToolRequestCtx| async move {
            Ok::<_, String>(serde_json::json!({"temp": args.city.len()}))
        },
    )?;
    let runner = Runner::new(Arc::new(registry)).with_isolation(Isolation::Inline);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let inputs = serde_json::json!({"city": "Rome"});
    let script = runner.compile(SCRIPT, &["city"], None)?;
    let mut each = Vec::with_capacity(n);
    let mut once = Vec::with_capacity(n);
    for _ in 0..n {
        let started = Instant::now();
        let outcome = rt.block_on(runner.run(SCRIPT, RunOptions::new().inputs(&inputs)?));
        each.push(started.elapsed().as_secs_f64() * 1e6);
        outcome.into_result()?;
        let started = Instant::now();
        let outcome = rt.block_on(runner.run(&script, RunOptions::new().inputs(&inputs)?));
        once.push(started.elapsed().as_secs_f64() * 1e6);
        outcome.into_result()?;
    }
    let (each_median, each_min) = median(each);
    let (once_median, once_min) = median(once);
    println!("runs: {n} of each, interleaved");
    println!("run (compile every time):  median {each_median:.1} us, min {each_min:.1} us");
    println!("run of a Script (compiled once): median {once_median:.1} us, min {once_min:.1} us");
    Ok(())
}
