#!/usr/bin/env bash
# End to end: `ptc mcp` behind the official Python MCP SDK client, over the official
# reference servers from npm (mcp/e2e/client.py). Installs its pinned tools into a cache
# directory. Needs node/npm and python3; when either is missing the check is skipped with
# a loud message, except under CI=true, where it fails.
set -euo pipefail
cd "$(dirname "$0")/.."

EVERYTHING=@modelcontextprotocol/server-everything@2026.8.31
FILESYSTEM=@modelcontextprotocol/server-filesystem@2026.8.31
PY_MCP=mcp==2.3.0
cache="${PTC_MCP_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ptc-mcp-e2e}"

missing=""
command -v npm >/dev/null 2>&1 || missing="$missing npm"
command -v node >/dev/null 2>&1 || missing="$missing node"
command -v python3 >/dev/null 2>&1 || missing="$missing python3"
if [ -n "$missing" ]; then
    if [ "${CI:-}" = "true" ]; then
        echo "mcp e2e: FAILED: missing$missing (required under CI)"
        exit 1
    fi
    echo "################################################################"
    echo "mcp e2e: SKIPPED: missing$missing"
    echo "################################################################"
    exit 0
fi

echo "== mcp e2e: installing pinned reference servers and the Python SDK into $cache"
mkdir -p "$cache"
if [ ! -x "$cache/npm/node_modules/.bin/mcp-server-everything" ] \
    || [ ! -x "$cache/npm/node_modules/.bin/mcp-server-filesystem" ] \
    || ! grep -q '"version": "2026.8.31"' "$cache/npm/node_modules/@modelcontextprotocol/server-everything/package.json" 2>/dev/null; then
    npm install --silent --no-audit --no-fund --prefix "$cache/npm" "$EVERYTHING" "$FILESYSTEM"
fi
if [ ! -x "$cache/venv/bin/python" ] || ! "$cache/venv/bin/python" -c 'import importlib.metadata as m; assert m.version("mcp") == "2.3.0"' 2>/dev/null; then
    python3 -m venv "$cache/venv"
    "$cache/venv/bin/pip" install --quiet --disable-pip-version-check "$PY_MCP"
fi

echo "== mcp e2e: cargo build -p ptc-cli"
cargo build --locked -p ptc-cli
echo "== mcp e2e: mcp/e2e/client.py"
"$cache/venv/bin/python" mcp/e2e/client.py --ptc target/debug/ptc --bin "$cache/npm/node_modules/.bin"
# The gateway under load (issue 38): 1000 sessions, 100 concurrent ToolCalls, 100 stalled
# connections, a well-behaved client throughout; fails on a failed call or memory that does
# not settle (mcp/e2e/load.py; ~20 s with the debug build).
echo "== mcp e2e: mcp/e2e/load.py"
python3 mcp/e2e/load.py --ptc target/debug/ptc
