#!/usr/bin/env bash
# Whole-process start-up of the release CLI beside Debian's Lua 5.4 (issue #16's "trivial
# script, whole process" row). Build first, the binary to ship:
#   cli/build-static.sh      (then PTC=target/x86_64-unknown-linux-gnu/dist/ptc)
# or the everyday one, `cargo build --release -p ptc-cli --bin ptc` (the default PTC), and
# run `benches/startup.sh` (valgrind, perf, readelf and lua5.4 on PATH; LUA=... to use
# another Lua, PTC=... another ptc binary, RUNS=... the wall-time repetitions, default 200,
# ROUNDS=... the paired rounds, default 20).
# Instructions: callgrind over the whole process, from the dynamic loader's first
# instruction to exit (no toggle), so relocation processing and every initialiser count.
# Wall: `perf stat -r RUNS`, the mean elapsed time, the mean task-clock (CPU time) and the
# mean page faults (most of a trivial run's CPU time: the loader's writes to the relocated
# pages, the text pages touched, the heap).
# Paired: ROUNDS rounds, each `perf stat -r 50` of ptc then of Lua back to back, so both see
# the same machine; the mean of the per-round ratios of task-clock and how many rounds ptc
# took no more CPU than Lua (a VM's noise moves single means by 20 % or more).
# Size: the file's bytes; relocations: the entries `readelf -rW` lists (dynamic loader work;
# a RELR-packed binary, as cli/build-static.sh links, lists only its few non-relative ones).
set -euo pipefail
cd "$(dirname "$0")/.."
ptc=${PTC:-target/release/ptc}
lua=${LUA:-lua5.4}
runs=${RUNS:-200}
script=benches/programs/cold_tiny.lisp
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# shellcheck source=benches/callgrind-lib.sh
source benches/callgrind-lib.sh

# "elapsed-ms task-clock-ms page-faults" of RUNS runs.
wall() {
  perf stat -r "$runs" -x, -e task-clock,page-faults -o "$work/perf" "$@" >/dev/null 2>&1
  local task faults elapsed
  task=$(awk -F, '/task-clock/ {print $1; exit}' "$work/perf")
  faults=$(awk -F, '/page-faults/ {print $1; exit}' "$work/perf")
  # -x leaves the elapsed line out; time the same runs by hand for it.
  local start end
  start=$(date +%s%N)
  for _ in $(seq "$runs"); do "$@" >/dev/null 2>&1; done
  end=$(date +%s%N)
  elapsed=$(awk -v s="$start" -v e="$end" -v n="$runs" 'BEGIN {printf "%.3f", (e - s) / n / 1e6}')
  printf '%s %.3f %.0f\n' "$elapsed" "$task" "$faults"
}

relocations() { readelf -rW "$1" | grep -c '^[0-9a-f]\{12,\}' || true; }

ptc_out=$("$ptc" run "$script")
[ "$ptc_out" = 6 ] || { echo "ptc run $script printed '$ptc_out', not 6" >&2; exit 1; }
lua_out=$("$lua" -e 'print(1)')
[ "$lua_out" = 1 ] || { echo "lua printed '$lua_out', not 1" >&2; exit 1; }

echo "load: $(uptime | sed 's/.*load average/load average/')"
echo
echo "| process | bytes | relocations | instructions | mean wall ms | mean task-clock ms | mean page faults |"
echo "|---|---|---|---|---|---|---|"
read -r pw pt pf < <(wall "$ptc" run "$script")
echo "| ptc run $script | $(stat -c %s "$ptc") | $(relocations "$ptc") | $(instructions "$ptc" run "$script") | $pw | $pt | $pf |"
lua_bin=$(command -v "$lua")
lua_bin=$(readlink -f "$lua_bin")
read -r lw lt lf < <(wall "$lua" -e 'print(1)')
echo "| $lua -e 'print(1)' | $(stat -c %s "$lua_bin") | $(relocations "$lua_bin") | $(instructions "$lua" -e 'print(1)') | $lw | $lt | $lf |"

# Paired rounds: "mean-ratio rounds-at-or-below" over ROUNDS.
paired() {
  local rounds=${ROUNDS:-20} p l
  for _ in $(seq "$rounds"); do
    p=$(perf stat -r 50 -x, -e task-clock "$ptc" run "$script" 2>&1 >/dev/null | awk -F, '/task-clock/ {print $1}')
    l=$(perf stat -r 50 -x, -e task-clock "$lua" -e 'print(1)' 2>&1 >/dev/null | awk -F, '/task-clock/ {print $1}')
    echo "$p $l"
  done | awk '{r = $1 / $2; s += r; if (r <= 1) w++} END {printf "%.3f %d/%d\n", s / NR, w, NR}'
}
echo
read -r ratio below < <(paired)
echo "paired task-clock, ptc / Lua: mean ratio $ratio; ptc at or below Lua in $below rounds"
