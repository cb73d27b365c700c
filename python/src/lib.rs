//! `ptc._ptc`: the native half of the `ptc` Python package.
//!
//! It owns the boundary between Python and the envelope: a roster built once
//! ([`PyEngine`]), compiling a script for a roster ([`PyProgram`]), stepping one run
//! ([`PyRun`]), and the static services (`describe`, `check`). Data crosses the boundary as
//! JSON text, decoded and encoded by the Python half (`ptc/_run.py`, `ptc/_tools.py`), so the
//! mapping of values is exactly the JSON one of `ptc run --format json` and a handler's
//! non-JSON data is caught in Python with a clear message. The one exception is
//! `Run.step_inline`, which calls a lone call's handler itself: arguments go to Python as
//! data, and a plain result comes back as data when it is exactly what the JSON text would
//! carry (anything else takes the text path, read as `answer` reads it).
//!
//! Invariants:
//! - The GIL is released whenever the envelope or the machine runs (`Python::detach`), so
//!   other Python threads and handlers run meanwhile.
//! - Nothing here panics on host input: malformed JSON, unknown ids, answers after
//!   settlement are Python exceptions (`ValueError`, `ptc._ptc.SessionError`).

#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod session;

use ptc_core::{ToolResult, listing};
use pyo3::IntoPyObjectExt;
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde_json::{Value as Json, json};
use session::{CompileFailure, HostEvent, Misuse};
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
    "A script did not compile: args are (diagnostics, outcome): a list of diagnostic dicts and the outcome dict."
);

fn value_error(message: impl Into<String>) -> PyErr {
    PyValueError::new_err(message.into())
}

/// `CompileFailed(diagnostics, outcome)`: a list of diagnostic dicts and the outcome dict.
fn compile_failed(
    py: Python<'_>,
    diagnostics: &[ptc_compiler::Diagnostic],
    outcome: &ptc_core::Outcome,
) -> PyErr {
    let payload = json_to_py(py, &diagnostics_value(diagnostics)).and_then(|diagnostics| {
        Ok((
            diagnostics.unbind(),
            json_to_py(py, &outcome.to_json())?.unbind(),
        ))
    });
    match payload {
        Ok(args) => CompileFailed::new_err(args),
        Err(error) => error,
    }
}

fn diagnostics_value(diagnostics: &[ptc_compiler::Diagnostic]) -> Json {
    Json::Array(diagnostics.iter().map(diagnostic_json).collect())
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
    inner: Arc<session::Program>,
}

#[pymethods]
impl PyProgram {
    /// Compiles `expression` for the tools (JSON list of contracts) under the limits (JSON
    /// object or None). Raises `CompileFailed(diagnostics, outcome)` (a list of dicts, a dict) for a script
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
        let contracts = ptc_core::host_json::contracts_from_json(tools).map_err(value_error)?;
        let limits = ptc_core::host_json::limits_from_json(limits).map_err(value_error)?;
        let compiled = py.detach(|| session::Program::compile(expression, contracts, limits, id));
        match compiled {
            Ok(program) => Ok(PyProgram {
                inner: Arc::new(program),
            }),
            Err(CompileFailure::Host(message)) => Err(value_error(message)),
            Err(CompileFailure::Script(diagnostics, outcome)) => {
                Err(compile_failed(py, &diagnostics, &outcome))
            }
        }
    }

    /// The tool's name when the script is provably one direct call, else None.
    #[getter]
    fn direct(&self) -> Option<String> {
        self.inner.direct().map(str::to_owned)
    }

    /// Starts one run (envelope id `id`, a fresh one when None); with `ask_permission`
    /// every call is first offered as a `permission` event.
    #[pyo3(signature = (id=None, ask_permission=true))]
    fn start(&self, id: Option<String>, ask_permission: bool) -> PyRun {
        PyRun {
            inner: self.inner.start(id, ask_permission),
        }
    }
}

/// A roster and budgets built once (the registry with its schema validators, the
/// compile-time roster): compiles any number of programs for them.
#[pyclass(frozen, module = "ptc._ptc", name = "Engine")]
struct PyEngine {
    inner: Arc<session::Engine>,
}

#[pymethods]
impl PyEngine {
    /// Builds the engine of the tools (JSON list of contracts) under the limits (JSON object
    /// or None). Raises `ValueError` for a malformed roster or limits.
    #[new]
    #[pyo3(signature = (tools, limits=None))]
    fn new(tools: &str, limits: Option<&str>) -> PyResult<Self> {
        let contracts = ptc_core::host_json::contracts_from_json(tools).map_err(value_error)?;
        let limits = ptc_core::host_json::limits_from_json(limits).map_err(value_error)?;
        let registry = session::registry(contracts).map_err(value_error)?;
        Ok(PyEngine {
            inner: Arc::new(session::Engine::new(Arc::new(registry), limits)),
        })
    }

    /// Compiles `expression` (as `Program(...)`, without rebuilding the registry). Raises
    /// `CompileFailed(diagnostics, outcome)` for a script that does not compile.
    #[pyo3(signature = (expression, id=None))]
    fn compile(&self, py: Python<'_>, expression: &str, id: Option<String>) -> PyResult<PyProgram> {
        let compiled = py.detach(|| session::Program::compile_for(expression, &self.inner, id));
        match compiled {
            Ok(program) => Ok(PyProgram {
                inner: Arc::new(program),
            }),
            Err(CompileFailure::Host(message)) => Err(value_error(message)),
            Err(CompileFailure::Script(diagnostics, outcome)) => {
                Err(compile_failed(py, &diagnostics, &outcome))
            }
        }
    }

    /// As the module's `describe`, for this engine's roster.
    fn describe<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        describe_registry(py, self.inner.registry())
    }

    /// As the module's `check`, for this engine's roster and budgets.
    fn check<'py>(&self, py: Python<'py>, expression: &str) -> PyResult<Bound<'py, PyAny>> {
        let diagnostics =
            py.detach(|| ptc_compiler::check(expression, self.inner.roster(), self.inner.limits()));
        json_to_py(py, &diagnostics_value(&diagnostics))
    }
}

/// One run of a program, stepped by the host.
#[pyclass(frozen, module = "ptc._ptc", name = "Run")]
struct PyRun {
    inner: session::Session,
}

fn misuse(error: Misuse) -> PyErr {
    SessionError::new_err(error.0)
}

/// The calls as a list of dicts {id, name, arguments, batch, position}, built directly.
fn calls_py<'py>(py: Python<'py>, calls: &[ptc_core::CallRequest]) -> PyResult<Bound<'py, PyAny>> {
    let list = PyList::empty(py);
    for call in calls {
        let dict = PyDict::new(py);
        dict.set_item("id", &*call.id)?;
        dict.set_item("name", &*call.tool)?;
        dict.set_item("arguments", json_to_py(py, &call.arguments)?)?;
        dict.set_item("batch", call.batch)?;
        dict.set_item("position", call.position)?;
        list.append(dict)?;
    }
    Ok(list.into_any())
}

#[pymethods]
impl PyRun {
    /// Polls the envelope with the GIL released, until the host must act. Returns
    /// `(kind, payload)`, the payload Python data built directly (no JSON text):
    /// `permission` or `dispatch` with a list of dicts {id, name, arguments, batch,
    /// position}; `cancel` with a list of ids; `pause` (a fuel slice ended) with None;
    /// `waiting` with the seconds until the next deadline or None; `settled` with the
    /// outcome as a dict (the object `ptc run --format json` prints).
    fn step<'py>(&self, py: Python<'py>) -> PyResult<(&'static str, Bound<'py, PyAny>)> {
        let event = py.detach(|| self.inner.step());
        event_tuple(py, event)
    }

    /// As `step`, but a lone dispatched call is first offered to `handler(name, arguments)`
    /// (arguments as Python data), called with the GIL held on this thread. It returns None
    /// to leave the call to the host (returned as a `dispatch` event), `(True, text)` with
    /// the call's answer as `answer` reads one (JSON text of {"value": ...}, {"text": ...},
    /// {"error": ...} or {"failure": ...}), or `(False, result)` with the handler's plain
    /// return value: a `str` is a text result; None, bool, int, float, str, list, tuple and
    /// dict with str keys are converted here; anything else (or a non-finite float, a lone
    /// surrogate, an int past 64 bits, nesting past 128) goes through `encode(name, result)`,
    /// which returns the answer text. The answer is fed at once and the run steps on. An
    /// answer the envelope refuses because the call timed out meanwhile is dropped; one it
    /// cannot read becomes the call's failure. An exception from `handler` or `encode`
    /// propagates (the host cancels).
    fn step_inline<'py>(
        &self,
        py: Python<'py>,
        handler: &Bound<'py, PyAny>,
        encode: &Bound<'py, PyAny>,
    ) -> PyResult<(&'static str, Bound<'py, PyAny>)> {
        loop {
            let event = py.detach(|| self.inner.step());
            let HostEvent::Dispatch(calls) = event else {
                return event_tuple(py, event);
            };
            let [call] = calls.as_slice() else {
                return Ok(("dispatch", calls_py(py, &calls)?));
            };
            let arguments = json_to_py(py, &call.arguments)?;
            let answer = handler.call1((&*call.tool, arguments))?;
            if answer.is_none() {
                return Ok(("dispatch", calls_py(py, &calls)?));
            }
            let (encoded, result): (bool, Bound<'_, PyAny>) = answer.extract()?;
            let id = call.id.to_string();
            if !encoded {
                let direct = match result.cast::<PyString>() {
                    Ok(text) => text.to_cow().ok().map(|t| ToolResult::text(t.into_owned())),
                    Err(_) => py_to_json(&result, 0).map(ToolResult::json),
                };
                if let Some(direct) = direct {
                    // Refused only when the call is no longer running (timed out): dropped.
                    let _ = py.detach(|| self.inner.complete(&id, direct));
                    continue;
                }
            }
            let text: String = if encoded {
                result.extract()?
            } else {
                encode.call1((&*call.tool, result))?.extract()?
            };
            // Read as `answer` reads it (the same text, so the same limits and messages).
            let wrapped = format!("{{{}:{text}}}", Json::String(id.clone()));
            let unreadable = match serde_json::from_str::<Json>(&wrapped) {
                // A malformed answer is unreadable; one refused as late is dropped.
                Ok(Json::Object(mut map)) => match map.remove(&id) {
                    Some(parsed) => self.feed(py, &id, parsed).err().map(|e| e.to_string()),
                    None => Some("no answer".to_owned()),
                },
                Ok(_) => Some("no answer".to_owned()),
                Err(e) => Some(e.to_string()),
            };
            if let Some(why) = unreadable {
                let message = format!("returned data ptc cannot read: {why}");
                let _ = py.detach(|| self.inner.fail(&id, message));
            }
        }
    }

    /// Allows call `id` at the permission point.
    fn allow(&self, id: &str) -> PyResult<()> {
        self.inner.allow(id).map_err(misuse)
    }

    /// Denies call `id` at the permission point: the script aborts `denied`.
    fn deny(&self, id: &str, reason: String) -> PyResult<()> {
        self.inner.deny(id, reason).map_err(misuse)
    }

    /// Feeds answers to dispatched calls: a JSON object {id: answer}, each answer
    /// {"value": JSON} (structured), {"text": str}, {"error": str} (the tool failed), each
    /// with optional "notes", or {"failure": str} (the host could not run it). Every answer
    /// is applied; the ids refused are named in one `SessionError`.
    fn answer(&self, py: Python<'_>, answers: &str) -> PyResult<()> {
        let parsed: Json = serde_json::from_str(answers).map_err(|e| value_error(e.to_string()))?;
        let Json::Object(map) = parsed else {
            return Err(value_error("answers must be a JSON object"));
        };
        let mut refused = Vec::new();
        for (id, answer) in map {
            if let Err(Misuse(message)) = self.feed(py, &id, answer)? {
                refused.push(message);
            }
        }
        if refused.is_empty() {
            Ok(())
        } else {
            Err(SessionError::new_err(refused.join("; ")))
        }
    }

    /// Interrupts the run; it settles `interrupted` with its audit.
    fn cancel(&self) {
        self.inner.cancel();
    }
}

impl PyRun {
    /// Feeds one answer (as `answer` reads it): `Err` for a malformed answer, `Ok(Err)`
    /// for one the envelope refused.
    fn feed(&self, py: Python<'_>, id: &str, answer: Json) -> PyResult<Result<(), Misuse>> {
        Ok(match answer {
            Json::Object(mut fields) if fields.contains_key("failure") => {
                let message = match fields.remove("failure") {
                    Some(Json::String(message)) => message,
                    other => other.map(|v| v.to_string()).unwrap_or_default(),
                };
                py.detach(|| self.inner.fail(id, message))
            }
            other => {
                let result = tool_result(other)?;
                py.detach(|| self.inner.complete(id, result))
            }
        })
    }
}

/// An event as `(kind, payload)` with the payload as Python data (see `Run.step`).
fn event_tuple(py: Python<'_>, event: HostEvent) -> PyResult<(&'static str, Bound<'_, PyAny>)> {
    Ok(match event {
        HostEvent::Permission(calls) => ("permission", calls_py(py, &calls)?),
        HostEvent::Dispatch(calls) => ("dispatch", calls_py(py, &calls)?),
        HostEvent::Cancel(ids) => ("cancel", PyList::new(py, ids)?.into_any()),
        HostEvent::Pause => ("pause", py.None().into_bound(py)),
        HostEvent::Waiting(wait) => (
            "waiting",
            wait.map(|d| d.as_secs_f64()).into_bound_py_any(py)?,
        ),
        HostEvent::Settled(outcome) => ("settled", json_to_py(py, &outcome.to_json())?),
    })
}

/// How many containers deep `py_to_json` converts: what `serde_json` (limit 128) reads of
/// a value inside the `{id: {"value": ...}}` text that `answer` gets, so that data past it
/// takes the text path and fails there the same way.
const MAX_DEPTH: usize = 125;

/// Plain Python data as JSON, when it is exactly what `json.dumps` would write and
/// `serde_json` read back the same; None for anything else (left to the Python encoder).
fn py_to_json(value: &Bound<'_, PyAny>, depth: usize) -> Option<Json> {
    if value.is_none() {
        return Some(Json::Null);
    }
    if let Ok(flag) = value.cast::<PyBool>() {
        return Some(Json::Bool(flag.is_true()));
    }
    if let Ok(int) = value.cast::<PyInt>() {
        if let Ok(n) = int.extract::<i64>() {
            return Some(Json::from(n));
        }
        return int.extract::<u64>().ok().map(Json::from);
    }
    if let Ok(float) = value.cast::<PyFloat>() {
        return serde_json::Number::from_f64(float.value()).map(Json::Number);
    }
    if let Ok(text) = value.cast::<PyString>() {
        return text.to_cow().ok().map(|t| Json::String(t.into_owned()));
    }
    if depth >= MAX_DEPTH {
        return None;
    }
    if let Ok(list) = value.cast::<PyList>() {
        let mut items = Vec::with_capacity(list.len());
        for item in list.iter() {
            items.push(py_to_json(&item, depth + 1)?);
        }
        return Some(Json::Array(items));
    }
    if let Ok(tuple) = value.cast::<PyTuple>() {
        let mut items = Vec::with_capacity(tuple.len());
        for item in tuple.iter() {
            items.push(py_to_json(&item, depth + 1)?);
        }
        return Some(Json::Array(items));
    }
    if let Ok(dict) = value.cast::<PyDict>() {
        let mut map = serde_json::Map::with_capacity(dict.len());
        for (key, item) in dict.iter() {
            let key = key.cast::<PyString>().ok()?.to_cow().ok()?.into_owned();
            map.insert(key, py_to_json(&item, depth + 1)?);
        }
        return Some(Json::Object(map));
    }
    None
}

/// JSON data as Python data (the mapping of `json.loads`).
fn json_to_py<'py>(py: Python<'py>, value: &Json) -> PyResult<Bound<'py, PyAny>> {
    Ok(match value {
        Json::Null => py.None().into_bound(py),
        Json::Bool(b) => b.into_bound_py_any(py)?,
        Json::Number(n) => {
            if let Some(i) = n.as_i64() {
                i.into_bound_py_any(py)?
            } else if let Some(u) = n.as_u64() {
                u.into_bound_py_any(py)?
            } else {
                n.as_f64().unwrap_or(f64::NAN).into_bound_py_any(py)?
            }
        }
        Json::String(text) => PyString::new(py, text).into_any(),
        Json::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(json_to_py(py, item)?)?;
            }
            list.into_any()
        }
        Json::Object(map) => {
            let dict = PyDict::new(py);
            for (key, item) in map {
                dict.set_item(key, json_to_py(py, item)?)?;
            }
            dict.into_any()
        }
    })
}

fn tool_result(answer: Json) -> PyResult<ToolResult> {
    ptc_core::host_json::answer_to_result(answer).map_err(value_error)
}

/// The ToolCall description, its input schema and the listing for the roster, as a dict.
#[pyfunction]
fn describe<'py>(py: Python<'py>, tools: &str) -> PyResult<Bound<'py, PyAny>> {
    let contracts = ptc_core::host_json::contracts_from_json(tools).map_err(value_error)?;
    let registry = session::registry(contracts).map_err(value_error)?;
    describe_registry(py, &registry)
}

fn describe_registry<'py>(
    py: Python<'py>,
    registry: &ptc_core::Catalog,
) -> PyResult<Bound<'py, PyAny>> {
    let described = json!({
        "name": listing::TOOL_NAME,
        "description": listing::DESCRIPTION,
        "input_schema": listing::input_schema(),
        "listing": listing::tool_listing(registry),
    });
    json_to_py(py, &described)
}

/// The diagnostics of `expression` for the roster (a list of dicts; empty when it compiles).
#[pyfunction]
#[pyo3(signature = (expression, tools, limits=None))]
fn check<'py>(
    py: Python<'py>,
    expression: &str,
    tools: &str,
    limits: Option<&str>,
) -> PyResult<Bound<'py, PyAny>> {
    let contracts = ptc_core::host_json::contracts_from_json(tools).map_err(value_error)?;
    let limits = ptc_core::host_json::limits_from_json(limits).map_err(value_error)?;
    let registry = session::registry(contracts).map_err(value_error)?;
    let diagnostics = py.detach(|| ptc_compiler::check(expression, &registry.roster(), &limits));
    json_to_py(py, &diagnostics_value(&diagnostics))
}

/// The default budgets, as a dict keyed like `--limit`.
#[pyfunction]
fn default_limits(py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
    let limits = serde_json::to_value(ptc_vm::Limits::default())
        .map_err(|error| value_error(error.to_string()))?;
    json_to_py(py, &limits)
}

#[pymodule]
fn _ptc(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyEngine>()?;
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
