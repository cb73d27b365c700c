"""LangChain 1.x: `tool_call(tools)` is a `StructuredTool` named ToolCall over a list of
LangChain tools; `PtcMiddleware(tools, approval_required=[...])` is the agent middleware that
adds it to `create_agent` and asks the user before a ToolCall that names a gated tool.

    agent = create_agent(model, tools=[tool_call([search, fetch])])
    # or, with approvals (needs a checkpointer, as LangChain's interrupts do):
    agent = create_agent(model, middleware=[PtcMiddleware([search, delete], approval_required=["delete"])],
                         checkpointer=InMemorySaver())

A nested call runs the LangChain tool with `ainvoke(arguments)` (its own validation and error
handling apply); the tool's argument schema is the one LangChain shows a model.

Approvals: `PtcMiddleware` is LangChain's `HumanInTheLoopMiddleware` configured for the ToolCall
tool, with a `when` predicate that interrupts exactly when the expression names a gated tool
(the interrupt's `action_requests[0]` carries the ToolCall's arguments and `gated_tools`). An
approved ToolCall runs with those tools allowed; a rejected one never runs (LangChain answers the
model). A gated call the expression does not name is denied by ptc's permission seam, which
aborts the composition (`denied`). `tool_call(..., approval_required=...)` used without the
middleware has no reviewer, so it denies every gated call.
"""

from __future__ import annotations

import json
from typing import Any, AbstractSet, Dict, FrozenSet, Iterable, List, Optional, Sequence

from langchain.agents.middleware import HumanInTheLoopMiddleware, InterruptOnConfig
from langchain_core.tools import BaseTool, StructuredTool
from langchain_core.utils.function_calling import convert_to_openai_tool

from .._run import Limits, Policy, run, run_async
from .._tools import Tool
from ._common import TOOL_NAME, description, gate_policy, mentions, plain, sync_gate_policy


def _schema(tool: BaseTool) -> Dict[str, Any]:
    parameters = convert_to_openai_tool(tool)["function"].get("parameters") or {}
    return dict(parameters) or {"type": "object", "properties": {}}


def _ptc_tools(tools: Sequence[BaseTool]) -> List[Tool]:
    def handler(tool: BaseTool) -> Any:
        async def call(**arguments: Any) -> Any:
            return plain(await tool.ainvoke(arguments))

        return call

    return [Tool(t.name, t.description or "", _schema(t), handler(t)) for t in tools]


def _sync_tools(tools: Sequence[BaseTool]) -> List[Tool]:
    def handler(tool: BaseTool) -> Any:
        def call(**arguments: Any) -> Any:
            return plain(tool.invoke(arguments))

        return call

    return [Tool(t.name, t.description or "", _schema(t), handler(t)) for t in tools]


def tool_call(
    tools: Sequence[BaseTool],
    *,
    name: str = TOOL_NAME,
    limits: Optional[Limits] = None,
    policy: Optional[Policy] = None,
    approval_required: Iterable[str] = (),
    _reviewed: bool = False,
) -> StructuredTool:
    """The ToolCall `StructuredTool` over `tools` (sync and async). `limits` and `policy` are
    `ptc.run`'s; tools named in `approval_required` are gated (see the module doc)."""
    tools = list(tools)
    gated: FrozenSet[str] = frozenset(approval_required)
    unknown = gated - {t.name for t in tools}
    if unknown:
        raise ValueError(f"approval_required names tools that are not given: {sorted(unknown)}")
    async_tools = _ptc_tools(tools)
    sync_tools = _sync_tools(tools)
    described = description(async_tools)

    def approved(expression: str) -> AbstractSet[str]:
        return mentions(expression, gated) if _reviewed else frozenset()

    async def arun(expression: str) -> str:
        outcome = await run_async(
            expression, async_tools, limits=limits, policy=gate_policy(gated, approved(expression), policy)
        )
        return outcome.text_with_notes()

    def srun(expression: str) -> str:
        outcome = run(
            expression, sync_tools, limits=limits, policy=sync_gate_policy(gated, approved(expression), policy)
        )
        return outcome.text_with_notes()

    return StructuredTool.from_function(
        func=srun,
        coroutine=arun,
        name=name,
        description=described["description"],
        args_schema=described["input_schema"],
    )


class PtcMiddleware(HumanInTheLoopMiddleware):
    """Adds the ToolCall tool over `tools` to an agent, and (through LangChain's
    human-in-the-loop interrupts) asks before a ToolCall that names a tool in
    `approval_required`. The agent needs a checkpointer for the interrupt."""

    def __init__(
        self,
        tools: Sequence[BaseTool],
        *,
        approval_required: Iterable[str] = (),
        name: str = TOOL_NAME,
        limits: Optional[Limits] = None,
        policy: Optional[Policy] = None,
        description_prefix: str = "ToolCall uses tools that need approval",
    ):
        gated = frozenset(approval_required)

        def when(request: Any) -> bool:
            return bool(mentions(str(request.tool_call["args"].get("expression", "")), gated))

        def describe_action(tool_call: Any, state: Any, runtime: Any) -> str:
            named = sorted(mentions(str(tool_call["args"].get("expression", "")), gated))
            return f"{description_prefix}: {', '.join(named)}\n\n{json.dumps(tool_call['args'])}"

        config: InterruptOnConfig = {
            "allowed_decisions": ["approve", "reject"],
            "when": when,
            "description": describe_action,
        }
        super().__init__(interrupt_on={name: config} if gated else {}, description_prefix=description_prefix)
        self.tools = [
            tool_call(
                tools, name=name, limits=limits, policy=policy, approval_required=gated, _reviewed=True
            )
        ]
