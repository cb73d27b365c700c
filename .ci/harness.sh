#!/usr/bin/env bash
# The gungraun instruction-count bench (benches/benches/instructions.rs) is off CI: CI has no
# valgrind or gungraun-runner, and the bench is `bench = false`, which `--all-targets` skips.
# So that the file cannot rot, lint it here (ptc rows only: the Lua rows need mlua, built by
# feature `lua54`, which CI does not build). A check build: seconds after the clippy above.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "== cargo clippy -p ptc-benches --bench instructions -- -D warnings"
cargo clippy -p ptc-benches --bench instructions --locked -- -D warnings
