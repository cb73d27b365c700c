#!/usr/bin/env bash
# The Python package (python/): builds it from source into a fresh venv the way a user
# does (`pip install ./python`, pinned maturin and pytest) and runs its pytest suite.
# Needs python3 with venv; without it the step is skipped loudly, or fails when CI is set.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON="${PYTHON:-python3}"
MATURIN_VERSION=1.16.0
PYTEST_VERSION=9.2.0

if ! command -v "$PYTHON" >/dev/null 2>&1 || ! "$PYTHON" -c 'import venv, ensurepip' >/dev/null 2>&1; then
    if [ -n "${CI:-}" ]; then
        echo "python.sh: FAIL: $PYTHON with venv and ensurepip is required when CI is set" >&2
        exit 1
    fi
    echo "python.sh: SKIPPED: no $PYTHON with venv; the Python package was NOT tested" >&2
    exit 0
fi

venv="$(mktemp -d)/venv"
trap 'rm -rf "$(dirname "$venv")"' EXIT
echo "== python: venv at $venv ($("$PYTHON" --version))"
"$PYTHON" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --upgrade pip
"$venv/bin/python" -m pip install --quiet "maturin==$MATURIN_VERSION" "pytest==$PYTEST_VERSION"

# The maturin build backend runs the `maturin` binary from the venv.
export PATH="$venv/bin:$PATH"
echo "== python: pip install ./python"
"$venv/bin/python" -m pip install --quiet --no-build-isolation ./python

echo "== python: cargo build -p ptc-cli (for the CLI parity test)"
cargo build --quiet --locked -p ptc-cli
export PTC_BIN="$PWD/target/debug/ptc"

echo "== python: pytest python/tests"
status=0
# From the repository root, so `ptc` is the installed package, not the source tree.
"$venv/bin/python" -m pytest -q -p no:cacheprovider python/tests || status=$?
if [ "$status" -ne 0 ]; then
    echo "python.sh: pytest failed with exit status $status" >&2
    exit "$status"
fi
