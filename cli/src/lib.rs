//! The library half of the `ptc` command: the built-in, root-confined workspace tools
//! (Read, Glob, Grep), public so the fuzz target can drive their path handling directly.
//!
//! - [`builtin`]: the tools, their registration and their off-executor worker threads;
//! - [`confine`]: path resolution that never looks outside the root, non-blocking opens of
//!   regular files only, reads bounded by bytes read;
//! - [`walk`]: the directory walk, decided by nothing outside the root.

#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod builtin;
pub mod confine;
pub mod walk;
