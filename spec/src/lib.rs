//! placeholder crate root; filled by its issue.
