//! The gateway: every upstream connection, the roster built from their tools, and the
//! store of raw upstream results for direct-call passthrough.
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
//! - Every raw result stored for a run is taken out when that run settles
//!   ([`Gateway::take_raw`]), so the store holds only results of runs in flight.
//! - Upstreams are kept in configuration order, so the roster order is stable.
//! - ToolCalls compile through one bounded program cache ([`Gateway::compile`]) keyed by
//!   the script, the roster snapshot (with every argument contract) and the budgets: a
//!   rebuilt roster that differs never serves a program compiled for the old one.

use crate::config::{Config, ToolFilter};
use crate::mapping;
use crate::upstream::{self, Upstream};
use ptc_compiler::{Compiled, Diagnostic};
use ptc_runtime::cache::{CacheStats, ProgramCache};
use ptc_runtime::tool::is_legal_tool_name;
use ptc_runtime::{BoxFuture, Registry, ToolContract, ToolHandler, ToolRequestCtx, ToolResult};
use ptc_vm::Limits;
use rmcp::model::{CallToolResult, Tool};
use rmcp::{Peer, RoleClient, RoleServer};
use serde_json::Value as Json;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, RwLock, Weak};
use tokio::sync::mpsc;

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

/// Raw upstream results by nested-call id, kept until their run settles.
#[derive(Debug, Default)]
struct RawStore(Mutex<HashMap<String, CallToolResult>>);

impl RawStore {
    fn put(&self, id: String, result: CallToolResult) {
        if let Ok(mut map) = self.0.lock() {
            map.insert(id, result);
        }
    }

    fn take(&self, id: &str) -> Option<CallToolResult> {
        self.0.lock().ok().and_then(|mut map| map.remove(id))
    }
}

/// The handler of one upstream tool.
struct UpstreamTool {
    server: String,
    tool: String,
    peer: Peer<RoleClient>,
    raw: Arc<RawStore>,
}

impl ToolHandler for UpstreamTool {
    fn call(&self, request: ToolRequestCtx) -> BoxFuture<ToolResult> {
        let peer = self.peer.clone();
        let tool = self.tool.clone();
        let server = self.server.clone();
        let raw = self.raw.clone();
        Box::pin(async move {
            let call = upstream::call(&peer, &tool, &request.arguments);
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
                    raw.put(request.id.to_string(), result);
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
    raw: Arc<RawStore>,
    downstream: Mutex<Vec<Peer<RoleServer>>>,
    changed: mpsc::UnboundedSender<String>,
    /// Compiled ToolCalls (`None`: `ptc.programCache` is 0).
    cache: Option<ProgramCache>,
}

impl Gateway {
    /// A gateway with `config`'s budgets, filters and standalone marks and no upstream yet;
    /// it starts listening for list changes (needs a tokio runtime).
    #[must_use]
    pub fn new(config: &Config) -> Arc<Gateway> {
        let (changed, mut receiver) = mpsc::unbounded_channel::<String>();
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
            raw: Arc::new(RawStore::default()),
            downstream: Mutex::new(Vec::new()),
            changed,
            cache: (config.program_cache > 0).then(|| ProgramCache::new(config.program_cache)),
        });
        let weak: Weak<Gateway> = Arc::downgrade(&gateway);
        tokio::spawn(async move {
            while let Some(server) = receiver.recv().await {
                let Some(gateway) = weak.upgrade() else { break };
                gateway.relist(&server).await;
            }
        });
        gateway
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
                    upstream::connect(server, changed),
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
    pub fn change_sender(&self) -> mpsc::UnboundedSender<String> {
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

    /// Remembers a downstream client for list-change notifications.
    pub fn add_downstream(&self, peer: Peer<RoleServer>) {
        if let Ok(mut peers) = self.downstream.lock() {
            peers.push(peer);
        }
    }

    /// The raw result of nested call `id`, and forgets it.
    #[must_use]
    pub fn take_raw(&self, id: &str) -> Option<CallToolResult> {
        self.raw.take(id)
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
                        raw: self.raw.clone(),
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
        let listing = ptc_runtime::listing::tool_listing(&registry);
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

    /// Re-lists `server` after it announced a change, rebuilds, and tells every downstream
    /// client.
    pub async fn relist(&self, server: &str) {
        let upstream = self.upstreams.read().ok().and_then(|u| {
            u.iter()
                .find(|(u, _)| u.name == server)
                .map(|(u, _)| u.clone())
        });
        let Some(upstream) = upstream else { return };
        match upstream.list_tools().await {
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
        let peers = self
            .downstream
            .lock()
            .map(|p| p.clone())
            .unwrap_or_default();
        let mut alive = Vec::new();
        for peer in peers {
            match peer.notify_tool_list_changed().await {
                Ok(()) => alive.push(peer),
                Err(error) => tracing::debug!("dropped a downstream client: {error}"),
            }
        }
        if let Ok(mut peers) = self.downstream.lock() {
            *peers = alive;
        }
    }

    /// Closes every upstream (child processes exit or are killed).
    pub async fn shutdown(&self) {
        let upstreams = self.upstreams.read().map(|u| u.clone()).unwrap_or_default();
        futures::future::join_all(upstreams.iter().map(|(u, _)| u.close())).await;
    }
}
