"""OpenAI Agents SDK: `Runner.run` with a scripted `Model` runs the ToolCall `FunctionTool`
over `function_tool`s; approvals through `needs_approval` interruptions."""

import asyncio
import json

from typing import Any, Dict, List

import pytest

pytest.importorskip("agents")

from agents import Agent, ModelSettings, Runner, Usage, function_tool, set_tracing_disabled  # noqa: E402
from agents.items import ModelResponse  # noqa: E402
from agents.models.interface import Model  # noqa: E402
from openai.types.responses import (  # noqa: E402
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)

from ptc.integrations.openai_agents import tool_call  # noqa: E402

set_tracing_disabled(True)  # no trace exporter in tests

PARALLEL = '(mapcar (lambda (r) (plist-get r :temp)) (parallel (weather :city "Oslo") (weather :city "Rome")))'


class Scripted(Model):
    """A model that calls ToolCall with `expression`, then answers with what it returned."""

    def __init__(self, expression: str):
        self.expression = expression
        self.tools: List[Any] = []

    async def get_response(self, system_instructions: Any, input: Any, model_settings: Any, tools: Any,
                           output_schema: Any, handoffs: Any, tracing: Any, *,
                           previous_response_id: Any = None, conversation_id: Any = None,
                           prompt: Any = None, **kwargs: Any) -> ModelResponse:
        self.tools.append(tools)
        outputs = [i for i in input if isinstance(i, dict) and i.get("type") == "function_call_output"] \
            if isinstance(input, list) else []
        if outputs:
            text = outputs[-1]["output"]
            message = ResponseOutputMessage(
                id="m1", type="message", role="assistant", status="completed",
                content=[ResponseOutputText(type="output_text", text=f"answer: {text}", annotations=[])],
            )
            return ModelResponse(output=[message], usage=Usage(), response_id=None)
        call = ResponseFunctionToolCall(
            type="function_call", id="fc1", call_id="c1", name="ToolCall",
            arguments=json.dumps({"expression": self.expression}),
        )
        return ModelResponse(output=[call], usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> Any:  # pragma: no cover - not used by Runner.run
        raise NotImplementedError


def make_tools(log: List[Any]) -> List[Any]:
    @function_tool
    async def weather(city: str) -> Dict[str, Any]:
        """Gives the weather of a city."""
        log.append(("weather", city))
        return {"city": city, "temp": 24 if city == "Rome" else 11}

    @function_tool(needs_approval=True)
    def remove_file(path: str) -> str:
        """Deletes a file."""
        log.append(("remove_file", path))
        return f"deleted {path}"

    return [weather, remove_file]


def agent_for(expression: str, log: List[Any]) -> Any:
    model = Scripted(expression)
    agent = Agent(name="a", model=model, tools=[tool_call(make_tools(log))], model_settings=ModelSettings())
    return agent, model


def test_runner_runs_toolcall_composing_two_tools_in_parallel() -> None:
    log: List[Any] = []
    agent, model = agent_for(PARALLEL, log)
    result = asyncio.run(Runner.run(agent, "weather?"))
    assert result.final_output == "answer: (11 24)"
    assert sorted(c[1] for c in log) == ["Oslo", "Rome"]
    [toolcall] = model.tools[0]
    assert toolcall.name == "ToolCall" and "weather" in toolcall.description


def test_naming_a_gated_tool_interrupts_then_runs_when_approved() -> None:
    log: List[Any] = []
    agent, _ = agent_for('(list (weather :city "Oslo") (remove_file :path "/tmp/x"))', log)

    async def go() -> Any:
        first = await Runner.run(agent, "clean")
        assert [i.tool_name for i in first.interruptions] == ["ToolCall"]
        assert log == []
        state = first.to_state()
        state.approve(first.interruptions[0])
        return await Runner.run(agent, state)

    result = asyncio.run(go())
    assert result.final_output == 'answer: ((:city "Oslo" :temp 11) "deleted /tmp/x")'
    assert [c[0] for c in log] == ["weather", "remove_file"]


def test_rejected_toolcall_runs_nothing() -> None:
    log: List[Any] = []
    agent, _ = agent_for('(remove_file :path "/tmp/x")', log)

    async def go() -> Any:
        first = await Runner.run(agent, "clean")
        state = first.to_state()
        state.reject(first.interruptions[0])
        return await Runner.run(agent, state)

    result = asyncio.run(go())
    assert log == []
    assert result.final_output.startswith("answer: ")


def test_toolcall_not_naming_a_gated_tool_needs_no_approval() -> None:
    log: List[Any] = []
    agent, _ = agent_for('(weather :city "Oslo")', log)
    result = asyncio.run(Runner.run(agent, "w"))
    assert not result.interruptions
    assert log == [("weather", "Oslo")]


def test_policy_denial_aborts_the_composition() -> None:
    log: List[Any] = []
    tool = tool_call(make_tools(log)[:1], policy=lambda c: "no Rome" if c.arguments["city"] == "Rome" else None)
    model = Scripted('(list (weather :city "Oslo") (weather :city "Rome") (weather :city "Paris"))')
    result = asyncio.run(Runner.run(Agent(name="a", model=model, tools=[tool]), "w"))
    assert "no Rome" in result.final_output
    assert log == [("weather", "Oslo")]
