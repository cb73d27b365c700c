//! What an embedder relies on beyond the run loop: cancellation that reaches handlers,
//! typed tools end to end, errors that `?` into `Box<dyn Error>`.

use ptc_runtime::{
    CancelToken, Registry, RunOptions, Runner, ToolContract, ToolRequestCtx, ToolResult,
};
use serde_json::json;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn a_handler_that_selects_on_its_token_sees_the_hosts_cancel() {
    let saw_cancel = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&saw_cancel);
    let mut registry = Registry::new();
    registry
        .register(
            ToolContract::new("Slow", "Waits.", json!({"type": "object"})),
            move |request: ToolRequestCtx| {
                let flag = Arc::clone(&flag);
                async move {
                    tokio::select! {
                        () = request.cancel().cancelled() => {
                            flag.store(true, Ordering::SeqCst);
                            ToolResult::error("stopped")
                        }
                        () = tokio::time::sleep(Duration::from_secs(30)) => ToolResult::text("late"),
                    }
                }
            },
        )
        .unwrap();
    let runner = Runner::new(Arc::new(registry));
    let cancel = CancelToken::new();
    let options = RunOptions::new().cancel(cancel.clone());
    let outcome = runtime().block_on(async {
        let run = runner.run("(list (Slow) 1)", options);
        let stop = async {
            tokio::time::sleep(Duration::from_millis(50)).await;
            cancel.cancel();
        };
        let (outcome, ()) = tokio::join!(run, stop);
        outcome
    });
    assert_eq!(outcome.kind.as_str(), "interrupted");
    assert!(
        saw_cancel.load(Ordering::SeqCst),
        "the handler never saw its token fire"
    );
}

#[test]
fn compile_errors_are_std_errors() -> Result<(), Box<dyn std::error::Error>> {
    let limits = ptc_vm::Limits::default();
    let roster = ptc_compiler::Roster::new();
    let diagnostics = match ptc_compiler::compile("(frob 1)", &roster, &limits) {
        Ok(_) => return Err("frob compiled".into()),
        Err(diagnostics) => ptc_compiler::Diagnostics::new("(frob 1)", diagnostics),
    };
    let error: Box<dyn std::error::Error> = Box::new(diagnostics.clone());
    assert!(error.to_string().contains("frob"), "{error}");
    assert!(diagnostics.render("expression").contains("1 │ (frob 1)"));
    Ok(())
}

#[test]
fn a_dropped_run_settles_its_journal_record_as_interrupted() {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(ptc_runtime::FileJournal::open(dir.path()).unwrap());
    let mut registry = Registry::new();
    registry
        .register(
            ToolContract::new("Hang", "Never answers.", json!({"type": "object"})),
            |_request: ToolRequestCtx| std::future::pending::<ToolResult>(),
        )
        .unwrap();
    let runner = Runner::new(Arc::new(registry)).with_journal(store.clone());
    let options = RunOptions::new().id("dropped");
    runtime().block_on(async {
        let run = runner.run("(list (Hang))", options);
        // The host gives up on the run by dropping its future.
        let _ = tokio::time::timeout(Duration::from_millis(50), run).await;
    });
    let record = store.read_now("dropped").unwrap();
    assert_eq!(record.state, ptc_runtime::core::JournalState::Interrupted);
    assert_eq!(record.outcome.as_deref(), Some("interrupted"));
    // The run no longer owns its record: another process would not see it as live.
    assert!(store.recover_now().unwrap().is_empty());
}
