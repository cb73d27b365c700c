#!/usr/bin/env python3
"""A ptc host in Python with nothing but the standard library: it starts `ptc serve`,
runs ToolCall scripts over JSON-RPC (spec/reference/protocol.md), and answers the
engine's `tool/call` requests from its own asyncio tasks, in whatever order they finish.

    python3 examples/serve_client.py [PATH_TO_PTC]          # the demo, with assertions
    python3 examples/serve_client.py [PATH_TO_PTC] --bench  # runs/s and per-call overhead

Copy `PtcServer` into your host: `await server.run(expression, tools, handlers)` returns
exactly the object `ptc run --format json` prints.
"""

import asyncio
import json
import sys
import time


class PtcServer:
    """One `ptc serve` process; many runs may be active on it at once."""

    def __init__(self, process):
        self.process = process
        self.next_id = 0
        self.waiting = {}  # our request id -> future of the engine's answer
        self.handlers = {}  # run request id -> {tool name: async handler}
        self.calls = {}  # engine's tool/call id -> asyncio task answering it
        self.reader = asyncio.create_task(self.read())

    @classmethod
    async def start(cls, ptc="ptc"):
        process = await asyncio.create_subprocess_exec(
            ptc, "serve", stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            limit=1 << 24)
        server = cls(process)
        init = await server.request("initialize", {"protocolVersion": "2026-12-01"})
        assert init["engine"]["name"] == "ptc", init
        return server

    def send(self, frame):
        self.process.stdin.write(json.dumps(frame).encode() + b"\n")

    async def request(self, method, params):
        self.next_id += 1
        rid = self.next_id
        future = asyncio.get_running_loop().create_future()
        self.waiting[rid] = future
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        await self.process.stdin.drain()
        return await future

    async def run(self, expression, tools, handlers, limits=None):
        """Runs `expression` with `tools` (MCP Tool objects); `handlers[name](arguments)`
        is awaited for each nested call and returns a JSON value or a CallToolResult."""
        self.next_id += 1
        rid = self.next_id
        future = asyncio.get_running_loop().create_future()
        self.waiting[rid] = future
        self.handlers[rid] = handlers
        params = {"expression": expression, "tools": tools}
        if limits:
            params["limits"] = limits
        self.send({"jsonrpc": "2.0", "id": rid, "method": "run", "params": params})
        await self.process.stdin.drain()
        try:
            return await future
        finally:
            del self.handlers[rid]

    async def answer(self, call_id, handler, arguments):
        try:
            result = await handler(arguments)
            self.send({"jsonrpc": "2.0", "id": call_id, "result": result})
        except asyncio.CancelledError:
            return  # the engine no longer wants this call
        except Exception as error:  # the host failed: a JSON-RPC error answer
            self.send({"jsonrpc": "2.0", "id": call_id,
                       "error": {"code": -32000, "message": str(error)}})
        finally:
            self.calls.pop(call_id, None)

    async def read(self):
        while line := await self.process.stdout.readline():
            frame = json.loads(line)
            method = frame.get("method")
            if method == "tool/call":
                params = frame["params"]
                handler = self.handlers[params["run"]][params["name"]]
                self.calls[frame["id"]] = asyncio.create_task(
                    self.answer(frame["id"], handler, params["arguments"]))
            elif method == "notifications/cancelled":
                task = self.calls.pop(frame["params"]["requestId"], None)
                if task:
                    task.cancel()
            elif "id" in frame and frame["id"] in self.waiting:
                future = self.waiting.pop(frame["id"])
                if "error" in frame:
                    future.set_exception(RuntimeError(frame["error"]["message"]))
                else:
                    future.set_result(frame["result"])

    async def close(self):
        """EOF: the engine cancels what is left and exits 0."""
        self.process.stdin.close()
        code = await self.process.wait()
        await self.reader
        return code


WEATHER = {
    "name": "Weather",
    "description": "Gives the weather for a city.",
    "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}},
                    "required": ["city"]},
}


async def weather(arguments):
    # Oslo answers last, so answers arrive out of order.
    await asyncio.sleep(0.05 if arguments["city"] == "Oslo" else 0.0)
    temp = {"Oslo": 11, "Rome": 24, "Lima": 19}[arguments["city"]]
    return {"city": arguments["city"], "temp": temp}


async def hang(arguments):
    await asyncio.sleep(3600)


async def crash(arguments):
    raise RuntimeError("the weather station is down")


async def demo(ptc):
    server = await PtcServer.start(ptc)
    script = """(let ((reports (parallel (Weather :city "Oslo") (Weather :city "Rome")
                                         (Weather :city "Lima"))))
                  (let ((best 0))
                    (dolist (r reports) (setq best (max best (plist-get r :temp))))
                    best))"""
    hang_tool = {"name": "Hang", "description": "Never answers.",
                 "inputSchema": {"type": "object"}}
    # Three runs at once on one connection: a batch, a per-call timeout, a host failure.
    batch, timed, failed = await asyncio.gather(
        server.run(script, [WEATHER], {"Weather": weather}),
        server.run("(list (Hang) 1)", [hang_tool], {"Hang": hang},
                   limits={"tool-timeout-ms": 200}),
        server.run('(Weather :city "Oslo")', [WEATHER], {"Weather": crash}),
    )
    assert batch["outcome"] == "completed", batch
    assert batch["value"] == 24, batch
    assert [c["id"].rsplit("/", 1)[1] for c in batch["calls"]] == ["1", "2", "3"], batch
    assert all(c["status"] == "success" and c["batch"] == 1 for c in batch["calls"]), batch
    assert timed["text"] == '((:error "Error: Hang timed out after 200 ms") 1)', timed
    assert failed["outcome"] == "tool-error", failed
    assert failed["text"] == "Error: Weather failed: the weather station is down", failed
    assert await server.close() == 0
    print("serve_client.py: ok:", batch["text"], "|", timed["text"], "|", failed["text"])


async def bench(ptc, runs=2000, calls=2000):
    server = await PtcServer.start(ptc)
    # Runs per second for a trivial script, one at a time on one connection.
    for _ in range(50):
        await server.run("(+ 1 2)", [], {})
    start = time.perf_counter()
    for _ in range(runs):
        result = await server.run("(+ 1 2)", [], {})
    sequential = time.perf_counter() - start
    assert result["value"] == 3
    # The same runs 200 in flight at a time (the engine takes at most 256 at once).
    start = time.perf_counter()
    for _ in range(runs // 200):
        results = await asyncio.gather(*(server.run("(+ 1 2)", [], {}) for _ in range(200)))
        assert all(r["value"] == 3 for r in results)
    pipelined = time.perf_counter() - start

    # Per nested call: a loop of sequential calls, minus the loop without calls.
    async def echo(arguments):
        return arguments["i"]

    tool = {"name": "Echo", "description": "Echoes i.",
            "inputSchema": {"type": "object", "properties": {"i": {"type": "integer"}}}}
    limits = {"tool-calls": calls}
    loop = f"(let ((s 0)) (dotimes (i {calls}) (setq s (+ s (Echo :i i)))) s)"
    bare = f"(let ((s 0)) (dotimes (i {calls}) (setq s (+ s i))) s)"
    best_loop = best_bare = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        result = await server.run(loop, [tool], {"Echo": echo}, limits=limits)
        best_loop = min(best_loop, time.perf_counter() - start)
        assert result["value"] == calls * (calls - 1) // 2, result
        start = time.perf_counter()
        await server.run(bare, [tool], {"Echo": echo}, limits=limits)
        best_bare = min(best_bare, time.perf_counter() - start)
    assert await server.close() == 0
    print(f"trivial runs, sequential: {runs / sequential:.0f} runs/s "
          f"({sequential / runs * 1e6:.0f} us per run)")
    print(f"trivial runs, 200 in flight: {runs // 200 * 200 / pipelined:.0f} runs/s")
    print(f"nested call through the pipe: {(best_loop - best_bare) / calls * 1e6:.1f} us "
          f"per call (best of 3, {calls} sequential calls)")


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    ptc = args[0] if args else "ptc"
    asyncio.run(bench(ptc) if "--bench" in sys.argv else demo(ptc))
