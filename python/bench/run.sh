#!/usr/bin/env bash
# ptc against pydantic-monty from Python, side by side in one run: builds the package in
# release mode into one venv and installs pydantic-monty into a separate scratch venv (never
# the test venv), then runs bench.py in each and prints both JSON lines.
# Usage: bash python/bench/run.sh [N_CALLS=100] [REPEAT=50]
set -euo pipefail
cd "$(dirname "$0")/../.."
PYTHON="${PYTHON:-python3}"
MONTY_VERSION="${MONTY_VERSION:-1.4.0}"
work="${PTC_BENCH_DIR:-${TMPDIR:-/tmp}/ptc-bench}"
mkdir -p "$work"
if [ ! -x "$work/ptc/bin/python" ]; then "$PYTHON" -m venv "$work/ptc"; fi
if [ ! -x "$work/monty/bin/python" ]; then "$PYTHON" -m venv "$work/monty"; fi
"$work/ptc/bin/python" -m pip install --quiet ./python
"$work/monty/bin/python" -m pip install --quiet "pydantic-monty==$MONTY_VERSION"
"$work/ptc/bin/python" python/bench/bench.py ptc "${1:-100}" "${2:-50}"
"$work/monty/bin/python" python/bench/bench.py monty "${1:-100}" "${2:-50}"
