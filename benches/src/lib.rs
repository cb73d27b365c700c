//! Benchmarks of ptc side by side with peer engines (issue #5).
//!
//! [`workloads`] owns the shared definitions (inputs built once, expected answers computed
//! in Rust); [`ptc`] runs the ptc programs under `benches/programs/` through the stepping
//! machine; [`peers`] (features `peers` or `luau`) holds the same workloads for Lua 5.4 or
//! Luau (mlua), Rhai and Starlark. Every runner returns the workload's answer so callers
//! check it before timing. The criterion harness is `benches/workloads.rs`; the smoke test
//! (`cargo test -p ptc-benches`) runs each ptc workload once.

#![forbid(unsafe_code)]
#![deny(missing_docs)]

#[cfg(any(feature = "peers", feature = "luau"))]
pub mod peers;
pub mod ptc;
pub mod workloads;
