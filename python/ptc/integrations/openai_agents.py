"""OpenAI Agents SDK: `tool_call(tools)` is a `FunctionTool` named ToolCall over the agent's
`FunctionTool`s (what `@function_tool` makes).

    agent = Agent(name="assistant", tools=[tool_call([get_weather, delete_file])])
    result = await Runner.run(agent, "...")

A nested call runs the wrapped tool's own `on_invoke_tool` (its argument parsing, validation
and failure handling) with a `ToolContext` for that call.

Approvals: a wrapped tool with `needs_approval` set (True, or a callable, which is taken as
"may need approval") is gated. The ToolCall's own `needs_approval` is a callable that answers
True when the expression names a gated tool, so the SDK interrupts the run
(`result.interruptions`) and the user approves or rejects the ToolCall with
`RunState.approve/reject` like any tool. An approved ToolCall runs with the tools it names
allowed; a gated call it does not name is denied by ptc's permission seam, which aborts the
composition (`denied`).
"""

from __future__ import annotations

import json
from typing import Any, Dict, FrozenSet, List, Optional, Sequence

from agents import FunctionTool, RunContextWrapper
from agents.tool_context import ToolContext

from .._run import Limits, Policy, run_async
from .._tools import Tool
from ._common import TOOL_NAME, description, gate_policy, mentions, plain


def _ptc_tools(tools: Sequence[FunctionTool], ctx: Optional[ToolContext[Any]]) -> List[Tool]:
    def handler(tool: FunctionTool) -> Any:
        async def call(**arguments: Any) -> Any:
            text = json.dumps(arguments)
            if ctx is None:
                raise RuntimeError("a FunctionTool runs only inside an agent run")
            nested = ToolContext(
                ctx.context,
                usage=ctx.usage,
                tool_name=tool.name,
                tool_call_id=ctx.tool_call_id,
                tool_arguments=text,
                agent=ctx.agent,
                run_config=ctx.run_config,
            )
            return plain(await tool.on_invoke_tool(nested, text))

        return call

    return [Tool(t.name, t.description, t.params_json_schema, handler(t)) for t in tools]


def tool_call(
    tools: Sequence[FunctionTool],
    *,
    name: str = TOOL_NAME,
    limits: Optional[Limits] = None,
    policy: Optional[Policy] = None,
) -> FunctionTool:
    """The ToolCall `FunctionTool` over `tools`. `limits` and `policy` are `ptc.run`'s."""
    tools = list(tools)
    gated: FrozenSet[str] = frozenset(t.name for t in tools if t.needs_approval is not False)
    described = description(_ptc_tools(tools, None))

    async def invoke(ctx: ToolContext[Any], arguments: str) -> str:
        expression = str(json.loads(arguments)["expression"])
        # The SDK asked the user (needs_approval below) when the expression names a gated tool.
        approved = mentions(expression, gated)
        outcome = await run_async(
            expression, _ptc_tools(tools, ctx), limits=limits, policy=gate_policy(gated, approved, policy)
        )
        return outcome.text_with_notes()

    async def needs_approval(ctx: RunContextWrapper[Any], params: Dict[str, Any], call_id: str) -> bool:
        return bool(mentions(str(params.get("expression", "")), gated))

    schema = dict(described["input_schema"])
    return FunctionTool(
        name=name,
        description=described["description"],
        params_json_schema=schema,
        on_invoke_tool=invoke,
        strict_json_schema=schema.get("additionalProperties") is False,
        needs_approval=needs_approval if gated else False,
    )
