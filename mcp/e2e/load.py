#!/usr/bin/env python3
"""A bounded load test of `ptc mcp --http` on loopback (issue 38), standard library only.

    python3 mcp/e2e/load.py --ptc target/release/ptc [--sessions 1000] [--calls 100]
                            [--stalled 50] [--seconds 60]

It starts `ptc mcp --http 127.0.0.1:PORT` over one upstream (this script in `--upstream`
mode: a raw JSON-lines MCP server whose `sleep` tool answers after `ms`), then, while one
well-behaved client runs a ToolCall in a loop and times each:

1. opens and closes `--sessions` sessions (initialize, initialized, DELETE), 8 at a time;
2. runs `--calls` ToolCalls at once, each in its own session (a parallel batch of two
   upstream sleeps of 200 ms), then closes those sessions;
3. holds `--stalled` connections that never finish their request head and as many that
   open a session and never read its answers, for 12 s (past the header timeout).

It prints the server's RSS at start, its peak (VmHWM), its settled RSS (and threads) 3 s
after the load and again 15 s after (once tokio's idle blocking threads have exited), and
the p50/p99/max latency of the well-behaved client, and exits 1 when the
well-behaved client failed a call or the settled RSS is more than 2x the baseline + 32 MB.
Every phase is bounded in count and in time (`--seconds` per phase).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from typing import Dict, List, Optional, Tuple

INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "load", "version": "1"}}}


def upstream() -> None:
    """A raw stdio MCP server with one tool, `sleep {ms}`."""
    lock = threading.Lock()

    def reply(message: dict) -> None:
        with lock:
            sys.stdout.write(json.dumps(message) + "\n")
            sys.stdout.flush()

    def sleeper(id, ms: float) -> None:
        time.sleep(ms / 1000)
        reply({"jsonrpc": "2.0", "id": id,
               "result": {"content": [{"type": "text", "text": f"slept {ms}"}]}})

    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        method, id = message.get("method"), message.get("id")
        if method == "initialize":
            reply({"jsonrpc": "2.0", "id": id, "result": {
                "protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                "serverInfo": {"name": "load-upstream", "version": "1"}}})
        elif method == "tools/list":
            reply({"jsonrpc": "2.0", "id": id, "result": {"tools": [
                {"name": "sleep", "description": "Sleeps.",
                 "inputSchema": {"type": "object", "properties": {"ms": {"type": "number"}},
                                 "required": ["ms"]}}]}})
        elif method == "tools/call":
            ms = float(message["params"].get("arguments", {}).get("ms", 0))
            threading.Thread(target=sleeper, args=(id, ms), daemon=True).start()
        elif id is not None and method is not None:
            reply({"jsonrpc": "2.0", "id": id, "result": {}})


class Session:
    """One MCP session over plain HTTP/1.1 (a new connection per request)."""

    def __init__(self, port: int):
        self.port = port
        self.id: Optional[str] = None

    def _post(self, message: dict, timeout: float = 30) -> Tuple[int, Optional[dict], Dict[str, str]]:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        headers = {"Content-Type": "application/json",
                   "Accept": "application/json, text/event-stream",
                   "MCP-Protocol-Version": "2025-11-25"}
        if self.id:
            headers["Mcp-Session-Id"] = self.id
        try:
            connection.request("POST", "/mcp", json.dumps(message), headers)
            response = connection.getresponse()
            answer = None
            if "id" in message and response.status == 200:
                answer = _read_answer(response, message["id"])
            else:
                response.read()
            return response.status, answer, {k.lower(): v for k, v in response.getheaders()}
        finally:
            connection.close()

    def open(self) -> None:
        status, answer, headers = self._post(INIT)
        if status != 200 or answer is None or "result" not in answer:
            raise RuntimeError(f"initialize: {status} {answer}")
        self.id = headers.get("mcp-session-id")
        self._post({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def tool_call(self, expression: str, id: int = 2) -> dict:
        status, answer, _ = self._post({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                                        "params": {"name": "ToolCall",
                                                   "arguments": {"expression": expression}}})
        if status != 200 or answer is None or "result" not in answer:
            raise RuntimeError(f"tools/call: {status} {answer}")
        return answer["result"]

    def close(self) -> None:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        try:
            connection.request("DELETE", "/mcp", headers={"Mcp-Session-Id": self.id or "",
                                                         "MCP-Protocol-Version": "2025-11-25"})
            connection.getresponse().read()
        finally:
            connection.close()


def _read_answer(response: http.client.HTTPResponse, id) -> Optional[dict]:
    if response.getheader("Content-Type", "").startswith("application/json"):
        return json.loads(response.read())
    while True:
        line = response.readline()
        if not line:
            return None
        if line.startswith(b"data:"):
            data = line[5:].strip()
            if not data:
                continue
            message = json.loads(data)
            if message.get("id") == id:
                return message


def rss(pid: int) -> Tuple[int, int]:
    """(VmRSS, VmHWM) in kB."""
    values = status_of(pid)
    return values.get("VmRSS", 0), values.get("VmHWM", 0)


def status_of(pid: int) -> Dict[str, int]:
    """VmRSS and VmHWM (kB) and Threads from /proc/PID/status."""
    values = {}
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            key, _, rest = line.partition(":")
            if key in ("VmRSS", "VmHWM", "Threads"):
                values[key] = int(rest.split()[0])
    return values


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_pool(jobs: List, workers: int, deadline: float) -> int:
    """Runs callables `workers` at a time until done or past `deadline`; returns failures."""
    failures = [0]
    lock = threading.Lock()
    it = iter(jobs)

    def work() -> None:
        while time.monotonic() < deadline:
            with lock:
                job = next(it, None)
            if job is None:
                return
            try:
                job()
            except Exception as error:  # noqa: BLE001 - counted and shown
                with lock:
                    failures[0] += 1
                    if failures[0] <= 3:
                        print(f"  failure: {error}", file=sys.stderr)

    threads = [threading.Thread(target=work, daemon=True) for _ in range(workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(max(0.0, deadline - time.monotonic()) + 1)
    return failures[0]


def main() -> int:
    if "--upstream" in sys.argv:
        upstream()
        return 0
    parser = argparse.ArgumentParser()
    parser.add_argument("--ptc", required=True)
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--calls", type=int, default=100)
    parser.add_argument("--stalled", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--rounds", type=int, default=1, help="repeat phases 1 and 2")
    args = parser.parse_args()

    port = free_port()
    config = {"mcpServers": {"up": {"command": sys.executable,
                                    "args": [os.path.abspath(__file__), "--upstream"]}}}
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(config, f)
    server = subprocess.Popen([args.ptc, "mcp", "--config", f.name, "--http", f"127.0.0.1:{port}"],
                              stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        Session(port).open()
        time.sleep(1)
        baseline, _ = rss(server.pid)
        print(f"baseline RSS: {baseline} kB")

        # The well-behaved client.
        latencies: List[float] = []
        good_failures = [0]
        stop = threading.Event()

        def good() -> None:
            session = Session(port)
            session.open()
            n = 10
            while not stop.is_set():
                started = time.perf_counter()
                try:
                    result = session.tool_call("(up.sleep :ms 1)", n)
                    if result.get("isError"):
                        raise RuntimeError(result)
                    latencies.append(time.perf_counter() - started)
                except Exception as error:  # noqa: BLE001 - counted
                    good_failures[0] += 1
                    print(f"  well-behaved client failed: {error}", file=sys.stderr)
                    try:
                        session = Session(port)
                        session.open()
                    except Exception:  # noqa: BLE001
                        pass
                n += 1
                time.sleep(0.05)
            session.close()

        good_thread = threading.Thread(target=good, daemon=True)
        good_thread.start()

        # 1. Sessions opened and closed.
        def open_close() -> None:
            s = Session(port)
            s.open()
            s.close()

        # 2. Concurrent ToolCalls.
        def phase2() -> None:
            started = time.monotonic()
            failed = run_pool([call] * args.calls, args.calls, started + args.seconds)
            print(f"phase 2: {args.calls} concurrent ToolCalls in "
                  f"{time.monotonic() - started:.1f} s, {failed} failed; RSS {rss(server.pid)[0]} kB")

        def call() -> None:
            s = Session(port)
            s.open()
            try:
                result = s.tool_call("(parallel (up.sleep :ms 200) (up.sleep :ms 200))")
                if result.get("isError"):
                    raise RuntimeError(result)
            finally:
                s.close()


        for round in range(args.rounds):
            started = time.monotonic()
            failed = run_pool([open_close] * args.sessions, 8, started + args.seconds)
            print(f"phase 1 (round {round + 1}): {args.sessions} sessions opened and closed in "
                  f"{time.monotonic() - started:.1f} s, {failed} failed; RSS {rss(server.pid)[0]} kB")
            phase2()


        # 3. Stalled and slow clients.
        stalled = []
        for _ in range(args.stalled):
            s = socket.create_connection(("127.0.0.1", port))
            s.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            stalled.append(s)
        body = json.dumps(INIT).encode()
        for _ in range(args.stalled):
            s = socket.create_connection(("127.0.0.1", port))
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            s.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\n"
                      b"Accept: application/json, text/event-stream\r\nContent-Length: %d\r\n\r\n%s"
                      % (port, len(body), body))
            stalled.append(s)  # never read
        time.sleep(12)
        print(f"phase 3: {2 * args.stalled} stalled/slow connections held 12 s; "
              f"RSS {rss(server.pid)[0]} kB")
        for s in stalled:
            s.close()

        stop.set()
        good_thread.join(30)
        time.sleep(3)
        settled, peak = rss(server.pid)
        latencies.sort()

        def pct(p: float) -> float:
            return latencies[min(len(latencies) - 1, int(p * len(latencies)))] * 1000 if latencies else float("nan")

        threads = status_of(server.pid).get("Threads", 0)
        print(f"peak RSS (VmHWM): {peak} kB; settled RSS: {settled} kB (baseline {baseline} kB), "
              f"{threads} threads")
        # tokio keeps an idle blocking-pool thread (where handlers ran) for 10 s: measured
        # again once they have exited, the rest is what the server itself still holds.
        time.sleep(12)
        late = status_of(server.pid)
        print(f"15 s after the load: RSS {late.get('VmRSS', 0)} kB, {late.get('Threads', 0)} threads")
        print(f"well-behaved client: {len(latencies)} calls, {good_failures[0]} failed; "
              f"p50 {pct(0.5):.1f} ms, p99 {pct(0.99):.1f} ms, max {pct(1.0):.1f} ms")
        ok = good_failures[0] == 0 and settled <= 2 * baseline + 32 * 1024
        print("load: OK" if ok else "load: FAILED")
        return 0 if ok else 1
    finally:
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
        os.unlink(f.name)


if __name__ == "__main__":
    sys.exit(main())
