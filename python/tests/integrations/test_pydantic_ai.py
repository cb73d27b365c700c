"""Pydantic AI: a real `Agent` driven by `FunctionModel` calls the ToolCall tool of a
`PtcToolset` over a `FunctionToolset`; approvals through deferred tool requests."""

import threading

from typing import Any, Dict, List

import pytest

pytest.importorskip("pydantic_ai")

from pydantic_ai import Agent, DeferredToolRequests, DeferredToolResults, ToolDenied  # noqa: E402
from pydantic_ai.messages import (  # noqa: E402
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel  # noqa: E402
from pydantic_ai.toolsets import FunctionToolset  # noqa: E402

from ptc.integrations.pydantic_ai import PtcToolset  # noqa: E402

PARALLEL = '(mapcar (lambda (r) (plist-get r :temp)) (parallel (weather :city "Oslo") (weather :city "Rome")))'


def make_toolset(log: List[Any]) -> FunctionToolset:
    toolset: FunctionToolset = FunctionToolset()

    @toolset.tool_plain
    async def weather(city: str) -> Dict[str, Any]:
        """Gives the weather of a city."""
        log.append(("weather", city, threading.get_ident()))
        return {"city": city, "temp": 24 if city == "Rome" else 11}

    @toolset.tool_plain(requires_approval=True)
    def remove_file(path: str) -> str:
        """Deletes a file."""
        log.append(("remove_file", path))
        return f"deleted {path}"

    return toolset


def scripted(expression: str, seen: List[Any]) -> FunctionModel:
    """A model that calls ToolCall with `expression`, then answers with what it returned."""

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(info)
        last = messages[-1]
        returns = [p for p in last.parts if isinstance(p, ToolReturnPart)] if isinstance(last, ModelRequest) else []
        if returns:
            return ModelResponse(parts=[TextPart(f"answer: {returns[0].content}")])
        return ModelResponse(parts=[ToolCallPart("ToolCall", {"expression": expression}, tool_call_id="c1")])

    return FunctionModel(model)


def test_agent_turn_composes_two_tools_in_parallel() -> None:
    log: List[Any] = []
    seen: List[Any] = []
    agent = Agent(scripted(PARALLEL, seen), toolsets=[PtcToolset(make_toolset(log))])
    result = agent.run_sync("How warm is it in Oslo and Rome?")
    assert result.output == "answer: (11 24)"
    assert sorted(c[1] for c in log) == ["Oslo", "Rome"]
    # The model saw one tool, ToolCall, whose description lists the wrapped tools.
    tools = seen[0].function_tools
    assert [t.name for t in tools] == ["ToolCall"]
    assert "weather" in tools[0].description and "remove_file" in tools[0].description
    assert tools[0].parameters_json_schema["required"] == ["expression"]


def test_script_error_reaches_the_model_as_the_tool_result() -> None:
    agent = Agent(scripted("(weather :town 1)", []), toolsets=[PtcToolset(make_toolset([]))])
    result = agent.run_sync("go")
    assert result.output.startswith("answer: ")
    assert "town" in result.output


def test_gated_tool_defers_the_toolcall_for_approval_then_runs_when_approved() -> None:
    log: List[Any] = []
    expression = '(list (weather :city "Oslo") (remove_file :path "/tmp/x"))'
    agent = Agent(
        scripted(expression, []),
        toolsets=[PtcToolset(make_toolset(log))],
        output_type=[str, DeferredToolRequests],
    )
    first = agent.run_sync("clean up")
    assert isinstance(first.output, DeferredToolRequests)
    assert [c.tool_name for c in first.output.approvals] == ["ToolCall"]
    assert first.output.metadata["c1"] == {"tools": ["remove_file"]}
    assert log == []  # nothing ran before the approval

    second = agent.run_sync(
        message_history=first.all_messages(),
        deferred_tool_results=DeferredToolResults(approvals={"c1": True}),
    )
    assert second.output == 'answer: ((:city "Oslo" :temp 11) "deleted /tmp/x")'
    assert [c[0] for c in log] == ["weather", "remove_file"]


def test_denied_toolcall_runs_nothing() -> None:
    log: List[Any] = []
    agent = Agent(
        scripted('(remove_file :path "/tmp/x")', []),
        toolsets=[PtcToolset(make_toolset(log))],
        output_type=[str, DeferredToolRequests],
    )
    first = agent.run_sync("clean up")
    assert isinstance(first.output, DeferredToolRequests)
    second = agent.run_sync(
        message_history=first.all_messages(),
        deferred_tool_results=DeferredToolResults(approvals={"c1": ToolDenied("no")}),
    )
    assert second.output == "answer: no"
    assert log == []


def test_gated_tool_cannot_be_reached_by_a_computed_name_without_approval() -> None:
    log: List[Any] = []
    # `remove_file` reached through a computed symbol: the expression does not name it, so no
    # approval is asked, and the composed roster does not have it either.
    expression = '(progn (weather :city "Oslo") (funcall (intern (concat "remove" "_file")) :path "/x") (weather :city "Rome"))'
    agent = Agent(scripted(expression, []), toolsets=[PtcToolset(make_toolset(log))])
    result = agent.run_sync("go")
    assert "remove_file" in result.output, result.output
    assert log and all(c[0] == "weather" for c in log)
    assert [c[1] for c in log] == ["Oslo"]


def test_user_policy_denial_aborts_the_composition() -> None:
    log: List[Any] = []
    toolset = PtcToolset(
        make_toolset(log), policy=lambda call: "no Rome" if call.arguments.get("city") == "Rome" else None
    )
    expression = '(list (weather :city "Oslo") (weather :city "Rome") (weather :city "Paris"))'
    result = Agent(scripted(expression, []), toolsets=[toolset]).run_sync("go")
    assert "no Rome" in result.output
    assert [c[1] for c in log] == ["Oslo"]


def test_toolcall_over_an_mcp_toolset() -> None:
    pytest.importorskip("fastmcp")
    from fastmcp import FastMCP
    from pydantic_ai.mcp import MCPToolset

    server = FastMCP("weather")
    log: List[Any] = []

    @server.tool
    def weather(city: str) -> Dict[str, Any]:
        """Gives the weather of a city."""
        log.append(("weather", city))
        return {"city": city, "temp": 24 if city == "Rome" else 11}

    seen: List[Any] = []
    agent = Agent(scripted(PARALLEL, seen), toolsets=[PtcToolset(MCPToolset(server))])
    result = agent.run_sync("weather?")
    assert result.output == "answer: (11 24)"
    assert sorted(c[1] for c in log) == ["Oslo", "Rome"]
    assert [t.name for t in seen[0].function_tools] == ["ToolCall"]
