//! Tools that answer at once (`Registry::register_sync`, `ToolHandler::call_now`) with
//! structured-only results (`ToolResult::structured`): a run of them settles exactly as a
//! run of the same tools written as async handlers returning `ToolResult::json` (the
//! value, the text, every audit record with its preview), under both isolations, with
//! panics contained, a permission round, a direct call and long or non-ASCII results; a
//! call's cancellation token still behaves; and a long run of such calls still yields to
//! other tasks.

use ptc_runtime::core::Status;
use ptc_runtime::{
    Decision, Isolation, Outcome, Registry, RunOptions, Runner, ToolContract, ToolRequestCtx,
    ToolResult,
};
use serde_json::{Value as Json, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// What `Get` answers for `id`: short, long (past the audit preview) and non-ASCII JSON.
fn answer(id: &Json) -> Json {
    match id.as_i64() {
        Some(2) => json!({"id": 2, "text": "x".repeat(300)}),
        Some(3) => json!({"id": 3, "text": "é\"\n".repeat(120)}),
        _ => json!({"id": id, "total": 12.5}),
    }
}

fn contracts() -> [ToolContract; 3] {
    let by_id = json!({"type": "object", "properties": {"id": {"type": "integer"}},
                       "required": ["id"]});
    [
        ToolContract::new("Get", "A record by id.", by_id),
        ToolContract::new("Boom", "Panics.", json!({"type": "object"})),
        ToolContract::new("Token", "Asks for its token.", json!({"type": "object"})),
    ]
}

/// Whether a call's token was cancelled when its handler asked, as a result.
fn token_result(request: &ToolRequestCtx) -> ToolResult {
    let clone = request.clone();
    // A clone sees the same token, and cancelling it is the call's own business.
    let same = !request.cancel().is_cancelled() && !clone.cancel().is_cancelled();
    ToolResult::structured(json!({"fresh": same}))
}

/// The tools as synchronous handlers with structured-only results.
fn sync_registry() -> Arc<Registry> {
    let mut registry = Registry::new();
    let [get, boom, token] = contracts();
    registry
        .register_sync(get, |request| {
            ToolResult::structured(answer(&request.arguments["id"]))
        })
        .unwrap();
    registry
        .register_sync(boom, |_request| panic!("boom"))
        .unwrap();
    registry
        .register_sync(token, |request| token_result(&request))
        .unwrap();
    Arc::new(registry)
}

/// The same tools as async handlers with `ToolResult::json` (text block included).
fn async_registry() -> Arc<Registry> {
    let mut registry = Registry::new();
    let [get, boom, token] = contracts();
    registry
        .register(get, |request: ToolRequestCtx| async move {
            ToolResult::json(answer(&request.arguments["id"]))
        })
        .unwrap();
    registry
        .register(boom, |_request: ToolRequestCtx| async move {
            panic!("boom");
        })
        .unwrap();
    registry
        .register(token, |request: ToolRequestCtx| async move {
            let result = token_result(&request);
            ToolResult::json(result.structured.unwrap_or_default())
        })
        .unwrap();
    Arc::new(registry)
}

const SCRIPT: &str = r#"(let* ((a (Get :id 1))
         (b (parallel (Get :id 2) (Get :id 3) (Get :id (format "x")) (Token))))
    (list (plist-get a :total) (length b) (Boom) (Get :id 4)))"#;

fn run(registry: Arc<Registry>, isolation: Isolation, script: &str, ask: bool) -> Outcome {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let runner = Runner::new(registry).with_isolation(isolation);
    let mut options = RunOptions::new().id("s");
    if ask {
        options = options.policy(Arc::new(|_request: &ToolRequestCtx| Decision::Allow));
    }
    runtime.block_on(runner.run(script, options))
}

/// What a host reads of an outcome, without the timings.
fn seen(outcome: &Outcome) -> (String, Option<Json>, String, Vec<Json>) {
    let calls = outcome
        .calls
        .iter()
        .map(|record| serde_json::to_value(record).unwrap())
        .collect();
    (
        outcome.text.clone(),
        outcome.value.as_deref().cloned(),
        format!("{:?}", outcome.kind),
        calls,
    )
}

#[test]
fn sync_structured_tools_settle_as_async_json_tools_do() {
    for isolation in [Isolation::Inline, Isolation::Thread] {
        for ask in [false, true] {
            let sync = run(sync_registry(), isolation, SCRIPT, ask);
            let plain = run(async_registry(), isolation, SCRIPT, ask);
            assert_eq!(seen(&sync), seen(&plain), "{isolation:?}, asking {ask}");
            assert_eq!(
                sync.text,
                "(12.5 4 (:error \"Error: Boom failed: the tool crashed (details are in the host's log)\") (:id 4 :total 12.5))"
            );
            let statuses: Vec<Status> = sync.calls.iter().map(|c| c.status).collect();
            assert_eq!(
                statuses,
                [
                    Status::Success,
                    Status::Success,
                    Status::Success,
                    Status::Error,
                    Status::Success,
                    Status::Error,
                    Status::Success
                ]
            );
            // The long results' previews are cut where the text blocks' would be.
            let long = sync.calls[1].preview.as_deref().unwrap();
            assert_eq!(long.chars().count(), 203, "{long}");
            assert!(long.starts_with(r#"{"id":2,"text":"xxx"#), "{long}");
            assert!(sync.calls[2].preview.as_deref().unwrap().ends_with("..."));
            assert_eq!(
                sync.calls[4].preview.as_deref(),
                Some(r#"{"fresh":true}"#),
                "{isolation:?}"
            );
            assert_eq!(
                sync.calls[5].preview.as_deref(),
                Some("Error: Boom failed: the tool crashed (details are in the host's log)")
            );
        }
    }
}

#[test]
fn a_direct_structured_call_reads_as_its_json_text() {
    for isolation in [Isolation::Inline, Isolation::Thread] {
        let sync = run(sync_registry(), isolation, "(Get :id 7)", false);
        let plain = run(async_registry(), isolation, "(Get :id 7)", false);
        assert_eq!(seen(&sync), seen(&plain));
        assert_eq!(sync.text, r#"{"id":7,"total":12.5}"#);
        // The one difference a host sees: the direct result has no content blocks.
        let direct = sync.direct_result.as_deref().unwrap();
        assert!(direct.content.is_empty());
        assert_eq!(direct.joined_text(), sync.text);
        assert_eq!(
            plain.direct_result.as_deref().unwrap().content.len(),
            1,
            "a json result keeps its text block"
        );
    }
}

#[test]
fn a_long_run_of_calls_answered_at_once_yields_to_other_tasks() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let flag = Arc::new(AtomicBool::new(false));
        let reader = flag.clone();
        let mut registry = Registry::new();
        registry
            .register_sync(
                ToolContract::new("Flag", "Reports the flag.", json!({"type": "object"})),
                move |_request| ToolResult::text(reader.load(Ordering::SeqCst).to_string()),
            )
            .unwrap();
        let runner = Runner::new(Arc::new(registry)).with_isolation(Isolation::Inline);
        let setter = flag.clone();
        tokio::spawn(async move { setter.store(true, Ordering::SeqCst) });
        // Every call answers at its dispatch: only the cooperative budget (one unit per
        // answer) lets the spawned task run before the last call.
        let script = r#"(let ((seen nil)) (dotimes (i 190) (push (Flag) seen)) (car seen))"#;
        let outcome = runner.run(script, RunOptions::new()).await;
        assert_eq!(outcome.text, "true", "{:?}", outcome.error);
        assert_eq!(outcome.calls.len(), 190);
    });
}
