//! The embedding API of issue 17: compile once and run many with inputs, typed error
//! kinds, per-run data, limits, policy and tool filters, and the unchanged JSON object.

use ptc_runtime::core::Budget;
use ptc_runtime::{
    Decision, ErrorKind, Limits, OutcomeKind, Registry, RunData, RunOptions, Runner, ToolContract,
    ToolFilter, ToolRequestCtx, ToolResult,
};
use serde_json::json;
use std::sync::Arc;

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

struct User(String);

fn registry() -> Registry {
    let mut registry = Registry::new();
    let schema = json!({"type": "object", "properties": {"city": {"type": "string"}},
                        "required": ["city"]});
    registry
        .register(
            ToolContract::new("Weather", "Gives the weather.", schema),
            |request: ToolRequestCtx| async move {
                let temp = match request.arguments["city"].as_str() {
                    Some("Rome") => 24,
                    Some("Oslo") => 11,
                    _ => 0,
                };
                ToolResult::json(json!({"temp": temp}))
            },
        )
        .unwrap();
    registry
        .register(
            ToolContract::new("Whoami", "Names the user.", json!({"type": "object"})),
            |request: ToolRequestCtx| async move {
                ToolResult::text(request.data::<User>().map_or("nobody", |u| u.0.as_str()))
            },
        )
        .unwrap();
    registry
}

#[test]
fn one_script_runs_on_two_threads_with_different_inputs() {
    let runner = Runner::new(Arc::new(registry()));
    let script = runner
        .compile(
            "(list city (plist-get (Weather :city city) :temp) (length extra))",
            &["city", "extra"],
            None,
        )
        .unwrap();
    assert_eq!(script.inputs(), ["city", "extra"]);
    let threads: Vec<_> = [("Rome", 24), ("Oslo", 11)]
        .into_iter()
        .map(|(city, temp)| {
            let (runner, script) = (runner.clone(), script.clone());
            std::thread::spawn(move || {
                let options = RunOptions::new()
                    .inputs(&json!({"city": city, "extra": [1, 2, 3]}))
                    .unwrap();
                let outcome = runtime().block_on(runner.run(&script, options));
                assert_eq!(outcome.text, format!("(\"{city}\" {temp} 3)"));
            })
        })
        .collect();
    for thread in threads {
        thread.join().unwrap();
    }
}

#[test]
fn inputs_are_checked_converted_and_charged() {
    let runner = Runner::new(Arc::new(registry()));
    let script = runner.compile("(list n)", &["n"], None).unwrap();
    let rt = runtime();
    // Undeclared name.
    let options = RunOptions::new().inputs(&json!({"m": 1})).unwrap();
    let outcome = rt.block_on(runner.run(&script, options));
    let error = outcome.error.unwrap();
    assert_eq!(error.kind, ErrorKind::Input);
    assert_eq!(
        error.message,
        "Input `m' is not declared by the script (declared: n)"
    );
    // Missing input: nil.
    let outcome = rt.block_on(runner.run(&script, RunOptions::new()));
    assert_eq!(outcome.text, "(nil)");
    // Over the value budget: kind input, nothing runs.
    let small = Runner::new(Arc::new(registry())).with_limits(Limits {
        value_bytes: 1_000,
        ..Limits::default()
    });
    let script = small.compile("(length n)", &["n"], None).unwrap();
    let options = RunOptions::new()
        .inputs(&json!({"n": "x".repeat(5_000)}))
        .unwrap();
    let outcome = rt.block_on(small.run(&script, options));
    assert_eq!(outcome.error.unwrap().kind, ErrorKind::Input);
    assert_eq!(outcome.stats.fuel_used, 0);
    // Not an object.
    assert!(RunOptions::new().inputs(&json!([1])).is_err());
    // Plain `run` declares the keys as inputs; assigning one is E0904.
    let options = RunOptions::new().inputs(&json!({"a": 2})).unwrap();
    let outcome = rt.block_on(runner.run("(* a 21)", options.clone()));
    assert_eq!(outcome.text, "42");
    let outcome = rt.block_on(runner.run("(setq a 1)", options));
    match outcome.error.unwrap().kind {
        ErrorKind::Compile { code, .. } => assert_eq!(code.as_deref(), Some("E0904")),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_script_compiled_for_other_tools_is_refused_by_kind() {
    let runner = Runner::new(Arc::new(registry()));
    let script = runner.compile("(Whoami)", &[], None).unwrap();
    let other = Runner::new(Arc::new(Registry::new()));
    let outcome = runtime().block_on(other.run(&script, RunOptions::new()));
    assert_eq!(outcome.kind, OutcomeKind::ScriptError);
    assert_eq!(outcome.error.unwrap().kind, ErrorKind::Roster);
    // An equal registry built again is the same roster.
    let again = Runner::new(Arc::new(registry()));
    let outcome = runtime().block_on(again.run(&script, RunOptions::new()));
    assert_eq!(outcome.text, "nobody");
    // A filtered run needs a script compiled for the same filter.
    let filter = ToolFilter::allow(["Who*"]).unwrap();
    let options = RunOptions::new().tools(filter.clone());
    let outcome = runtime().block_on(runner.run(&script, options.clone()));
    assert_eq!(outcome.error.unwrap().kind, ErrorKind::Roster);
    let filtered = runner.compile("(Whoami)", &[], Some(&filter)).unwrap();
    let outcome = runtime().block_on(runner.run(&filtered, options));
    assert_eq!(outcome.text, "nobody");
}

#[test]
fn a_filtered_run_sees_only_its_tools() {
    let runner = Runner::new(Arc::new(registry()));
    let options = RunOptions::new().tools(ToolFilter::allow(["Whoami"]).unwrap());
    let listing = runner.listing(&options);
    assert!(listing.contains("(Whoami)"), "{listing}");
    assert!(!listing.contains("Weather"), "{listing}");
    assert!(runner.listing(&RunOptions::new()).contains("Weather"));
    let outcome = runtime().block_on(runner.run("(Weather :city \"Rome\")", options));
    let error = outcome.error.unwrap();
    assert!(
        matches!(&error.kind, ErrorKind::Compile { code: Some(code), .. } if code == "E0301"),
        "{error:?}"
    );
    let none = RunOptions::new().tools(ToolFilter::allow(["Nothing*"]).unwrap());
    assert_eq!(runner.listing(&none), "No tools are available.");
}

#[test]
fn per_run_data_limits_and_policy() {
    let runner = Runner::new(Arc::new(registry()));
    let rt = runtime();
    let options = RunOptions::new().data(RunData::new().with(User("ada".into())));
    assert_eq!(rt.block_on(runner.run("(Whoami)", options)).text, "ada");
    // Limits tighten.
    let options = RunOptions::new().limits(Limits {
        steps: 500,
        ..Limits::default()
    });
    let outcome = rt.block_on(runner.run("(while t)", options));
    assert_eq!(outcome.error.unwrap().kind, ErrorKind::Budget(Budget::Step));
    assert!(outcome.stats.fuel_used <= 500 + 100, "{:?}", outcome.stats);
    // A looser per-run limit does not loosen the runner's.
    let tight = Runner::new(Arc::new(registry())).with_limits(Limits {
        steps: 300,
        ..Limits::default()
    });
    let options = RunOptions::new().limits(Limits {
        steps: 1_000_000,
        ..Limits::default()
    });
    let outcome = rt.block_on(tight.run("(while t)", options));
    assert!(outcome.stats.fuel_used <= 400, "{:?}", outcome.stats);
    // A per-run policy is asked after the runner's and sees the run's data.
    let policy = |request: &ToolRequestCtx| match request.data::<User>() {
        Some(user) if user.0 == "eve" => Decision::Deny("eve may not ask".into()),
        _ => Decision::Allow,
    };
    let options = RunOptions::new()
        .data(RunData::new().with(User("eve".into())))
        .policy(Arc::new(policy));
    let outcome = rt.block_on(runner.run("(Whoami)", options));
    assert_eq!(outcome.kind, OutcomeKind::Denied);
    let error = outcome.error.unwrap();
    assert_eq!(error.kind, ErrorKind::Denied);
    assert!(error.message.contains("eve may not ask"), "{error:?}");
}

fn host() -> Result<(), Box<dyn std::error::Error>> {
    let runner = Runner::new(Arc::new(registry()));
    let script = runner.compile("(car 1)", &[], None)?;
    let outcome = runtime().block_on(runner.run(&script, RunOptions::new()));
    outcome.into_result()?;
    Ok(())
}

#[test]
fn error_kinds_keep_the_json_wire_names() {
    let runner = Runner::new(Arc::new(registry()));
    let rt = runtime();
    let cases = [
        ("(while t)", "step"),
        ("(car 1)", "script"),
        ("(Nope)", "preflight"),
        ("(", "script"),
    ];
    for (script, kind) in cases {
        let outcome = rt.block_on(runner.run(script, RunOptions::new()));
        let json = outcome.to_json();
        assert_eq!(json["error"]["kind"], kind, "{script}");
        assert_eq!(
            json["error"]
                .as_object()
                .unwrap()
                .keys()
                .collect::<Vec<_>>(),
            ["kind", "message"]
        );
        let back: ptc_runtime::Outcome = serde_json::from_value(json).unwrap();
        assert_eq!(back.error.unwrap().kind.to_string(), kind);
    }
    // `?` works on every error of the API.
    let error = host().unwrap_err();
    assert_eq!(error.to_string(), "script: Wrong type argument: listp, 1");
}

#[test]
fn an_oversized_direct_result_reports_its_size_not_its_output() {
    let mut registry = Registry::new();
    registry
        .register(
            ToolContract::new("Dump", "Prints a lot.", json!({"type": "object"})),
            |_request: ToolRequestCtx| async move { ToolResult::text("x".repeat(17_000_000)) },
        )
        .unwrap();
    let runner = Runner::new(Arc::new(registry));
    let outcome = runtime().block_on(runner.run("(Dump)", RunOptions::new()));
    assert_eq!(outcome.kind, OutcomeKind::ToolError);
    assert!(outcome.direct_result.is_none());
    let error = outcome.error.unwrap();
    assert_eq!(error.kind, ErrorKind::ToolError);
    assert_eq!(
        error.message,
        "nested tool result rejected: the result (17000000 bytes, 1 nodes) exceeds the value \
         budget of 16777216 bytes or 524288 nodes"
    );
    assert_eq!(outcome.text, format!("Error: {}", error.message));
}

#[test]
fn the_json_object_of_a_failed_run_is_the_one_ptc_run_prints() {
    let runner = Runner::new(Arc::new(registry()));
    let outcome = runtime().block_on(runner.run(
        "(list (Weather :city \"Rome\") (car 1))",
        RunOptions::new().id("g"),
    ));
    let mut json = outcome.to_json();
    json["stats"]["elapsed_ms"] = json!(0);
    assert_eq!(
        json,
        json!({
            "id": "g",
            "outcome": "script-error",
            "text": "Error: Wrong type argument: listp, 1",
            "value": null,
            "error": {"kind": "script", "message": "Wrong type argument: listp, 1"},
            "direct": null,
            "calls": [{"id": "g/1", "order": 1, "tool": "Weather", "args": {"city": "Rome"},
                       "status": "success", "preview": "{\"temp\":24}"}],
            "notes": [],
            "stats": {"fuel_used": json["stats"]["fuel_used"], "tool_calls": 1, "elapsed_ms": 0}
        })
    );
}
