//! `ptc`: check, run and describe ToolCall scripts from a shell.
//!
//! `ptc run [FILE | -e EXPR]` runs a script against the built-in read-only workspace tools
//! (Read, Glob, Grep, confined to `--root`) and any `--stub` tools, printing what the model
//! would see (`--format text`: the result, then any child notes in a `Notes:` block) or one
//! JSON object (`--format json`, notes in `notes`). `ptc check [FILE | -e EXPR]` runs
//! the static pipeline only and prints every diagnostic with carets. `ptc describe` prints
//! the ToolCall description and the tool listing. `ptc serve` speaks JSON-RPC over JSON
//! lines ([`ptc_cli::serve`]). `ptc mcp` hands over to the `ptc-mcp` binary ([`mcp`]).
//! Durable runs (spec/reference/durable-runs.md): `ptc run --record FILE [--pause TOOL]`
//! writes the run's journal, pausing calls of TOOL for a person; `ptc resume FILE --allow
//! ID --deny ID=REASON` continues it; `ptc replay FILE` re-runs it offline from the journal
//! and says whether it settles as recorded (exit 0) or not (exit 1).
//!
//! Ctrl-C during `ptc run` settles the run as `interrupted`, with its audit, within 50 ms.
//!
//! Exit status: 0 when the script completed (or was accepted by `check`), 1 for any other
//! outcome, 2 for usage errors, 141 when stdout is a closed pipe (`ptc run ... | head -c1`:
//! 128 + SIGPIPE, what a shell shows for a program that signal ended; nothing is printed).
//! Results go to stdout; logs and diagnostics to stderr. No output path panics: stdout goes
//! through [`emit`], stderr through [`log_line!`], which drops a line it cannot write.

// `unsafe` is denied crate-wide and forbidden in every module but `start`, the process
// entry on Linux with glibc, which skips std's start-up (see its module doc).
#![deny(unsafe_code)]
#![cfg_attr(all(target_os = "linux", target_env = "gnu", not(test)), no_main)]

#[macro_use]
extern crate ptc_cli;

#[forbid(unsafe_code)]
mod mcp;
#[cfg(all(target_os = "linux", target_env = "gnu", not(test)))]
mod start;
#[forbid(unsafe_code)]
mod stub;

use ptc_cli::builtin;

use clap::{Args, Parser, Subcommand, ValueEnum};
use ptc_runtime::core::{Approval, RunJournal};
use ptc_runtime::core::{Progress, listing};
use ptc_runtime::{FileJournal, Registry, RunOptions, Runner, Source};
use ptc_vm::Limits;
use serde_json::json;
use std::io::{IsTerminal as _, Read as _};

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

#[derive(Debug, Parser)]
#[command(
    name = "ptc",
    version,
    about = "Check, run and describe ptc ToolCall scripts"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

// `defer`: a subcommand's arguments are built only when that subcommand is parsed (or its
// help shown), so `ptc run` does not build the options of the other four.
#[derive(Debug, Subcommand)]
#[command(defer = true)]
enum Command {
    /// Run a script (FILE, `-` for standard input, or -e EXPR).
    Run(RunArgs),
    /// Run the static pipeline only and print every diagnostic (FILE, `-` or -e EXPR).
    Check(CheckArgs),
    /// Print the ToolCall description and the tool listing for the configured roster.
    Describe(DescribeArgs),
    /// Serve MCP: ToolCall and ToolSearch over the tools of the configured MCP servers.
    Mcp(ptc_cli::mcp_args::McpArgs),
    /// Serve JSON-RPC 2.0 over JSON lines on stdin/stdout (spec/reference/protocol.md).
    Serve(ptc_cli::serve::ServeArgs),
    /// Resume a paused (or interrupted) run from its journal, deciding its pending calls.
    Resume(ResumeArgs),
    /// Re-run a recorded run offline from its journal (no tool runs): exit 0 when it
    /// settles as recorded, 1 with the difference or the first divergence otherwise.
    Replay(ReplayArgs),
}

// `ptc resume`'s arguments.
#[derive(Debug, Args)]
struct ResumeArgs {
    /// The journal `ptc run --record` wrote.
    #[arg(value_name = "JOURNAL")]
    file: PathBuf,
    /// Allow the pending call ID (`all` allows every pending call; repeatable).
    #[arg(long = "allow", value_name = "ID")]
    allow: Vec<String>,
    /// Deny the pending call ID with REASON, which the model reads (repeatable).
    #[arg(long = "deny", value_name = "ID=REASON")]
    deny: Vec<String>,
    #[command(flatten)]
    durable: Durable,
    #[command(flatten)]
    common: Common,
}

// `ptc replay`'s arguments.
#[derive(Debug, Args)]
struct ReplayArgs {
    /// The journal `ptc run --record` (or `ptc resume --record`) wrote.
    #[arg(value_name = "JOURNAL")]
    file: PathBuf,
    #[command(flatten)]
    common: Common,
}

#[derive(Debug, Args, Default)]
struct Durable {
    /// Record the run's journal into FILE when it settles (JSON; every tool result is in
    /// it), for `ptc resume` and `ptc replay`.
    #[arg(long, value_name = "FILE")]
    record: Option<PathBuf>,
    /// Pause every call of TOOL for a person (needs --record; repeatable).
    #[arg(long = "pause", value_name = "TOOL", requires = "record")]
    pause: Vec<String>,
}

// `ptc run`'s arguments (no doc comment: the variant's is the subcommand's about).
#[derive(Debug, Args)]
struct RunArgs {
    /// The script file; `-` reads standard input.
    #[arg(conflicts_with = "expression", required_unless_present = "expression")]
    file: Option<String>,
    /// The script text.
    #[arg(short = 'e', long = "expression", value_name = "EXPR")]
    expression: Option<std::ffi::OsString>,
    /// The envelope id (the host's tool-use id); default: a fresh `ptc-TAG-N`, unique
    /// across processes.
    #[arg(long, value_name = "ID")]
    id: Option<String>,
    #[command(flatten)]
    durable: Durable,
    #[command(flatten)]
    common: Common,
}

// `ptc check`'s arguments.
#[derive(Debug, Args)]
struct CheckArgs {
    /// The script file; `-` reads standard input.
    #[arg(conflicts_with = "expression", required_unless_present = "expression")]
    file: Option<String>,
    /// The script text.
    #[arg(short = 'e', long = "expression", value_name = "EXPR")]
    expression: Option<std::ffi::OsString>,
    #[command(flatten)]
    common: Common,
}

// `ptc describe`'s arguments.
#[derive(Debug, Args)]
struct DescribeArgs {
    #[command(flatten)]
    common: Common,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    /// What the model would see.
    Text,
    /// One JSON object.
    Json,
}

#[derive(Debug, Args)]
struct Common {
    /// Set a budget, e.g. `steps=1000` or `tool-timeout-ms=500` (repeatable).
    #[arg(long = "limit", value_name = "KEY=VALUE")]
    limits: Vec<String>,
    /// Add a stub tool: NAME[=name|arg:KEY|args|text:TEXT|json:JSON|error:MESSAGE|deny:REASON|sleep:MS|panic:MESSAGE|hang|note:TEXT] (repeatable).
    #[arg(long = "stub", value_name = "NAME[=BEHAVIOUR]")]
    stubs: Vec<String>,
    /// Mark a tool standalone-only (repeatable).
    #[arg(long = "standalone", value_name = "NAME")]
    standalone: Vec<String>,
    /// Leave out the built-in Read, Glob and Grep tools.
    #[arg(long)]
    no_builtin_tools: bool,
    /// The directory the built-in tools are confined to (default: the current directory).
    #[arg(long, value_name = "DIR")]
    root: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
    /// Keep a durable journal of envelope records in DIR (recovering interrupted ones first).
    #[arg(long, value_name = "DIR")]
    journal: Option<PathBuf>,
}

/// A usage error: printed on stderr, exit status 2.
struct Usage(String);

/// Set by SIGINT (Ctrl-C) during `ptc run`; the run's interrupt watcher polls it.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// How often a running `ptc run` looks at [`INTERRUPTED`]: Ctrl-C settles the run as
/// `interrupted` within this long.
const INTERRUPT_POLL: std::time::Duration = std::time::Duration::from_millis(50);

/// The process entry, after std's start-up, on every target but `*-linux-gnu` (and in test
/// builds); on `*-linux-gnu` the entry is `start`'s C `main`.
#[cfg(not(all(target_os = "linux", target_env = "gnu", not(test))))]
fn main() -> std::process::ExitCode {
    std::process::ExitCode::from(cli_main())
}

/// The CLI, on the main thread. (Running it on a spawned thread, whose stack bounds glibc
/// knows without parsing `/proc/self/maps` for the compiler's stack guard, saves about 50 k
/// instructions but costs more in the kernel, creating the thread, its stack and its malloc
/// arena: a trivial static-PIE `ptc run` took a median 1.19 ms of CPU that way against
/// 0.87 ms on the main thread; benches/README.md, "Start-up".)
///
/// Returns the exit status (the module doc lists them).
fn cli_main() -> u8 {
    let cli = Cli::parse();
    // A panicking tool is contained by the runtime; keep its report to one stderr line.
    std::panic::set_hook(Box::new(|info| log_line!("ptc: a tool panicked: {info}")));
    // OpenTelemetry export (feature `otel`, asked for by OTEL_* variables): `ptc mcp` runs
    // `ptc-mcp`, which installs its own; the guard flushes at exit.
    let exporting = match cli.command {
        Command::Run(_) | Command::Serve(_) | Command::Resume(_) => ptc_cli::otel::init(),
        _ => None,
    };
    let result = match cli.command {
        Command::Run(RunArgs {
            file,
            expression,
            id,
            durable,
            common,
        }) => script_job(file.as_deref(), expression, &id, &common)
            .and_then(|job| run(job, id, &durable, &common)),
        Command::Resume(args) => {
            resume_job(&args).and_then(|job| run(job, None, &args.durable, &args.common))
        }
        Command::Replay(ReplayArgs { file, common }) => read_journal(&file)
            .and_then(|journal| run(Job::Replay(journal), None, &Durable::default(), &common)),
        Command::Check(CheckArgs {
            file,
            expression,
            common,
        }) => check(file.as_deref(), expression, &common),
        Command::Describe(DescribeArgs { common }) => describe(&common),
        Command::Mcp(args) => mcp::run(&args),
        Command::Serve(args) => Ok(ptc_cli::serve::main(&args)),
    };
    drop(exporting);
    match result {
        Ok(code) => code,
        Err(Usage(message)) => {
            log_line!("ptc: error: {message}");
            2
        }
    }
}

/// The exit status when stdout is a closed pipe: 128 + SIGPIPE.
const BROKEN_PIPE_STATUS: i32 = 141;

/// Writes `text` and a newline to stdout. A closed pipe ends the process quietly with
/// [`BROKEN_PIPE_STATUS`]; any other write failure (a full disk) is one stderr line and
/// status 1. Called only once the run has settled, so exiting here loses nothing.
fn emit(text: &dyn std::fmt::Display) {
    use std::io::Write as _;
    let mut stdout = std::io::stdout().lock();
    if let Err(error) = writeln!(stdout, "{text}").and_then(|()| stdout.flush()) {
        if error.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(BROKEN_PIPE_STATUS);
        }
        log_line!("ptc: error: cannot write the output: {error}");
        std::process::exit(1);
    }
}

fn limits(common: &Common) -> Result<Limits, Usage> {
    let mut limits = Limits::default();
    for pair in &common.limits {
        limits
            .set_pair(pair)
            .map_err(|error| Usage(format!("--limit {pair}: {error}")))?;
    }
    Ok(limits)
}

/// The registry: built-ins (unless disabled or replaced by a stub of the same name), then
/// stubs, with `--standalone` marks applied.
fn registry(common: &Common) -> Result<(Registry, Vec<stub::Stub>), Usage> {
    let stubs = common
        .stubs
        .iter()
        .map(|spec| stub::parse(spec).map_err(Usage))
        .collect::<Result<Vec<_>, _>>()?;
    let mut registry = Registry::new();
    if !common.no_builtin_tools {
        let root = match &common.root {
            Some(root) => root.clone(),
            None => std::env::current_dir().map_err(|e| Usage(e.to_string()))?,
        };
        let workspace = Arc::new(builtin::Workspace::new(&root).map_err(Usage)?);
        let replaced: Vec<String> = stubs.iter().map(|s| s.name.clone()).collect();
        builtin::register(&mut registry, &workspace, &replaced)
            .map_err(|e| Usage(e.to_string()))?;
    }
    for stub in &stubs {
        stub::register(&mut registry, stub).map_err(|e| Usage(format!("--stub: {e}")))?;
    }
    if common.standalone.is_empty() {
        return Ok((registry, stubs));
    }
    // Rebuild with the standalone marks: contracts are immutable once registered.
    for name in &common.standalone {
        if registry.get(name).is_none() {
            return Err(Usage(format!("--standalone {name}: no such tool")));
        }
    }
    let mut marked = Registry::new();
    for tool in registry.tools() {
        let name = &tool.contract.name;
        let standalone = tool.contract.standalone || common.standalone.contains(name);
        let handler = registry.handler(name).cloned();
        let handler = handler.ok_or_else(|| Usage(format!("{name}: no handler")))?;
        marked
            .register_arc(tool.contract.clone().standalone(standalone), handler)
            .map_err(|e| Usage(e.to_string()))?;
    }
    Ok((marked, stubs))
}

/// The script's bytes from FILE or standard input (`-`).
fn read_source(file: &str) -> Result<Vec<u8>, Usage> {
    if file == "-" {
        let mut bytes = Vec::new();
        std::io::stdin()
            .read_to_end(&mut bytes)
            .map_err(|e| Usage(format!("cannot read standard input: {e}")))?;
        return Ok(bytes);
    }
    std::fs::read(file).map_err(|e| Usage(format!("cannot read {file}: {e}")))
}

/// The bytes of `-e EXPR` as given (not necessarily UTF-8).
fn expression_bytes(expression: std::ffi::OsString) -> Vec<u8> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStringExt as _;
        expression.into_vec()
    }
    #[cfg(not(unix))]
    {
        expression.to_string_lossy().into_owned().into_bytes()
    }
}

/// The outcome of a script that is not UTF-8: bad input (kind `input`), nothing ran.
fn not_utf8_outcome(
    diagnostic: &ptc_compiler::Diagnostic,
    id: Option<String>,
) -> ptc_runtime::Outcome {
    ptc_runtime::Outcome {
        id: id.unwrap_or_else(ptc_runtime::core::fresh_id).into(),
        kind: ptc_runtime::OutcomeKind::ScriptError,
        text: format!("Error: {}", diagnostic.message),
        value: None,
        error: Some(Box::new(ptc_runtime::core::OutcomeError::new(
            ptc_runtime::ErrorKind::of_diagnostic(diagnostic),
            diagnostic.message.clone(),
        ))),
        direct: None,
        direct_result: None,
        journal: None,
        calls: Vec::new(),
        notes: Box::default(),
        stats: ptc_runtime::core::RunStats::default(),
    }
}

fn print_outcome(outcome: &ptc_runtime::Outcome, format: Format) {
    match format {
        Format::Text => emit(&outcome.text_with_notes()),
        Format::Json => emit(&outcome.to_json()),
    }
}

/// What `ptc run`, `ptc resume` and `ptc replay` run.
enum Job {
    /// A script's text.
    Script(String),
    /// A journal, with the decisions on its pending calls.
    Resume(RunJournal, Vec<(String, Approval)>),
    /// A journal, offline.
    Replay(RunJournal),
}

/// The script of `ptc run`, or `Err` after printing the outcome of a script that is not
/// UTF-8 (exit status 1).
fn script_job(
    file: Option<&str>,
    expression: Option<std::ffi::OsString>,
    id: &Option<String>,
    common: &Common,
) -> Result<Job, Usage> {
    let bytes = match (file, expression) {
        (_, Some(expression)) => expression_bytes(expression),
        (Some(file), None) => read_source(file)?,
        (None, None) => return Err(Usage("give a FILE or -e EXPR".into())),
    };
    match ptc_compiler::decode_script(&bytes) {
        Ok(source) => Ok(Job::Script(source.to_owned())),
        Err(diagnostic) => {
            print_outcome(&not_utf8_outcome(&diagnostic, id.clone()), common.format);
            std::process::exit(1)
        }
    }
}

/// The journal at `path`.
fn read_journal(path: &std::path::Path) -> Result<RunJournal, Usage> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Usage(format!("cannot read {}: {e}", path.display())))?;
    serde_json::from_str(&text)
        .map_err(|e| Usage(format!("{} is not a ptc journal: {e}", path.display())))
}

/// The journal and decisions of `ptc resume`.
fn resume_job(args: &ResumeArgs) -> Result<Job, Usage> {
    let journal = read_journal(&args.file)?;
    let mut decisions = Vec::new();
    for id in &args.allow {
        if id == "all" {
            let all = journal.pending.iter().map(|call| call.id.clone());
            decisions.extend(all.map(|id| (id, Approval::Allow)));
        } else {
            decisions.push((id.clone(), Approval::Allow));
        }
    }
    for pair in &args.deny {
        let (id, reason) = pair
            .split_once('=')
            .ok_or_else(|| Usage(format!("--deny {pair}: give ID=REASON")))?;
        decisions.push((id.to_owned(), Approval::Deny(reason.to_owned())));
    }
    Ok(Job::Resume(journal, decisions))
}

fn run(job: Job, id: Option<String>, durable: &Durable, common: &Common) -> Result<u8, Usage> {
    let limits = limits(common)?;
    let (registry, stubs) = registry(common)?;
    let deny = stub::policy(&stubs);
    let paused = durable.pause.clone();
    let policy = move |request: &ptc_runtime::ToolRequestCtx| {
        if paused.iter().any(|tool| *tool == *request.tool) {
            return ptc_runtime::Decision::Pause;
        }
        deny(request)
    };
    let mut runner = Runner::new(Arc::new(registry))
        .with_limits(limits)
        .with_policy(Arc::new(policy));
    if let Some(dir) = &common.journal {
        let store = FileJournal::open(dir)
            .map_err(|e| Usage(format!("--journal {}: {e}", dir.display())))?;
        match store.recover_now() {
            Ok(recovered) => {
                for record in recovered {
                    log_line!("ptc: recovered interrupted run {}", record.id);
                }
            }
            Err(error) => log_line!("ptc: could not recover journal records: {error}"),
        }
        runner = runner.with_journal(Arc::new(store));
    }
    // Ctrl-C sets a flag that the run polls (below) instead of going through tokio's signal
    // driver, which needs the I/O driver and sets up all 64 signals at start (22 KiB and
    // some 40 k instructions of a trivial run). Nothing else of a run needs I/O readiness:
    // the built-in tools work on their own threads. If the handler cannot be installed,
    // Ctrl-C keeps its default action and ends the process.
    let watch_interrupt = signal_hook::flag::register(signal_hook::consts::SIGINT, &INTERRUPTED)
        .inspect_err(|e| log_line!("ptc: Ctrl-C will not settle the run: {e}"))
        .is_ok();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .map_err(|e| Usage(format!("cannot start the runtime: {e}")))?;
    let outcome = runtime.block_on(async {
        // On a terminal, a once-a-second status line fed by the run's progress snapshots.
        let latest: Arc<Mutex<Option<Progress>>> = Arc::default();
        let progress = std::io::stderr().is_terminal().then(|| {
            let latest = latest.clone();
            tokio::spawn(async move {
                let started = std::time::Instant::now();
                loop {
                    tokio::time::sleep(std::time::Duration::from_secs(1)).await;
                    let calls = latest
                        .lock()
                        .ok()
                        .and_then(|p| p.as_ref().map(status_line))
                        .unwrap_or_default();
                    log_text!(
                        "\rptc: running… {}s{calls}\x1b[K",
                        started.elapsed().as_secs()
                    );
                }
            })
        });
        let sink = move |snapshot: &Progress| {
            if let Ok(mut slot) = latest.lock() {
                *slot = Some(snapshot.clone());
            }
        };
        let recording = durable.record.is_some() || !matches!(job, Job::Script(_));
        let mut options = RunOptions::new().progress(Arc::new(sink)).record(recording);
        if let Some(id) = id {
            options = options.id(id);
        }
        // Ctrl-C interrupts the run, which then settles `interrupted` with its audit.
        let cancel = options.cancel_token().clone();
        let interrupt = watch_interrupt.then(|| {
            tokio::spawn(async move {
                let mut poll = tokio::time::interval(INTERRUPT_POLL);
                poll.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
                loop {
                    poll.tick().await;
                    if INTERRUPTED.load(Ordering::Relaxed) {
                        cancel.cancel();
                        break;
                    }
                }
            })
        });
        let source = match &job {
            Job::Script(text) => Source::Text(text),
            Job::Resume(journal, decisions) => Source::Resume { journal, decisions },
            Job::Replay(journal) => Source::Replay(journal),
        };
        let outcome = runner.run(source, options).await;
        if let Some(interrupt) = interrupt {
            interrupt.abort();
        }
        if let Some(progress) = progress {
            progress.abort();
            if outcome.stats.elapsed_ms >= 1000 {
                log_line!();
            }
        }
        outcome
    });
    print_outcome(&outcome, common.format);
    if let (Some(path), Some(journal)) = (&durable.record, &outcome.journal) {
        let text = serde_json::to_string(journal).unwrap_or_default();
        if let Err(error) = std::fs::write(path, text) {
            log_line!(
                "ptc: error: cannot write the journal {}: {error}",
                path.display()
            );
            std::process::exit(1);
        }
    }
    let mut status = i32::from(!outcome.is_completed());
    if let Job::Replay(journal) = &job {
        status = replay_status(journal, &outcome);
    }
    // The run has settled and its output is flushed (`emit`): all that is left is freeing
    // memory and tearing down the runtime, which the process end does for nothing. So the
    // process ends here, without dropping the runner, its registry, the outcome or the
    // runtime (whose blocking pool may hold a handler thread stuck in a blocking call that the
    // run abandoned: it is not waited for), nor unwinding the CLI thread.
    // Spans and metrics go out first (feature `otel`): a one-shot run exports before it ends.
    ptc_cli::otel::flush();
    std::process::exit(status)
}

/// `ptc replay`'s status: 0 when the replay settled as the journal recorded, else 1 with
/// the difference on stderr.
fn replay_status(journal: &RunJournal, outcome: &ptc_runtime::Outcome) -> i32 {
    let kind = outcome.kind.as_str();
    match (&journal.outcome, &journal.text) {
        (Some(recorded), Some(text)) if recorded == kind && *text == outcome.text => 0,
        (Some(recorded), Some(text)) => {
            let first = text
                .lines()
                .zip(outcome.text.lines())
                .position(|(a, b)| a != b)
                .unwrap_or(0);
            log_line!(
                "ptc: the replay settled {kind}, where the journal recorded {recorded}; \
                 the texts differ from line {}",
                first + 1
            );
            1
        }
        _ => {
            log_line!("ptc: the journal records no outcome to compare (the run never settled)");
            i32::from(!outcome.is_completed())
        }
    }
}

/// `, 3/5 calls done, 2 running, 1 awaiting permission` for the terminal status line.
fn status_line(progress: &Progress) -> String {
    let mut line = format!(", {}/{} calls done", progress.completed, progress.total);
    if !progress.active.is_empty() {
        line.push_str(&format!(", {} running", progress.active.len()));
    }
    if !progress.permission_waits.is_empty() {
        line.push_str(&format!(
            ", {} awaiting permission",
            progress.permission_waits.len()
        ));
    }
    line
}

fn check(
    file: Option<&str>,
    expression: Option<std::ffi::OsString>,
    common: &Common,
) -> Result<u8, Usage> {
    let (bytes, file) = match (file, expression) {
        (_, Some(expression)) => (expression_bytes(expression), "-e"),
        (Some(file), None) => (read_source(file)?, file),
        (None, None) => return Err(Usage("give a FILE or -e EXPR".into())),
    };
    let limits = limits(common)?;
    let (registry, _stubs) = registry(common)?;
    let (source, diagnostics) = match ptc_compiler::decode_script(&bytes) {
        Ok(source) => (
            source,
            ptc_compiler::check(source, &registry.roster(), &limits),
        ),
        // Rendered against the valid prefix, the span narrowed to its end.
        Err(mut diagnostic) => {
            let at = diagnostic.span.start;
            diagnostic.span = ptc_vm::Span::new(at, at);
            let prefix = bytes
                .get(..diagnostic.span.range().start)
                .unwrap_or_default();
            (
                std::str::from_utf8(prefix).unwrap_or_default(),
                vec![diagnostic],
            )
        }
    };
    match common.format {
        Format::Text => {
            if !diagnostics.is_empty() {
                log_text!(
                    "{}",
                    ptc_compiler::render::render(source, file, &diagnostics)
                );
            }
        }
        Format::Json => {
            let items: Vec<_> = diagnostics
                .iter()
                .map(|d| {
                    let labels: Vec<_> = d
                        .labels
                        .iter()
                        .map(|(span, label)| {
                            json!({"span": {"start": span.start, "end": span.end},
                                   "label": label})
                        })
                        .collect();
                    json!({"kind": d.kind, "code": d.code, "message": d.message,
                           "span": {"start": d.span.start, "end": d.span.end},
                           "labels": labels, "notes": d.notes})
                })
                .collect();
            emit(&json!({"ok": diagnostics.is_empty(), "diagnostics": items}));
        }
    }
    Ok(u8::from(!diagnostics.is_empty()))
}

fn describe(common: &Common) -> Result<u8, Usage> {
    let (registry, _stubs) = registry(common)?;
    match common.format {
        Format::Text => {
            emit(&format!(
                "{}\n\n{}",
                listing::DESCRIPTION,
                listing::tool_listing(registry.catalog())
            ));
        }
        Format::Json => {
            let tools: Vec<_> = registry.tools().map(|t| &t.contract).collect();
            emit(&json!({
                "name": listing::TOOL_NAME,
                "description": listing::DESCRIPTION,
                "input_schema": listing::input_schema(),
                "listing": listing::tool_listing(registry.catalog()),
                "tools": tools,
            }));
        }
    }
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::status_line;
    use ptc_runtime::core::Progress;

    #[test]
    fn the_status_line_counts_calls_running_and_waiting() {
        let mut progress = Progress {
            kind: "ptc",
            id: "ptc-1".into(),
            direct: None,
            live: true,
            active: vec!["Read".into(), "Grep".into()],
            completed: 3,
            total: 6,
            permission_waits: vec!["ptc-1/6".into()],
            calls: Vec::new(),
        };
        assert_eq!(
            status_line(&progress),
            ", 3/6 calls done, 2 running, 1 awaiting permission"
        );
        progress.active.clear();
        progress.permission_waits.clear();
        assert_eq!(status_line(&progress), ", 3/6 calls done");
    }
}
