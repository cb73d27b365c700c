//! The workloads of issue #5: their inputs, expected answers and the ptc program texts.
//!
//! Inputs are deterministic and built once, outside any timing. Expected answers are
//! computed here in plain Rust, independently of every engine.

/// fib(25).
pub const FIB_N: i64 = 25;
/// Expected fib(25).
pub const FIB_EXPECTED: i64 = 75_025;
/// Loop bound of workload 2.
pub const LOOP_N: i64 = 1_000_000;
/// Expected sum of 0..LOOP_N.
pub const LOOP_EXPECTED: i64 = 499_999_500_000;
/// List length of workload 3.
pub const LIST_N: i64 = 10_000;
/// Expected sum of the doubled, even-filtered list.
pub const LIST_EXPECTED: i64 = 99_990_000;
/// The substring workload 4 keeps lines by.
pub const NEEDLE: &str = "needle";
/// Host calls in workload 5.
pub const HOST_CALLS: usize = 100;
/// Bytes each host `read` returns.
pub const FILE_BYTES: usize = 1024;
/// Expected total length of workload 5.
pub const HOST_EXPECTED: i64 = 102_400;
/// Expected answer of the cold request (workload 6).
pub const COLD_EXPECTED: i64 = 6;
/// Calls in the fan-out batch (workload 9).
pub const FANOUT_CALLS: usize = 256;
/// Concurrent calls in the fan-out (workload 9).
pub const FANOUT_CONCURRENCY: usize = 16;
/// Sleep of each fan-out call, in milliseconds.
pub const FANOUT_SLEEP_MS: u64 = 1;
/// Closures created and called in the closures workload (issue #16).
pub const CLOSURES_N: i64 = 10_000;
/// Expected sum of `(+ 1 i)` over the closures' captured `i` in 0..CLOSURES_N.
pub const CLOSURES_EXPECTED: i64 = CLOSURES_N * (CLOSURES_N + 1) / 2;
/// Entries (key/value pairs) of the plist workload's plist.
pub const PLIST_ENTRIES: i64 = 50;
/// Rounds over all keys in the plist workload: `PLIST_ROUNDS * PLIST_ENTRIES` = 100 000
/// lookups.
pub const PLIST_ROUNDS: i64 = 2_000;
/// Expected sum of every looked-up value (key `:kI` holds `I`).
pub const PLIST_EXPECTED: i64 = PLIST_ROUNDS * PLIST_ENTRIES * (PLIST_ENTRIES - 1) / 2;
/// Lines appended one `concat` at a time in the string-building workload.
pub const BUILD_LINES: i64 = 2_500;
/// Calls in each primitive-call case.
pub const PRIM_CALLS: i64 = 100_000;
/// The primitive-call cases: a name and the expression called [`PRIM_CALLS`] times with
/// two small arguments (`baseline` is the same loop with a variable instead of a call, so
/// a case's overhead per call is its count minus the baseline's, over [`PRIM_CALLS`]).
pub const PRIM_CASES: [(&str, &str); 5] = [
    ("baseline", "p"),
    ("plist-get", "(plist-get p :a)"),
    ("assq", "(assq 'a al)"),
    ("nth", "(nth 0 al)"),
    ("equal", "(equal s \"ab\")"),
];

/// ptc program texts (`benches/programs/*.lisp`).
pub mod programs {
    /// Workload 1.
    pub const FIB: &str = include_str!("../programs/fib25.lisp");
    /// Workload 2 (and 7).
    pub const LOOP: &str = include_str!("../programs/loop_sum.lisp");
    /// Workload 3.
    pub const LIST: &str = include_str!("../programs/list_map_filter_sum.lisp");
    /// Workload 4.
    pub const STRINGS: &str = include_str!("../programs/string_lines.lisp");
    /// Workload 5.
    pub const HOST: &str = include_str!("../programs/host_read_x100.lisp");
    /// Workload 6.
    pub const COLD: &str = include_str!("../programs/cold_tiny.lisp");
    /// Workload 8, with `@N@` standing for the list length and the iteration count.
    pub const SHARED_LIST: &str = include_str!("../programs/shared_list.lisp");
    /// Workload 9.
    pub const FANOUT: &str = include_str!("../programs/fanout256.lisp");
    /// Closures (issue #16), `@N@` the count.
    pub const CLOSURES: &str = include_str!("../programs/closures.lisp");
    /// `plist-get` on a 50-entry plist (issue #16).
    pub const PLIST: &str = include_str!("../programs/plist_get.lisp");
    /// A string built by `concat`, split, joined, upcased (issue #16).
    pub const BUILD: &str = include_str!("../programs/string_build.lisp");
    /// A primitive called in a loop (issue #16), `@EXPR@` the call.
    pub const PRIM: &str = include_str!("../programs/prim_call.lisp");
}

/// The closures workload: 10 000 closures made by a function, then each called once.
#[must_use]
pub fn closures_source() -> String {
    programs::CLOSURES.replace("@N@", &CLOSURES_N.to_string())
}

/// The plist workload: a plist `(:k0 0 :k1 1 ...)` of [`PLIST_ENTRIES`] entries, every key
/// looked up [`PLIST_ROUNDS`] times.
#[must_use]
pub fn plist_source() -> String {
    let keys: Vec<String> = (0..PLIST_ENTRIES).map(|i| format!(":k{i}")).collect();
    let plist: Vec<String> = (0..PLIST_ENTRIES).map(|i| format!(":k{i} {i}")).collect();
    programs::PLIST
        .replace("@PLIST@", &plist.join(" "))
        .replace("@KEYS@", &keys.join(" "))
        .replace("@ROUNDS@", &PLIST_ROUNDS.to_string())
}

/// One line of the string-building workload, as both engines append it.
#[must_use]
pub fn build_line(i: i64) -> String {
    format!("line {i}: lorem ipsum dolor sit amet, consectetur\n")
}

/// The string-building workload: [`BUILD_LINES`] appends, then split on newlines, joined
/// with commas, upcased; the answer is the length.
#[must_use]
pub fn build_source() -> String {
    programs::BUILD.replace("@N@", &BUILD_LINES.to_string())
}

/// Expected answer of the string-building workload: split keeps the empty string after
/// the last newline, so the joined text is as long as the built one.
#[must_use]
pub fn build_expected() -> i64 {
    let text: String = (0..BUILD_LINES).map(build_line).collect();
    let joined = text.split('\n').collect::<Vec<_>>().join(",");
    i64::try_from(joined.to_uppercase().len()).unwrap_or(i64::MAX)
}

/// A primitive-call case's program: `expr` evaluated [`PRIM_CALLS`] times.
#[must_use]
pub fn prim_source(expr: &str) -> String {
    programs::PRIM
        .replace("@EXPR@", expr)
        .replace("@N@", &PRIM_CALLS.to_string())
}

/// The text of workload 4: 1 427 lines of 61 to 84 bytes, every 10th containing
/// [`NEEDLE`], 104 086 bytes in all (the kept lines join to 10 786 bytes).
#[must_use]
pub fn text() -> String {
    const WORDS: [&str; 8] = [
        "lorem",
        "ipsum",
        "dolor",
        "sit",
        "amet",
        "consectetur",
        "adipiscing",
        "elit",
    ];
    let mut text = String::new();
    for line in 0..1_427_usize {
        if line > 0 {
            text.push('\n');
        }
        text.push_str(&format!("{line:05}:"));
        let mut words = 0;
        while words < 8 + line % 4 {
            text.push(' ');
            text.push_str(WORDS[(line + words) % WORDS.len()]);
            words += 1;
        }
        if line % 10 == 0 {
            text.push_str(" needle");
        }
    }
    text
}

/// Expected answer of workload 4: the byte length of the kept lines joined by newlines.
#[must_use]
pub fn strings_expected(text: &str) -> i64 {
    let kept: Vec<&str> = text.split('\n').filter(|l| l.contains(NEEDLE)).collect();
    i64::try_from(kept.join("\n").len()).unwrap_or(i64::MAX)
}

/// The 100 paths of workload 5, as in `programs/host_read_x100.lisp`.
#[must_use]
pub fn paths() -> Vec<String> {
    (0..HOST_CALLS)
        .map(|i| format!("/data/file-{i:03}.txt"))
        .collect()
}

/// The 1 KiB content every `read` returns a fresh copy of.
#[must_use]
pub fn file_content() -> String {
    "abcdefghijklmnop".repeat(FILE_BYTES / 16)
}

/// Expected answer of workload 8 for a list of `n` elements passed `n` times.
#[must_use]
pub fn shared_list_expected(n: i64) -> i64 {
    n * (n - 1)
}

/// The 10-line request of workload 6 in each peer's syntax, and the function-returning
/// forms of the other workloads, live with each peer; this is the Lua text shared by
/// Lua 5.4 and Luau.
pub mod lua_sources {
    /// Workloads 1-5 as one chunk returning a table of functions.
    pub const CHUNK: &str = r#"
local function fib(n) if n < 2 then return n end return fib(n-1) + fib(n-2) end
local function loop_sum(n) local s = 0 for i = 0, n - 1 do s = s + i end return s end
local function map(t, f) local r = {} for i = 1, #t do r[i] = f(t[i]) end return r end
local function filter(t, f) local r = {} for i = 1, #t do if f(t[i]) then r[#r+1] = t[i] end end return r end
local function list(n)
  local xs = {}
  for i = 0, n - 1 do xs[#xs+1] = i end
  local ys = filter(map(xs, function(x) return x * 2 end), function(x) return x % 2 == 0 end)
  local total = 0
  for i = 1, #ys do total = total + ys[i] end
  return total
end
local function strings(text)
  local kept = {}
  for line in string.gmatch(text, "[^\n]+") do
    if string.find(line, "needle", 1, true) then kept[#kept+1] = line end
  end
  return #table.concat(kept, "\n")
end
local function host(paths)
  local total = 0
  for i = 1, #paths do total = total + #read(paths[i]) end
  return total
end
local function closures(n)
  local fs = {}
  for i = 0, n - 1 do fs[#fs+1] = function(x) return x + i end end
  local total = 0
  for i = 1, #fs do total = total + fs[i](1) end
  return total
end
local function plist(rounds, entries)
  local t, keys = {}, {}
  for i = 0, entries - 1 do keys[#keys+1] = "k" .. i; t["k" .. i] = i end
  local total = 0
  for r = 1, rounds do
    for j = 1, #keys do total = total + t[keys[j]] end
  end
  return total
end
local function build(n)
  local s = ""
  for i = 0, n - 1 do s = s .. "line " .. tostring(i) .. ": lorem ipsum dolor sit amet, consectetur\n" end
  local parts = {}
  for line in string.gmatch(s, "([^\n]*)\n") do parts[#parts+1] = line end
  parts[#parts+1] = ""
  return #string.upper(table.concat(parts, ","))
end
return { fib = fib, loop_sum = loop_sum, list = list, strings = strings, host = host,
         closures = closures, plist = plist, build = build }
"#;
    /// The 10-line request of workload 6.
    pub const COLD: &str = r#"local config = { name = "job", count = 2 }
local items = { "ab", "c", "de" }
local out = ""
for _, x in ipairs(items) do
  if #x == 2 then
    out = out .. x .. tostring(config.count)
  end
end
return #out
"#;
}
