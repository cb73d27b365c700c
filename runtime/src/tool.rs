//! The host's side of a nested call in the tokio runtime: handlers and the registry.
//!
//! A tool is registered with a [`ToolContract`] (`ptc_core`'s catalog entry: name,
//! description, JSON Schema of its arguments, standalone-only flag, optional summary) and a
//! [`ToolHandler`]. A handler receives a [`ToolRequestCtx`] — its own request id
//! `ENVELOPE/N`, the parent envelope id, the source `ptc`, the validated JSON arguments and
//! the call's cancellation token, made when the handler first asks for it
//! ([`ToolRequestCtx::cancel`]) — and answers with a [`ToolResult`] shaped like MCP's
//! `CallToolResult`.
//!
//! Invariants:
//! - A [`Registry`] is a `ptc_core` [`Catalog`] (names, schemas, validators, argument
//!   plans) plus one handler per catalog entry, at the same index: the envelope reads the
//!   catalog, the driver the handlers.
//! - Every registered name is a legal guest operator and unique; every input schema
//!   registered with [`Registry::register`] compiled at registration.

use crate::cancel::{CallCancel, CancelToken};
use ptc_core::BoxFuture;
use ptc_core::catalog::{Catalog, CatalogTool, RegistryError, ToolContract, ToolResult};
use std::future::Future;
use std::sync::Arc;

/// One nested request as the host's handler (and permission policy) sees it.
#[derive(Debug, Clone)]
pub struct ToolRequestCtx {
    /// This request's own id, `ENVELOPE/N` (shared with its audit record).
    pub id: Arc<str>,
    /// The envelope (ToolCall) id (shared by every call of the envelope).
    pub parent_id: Arc<str>,
    /// Always `ptc`: the request came from a script.
    pub source: &'static str,
    /// The tool's name (shared with the program's tool table).
    pub tool: Arc<str>,
    /// The validated argument object (shared with the call's request and audit record).
    pub arguments: Arc<serde_json::Value>,
    /// The call's cancellation; its token is made when first asked for
    /// ([`ToolRequestCtx::cancel`]).
    pub(crate) cancel: CallCancel,
    /// The run's host data ([`crate::RunOptions::data`]); read it with
    /// [`ToolRequestCtx::data`].
    pub run_data: crate::RunData,
}

impl ToolRequestCtx {
    /// A request for calling a handler (or a policy) outside a run — a host's own loop, a
    /// handler's tests: no run data, and a token nobody but this context's clones
    /// cancels.
    #[must_use]
    pub fn new(
        id: impl Into<Arc<str>>,
        parent_id: impl Into<Arc<str>>,
        tool: impl Into<Arc<str>>,
        arguments: Arc<serde_json::Value>,
    ) -> Self {
        ToolRequestCtx {
            id: id.into(),
            parent_id: parent_id.into(),
            source: "ptc",
            tool: tool.into(),
            arguments,
            cancel: CallCancel::default(),
            run_data: crate::RunData::default(),
        }
    }

    /// The call's cancellation token: it fires when the call is cancelled, denied or timed
    /// out, or its run is interrupted or passes its deadline; a long handler should stop.
    /// Made on the first ask (a handler that never asks costs its call no token); asked
    /// after the call was cancelled, it is already cancelled. Every clone of this context
    /// sees the same token.
    #[must_use]
    pub fn cancel(&self) -> &CancelToken {
        self.cancel.token()
    }

    /// The run's host value of type `T` ([`crate::RunOptions::data`]), if the host gave one.
    #[must_use]
    pub fn data<T: std::any::Any + Send + Sync>(&self) -> Option<&T> {
        self.run_data.get::<T>()
    }
}

/// A tool implementation: asynchronous ([`ToolHandler::call`]), or answering at once
/// ([`ToolHandler::call_now`], `register_sync`).
pub trait ToolHandler: Send + Sync {
    /// Runs one call.
    fn call(&self, request: ToolRequestCtx) -> BoxFuture<ToolResult>;

    /// Answers one call at once, without a future, when the handler can; otherwise gives
    /// the request back, and the driver runs it with [`ToolHandler::call`]. The default
    /// gives every request back.
    ///
    /// The driver asks this first, on the thread where the handler runs (the driver's own
    /// task with [`crate::Isolation::Inline`], a blocking-pool thread with
    /// [`crate::Isolation::Thread`]). An answer given here costs the call no boxed future
    /// and, inline, no cancellation cell shared with the driver: nothing can cancel a call
    /// that has already answered. A panic here is contained as in `call`.
    ///
    /// # Errors
    /// The request itself, untouched, when the handler answers only through `call`.
    fn call_now(&self, request: ToolRequestCtx) -> Result<ToolResult, ToolRequestCtx> {
        Err(request)
    }
}

impl<F, Fut> ToolHandler for F
where
    F: Fn(ToolRequestCtx) -> Fut + Send + Sync,
    Fut: Future<Output = ToolResult> + Send + 'static,
{
    fn call(&self, request: ToolRequestCtx) -> BoxFuture<ToolResult> {
        Box::pin(self(request))
    }
}

/// A handler that answers every call at once: a plain function from the request to its
/// result ([`Registry::register_sync`]). Its [`ToolHandler::call_now`] answers; its
/// [`ToolHandler::call`] answers too, in a future already complete.
///
/// For handlers that compute their answer without waiting (a lookup, a computation, a
/// reply already in memory). Under [`crate::Isolation::Inline`] the handler runs on the
/// driver's task, so it must not block; under [`crate::Isolation::Thread`] it runs on the
/// blocking pool like any handler.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SyncHandler<F>(pub(crate) F);

impl<F> ToolHandler for SyncHandler<F>
where
    F: Fn(ToolRequestCtx) -> ToolResult + Send + Sync,
{
    fn call(&self, request: ToolRequestCtx) -> BoxFuture<ToolResult> {
        Box::pin(std::future::ready((self.0)(request)))
    }

    fn call_now(&self, request: ToolRequestCtx) -> Result<ToolResult, ToolRequestCtx> {
        Ok((self.0)(request))
    }
}

/// The host's tools, in registration order: a [`Catalog`] and a handler for each entry.
/// Cheap to share behind an `Arc`; a run may use a subset ([`ToolFilter`](ptc_core::ToolFilter)) without
/// recompiling any schema.
#[derive(Default)]
pub struct Registry {
    catalog: Arc<Catalog>,
    handlers: Vec<Arc<dyn ToolHandler>>,
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registry")
            .field("catalog", &self.catalog)
            .finish_non_exhaustive()
    }
}

impl Registry {
    /// An empty registry.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers a tool.
    ///
    /// # Errors
    /// [`RegistryError`] when the name is illegal or taken, or the schema does not compile.
    pub fn register(
        &mut self,
        contract: ToolContract,
        handler: impl ToolHandler + 'static,
    ) -> Result<&mut Self, RegistryError> {
        self.register_arc(contract, Arc::new(handler))
    }

    /// Registers a tool whose handler answers every call at once, without a future
    /// (`SyncHandler`): the cheapest kind of handler for a tool that does not wait.
    ///
    /// ```
    /// use ptc_runtime::{Isolation, Registry, RunOptions, Runner, ToolContract, ToolResult};
    /// use serde_json::json;
    /// use std::sync::Arc;
    ///
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let mut registry = Registry::new();
    /// let schema = json!({"type": "object", "properties": {"n": {"type": "integer"}}});
    /// registry.register_sync(ToolContract::new("Double", "Doubles n.", schema), |request| {
    ///     let n = request.arguments["n"].as_i64().unwrap_or(0);
    ///     ToolResult::structured(json!({"n": n * 2}))
    /// })?;
    /// let runner = Runner::new(Arc::new(registry)).with_isolation(Isolation::Inline);
    /// let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    /// let outcome = rt.block_on(runner.run("(plist-get (Double :n 21) :n)", RunOptions::new()));
    /// assert_eq!(outcome.text, "42");
    /// assert_eq!(outcome.calls[0].preview.as_deref(), Some(r#"{"n":42}"#));
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    /// As [`Registry::register`].
    pub fn register_sync(
        &mut self,
        contract: ToolContract,
        handler: impl Fn(ToolRequestCtx) -> ToolResult + Send + Sync + 'static,
    ) -> Result<&mut Self, RegistryError> {
        self.register(contract, SyncHandler(handler))
    }

    /// Registers a tool whose handler is already shared.
    ///
    /// # Errors
    /// As [`Registry::register`].
    pub fn register_arc(
        &mut self,
        contract: ToolContract,
        handler: Arc<dyn ToolHandler>,
    ) -> Result<&mut Self, RegistryError> {
        Arc::make_mut(&mut self.catalog).add(contract)?;
        self.handlers.push(handler);
        Ok(self)
    }

    /// Registers a tool whose input schema the host vouches for (see
    /// [`Catalog::add_trusted`]): its validator is compiled on the tool's first call.
    ///
    /// # Errors
    /// [`RegistryError`] when the name is illegal or taken.
    pub fn register_trusted(
        &mut self,
        contract: ToolContract,
        handler: impl ToolHandler + 'static,
    ) -> Result<&mut Self, RegistryError> {
        Arc::make_mut(&mut self.catalog).add_trusted(contract)?;
        self.handlers.push(Arc::new(handler));
        Ok(self)
    }

    /// The catalog: contracts, validators and rosters, without the handlers (what an
    /// envelope reads).
    #[must_use]
    pub fn catalog(&self) -> &Arc<Catalog> {
        &self.catalog
    }

    /// The tool named `name` (its contract, validator and argument contract).
    #[must_use]
    pub fn get(&self, name: &str) -> Option<&CatalogTool> {
        self.catalog.get(name)
    }

    /// The handler of the tool named `name`.
    #[must_use]
    pub fn handler(&self, name: &str) -> Option<&Arc<dyn ToolHandler>> {
        self.handlers.get(self.catalog.index_of(name)?)
    }

    /// The tools, in registration order.
    pub fn tools(&self) -> impl Iterator<Item = &CatalogTool> {
        self.catalog.tools()
    }

    /// The roster the compiler sees: names, standalone flags and argument contracts.
    #[must_use]
    pub fn roster(&self) -> ptc_compiler::Roster {
        self.catalog.roster()
    }

    /// How many tools are registered.
    #[must_use]
    pub fn len(&self) -> usize {
        self.handlers.len()
    }

    /// Whether no tool is registered.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.handlers.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn handlers_stay_beside_their_contracts() {
        let mut registry = Registry::new();
        for name in ["A", "B", "C"] {
            let answer = name.to_owned();
            registry
                .register_sync(
                    ToolContract::new(name, "", json!({"type": "object"})),
                    move |_| ToolResult::text(answer.clone()),
                )
                .unwrap();
        }
        let again = registry.register_sync(ToolContract::new("B", "", json!({})), |_| {
            ToolResult::text("x")
        });
        assert_eq!(again.err(), Some(RegistryError::Duplicate("B".into())));
        assert_eq!(registry.len(), 3);
        assert_eq!(registry.get("B").unwrap().contract.name, "B");
        let handler = registry.handler("B").unwrap();
        let request = ToolRequestCtx::new("e/1", "e", "B", Arc::new(json!({})));
        let answer = handler.call_now(request).ok().unwrap();
        assert_eq!(answer.joined_text(), "B");
        assert!(registry.get("D").is_none() && registry.handler("D").is_none());
    }
}
