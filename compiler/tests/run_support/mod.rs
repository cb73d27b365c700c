//! Shared helpers for tests that compile and run scripts (included with `mod`).
#![allow(dead_code)] // Each test binary uses its own subset of these helpers.

use ptc_compiler::{Roster, compile};
use ptc_vm::{Limits, Machine, Step, Value};

/// The outcome of running a script: the printed value, or the error kind and message.
#[derive(Debug, PartialEq)]
pub enum Outcome {
    Value(String),
    Error(String, String),
}

/// Compiles and runs `source`; every tool call returns `<TOOL args>` printed.
pub fn run_with(source: &str, roster: &Roster, limits: Limits) -> (Outcome, Vec<String>) {
    let compiled = match compile(source, roster, &limits) {
        Ok(compiled) => compiled,
        Err(diagnostics) => {
            let d = &diagnostics[0];
            return (
                Outcome::Error(d.kind.as_str().to_owned(), d.message.clone()),
                vec![],
            );
        }
    };
    let mut machine = Machine::new(compiled.program, limits);
    let mut calls = Vec::new();
    let mut step = machine.step();
    loop {
        step = match step {
            Step::Pause => machine.step(),
            Step::Tool(request) => {
                let text = format!("<{} {}>", request.tool, machine.render(&request.args));
                calls.push(text.clone());
                machine.resume_tool(Value::string(text))
            }
            Step::Batch(requests) => {
                let results = requests
                    .iter()
                    .map(|r| {
                        let text = format!("<{} {}>", r.tool, machine.render(&r.args));
                        calls.push(text.clone());
                        Value::string(text)
                    })
                    .collect();
                machine.resume_batch(results)
            }
            Step::Done(value) => {
                return (
                    Outcome::Value(ptc_vm::print::to_string(
                        &value,
                        ptc_vm::print::Style::Prin1,
                        machine.symbols(),
                    )),
                    calls,
                );
            }
            Step::Error(error) => {
                return (
                    Outcome::Error(error.kind().as_str().to_owned(), error.message().to_owned()),
                    calls,
                );
            }
        };
    }
}

/// Runs with the default limits and the tools `Read`, `Grep`, `Glob`.
pub fn run(source: &str) -> Outcome {
    let roster = Roster::new()
        .tool("Read")
        .tool("Grep")
        .tool("Glob")
        .standalone("Ask");
    run_with(source, &roster, Limits::default()).0
}

pub fn value(text: &str) -> Outcome {
    Outcome::Value(text.to_owned())
}

pub fn error(kind: &str, message: &str) -> Outcome {
    Outcome::Error(kind.to_owned(), message.to_owned())
}
