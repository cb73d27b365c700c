#!/usr/bin/env bash
# Instruction counts (callgrind) and best wall times of issue #16's workloads, ptc with fuel
# metering on beside Debian's Lua 5.4, in one run. Build first:
#   cargo build --release -p ptc-benches --example profile
# then `benches/callgrind.sh` (valgrind and lua5.4 on PATH; LUA=... to use another).
# ptc: the warm measured call of `examples/profile.rs` (--toggle-collect=*profile_measure*).
# Lua: callgrind cannot toggle on a Lua function, so one warm run is the instructions of
# `workloads.lua NAME 2` minus those of `workloads.lua NAME 1` (start-up cancels out).
# Wall: best of WALL_RUNS (default 20) warm runs, each engine's own clock (os.clock: CPU).
set -euo pipefail
cd "$(dirname "$0")/.."
profile=target/release/examples/profile
lua=${LUA:-lua5.4}
runs=${WALL_RUNS:-20}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# shellcheck source=benches/callgrind-lib.sh
source benches/callgrind-lib.sh

ptc_count() { instructions --toggle-collect='*profile_measure*' "$profile" "$1" 1; }
ptc_wall() { "$profile" "$1" "$runs" | sed -n 's/.*best \(.*\))$/\1/p'; }
lua_count() {
  local two one
  two=$(instructions "$lua" benches/lua/workloads.lua "$1" 2)
  one=$(instructions "$lua" benches/lua/workloads.lua "$1" 1)
  echo $((two - one))
}
lua_wall() { "$lua" benches/lua/workloads.lua "$1" "$runs" | sed -n 's/.*best \(.*\)$/\1/p'; }

echo "| workload | ptc instructions | Lua 5.4 instructions | ptc / Lua | ptc best wall | Lua best wall |"
echo "|---|---|---|---|---|---|"
for pair in fib25:fib loop:loop_sum list:list build:build closures:closures plist:plist cold:cold; do
  ptc_name=${pair%%:*} lua_name=${pair##*:}
  p=$(ptc_count "$ptc_name")
  l=$(lua_count "$lua_name")
  ratio=$(awk -v p="$p" -v l="$l" 'BEGIN {printf "%.2f", p / l}')
  echo "| $ptc_name | $p | $l | $ratio | $(ptc_wall "$ptc_name") | $(lua_wall "$lua_name") |"
done
echo
echo "| primitive call (100 000 calls, 2 small arguments) | instructions | per call over the baseline loop |"
echo "|---|---|---|"
base=$(ptc_count prim-baseline)
echo "| baseline (a variable, no call) | $base | 0 |"
for case in plist-get assq nth equal; do
  c=$(ptc_count "prim-$case")
  echo "| $case | $c | $(( (c - base) / 100000 )) |"
done
echo
metered=$(ptc_count loop)
unmetered=$(ptc_count loop-unmetered)
echo "| metering overhead (loop, metered / unmetered instructions) | $metered / $unmetered | $(awk -v m="$metered" -v u="$unmetered" 'BEGIN {printf "%.4f", m / u}') |"
