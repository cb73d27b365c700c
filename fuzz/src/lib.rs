//! Shared harness of the ptc fuzz targets: pinned small budgets, a scripted tool host
//! driven by fuzz bytes, the run driver and the oracles every target asserts.
//!
//! Invariants the oracles check (reliability notes §c.4):
//! - no panic (libFuzzer reports one as a crash);
//! - every failure is one typed [`ErrorKind`], never `closed` for a fresh machine;
//! - fuel is hard: `fuel_used <= steps + value_bytes` (the loose bound of one primitive's
//!   work); the largest overshoot seen is printed to stderr whenever it grows;
//! - determinism: re-running the same program with the same host bytes gives the same
//!   outcome, stats and tool-call trace.
//!
//! Every limit is pinned here (never the defaults), and the wall clock is switched off so a
//! run is a pure function of its input.

#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod journal;

use ptc_compiler::Roster;
use ptc_vm::json::from_json;
use ptc_vm::print::{self, Style};
use ptc_vm::{ErrorKind, Limits, Machine, Program, Stats, Step, Value};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// The small, pinned budgets of every fuzz run.
#[must_use]
pub fn small_limits() -> Limits {
    Limits {
        input_bytes: 4_096,
        nodes: 2_000,
        depth: 64,
        expansion_nodes: 4_000,
        steps: 20_000,
        slice_steps: 1_000,
        slice_seconds: None,
        seconds: None,
        tool_calls: 16,
        value_bytes: 65_536,
        value_nodes: 5_000,
        retained_bytes: 1_048_576,
        regexp_bytes: 256,
        regexp_work: 1_048_576,
        number_bits: 512,
        stack_depth: 200,
        parallelism: 4,
        tool_timeout_ms: None,
    }
}

/// The roster every target compiles against: three composable tools and one standalone.
#[must_use]
pub fn roster() -> Roster {
    Roster::new()
        .tool("Read")
        .tool("Grep")
        .tool("Glob")
        .standalone("Ask")
}

/// How one run ended, printed so two runs compare byte for byte.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The `prin1` text of the final value.
    Value(String),
    /// The error kind and message.
    Error(ErrorKind, String),
}

/// One finished run: outcome, counters and the tool calls the guest made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Run {
    /// How it ended.
    pub outcome: Outcome,
    /// The machine's counters at the end.
    pub stats: Stats,
    /// `TOOL ARGS` of every call, in dispatch order.
    pub calls: Vec<String>,
}

/// A cursor over the fuzz bytes that script the tool host's answers.
#[derive(Debug)]
pub struct HostScript<'a> {
    bytes: &'a [u8],
}

impl<'a> HostScript<'a> {
    /// Answers drawn from `bytes`; when they run out every answer is `nil`.
    #[must_use]
    pub fn new(bytes: &'a [u8]) -> Self {
        HostScript { bytes }
    }

    fn byte(&mut self) -> u8 {
        match self.bytes.split_first() {
            Some((first, rest)) => {
                self.bytes = rest;
                *first
            }
            None => 0,
        }
    }

    fn chunk(&mut self) -> &'a [u8] {
        let length = usize::from(self.byte());
        let take = length.min(self.bytes.len());
        let (chunk, rest) = self.bytes.split_at(take);
        self.bytes = rest;
        chunk
    }

    /// The next tool answer: a string, a `(:error "x")`, a JSON document through
    /// `from_json` (when it parses and converts), or a deep/wide list.
    pub fn answer(&mut self, machine: &mut Machine) -> Value {
        match self.byte() % 6 {
            0 => Value::Nil,
            1 => Value::string(String::from_utf8_lossy(self.chunk()).into_owned()),
            2 => {
                let text = String::from_utf8_lossy(self.chunk()).into_owned();
                machine.error_value(&text)
            }
            3 => {
                let chunk = self.chunk();
                match serde_json::from_slice::<serde_json::Value>(chunk) {
                    Ok(json) => {
                        let limits = *machine.limits();
                        match from_json(&json, machine.symbols_mut(), &limits) {
                            Ok(value) => value,
                            Err(error) => machine.error_value(error.message()),
                        }
                    }
                    Err(_) => Value::string(String::from_utf8_lossy(chunk).into_owned()),
                }
            }
            4 => {
                // Deep nesting: (((... x))) built iteratively.
                let depth = usize::from(self.byte()) * 64;
                let mut value = Value::Int(7);
                for _ in 0..depth {
                    value = Value::list([value]);
                }
                value
            }
            _ => {
                // Wide and shared: a list of `width` copies of one string.
                let width = usize::from(self.byte()) * 16;
                let item = Value::string("x".repeat(usize::from(self.byte())));
                Value::list(std::iter::repeat_n(item, width).collect::<Vec<_>>())
            }
        }
    }
}

/// Upper bound on host round trips per run (pauses and tool calls), so a harness bug can
/// never loop forever; the budgets make real runs far shorter.
const MAX_EVENTS: usize = 100_000;

/// Runs `program` under `limits`, answering tools from `host`.
#[must_use]
pub fn run(program: &Arc<Program>, limits: Limits, host: &[u8]) -> Run {
    let mut machine = Machine::new(Arc::clone(program), limits);
    let mut script = HostScript::new(host);
    let mut calls = Vec::new();
    let mut step = machine.step();
    for _ in 0..MAX_EVENTS {
        step = match step {
            Step::Pause => machine.step(),
            Step::Tool(request) => {
                calls.push(format!(
                    "{} {}",
                    request.tool,
                    machine.render(&request.args)
                ));
                let answer = script.answer(&mut machine);
                machine.resume_tool(answer)
            }
            Step::Batch(requests) => {
                let mut answers = Vec::with_capacity(requests.len());
                for request in &requests {
                    calls.push(format!(
                        "{} {}",
                        request.tool,
                        machine.render(&request.args)
                    ));
                    answers.push(script.answer(&mut machine));
                }
                machine.resume_batch(answers)
            }
            Step::Done(value) => {
                let text = print::to_string(&value, Style::Prin1, machine.symbols());
                return finish(&machine, Outcome::Value(text), calls);
            }
            Step::Error(error) => {
                let outcome = Outcome::Error(error.kind(), error.message().to_owned());
                return finish(&machine, outcome, calls);
            }
        };
    }
    panic!("run did not finish within {MAX_EVENTS} host events: budgets are not hard");
}

fn finish(machine: &Machine, outcome: Outcome, calls: Vec<String>) -> Run {
    let run = Run {
        outcome,
        stats: machine.stats(),
        calls,
    };
    check_run(&run, machine.limits());
    run
}

static MAX_OVERSHOOT: AtomicU64 = AtomicU64::new(0);

/// The oracles every run must satisfy.
///
/// # Panics
/// When an oracle fails (that is the finding).
pub fn check_run(run: &Run, limits: &Limits) {
    if let Outcome::Error(kind, message) = &run.outcome {
        assert_ne!(*kind, ErrorKind::Closed, "a fresh run reported closed");
        check_message(message);
    }
    let overshoot = run.stats.fuel_used.saturating_sub(limits.steps);
    assert!(
        run.stats.fuel_used <= limits.steps.saturating_add(limits.value_bytes),
        "fuel {} exceeds steps {} + value_bytes {}",
        run.stats.fuel_used,
        limits.steps,
        limits.value_bytes
    );
    if overshoot > MAX_OVERSHOOT.fetch_max(overshoot, Ordering::Relaxed) {
        eprintln!("ptc-fuzz: new largest fuel overshoot {overshoot}");
    }
    assert!(
        run.stats.tool_calls <= limits.tool_calls,
        "tool calls {} exceed the budget {}",
        run.stats.tool_calls,
        limits.tool_calls
    );
    assert!(
        run.stats.retained_bytes
            <= limits
                .retained_bytes
                .saturating_add(limits.value_bytes.saturating_mul(2)),
        "retained {} far beyond the budget {}",
        run.stats.retained_bytes,
        limits.retained_bytes
    );
}

/// No host path, address or panic text in a guest-visible message, unless the fuzz input
/// itself contains that text (scripts and tool answers are echoed in messages).
///
/// # Panics
/// When the message leaks.
pub fn check_message_of(message: &str, input: &[u8]) {
    let input = String::from_utf8_lossy(input);
    // The reader drops symbol escapes: `RUST\_BACKTRACE` is echoed as `RUST_BACKTRACE`.
    let unescaped: String = input.chars().filter(|&c| c != '\\').collect();
    for leak in [
        "panicked at",
        "/home/",
        "/work/",
        "/rustc/",
        ".cargo/registry",
        "RUST_BACKTRACE",
    ] {
        if !input.contains(leak) && !unescaped.contains(leak) {
            assert!(!message.contains(leak), "message leaks {leak:?}: {message}");
        }
    }
}

thread_local! {
    static INPUT: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Records the current fuzz input, so [`check_message`] can tell echoes from leaks.
pub fn set_input(data: &[u8]) {
    INPUT.with(|input| {
        let mut input = input.borrow_mut();
        input.clear();
        input.extend_from_slice(data);
    });
}

/// [`check_message_of`] against the input recorded by [`set_input`].
///
/// # Panics
/// When the message leaks.
pub fn check_message(message: &str) {
    INPUT.with(|input| check_message_of(message, &input.borrow()));
}

/// Runs twice and asserts the runs are identical.
///
/// # Panics
/// When the second run differs from the first.
#[must_use]
pub fn run_twice(program: &Arc<Program>, limits: Limits, host: &[u8]) -> Run {
    let first = run(program, limits, host);
    let second = run(program, limits, host);
    assert_eq!(first, second, "a re-run differs");
    first
}

/// Splits fuzz bytes at the first `0xff` (not valid UTF-8, so never inside script text
/// that was typed): the script before, the host bytes after.
#[must_use]
pub fn split_script(data: &[u8]) -> (String, &[u8]) {
    match data.iter().position(|b| *b == 0xff) {
        Some(at) => {
            let (script, rest) = data.split_at(at);
            (
                String::from_utf8_lossy(script).into_owned(),
                rest.get(1..).unwrap_or(&[]),
            )
        }
        None => (String::from_utf8_lossy(data).into_owned(), &[]),
    }
}

/// Builds guest values for the primitive targets from fuzz bytes.
#[derive(Debug)]
pub struct ValueSource<'a> {
    script: HostScript<'a>,
}

impl<'a> ValueSource<'a> {
    /// Values drawn from `bytes`.
    #[must_use]
    pub fn new(bytes: &'a [u8]) -> Self {
        ValueSource {
            script: HostScript::new(bytes),
        }
    }

    /// Whether bytes remain.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.script.bytes.is_empty()
    }

    /// One byte (0 when exhausted).
    pub fn byte(&mut self) -> u8 {
        self.script.byte()
    }

    /// A length-prefixed text (lossy UTF-8).
    pub fn text(&mut self) -> String {
        String::from_utf8_lossy(self.script.chunk()).into_owned()
    }

    fn i64(&mut self) -> i64 {
        let mut raw = [0u8; 8];
        for slot in &mut raw {
            *slot = self.byte();
        }
        i64::from_le_bytes(raw)
    }

    /// A number: edge integers, arbitrary i64, floats (NaN, ±inf, −0.0), big integers.
    pub fn number(&mut self) -> Value {
        match self.byte() % 12 {
            0 => Value::Int(0),
            1 => Value::Int(i64::MIN),
            2 => Value::Int(i64::MAX),
            3 => Value::Int(-1),
            4 => Value::Int(i64::from(self.byte()) - 128),
            5 => Value::Int(self.i64()),
            6 => Value::Float(f64::NAN),
            7 => Value::Float(f64::INFINITY),
            8 => Value::Float(-0.0),
            9 => Value::Float(f64::from_bits(self.i64().cast_unsigned())),
            10 => {
                let shift = u32::from(self.byte()) * 4;
                let big = num_bigint::BigInt::from(self.i64()) << shift;
                Value::integer(big)
            }
            _ => Value::Float(f64::from(self.byte()) / 7.0),
        }
    }

    /// Any value: numbers, strings, symbols, lists and vectors, nested a little.
    pub fn value(&mut self, symbols: &mut ptc_vm::Symbols, depth: u8) -> Value {
        match self.byte() % 9 {
            0 => Value::Nil,
            1 => Value::T,
            2 | 3 => self.number(),
            4 | 5 => Value::string(self.text()),
            6 => {
                let name = self.text();
                Value::Sym(symbols.intern(&name))
            }
            7 if depth < 4 => {
                let count = self.byte() % 6;
                let items: Vec<Value> =
                    (0..count).map(|_| self.value(symbols, depth + 1)).collect();
                Value::list(items)
            }
            8 if depth < 4 => {
                let count = self.byte() % 6;
                let items: Vec<Value> =
                    (0..count).map(|_| self.value(symbols, depth + 1)).collect();
                Value::vector(items)
            }
            _ => Value::Int(i64::from(self.byte())),
        }
    }
}

/// Calls the primitive `name` with `args` under `limits`, asserting the primitive contract:
/// no panic, a typed error, and work bounded by the value budget.
///
/// # Panics
/// When `name` is not a primitive, or an oracle fails.
pub fn call_primitive(
    name: &str,
    args: &[Value],
    limits: &Limits,
    symbols: &mut ptc_vm::Symbols,
) -> Result<Value, ptc_vm::Error> {
    let primitive = ptc_vm::prims::PRIMITIVES
        .iter()
        .find(|p| p.name == name)
        .unwrap_or_else(|| panic!("no primitive {name}"));
    if !primitive.accepts(args.len()) {
        return Err(ptc_vm::Error::script("arity"));
    }
    let mut ctx = ptc_vm::prims::PrimCtx::new(limits, symbols);
    let result = (primitive.run)(&mut ctx, args);
    if let Err(error) = &result {
        assert_ne!(error.kind(), ErrorKind::Closed);
        check_message(error.message());
    }
    result
}
