//! Runs the ptc workloads: compile once, then one [`Machine`] per run, driven by a small
//! synchronous host (tools `read`, `text`) or, for the fan-out, by a tokio host that runs a
//! batch's calls with bounded concurrency.
//!
//! Invariants: the limits are [`bench_limits`] everywhere except workload 8, which keeps the
//! default retained and value budgets so that O(n²) accounting would fail it, not just slow
//! it; every runner returns the guest's integer answer or an error text.

use crate::workloads::{self, FANOUT_CONCURRENCY, FANOUT_SLEEP_MS};
use ptc_compiler::{Roster, compile};
use ptc_vm::{Limits, Machine, Program, Step, ToolRequest, Value};
use std::sync::Arc;
use std::time::Duration;

/// The budgets of the benchmarks: the defaults with steps, value and retained budgets raised
/// so that the workloads fit (fuel slices and everything else stay at their defaults).
#[must_use]
pub fn bench_limits() -> Limits {
    Limits {
        steps: 100_000_000,
        value_bytes: 16 << 20,
        value_nodes: 1_000_000,
        retained_bytes: 1 << 30,
        tool_calls: 1_000,
        ..Limits::default()
    }
}

/// Workload 8's budgets: the defaults, with only steps raised.
#[must_use]
pub fn scaling_limits() -> Limits {
    Limits {
        steps: 100_000_000,
        ..Limits::default()
    }
}

/// The roster every workload compiles against.
#[must_use]
pub fn roster() -> Roster {
    Roster::new().tool("read").tool("sleep").tool("text")
}

/// What the host tools answer: `text` gives the shared workload-4 text (an `Arc` clone),
/// `read` a fresh copy of 1 KiB, `sleep` the symbol `t`.
#[derive(Debug, Clone)]
pub struct Host {
    text: Value,
    file: Box<str>,
}

impl Host {
    /// The host with the workload inputs.
    #[must_use]
    pub fn new() -> Host {
        Host {
            text: Value::string(workloads::text()),
            file: workloads::file_content().into_boxed_str(),
        }
    }

    fn answer(&self, request: &ToolRequest) -> Value {
        match &*request.tool {
            "text" => self.text.clone(),
            "read" => match path_argument(&request.args) {
                // A real host would open the file; this one only looks at the path.
                Some(path) if !path.is_empty() => Value::string(self.file.clone()),
                _ => Value::Nil,
            },
            _ => Value::T,
        }
    }
}

impl Default for Host {
    fn default() -> Host {
        Host::new()
    }
}

/// The string after `:path` in a tool's argument list `(:path "...")`.
fn path_argument(args: &Value) -> Option<&str> {
    args.as_cons()?.cdr().as_cons()?.car().as_str()
}

/// Compiles `source` with the benchmark roster.
///
/// # Errors
/// The compiler's first diagnostic, as text.
pub fn compile_program(source: &str, limits: &Limits) -> Result<Arc<Program>, String> {
    compile(source, &roster(), limits)
        .map(|compiled| compiled.program)
        .map_err(|diagnostics| {
            diagnostics
                .first()
                .map_or_else(String::new, |d| d.message.clone())
        })
}

/// Drives `machine` to its end, answering tools from `host` (batches in order, one by one).
///
/// # Errors
/// The machine's error, or a non-integer final value, as text.
pub fn drive(machine: &mut Machine, host: &Host) -> Result<i64, String> {
    let mut step = machine.step();
    loop {
        step = match step {
            Step::Pause => machine.step(),
            Step::Tool(request) => machine.resume_tool(host.answer(&request)),
            Step::Batch(requests) => {
                let results = requests.iter().map(|r| host.answer(r)).collect();
                machine.resume_batch(results)
            }
            Step::Done(value) => return integer(&value, machine),
            Step::Error(error) => {
                return Err(format!("{}: {}", error.kind().as_str(), error.message()));
            }
        };
    }
}

fn integer(value: &Value, machine: &Machine) -> Result<i64, String> {
    match value {
        Value::Int(n) => Ok(*n),
        other => Err(format!("not an integer: {}", machine.render(other))),
    }
}

/// Runs a compiled program once, metered or not.
///
/// # Errors
/// As [`drive`].
pub fn run(
    program: &Arc<Program>,
    limits: Limits,
    host: &Host,
    metered: bool,
) -> Result<i64, String> {
    let mut machine = Machine::new(Arc::clone(program), limits);
    if !metered {
        machine.set_unmetered();
    }
    drive(&mut machine, host)
}

/// Workload 6: compile and run `source` from nothing (roster and limits built per call).
///
/// # Errors
/// As [`compile_program`] and [`drive`].
pub fn cold(source: &str, host: &Host) -> Result<i64, String> {
    let limits = Limits::default();
    let program = compile_program(source, &limits)?;
    run(&program, limits, host, true)
}

/// Workload 8's program for a list of `n` elements passed `n` times.
#[must_use]
pub fn shared_list_source(n: i64) -> String {
    workloads::programs::SHARED_LIST.replace("@N@", &n.to_string())
}

/// Workload 9: runs the fan-out program, answering each batch with tokio tasks that sleep
/// [`FANOUT_SLEEP_MS`], at most [`FANOUT_CONCURRENCY`] at once, results in source order.
///
/// A minimal host (a `JoinSet` of tasks gated by a semaphore, no argument conversion,
/// audit or policy), measured beside ptc-runtime's driver ([`fanout_runtime`]).
///
/// # Errors
/// As [`drive`], or a failed task.
pub async fn fanout(program: &Arc<Program>, limits: Limits) -> Result<i64, String> {
    let mut machine = Machine::new(Arc::clone(program), limits);
    let permits = Arc::new(tokio::sync::Semaphore::new(FANOUT_CONCURRENCY));
    let mut step = machine.step();
    loop {
        step = match step {
            Step::Pause => machine.step(),
            Step::Tool(_) => machine.resume_tool(Value::T),
            Step::Batch(requests) => {
                let results = sleep_all(requests.len(), &permits, Sleep::Timer).await?;
                machine.resume_batch(results)
            }
            Step::Done(value) => return integer(&value, &machine),
            Step::Error(error) => return Err(error.message().to_owned()),
        };
    }
}

/// How workload 9's tool waits its 1 ms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sleep {
    /// `tokio::time::sleep`: the timer wheel's 1 ms granularity makes it ~2 ms.
    Timer,
    /// `std::thread::sleep` on tokio's blocking pool: the OS timer, ~1.05 ms.
    Precise,
}

impl Sleep {
    /// Sleeps [`FANOUT_SLEEP_MS`] this way.
    ///
    /// # Errors
    /// The blocking task panicked or was cancelled, as text.
    pub async fn wait(self) -> Result<(), String> {
        let duration = Duration::from_millis(FANOUT_SLEEP_MS);
        match self {
            Sleep::Timer => {
                tokio::time::sleep(duration).await;
                Ok(())
            }
            Sleep::Precise => tokio::task::spawn_blocking(move || std::thread::sleep(duration))
                .await
                .map_err(|e| e.to_string()),
        }
    }
}

/// The ptc-runtime runner for workload 9: one tool `sleep` (sleeps [`FANOUT_SLEEP_MS`] as
/// `sleep` says, answers `"ok"`), the benchmark limits with `parallelism`
/// [`FANOUT_CONCURRENCY`].
///
/// # Errors
/// A registry refusal, as text.
pub fn fanout_runner(sleep: Sleep) -> Result<ptc_runtime::Runner, String> {
    use ptc_runtime::{Registry, ToolContract, ToolRequestCtx, ToolResult};
    let schema = serde_json::json!({
        "type": "object",
        "properties": {"id": {"type": "integer"}},
        "additionalProperties": false
    });
    let mut registry = Registry::new();
    registry
        .register(
            ToolContract::new("sleep", "Sleeps 1 ms.", schema),
            move |_request: ToolRequestCtx| async move {
                match sleep.wait().await {
                    Ok(()) => ToolResult::text("ok"),
                    Err(error) => ToolResult::error(error),
                }
            },
        )
        .map_err(|e| e.to_string())?;
    let limits = Limits {
        parallelism: FANOUT_CONCURRENCY as u64,
        ..bench_limits()
    };
    Ok(ptc_runtime::Runner::new(Arc::new(registry)).with_limits(limits))
}

/// Workload 9 through ptc-runtime's driver: the fan-out program, answer from the outcome.
///
/// # Errors
/// The outcome's error, or a non-integer value, as text.
pub async fn fanout_runtime(
    runner: &ptc_runtime::Runner,
    program: &Arc<Program>,
) -> Result<i64, String> {
    let outcome = runner
        .run(
            ptc_runtime::Source::Program {
                program,
                direct: None,
                text: workloads::programs::FANOUT,
            },
            ptc_runtime::RunOptions::default(),
        )
        .await;
    if let Some(error) = &outcome.error {
        return Err(format!("{}: {}", error.kind, error.message));
    }
    outcome
        .value
        .as_deref()
        .and_then(serde_json::Value::as_i64)
        .ok_or_else(|| format!("not an integer: {}", outcome.text))
}

/// Runs `count` sleeping calls, at most the semaphore's permits at once; results in order.
///
/// # Errors
/// A task that panicked or a closed semaphore.
pub async fn sleep_all(
    count: usize,
    permits: &Arc<tokio::sync::Semaphore>,
    sleep: Sleep,
) -> Result<Vec<Value>, String> {
    let mut tasks = tokio::task::JoinSet::new();
    for index in 0..count {
        let permits = Arc::clone(permits);
        tasks.spawn(async move {
            let _permit = permits.acquire_owned().await.map_err(|e| e.to_string())?;
            sleep.wait().await?;
            Ok::<_, String>(index)
        });
    }
    let mut results = vec![Value::Nil; count];
    while let Some(joined) = tasks.join_next().await {
        let index = joined.map_err(|e| e.to_string())??;
        if let Some(slot) = results.get_mut(index) {
            *slot = Value::T;
        }
    }
    Ok(results)
}
