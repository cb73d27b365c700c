//! The tools a script may call, as the compiler sees them: names, the standalone-only
//! flag, and each tool's argument contract. Schemas, validators and handlers belong to the
//! runtime; the runtime summarises each JSON Schema into an [`ArgContract`] (a small plain
//! type, no JSON library), which preflight uses to judge literal arguments.
//!
//! Invariant: a contract only ever states *necessary* conditions of the runtime's
//! validation (declared keys of a closed object, required keys, the `type` and `enum` of a
//! property). Whatever a schema says that the summary cannot express is left out, so a
//! contract can check less than the schema, never more.

use std::sync::Arc;

/// A JSON type name of JSON Schema's `type` keyword.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum JsonType {
    /// `null`.
    Null,
    /// `boolean`.
    Boolean,
    /// `integer` (a number with no fractional part).
    Integer,
    /// `number` (includes every integer).
    Number,
    /// `string`.
    String,
    /// `array`.
    Array,
    /// `object`.
    Object,
}

/// The JSON Schema type names, their types, and how listings and messages name them.
pub const JSON_TYPES: [(&str, JsonType, &str, &str); 7] = [
    ("null", JsonType::Null, "NULL", "null"),
    ("boolean", JsonType::Boolean, "BOOLEAN", "a boolean"),
    ("integer", JsonType::Integer, "INTEGER", "an integer"),
    ("number", JsonType::Number, "NUMBER", "a number"),
    ("string", JsonType::String, "STRING", "a string"),
    ("array", JsonType::Array, "ARRAY", "an array"),
    ("object", JsonType::Object, "OBJECT", "an object"),
];

impl JsonType {
    /// The type named `name` in a schema's `type` keyword.
    #[must_use]
    pub fn from_schema_name(name: &str) -> Option<JsonType> {
        JSON_TYPES
            .iter()
            .find(|(n, ..)| *n == name)
            .map(|(_, t, ..)| *t)
    }

    /// The listing placeholder: `STRING`, `INTEGER`, ...
    #[must_use]
    pub fn placeholder(self) -> &'static str {
        JSON_TYPES
            .iter()
            .find(|(_, t, ..)| *t == self)
            .map_or("ANY", |(_, _, p, _)| p)
    }

    /// The phrase of messages: `a string`, `an integer`, ...
    #[must_use]
    pub fn phrase(self) -> &'static str {
        JSON_TYPES
            .iter()
            .find(|(_, t, ..)| *t == self)
            .map_or("a value", |(.., p)| p)
    }
}

/// One member of a property's `enum`, as far as preflight compares it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Allowed {
    /// A string member.
    Str(String),
    /// An integer member that fits in 64 bits.
    Int(i64),
    /// `true` or `false`.
    Bool(bool),
    /// `null`.
    Null,
    /// Any other member (a float, a large number, an array, an object): never compared.
    Other,
}

/// What the contract says about one declared argument.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ArgSpec {
    /// The JSON key (the keyword without its colon).
    pub name: String,
    /// The accepted JSON types; empty when the schema states none the summary can use.
    pub types: Vec<JsonType>,
    /// The `enum` members, when the schema has a usable `enum`.
    pub allowed: Option<Vec<Allowed>>,
}

/// A tool's argument contract, summarised from its JSON Schema by the runtime.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ArgContract {
    /// The declared arguments, in declaration order.
    pub args: Vec<ArgSpec>,
    /// The required keys, in the schema's order (possibly undeclared ones).
    pub required: Vec<String>,
    /// Whether an undeclared key is refused (the runtime refuses it before validation).
    pub closed: bool,
}

impl ArgContract {
    /// The declared argument `name`.
    #[must_use]
    pub fn arg(&self, name: &str) -> Option<&ArgSpec> {
        self.args.iter().find(|a| a.name == name)
    }

    /// Whether `name` is required.
    #[must_use]
    pub fn is_required(&self, name: &str) -> bool {
        self.required.iter().any(|r| r == name)
    }
}

/// One callable tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RosterTool {
    /// The call name, exactly as the guest writes it in operator position (shared: every
    /// program compiled against the roster holds the same name).
    pub name: Arc<str>,
    /// Whether the tool may only be called as the entire, direct expression.
    pub standalone: bool,
    /// The argument contract; `None` checks nothing about the arguments (not even the
    /// `:keyword value` shape).
    pub args: Option<Arc<ArgContract>>,
}

/// The request's tools, in registration order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Roster {
    /// The tools.
    pub tools: Vec<RosterTool>,
}

impl Roster {
    /// An empty roster.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a composable tool.
    #[must_use]
    pub fn tool(mut self, name: impl Into<Arc<str>>) -> Self {
        self.tools.push(RosterTool {
            name: name.into(),
            standalone: false,
            args: None,
        });
        self
    }

    /// Adds a standalone-only tool.
    #[must_use]
    pub fn standalone(mut self, name: impl Into<Arc<str>>) -> Self {
        self.tools.push(RosterTool {
            name: name.into(),
            standalone: true,
            args: None,
        });
        self
    }

    /// Gives the last added tool the argument contract `contract`.
    #[must_use]
    pub fn with_args(mut self, contract: ArgContract) -> Self {
        if let Some(tool) = self.tools.last_mut() {
            tool.args = Some(Arc::new(contract));
        }
        self
    }

    /// The tool named `name`.
    #[must_use]
    pub fn get(&self, name: &str) -> Option<&RosterTool> {
        self.tools.iter().find(|t| &*t.name == name)
    }
}
