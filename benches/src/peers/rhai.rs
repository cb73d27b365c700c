//! Rhai (default features, i.e. the checked build that counts operations).
//!
//! The workload functions are compiled once into one AST and called with
//! `call_fn_with_options` (`eval_ast(false)`, a new `Scope` per call). Limits: workload 7
//! sets `max_operations` and an `on_progress` callback that charges a fuel counter.

use super::Runner;
use crate::workloads;
use rhai::{AST, Array, CallFnOptions, Dynamic, Engine, ImmutableString, Scope};
use std::cell::Cell;
use std::rc::Rc;

/// The engine's name in group ids.
pub const NAME: &str = "rhai";

const SCRIPT: &str = r#"
fn fib(n) { if n < 2 { n } else { fib(n - 1) + fib(n - 2) } }
fn loop_sum(n) { let s = 0; for i in 0..n { s += i; } s }
fn list(n) {
    let xs = [];
    for i in 0..n { xs.push(i); }
    let ys = xs.map(|x| x * 2).filter(|x| x % 2 == 0);
    ys.reduce(|sum, x| sum + x, 0)
}
fn strings(text) {
    let kept = text.split("\n").filter(|line| line.contains("needle"));
    let out = "";
    for (line, i) in kept { if i > 0 { out += "\n"; } out += line; }
    out.bytes
}
fn host(paths) {
    let total = 0;
    for p in paths { total += read(p).bytes; }
    total
}
"#;

/// The 10-line request of workload 6.
pub const COLD: &str = r#"let config = #{ name: "job", count: 2 };
let items = ["ab", "c", "de"];
let out = "";
for x in items {
    if x.len() == 2 {
        out += x + config.count.to_string();
    }
}
out.len()
"#;

fn engine() -> Engine {
    let mut engine = Engine::new();
    let content: ImmutableString = workloads::file_content().into();
    engine.register_fn("read", move |path: ImmutableString| {
        assert!(!path.is_empty());
        ImmutableString::from(content.as_str())
    });
    engine
}

fn call(engine: &Engine, ast: &AST, name: &str, argument: Dynamic) -> i64 {
    engine
        .call_fn_with_options::<i64>(
            CallFnOptions::new().eval_ast(false),
            &mut Scope::new(),
            ast,
            name,
            (argument,),
        )
        .unwrap_or_else(|e| panic!("rhai {name}: {e}"))
}

fn compiled(engine: &Engine) -> AST {
    engine
        .compile(SCRIPT)
        .unwrap_or_else(|e| panic!("rhai: {e}"))
}

/// Workloads 1-5 by name (`fib`, `loop_sum`, `list`, `strings`, `host`).
#[must_use]
pub fn runner(workload: &'static str) -> Runner {
    let engine = engine();
    let ast = compiled(&engine);
    let argument: Dynamic = match workload {
        "fib" => workloads::FIB_N.into(),
        "loop_sum" => workloads::LOOP_N.into(),
        "list" => workloads::LIST_N.into(),
        "strings" => Dynamic::from(ImmutableString::from(workloads::text())),
        "host" => {
            let paths: Array = workloads::paths().into_iter().map(Dynamic::from).collect();
            Dynamic::from_array(paths)
        }
        other => panic!("unknown workload {other}"),
    };
    Box::new(move || call(&engine, &ast, workload, argument.clone()))
}

/// Workload 6 on a reused engine (`cold-reuse`) or a new `Engine::new()` per call.
#[must_use]
pub fn cold(reuse: bool) -> Runner {
    if reuse {
        let engine = engine();
        Box::new(move || eval(&engine))
    } else {
        Box::new(|| eval(&engine()))
    }
}

fn eval(engine: &Engine) -> i64 {
    engine
        .eval::<i64>(COLD)
        .unwrap_or_else(|e| panic!("rhai cold: {e}"))
}

/// Workload 7: the loop with `max_operations` and an `on_progress` fuel callback.
#[must_use]
pub fn loop_limited() -> (String, Runner, Rc<Cell<u64>>) {
    let mut engine = engine();
    let fuel = Rc::new(Cell::new(0_u64));
    let counter = Rc::clone(&fuel);
    engine.set_max_operations(u64::MAX / 2);
    engine.on_progress(move |_| {
        fuel.set(fuel.get() + 1);
        None
    });
    let ast = compiled(&engine);
    (
        format!("{NAME}-max-operations+on-progress"),
        Box::new(move || call(&engine, &ast, "loop_sum", workloads::LOOP_N.into())),
        counter,
    )
}
