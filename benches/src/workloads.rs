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
return { fib = fib, loop_sum = loop_sum, list = list, strings = strings, host = host }
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
