//! The peer engines, each with the same workloads as the ptc programs.
//!
//! Each engine module builds its engine and compiles its scripts once, then hands out one
//! `FnMut() -> i64` per workload (the anchors' harness, `perf-anchors.md` §5), so the
//! caller can check the answer and then time the closure.

pub mod lua;
pub mod rhai;
pub mod starlark;

/// One timed case: returns the workload's answer.
pub type Runner = Box<dyn FnMut() -> i64>;
