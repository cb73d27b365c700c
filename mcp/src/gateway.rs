//! The gateway: every upstream connection, the roster built from their tools, and the
//! slot of a direct call's raw upstream result for passthrough.
//!
//! The roster registers each exposed upstream tool as `SERVER.TOOL` (the MCP name verbatim
//! after the dot) with a handler that sends `tools/call` on the upstream's peer. A name the
//! reader cannot take as one symbol, a collision, or a schema that does not compile is
//! skipped with a warning saying why. A `notifications/tools/list_changed` from an upstream
//! re-lists it, rebuilds the roster and sends `notifications/tools/list_changed` to every
//! downstream client.
//!
//! Invariants:
//! - A ToolCall runs against one roster snapshot ([`Gateway::roster`]); a rebuild never
//!   changes a run in progress.
//! - A raw upstream result is kept only for a run that can pass it through (a direct
//!   call: [`RawSlot`] in the run's data), and only the last one; a composed run keeps
//!   none, whatever its number of calls.
//! - Each upstream has one re-list worker ([`ChangeSender`]): notices that arrive within
//!   [`COALESCE`] of the first, or while it re-lists, coalesce into one more re-list; a re-list is bounded in time
//!   ([`Gateway::list_timeout`]) and size ([`crate::upstream`]), and a failed one keeps
//!   the tools the upstream had. A slow upstream never delays another's re-list.
//! - Downstream notices coalesce too: one broadcaster sends `tools/list_changed` to every
//!   live client (each send bounded by [`NOTIFY_TIMEOUT`]) [`COALESCE`] after a rebuild,
//!   and any rebuilds made meanwhile cause one more round. Clients whose transport closed are dropped from the list
//!   at every new session and every round.
//! - Upstreams are kept in configuration order, so the roster order is stable.
//! - ToolCalls compile through one bounded program cache ([`Gateway::compile`]) keyed by
//!   the script, the roster snapshot (with every argument contract) and the budgets: a
//!   rebuilt roster that differs never serves a program compiled for the old one.

use crate::config::{Config, ToolFilter};
use crate::mapping;
use crate::upstream::{self, Upstream};
use ptc_compiler::{Compiled, Diagnostic};
use ptc_runtime::core::cache::{CacheStats, ProgramCache};
use ptc_runtime::core::catalog::is_legal_tool_name;
use ptc_runtime::{BoxFuture, Registry, ToolContract, ToolHandler, ToolRequestCtx, ToolResult};
use ptc_vm::Limits;
use rmcp::model::{CallToolResult, Tool};
use rmcp::{Peer, RoleClient, RoleServer};
use serde_json::Value as Json;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, RwLock, Weak};
use std::time::Duration;
use tokio::sync::Notify;

/// How long one downstream client may take to accept a `tools/list_changed`.
pub const NOTIFY_TIMEOUT: Duration = Duration::from_secs(5);
/// How long a re-list or a downstream broadcast waits after it is woken, so that a burst
/// of notices costs one listing and one round of notices.
pub const COALESCE: Duration = Duration::from_millis(100);

/// One exposed upstream tool.
#[derive(Debug, Clone)]
pub struct Entry {
    /// The roster name, `SERVER.TOOL`.
    pub name: String,
    /// The upstream server.
    pub server: String,
    /// The upstream's own definition.
    pub tool: Tool,
    /// Whether each call needs the user's consent (an `ask` glob matched).
    pub ask: bool,
}

/// One snapshot of what a ToolCall may call.
#[derive(Debug, Default)]
pub struct Roster {
    /// The runtime's registry of the exposed tools.
    pub registry: Arc<Registry>,
    /// The same tools with their upstream definitions, in roster order.
    pub entries: Vec<Entry>,
    /// Why tools were left out, one line each (also logged as warnings).
    pub skipped: Vec<String>,
    /// The tool listing of `registry`, rendered once.
    pub listing: String,
}

impl Roster {
    /// The entry named `name`.
    #[must_use]
    pub fn entry(&self, name: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.name == name)
    }
}

/// Where a run that can pass an upstream result through (a direct call) receives the raw
/// result of its call: put in the run's [`ptc_runtime::RunData`]. Runs without one keep
/// no raw result.
#[derive(Debug, Clone, Default)]
pub struct RawSlot(Arc<Mutex<Option<KeptRaw>>>);

/// A nested call's id and its raw result.
type KeptRaw = (Arc<str>, CallToolResult);

/// The downstream clients, each with the number it was added under, and the last number.
type Downstream = (u64, Vec<(u64, Peer<RoleServer>)>);

impl RawSlot {
    fn put(&self, id: Arc<str>, result: CallToolResult) {
        if let Ok(mut slot) = self.0.lock() {
            *slot = Some((id, result));
        }
    }

    /// The raw result of nested call `id`, if it is the one kept.
    #[must_use]
    pub fn take(&self, id: &str) -> Option<CallToolResult> {
        let mut slot = self.0.lock().ok()?;
        match slot.take() {
            Some((kept, result)) if &*kept == id => Some(result),
            _ => None,
        }
    }
}

/// The handler of one upstream tool.
struct UpstreamTool {
    server: String,
    tool: String,
    peer: Peer<RoleClient>,
}

impl ToolHandler for UpstreamTool {
    fn call(&self, request: ToolRequestCtx) -> BoxFuture<ToolResult> {
        let peer = self.peer.clone();
        let tool = self.tool.clone();
        let server = self.server.clone();
        Box::pin(async move {
            let call = upstream::call(&peer, &tool, &request.arguments, Some(&request.id));
            // Dropping the call future sends notifications/cancelled upstream.
            let result = tokio::select! {
                result = call => result,
                () = request.cancel().cancelled() => Err("the call was cancelled".to_owned()),
            };
            match result {
                Ok(result) => {
                    let mapped = serde_json::to_value(&result)
                        .map(|json| mapping::to_tool_result(&json))
                        .unwrap_or_else(|e| {
                            ToolResult::error(format!("{server}.{tool}: unreadable result: {e}"))
                        });
                    if let Some(slot) = request.run_data.get::<RawSlot>() {
                        slot.put(request.id.clone(), result);
                    }
                    mapped
                }
                Err(error) => ToolResult::error(format!("{server}.{tool}: {error}")),
            }
        })
    }
}

/// Every upstream, the current roster and the downstream clients to notify.
#[derive(Debug)]
pub struct Gateway {
    limits: Limits,
    standalone: Vec<String>,
    filters: HashMap<String, ToolFilter>,
    upstreams: RwLock<Vec<(Arc<Upstream>, Vec<Tool>)>>,
    roster: RwLock<Arc<Roster>>,
    /// Downstream clients, each with the number it was added under.
    downstream: Mutex<Downstream>,
    changed: ChangeSender,
    /// Wakes the broadcaster of downstream `tools/list_changed` (coalescing).
    broadcast: Arc<Notify>,
    list_timeout: Duration,
    /// Compiled ToolCalls (`None`: `ptc.programCache` is 0).
    cache: Option<ProgramCache>,
}

/// Where upstream clients report list changes: one re-list worker per server name,
/// started on its first notice, woken through a [`Notify`] (so notices coalesce).
#[derive(Debug, Clone, Default)]
pub struct ChangeSender(Arc<ChangeHub>);

#[derive(Debug, Default)]
struct ChangeHub {
    gateway: OnceLock<Weak<Gateway>>,
    workers: Mutex<HashMap<String, Arc<Notify>>>,
}

impl ChangeSender {
    /// Server `name` announced a change: its worker re-lists it (once more, if busy).
    pub fn notice(&self, name: &str) {
        let Some(weak) = self.0.gateway.get().cloned() else {
            return;
        };
        let Ok(mut workers) = self.0.workers.lock() else {
            return;
        };
        let wake = match workers.get(name) {
            Some(wake) => wake.clone(),
            None => {
                let wake = Arc::new(Notify::new());
                workers.insert(name.to_owned(), wake.clone());
                let worker = wake.clone();
                let server = name.to_owned();
                tokio::spawn(async move {
                    loop {
                        worker.notified().await;
                        tokio::time::sleep(COALESCE).await;
                        let Some(gateway) = weak.upgrade() else { break };
                        gateway.relist(&server).await;
                    }
                });
                wake
            }
        };
        wake.notify_one();
    }
}

impl Gateway {
    /// A gateway with `config`'s budgets, filters and standalone marks and no upstream yet;
    /// it starts listening for list changes (needs a tokio runtime).
    #[must_use]
    pub fn new(config: &Config) -> Arc<Gateway> {
        let gateway = Arc::new(Gateway {
            limits: config.limits,
            standalone: config.standalone.clone(),
            filters: config
                .servers
                .iter()
                .map(|s| (s.name.clone(), s.filter.clone()))
                .collect(),
            upstreams: RwLock::new(Vec::new()),
            roster: RwLock::new(Arc::new(Roster::default())),
            downstream: Mutex::new((0, Vec::new())),
            changed: ChangeSender::default(),
            broadcast: Arc::new(Notify::new()),
            list_timeout: config.startup_timeout,
            cache: (config.program_cache > 0).then(|| ProgramCache::new(config.program_cache)),
        });
        let weak: Weak<Gateway> = Arc::downgrade(&gateway);
        let _ = gateway.changed.0.gateway.set(weak.clone());
        let wake = gateway.broadcast.clone();
        tokio::spawn(async move {
            loop {
                wake.notified().await;
                tokio::time::sleep(COALESCE).await;
                let Some(gateway) = weak.upgrade() else { break };
                gateway.notify_downstream().await;
            }
        });
        gateway
    }

    /// The time limit of one listing of an upstream (`ptc.startupTimeoutMs`).
    #[must_use]
    pub fn list_timeout(&self) -> Duration {
        self.list_timeout
    }

    /// Connects every configured upstream at once; one that fails to start, initialize
    /// or list is left out with a warning. Builds the roster.
    pub async fn start(config: &Config) -> Arc<Gateway> {
        let gateway = Gateway::new(config);
        let connects = config.servers.iter().map(|server| {
            let changed = gateway.change_sender();
            async move {
                let result = tokio::time::timeout(
                    config.startup_timeout,
                    upstream::connect(server, changed, config.startup_timeout),
                )
                .await
                .unwrap_or_else(|_| {
                    Err(format!(
                        "no answer within {} ms",
                        config.startup_timeout.as_millis()
                    ))
                });
                (server.name.clone(), result)
            }
        });
        for (name, result) in futures::future::join_all(connects).await {
            match result {
                Ok((upstream, tools)) => {
                    tracing::info!(server = %name, tools = tools.len(), "upstream ready");
                    gateway.add(upstream, tools);
                }
                Err(error) => {
                    tracing::warn!(server = %name, "upstream left out: {error}");
                }
            }
        }
        gateway.rebuild();
        gateway
    }

    /// The channel an upstream client reports its list changes on.
    #[must_use]
    pub fn change_sender(&self) -> ChangeSender {
        self.changed.clone()
    }

    /// Adds a connected upstream with its tools (call [`Gateway::rebuild`] after).
    pub fn add(&self, upstream: Arc<Upstream>, tools: Vec<Tool>) {
        if let Ok(mut upstreams) = self.upstreams.write() {
            upstreams.push((upstream, tools));
        }
    }

    /// The budgets of every ToolCall.
    #[must_use]
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// `script` compiled for `roster` under the gateway's budgets, through the program
    /// cache: a script compiled before for an equal roster (after a `tools/list_changed`
    /// the roster differs, so the script compiles again) is not compiled twice.
    ///
    /// # Errors
    /// The compiler's diagnostics.
    pub fn compile(&self, script: &str, roster: &Roster) -> Result<Arc<Compiled>, Vec<Diagnostic>> {
        let tools = roster.registry.roster();
        // The host's clock for the compilation's `seconds` (the compiler reads none).
        let started = std::time::Instant::now();
        let clock: Arc<dyn ptc_vm::Clock> = Arc::new(move || started.elapsed());
        match &self.cache {
            Some(cache) => cache.get_or_compile(script, &tools, &self.limits, Some(clock)),
            None => {
                ptc_compiler::compile_with_clock(script, &tools, &self.limits, &[], Some(clock))
                    .map(Arc::new)
            }
        }
    }

    /// The program cache's hits, misses and size (`None`: no cache).
    #[must_use]
    pub fn cache_stats(&self) -> Option<CacheStats> {
        self.cache.as_ref().map(ProgramCache::stats)
    }

    /// The current roster.
    #[must_use]
    pub fn roster(&self) -> Arc<Roster> {
        self.roster
            .read()
            .map(|r| r.clone())
            .unwrap_or_else(|e| e.into_inner().clone())
    }

    /// Remembers a downstream client for list-change notifications, forgetting those
    /// whose transport has closed.
    pub fn add_downstream(&self, peer: Peer<RoleServer>) {
        if let Ok(mut downstream) = self.downstream.lock() {
            let (next, peers) = &mut *downstream;
            peers.retain(|(_, p)| !p.is_transport_closed());
            *next += 1;
            peers.push((*next, peer));
        }
    }

    /// How many downstream clients are remembered (forgetting closed ones first).
    #[must_use]
    pub fn downstream_count(&self) -> usize {
        self.downstream.lock().map_or(0, |mut d| {
            d.1.retain(|(_, p)| !p.is_transport_closed());
            d.1.len()
        })
    }

    /// Rebuilds the roster from every upstream's current tools.
    pub fn rebuild(&self) {
        let mut registry = Registry::new();
        let mut entries = Vec::new();
        let mut skipped = Vec::new();
        let upstreams = self.upstreams.read().map(|u| u.clone()).unwrap_or_default();
        for (upstream, tools) in &upstreams {
            let filter = self
                .filters
                .get(&upstream.name)
                .cloned()
                .unwrap_or_default();
            for tool in tools {
                if !filter.exposes(&tool.name) {
                    continue;
                }
                let name = format!("{}.{}", upstream.name, tool.name);
                let why = if !is_legal_tool_name(&name) {
                    Some("the name cannot be read as one symbol".to_owned())
                } else if registry.get(&name).is_some() {
                    Some("the name collides with an earlier tool of the same name".to_owned())
                } else {
                    let description = tool
                        .description
                        .as_deref()
                        .or(tool.title.as_deref())
                        .unwrap_or("(no description)")
                        .to_owned();
                    let schema = Json::Object((*tool.input_schema).clone());
                    let contract = ToolContract::new(&name, description, schema)
                        .standalone(self.standalone.contains(&name));
                    let handler = Arc::new(UpstreamTool {
                        server: upstream.name.clone(),
                        tool: tool.name.to_string(),
                        peer: upstream.peer(),
                    });
                    registry
                        .register_arc(contract, handler)
                        .err()
                        .map(|e| e.to_string())
                };
                match why {
                    Some(why) => {
                        tracing::warn!("skipped upstream tool {name}: {why}");
                        skipped.push(format!("{name}: {why}"));
                    }
                    None => entries.push(Entry {
                        name,
                        server: upstream.name.clone(),
                        tool: tool.clone(),
                        ask: filter.asks(&tool.name),
                    }),
                }
            }
        }
        for name in &self.standalone {
            if registry.get(name).is_none() {
                tracing::warn!("ptc.standalone names {name}, which is not in the roster");
            }
        }
        let listing = ptc_runtime::core::listing::tool_listing(registry.catalog());
        let roster = Arc::new(Roster {
            registry: Arc::new(registry),
            entries,
            skipped,
            listing,
        });
        if let Ok(mut slot) = self.roster.write() {
            *slot = roster;
        }
    }

    /// Re-lists `server` after it announced a change, rebuilds, and wakes the
    /// broadcaster; a failed listing keeps the tools the server had.
    pub async fn relist(&self, server: &str) {
        let upstream = self.upstreams.read().ok().and_then(|u| {
            u.iter()
                .find(|(u, _)| u.name == server)
                .map(|(u, _)| u.clone())
        });
        let Some(upstream) = upstream else { return };
        match upstream.list_tools(self.list_timeout).await {
            Ok(tools) => {
                if let Ok(mut upstreams) = self.upstreams.write()
                    && let Some(slot) = upstreams.iter_mut().find(|(u, _)| u.name == server)
                {
                    slot.1 = tools;
                }
            }
            Err(error) => {
                tracing::warn!(server, "re-listing after a change failed: {error}");
                return;
            }
        }
        self.rebuild();
        self.broadcast.notify_one();
    }

    /// Sends `tools/list_changed` to every live downstream client at once, each within
    /// [`NOTIFY_TIMEOUT`]; a client that fails or closed is forgotten.
    async fn notify_downstream(&self) {
        let peers = self
            .downstream
            .lock()
            .map(|d| d.1.clone())
            .unwrap_or_default();
        let sends = peers.iter().map(|(_, peer)| async move {
            if peer.is_transport_closed() {
                return false;
            }
            matches!(
                tokio::time::timeout(NOTIFY_TIMEOUT, peer.notify_tool_list_changed()).await,
                Ok(Ok(()))
            )
        });
        let results = futures::future::join_all(sends).await;
        let dead: std::collections::HashSet<u64> = peers
            .iter()
            .zip(results)
            .filter(|(_, ok)| !ok)
            .map(|((n, _), _)| *n)
            .collect();
        if dead.is_empty() {
            return;
        }
        tracing::debug!("dropped {} downstream clients", dead.len());
        if let Ok(mut downstream) = self.downstream.lock() {
            downstream
                .1
                .retain(|(n, p)| !dead.contains(n) && !p.is_transport_closed());
        }
    }

    /// Closes every upstream (child processes exit or are killed).
    pub async fn shutdown(&self) {
        let upstreams = self.upstreams.read().map(|u| u.clone()).unwrap_or_default();
        futures::future::join_all(upstreams.iter().map(|(u, _)| u.close())).await;
    }
}
