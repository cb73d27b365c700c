#!/usr/bin/env bash
# The framework adapters (python/ptc/integrations): builds the package from source into a fresh
# venv with every extra (`pip install "./python[all]"`, the frameworks pinned below), runs
# mypy --strict over the package and the adapters' tests, then the whole Python suite with the adapters' tests
# (python/tests/integrations) in that venv. Needs python3 (>= 3.10, as the frameworks do) with venv;
# without it the step is skipped loudly, or fails when CI is set.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON="${PYTHON:-python3}"
MATURIN_VERSION=1.16.0
PYTEST_VERSION=9.2.0
MYPY_VERSION=2.4.1
# The framework versions the adapters are tested against (the newest installable, 2026-12-04).
PINS=(
    "pydantic-ai-slim==2.78.0"
    "langchain==1.5.2"
    "langchain-core==1.8.3"
    "langgraph==1.2.24"
    "openai-agents==0.24.0"
    "openai==3.63.0"
    "anthropic==2.17.0"
    "fastmcp==4.2.3"
)

if ! command -v "$PYTHON" >/dev/null 2>&1 || ! "$PYTHON" -c 'import sys, venv, ensurepip; assert sys.version_info >= (3, 10)' >/dev/null 2>&1; then
    if [ -n "${CI:-}" ]; then
        echo "python-adapters.sh: FAIL: $PYTHON >= 3.10 with venv and ensurepip is required when CI is set" >&2
        exit 1
    fi
    echo "python-adapters.sh: SKIPPED: no $PYTHON >= 3.10 with venv; the adapters were NOT tested" >&2
    exit 0
fi

venv="$(mktemp -d)/venv"
trap 'rm -rf "$(dirname "$venv")"' EXIT
echo "== python-adapters: venv at $venv ($("$PYTHON" --version))"
"$PYTHON" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --upgrade pip
"$venv/bin/python" -m pip install --quiet "maturin==$MATURIN_VERSION" "pytest==$PYTEST_VERSION" "mypy==$MYPY_VERSION"

constraints="$(dirname "$venv")/constraints.txt"
printf '%s\n' "${PINS[@]}" >"$constraints"

# The maturin build backend runs the `maturin` binary from the venv.
export PATH="$venv/bin:$PATH"
echo "== python-adapters: pip install ./python[all] (${PINS[*]})"
"$venv/bin/python" -m pip install --quiet --no-build-isolation -c "$constraints" "./python[all]"

echo "== python-adapters: mypy --strict python/ptc python/tests/integrations"
"$venv/bin/python" -m mypy --strict python/ptc python/tests/integrations

echo "== python-adapters: cargo build -p ptc-cli (for the CLI parity test)"
cargo build --quiet --locked -p ptc-cli
export PTC_BIN="$PWD/target/debug/ptc"

echo "== python-adapters: pytest python/tests (the adapters' tests in python/tests/integrations)"
# From the repository root, so `ptc` is the installed package, not the source tree. With
# every extra installed, no adapter test may skip.
log="$(dirname "$venv")/pytest.log"
status=0
"$venv/bin/python" -m pytest -q -p no:cacheprovider -rs python/tests 2>&1 | tee "$log" || status=$?  # pipefail: pytest's status
if [ "$status" -ne 0 ]; then
    echo "python-adapters.sh: pytest failed with exit status $status" >&2
    exit "$status"
fi
if grep -E '^SKIPPED .*integrations' "$log"; then
    echo "python-adapters.sh: FAIL: an adapter test skipped although every extra is installed" >&2
    exit 1
fi
