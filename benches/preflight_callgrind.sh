#!/usr/bin/env bash
# Instruction counts of argument preflight (issue 15): the benchmark's 10-line script with
# 12 tool calls against its 50-tool roster, preflight alone, with the contracts and with
# names only. Build first:
#   cargo build --release -p ptc-benches --example preflight_measure
# then `benches/preflight_callgrind.sh` (valgrind on PATH). Counts only the measured
# function (--toggle-collect='*::preflight_args_measure'; the binary's crate is named preflight_measure, so a looser pattern would match main): a run of 1 and a run of 3 batches of 50
# calls after the warm-up batch; the difference over the 100 extra calls is the warm count
# per call (start-up, setup and the cold first call cancel out). Then the min-of-batches
# wall time of each mode (WALL_ROUNDS batches of 10 calls, default 20000: a batch fits in one scheduler slice, so the minimum is robust to load) and the load.
# PROFILE=1 also prints callgrind_annotate's top functions of the contracts run.
set -euo pipefail
cd "$(dirname "$0")/.."
binary=target/release/examples/preflight_measure
batch=50
rounds=${WALL_ROUNDS:-20000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

total() { # MODE ROUNDS: instructions inside preflight_measure
  valgrind --tool=callgrind --toggle-collect='*::preflight_args_measure' \
    --callgrind-out-file="$work/$1-$2.out" "$binary" "$1" "$2" "$batch" >/dev/null \
    2>"$work/$1.err" || { cat "$work/$1.err" >&2; exit 1; }
  awk '/^summary:/ {print $2}' "$work/$1-$2.out"
}
per_call() { # MODE
  local one three
  one=$(total "$1" 1)
  three=$(total "$1" 3)
  echo $(((three - one) / (2 * batch)))
}

with=$(per_call contracts)
without=$(per_call names-only)
echo "| preflight of the 10-line script, 50-tool roster | instructions per call |"
echo "|---|---|"
echo "| with argument contracts | $with |"
echo "| names only | $without |"
echo "| added by the argument check | $((with - without)) |"
whole_with=$(per_call compile-contracts)
whole_without=$(per_call compile-names-only)
echo "| whole static pipeline (compile), with contracts | $whole_with |"
echo "| whole static pipeline, names only | $whole_without |"
echo "| added to compile | $((whole_with - whole_without)) |"
echo
"$binary" contracts "$rounds" 10
"$binary" names-only "$rounds" 10
"$binary" compile-contracts "$((rounds / 10))" 10
"$binary" compile-names-only "$((rounds / 10))" 10
uptime
if [[ -n ${PROFILE:-} ]]; then
  callgrind_annotate "$work/contracts-3.out" | head -60
fi
