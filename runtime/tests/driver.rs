//! Driver tests on hand-assembled programs: ordering, bounded concurrency, denial,
//! cancellation, panics, timeouts, direct vs composed results, checkpoints, yields and
//! progress snapshots.
//! Scripts compiled from source are exercised through the CLI's integration tests.

use ptc_runtime::core::{Progress, Status};
use ptc_runtime::{
    BoxFuture, CancelToken, Decision, FileJournal, OutcomeKind, PermissionPolicy, Registry,
    RunOptions, Runner, ToolContract, ToolRequestCtx, ToolResult,
};
use ptc_vm::isa::{ConstIdx, Op, Reg, ToolIdx};
use ptc_vm::program::Function;
use ptc_vm::{Interner, Limits, Program, ProgramParts, Span, Value};
use serde_json::json;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// One call: tool name and `(:key value ...)` pairs.
type Call<'a> = (&'a str, Vec<(&'a str, Value)>);

/// Assembles `calls` either as one parallel batch or as a sequence (returning the last
/// result), optionally after a counting loop of `spin` iterations.
fn assemble(calls: &[Call<'_>], batch: bool, spin: i32) -> Arc<Program> {
    let mut interner = Interner::new();
    let mut constants = Vec::new();
    let mut tools: Vec<Arc<str>> = Vec::new();
    let mut code = Vec::new();
    let reg = |n: usize| Reg(u16::try_from(n).unwrap());
    if spin > 0 {
        code.push(Op::LoadInt {
            dst: Reg(0),
            value: 0,
        });
        code.push(Op::LoadInt {
            dst: Reg(1),
            value: spin,
        });
        code.push(Op::JumpIfNotLess {
            lhs: Reg(0),
            rhs: Reg(1),
            offset: 2,
        });
        code.push(Op::AddImm {
            dst: Reg(0),
            lhs: Reg(0),
            imm: 1,
        });
        code.push(Op::Jump { offset: -3 });
    }
    if batch {
        code.push(Op::BatchBegin);
    }
    let mut max_reg = 2;
    for (tool, pairs) in calls {
        let tool_index = match tools.iter().position(|t| &**t == *tool) {
            Some(i) => i,
            None => {
                tools.push(Arc::from(*tool));
                tools.len() - 1
            }
        };
        let base = 1;
        for (i, (key, value)) in pairs.iter().enumerate() {
            constants.push(Value::Sym(interner.intern(&format!(":{key}"))));
            code.push(Op::LoadConst {
                dst: reg(base + 2 * i),
                idx: ConstIdx(u32::try_from(constants.len() - 1).unwrap()),
            });
            constants.push(value.clone());
            code.push(Op::LoadConst {
                dst: reg(base + 2 * i + 1),
                idx: ConstIdx(u32::try_from(constants.len() - 1).unwrap()),
            });
        }
        let argc = u8::try_from(pairs.len() * 2).unwrap();
        max_reg = max_reg.max(base + pairs.len() * 2 + 1);
        let tool = ToolIdx(u16::try_from(tool_index).unwrap());
        if batch {
            code.push(Op::BatchPush {
                tool,
                args: reg(base),
                argc,
            });
        } else {
            code.push(Op::CallTool {
                dst: Reg(0),
                tool,
                args: reg(base),
                argc,
            });
        }
    }
    if batch {
        code.push(Op::BatchEnd { dst: Reg(0) });
    }
    code.push(Op::Return { src: Reg(0) });
    let spans = vec![Span::new(0, 1); code.len()];
    let main = Function {
        name: "main".into(),
        code,
        spans,
        registers: u16::try_from(max_reg).unwrap(),
        required: 0,
        optional: 0,
        rest: false,
        captures: vec![],
    };
    let parts = ProgramParts {
        functions: vec![main],
        constants,
        tools,
        symbols: interner,
        callables: vec![],
    };
    Arc::new(Program::new(parts).expect("verifies"))
}

fn schema() -> serde_json::Value {
    json!({"type": "object", "properties": {"value": {"type": "string"}, "ms": {"type": "integer"}},
           "additionalProperties": false})
}

/// A registry with `Probe` (returns its :value after sleeping :ms), `Boom` (panics),
/// `Hang` (never answers) and `Peak` (reports the peak number of concurrent Peak calls).
fn registry(ran: Arc<AtomicU64>) -> Arc<Registry> {
    let mut registry = Registry::new();
    let counter = ran.clone();
    registry
        .register(
            ToolContract::new("Probe", "Echoes its value.", schema()),
            move |request: ToolRequestCtx| {
                counter.fetch_add(1, Ordering::SeqCst);
                async move {
                    let ms = request.arguments["ms"].as_u64().unwrap_or(0);
                    if ms > 0 {
                        tokio::time::sleep(Duration::from_millis(ms)).await;
                    }
                    let value = request.arguments["value"].as_str().unwrap_or("").to_owned();
                    ToolResult::text(value).with_note(format!("note from {}", request.id))
                }
            },
        )
        .unwrap();
    registry
        .register(
            ToolContract::new("Boom", "Panics.", schema()),
            |_request: ToolRequestCtx| async move {
                panic!("boom");
                #[allow(unreachable_code)]
                ToolResult::text("")
            },
        )
        .unwrap();
    registry
        .register(
            ToolContract::new("Hang", "Never answers.", schema()),
            |_request: ToolRequestCtx| async move {
                std::future::pending::<()>().await;
                ToolResult::text("")
            },
        )
        .unwrap();
    let active = Arc::new(AtomicU64::new(0));
    let peak = Arc::new(AtomicU64::new(0));
    registry
        .register(
            ToolContract::new("Peak", "Measures concurrency.", schema()),
            move |_request: ToolRequestCtx| {
                let active = active.clone();
                let peak = peak.clone();
                async move {
                    let now = active.fetch_add(1, Ordering::SeqCst) + 1;
                    peak.fetch_max(now, Ordering::SeqCst);
                    tokio::time::sleep(Duration::from_millis(30)).await;
                    active.fetch_sub(1, Ordering::SeqCst);
                    ToolResult::text(peak.load(Ordering::SeqCst).to_string())
                }
            },
        )
        .unwrap();
    Arc::new(registry)
}

fn s(text: &str) -> Value {
    Value::string(text)
}

fn opts(id: &str) -> RunOptions {
    RunOptions::new().id(id).cancel(CancelToken::new())
}

#[tokio::test]
async fn batch_results_join_in_source_order_under_shuffled_completion() {
    let runner = Runner::new(registry(Arc::default()));
    let calls = [
        ("Probe", vec![("value", s("a")), ("ms", Value::Int(60))]),
        ("Probe", vec![("value", s("b")), ("ms", Value::Int(5))]),
        ("Probe", vec![("value", s("c")), ("ms", Value::Int(30))]),
    ];
    let outcome = runner
        .run(
            ptc_runtime::Source::Program {
                program: &assemble(&calls, true, 0),
                direct: None,
                text: "",
            },
            opts("env"),
        )
        .await;
    assert_eq!(outcome.kind, OutcomeKind::Completed);
    assert_eq!(outcome.text, "(\"a\" \"b\" \"c\")");
    assert_eq!(outcome.value, Some(Box::new(json!(["a", "b", "c"]))));
    let ids: Vec<_> = outcome.calls.iter().map(|c| &*c.id).collect();
    assert_eq!(ids, ["env/1", "env/2", "env/3"]);
    assert!(
        outcome
            .calls
            .iter()
            .all(|c| c.batch == Some(1) && c.status == Status::Success)
    );
    assert_eq!(
        *outcome.notes,
        ["note from env/2", "note from env/3", "note from env/1"]
    );
    assert_eq!(outcome.stats.tool_calls, 3);
}

#[tokio::test]
async fn batches_run_with_bounded_concurrency() {
    let limits = Limits {
        parallelism: 2,
        ..Limits::default()
    };
    let runner = Runner::new(registry(Arc::default())).with_limits(limits);
    let calls: Vec<Call<'_>> = (0..5).map(|_| ("Peak", vec![])).collect();
    let outcome = runner
        .run(
            ptc_runtime::Source::Program {
                program: &assemble(&calls, true, 0),
                direct: None,
                text: "",
            },
            opts("p"),
        )
        .await;
    assert_eq!(outcome.text, "(\"2\" \"2\" \"2\" \"2\" \"2\")");
    // The default parallelism is 4.
    let runner = Runner::new(registry(Arc::default()));
    let outcome = runner
        .run(
            ptc_runtime::Source::Program {
                program: &assemble(&calls, true, 0),
                direct: None,
                text: "",
            },
            opts("p"),
        )
        .await;
    assert_eq!(outcome.text, "(\"4\" \"4\" \"4\" \"4\" \"4\")");
}

#[tokio::test]
async fn denial_in_a_batch_cancels_everything_and_runs_no_handler() {
    let ran = Arc::new(AtomicU64::new(0));
    let runner = Runner::new(registry(ran.clone())).with_policy(Arc::new(|_r: &ToolRequestCtx| {
        Decision::Deny("nope".into())
    }));
    let calls: Vec<Call<'_>> = (0..3).map(|_| ("Probe", vec![("value", s("x"))])).collect();
    let outcome = runner
        .run(
            ptc_runtime::Source::Program {
                program: &assemble(&calls, true, 0),
                direct: None,
                text: "",
            },
            opts("d"),
        )
        .await;
    assert_eq!(outcome.kind, OutcomeKind::Denied);
    let statuses: Vec<_> = outcome.calls.iter().map(|c| c.status).collect();
    assert_eq!(
        statuses,
        [Status::Denied, Status::Cancelled, Status::Cancelled]
    );
    assert_eq!(ran.load(Ordering::SeqCst), 0);
    assert_eq!(
        outcome.text,
        "Error: batch aborted because nested Probe was denied: nope\n\nNested call audit:\n\
         - d/1 Probe {\"value\":\"x\"} (denied)\n\
         - d/2 Probe {\"value\":\"x\"} (cancelled)\n\
         - d/3 Probe {\"value\":\"x\"} (cancelled)"
    );
    let error = outcome.error.unwrap();
    assert_eq!(error.kind, "denied");
}

#[tokio::test]
async fn an_active_sibling_is_cancelled_by_a_later_denial() {
    let policy = |r: &ToolRequestCtx| {
        if r.arguments["value"] == "deny" {
            Decision::Deny("no".into())
        } else {
            Decision::Allow
        }
    };
    let runner = Runner::new(registry(Arc::default())).with_policy(Arc::new(policy));
    let calls = [
        ("Probe", vec![("value", s("ok")), ("ms", Value::Int(500))]),
        ("Probe", vec![("value", s("deny"))]),
    ];
    let outcome = runner
        .run(
            ptc_runtime::Source::Program {
                program: &assemble(&calls, true, 0),
                direct: None,
                text: "",
            },
            opts("s"),
        )
        .await;
    let statuses: Vec<_> = outcome.calls.iter().map(|c| c.status).collect();
    assert_eq!(statuses, [Status::Cancelled, Status::Denied]);
    assert!(
        outcome.stats.elapsed_ms < 500,
        "{}",
        outcome.stats.elapsed_ms
    );
    // In sequence, the message names the script.
    let calls = [
        ("Probe", vec![("value", s("ok"))]),
        ("Probe", vec![("value", s("deny"))]),
    ];
    let outcome = runner
        .run(
            ptc_runtime::Source::Program {
                program: &assemble(&calls, false, 0),
                direct: None,
                text: "",
            },
            opts("q"),
        )
        .await;
    assert_eq!(outcome.kind, OutcomeKind::Denied);
    assert!(
        outcome.text.starts_with(
            "Error: script aborted because nested Probe was denied: no\n\nNested call audit:\n\
         - q/1 Probe {\"value\":\"ok\"} (success)\n- q/2 Probe {\"value\":\"deny\"} (denied)"
        ),
        "{}",
        outcome.text
    );
}

#[tokio::test]
async fn host_cancellation_interrupts_the_run() {
    let runner = Runner::new(registry(Arc::default()));
    let cancel = CancelToken::new();
    let trigger = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(20)).await;
        trigger.cancel();
    });
    let calls = [("Hang", vec![]), ("Probe", vec![("value", s("done"))])];
    let options = RunOptions::new().id("c").cancel(cancel);
    let outcome = runner
        .run(
            ptc_runtime::Source::Program {
                program: &assemble(&calls, true, 0),
                direct: None,
                text: "",
            },
            options,
        )
        .await;
    assert_eq!(outcome.kind, OutcomeKind::Interrupted);
    assert_eq!(
        outcome.text,
        "Error: script interrupted\n\nNested call audit:\n- c/1 Hang {} (cancelled)\n\
         - c/2 Probe {\"value\":\"done\"} (success)"
    );
}

#[tokio::test]
async fn panics_and_timeouts_become_guest_error_values() {
    // Panic reports without a backtrace: resolving one under RUST_BACKTRACE=1 can take
    // longer than the timeout on the panicking call's own thread.
    std::panic::set_hook(Box::new(|info| eprintln!("{info}")));
    let limits = Limits {
        tool_timeout_ms: Some(400),
        ..Limits::default()
    };
    let runner = Runner::new(registry(Arc::default())).with_limits(limits);
    let calls = [
        ("Boom", vec![]),
        ("Hang", vec![]),
        ("Probe", vec![("value", s("fine"))]),
    ];
    let outcome = runner
        .run(
            ptc_runtime::Source::Program {
                program: &assemble(&calls, true, 0),
                direct: None,
                text: "",
            },
            opts("t"),
        )
        .await;
    assert_eq!(outcome.kind, OutcomeKind::Completed);
    assert_eq!(
        outcome.text,
        "((:error \"Error: Boom failed: the tool crashed (details are in the host's log)\") (:error \"Error: Hang timed out after 400 ms\") \"fine\")"
    );
    let statuses: Vec<_> = outcome.calls.iter().map(|c| c.status).collect();
    assert_eq!(statuses, [Status::Error, Status::Error, Status::Success]);
}

#[tokio::test]
async fn argument_errors_are_guest_values_and_direct_calls_return_the_tool_result() {
    let runner = Runner::new(registry(Arc::default()));
    let calls = [("Probe", vec![("bogus", s("x"))])];
    let outcome = runner
        .run(
            ptc_runtime::Source::Program {
                program: &assemble(&calls, false, 0),
                direct: None,
                text: "",
            },
            opts("a"),
        )
        .await;
    assert_eq!(
        outcome.text,
        "(:error \"Error: Probe has no argument `bogus'; it accepts: value, ms\")"
    );
    // The same call as a direct script is a tool error with the conversion message.
    let outcome = runner
        .run(
            ptc_runtime::Source::Program {
                program: &assemble(&calls, false, 0),
                direct: Some("Probe"),
                text: "",
            },
            opts("b"),
        )
        .await;
    assert_eq!(outcome.kind, OutcomeKind::ToolError);
    assert_eq!(
        outcome.text,
        "Error: Probe has no argument `bogus'; it accepts: value, ms"
    );
    // A direct call keeps the tool's whole text; the audit keeps a 200-char preview.
    let long = "y".repeat(1000);
    let calls = [("Probe", vec![("value", s(&long))])];
    let outcome = runner
        .run(
            ptc_runtime::Source::Program {
                program: &assemble(&calls, false, 0),
                direct: Some("Probe"),
                text: "",
            },
            opts("c"),
        )
        .await;
    assert_eq!(outcome.kind, OutcomeKind::Completed);
    assert_eq!(outcome.direct.as_deref(), Some("Probe"));
    assert_eq!(outcome.text, long);
    assert_eq!(outcome.calls[0].preview.as_deref().map(str::len), Some(203));
    // Direct calls keep their arguments whole; composed scripts bound them.
    assert_eq!(
        outcome.calls[0].args.as_deref(),
        Some(&json!({"value": long}))
    );
    let outcome = runner
        .run(
            ptc_runtime::Source::Program {
                program: &assemble(&calls, false, 0),
                direct: None,
                text: "",
            },
            opts("d"),
        )
        .await;
    let kept = outcome.calls[0].args.as_ref().unwrap()["value"]
        .as_str()
        .unwrap()
        .len();
    assert_eq!(kept, 503);
    assert_eq!(outcome.direct, None);
}

#[tokio::test]
async fn checkpoints_are_written_before_children_and_on_settlement() {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(FileJournal::open(dir.path()).unwrap());
    let seen = Arc::new(std::sync::Mutex::new(None));
    let mut registry = Registry::new();
    let (reader, sink) = (store.clone(), seen.clone());
    registry
        .register(
            ToolContract::new("Look", "Reads the journal.", json!({"type": "object"})),
            move |request: ToolRequestCtx| {
                let record = reader.read_now(&request.parent_id).ok();
                *sink.lock().unwrap() = record.map(|r| (r.state, r.expression));
                async { ToolResult::text("seen") }
            },
        )
        .unwrap();
    let runner = Runner::new(Arc::new(registry)).with_journal(store.clone());
    let program = assemble(&[("Look", vec![])], false, 0);
    let outcome = runner
        .run(
            ptc_runtime::Source::Program {
                program: &program,
                direct: None,
                text: "(Look)",
            },
            opts("j"),
        )
        .await;
    assert_eq!(outcome.text, "seen");
    assert_eq!(
        *seen.lock().unwrap(),
        Some((
            ptc_runtime::core::JournalState::Running,
            "(Look)".to_owned()
        ))
    );
    let settled = store.read_now("j").unwrap();
    assert_eq!(settled.state, ptc_runtime::core::JournalState::Settled);
    assert_eq!(settled.result.as_deref(), Some("seen"));
    assert_eq!(settled.calls.len(), 1);
}

#[test]
fn the_driver_yields_at_every_pause() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let flag = Arc::new(AtomicBool::new(false));
        let setter = flag.clone();
        let mut registry = Registry::new();
        let reader = flag.clone();
        registry
            .register(
                ToolContract::new("Flag", "Reports the flag.", json!({"type": "object"})),
                move |_r: ToolRequestCtx| {
                    let value = reader.load(Ordering::SeqCst);
                    async move { ToolResult::text(value.to_string()) }
                },
            )
            .unwrap();
        let runner = Runner::new(Arc::new(registry));
        tokio::spawn(async move { setter.store(true, Ordering::SeqCst) });
        // 20 000 loop iterations take many 2 000-step slices before the call.
        let program = assemble(&[("Flag", vec![])], false, 20_000);
        let outcome = runner
            .run(
                ptc_runtime::Source::Program {
                    program: &program,
                    direct: None,
                    text: "",
                },
                opts("y"),
            )
            .await;
        assert_eq!(outcome.text, "true");
    });
}

#[tokio::test]
async fn scripts_compile_and_the_raw_tool_call_shape_is_checked() {
    let runner = Runner::new(registry(Arc::default()));
    let outcome = runner
        .run(&json!({"expression": "(Probe :value \"hi\")"}), opts("r"))
        .await;
    assert_eq!(outcome.kind, OutcomeKind::Completed);
    assert_eq!(outcome.direct.as_deref(), Some("Probe"));
    assert_eq!(outcome.text, "hi");
    let outcome = runner
        .run(
            &json!({"expression": "(list (Probe :value \"a\") (length (Probe :value \"bc\")))"}),
            opts("r2"),
        )
        .await;
    assert_eq!(outcome.text, "(\"a\" 2)");
    assert_eq!(outcome.value, Some(Box::new(json!(["a", 2]))));
    assert_eq!(outcome.direct, None);
    for (arguments, message) in [
        (
            json!({"script": "1"}),
            "ToolCall has no argument `script'; it accepts: expression",
        ),
        (
            json!({}),
            "ToolCall expects {\"expression\": \"<script>\"}: the expression is missing",
        ),
        (
            json!("1"),
            "ToolCall expects {\"expression\": \"<script>\"}, not a JSON string",
        ),
        (
            json!({"expression": 1}),
            "ToolCall expects {\"expression\": \"<script>\"}: the expression must be a string, not a JSON number",
        ),
    ] {
        let outcome = runner.run(&arguments, opts("x")).await;
        assert_eq!(outcome.kind, OutcomeKind::ScriptError);
        assert_eq!(outcome.text, format!("Error: {message}"));
        assert_eq!(outcome.error.unwrap().kind, "arguments");
    }
    let outcome = runner.run("(Nope 1)", opts("n")).await;
    assert_eq!(outcome.kind, OutcomeKind::ScriptError);
    assert_eq!(outcome.error.as_ref().unwrap().kind, "preflight");
    assert!(outcome.text.starts_with("Error: "), "{}", outcome.text);
}

#[tokio::test]
async fn media_reaches_the_guest_as_descriptors_and_oversized_results_are_rejected() {
    let mut registry = Registry::new();
    registry
        .register(
            ToolContract::new("Shot", "Takes a screenshot.", json!({"type": "object"})),
            |_r: ToolRequestCtx| async {
                ToolResult {
                    content: vec![ptc_runtime::Content::Media(ptc_runtime::core::MediaRef {
                        mime: "image/png".into(),
                        uri: Some("file:///shot.png".into()),
                        name: None,
                        data: Some(Arc::from(&b"\x89PNG payload"[..])),
                    })],
                    ..ToolResult::default()
                }
            },
        )
        .unwrap();
    registry
        .register(
            ToolContract::new("Big", "Returns a lot.", json!({"type": "object"})),
            |_r: ToolRequestCtx| async { ToolResult::text("w".repeat(300)) },
        )
        .unwrap();
    let limits = Limits {
        value_bytes: 200,
        ..Limits::default()
    };
    let runner = Runner::new(Arc::new(registry)).with_limits(limits);
    let outcome = runner.run("(list (Shot))", opts("m")).await;
    assert_eq!(
        outcome.text,
        "(((:mime \"image/png\" :uri \"file:///shot.png\")))"
    );
    let record = serde_json::to_value(&outcome.calls[0]).unwrap();
    assert_eq!(
        record["media"],
        json!([{"mime": "image/png", "uri": "file:///shot.png"}])
    );
    let outcome = runner.run("(list (Big))", opts("b")).await;
    assert_eq!(outcome.calls[0].status, Status::Error);
    assert!(
        outcome.calls[0]
            .preview
            .as_deref()
            .unwrap()
            .starts_with("Error: nested tool result rejected: "),
        "{:?}",
        outcome.calls[0].preview
    );
    assert!(
        outcome
            .text
            .starts_with("((:error \"Nested tool result rejected: "),
        "{}",
        outcome.text
    );
}

/// A store that fails every write, or only settled ones.
struct FailingStore {
    settled_only: bool,
}

impl ptc_runtime::core::JournalStore for FailingStore {
    fn write(
        &self,
        checkpoint: &ptc_runtime::core::JournalRecord,
    ) -> BoxFuture<std::io::Result<()>> {
        let result =
            if self.settled_only && checkpoint.state == ptc_runtime::core::JournalState::Running {
                Ok(())
            } else {
                Err(std::io::Error::other("disk full"))
            };
        Box::pin(std::future::ready(result))
    }

    fn read(&self, _id: &str) -> BoxFuture<std::io::Result<ptc_runtime::core::JournalRecord>> {
        Box::pin(std::future::ready(Err(std::io::Error::other("disk full"))))
    }

    fn list(&self) -> BoxFuture<std::io::Result<Vec<ptc_runtime::core::JournalRecord>>> {
        Box::pin(std::future::ready(Ok(Vec::new())))
    }

    fn recover(&self) -> BoxFuture<std::io::Result<Vec<ptc_runtime::core::JournalRecord>>> {
        Box::pin(std::future::ready(Ok(Vec::new())))
    }
}

#[tokio::test]
async fn checkpoint_failures_follow_the_original() {
    let ran = Arc::new(AtomicU64::new(0));
    let runner = Runner::new(registry(ran.clone())).with_journal(Arc::new(FailingStore {
        settled_only: false,
    }));
    let outcome = runner.run("(Probe :value \"x\")", opts("f")).await;
    assert_eq!(outcome.kind, OutcomeKind::ScriptError);
    assert_eq!(
        outcome.text,
        "Error: ToolCall audit checkpoint could not be persisted"
    );
    assert_eq!(outcome.error.unwrap().kind, "checkpoint");
    assert_eq!(ran.load(Ordering::SeqCst), 0, "the script must not run");
    let runner = Runner::new(registry(ran.clone()))
        .with_journal(Arc::new(FailingStore { settled_only: true }));
    let outcome = runner.run("(list (Probe :value \"x\"))", opts("g")).await;
    assert_eq!(ran.load(Ordering::SeqCst), 1);
    assert_eq!(outcome.kind, OutcomeKind::ScriptError);
    assert_eq!(
        outcome.text,
        "Error: ToolCall final audit could not be persisted"
    );
    assert_eq!(outcome.calls.len(), 1);
}

#[tokio::test]
async fn composed_text_is_capped_and_direct_results_are_not() {
    let mut registry = Registry::new();
    registry
        .register(
            ToolContract::new(
                "Huge",
                "Returns 40 000 characters.",
                json!({"type": "object"}),
            ),
            |_r: ToolRequestCtx| async { ToolResult::text("w".repeat(40_000)) },
        )
        .unwrap();
    let runner = Runner::new(Arc::new(registry));
    let notice = "\n\n[ToolCall result truncated: 40004 characters exceed the \
                  30000-character limit]";
    let outcome = runner.run("(list (Huge))", opts("h")).await;
    assert_eq!(outcome.kind, OutcomeKind::Completed);
    assert_eq!(
        outcome.text.chars().count(),
        ptc_runtime::core::MAX_RESULT_CHARS
    );
    let kept = ptc_runtime::core::MAX_RESULT_CHARS - notice.chars().count() - 2;
    assert_eq!(outcome.text, format!("(\"{}{notice}", "w".repeat(kept)));
    // The host's JSON value is never cut.
    assert_eq!(outcome.value, Some(Box::new(json!(["w".repeat(40_000)]))));
    // A direct call keeps the tool's own result (§12.7).
    let outcome = runner.run("(Huge)", opts("d")).await;
    assert_eq!(outcome.kind, OutcomeKind::Completed);
    assert_eq!(outcome.direct.as_deref(), Some("Huge"));
    assert_eq!(outcome.text, "w".repeat(40_000));
}

#[tokio::test]
async fn notes_survive_discarded_values_and_follow_the_text() {
    let runner = Runner::new(registry(Arc::default()));
    let outcome = runner
        .run(
            "(progn (Probe :value \"x\") (Probe :value \"y\") 7)",
            opts("n"),
        )
        .await;
    assert_eq!(outcome.text, "7");
    assert_eq!(*outcome.notes, ["note from n/1", "note from n/2"]);
    assert_eq!(
        outcome.text_with_notes(),
        "7\n\nNotes:\n- note from n/1\n- note from n/2"
    );
    assert_eq!(
        outcome.to_json()["notes"],
        json!(["note from n/1", "note from n/2"])
    );
    let outcome = runner.run("(list 1)", opts("m")).await;
    assert_eq!(outcome.text_with_notes(), "(1)");
}

/// Answers `Allow` at once, except for calls whose `:value` is `ask` (allowed after 20 ms)
/// or `refuse` (denied after 20 ms): a policy that waits on a user.
struct PromptingPolicy;

impl PermissionPolicy for PromptingPolicy {
    fn check(&self, request: &ToolRequestCtx) -> BoxFuture<Decision> {
        let value = request.arguments["value"].as_str().unwrap_or("").to_owned();
        Box::pin(async move {
            if value == "ask" || value == "refuse" {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            if value == "refuse" {
                Decision::Deny("the user said no".into())
            } else {
                Decision::Allow
            }
        })
    }
}

/// Runs a batch of `calls` collecting every progress snapshot.
async fn with_progress(calls: &[Call<'_>], id: &str) -> (ptc_runtime::Outcome, Vec<Progress>) {
    let snapshots = Arc::new(Mutex::new(Vec::new()));
    let sink = {
        let snapshots = snapshots.clone();
        move |snapshot: &Progress| snapshots.lock().unwrap().push(snapshot.clone())
    };
    let runner = Runner::new(registry(Arc::default())).with_policy(Arc::new(PromptingPolicy));
    let options = opts(id).progress(Arc::new(sink));
    let outcome = runner
        .run(
            ptc_runtime::Source::Program {
                program: &assemble(calls, true, 0),
                direct: None,
                text: "",
            },
            options,
        )
        .await;
    let snapshots = snapshots.lock().unwrap().clone();
    (outcome, snapshots)
}

fn audit_of(calls: &[ptc_runtime::core::CallProgress]) -> Vec<(String, Status)> {
    calls.iter().map(|c| (c.id.clone(), c.status)).collect()
}

#[tokio::test]
async fn progress_snapshots_follow_the_audit_and_show_permission_waits() {
    let calls = [
        ("Probe", vec![("value", s("a")), ("ms", Value::Int(5))]),
        ("Probe", vec![("value", s("ask"))]),
        ("Probe", vec![("value", s("c"))]),
    ];
    let (outcome, snapshots) = with_progress(&calls, "p").await;
    assert_eq!(outcome.kind, OutcomeKind::Completed, "{}", outcome.text);
    // The batch is announced whole, every call queued.
    let first = snapshots.first().expect("a snapshot");
    assert_eq!((first.kind, first.total, first.completed), ("ptc", 3, 0));
    assert!(first.calls.iter().all(|c| c.status == Status::Queued));
    // While its decision is pending, p/2 is a permission wait, not an active call.
    let waiting = snapshots
        .iter()
        .find(|p| p.permission_waits == ["p/2"])
        .expect("a snapshot with p/2 waiting");
    assert!(waiting.active.len() <= 2 && waiting.live);
    // Granted, it runs: a later snapshot has no wait left while the run is live.
    let position = snapshots
        .iter()
        .position(|p| p.permission_waits == ["p/2"])
        .unwrap();
    assert!(
        snapshots[position..]
            .iter()
            .any(|p| p.live && p.permission_waits.is_empty())
    );
    // Counts only grow, and exactly the last snapshot is final and matches the audit.
    assert!(
        snapshots
            .windows(2)
            .all(|w| w[0].completed <= w[1].completed)
    );
    assert_eq!(snapshots.iter().filter(|p| !p.live).count(), 1);
    let last = snapshots.last().unwrap();
    assert!(!last.live);
    assert_eq!((last.completed, last.total), (3, 3));
    assert!(last.active.is_empty() && last.permission_waits.is_empty());
    let settled: Vec<(String, Status)> = outcome
        .calls
        .iter()
        .map(|c| (c.id.to_string(), c.status))
        .collect();
    assert_eq!(audit_of(&last.calls), settled);
    assert!(settled.iter().all(|(_, status)| *status == Status::Success));
    // Snapshots serialise for a host's view.
    let mut json = serde_json::to_value(last).unwrap();
    let call = json["calls"][1].as_object_mut().unwrap();
    let started = call.remove("started_ms").unwrap().as_u64().unwrap();
    let finished = call.remove("finished_ms").unwrap().as_u64().unwrap();
    assert!(started <= finished);
    assert_eq!(
        json["calls"][1],
        json!({"id": "p/2", "tool": "Probe", "status": "success",
               "args": "{\"value\":\"ask\"}", "preview": "ask"})
    );
}

#[tokio::test]
async fn a_denied_permission_wait_settles_in_the_final_snapshot() {
    let calls = [
        ("Probe", vec![("value", s("a")), ("ms", Value::Int(500))]),
        ("Probe", vec![("value", s("refuse"))]),
    ];
    let (outcome, snapshots) = with_progress(&calls, "d").await;
    assert_eq!(outcome.kind, OutcomeKind::Denied);
    assert!(snapshots.iter().any(|p| p.permission_waits == ["d/2"]));
    let last = snapshots.last().unwrap();
    assert!(!last.live);
    assert_eq!(
        audit_of(&last.calls),
        [
            ("d/1".to_owned(), Status::Cancelled),
            ("d/2".to_owned(), Status::Denied)
        ]
    );
    assert!(last.permission_waits.is_empty() && last.active.is_empty());
}

/// A registry whose `Block` handler blocks its thread for 1.5 s before answering, and whose
/// `Echo` answers its :value at once.
fn blocking_registry() -> Arc<Registry> {
    let mut registry = Registry::new();
    registry
        .register(
            ToolContract::new("Block", "Blocks its thread.", json!({"type": "object"})),
            |_request: ToolRequestCtx| async move {
                std::thread::sleep(Duration::from_millis(1500));
                ToolResult::text("woke")
            },
        )
        .unwrap();
    registry
        .register(
            ToolContract::new("Echo", "Echoes.", schema()),
            |request: ToolRequestCtx| async move {
                ToolResult::text(request.arguments["value"].as_str().unwrap_or("").to_owned())
            },
        )
        .unwrap();
    Arc::new(registry)
}

#[test]
fn a_handler_that_blocks_its_thread_cannot_stop_timeouts_the_deadline_or_cancellation() {
    // A single-threaded runtime: only the handler's own thread may block.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let quick = Duration::from_millis(1000);
        let limits = Limits {
            tool_timeout_ms: Some(100),
            ..Limits::default()
        };
        let runner = Runner::new(blocking_registry()).with_limits(limits);
        let started = std::time::Instant::now();
        let outcome = runner
            .run("(list (Block) (Echo :value \"after\"))", opts("b"))
            .await;
        assert!(started.elapsed() < quick, "{:?}", started.elapsed());
        assert_eq!(
            outcome.text,
            "((:error \"Error: Block timed out after 100 ms\") \"after\")"
        );
        // The whole-envelope bound counts the blocked tool's time.
        let limits = Limits {
            seconds: Some(0.2),
            tool_timeout_ms: None,
            ..Limits::default()
        };
        let runner = Runner::new(blocking_registry()).with_limits(limits);
        let started = std::time::Instant::now();
        let outcome = runner.run("(progn (Block) 1)", opts("s")).await;
        assert!(started.elapsed() < quick, "{:?}", started.elapsed());
        assert_eq!(outcome.kind, OutcomeKind::ScriptError);
        assert_eq!(outcome.error.as_ref().unwrap().kind, "time");
        assert_eq!(outcome.calls[0].status, Status::Cancelled);
        // The host's cancellation fires too.
        let runner = Runner::new(blocking_registry());
        let options = opts("c");
        let trigger = options.cancel_token().clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(50)).await;
            trigger.cancel();
        });
        let started = std::time::Instant::now();
        let outcome = runner.run("(parallel (Block) (Block))", options).await;
        assert!(started.elapsed() < quick, "{:?}", started.elapsed());
        assert_eq!(outcome.kind, OutcomeKind::Interrupted);
        assert_eq!(outcome.calls[1].status, Status::Cancelled);
    });
    // The abandoned threads finish on their own; the test does not wait for them.
    runtime.shutdown_background();
}
