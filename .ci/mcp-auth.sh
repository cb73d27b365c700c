#!/usr/bin/env bash
# End to end: `ptc mcp --http` with a static bearer token, driven by the official Python
# MCP SDK's streamable-HTTP client, over a guarded upstream (the SDK's MCPServer behind a
# bearer-token check) reached with `bearerTokenEnv` (mcp/e2e/http_auth.py, issue 42).
# Installs the pinned SDK into the same cache as .ci/mcp.sh. Needs python3; when it is
# missing the check is skipped with a loud message, except under CI=true, where it fails.
set -euo pipefail
cd "$(dirname "$0")/.."

PY_MCP=mcp==2.3.0
cache="${PTC_MCP_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ptc-mcp-e2e}"

if ! command -v python3 >/dev/null 2>&1; then
    if [ "${CI:-}" = "true" ]; then
        echo "mcp auth e2e: FAILED: missing python3 (required under CI)"
        exit 1
    fi
    echo "################################################################"
    echo "mcp auth e2e: SKIPPED: missing python3"
    echo "################################################################"
    exit 0
fi

echo "== mcp auth e2e: installing the pinned Python SDK into $cache"
mkdir -p "$cache"
if [ ! -x "$cache/venv/bin/python" ] || ! "$cache/venv/bin/python" -c 'import importlib.metadata as m; assert m.version("mcp") == "2.3.0"' 2>/dev/null; then
    python3 -m venv "$cache/venv"
    "$cache/venv/bin/pip" install --quiet --disable-pip-version-check "$PY_MCP"
fi

echo "== mcp auth e2e: cargo build -p ptc-cli"
cargo build --locked -p ptc-cli
echo "== mcp auth e2e: mcp/e2e/http_auth.py"
"$cache/venv/bin/python" mcp/e2e/http_auth.py --ptc target/debug/ptc
