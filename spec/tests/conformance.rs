//! Runs every case of the conformance corpus (`spec/conformance/*.toml`, format in
//! `FORMAT.md`) through `ptc_compiler::compile` and a `ptc_vm::Machine`, with stub tools.
//!
//! All cases run; the test fails once, at the end, listing every unexpected result (file,
//! line, name, expected, got) and every `xfail` case that now passes, so the integrator
//! sees the real status in one run. Cases marked `xfail` that still fail are counted, not
//! reported as failures.

use ptc_compiler::{Roster, compile_with_clock};
use ptc_runtime::{Registry, ToolContract, ToolRequestCtx, ToolResult};
use ptc_spec::{Behaviour, Case, conformance_dir, load_corpus};
use ptc_vm::print::{Style, to_string};
use ptc_vm::{Machine, Step, ToolRequest, Value};
use serde_json::Value as Json;

/// Safety net against a machine that never finishes (pauses are bounded by fuel, but a
/// broken implementation should fail the case, not hang the test).
const MAX_EVENTS: usize = 1_000_000;

/// What a case produced.
#[derive(Debug, PartialEq)]
enum Outcome {
    Value(String),
    Error { kind: String, message: String },
}

struct Run {
    outcome: Outcome,
    calls: Vec<String>,
    direct: Option<Option<String>>,
}

fn roster(case: &Case) -> Roster {
    let mut roster = Roster::new();
    for tool in &case.tools {
        roster = roster.tool(tool.name.clone());
        if let Ok(Some(schema)) = tool.schema_json() {
            roster = roster.with_args(ptc_runtime::core::contract::summarise(&schema));
        }
    }
    for name in &case.standalone {
        roster = roster.standalone(name.clone());
    }
    roster
}

/// The tools that declare a schema, registered with the runtime for argument validation.
fn schema_registry(case: &Case) -> Result<Registry, String> {
    let mut registry = Registry::new();
    for tool in &case.tools {
        if let Some(schema) = tool.schema_json()? {
            registry
                .register(
                    ToolContract::new(tool.name.clone(), "", schema),
                    |_r: ToolRequestCtx| async { ToolResult::text("") },
                )
                .map_err(|e| e.to_string())?;
        }
    }
    Ok(registry)
}

/// The runtime's schema-less argument conversion: `:key value` pairs to a JSON object.
/// Errors carry the original driver's messages.
fn convert_args(
    machine: &Machine,
    registry: &Registry,
    request: &ToolRequest,
) -> Result<Json, String> {
    let name = &*request.tool;
    if let Some(tool) = registry.get(name) {
        return ptc_runtime::core::args::prepare(
            tool,
            &request.args,
            machine.symbols(),
            machine.limits(),
        )
        .map_err(|e| e.0);
    }
    let items = request
        .args
        .list_to_vec()
        .ok_or_else(|| format!("{name}: arguments must be :keyword value pairs"))?;
    let symbols = machine.symbols();
    let mut object = serde_json::Map::new();
    let mut items = items.into_iter();
    while let Some(key) = items.next() {
        let key_name = match &key {
            Value::Sym(symbol) if symbol.is_keyword() => symbols.name(*symbol).to_owned(),
            _ => return Err(format!("{name}: arguments must be :keyword value pairs")),
        };
        let Some(value) = items.next() else {
            return Err(format!("{name}: argument {key_name} has no value"));
        };
        let json = ptc_vm::json::to_json(&value, symbols, machine.limits())
            .map_err(|e| e.message().to_owned())?;
        let bare = key_name.strip_prefix(':').unwrap_or(&key_name).to_owned();
        object.entry(bare).or_insert(json);
    }
    Ok(Json::Object(object))
}

/// What the stub for `request` hands back, or `Err(reason)` for a denial.
fn answer(
    machine: &mut Machine,
    behaviours: &[(String, Behaviour)],
    registry: &Registry,
    request: &ToolRequest,
) -> Result<Result<Value, String>, ptc_vm::Error> {
    let name = &*request.tool;
    let behaviour = behaviours
        .iter()
        .find(|(n, _)| n == name)
        .map_or(Behaviour::Name, |(_, b)| b.clone());
    if let Behaviour::Deny(reason) = &behaviour {
        return Ok(Err(reason.clone()));
    }
    let args = match convert_args(machine, registry, request) {
        Ok(args) => args,
        Err(message) => return Ok(Ok(machine.error_value(&format!("Error: {message}")))),
    };
    let limits = *machine.limits();
    let value = match behaviour {
        Behaviour::Name => Value::string(name),
        Behaviour::Text(text) => Value::string(text.as_str()),
        Behaviour::Error(message) => machine.error_value(&message),
        Behaviour::Arg(key) => match args.get(&key) {
            Some(json) => ptc_vm::json::from_json(json, machine.symbols_mut(), &limits)?,
            None => Value::Nil,
        },
        Behaviour::Args => ptc_vm::json::from_json(&args, machine.symbols_mut(), &limits)?,
        Behaviour::Json(text) => {
            let json: Json = serde_json::from_str(&text).map_err(|e| {
                ptc_vm::Error::script(format!("corpus: invalid JSON behaviour: {e}"))
            })?;
            ptc_vm::json::from_json(&json, machine.symbols_mut(), &limits)?
        }
        Behaviour::Deny(_) => Value::Nil,
    };
    Ok(Ok(value))
}

fn failed(error: &ptc_vm::Error) -> Outcome {
    Outcome::Error {
        kind: error.kind().as_str().to_owned(),
        message: error.message().to_owned(),
    }
}

fn denied(tool: &str, reason: &str, batch: bool) -> Outcome {
    let what = if batch { "batch" } else { "script" };
    Outcome::Error {
        kind: "denied".to_owned(),
        message: format!("{what} aborted because nested {tool} was denied: {reason}"),
    }
}

fn run(case: &Case) -> Result<Run, String> {
    let limits = case.limits()?;
    let behaviours = case.behaviours()?;
    let registry = schema_registry(case)?;
    // The harness is the host: one clock, started here, times compilation and the run.
    let started = std::time::Instant::now();
    let clock: std::sync::Arc<dyn ptc_vm::Clock> = std::sync::Arc::new(move || started.elapsed());
    let seconds = ptc_vm::clock::budget(limits.seconds);
    let compiled = match compile_with_clock(
        &case.script,
        &roster(case),
        &limits,
        &[],
        Some(std::sync::Arc::clone(&clock)),
    ) {
        Ok(compiled) => compiled,
        Err(diagnostics) => {
            // Prefer the diagnostic matching the expectation, else report the first.
            let wanted = case.error.as_ref();
            let chosen = diagnostics
                .iter()
                .find(|d| {
                    wanted.is_some_and(|w| {
                        d.kind.as_str() == w.kind && d.message.contains(&w.message)
                    })
                })
                .or(diagnostics.first());
            let outcome = chosen.map_or_else(
                || Outcome::Error {
                    kind: "none".to_owned(),
                    message: "compile failed without diagnostics".to_owned(),
                },
                |d| Outcome::Error {
                    kind: d.kind.as_str().to_owned(),
                    message: d.message.clone(),
                },
            );
            return Ok(Run {
                outcome,
                calls: Vec::new(),
                direct: None,
            });
        }
    };
    let direct = Some(compiled.direct.clone());
    let mut machine = Machine::new(compiled.program, limits);
    machine.set_clock(std::sync::Arc::clone(&clock));
    let mut calls = Vec::new();
    let mut step = machine.step();
    for _ in 0..MAX_EVENTS {
        step = match step {
            // The whole-run budget is the driver's, checked between slices.
            Step::Pause if seconds.is_some_and(|at| clock.elapsed() >= at) => {
                return Ok(Run {
                    outcome: Outcome::Error {
                        kind: "time".to_owned(),
                        message: format!(
                            "Script exceeded its time budget of {} seconds after {} steps",
                            limits.seconds.unwrap_or_default(),
                            machine.stats().fuel_used
                        ),
                    },
                    calls,
                    direct,
                });
            }
            Step::Pause => machine.step(),
            Step::Done(value) => {
                let printed = to_string(&value, Style::Prin1, machine.symbols());
                return Ok(Run {
                    outcome: Outcome::Value(printed),
                    calls,
                    direct,
                });
            }
            Step::Error(error) => {
                return Ok(Run {
                    outcome: failed(&error),
                    calls,
                    direct,
                });
            }
            Step::Tool(request) => {
                calls.push(request.tool.to_string());
                match answer(&mut machine, &behaviours, &registry, &request) {
                    Ok(Ok(value)) => machine.resume_tool(value),
                    Ok(Err(reason)) => {
                        return Ok(Run {
                            outcome: denied(&request.tool, &reason, false),
                            calls,
                            direct,
                        });
                    }
                    Err(error) => {
                        return Ok(Run {
                            outcome: failed(&error),
                            calls,
                            direct,
                        });
                    }
                }
            }
            Step::Batch(requests) => {
                let mut results = Vec::with_capacity(requests.len());
                let mut denial = None;
                for request in &requests {
                    calls.push(request.tool.to_string());
                    match answer(&mut machine, &behaviours, &registry, request) {
                        Ok(Ok(value)) => results.push(value),
                        Ok(Err(reason)) => {
                            denial.get_or_insert((request.tool.to_string(), reason));
                        }
                        Err(error) => {
                            return Ok(Run {
                                outcome: failed(&error),
                                calls,
                                direct,
                            });
                        }
                    }
                }
                if let Some((tool, reason)) = denial {
                    return Ok(Run {
                        outcome: denied(&tool, &reason, true),
                        calls,
                        direct,
                    });
                }
                machine.resume_batch(results)
            }
        };
    }
    Err(format!("no result after {MAX_EVENTS} machine events"))
}

/// `None` when `got` meets the case's expectations, else what differs.
fn mismatch(case: &Case, got: &Run) -> Option<String> {
    let mut problems = Vec::new();
    match (&case.value, &case.error, &got.outcome) {
        (Some(want), _, Outcome::Value(value)) if want == value => {}
        (_, Some(want), Outcome::Error { kind, message })
            if &want.kind == kind && message.contains(&want.message) => {}
        _ => {
            let expected = match (&case.value, &case.error) {
                (Some(value), _) => format!("value {value}"),
                (_, Some(e)) => format!("error {} containing {:?}", e.kind, e.message),
                _ => "nothing".to_owned(),
            };
            let actual = match &got.outcome {
                Outcome::Value(value) => format!("value {value}"),
                Outcome::Error { kind, message } => format!("error {kind}: {message:?}"),
            };
            problems.push(format!("expected {expected}, got {actual}"));
        }
    }
    if let Some(want) = &case.calls
        && want != &got.calls
    {
        problems.push(format!("expected calls {want:?}, got {:?}", got.calls));
    }
    if let (Some(want), Some(direct)) = (&case.direct, &got.direct) {
        let want_direct = (!want.is_empty()).then(|| want.clone());
        if &want_direct != direct {
            problems.push(format!("expected direct {want_direct:?}, got {direct:?}"));
        }
    }
    (!problems.is_empty()).then(|| problems.join("; "))
}

#[test]
fn conformance_corpus() {
    let cases = load_corpus(&conformance_dir()).unwrap_or_else(|errors| {
        panic!(
            "corpus does not load:\n{}",
            errors
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("\n")
        )
    });
    let mut unexpected = Vec::new();
    let mut unexpected_passes = Vec::new();
    let mut expected_failures = 0usize;
    for case in &cases {
        let problem = match std::panic::catch_unwind(|| run(case)) {
            Ok(Ok(got)) => mismatch(case, &got),
            Ok(Err(reason)) => Some(reason),
            Err(_) => Some("the implementation panicked".to_owned()),
        };
        match (problem, &case.xfail) {
            (None, None) => {}
            (None, Some(reason)) => unexpected_passes.push(format!(
                "{} {}: passes but is marked xfail ({reason})",
                case.location(),
                case.name
            )),
            (Some(_), Some(_)) => expected_failures += 1,
            (Some(problem), None) => unexpected.push(format!(
                "{} {}\n    script: {}\n    {problem}",
                case.location(),
                case.name,
                case.script.trim()
            )),
        }
    }
    let passed = cases.len() - unexpected.len() - expected_failures - unexpected_passes.len();
    let summary = format!(
        "{} cases: {passed} passed, {} failed unexpectedly, {expected_failures} expected \
         failures (xfail), {} unexpected passes",
        cases.len(),
        unexpected.len(),
        unexpected_passes.len()
    );
    println!("{summary}");
    assert!(
        unexpected.is_empty() && unexpected_passes.is_empty(),
        "{summary}\n\n{}\n{}",
        unexpected.join("\n"),
        unexpected_passes.join("\n")
    );
}
