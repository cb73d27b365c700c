//! Starlark (starlark-rust, Extended dialect for top-level statements in workload 6).
//!
//! The workload functions are evaluated once into a frozen module; each call makes a
//! temporary-heap module that imports it and evaluates a pre-parsed one-line call (the
//! anchors used `eval_function`, `perf-anchors.md` §4; see [`runner`]). starlark-rust has no public operation limit,
//! so workload 7 has no Starlark case.

use super::Runner;
use crate::workloads;
use starlark::environment::{FrozenModule, Globals, GlobalsBuilder, Module};
use starlark::eval::Evaluator;
use starlark::starlark_module;
use starlark::syntax::{AstModule, Dialect};
use starlark::values::UnpackValue;
use std::sync::OnceLock;

/// The engine's name in group ids.
pub const NAME: &str = "starlark";

const SCRIPT: &str = r#"
def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)

def loop_sum(n):
    s = 0
    for i in range(n):
        s += i
    return s

def list(n):
    xs = []
    for i in range(n):
        xs.append(i)
    ys = [x for x in [x * 2 for x in xs] if x % 2 == 0]
    total = 0
    for y in ys:
        total += y
    return total

def strings(n):
    return len("\n".join([l for l in TEXT.split("\n") if "needle" in l]))

def host(n):
    total = 0
    for p in PATHS:
        total += len(read(p))
    return total
"#;

/// The 10-line request of workload 6.
pub const COLD: &str = r#"config = {"name": "job", "count": 2}
items = ["ab", "c", "de"]
out = ""
for x in items:
    if len(x) == 2:
        out = out + x + str(config["count"])
len(out)
"#;

fn file_content() -> &'static str {
    static CONTENT: OnceLock<String> = OnceLock::new();
    CONTENT.get_or_init(workloads::file_content)
}

#[starlark_module]
fn host_functions(builder: &mut GlobalsBuilder) {
    fn read(path: &str) -> starlark::Result<String> {
        assert!(!path.is_empty());
        Ok(file_content().to_owned())
    }
}

fn globals() -> Globals {
    GlobalsBuilder::standard().with(host_functions).build()
}

fn dialect() -> Dialect {
    Dialect {
        enable_top_level_stmt: true,
        ..Dialect::Standard
    }
}

fn frozen(globals: &Globals) -> FrozenModule {
    let ast = AstModule::parse("workloads.star", SCRIPT.to_owned(), &dialect())
        .unwrap_or_else(|e| panic!("starlark: {e}"));
    Module::with_temp_heap(|module| {
        let heap = module.heap();
        module.set("TEXT", heap.alloc(workloads::text()));
        let paths: Vec<String> = workloads::paths();
        module.set("PATHS", heap.alloc(paths));
        let mut eval = Evaluator::new(&module);
        eval.eval_module(ast, globals)
            .unwrap_or_else(|e| panic!("starlark: {e}"));
        drop(eval);
        module
            .freeze()
            .unwrap_or_else(|e| panic!("starlark: {e:?}"))
    })
}

/// Workloads 1-5 by name (`fib`, `loop_sum`, `list`, `strings`, `host`).
///
/// Per call: a temporary-heap module imports the frozen one and evaluates a pre-parsed
/// one-line call such as `fib(25)` (cloned AST). starlark 0.14's `Module::get` does not see
/// imported (private) names and there is no safe way to carry a frozen function value into
/// the temporary heap's lifetime, so the call goes through `eval_module`.
#[must_use]
pub fn runner(workload: &'static str) -> Runner {
    let globals = globals();
    let frozen = frozen(&globals);
    let call = match workload {
        "fib" => format!("fib({})", workloads::FIB_N),
        "loop_sum" => format!("loop_sum({})", workloads::LOOP_N),
        "list" => format!("list({})", workloads::LIST_N),
        "strings" | "host" => format!("{workload}(0)"),
        other => panic!("unknown workload {other}"),
    };
    let ast =
        AstModule::parse("call.star", call, &dialect()).unwrap_or_else(|e| panic!("starlark: {e}"));
    Box::new(move || {
        Module::with_temp_heap(|module| {
            module.import_public_symbols(&frozen);
            let mut eval = Evaluator::new(&module);
            let value = eval
                .eval_module(ast.clone(), &globals)
                .unwrap_or_else(|e| panic!("starlark {workload}: {e}"));
            i64::unpack_value(value)
                .ok()
                .flatten()
                .unwrap_or_else(|| panic!("starlark {workload}: not an int"))
        })
    })
}

/// Workload 6 with `Globals` built once (`cold-reuse`) or `Globals::standard()` per call.
#[must_use]
pub fn cold(reuse: bool) -> Runner {
    if reuse {
        let globals = Globals::standard();
        Box::new(move || eval_cold(&globals))
    } else {
        Box::new(|| eval_cold(&Globals::standard()))
    }
}

fn eval_cold(globals: &Globals) -> i64 {
    let ast = AstModule::parse("cold.star", COLD.to_owned(), &dialect())
        .unwrap_or_else(|e| panic!("starlark cold: {e}"));
    Module::with_temp_heap(|module| {
        let mut eval = Evaluator::new(&module);
        let value = eval
            .eval_module(ast, globals)
            .unwrap_or_else(|e| panic!("starlark cold: {e}"));
        i64::unpack_value(value)
            .ok()
            .flatten()
            .unwrap_or_else(|| panic!("starlark cold: not an int"))
    })
}
