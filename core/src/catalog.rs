//! The handler-free tool catalog: contracts, their compiled validators and argument plans,
//! the roster the compiler sees, and the results a tool answers with.
//!
//! A tool is added with a [`ToolContract`] (name, description, JSON Schema of its
//! arguments, standalone-only flag, optional one-line summary); its answer is a
//! [`ToolResult`] shaped like MCP's `CallToolResult`. Who runs the tool is not the catalog's
//! business: a sans-IO host answers the envelope's requests itself, and `ptc-runtime`'s
//! `Registry` pairs each catalog entry with an async handler.
//!
//! Invariants:
//! - Every name is a legal guest operator (spec/reference/tools.md) and unique in the
//!   catalog.
//! - Every input schema added with [`Catalog::add`] compiled into a validator then, so a bad
//!   schema is the host's error at startup, never the guest's at run time; its argument
//!   contract ([`crate::contract`]) is summarised once, there too.

use crate::filter::ToolFilter;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

/// What the model and the runtime know about one tool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolContract {
    /// The call name, exactly as the guest writes it in operator position.
    pub name: String,
    /// What the model reads about the tool.
    pub description: String,
    /// JSON Schema of the argument object.
    pub input_schema: serde_json::Value,
    /// Whether the tool may only be the entire, direct expression.
    pub standalone: bool,
    /// A one-line summary for the tool listing; defaults to the description's first
    /// sentence.
    pub summary: Option<String>,
}

impl ToolContract {
    /// A composable tool with no summary.
    #[must_use]
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        input_schema: serde_json::Value,
    ) -> Self {
        ToolContract {
            name: name.into(),
            description: description.into(),
            input_schema,
            standalone: false,
            summary: None,
        }
    }

    /// The same contract, standalone-only when `standalone` is true.
    #[must_use]
    pub fn standalone(mut self, standalone: bool) -> Self {
        self.standalone = standalone;
        self
    }

    /// The same contract with an explicit listing summary.
    #[must_use]
    pub fn summary(mut self, summary: impl Into<String>) -> Self {
        self.summary = Some(summary.into());
        self
    }

    /// The listing summary: the explicit one, else the description's first sentence.
    #[must_use]
    pub fn summary_text(&self) -> String {
        if let Some(summary) = &self.summary {
            return summary.clone();
        }
        first_sentence(&self.description)
    }
}

/// The first sentence of `text`: up to and including the first `.` followed by white
/// space or the end, else the first line.
fn first_sentence(text: &str) -> String {
    let text = text.trim();
    let mut chars = text.char_indices().peekable();
    while let Some((index, c)) = chars.next() {
        if c == '\n' {
            return text.get(..index).unwrap_or(text).trim().to_owned();
        }
        if c == '.' && chars.peek().is_none_or(|(_, next)| next.is_whitespace()) {
            return text.get(..=index).unwrap_or(text).to_owned();
        }
    }
    text.to_owned()
}

/// A media item a tool returned: a reference with a MIME type and a URI or name. The
/// payload bytes, when the host has them, never enter the audit or a journal record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MediaRef {
    /// MIME type, e.g. `image/png`.
    pub mime: String,
    /// Where the item lives, if it has an address.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uri: Option<String>,
    /// A name for it, if it has no address.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The payload, kept only in memory for the host; never serialised.
    #[serde(skip)]
    pub data: Option<Arc<[u8]>>,
}

impl MediaRef {
    /// The same reference without its payload bytes.
    #[must_use]
    pub fn without_payload(&self) -> MediaRef {
        MediaRef {
            data: None,
            ..self.clone()
        }
    }
}

/// One content block of a result (MCP `content`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Content {
    /// Text.
    Text {
        /// The text.
        text: String,
    },
    /// A media reference (image, audio, resource link).
    Media(MediaRef),
}

/// What a handler answers: MCP's `CallToolResult` plus context notes.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ToolResult {
    /// Content blocks, in order.
    pub content: Vec<Content>,
    /// Structured JSON content; when present it is what the guest receives.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured: Option<serde_json::Value>,
    /// The tool ran but failed; the guest receives `(:error "TEXT")`.
    #[serde(default)]
    pub is_error: bool,
    /// Hook context and repair notes; carried into the outer result even when the script
    /// discards this call's value.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

impl ToolResult {
    /// A successful text result.
    #[must_use]
    pub fn text(text: impl Into<String>) -> Self {
        ToolResult {
            content: vec![Content::Text { text: text.into() }],
            ..ToolResult::default()
        }
    }

    /// A successful structured result; its compact JSON text is also a text block, as MCP
    /// recommends for older clients.
    #[must_use]
    pub fn json(value: serde_json::Value) -> Self {
        // `to_string` starts from a 128-byte buffer (`Display` grows from empty).
        let text = serde_json::to_string(&value).unwrap_or_default();
        ToolResult {
            content: vec![Content::Text { text }],
            structured: Some(value),
            ..ToolResult::default()
        }
    }

    /// A successful structured result without content blocks: the guest receives the same
    /// value as from [`ToolResult::json`], and whoever needs the result's text (the audit
    /// preview, a direct call's outcome text, [`ToolResult::joined_text`]) renders the
    /// compact JSON then, so a tool answering a script pays for no text nobody reads. The
    /// one difference a host sees is in [`crate::Outcome::direct_result`]: its `content`
    /// is empty.
    ///
    /// ```
    /// use ptc_core::ToolResult;
    /// use serde_json::json;
    ///
    /// let result = ToolResult::structured(json!({"temp": 11}));
    /// assert!(result.content.is_empty());
    /// assert_eq!(result.joined_text(), ToolResult::json(json!({"temp": 11})).joined_text());
    /// ```
    #[must_use]
    pub fn structured(value: serde_json::Value) -> Self {
        ToolResult {
            structured: Some(value),
            ..ToolResult::default()
        }
    }

    /// The structured value of a result that has no content blocks, whose text is that
    /// value's compact JSON ([`ToolResult::structured`]).
    pub(crate) fn structured_only(&self) -> Option<&serde_json::Value> {
        self.structured.as_ref().filter(|_| self.content.is_empty())
    }

    /// A failed result with `message`.
    #[must_use]
    pub fn error(message: impl Into<String>) -> Self {
        ToolResult {
            is_error: true,
            ..ToolResult::text(message)
        }
    }

    /// The same result with a context note added.
    #[must_use]
    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }

    /// The text blocks joined with newlines; for a result with no content blocks but a
    /// structured value ([`ToolResult::structured`]), that value's compact JSON.
    #[must_use]
    pub fn joined_text(&self) -> String {
        if let Some(value) = self.structured_only() {
            return serde_json::to_string(value).unwrap_or_default();
        }
        let mut out = String::new();
        for block in &self.content {
            if let Content::Text { text } = block {
                if !out.is_empty() {
                    out.push('\n');
                }
                out.push_str(text);
            }
        }
        out
    }

    /// The media references, without payload.
    #[must_use]
    pub fn media(&self) -> Vec<MediaRef> {
        self.content
            .iter()
            .filter_map(|block| match block {
                Content::Media(media) => Some(media.without_payload()),
                Content::Text { .. } => None,
            })
            .collect()
    }
}

impl<T: Serialize, E: fmt::Display> From<Result<T, E>> for ToolResult {
    /// `Ok(value)` is a structured result (its JSON, also as a text block); `Err(e)` is a
    /// failed result with `e`'s text. A value that does not serialise (a map with
    /// non-string keys, a failing `Serialize` impl) is a failed result saying so.
    ///
    /// Note: `T = ToolResult` would serialise the result object itself; return a
    /// `ToolResult` directly (it is `Into<ToolResult>`) to keep its content blocks.
    fn from(result: Result<T, E>) -> Self {
        match result {
            Ok(value) => match serde_json::to_value(value) {
                Ok(json) => ToolResult::json(json),
                Err(error) => ToolResult::error(format!("the tool's result is not JSON: {error}")),
            },
            Err(error) => ToolResult::error(error.to_string()),
        }
    }
}

/// Why a tool could not be registered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RegistryError {
    /// The name is not a legal guest operator.
    #[error("`{0}` is not a legal tool name")]
    IllegalName(String),
    /// The name is already registered.
    #[error("tool `{0}` is registered twice")]
    Duplicate(String),
    /// The input schema does not compile.
    #[error("tool `{name}` has an invalid input schema: {message}")]
    BadSchema {
        /// The tool.
        name: String,
        /// The validator's complaint.
        message: String,
    },
}

/// One tool of a [`Catalog`].
#[derive(Clone)]
pub struct CatalogTool {
    /// Its contract.
    pub contract: ToolContract,
    /// Its compiled argument validator: compiled when added ([`Catalog::add`]), or on the
    /// first call for a tool added with [`Catalog::add_trusted`]. Read it with
    /// [`CatalogTool::validator`].
    validator: std::sync::OnceLock<Result<Arc<jsonschema::Validator>, String>>,
    /// Its argument contract, summarised from the schema for preflight.
    pub args: Arc<ptc_compiler::ArgContract>,
    /// Its argument plan ([`crate::arg_plan`]), made on the first call.
    plan: std::sync::OnceLock<crate::arg_plan::ArgPlan>,
}

impl CatalogTool {
    /// The tool's compiled argument validator, compiling it now if the tool was registered
    /// with [`Catalog::add_trusted`] and this is its first use.
    ///
    /// # Errors
    /// [`RegistryError::BadSchema`] when a trusted schema does not compile (a host bug: a
    /// schema added with [`Catalog::add`] compiled then).
    pub fn validator(&self) -> Result<&jsonschema::Validator, RegistryError> {
        self.validator
            .get_or_init(|| compile_schema(&self.contract.input_schema).map(Arc::new))
            .as_deref()
            .map_err(|message| RegistryError::BadSchema {
                name: self.contract.name.clone(),
                message: message.clone(),
            })
    }

    /// The tool's argument plan ([`crate::arg_plan`]), made from its schema on first use.
    pub(crate) fn plan(&self) -> &crate::arg_plan::ArgPlan {
        self.plan
            .get_or_init(|| crate::arg_plan::ArgPlan::new(&self.contract.input_schema))
    }
}

/// Compiles `schema` (checking it against its draft's meta-schema first).
fn compile_schema(schema: &serde_json::Value) -> Result<jsonschema::Validator, String> {
    jsonschema::validator_for(schema).map_err(|error| error.to_string())
}

impl fmt::Debug for CatalogTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CatalogTool")
            .field("contract", &self.contract)
            .finish_non_exhaustive()
    }
}

/// The host's tools, in the order they were added. Cheap to share behind an `Arc`; a run
/// may use a subset ([`ToolFilter`]) without recompiling any schema.
#[derive(Debug, Default, Clone)]
pub struct Catalog {
    tools: Vec<CatalogTool>,
    index: HashMap<String, usize>,
    /// The fingerprint of the whole roster, computed on first use.
    fingerprint: std::sync::OnceLock<u64>,
    /// The whole roster, built on first use: a compile without a tool filter borrows it
    /// instead of copying every tool's name again.
    roster: std::sync::OnceLock<ptc_compiler::Roster>,
}

/// Up to this many tools, [`Catalog::get`] compares names instead of hashing one.
const FEW_TOOLS: usize = 8;

/// Names reserved besides the compiler's closed tables (spec/reference/tool-calls.md): the envelope tools, the
/// constants and the unquote operators.
const RESERVED: &[&str] = &["ToolCall", "ToolSearch", "nil", "t", ",", ",@"];

/// Whether `name` is a legal tool name for the guest language (spec/reference/tool-calls.md): it reads as exactly
/// one non-keyword symbol of the same name and is not reserved or a primitive.
#[must_use]
pub fn is_legal_tool_name(name: &str) -> bool {
    if name.is_empty() || name.len() > 128 || name.starts_with(':') {
        return false;
    }
    let symbol_char = |c: char| c.is_alphanumeric() || "-+=*/_~!@$%^&<>{}?.".contains(c);
    if !name.chars().all(symbol_char) {
        return false;
    }
    // A name that reads as a number is not a symbol.
    if name.parse::<f64>().is_ok() {
        return false;
    }
    // Special forms, transformers, `defun`/`defmacro` and the primitives.
    !RESERVED.contains(&name) && !ptc_compiler::tables::is_builtin(name)
}

impl Catalog {
    /// An empty catalog.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a tool, compiling its input schema now.
    ///
    /// # Errors
    /// [`RegistryError`] when the name is illegal or taken, or the schema does not compile.
    pub fn add(&mut self, contract: ToolContract) -> Result<&mut Self, RegistryError> {
        self.check_name(&contract.name)?;
        let validator =
            compile_schema(&contract.input_schema).map_err(|message| RegistryError::BadSchema {
                name: contract.name.clone(),
                message,
            })?;
        Ok(self.push(contract, std::sync::OnceLock::from(Ok(Arc::new(validator)))))
    }

    /// Adds a tool whose input schema the host vouches for (a constant it tests, such as a
    /// built-in tool's): the schema's validator is compiled on the tool's first call rather
    /// than now. Compiling the first validator of a process builds JSON Schema's meta-schema
    /// validator, several million instructions; a process that adds only trusted tools and
    /// calls none of them never pays it. A trusted schema that does not compile fails each
    /// call of that tool with [`RegistryError::BadSchema`]'s message, as a refused call.
    ///
    /// # Errors
    /// [`RegistryError`] when the name is illegal or taken.
    pub fn add_trusted(&mut self, contract: ToolContract) -> Result<&mut Self, RegistryError> {
        self.check_name(&contract.name)?;
        Ok(self.push(contract, std::sync::OnceLock::new()))
    }

    fn check_name(&self, name: &str) -> Result<(), RegistryError> {
        if !is_legal_tool_name(name) {
            return Err(RegistryError::IllegalName(name.to_owned()));
        }
        if self.index.contains_key(name) {
            return Err(RegistryError::Duplicate(name.to_owned()));
        }
        Ok(())
    }

    fn push(
        &mut self,
        contract: ToolContract,
        validator: std::sync::OnceLock<Result<Arc<jsonschema::Validator>, String>>,
    ) -> &mut Self {
        let args = Arc::new(crate::contract::summarise(&contract.input_schema));
        self.fingerprint = std::sync::OnceLock::new();
        self.roster = std::sync::OnceLock::new();
        self.index.insert(contract.name.clone(), self.tools.len());
        self.tools.push(CatalogTool {
            contract,
            validator,
            args,
            plan: std::sync::OnceLock::new(),
        });
        self
    }

    /// The tool named `name`.
    #[must_use]
    pub fn get(&self, name: &str) -> Option<&CatalogTool> {
        self.index_of(name).and_then(|i| self.tools.get(i))
    }

    /// The position of the tool named `name`, in the order tools were added.
    #[must_use]
    pub fn index_of(&self, name: &str) -> Option<usize> {
        // A few names compare faster than one keyed hash (every call looks its tool up).
        if self.tools.len() <= FEW_TOOLS {
            return self
                .tools
                .iter()
                .position(|tool| tool.contract.name == name);
        }
        self.index.get(name).copied()
    }

    /// The tool at position `index` ([`Catalog::index_of`]).
    #[must_use]
    pub fn at(&self, index: usize) -> Option<&CatalogTool> {
        self.tools.get(index)
    }

    /// The tools, in registration order.
    pub fn tools(&self) -> impl Iterator<Item = &CatalogTool> {
        self.tools.iter()
    }

    /// The roster the compiler sees: names, standalone flags and argument contracts.
    #[must_use]
    pub fn roster(&self) -> ptc_compiler::Roster {
        self.roster_for(None)
    }

    /// The roster of the tools `filter` allows (all of them without a filter).
    #[must_use]
    pub fn roster_for(&self, filter: Option<&ToolFilter>) -> ptc_compiler::Roster {
        ptc_compiler::Roster {
            tools: self
                .tools
                .iter()
                .filter(|t| filter.is_none_or(|filter| filter.allows(&t.contract.name)))
                .map(|t| ptc_compiler::RosterTool {
                    name: Arc::from(t.contract.name.as_str()),
                    standalone: t.contract.standalone,
                    args: Some(t.args.clone()),
                })
                .collect(),
        }
    }

    /// The roster of every tool, built once per registry (what [`Catalog::roster`]
    /// returns a copy of).
    pub fn whole_roster(&self) -> &ptc_compiler::Roster {
        self.roster.get_or_init(|| self.roster_for(None))
    }

    /// The roster of the tools `filter` allows, borrowed from [`Catalog::whole_roster`]
    /// without a filter.
    pub fn roster_cow(
        &self,
        filter: Option<&ToolFilter>,
    ) -> std::borrow::Cow<'_, ptc_compiler::Roster> {
        match filter {
            None => std::borrow::Cow::Borrowed(self.whole_roster()),
            Some(_) => std::borrow::Cow::Owned(self.roster_for(filter)),
        }
    }

    /// The fingerprint of [`Catalog::roster_for`] `filter`: what a [`crate::Script`]
    /// remembers. Without a filter it is computed once per registry.
    #[must_use]
    pub fn fingerprint_for(&self, filter: Option<&ToolFilter>) -> u64 {
        match filter {
            None => *self
                .fingerprint
                .get_or_init(|| crate::script::roster_fingerprint(self.whole_roster())),
            Some(_) => crate::script::roster_fingerprint(&self.roster_for(filter)),
        }
    }

    /// How many tools the catalog holds.
    #[must_use]
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// Whether the catalog is empty.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_follow_the_roster_policy() {
        for good in ["Imenu", "mcp/server-Probe", "Read", "get_weather"] {
            assert!(is_legal_tool_name(good), "{good}");
        }
        for bad in [
            "nil",
            "t",
            "quote",
            "list",
            "defmacro",
            "ToolSearch",
            "ToolCall",
            ":keyword",
            "two names",
            "a) (b",
            "123",
            "",
        ] {
            assert!(!is_legal_tool_name(bad), "{bad}");
        }
    }

    #[test]
    fn registry_rejects_duplicates_and_bad_schemas() {
        let mut registry = Catalog::new();
        registry
            .add(ToolContract::new("A", "Does a.", json!({"type": "object"})))
            .unwrap();
        let again = registry.add(ToolContract::new("A", "", json!({})));
        assert_eq!(again.err(), Some(RegistryError::Duplicate("A".into())));
        let bad = registry.add(ToolContract::new("B", "", json!({"type": 12})));
        assert!(matches!(bad, Err(RegistryError::BadSchema { .. })));
        assert_eq!(registry.roster().tools.len(), 1);
    }

    #[test]
    fn tools_are_found_by_name_in_small_and_large_registries() {
        for count in [1, FEW_TOOLS, FEW_TOOLS + 1, 3 * FEW_TOOLS] {
            let mut registry = Catalog::new();
            for i in 0..count {
                let contract = ToolContract::new(format!("T{i}"), "", json!({"type": "object"}));
                registry.add(contract).unwrap();
            }
            for i in 0..count {
                let name = format!("T{i}");
                assert_eq!(registry.get(&name).unwrap().contract.name, name);
            }
            assert!(registry.get("T").is_none());
            assert!(registry.get(&format!("T{count}")).is_none());
        }
    }

    #[test]
    fn trusted_schemas_compile_on_first_use() {
        let mut registry = Catalog::new();
        let schema = json!({"type": "object", "required": ["a"]});
        registry
            .add_trusted(ToolContract::new("A", "", schema))
            .unwrap();
        // A trusted schema is not compiled at registration: a bad one registers...
        registry
            .add_trusted(ToolContract::new("B", "", json!({"type": 12})))
            .unwrap();
        // ... the name checks still hold ...
        let again = registry.add_trusted(ToolContract::new("A", "", json!({})));
        assert_eq!(again.err(), Some(RegistryError::Duplicate("A".into())));
        // ... and the first use compiles it (once) or says why it cannot.
        let a = registry.get("A").unwrap();
        assert!(!a.validator().unwrap().is_valid(&json!({})));
        assert!(a.validator().unwrap().is_valid(&json!({"a": 1})));
        let b = registry.get("B").unwrap();
        assert!(matches!(b.validator(), Err(RegistryError::BadSchema { name, .. }) if name == "B"));
        assert!(b.validator().is_err());
    }

    #[test]
    fn summaries_default_to_the_first_sentence() {
        let contract = ToolContract::new("A", "Reads a file. Then more.", json!({}));
        assert_eq!(contract.summary_text(), "Reads a file.");
        let contract = ToolContract::new("A", "Version 1.2 reads\nsecond line", json!({}));
        assert_eq!(contract.summary_text(), "Version 1.2 reads");
        assert_eq!(contract.summary("S").summary_text(), "S");
    }
}
