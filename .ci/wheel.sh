#!/usr/bin/env bash
# The one-line install (issue 42): builds the `ptc-cli` wheel with maturin (cli/pyproject.toml,
# the `ptc` and `ptc-mcp` binaries), installs it into a fresh venv with no Rust toolchain on
# PATH and runs the MCP end-to-end client (mcp/e2e/client.py: the official Python SDK over
# the npm reference servers) against the `ptc` the wheel installed. CI builds the dev profile
# (it reuses .ci/otel.sh's build of the same features); a release wheel is
# `maturin build -m cli/Cargo.toml --profile dist` (cli/pyproject.toml).
# Uses .ci/mcp.sh's cache of the reference servers and the SDK; run after it.
set -euo pipefail
cd "$(dirname "$0")/.."

MATURIN_VERSION=1.16.0
cache="${PTC_MCP_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ptc-mcp-e2e}"
if [ ! -x "$cache/venv/bin/python" ] || [ ! -x "$cache/npm/node_modules/.bin/mcp-server-everything" ]; then
    echo "wheel: FAILED: run .ci/mcp.sh first (it installs the reference servers and the SDK into $cache)"
    exit 1
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
echo "== wheel: maturin $MATURIN_VERSION"
python3 -m venv "$work/build"
"$work/build/bin/pip" install --quiet --disable-pip-version-check "maturin==$MATURIN_VERSION"
echo "== wheel: maturin build -m cli/Cargo.toml --profile dev"
"$work/build/bin/maturin" build --quiet -m cli/Cargo.toml --profile dev --compatibility linux \
    --strip --locked -o "$work/dist"
wheel=$(ls "$work"/dist/ptc_cli-*.whl)
echo "== wheel: $(basename "$wheel") ($(du -h "$wheel" | cut -f1)), into a fresh venv"
python3 -m venv "$work/user"
"$work/user/bin/pip" install --quiet --disable-pip-version-check --no-index "$wheel"

# What a user without Rust has: the venv's bin, the system's, nothing from ~/.cargo.
bare="$work/user/bin:/usr/local/bin:/usr/bin:/bin"
if env -i PATH="$bare" sh -c 'command -v cargo || command -v rustc' >/dev/null; then
    echo "wheel: FAILED: a Rust toolchain is on the bare PATH ($bare); the test would not show the wheel needs none"
    exit 1
fi
for bin in ptc ptc-mcp; do
    [ -x "$work/user/bin/$bin" ] || { echo "wheel: FAILED: the wheel did not install $bin"; exit 1; }
done
env -i HOME="$HOME" PATH="$bare" ptc --version
echo "== wheel: mcp/e2e/client.py against the wheel's ptc, no toolchain on PATH"
env -i HOME="$HOME" PATH="$bare" "$cache/venv/bin/python" mcp/e2e/client.py \
    --ptc "$work/user/bin/ptc" --bin "$cache/npm/node_modules/.bin"
