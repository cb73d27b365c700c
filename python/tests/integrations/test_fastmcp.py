"""FastMCP: a server with `PtcCodeMode` lists one ToolCall tool over its tools, and FastMCP's
in-memory client calls it; also over a proxy of another server (a client's tools)."""

import asyncio

from typing import Any, Dict, List

import pytest

pytest.importorskip("fastmcp")

from fastmcp import Client, FastMCP  # noqa: E402
from fastmcp.exceptions import ToolError  # noqa: E402
from fastmcp.server import create_proxy  # noqa: E402

from ptc.integrations.fastmcp import PtcCodeMode  # noqa: E402

PARALLEL = '(mapcar (lambda (r) (plist-get r :temp)) (parallel (weather :city "Oslo") (weather :city "Rome")))'


def make_server(log: List[Any]) -> FastMCP:
    server = FastMCP("tools")

    @server.tool
    async def weather(city: str) -> Dict[str, Any]:
        """Gives the weather of a city."""
        log.append(("weather", city))
        return {"city": city, "temp": 24 if city == "Rome" else 11}

    @server.tool
    def shout(text: str) -> str:
        """Upper-cases text."""
        log.append(("shout", text))
        return text.upper()

    return server


async def call(server: FastMCP, expression: str, raise_on_error: bool = True) -> Any:
    async with Client(server) as client:
        tools = await client.list_tools()
        result = await client.call_tool("ToolCall", {"expression": expression}, raise_on_error=raise_on_error)
        return tools, result


def test_in_memory_client_sees_one_toolcall_and_it_composes_two_tools_in_parallel() -> None:
    log: List[Any] = []
    server = make_server(log)
    server.add_transform(PtcCodeMode())
    tools, result = asyncio.run(call(server, PARALLEL))
    assert [t.name for t in tools] == ["ToolCall"]
    assert "weather" in tools[0].description and "shout" in tools[0].description
    assert result.content[0].text == "(11 24)"
    assert sorted(c[1] for c in log) == ["Oslo", "Rome"]


def test_text_results_and_script_errors() -> None:
    log: List[Any] = []
    server = make_server(log)
    server.add_transform(PtcCodeMode())
    _, result = asyncio.run(call(server, '(shout :text "hi")'))
    assert result.content[0].text == "HI"
    with pytest.raises(ToolError, match="town"):
        asyncio.run(call(server, "(weather :town 1)"))


def test_policy_denial_aborts_and_is_an_error_result() -> None:
    log: List[Any] = []
    server = make_server(log)
    server.add_transform(PtcCodeMode(policy=lambda c: "no Rome" if c.arguments.get("city") == "Rome" else None))
    _, result = asyncio.run(
        call(server, '(list (weather :city "Oslo") (weather :city "Rome") (weather :city "Paris"))', False)
    )
    assert result.is_error and "no Rome" in result.content[0].text
    assert log == [("weather", "Oslo")]


def test_toolcall_over_a_proxy_of_another_servers_tools() -> None:
    log: List[Any] = []
    proxy = create_proxy(make_server(log))
    proxy.add_transform(PtcCodeMode())
    tools, result = asyncio.run(call(proxy, PARALLEL))
    assert [t.name for t in tools] == ["ToolCall"]
    assert result.content[0].text == "(11 24)"
