//! Typed tools: a handler that takes a Rust value instead of raw JSON, with the input
//! schema derived from that value's type (schemars), and results built from any
//! `Result<T: Serialize, E: Display>` so that `?` works inside a handler.
//!
//! Available with the default-on `typed` feature. The raw-JSON registration
//! ([`Registry::register`]) stays for hosts whose schemas come from elsewhere (MCP).
//!
//! Invariants:
//! - The schema a typed tool is registered with is exactly `schemars::schema_for!(A)`; the
//!   runtime validates every call against it before the handler runs, so the handler's
//!   `serde_json::from_value::<A>` can only fail where the schema is looser than the type
//!   (for example a `u8` field given `300`); that failure becomes the guest's
//!   `(:error "...")` value, never a panic.
//! - An `Err(e)` from a handler becomes `ToolResult::error(e.to_string())`: an ordinary
//!   tool failure the guest sees as `(:error "...")`.
//!
//! ```
//! use ptc_runtime::{Registry, Runner, RunOptions};
//! use schemars::JsonSchema;
//! use serde::Deserialize;
//! use std::sync::Arc;
//!
//! #[derive(Deserialize, JsonSchema)]
//! struct Add {
//!     /// The first addend.
//!     a: i64,
//!     /// The second addend.
//!     b: i64,
//! }
//!
//! let mut registry = Registry::new();
//! registry
//!     .register_typed("Add", "Adds two integers.", |args: Add, _request| async move {
//!         let sum = args.a.checked_add(args.b).ok_or("overflow")?;
//!         Ok::<_, &str>(sum)
//!     })
//!     .unwrap();
//! let runner = Runner::new(Arc::new(registry));
//! let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
//! let outcome = runtime.block_on(runner.run("(+ 1 (Add :a 2 :b 3))", RunOptions::default()));
//! assert_eq!(outcome.text, "6");
//! let outcome = runtime.block_on(runner.run(
//!     "(Add :a 9223372036854775807 :b 1)", RunOptions::default()));
//! assert_eq!(outcome.kind.as_str(), "tool-error");
//! ```

/// The schema derive crate, re-exported so a host derives `JsonSchema` with the same version.
pub use schemars;

use crate::tool::{Registry, ToolRequestCtx};
use ptc_core::{RegistryError, ToolContract, ToolResult};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use std::future::Future;
use std::marker::PhantomData;

/// The handler of a typed tool: deserialises the validated arguments into `A`, runs `F`
/// and converts its answer.
struct TypedHandler<A, F> {
    handler: F,
    arguments: PhantomData<fn(A)>,
}

impl<A, F, Fut, R> crate::tool::ToolHandler for TypedHandler<A, F>
where
    A: DeserializeOwned + Send + 'static,
    F: Fn(A, ToolRequestCtx) -> Fut + Send + Sync,
    Fut: Future<Output = R> + Send + 'static,
    R: Into<ToolResult>,
{
    fn call(&self, request: ToolRequestCtx) -> ptc_core::BoxFuture<ToolResult> {
        match A::deserialize(&*request.arguments) {
            Ok(arguments) => {
                let future = (self.handler)(arguments, request);
                Box::pin(async move { future.await.into() })
            }
            Err(error) => {
                let message = format!("{} arguments do not fit the tool: {error}", request.tool);
                Box::pin(std::future::ready(ToolResult::error(message)))
            }
        }
    }
}

/// The JSON Schema of `A`'s arguments as the runtime validates them: schemars' schema
/// for `A`, with a missing top-level `"type"` set to `"object"` (a unit struct or an empty
/// struct derives `{}` or `true`).
#[must_use]
pub fn schema_of<A: JsonSchema>() -> serde_json::Value {
    let mut schema = serde_json::to_value(schemars::schema_for!(A)).unwrap_or_default();
    match &mut schema {
        serde_json::Value::Object(map) => {
            map.entry("type")
                .or_insert_with(|| serde_json::Value::String("object".into()));
        }
        _ => schema = serde_json::json!({"type": "object"}),
    }
    schema
}

impl Registry {
    /// Registers a tool whose handler takes typed arguments `A`; the input schema is
    /// derived from `A` ([`schema_of`]). The handler gets the deserialised arguments and
    /// the request context, and returns anything `Into<ToolResult>`: a [`ToolResult`], or
    /// a `Result<T: Serialize, E: Display>` so `?` works inside it.
    ///
    /// # Errors
    /// [`RegistryError`] when the name is illegal or taken.
    pub fn register_typed<A, F, Fut, R>(
        &mut self,
        name: impl Into<String>,
        description: impl Into<String>,
        handler: F,
    ) -> Result<&mut Self, RegistryError>
    where
        A: DeserializeOwned + JsonSchema + Send + 'static,
        F: Fn(A, ToolRequestCtx) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: Into<ToolResult> + 'static,
    {
        let contract = ToolContract::new(name, description, schema_of::<A>());
        self.register_typed_contract(contract, handler)
    }

    /// As [`Registry::register_typed`], with a contract the host built (to set a summary
    /// or the standalone flag); its `input_schema` is replaced by [`schema_of::<A>`].
    ///
    /// # Errors
    /// [`RegistryError`] when the name is illegal or taken.
    pub fn register_typed_contract<A, F, Fut, R>(
        &mut self,
        mut contract: ToolContract,
        handler: F,
    ) -> Result<&mut Self, RegistryError>
    where
        A: DeserializeOwned + JsonSchema + Send + 'static,
        F: Fn(A, ToolRequestCtx) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: Into<ToolResult> + 'static,
    {
        contract.input_schema = schema_of::<A>();
        self.register(
            contract,
            TypedHandler {
                handler,
                arguments: PhantomData,
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Read {
        /// The file.
        file_path: String,
        limit: Option<u32>,
    }

    #[derive(Deserialize, JsonSchema)]
    struct Nothing {}

    #[test]
    fn schemas_are_objects_with_required_keys() {
        let schema = schema_of::<Read>();
        assert_eq!(schema["type"], "object");
        assert_eq!(schema["required"], json!(["file_path"]));
        assert_eq!(schema["properties"]["file_path"]["type"], "string");
        assert_eq!(schema_of::<Nothing>()["type"], "object");
    }

    #[test]
    fn results_convert_from_serializable_results() {
        let ok: ToolResult = Ok::<_, String>(json!({"a": 1})).into();
        assert_eq!(ok.structured, Some(json!({"a": 1})));
        assert!(!ok.is_error);
        let err: ToolResult = Err::<(), _>("disk on fire").into();
        assert!(err.is_error);
        assert_eq!(err.joined_text(), "disk on fire");
        let mut keys = std::collections::HashMap::new();
        keys.insert((1, 2), 3);
        let bad: ToolResult = Ok::<_, String>(keys).into();
        assert!(bad.is_error);
        assert!(
            bad.joined_text().contains("not JSON"),
            "{}",
            bad.joined_text()
        );
    }

    #[test]
    fn typed_registration_validates_and_deserialises() {
        let mut registry = Registry::new();
        registry
            .register_typed("Read", "Reads.", |args: Read, _request| async move {
                Ok::<_, String>(args.file_path.len())
            })
            .unwrap();
        let tool = registry.get("Read").unwrap();
        assert_eq!(tool.contract.input_schema, schema_of::<Read>());
        let again =
            registry.register_typed("Read", "", |_: Nothing, _| async { ToolResult::text("") });
        assert_eq!(again.err(), Some(RegistryError::Duplicate("Read".into())));
    }
}
