"""FastMCP: `PtcCodeMode` is a catalog transform that collapses a server's tools into one
ToolCall tool whose description lists them (FastMCP's own `CodeMode` sandbox provider runs
Python handed only a `call_tool(name, params)` function, with no catalog for ptc to validate
against, so ptc comes in as a transform instead of a sandbox provider).

    server = FastMCP("tools")            # or FastMCP.as_proxy(client) / create_proxy(...) over
    server.add_transform(PtcCodeMode())  # a client's tools: ToolCall over another server's tools

A nested call is `ctx.fastmcp.call_tool(name, arguments)` on the real catalog (its middleware
and validation apply); a structured result reaches the guest as data, text content as a string,
an `isError` result as the guest's error value. An outcome other than `completed` is returned
with `isError` set. MCP has no approval step of its own: approvals are ptc's `policy` (a denial
aborts the composition with `denied`).
"""

from __future__ import annotations

from typing import Annotated, Any, List, Optional, Sequence

from fastmcp.exceptions import ToolError
from fastmcp.server.context import Context
from fastmcp.server.transforms import GetToolNext
from fastmcp.server.transforms.catalog import CatalogTransform
from fastmcp.tools.base import Tool as McpTool
from fastmcp.tools.base import ToolResult
from fastmcp.utilities.versions import VersionSpec
from mcp_types import TextContent
from pydantic import Field

from .._run import Limits, Policy, run_async
from .._tools import Tool
from ._common import TOOL_NAME, description


def _unwrap(result: ToolResult) -> Any:
    if result.structured_content is not None:
        content = result.structured_content
        # FastMCP wraps a non-object return value as {"result": value}.
        if set(content) == {"result"}:
            return content["result"]
        return content
    return "\n".join(c.text if isinstance(c, TextContent) else str(c) for c in result.content)


def _ptc_tools(catalog: Sequence[McpTool], ctx: Optional[Context]) -> List[Tool]:
    def handler(tool: McpTool) -> Any:
        async def call(**arguments: Any) -> Any:
            if ctx is None:
                raise RuntimeError("no request context")
            result = await ctx.fastmcp.call_tool(tool.name, arguments)
            if result.is_error:
                raise ToolError(str(_unwrap(result)))
            return _unwrap(result)

        return call

    return [Tool(t.name, t.description or "", t.parameters or {"type": "object"}, handler(t)) for t in catalog]


class PtcCodeMode(CatalogTransform):
    """Replaces the server's tool listing by one ToolCall tool over the catalog. `limits` and
    `policy` are `ptc.run`'s; `name` the tool's name."""

    def __init__(
        self, *, name: str = TOOL_NAME, limits: Optional[Limits] = None, policy: Optional[Policy] = None
    ) -> None:
        super().__init__()
        self.name = name
        self.limits = limits
        self.policy = policy

    def _tool(self, text: str) -> McpTool:
        transform = self

        async def execute(
            expression: Annotated[str, Field(description="The ToolCall expression")],
            ctx: Context = None,  # type: ignore[assignment]
        ) -> str:
            catalog = await transform.get_tool_catalog(ctx)
            outcome = await run_async(
                expression, _ptc_tools(catalog, ctx), limits=transform.limits, policy=transform.policy
            )
            if not outcome.ok:
                raise ToolError(outcome.text_with_notes())
            return outcome.text_with_notes()

        return McpTool.from_function(fn=execute, name=self.name, description=text)

    async def transform_tools(self, tools: Sequence[McpTool]) -> Sequence[McpTool]:
        return [self._tool(description(_ptc_tools(tools, None))["description"])]

    async def get_tool(
        self, name: str, call_next: GetToolNext, *, version: Optional[VersionSpec] = None
    ) -> Optional[McpTool]:
        if name == self.name:
            return self._tool("ToolCall")
        return await call_next(name, version=version)
