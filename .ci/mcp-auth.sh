#!/usr/bin/env bash
# End to end: `ptc mcp --http` with a static bearer token and as an OAuth resource server,
# driven by the official Python and TypeScript MCP SDK clients over streamable HTTP, over a
# guarded upstream (the Python SDK's MCPServer behind a bearer-token check) reached with
# `bearerTokenEnv` (mcp/e2e/http_auth.py, mcp/e2e/http_auth_ts.cjs; issue 42). Installs the
# pinned SDKs into the same cache as .ci/mcp.sh. Needs python3, node and npm; when one is
# missing the check is skipped with a loud message, except under CI=true, where it fails.
set -euo pipefail
cd "$(dirname "$0")/.."

PY_MCP=mcp==2.3.0
TS_MCP=@modelcontextprotocol/sdk@1.32.2
cache="${PTC_MCP_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ptc-mcp-e2e}"

missing=""
command -v python3 >/dev/null 2>&1 || missing="$missing python3"
command -v node >/dev/null 2>&1 || missing="$missing node"
command -v npm >/dev/null 2>&1 || missing="$missing npm"
if [ -n "$missing" ]; then
    if [ "${CI:-}" = "true" ]; then
        echo "mcp auth e2e: FAILED: missing$missing (required under CI)"
        exit 1
    fi
    echo "################################################################"
    echo "mcp auth e2e: SKIPPED: missing$missing"
    echo "################################################################"
    exit 0
fi

echo "== mcp auth e2e: installing the pinned Python and TypeScript SDKs into $cache"
mkdir -p "$cache"
if [ ! -x "$cache/venv/bin/python" ] || ! "$cache/venv/bin/python" -c 'import importlib.metadata as m; assert m.version("mcp") == "2.3.0"' 2>/dev/null; then
    python3 -m venv "$cache/venv"
    "$cache/venv/bin/pip" install --quiet --disable-pip-version-check "$PY_MCP"
fi

if ! grep -q '"version": "1.32.2"' "$cache/npm-sdk/node_modules/@modelcontextprotocol/sdk/package.json" 2>/dev/null; then
    npm install --silent --no-audit --no-fund --prefix "$cache/npm-sdk" "$TS_MCP"
fi

echo "== mcp auth e2e: cargo build -p ptc-cli"
cargo build --locked -p ptc-cli
echo "== mcp auth e2e: mcp/e2e/http_auth.py"
"$cache/venv/bin/python" mcp/e2e/http_auth.py --ptc target/debug/ptc \
    --node-modules "$cache/npm-sdk/node_modules"
