//! An agent host written from the crate docs alone (issue 17): three async typed tools, a
//! composed parallel script with progress and a journal, a denying policy, cancellation
//! from another task, one compiled script run on two threads with inputs, and the sans-IO
//! stepping loop. Every error is `?`-ed; no handler touches raw JSON.
//!
//! `cargo run -p ptc-runtime --example agent_host` prints what it did; `cargo test -p
//! ptc-runtime --example agent_host` runs it and checks every line.

use ptc_runtime::core::envelope::{Envelope, EnvelopeConfig, Event};
use ptc_runtime::core::{JournalState, JournalStore, Progress};
use ptc_runtime::{
    CancelToken, Decision, ErrorKind, FileJournal, Limits, Registry, RunData, RunOptions, Runner,
    ToolRequestCtx, ToolResult,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::error::Error;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The weather tool's arguments.
#[derive(Deserialize, JsonSchema)]
struct WeatherArgs {
    /// The city.
    city: String,
}

/// What the weather tool answers.
#[derive(Serialize)]
struct Weather {
    city: String,
    temp: i64,
}

/// The search tool's arguments.
#[derive(Deserialize, JsonSchema)]
struct SearchArgs {
    /// What to look for.
    query: String,
    /// At most this many hits.
    limit: Option<usize>,
}

/// The mail tool's arguments.
#[derive(Deserialize, JsonSchema)]
struct SendArgs {
    /// The recipient.
    to: String,
    /// The message.
    body: String,
}

/// Who the run is for: host data every handler and policy of the run can read.
struct Session {
    user: String,
}

fn temperature(city: &str) -> Result<i64, String> {
    match city {
        "Rome" => Ok(24),
        "Oslo" => Ok(11),
        "Lima" => Ok(19),
        other => Err(format!("no station in {other}")),
    }
}

fn tools() -> Result<Registry, Box<dyn Error>> {
    let mut registry = Registry::new();
    registry.register_typed(
        "Weather",
        "Gives a city's temperature in degrees Celsius.",
        |args: WeatherArgs, request: ToolRequestCtx| async move {
            if args.city == "Atlantis" {
                // A station that never answers: only the run's cancellation stops it.
                tokio::select! {
                    () = request.cancel().cancelled() => return Err("cancelled".to_owned()),
                    () = tokio::time::sleep(Duration::from_secs(60)) => {}
                }
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
            let temp = temperature(&args.city)?;
            Ok(Weather {
                city: args.city,
                temp,
            })
        },
    )?;
    registry.register_typed(
        "Search",
        "Searches the notes; gives the matching titles.",
        |args: SearchArgs, _request: ToolRequestCtx| async move {
            let titles = ["ptc in production", "ptc budgets", "tokio notes"];
            let hits: Vec<&str> = titles
                .into_iter()
                .filter(|title| title.contains(&args.query))
                .take(args.limit.unwrap_or(10))
                .collect();
            Ok::<_, String>(hits)
        },
    )?;
    registry.register_typed(
        "Send",
        "Sends a message.",
        |args: SendArgs, request: ToolRequestCtx| async move {
            let from = request
                .data::<Session>()
                .map_or("nobody", |s| s.user.as_str());
            Ok::<_, String>(format!("{from} -> {}: {} bytes", args.to, args.body.len()))
        },
    )?;
    Ok(registry)
}

/// Mail leaves only for the host's own domain.
struct MailPolicy;

impl ptc_runtime::PermissionPolicy for MailPolicy {
    fn check(&self, request: &ToolRequestCtx) -> ptc_runtime::BoxFuture<Decision> {
        let outside = &*request.tool == "Send"
            && !request.arguments["to"]
                .as_str()
                .is_some_and(|to| to.ends_with("@example.com"));
        Box::pin(async move {
            if outside {
                Decision::Deny("mail may only go to example.com".to_owned())
            } else {
                Decision::Allow
            }
        })
    }
}

/// Runs every part of the host and returns what it would print.
fn run() -> Result<Vec<String>, Box<dyn Error>> {
    let mut out = Vec::new();
    let registry = Arc::new(tools()?);
    let journal_dir = tempfile::tempdir()?;
    let journal = Arc::new(FileJournal::open(journal_dir.path())?);
    let recovered = journal.recover_now()?;
    out.push(format!("recovered {} interrupted runs", recovered.len()));
    let runner = Runner::new(registry.clone())
        .with_policy(Arc::new(MailPolicy))
        .with_journal(journal.clone());
    let rt = tokio::runtime::Runtime::new()?;

    // 1. A composed parallel script, with progress and a journal record.
    let snapshots: Arc<Mutex<Vec<Progress>>> = Arc::default();
    let sink = {
        let snapshots = snapshots.clone();
        move |snapshot: &Progress| {
            if let Ok(mut all) = snapshots.lock() {
                all.push(snapshot.clone());
            }
        }
    };
    let script = r#"
        (let ((readings (parallel (Weather :city "Rome") (Weather :city "Oslo")
                                  (Weather :city "Lima"))))
          (list (apply #'max (mapcar (lambda (r) (plist-get r :temp)) readings))
                (length (Search :query "ptc"))))"#;
    let options = RunOptions::new().id("toolu_1").progress(Arc::new(sink));
    let outcome = rt.block_on(runner.run(script, options)).into_result()?;
    out.push(format!(
        "parallel: {} after {} calls",
        outcome.text,
        outcome.calls.len()
    ));
    let last = snapshots
        .lock()
        .map_err(|_| "progress lock poisoned")?
        .last()
        .cloned()
        .ok_or("no progress snapshot")?;
    let timed = last
        .calls
        .iter()
        .all(|c| c.started_ms.is_some() && c.finished_ms >= c.started_ms);
    out.push(format!(
        "progress: {}/{} done, live {}, every call timed {timed}, first args {}",
        last.completed,
        last.total,
        last.live,
        last.calls[0].args.as_deref().unwrap_or("-")
    ));
    let record = rt.block_on(journal.read("toolu_1"))?;
    out.push(format!(
        "journal: {} {:?}",
        record.id,
        record.state == JournalState::Settled
    ));

    // 2. The policy denies mail outside the domain; the whole script stops.
    let data = RunData::new().with(Session {
        user: "ada".to_owned(),
    });
    let outcome = rt.block_on(runner.run(
        r#"(list (Send :to "bob@example.com" :body "hi") (Send :to "eve@evil.test" :body "x"))"#,
        RunOptions::new().data(data.clone()),
    ));
    let error = outcome.error.clone().ok_or("the run was not denied")?;
    out.push(format!(
        "denied: {} ({}; first call {})",
        error.kind == ErrorKind::Denied,
        error.message.lines().next().unwrap_or_default(),
        outcome.calls[0].preview.as_deref().unwrap_or_default()
    ));

    // 3. Cancellation from another task reaches the handler.
    let token = CancelToken::new();
    let stopper = token.clone();
    let started = Instant::now();
    let outcome = rt.block_on(async {
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(30)).await;
            stopper.cancel();
        });
        runner
            .run(
                r#"(Weather :city "Atlantis")"#,
                RunOptions::new().cancel(token),
            )
            .await
    });
    let error = outcome.error.ok_or("the run was not interrupted")?;
    out.push(format!(
        "cancelled: {} in under 5 s: {}",
        error.kind,
        started.elapsed() < Duration::from_secs(5)
    ));

    // 4. Compile once; run on two threads with different inputs.
    let compiled = runner.compile("(plist-get (Weather :city city) :temp)", &["city"], None)?;
    let temps = std::thread::scope(|scope| -> Result<Vec<String>, String> {
        let handles: Vec<_> = ["Rome", "Oslo"]
            .into_iter()
            .map(|city| {
                let (runner, compiled, handle) =
                    (runner.clone(), compiled.clone(), rt.handle().clone());
                scope.spawn(move || -> Result<String, String> {
                    let options = RunOptions::new()
                        .inputs(&serde_json::json!({ "city": city }))
                        .map_err(|e| e.to_string())?;
                    let outcome = handle
                        .block_on(runner.run(&compiled, options))
                        .into_result()
                        .map_err(|e| e.to_string())?;
                    Ok(format!("{city} {}", outcome.text))
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().map_err(|_| "thread panicked".to_owned())?)
            .collect()
    })?;
    out.push(format!("compiled once: {}", temps.join(", ")));

    // 5. The sans-IO stepping loop: no executor, the host answers each call itself. The
    //    envelope reads no clock: the host gives it durations on its own clock.
    let clock = Instant::now();
    let config = EnvelopeConfig::new(Arc::clone(registry.catalog()), Limits::default(), "toolu_9");
    let mut envelope = Envelope::compile(
        config,
        r#"(mapcar (lambda (w) (plist-get w :temp))
                  (parallel (Weather :city "Rome") (Weather :city "Lima")))"#,
        clock.elapsed(),
    );
    let mut answered = 0;
    let outcome = loop {
        match envelope.poll(clock.elapsed()) {
            Event::Permission(calls) => {
                for call in calls {
                    envelope.allow(&call.id)?;
                }
            }
            Event::Dispatch(calls) => {
                for call in calls {
                    let city = call.arguments["city"].as_str().unwrap_or_default();
                    let result: ToolResult = temperature(city)
                        .map(|temp| Weather {
                            city: city.to_owned(),
                            temp,
                        })
                        .into();
                    envelope.complete(clock.elapsed(), &call.id, result)?;
                    answered += 1;
                }
            }
            Event::Journal(_) => envelope.journal_written(true)?,
            Event::Settled(outcome) => break outcome,
            // Cancel, Pause, Waiting and events added later: nothing is pending here.
            _ => {}
        }
    };
    out.push(format!("stepped: {} with {answered} answers", outcome.text));
    Ok(out)
}

fn main() -> Result<(), Box<dyn Error>> {
    for line in run()? {
        println!("{line}");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_host_does_what_the_docs_say() {
        let lines = super::run().unwrap();
        assert_eq!(
            lines,
            [
                "recovered 0 interrupted runs",
                "parallel: (24 2) after 4 calls",
                "progress: 4/4 done, live false, every call timed true, first args \
                 {\"city\":\"Rome\"}",
                "journal: toolu_1 true",
                "denied: true (script aborted because nested Send was denied: mail may only \
                 go to example.com; first call \"ada -> bob@example.com: 2 bytes\")",
                "cancelled: interrupted in under 5 s: true",
                "compiled once: Rome 24, Oslo 11",
                "stepped: (24 19) with 2 answers",
            ]
        );
    }
}
