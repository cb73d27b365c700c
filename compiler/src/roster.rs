//! The tools a script may call, as the compiler sees them: names and the standalone-only
//! flag. Contracts, schemas and handlers belong to the runtime.

/// One callable tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RosterTool {
    /// The call name, exactly as the guest writes it in operator position.
    pub name: String,
    /// Whether the tool may only be called as the entire, direct expression.
    pub standalone: bool,
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
    pub fn tool(mut self, name: impl Into<String>) -> Self {
        self.tools.push(RosterTool {
            name: name.into(),
            standalone: false,
        });
        self
    }

    /// Adds a standalone-only tool.
    #[must_use]
    pub fn standalone(mut self, name: impl Into<String>) -> Self {
        self.tools.push(RosterTool {
            name: name.into(),
            standalone: true,
        });
        self
    }

    /// The tool named `name`.
    #[must_use]
    pub fn get(&self, name: &str) -> Option<&RosterTool> {
        self.tools.iter().find(|t| t.name == name)
    }
}
