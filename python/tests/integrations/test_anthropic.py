"""Anthropic SDK: `client.beta.messages.tool_runner` runs the ToolCall tool over `@beta_tool`
functions; the Messages API is played by a mock transport of the SDK's HTTP client (the only
stand-in)."""

import asyncio
import json

from typing import Any, Dict, List

import pytest

pytest.importorskip("anthropic")

import httpx2  # noqa: E402  (the SDK's HTTP client)
from anthropic import Anthropic, AsyncAnthropic  # noqa: E402
from anthropic.lib.tools import beta_async_tool, beta_tool  # noqa: E402

from ptc.integrations.anthropic import async_tool_call, tool_call  # noqa: E402



def message(content: List[Any], stop_reason: str) -> Dict[str, Any]:
    return {
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-test",
        "content": content, "stop_reason": stop_reason, "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }


class MessagesApi:
    """Plays POST /v1/messages: first a ToolCall tool_use, then text quoting the tool_result."""

    def __init__(self, expression: str):
        self.expression = expression
        self.requests: List[Any] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        assert request.url.path == "/v1/messages"
        body = json.loads(request.content)
        self.requests.append(body)
        last = body["messages"][-1]
        results = [b for b in last["content"] if isinstance(b, dict) and b.get("type") == "tool_result"] \
            if isinstance(last["content"], list) else []
        if results:
            content = results[0]["content"]
            text = content if isinstance(content, str) else content[0]["text"]
            return httpx2.Response(200, json=message([{"type": "text", "text": f"answer: {text}"}], "end_turn"))
        use = {"type": "tool_use", "id": "toolu_1", "name": "ToolCall", "input": {"expression": self.expression}}
        return httpx2.Response(200, json=message([use], "tool_use"))


def text_of(final: Any) -> str:
    block = final.content[0]
    assert block.type == "text"
    return str(block.text)


def make_tools(log: List[Any]) -> List[Any]:
    @beta_tool
    def weather(city: str) -> str:
        """Gives the weather of a city."""
        log.append(("weather", city))
        return f"{city}: {24 if city == 'Rome' else 11}"

    return [weather]


def test_tool_runner_runs_toolcall_composing_two_tools_in_parallel() -> None:
    log: List[Any] = []
    api = MessagesApi('(parallel (weather :city "Oslo") (weather :city "Rome"))')
    client = Anthropic(api_key="test", http_client=httpx2.Client(transport=httpx2.MockTransport(api)))
    runner = client.beta.messages.tool_runner(
        model="claude-test", max_tokens=256, messages=[{"role": "user", "content": "weather?"}],
        tools=[tool_call(make_tools(log))],
    )
    final = runner.until_done()
    assert text_of(final) == 'answer: ("Oslo: 11" "Rome: 24")'
    assert sorted(c[1] for c in log) == ["Oslo", "Rome"]
    [sent] = api.requests[0]["tools"]
    assert sent["name"] == "ToolCall" and "weather" in sent["description"]
    assert sent["input_schema"]["required"] == ["expression"]


def test_async_tool_runner_and_policy_denial() -> None:
    log: List[Any] = []

    @beta_async_tool
    async def weather(city: str) -> str:
        """Gives the weather of a city."""
        log.append(("weather", city))
        return f"{city}: mild"

    api = MessagesApi('(list (weather :city "Oslo") (weather :city "Rome") (weather :city "Paris"))')
    client = AsyncAnthropic(api_key="test", http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(api)))
    tool = async_tool_call([weather], policy=lambda c: "no Rome" if c.arguments["city"] == "Rome" else None)

    async def go() -> Any:
        runner = client.beta.messages.tool_runner(
            model="claude-test", max_tokens=256, messages=[{"role": "user", "content": "w"}], tools=[tool]
        )
        return await runner.until_done()

    final = asyncio.run(go())
    assert "no Rome" in text_of(final)
    assert log == [("weather", "Oslo")]
