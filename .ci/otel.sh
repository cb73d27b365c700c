#!/usr/bin/env bash
# End to end: ptc's OpenTelemetry export (issue 43, spec/reference/observability.md) against
# a real OTLP/HTTP receiver decoding with the official `opentelemetry-proto` package, a
# composed ToolCall through `ptc mcp` driven by the official Python MCP SDK client with
# `_meta.traceparent`, an SDK upstream recording the traceparent it receives, and a one-shot
# `ptc run` (mcp/e2e/otel.py). Installs its pinned Python packages into a venv in a cache
# directory. Needs python3; without it the check is skipped loudly, except under CI=true.
set -euo pipefail
cd "$(dirname "$0")/.."

PINS="mcp==2.3.0 opentelemetry-proto==1.45.2 protobuf==7.36.2"
cache="${PTC_OTEL_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ptc-otel-e2e}"

if ! command -v python3 >/dev/null 2>&1; then
    if [ "${CI:-}" = "true" ]; then
        echo "otel e2e: FAILED: missing python3 (required under CI)"
        exit 1
    fi
    echo "################################################################"
    echo "otel e2e: SKIPPED: missing python3"
    echo "################################################################"
    exit 0
fi

echo "== otel e2e: installing the pinned Python packages into $cache"
mkdir -p "$cache"
if [ ! -x "$cache/venv/bin/python" ] || ! "$cache/venv/bin/python" -c '
import importlib.metadata as m
assert m.version("mcp") == "2.3.0" and m.version("opentelemetry-proto") == "1.45.2"' 2>/dev/null; then
    python3 -m venv "$cache/venv"
    # shellcheck disable=SC2086
    "$cache/venv/bin/pip" install --quiet --disable-pip-version-check $PINS
fi

echo "== otel e2e: cargo build -p ptc-cli --features otel"
cargo build --locked -p ptc-cli --features otel
echo "== otel e2e: mcp/e2e/otel.py"
"$cache/venv/bin/python" mcp/e2e/otel.py --ptc target/debug/ptc
