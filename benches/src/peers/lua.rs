//! Lua 5.4 (feature `peers`) or Luau (feature `luau`) through mlua, vendored.
//!
//! The workload functions come from one chunk ([`lua_sources::CHUNK`]); calls go through
//! `Function::call`. Limits: Lua 5.4's count hook every N instructions, Luau's interrupt;
//! each callback charges a `Cell<u64>` fuel counter and continues, as a metering host would.

use super::Runner;
use crate::workloads::{self, lua_sources};
use mlua::{Function, Lua, Table, VmState};
use std::cell::Cell;
use std::rc::Rc;

/// The engine's name in group ids.
pub const NAME: &str = if cfg!(feature = "luau") {
    "luau"
} else {
    "lua54"
};

fn fail(error: &mlua::Error) -> i64 {
    panic!("{NAME}: {error}")
}

/// A Lua state with the workload functions and the host `read`.
fn state() -> (Lua, Table) {
    let lua = Lua::new();
    let content = workloads::file_content();
    let read = lua
        .create_function(move |lua, path: mlua::LuaString| {
            assert!(!path.as_bytes().is_empty());
            lua.create_string(&content)
        })
        .unwrap_or_else(|e| panic!("{e}"));
    lua.globals()
        .set("read", read)
        .unwrap_or_else(|e| panic!("{e}"));
    let table: Table = lua
        .load(lua_sources::CHUNK)
        .eval()
        .unwrap_or_else(|e| panic!("{e}"));
    (lua, table)
}

/// Keeps the state alive inside a runner (mlua values hold only a weak reference to it).
fn keep(_lua: &Lua) -> i64 {
    0
}

fn function(table: &Table, name: &str) -> Function {
    table.get(name).unwrap_or_else(|e| panic!("{e}"))
}

/// Workloads 1-5 by name (`fib`, `loop_sum`, `list`, `strings`, `host`) and issue #16's
/// `closures`, `plist`, `build` (Lua 5.4 and Luau only).
#[must_use]
pub fn runner(workload: &str) -> Runner {
    let (lua, table) = state();
    let f = function(&table, workload);
    match workload {
        "fib" => Box::new(move || {
            keep(&lua) + f.call::<i64>(workloads::FIB_N).unwrap_or_else(|e| fail(&e))
        }),
        "loop_sum" => Box::new(move || {
            keep(&lua)
                + f.call::<i64>(workloads::LOOP_N)
                    .unwrap_or_else(|e| fail(&e))
        }),
        "list" => Box::new(move || {
            keep(&lua)
                + f.call::<i64>(workloads::LIST_N)
                    .unwrap_or_else(|e| fail(&e))
        }),
        "strings" => {
            let text = lua
                .create_string(workloads::text())
                .unwrap_or_else(|e| panic!("{e}"));
            Box::new(move || keep(&lua) + f.call::<i64>(text.clone()).unwrap_or_else(|e| fail(&e)))
        }
        "host" => {
            let paths = lua
                .create_sequence_from(workloads::paths())
                .unwrap_or_else(|e| panic!("{e}"));
            Box::new(move || keep(&lua) + f.call::<i64>(paths.clone()).unwrap_or_else(|e| fail(&e)))
        }
        "closures" => Box::new(move || {
            keep(&lua)
                + f.call::<i64>(workloads::CLOSURES_N)
                    .unwrap_or_else(|e| fail(&e))
        }),
        "plist" => Box::new(move || {
            keep(&lua)
                + f.call::<i64>((workloads::PLIST_ROUNDS, workloads::PLIST_ENTRIES))
                    .unwrap_or_else(|e| fail(&e))
        }),
        "build" => Box::new(move || {
            keep(&lua)
                + f.call::<i64>(workloads::BUILD_LINES)
                    .unwrap_or_else(|e| fail(&e))
        }),
        other => panic!("unknown workload {other}"),
    }
}

/// Workload 6 on a reused state (`cold-reuse`) or a new state per call (`cold-new`).
#[must_use]
pub fn cold(reuse: bool) -> Runner {
    if reuse {
        let lua = Lua::new();
        Box::new(move || {
            lua.load(lua_sources::COLD)
                .eval::<i64>()
                .unwrap_or_else(|e| fail(&e))
        })
    } else {
        Box::new(|| {
            let lua = Lua::new();
            lua.load(lua_sources::COLD)
                .eval::<i64>()
                .unwrap_or_else(|e| fail(&e))
        })
    }
}

/// Workload 7: the loop with the engine's limit mechanism on. Returns the runner and the
/// counter the callback charges.
#[must_use]
pub fn loop_limited() -> (String, Runner, Rc<Cell<u64>>) {
    let (lua, table) = state();
    let fuel = Rc::new(Cell::new(0_u64));
    let f = function(&table, "loop_sum");
    let counter = Rc::clone(&fuel);
    let fuel_cell = Rc::clone(&fuel);
    install_limit(&lua, fuel_cell);
    let name = limit_name();
    (
        name,
        Box::new(move || {
            let _keep = &lua;
            f.call::<i64>(workloads::LOOP_N)
                .unwrap_or_else(|e| fail(&e))
        }),
        counter,
    )
}

#[cfg(not(feature = "luau"))]
const HOOK_EVERY: u32 = 1_000;

#[cfg(not(feature = "luau"))]
fn limit_name() -> String {
    format!("{NAME}-hook-every-{HOOK_EVERY}")
}

#[cfg(feature = "luau")]
fn limit_name() -> String {
    format!("{NAME}-interrupt")
}

#[cfg(not(feature = "luau"))]
fn install_limit(lua: &Lua, fuel: Rc<Cell<u64>>) {
    lua.set_hook(
        mlua::HookTriggers::new().every_nth_instruction(HOOK_EVERY),
        move |_, _| {
            fuel.set(fuel.get() + u64::from(HOOK_EVERY));
            Ok(VmState::Continue)
        },
    )
    .unwrap_or_else(|e| panic!("{e}"));
}

#[cfg(feature = "luau")]
fn install_limit(lua: &Lua, fuel: Rc<Cell<u64>>) {
    lua.set_interrupt(move |_| {
        fuel.set(fuel.get() + 1);
        Ok(VmState::Continue)
    });
}
