"""End-to-end check of ptc's OpenTelemetry export against a real OTLP/HTTP receiver
(issue 43, spec/reference/observability.md). Run by .ci/otel.sh:

    python mcp/e2e/otel.py --ptc target/debug/ptc

The receiver is an HTTP server in this process decoding what ptc sends with the official
`opentelemetry-proto` messages (ExportTraceServiceRequest, ExportMetricsServiceRequest).
The official Python MCP SDK client drives one composed ToolCall through `ptc mcp` (stdio)
with `_meta.traceparent` of a client span; the upstream is an SDK server
(mcp/e2e/otel_upstream.py) recording the `_meta.traceparent` it receives. Checked: the
span tree client span -> `tools/call ToolCall` (server) -> `ptc.tool_call` -> one
`execute_tool {tool}` per nested call -> the upstream's traceparent, whose parent id is that
call's span; the GenAI attribute names; the metric names; `ptc serve`'s `traceparent` on
`run` and on `tool/call`; and a one-shot `ptc run` that exports its span and a budget
exhaustion before it exits.

Prints one line per check and a closing "N passed, N failed" line; exits 1 on any failure.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest,
    ExportMetricsServiceResponse,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.trace.v1.trace_pb2 import Span

HERE = Path(__file__).resolve().parent


class Received:
    """What the receiver decoded: spans (with their service) and metric names by service."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.spans: list[tuple[str, Span]] = []
        self.metrics: list[tuple[str, str]] = []
        self.bad: list[str] = []

    def spans_of(self, service: str) -> list[Span]:
        with self.lock:
            return [span for s, span in self.spans if s == service]

    def metric_names(self, service: str) -> set[str]:
        with self.lock:
            return {name for s, name in self.metrics if s == service}


def service_of(resource) -> str:  # noqa: ANN001
    for kv in resource.attributes:
        if kv.key == "service.name":
            return kv.value.string_value
    return ""


def receiver(received: Received) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args) -> None:  # noqa: ANN002
            pass

        def do_POST(self) -> None:  # noqa: N802
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            try:
                if self.path == "/v1/traces":
                    request = ExportTraceServiceRequest.FromString(body)
                    with received.lock:
                        for rs in request.resource_spans:
                            for ss in rs.scope_spans:
                                received.spans += [(service_of(rs.resource), s) for s in ss.spans]
                    reply = ExportTraceServiceResponse().SerializeToString()
                elif self.path == "/v1/metrics":
                    request = ExportMetricsServiceRequest.FromString(body)
                    with received.lock:
                        for rm in request.resource_metrics:
                            for sm in rm.scope_metrics:
                                received.metrics += [(service_of(rm.resource), m.name) for m in sm.metrics]
                    reply = ExportMetricsServiceResponse().SerializeToString()
                else:
                    self.send_response(404)
                    self.end_headers()
                    return
            except Exception as error:  # noqa: BLE001
                received.bad.append(f"{self.path}: {error}")
                self.send_response(400)
                self.end_headers()
                return
            self.send_response(200)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", str(len(reply)))
            self.end_headers()
            self.wfile.write(reply)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def attrs(span: Span) -> dict[str, object]:
    out: dict[str, object] = {}
    for kv in span.attributes:
        v = kv.value
        out[kv.key] = getattr(v, v.WhichOneof("value")) if v.WhichOneof("value") else None
    return out


def wait_for(predicate, seconds: float = 10.0):  # noqa: ANN001, ANN201
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    return predicate()


async def drive_mcp(args: argparse.Namespace, env: dict[str, str], work: Path, traceparent: str) -> None:
    config = work / "mcp.json"
    config.write_text(json.dumps({
        "mcpServers": {"up": {"command": sys.executable, "args": [str(HERE / "otel_upstream.py")]}},
    }))
    params = StdioServerParameters(command=args.ptc, args=["mcp", "--config", str(config)], env=env)
    with (work / "ptc-mcp.log").open("w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                result = await session.call_tool(
                    "ToolCall",
                    {"expression": '(parallel (up.add :a 2 :b 3) (up.echo :text "hi"))'},
                    meta={"traceparent": traceparent},
                )
                assert not result.is_error, result
                assert result.structured_content["value"] == [{"result": 5}, {"result": "hi"}], result.structured_content


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--ptc", required=True)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="ptc-otel-e2e-")).resolve()
    received = Received()
    server = receiver(received)
    endpoint = f"http://127.0.0.1:{server.server_address[1]}"
    record = work / "upstream.jsonl"
    env = {
        **os.environ,
        "OTEL_EXPORTER_OTLP_ENDPOINT": endpoint,
        "OTEL_SERVICE_NAME": "ptc-mcp-e2e",
        "PTC_OTEL_E2E_RECORD": str(record),
    }
    trace_id, client_span = secrets.token_hex(16), secrets.token_hex(8)
    passed = failed = 0

    def check(name: str, body) -> None:  # noqa: ANN001
        nonlocal passed, failed
        try:
            body()
        except Exception:  # noqa: BLE001
            failed += 1
            print(f"FAILED {name}")
            traceback.print_exc(file=sys.stdout)
            return
        passed += 1
        print(f"PASSED {name}")

    started = time.monotonic()
    anyio.run(drive_mcp, args, env, work, f"00-{trace_id}-{client_span}-01")
    print(f"ptc mcp session: {(time.monotonic() - started) * 1000:.0f} ms")

    def by_name(spans: list[Span]) -> dict[str, list[Span]]:
        out: dict[str, list[Span]] = {}
        for span in spans:
            out.setdefault(span.name, []).append(span)
        return out

    def mcp_spans_arrived():  # noqa: ANN202
        names = by_name(received.spans_of("ptc-mcp-e2e"))
        return names if len(names.get("execute_tool up.add", [])) and "ptc.tool_call" in names else None

    names = wait_for(mcp_spans_arrived) or by_name(received.spans_of("ptc-mcp-e2e"))

    def tree() -> None:
        assert not received.bad, received.bad
        (server_span,) = names["tools/call ToolCall"]
        assert server_span.trace_id.hex() == trace_id, server_span
        assert server_span.parent_span_id.hex() == client_span, server_span
        assert server_span.kind == Span.SPAN_KIND_SERVER, server_span.kind
        assert attrs(server_span)["mcp.method.name"] == "tools/call", attrs(server_span)
        (run,) = names["ptc.tool_call"]
        assert run.trace_id.hex() == trace_id and run.parent_span_id == server_span.span_id, run
        assert "ptc.envelope.id" in attrs(run) and attrs(run)["ptc.outcome"] == "completed", attrs(run)
        calls = names["execute_tool up.add"] + names["execute_tool up.echo"]
        assert len(calls) == 2, names.keys()
        for span, tool in zip(calls, ["up.add", "up.echo"]):
            assert span.parent_span_id == run.span_id and span.trace_id.hex() == trace_id, span
            a = attrs(span)
            assert a["gen_ai.operation.name"] == "execute_tool", a
            assert a["gen_ai.tool.name"] == tool, a
            assert str(a["gen_ai.tool.call.id"]).startswith(str(attrs(run)["ptc.envelope.id"])), a
            assert a["ptc.call.status"] == "success", a
            assert "gen_ai.tool.call.arguments" not in a, a  # content is opt-in

    def upstream_parent() -> None:
        seen = [json.loads(line) for line in record.read_text().splitlines()]
        assert sorted(r["tool"] for r in seen) == ["add", "echo"], seen
        spans = {s.name.split(".")[-1]: s for s in names["execute_tool up.add"] + names["execute_tool up.echo"]}
        for r in seen:
            version, tid, parent, flags = r["traceparent"].split("-")
            assert version == "00" and tid == trace_id and flags == "01", r
            assert parent == spans[r["tool"]].span_id.hex(), (r, spans[r["tool"]].span_id.hex())

    def mcp_metrics() -> None:
        metric_names = wait_for(lambda: received.metric_names("ptc-mcp-e2e") >= {
            "ptc.tool_call.duration", "ptc.tool.call.duration", "ptc.tool_call.active"})
        assert metric_names, received.metric_names("ptc-mcp-e2e")

    check("ptc mcp: client span -> tools/call -> ptc.tool_call -> execute_tool per call", tree)
    check("ptc mcp: each upstream traceparent's parent is its execute_tool span", upstream_parent)
    check("ptc mcp: metric names", mcp_metrics)

    run_env = {**env, "OTEL_SERVICE_NAME": "ptc-run-e2e"}

    def one_shot() -> None:
        started = time.monotonic()
        done = subprocess.run(
            [args.ptc, "run", "-e", "(demo.t :x 1) (dotimes (i 100000) i)", "--stub", "demo.t=args",
             "--limit", "steps=2000", "--no-builtin-tools"],
            env=run_env, capture_output=True, text=True, timeout=60)
        print(f"  ptc run (exporting): {(time.monotonic() - started) * 1000:.0f} ms, exit {done.returncode}")
        # Everything arrived before the process exited: no waiting here.
        names = by_name(received.spans_of("ptc-run-e2e"))
        (run,) = names["ptc.tool_call"]
        assert attrs(run)["error.type"] == "step", attrs(run)
        assert run.status.code == run.status.STATUS_CODE_ERROR, run.status
        (call,) = names["execute_tool demo.t"]
        assert call.parent_span_id == run.span_id, call
        metric_names = received.metric_names("ptc-run-e2e")
        assert {"ptc.tool_call.duration", "ptc.budget.exhausted", "ptc.tool.call.duration"} <= metric_names, metric_names

    def off_without_variables() -> None:
        quiet = {k: v for k, v in env.items() if not k.startswith("OTEL_")}
        quiet["OTEL_SERVICE_NAME"] = "ptc-off-e2e"
        before = len(received.spans)
        subprocess.run([args.ptc, "run", "-e", "(demo.t :x 1)", "--stub", "demo.t=args", "--no-builtin-tools"],
                       env=quiet, capture_output=True, timeout=60, check=True)
        none = {**env, "OTEL_SERVICE_NAME": "ptc-off-e2e", "OTEL_SDK_DISABLED": "true"}
        subprocess.run([args.ptc, "run", "-e", "(demo.t :x 1)", "--stub", "demo.t=args", "--no-builtin-tools"],
                       env=none, capture_output=True, timeout=60, check=True)
        time.sleep(0.5)
        assert len(received.spans) == before and not received.spans_of("ptc-off-e2e"), "exported while off"

    def serve() -> None:
        serve_trace, serve_parent = secrets.token_hex(16), secrets.token_hex(8)
        tool = {"name": "Weather", "description": "Weather.", "inputSchema": {"type": "object"}}
        proc = subprocess.Popen([args.ptc, "serve"], env={**env, "OTEL_SERVICE_NAME": "ptc-serve-e2e"},
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert proc.stdin and proc.stdout
        proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "run", "params": {
            "expression": '(Weather :city "Oslo")', "tools": [tool],
            "traceparent": f"00-{serve_trace}-{serve_parent}-01"}}) + "\n")
        proc.stdin.flush()
        call = json.loads(proc.stdout.readline())
        assert call["method"] == "tool/call", call
        proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": call["id"], "result": {"temp": 11}}) + "\n")
        proc.stdin.flush()
        done = json.loads(proc.stdout.readline())
        assert done["result"]["outcome"] == "completed", done
        proc.stdin.close()
        assert proc.wait(timeout=30) == 0
        names = by_name(received.spans_of("ptc-serve-e2e"))
        (run,) = names["ptc.tool_call"]
        assert run.trace_id.hex() == serve_trace and run.parent_span_id.hex() == serve_parent, run
        (span,) = names["execute_tool Weather"]
        assert span.parent_span_id == run.span_id, span
        assert call["params"]["traceparent"] == f"00-{serve_trace}-{span.span_id.hex()}-01", call

    check("ptc serve: run traceparent -> ptc.tool_call -> execute_tool -> tool/call traceparent", serve)
    check("ptc run: one-shot export before exit (span, budget metric)", one_shot)
    check("nothing is exported without OTEL_* variables or with OTEL_SDK_DISABLED", off_without_variables)
    server.shutdown()
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
