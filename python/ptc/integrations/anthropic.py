"""Anthropic SDK: `tool_call(tools)` is a ToolCall tool for `client.beta.messages.tool_runner`
over `@beta_tool` functions (`async_tool_call` over `@beta_async_tool` ones, for the async
client's runner).

    runner = client.beta.messages.tool_runner(model=..., max_tokens=1024, messages=[...],
                                              tools=[tool_call([get_weather, delete_file])])
    for message in runner: ...

A nested call runs the wrapped tool's own `call(input)` (its pydantic validation). The SDK has
no approval step of its own, so approvals are ptc's `policy` (a denial aborts the composition
with `denied`).
"""

from __future__ import annotations

from typing import Any, List, Optional, Sequence

from anthropic.lib.tools import BetaAsyncFunctionTool, BetaFunctionTool

from .._run import Limits, Policy, run, run_async
from .._tools import Tool
from ._common import TOOL_NAME, description, plain


def _content(result: Any) -> Any:
    """A tool's result as guest data: a str stays text; a list of content blocks becomes the
    text of its text blocks."""
    if isinstance(result, str):
        return result
    if isinstance(result, (list, tuple)):
        texts = []
        for block in result:
            kind = block.get("type") if isinstance(block, dict) else getattr(block, "type", None)
            text = block.get("text") if isinstance(block, dict) else getattr(block, "text", None)
            if kind == "text" and isinstance(text, str):
                texts.append(text)
            else:
                raise TypeError(f"a ToolCall cannot carry a {kind} block")
        return "\n".join(texts)
    return plain(result)


def _sync_tools(tools: Sequence[BetaFunctionTool[Any]]) -> List[Tool]:
    def handler(tool: BetaFunctionTool[Any]) -> Any:
        def call(**arguments: Any) -> Any:
            return _content(tool.call(arguments))

        return call

    return [Tool(t.name, t.description, dict(t.input_schema), handler(t)) for t in tools]


def _async_tools(tools: Sequence[Any]) -> List[Tool]:
    def handler(tool: Any) -> Any:
        if isinstance(tool, BetaAsyncFunctionTool):

            async def acall(**arguments: Any) -> Any:
                return _content(await tool.call(arguments))

            return acall

        def call(**arguments: Any) -> Any:
            return _content(tool.call(arguments))

        return call

    return [Tool(t.name, t.description, dict(t.input_schema), handler(t)) for t in tools]


def tool_call(
    tools: Sequence[BetaFunctionTool[Any]],
    *,
    name: str = TOOL_NAME,
    limits: Optional[Limits] = None,
    policy: Optional[Policy] = None,
) -> BetaFunctionTool[Any]:
    """The ToolCall tool over synchronous `@beta_tool`s. `limits` and `policy` are `ptc.run`'s
    (the policy must answer synchronously)."""
    roster = _sync_tools(tools)
    described = description(roster)

    def ToolCall(expression: str) -> str:
        return run(expression, roster, limits=limits, policy=policy).text_with_notes()

    return BetaFunctionTool(
        ToolCall, name=name, description=described["description"], input_schema=described["input_schema"]
    )


def async_tool_call(
    tools: Sequence[Any],
    *,
    name: str = TOOL_NAME,
    limits: Optional[Limits] = None,
    policy: Optional[Policy] = None,
) -> BetaAsyncFunctionTool[Any]:
    """The ToolCall tool over `@beta_async_tool`s (and `@beta_tool`s, run on worker threads),
    for the async client's tool runner."""
    roster = _async_tools(tools)
    described = description(roster)

    async def ToolCall(expression: str) -> str:
        outcome = await run_async(expression, roster, limits=limits, policy=policy)
        return outcome.text_with_notes()

    return BetaAsyncFunctionTool(
        ToolCall, name=name, description=described["description"], input_schema=described["input_schema"]
    )
