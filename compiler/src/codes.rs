//! The reader's diagnostic codes (spec/reference/diagnostics.md): a leaf, so the lexer, the
//! parsers and the reader name them without depending on each other.

/// Script exceeds the byte limit (`input`).
pub const INPUT_BYTES: &str = "E0001";
/// Script nesting exceeds the depth limit (`input`).
pub const DEPTH: &str = "E0002";
/// Script exceeds the node limit (`input`).
pub const NODES: &str = "E0003";
/// Script is empty (`script`).
pub const EMPTY: &str = "E0004";
/// End of file during parsing (`script`).
pub const END_OF_FILE: &str = "E0005";
/// Invalid read syntax (`script`).
pub const INVALID_SYNTAX: &str = "E0006";
/// Improper list in script (`script`).
pub const IMPROPER_LIST: &str = "E0007";
/// Unsupported literal of type TYPE in script (`script`).
pub const UNSUPPORTED_LITERAL: &str = "E0008";
/// Reader labels are not supported (`script`).
pub const READER_LABEL: &str = "E0009";
/// Guest integer exceeds its bit budget (`value`).
pub const INTEGER_BUDGET: &str = "E0010";
/// Invalid escape character syntax (`script`).
pub const INVALID_ESCAPE: &str = "E0011";
/// Invalid modifier in string (`script`).
pub const INVALID_MODIFIER: &str = "E0012";
/// Non-Unicode character (`script`).
pub const NON_UNICODE: &str = "E0013";
