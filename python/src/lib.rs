//! `ptc._ptc`: the native half of the `ptc` Python package.
//!
//! It owns the boundary between Python and the envelope: compiling a script for a roster
//! ([`PyProgram`]), stepping one run ([`PyRun`]), and the static services (`describe`,
//! `check`). Data crosses the boundary as JSON text, decoded and encoded by the Python half
//! (`ptc/_core.py`), so the mapping of values is exactly the JSON one of `ptc run --format
//! json` and a handler's non-JSON data is caught in Python with a clear message.
//!
//! Invariants:
//! - The GIL is released whenever the envelope or the machine runs (`Python::detach`), so
//!   other Python threads and handlers run meanwhile.
//! - Nothing here panics on host input: malformed JSON, unknown ids, answers after
//!   settlement are Python exceptions (`ValueError`, `ptc._ptc.SessionError`).

#![forbid(unsafe_code)]

mod engine;

use engine::{Answer, CompileFailure, Misuse, Step};
use ptc_runtime::{ToolResult, listing};
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyValueError};
use pyo3::prelude::*;
use serde_json::{Value as Json, json};
use std::sync::Arc;

create_exception!(
    _ptc,
    SessionError,
    PyException,
    "A host misused a run (unknown or repeated call id, answer after settlement)."
);
create_exception!(
    _ptc,
    CompileFailed,
    PyException,
    "A script did not compile: args are (diagnostics_json, outcome_json)."
);

fn value_error(message: impl Into<String>) -> PyErr {
    PyValueError::new_err(message.into())
}

fn diagnostics_json(diagnostics: &[ptc_compiler::Diagnostic]) -> String {
    Json::Array(diagnostics.iter().map(diagnostic_json).collect()).to_string()
}

fn diagnostic_json(d: &ptc_compiler::Diagnostic) -> Json {
    let mut value = serde_json::to_value(d).unwrap_or_else(|_| json!({}));
    if let Json::Object(map) = &mut value {
        map.insert("kind".to_owned(), json!(d.kind.as_str()));
    }
    value
}

/// A compiled script with its roster: reusable, shareable across threads.
#[pyclass(frozen, module = "ptc._ptc", name = "Program")]
struct PyProgram {
    inner: Arc<engine::Program>,
}

#[pymethods]
impl PyProgram {
    /// Compiles `expression` for the tools (JSON list of contracts) under the limits (JSON
    /// object or None). Raises `CompileFailed(diagnostics_json, outcome_json)` for a script
    /// that does not compile, `ValueError` for a malformed roster or limits.
    #[new]
    #[pyo3(signature = (expression, tools, limits=None, id=None))]
    fn new(
        py: Python<'_>,
        expression: &str,
        tools: &str,
        limits: Option<&str>,
        id: Option<String>,
    ) -> PyResult<Self> {
        let contracts = engine::contracts_from_json(tools).map_err(value_error)?;
        let limits = engine::limits_from_json(limits).map_err(value_error)?;
        let compiled = py.detach(|| engine::Program::compile(expression, contracts, limits, id));
        match compiled {
            Ok(program) => Ok(PyProgram {
                inner: Arc::new(program),
            }),
            Err(CompileFailure::Host(message)) => Err(value_error(message)),
            Err(CompileFailure::Script(diagnostics, outcome)) => Err(CompileFailed::new_err((
                diagnostics_json(&diagnostics),
                outcome.to_json().to_string(),
            ))),
        }
    }

    /// The tool's name when the script is provably one direct call, else None.
    #[getter]
    fn direct(&self) -> Option<String> {
        self.inner.direct().map(str::to_owned)
    }

    /// Starts one run (envelope id `id`, a fresh one when None).
    #[pyo3(signature = (id=None))]
    fn start(&self, py: Python<'_>, id: Option<String>) -> PyRun {
        let session = py.detach(|| self.inner.start(id));
        PyRun { inner: session }
    }
}

/// One run of a program, stepped by the host.
#[pyclass(frozen, module = "ptc._ptc", name = "Run")]
struct PyRun {
    inner: engine::Session,
}

fn misuse(error: Misuse) -> PyErr {
    SessionError::new_err(error.0)
}

#[pymethods]
impl PyRun {
    /// Advances the run with the GIL released. Returns `("calls", json)` with the calls
    /// dispatched since the last step (a JSON list of {id, name, arguments}; empty while
    /// the run waits for answers or paused) or `("settled", outcome_json)`.
    #[pyo3(signature = (wait=true))]
    fn step(&self, py: Python<'_>, wait: bool) -> PyResult<(&'static str, String)> {
        match py.detach(|| self.inner.step(wait)).map_err(misuse)? {
            Step::Calls(calls) => {
                let calls: Vec<Json> = calls
                    .into_iter()
                    .map(|c| json!({"id": c.id, "name": c.tool, "arguments": c.arguments}))
                    .collect();
                Ok(("calls", Json::Array(calls).to_string()))
            }
            Step::Settled(outcome) => Ok(("settled", outcome.to_json().to_string())),
        }
    }

    /// Feeds results: a JSON object {id: result}, each result {"value": JSON} (structured),
    /// {"text": str}, or {"error": str}, each with optional "notes": [str].
    fn resume(&self, py: Python<'_>, answers: &str) -> PyResult<()> {
        let parsed: Json = serde_json::from_str(answers).map_err(|e| value_error(e.to_string()))?;
        let Json::Object(map) = parsed else {
            return Err(value_error("answers must be a JSON object"));
        };
        let mut batch = Vec::with_capacity(map.len());
        for (id, answer) in map {
            batch.push((id, Answer::Result(tool_result(answer)?)));
        }
        py.detach(|| self.inner.answer(batch)).map_err(misuse)
    }

    /// Denies call `id` at the permission decision point: the script aborts `denied`.
    fn deny(&self, py: Python<'_>, id: String, reason: String) -> PyResult<()> {
        py.detach(|| self.inner.answer(vec![(id, Answer::Denied(reason))]))
            .map_err(misuse)
    }

    /// Interrupts the run; it settles `interrupted` with its audit.
    fn cancel(&self, py: Python<'_>) {
        py.detach(|| self.inner.cancel());
    }
}

fn tool_result(answer: Json) -> PyResult<ToolResult> {
    let Json::Object(mut map) = answer else {
        return Err(value_error("each answer must be a JSON object"));
    };
    let notes: Vec<String> = match map.remove("notes") {
        Some(Json::Array(items)) => items
            .into_iter()
            .map(|n| match n {
                Json::String(s) => s,
                other => other.to_string(),
            })
            .collect(),
        _ => Vec::new(),
    };
    let mut result = if let Some(value) = map.remove("value") {
        ToolResult::json(value)
    } else if let Some(Json::String(text)) = map.remove("text") {
        ToolResult::text(text)
    } else if let Some(Json::String(message)) = map.remove("error") {
        ToolResult::error(message)
    } else {
        return Err(value_error(
            "an answer needs \"value\", \"text\" or \"error\"",
        ));
    };
    result.notes = notes;
    Ok(result)
}

/// The ToolCall description, its input schema and the listing for the roster, as JSON.
#[pyfunction]
fn describe(tools: &str) -> PyResult<String> {
    let contracts = engine::contracts_from_json(tools).map_err(value_error)?;
    let registry = engine::registry(contracts).map_err(value_error)?;
    Ok(json!({
        "name": listing::TOOL_NAME,
        "description": listing::DESCRIPTION,
        "input_schema": listing::input_schema(),
        "listing": listing::tool_listing(&registry),
    })
    .to_string())
}

/// The diagnostics of `expression` for the roster (a JSON list; empty when it compiles).
#[pyfunction]
#[pyo3(signature = (expression, tools, limits=None))]
fn check(py: Python<'_>, expression: &str, tools: &str, limits: Option<&str>) -> PyResult<String> {
    let contracts = engine::contracts_from_json(tools).map_err(value_error)?;
    let limits = engine::limits_from_json(limits).map_err(value_error)?;
    let registry = engine::registry(contracts).map_err(value_error)?;
    let diagnostics = py.detach(|| ptc_compiler::check(expression, &registry.roster(), &limits));
    Ok(diagnostics_json(&diagnostics))
}

/// The default budgets, as a JSON object keyed like `--limit`.
#[pyfunction]
fn default_limits() -> String {
    serde_json::to_string(&ptc_vm::Limits::default()).unwrap_or_else(|_| "{}".to_owned())
}

#[pymodule]
fn _ptc(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyProgram>()?;
    m.add_class::<PyRun>()?;
    m.add_function(wrap_pyfunction!(describe, m)?)?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(default_limits, m)?)?;
    m.add("SessionError", m.py().get_type::<SessionError>())?;
    m.add("CompileFailed", m.py().get_type::<CompileFailed>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
