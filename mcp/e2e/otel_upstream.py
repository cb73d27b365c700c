"""A small upstream MCP server (the official Python SDK's MCPServer over stdio) for the
OpenTelemetry end-to-end check (mcp/e2e/otel.py): its tools record the `_meta.traceparent`
each tools/call carried, one JSON line per call, into the file named by
PTC_OTEL_E2E_RECORD.
"""

from __future__ import annotations

import json
import os

from mcp.server.mcpserver import Context, MCPServer

server = MCPServer("traced")


def record(tool: str, ctx: Context) -> None:
    meta = ctx.request_context.meta
    dumped = meta.model_dump() if hasattr(meta, "model_dump") else dict(meta or {})
    with open(os.environ["PTC_OTEL_E2E_RECORD"], "a", encoding="utf-8") as out:
        out.write(json.dumps({"tool": tool, "traceparent": dumped.get("traceparent")}) + "\n")


@server.tool()
def add(a: int, b: int, ctx: Context) -> int:
    """Adds two numbers."""
    record("add", ctx)
    return a + b


@server.tool()
def echo(text: str, ctx: Context) -> str:
    """Echoes a text."""
    record("echo", ctx)
    return text


if __name__ == "__main__":
    server.run("stdio")
