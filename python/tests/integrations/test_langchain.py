"""LangChain 1.x: `create_agent` with a fake chat model that emits tool calls runs the
ToolCall tool over LangChain tools; approvals through `PtcMiddleware`'s interrupts."""

import asyncio

from typing import Any, Dict, List

import pytest

pytest.importorskip("langchain")

from langchain.agents import create_agent  # noqa: E402
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel  # noqa: E402
from langchain_core.messages import AIMessage, ToolMessage  # noqa: E402
from langchain_core.tools import tool  # noqa: E402
from langgraph.checkpoint.memory import InMemorySaver  # noqa: E402
from langgraph.types import Command  # noqa: E402

from ptc.integrations.langchain import PtcMiddleware, tool_call  # noqa: E402

PARALLEL = '(mapcar (lambda (r) (plist-get r :temp)) (parallel (weather :city "Oslo") (weather :city "Rome")))'


class ToolCallingFake(GenericFakeChatModel):
    """LangChain's fake chat model, accepting `bind_tools` (create_agent binds the tools)."""

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        self.__dict__.setdefault("bound", []).append([getattr(t, "name", t) for t in tools])
        return self


def scripted(expression: str) -> ToolCallingFake:
    return ToolCallingFake(
        messages=iter(
            [
                AIMessage("", tool_calls=[{"name": "ToolCall", "args": {"expression": expression}, "id": "c1"}]),
                AIMessage("done"),
            ]
        )
    )


def make_tools(log: List[Any]) -> List[Any]:
    @tool
    def weather(city: str) -> Dict[str, Any]:
        """Gives the weather of a city."""
        log.append(("weather", city))
        return {"city": city, "temp": 24 if city == "Rome" else 11}

    @tool
    def remove_file(path: str) -> str:
        """Deletes a file."""
        log.append(("remove_file", path))
        return f"deleted {path}"

    return [weather, remove_file]


def tool_messages(state: Dict[str, Any]) -> List[Any]:
    return [m for m in state["messages"] if isinstance(m, ToolMessage)]


def test_create_agent_runs_toolcall_composing_two_tools_in_parallel() -> None:
    log: List[Any] = []
    model = scripted(PARALLEL)
    agent = create_agent(model, tools=[tool_call(make_tools(log))])
    state = agent.invoke({"messages": [{"role": "user", "content": "weather?"}]})
    [message] = tool_messages(state)
    assert message.name == "ToolCall" and message.content == "(11 24)"
    assert sorted(c[1] for c in log) == ["Oslo", "Rome"]
    assert state["messages"][-1].content == "done"
    assert model.__dict__["bound"][0] == ["ToolCall"]


def test_async_agent_and_description_lists_the_tools() -> None:
    log: List[Any] = []
    toolcall = tool_call(make_tools(log))
    assert "weather" in toolcall.description and "remove_file" in toolcall.description
    agent = create_agent(scripted(PARALLEL), tools=[toolcall])
    state = asyncio.run(agent.ainvoke({"messages": [{"role": "user", "content": "weather?"}]}))
    assert tool_messages(state)[0].content == "(11 24)"


def approval_agent(expression: str, log: List[Any]) -> Any:
    middleware = PtcMiddleware(make_tools(log), approval_required=["remove_file"])
    return create_agent(scripted(expression), middleware=[middleware], checkpointer=InMemorySaver())


def test_middleware_interrupts_before_a_toolcall_naming_a_gated_tool_and_runs_it_when_approved() -> None:
    log: List[Any] = []
    agent = approval_agent('(list (weather :city "Oslo") (remove_file :path "/tmp/x"))', log)
    config = {"configurable": {"thread_id": "t1"}}
    state = agent.invoke({"messages": [{"role": "user", "content": "clean"}]}, config)
    [interrupt] = state["__interrupt__"]
    assert interrupt.value["action_requests"][0]["name"] == "ToolCall"
    assert "remove_file" in interrupt.value["action_requests"][0]["description"]
    assert log == []
    state = agent.invoke(Command(resume={"decisions": [{"type": "approve"}]}), config)
    assert tool_messages(state)[0].content == '((:city "Oslo" :temp 11) "deleted /tmp/x")'
    assert [c[0] for c in log] == ["weather", "remove_file"]


def test_middleware_rejection_runs_nothing() -> None:
    log: List[Any] = []
    agent = approval_agent('(remove_file :path "/tmp/x")', log)
    config = {"configurable": {"thread_id": "t2"}}
    agent.invoke({"messages": [{"role": "user", "content": "clean"}]}, config)
    state = agent.invoke(Command(resume={"decisions": [{"type": "reject", "message": "no"}]}), config)
    assert log == []
    assert "no" in tool_messages(state)[0].content


def test_toolcall_not_naming_a_gated_tool_runs_without_interrupt() -> None:
    log: List[Any] = []
    agent = approval_agent('(weather :city "Oslo")', log)
    state = agent.invoke({"messages": [{"role": "user", "content": "w"}]}, {"configurable": {"thread_id": "t3"}})
    assert "__interrupt__" not in state
    assert log == [("weather", "Oslo")]


def test_gated_tool_without_reviewer_is_denied_and_aborts() -> None:
    log: List[Any] = []
    toolcall = tool_call(make_tools(log), approval_required=["remove_file"])
    state = create_agent(scripted('(list (weather :city "Oslo") (remove_file :path "/x") (weather :city "Rome"))'),
                         tools=[toolcall]).invoke({"messages": [{"role": "user", "content": "x"}]})
    assert "approval" in tool_messages(state)[0].content
    assert log == [("weather", "Oslo")]


def test_middleware_without_gated_tools_adds_toolcall_and_needs_no_checkpointer() -> None:
    log: List[Any] = []
    model = scripted(PARALLEL)
    agent = create_agent(model, middleware=[PtcMiddleware(make_tools(log))])
    state = agent.invoke({"messages": [{"role": "user", "content": "w"}]})
    assert tool_messages(state)[0].content == "(11 24)"
    assert model.__dict__["bound"][0] == ["ToolCall"]
    assert sorted(c[1] for c in log) == ["Oslo", "Rome"]
