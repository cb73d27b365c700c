"""Pydantic AI: `PtcToolset` wraps any toolset (a `FunctionToolset`, an MCP toolset, ...) and
gives the agent one code-mode tool, ToolCall, whose description lists the wrapped tools.

    toolset = PtcToolset(FunctionToolset([search, fetch]))
    agent = Agent(model, toolsets=[toolset])

A nested call goes through the wrapped toolset the way the agent's own call would: its
arguments through the tool's `args_validator`, then `call_tool` with the run's context.
Approvals: a wrapped tool whose definition has `kind == "unapproved"` (`requires_approval=True`,
or an `ApprovalRequiredToolset` marking) is gated. When the expression mentions a gated tool and
the ToolCall was not approved yet, the ToolCall raises `ApprovalRequired` (before anything
runs) with `metadata={"tools": [...]}`: the agent run ends with `DeferredToolRequests`, and the
user approves or denies the ToolCall with `DeferredToolResults`. A gated call the expression
did not name, or a ToolCall that was not approved, is denied by ptc's permission seam, which
aborts the composition (`denied`).
"""

from __future__ import annotations

import dataclasses
from typing import Any, Dict, List, Optional

from pydantic_ai.exceptions import ApprovalRequired
from pydantic_ai.tools import RunContext, ToolDefinition
from pydantic_ai.toolsets import WrapperToolset
from pydantic_ai.toolsets.abstract import ToolsetTool
from pydantic_core import SchemaValidator, core_schema

from .._run import Limits, Policy, run_async
from .._tools import Tool
from ._common import TOOL_NAME, description, gate_policy, mentions, plain

_ARGS = SchemaValidator(
    core_schema.typed_dict_schema(
        {"expression": core_schema.typed_dict_field(core_schema.str_schema())}
    )
)


@dataclasses.dataclass(kw_only=True)
class PtcToolset(WrapperToolset[Any]):
    """One ToolCall tool over `wrapped`'s tools (function tools and approval-gated ones;
    external tools, which the agent's caller answers, are left out). `limits` and `policy`
    are `ptc.run`'s; `name` the tool's name."""

    name: str = TOOL_NAME
    limits: Optional[Limits] = None
    policy: Optional[Policy] = None
    max_retries: int = 1

    async def _inner(self, ctx: RunContext[Any]) -> Dict[str, ToolsetTool[Any]]:
        tools = await self.wrapped.get_tools(ctx)
        return {n: t for n, t in tools.items() if t.tool_def.kind in ("function", "unapproved")}

    def _ptc_tools(self, inner: Dict[str, ToolsetTool[Any]], ctx: RunContext[Any]) -> List[Tool]:
        def handler(name: str, tool: ToolsetTool[Any]) -> Any:
            async def call(**arguments: Any) -> Any:
                validated = tool.args_validator.validate_python(arguments)
                nested = dataclasses.replace(ctx, tool_name=name)
                return plain(await self.wrapped.call_tool(name, validated, nested, tool))

            return call

        return [
            Tool(
                name=name,
                description=tool.tool_def.description or "",
                input_schema=tool.tool_def.parameters_json_schema,
                handler=handler(name, tool),
            )
            for name, tool in inner.items()
        ]

    async def get_tools(self, ctx: RunContext[Any]) -> Dict[str, ToolsetTool[Any]]:
        inner = await self._inner(ctx)
        described = description(self._ptc_tools(inner, ctx))
        definition = ToolDefinition(
            name=self.name,
            description=described["description"],
            parameters_json_schema=described["input_schema"],
        )
        return {
            self.name: ToolsetTool(
                toolset=self, tool_def=definition, max_retries=self.max_retries, args_validator=_ARGS
            )
        }

    async def call_tool(
        self, name: str, tool_args: Dict[str, Any], ctx: RunContext[Any], tool: ToolsetTool[Any]
    ) -> Any:
        expression = str(tool_args["expression"])
        inner = await self._inner(ctx)
        gated = {n for n, t in inner.items() if t.tool_def.kind == "unapproved"}
        named = mentions(expression, gated)
        if named and not ctx.tool_call_approved:
            raise ApprovalRequired(metadata={"tools": sorted(named)})
        approved = named if ctx.tool_call_approved else frozenset()
        outcome = await run_async(
            expression,
            self._ptc_tools(inner, ctx),
            limits=self.limits,
            policy=gate_policy(gated, approved, self.policy),
        )
        return outcome.text_with_notes()
