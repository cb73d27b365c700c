//! Durable runs over the corpora (spec/reference/durable-runs.md): every conformance case
//! and every model-corpus case that calls tools runs through the sans-IO envelope once
//! straight, then once per nested call pausing at that call, its journal stored as JSON
//! text and resumed (allowed, or denied where the case's stub denies). Each resumed run
//! must give the straight run's outcome, text, audit and fuel, and dispatch only the calls
//! its journal did not answer; an offline replay of the straight run's journal must give
//! the same outcome with no dispatch at all.

use ptc_runtime::core::resume::{Approval, RunJournal};
use ptc_runtime::core::{
    Catalog, Envelope, EnvelopeConfig, Event, Outcome, Status, ToolContract, ToolResult,
};
use ptc_spec::{Behaviour, conformance_dir, load_corpus};
use ptc_vm::Limits;
use serde_json::{Value as Json, json};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

/// At most this many pause points per case (the first ones): keeps the test quick on
/// cases that loop over many calls.
const MAX_PAUSES: u64 = 24;

/// Safety net against an envelope that never settles.
const MAX_POLLS: usize = 1_000_000;

/// How a stub answers a call of a tool with its arguments.
type Answerer = Box<dyn Fn(&str, &Json) -> Reply>;

/// A case reduced to what the replay test needs.
struct Subject {
    name: String,
    script: String,
    limits: Limits,
    catalog: Arc<Catalog>,
    answer: Answerer,
}

/// The host's answer to one call.
enum Reply {
    Result(ToolResult),
    Deny(String),
}

fn error_result(message: &str) -> ToolResult {
    ToolResult {
        is_error: true,
        ..ToolResult::text(message)
    }
}

/// Every conformance case with composable tools and no `xfail`.
fn conformance() -> Vec<Subject> {
    let cases = load_corpus(&conformance_dir()).unwrap_or_else(|e| panic!("{e:?}"));
    cases
        .into_iter()
        .filter(|case| !case.tools.is_empty() && case.xfail.is_none())
        .map(|case| {
            let mut catalog = Catalog::new();
            for tool in &case.tools {
                let schema = tool
                    .schema_json()
                    .unwrap()
                    .unwrap_or_else(|| json!({"type": "object"}));
                catalog
                    .add(ToolContract::new(tool.name.clone(), "", schema))
                    .unwrap();
            }
            for name in &case.standalone {
                let contract = ToolContract::new(name.clone(), "", json!({"type": "object"}));
                catalog.add(contract.standalone(true)).unwrap();
            }
            let behaviours = case.behaviours().unwrap();
            Subject {
                name: case.location(),
                limits: case.limits().unwrap(),
                script: case.script,
                catalog: Arc::new(catalog),
                answer: Box::new(move |tool, args| {
                    let behaviour = behaviours
                        .iter()
                        .find(|(name, _)| name == tool)
                        .map_or(Behaviour::Name, |(_, b)| b.clone());
                    Reply::Result(match behaviour {
                        Behaviour::Name => ToolResult::text(tool),
                        Behaviour::Text(text) => ToolResult::text(text),
                        Behaviour::Error(message) => error_result(&message),
                        Behaviour::Arg(key) => ToolResult::json(
                            args.get(key.trim_start_matches(':'))
                                .cloned()
                                .unwrap_or(Json::Null),
                        ),
                        Behaviour::Args => ToolResult::json(args.clone()),
                        Behaviour::Json(text) => {
                            ToolResult::json(serde_json::from_str(&text).unwrap_or(Json::Null))
                        }
                        Behaviour::Deny(reason) => return Reply::Deny(reason),
                    })
                }),
            }
        })
        .collect()
}

/// Every model-corpus case with tools and no `xfail`; stubs answer as the model corpus's
/// README says (a fixed text or JSON, or one keyed by the argument `by`, or an error).
fn model_corpus() -> Vec<Subject> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("model-corpus");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    let mut subjects = Vec::new();
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let file: toml::Table = toml::from_str(&text).unwrap();
        let Some(toml::Value::Array(cases)) = file.get("case") else {
            continue;
        };
        for case in cases {
            let Some(tools) = case.get("tools").and_then(toml::Value::as_table) else {
                continue;
            };
            if case.get("xfail").is_some() {
                continue;
            }
            let mut catalog = Catalog::new();
            for name in tools.keys() {
                let contract = ToolContract::new(name.clone(), "", json!({"type": "object"}));
                catalog.add(contract).unwrap();
            }
            let stubs: BTreeMap<String, Json> = tools
                .iter()
                .map(|(name, stub)| (name.clone(), serde_json::to_value(stub).unwrap()))
                .collect();
            subjects.push(Subject {
                name: format!(
                    "{}:{}",
                    path.display(),
                    case.get("name")
                        .and_then(toml::Value::as_str)
                        .unwrap_or("?")
                ),
                script: case["script"].as_str().unwrap().to_owned(),
                limits: Limits::default(),
                catalog: Arc::new(catalog),
                answer: Box::new(move |tool, args| Reply::Result(stub_answer(&stubs[tool], args))),
            });
        }
    }
    subjects
}

/// A model-corpus stub's answer.
fn stub_answer(stub: &Json, args: &Json) -> ToolResult {
    if let Some(message) = stub.get("error").and_then(Json::as_str) {
        return error_result(message);
    }
    let pick = |answers: &Json| -> Result<String, String> {
        match (answers, stub.get("by").and_then(Json::as_str)) {
            (Json::String(text), _) => Ok(text.clone()),
            (Json::Object(table), Some(key)) => {
                let wanted = match args.get(key) {
                    Some(Json::String(s)) => s.clone(),
                    Some(other) => other.to_string(),
                    None => String::new(),
                };
                table
                    .get(&wanted)
                    .and_then(Json::as_str)
                    .map(str::to_owned)
                    .ok_or_else(|| format!("not found: {wanted}"))
            }
            _ => Err("bad stub".to_owned()),
        }
    };
    match (stub.get("text"), stub.get("json")) {
        (Some(text), _) => pick(text).map_or_else(|e| error_result(&e), ToolResult::text),
        (None, Some(json)) => pick(json).map_or_else(
            |e| error_result(&e),
            |text| ToolResult::json(serde_json::from_str(&text).unwrap_or(Json::Null)),
        ),
        _ => ToolResult::text(""),
    }
}

fn config(subject: &Subject) -> EnvelopeConfig {
    let mut config = EnvelopeConfig::new(Arc::clone(&subject.catalog), subject.limits, "run");
    config.options.record = true;
    config
}

/// Drives `envelope`, pausing the call with ordinal `pause_at`; the outcome and the number
/// of calls dispatched.
fn drive(subject: &Subject, mut envelope: Envelope, pause_at: Option<u64>) -> (Outcome, usize) {
    let mut dispatched = 0;
    for _ in 0..MAX_POLLS {
        match envelope.poll(Duration::ZERO) {
            Event::Permission(calls) => {
                for call in calls {
                    let ordinal = call.id.rsplit('/').next().and_then(|n| n.parse().ok());
                    if ordinal == pause_at {
                        envelope.pause(&call.id).unwrap();
                        continue;
                    }
                    match (subject.answer)(&call.tool, &call.arguments) {
                        Reply::Deny(reason) => envelope.deny(&call.id, reason).unwrap(),
                        Reply::Result(_) => envelope.allow(&call.id).unwrap(),
                    }
                }
            }
            Event::Dispatch(calls) => {
                for call in calls {
                    dispatched += 1;
                    let result = match (subject.answer)(&call.tool, &call.arguments) {
                        Reply::Result(result) => result,
                        Reply::Deny(_) => unreachable!("a denied call is never dispatched"),
                    };
                    envelope.complete(Duration::ZERO, &call.id, result).unwrap();
                }
            }
            Event::Settled(outcome) => return (*outcome, dispatched),
            _ => {}
        }
    }
    panic!("{}: the envelope did not settle", subject.name);
}

/// What must be equal between a straight run and its resumption.
fn fingerprint(outcome: &Outcome) -> String {
    let calls: Vec<_> = outcome
        .calls
        .iter()
        .map(|c| format!("{} {} {:?} {:?}", c.id, c.tool, c.status, c.preview))
        .collect();
    format!(
        "{} | {} | fuel {} | {}",
        outcome.kind.as_str(),
        outcome.text,
        outcome.stats.fuel_used,
        calls.join("; ")
    )
}

/// The problems of one subject (empty when every pause point resumes faithfully) and the
/// number of pauses resumed.
fn check(subject: &Subject) -> (Vec<String>, usize) {
    let mut problems = Vec::new();
    let mut resumed_runs = 0;
    let start = || Envelope::compile(config(subject), &subject.script, Duration::ZERO);
    let (straight, _) = drive(subject, start(), None);
    let want = fingerprint(&straight);
    if let Some(journal) = &straight.journal {
        let (replayed, dispatched) = drive(
            subject,
            Envelope::replay(config(subject), journal, None, Duration::ZERO),
            None,
        );
        if fingerprint(&replayed) != want || dispatched != 0 {
            problems.push(format!(
                "{}: offline replay gave {} with {dispatched} dispatches, want {want}",
                subject.name,
                fingerprint(&replayed)
            ));
        }
    }
    let asked = straight.calls.len() as u64;
    for k in 1..=asked.min(MAX_PAUSES) {
        let (paused, _) = drive(subject, start(), Some(k));
        if paused.kind.as_str() != "paused" {
            // Call k never reached a permission ask (refused arguments, or the run ended
            // first on this path); nothing to resume.
            continue;
        }
        let text = serde_json::to_string(paused.journal.as_deref().unwrap()).unwrap();
        let journal: RunJournal = serde_json::from_str(&text).unwrap();
        let answered = journal.calls.len();
        let decisions: Vec<(String, Approval)> = journal
            .pending
            .iter()
            .map(|call| {
                let approval = match (subject.answer)(&call.tool, &call.arguments) {
                    Reply::Deny(reason) => Approval::Deny(reason),
                    Reply::Result(_) => Approval::Allow,
                };
                (call.id.clone(), approval)
            })
            .collect();
        resumed_runs += 1;
        let resumed = Envelope::resume(config(subject), &journal, None, &decisions, Duration::ZERO);
        let (outcome, dispatched) = drive(subject, resumed, None);
        let got = fingerprint(&outcome);
        // A person's later denial lets siblings that were already allowed finish first
        // (earlier effects stay), where the straight run's immediate denial cancelled
        // them: the outcome and its message must agree, the siblings' audit may not.
        let denied = decisions
            .iter()
            .any(|(_, approval)| matches!(approval, Approval::Deny(_)));
        let agrees = if denied {
            outcome.kind == straight.kind && outcome.error == straight.error
        } else {
            got == want
        };
        if !agrees {
            problems.push(format!(
                "{}: paused at call {k}, resumed to {got}, want {want}",
                subject.name
            ));
        }
        let live = straight
            .calls
            .iter()
            .filter(|c| matches!(c.status, Status::Success | Status::Error))
            .count()
            .saturating_sub(answered);
        if dispatched > live {
            problems.push(format!(
                "{}: paused at call {k}, the resumed run dispatched {dispatched} calls; \
                 only {live} were not journaled",
                subject.name
            ));
        }
    }
    (problems, resumed_runs)
}

#[test]
fn every_corpus_run_resumes_from_a_pause_at_each_call_to_the_same_outcome() {
    let subjects: Vec<Subject> = conformance().into_iter().chain(model_corpus()).collect();
    assert!(subjects.len() > 100, "only {} subjects", subjects.len());
    let mut problems = Vec::new();
    let mut pauses = 0;
    for subject in &subjects {
        let (found, resumed) = check(subject);
        problems.extend(found);
        pauses += resumed;
    }
    println!(
        "{} runs with tools; {pauses} pauses resumed, one at every call in turn",
        subjects.len()
    );
    assert!(pauses > 300, "only {pauses} pauses were resumed");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
