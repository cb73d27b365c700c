"""End-to-end check of `ptc mcp` with the official Python MCP SDK client.

Drives `ptc mcp --config CONFIG` over stdio exactly as an MCP client would, with the
official reference servers (server-everything, server-filesystem) behind it. Run by
.ci/mcp.sh:

    python mcp/e2e/client.py --ptc target/debug/ptc --bin NODE_MODULES/.bin

Prints one line per check and a closing "N passed, N failed" line; exits 1 on any failure.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
import traceback
from pathlib import Path

import anyio
import mcp.types as types
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


def write_config(path: Path, bin_dir: Path, root: Path) -> None:
    config = {
        "mcpServers": {
            "everything": {"command": str(bin_dir / "mcp-server-everything"), "args": ["stdio"]},
            "fs": {"command": str(bin_dir / "mcp-server-filesystem"), "args": [str(root)]},
        },
        "ptc": {
            "servers": {"fs": {"ask": ["write_file"]}},
            "parallelism": 4,
            "toolTimeoutMs": 60000,
        },
    }
    path.write_text(json.dumps(config, indent=2))


class Session:
    """One ptc session with a declining elicitation callback that counts its prompts."""

    def __init__(self, ptc: str, config: Path, log: Path):
        self.ptc = ptc
        self.config = config
        self.log = log
        self.elicitations: list[str] = []

    async def elicit(self, context, params):  # noqa: ANN001 (SDK callback shape)
        self.elicitations.append(getattr(params, "message", ""))
        return types.ElicitResult(action="decline")


def text_of(result) -> str:  # noqa: ANN001
    return "".join(block.text for block in result.content if block.type == "text")


async def run_checks(args: argparse.Namespace) -> tuple[int, int]:
    work = Path(tempfile.mkdtemp(prefix="ptc-mcp-e2e-")).resolve()
    root = work / "root"
    root.mkdir()
    (root / "a.txt").write_text("hello from a\n")
    (root / "b.txt").write_text("line one\nline two\n")
    config = work / "mcp.json"
    write_config(config, Path(args.bin).resolve(), root)
    log = work / "ptc.log"
    session_state = Session(args.ptc, config, log)
    passed = failed = 0

    params = StdioServerParameters(
        command=args.ptc,
        args=["mcp", "--config", str(config)],
        env={**os.environ, "PTC_LOG": "info"},
    )
    with log.open("w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(
                read, write, elicitation_callback=session_state.elicit
            ) as s:
                init = await s.initialize()

                async def check(name: str, body) -> None:  # noqa: ANN001
                    nonlocal passed, failed
                    started = time.monotonic()
                    try:
                        await body()
                    except Exception:  # noqa: BLE001
                        failed += 1
                        print(f"FAILED {name}")
                        traceback.print_exc(file=sys.stdout)
                        return
                    passed += 1
                    print(f"PASSED {name} ({(time.monotonic() - started) * 1000:.0f} ms)")

                async def call(expression: str, **kw):  # noqa: ANN202
                    return await s.call_tool("ToolCall", {"expression": expression}, **kw)

                async def initialize_gives_the_listing():
                    assert init.server_info.name == "ptc", init.server_info
                    assert init.instructions, "no instructions"
                    assert "(everything.get-sum :a NUMBER :b NUMBER)" in init.instructions, init.instructions
                    assert "fs.read_text_file" in init.instructions, init.instructions

                async def two_tools_only():
                    tools = (await s.list_tools()).tools
                    assert [t.name for t in tools] == ["ToolCall", "ToolSearch"], tools
                    schema = tools[0].input_schema
                    assert schema["required"] == ["expression"], schema

                async def tool_search_ranks_contracts():
                    r = await s.call_tool("ToolSearch", {"query": "get-sum"})
                    found = r.structured_content["tools"]
                    assert found[0]["name"] == "everything.get-sum", found
                    assert found[0]["inputSchema"]["properties"]["a"], found

                async def composed_parallel_into_both_servers():
                    expr = (
                        f'(parallel (everything.get-sum :a 2 :b 3)'
                        f' (fs.read_text_file :path "{root}/a.txt")'
                        f' (everything.echo :message "hi"))'
                    )
                    r = await call(expr)
                    assert not r.is_error, text_of(r)
                    value = r.structured_content["value"]
                    assert value[0] == "The sum of 2 and 3 is 5.", value
                    # server-filesystem sends structuredContent {"content": TEXT}.
                    assert value[1] == {"content": "hello from a\n"}, value
                    assert "hi" in value[2], value
                    calls = r.structured_content["calls"]
                    assert [c["tool"] for c in calls] == [
                        "everything.get-sum", "fs.read_text_file", "everything.echo"], calls
                    assert all(c["batch"] == calls[0]["batch"] for c in calls), calls

                async def structured_content_is_a_plist():
                    r = await call(
                        '(plist-get (everything.get-structured-content :location "Chicago") :conditions)'
                    )
                    assert not r.is_error, text_of(r)
                    assert isinstance(r.structured_content["value"], str), r.structured_content

                async def failing_upstream_call_is_an_error_value():
                    r = await call('(let ((r (fs.read_text_file :path "/etc/passwd")))'
                                   ' (list (plist-get r :error) (everything.echo :message "after")))')
                    assert not r.is_error, text_of(r)
                    error, after = r.structured_content["value"]
                    assert "denied" in error.lower() or "outside" in error.lower(), error
                    assert "after" in after, after

                async def direct_call_returns_the_image_untouched():
                    ours = await call("(everything.get-tiny-image)")
                    assert not ours.is_error, text_of(ours)
                    kinds = [b.type for b in ours.content]
                    assert "image" in kinds, kinds
                    assert ours.structured_content is None, ours.structured_content
                    # The same call made straight to the everything server.
                    direct = StdioServerParameters(
                        command=str(Path(args.bin).resolve() / "mcp-server-everything"),
                        args=["stdio"])
                    with open(os.devnull, "w") as quiet:
                        async with stdio_client(direct, errlog=quiet) as (r2, w2):
                            async with ClientSession(r2, w2) as raw:
                                await raw.initialize()
                                theirs = await raw.call_tool("get-tiny-image", {})
                    assert [b.model_dump() for b in ours.content] == [
                        b.model_dump() for b in theirs.content], "content differs"

                async def composed_media_is_a_descriptor():
                    r = await call("(let ((out nil)) (dolist (b (everything.get-tiny-image))"
                                   " (when (and (listp b) (equal (plist-get b :type) \"image\"))"
                                   " (setq out (cons b out)))) out)")
                    assert not r.is_error, text_of(r)
                    (image,) = r.structured_content["value"]
                    assert image["mimeType"] == "image/png" and image["size"] > 0, image
                    assert "data" not in image, image

                async def bad_script_is_a_diagnostic_before_any_call():
                    target = root / "never.txt"
                    expr = (f'(progn (fs.write_file :path "{target}" :content "x")'
                            ' (everything.get-sum :a 1 :b')
                    r = await call(expr)
                    assert r.is_error, text_of(r)
                    assert "^" in text_of(r) or "─" in text_of(r), text_of(r)
                    r = await call('(progn (everything.echo :message "x") (no-such-function 1))')
                    assert r.is_error, text_of(r)
                    assert "no-such-function" in text_of(r), text_of(r)
                    assert not target.exists()
                    assert not session_state.elicitations, session_state.elicitations

                async def cancellation_of_a_long_running_call():
                    started = time.monotonic()
                    with anyio.move_on_after(1.5):
                        await call("(list (everything.trigger-long-running-operation :duration 30 :steps 30))")
                    assert time.monotonic() - started < 5
                    # ptc is still serving, promptly.
                    r = await call('(everything.echo :message "still here")')
                    assert "still here" in text_of(r), text_of(r)
                    deadline = time.monotonic() + 5
                    while "the client cancelled a ToolCall" not in log.read_text():
                        assert time.monotonic() < deadline, "ptc never saw the cancellation"
                        await anyio.sleep(0.1)

                async def progress_notifications_flow():
                    seen: list[tuple[float, float | None]] = []

                    async def progress(p, total, message):  # noqa: ANN001
                        seen.append((p, total))

                    r = await call('(list (everything.get-sum :a 1 :b 2) (everything.echo :message "p"))',
                                   progress_callback=progress)
                    assert not r.is_error, text_of(r)
                    assert len(seen) >= 2, seen
                    assert seen[-1][0] == 2, seen

                async def ask_tool_declined_through_elicitation():
                    target = root / "denied.txt"
                    before = len(session_state.elicitations)
                    r = await call(f'(list (everything.echo :message "first")'
                                   f' (fs.write_file :path "{target}" :content "x"))')
                    assert r.is_error, text_of(r)
                    assert "declined" in text_of(r), text_of(r)
                    assert len(session_state.elicitations) == before + 1, session_state.elicitations
                    assert "fs.write_file" in session_state.elicitations[-1]
                    assert not target.exists()

                for name, body in [
                    ("initialize gives the listing in instructions", initialize_gives_the_listing),
                    ("tools/list: ToolCall and ToolSearch only", two_tools_only),
                    ("ToolSearch ranks full contracts", tool_search_ranks_contracts),
                    ("composed ToolCall, parallel calls into both servers", composed_parallel_into_both_servers),
                    ("structuredContent reaches the guest as a plist", structured_content_is_a_plist),
                    ("a failing upstream call is an error value", failing_upstream_call_is_an_error_value),
                    ("a direct call returns the everything server's image untouched", direct_call_returns_the_image_untouched),
                    ("composed, an image is a descriptor without payload", composed_media_is_a_descriptor),
                    ("a bad script is a diagnostic and no upstream call", bad_script_is_a_diagnostic_before_any_call),
                    ("cancellation of a long-running call", cancellation_of_a_long_running_call),
                    ("progress notifications as nested calls settle", progress_notifications_flow),
                    ("an ask tool declined through elicitation", ask_tool_declined_through_elicitation),
                ]:
                    await check(name, body)
    return passed, failed


def children_of(pid: int) -> set[int]:
    """Every live descendant of `pid`, from /proc."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if fields[0] != "Z":
            parents[int(entry.name)] = int(fields[1])
    found: set[int] = set()
    frontier = {pid}
    while frontier:
        frontier = {c for c, p in parents.items() if p in frontier} - found
        found |= frontier
    return found


def alive(pids: set[int]) -> set[int]:
    out = set()
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            out.add(pid)
    return out


def lifecycle_checks(args: argparse.Namespace) -> tuple[int, int]:
    """Upstream children never outlive ptc: stdin EOF, SIGTERM, SIGKILL."""
    import signal
    import subprocess

    work = Path(tempfile.mkdtemp(prefix="ptc-mcp-life-")).resolve()
    (work / "root").mkdir()
    config = work / "mcp.json"
    write_config(config, Path(args.bin).resolve(), work / "root")
    init = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "lifecycle", "version": "1"}}}) + "\n"
    passed = failed = 0
    for how in ["stdin EOF", "SIGTERM", "SIGKILL"]:
        name = f"upstream children end with ptc ({how})"
        proc = subprocess.Popen([args.ptc, "mcp", "--config", str(config)], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        try:
            proc.stdin.write(init.encode())
            proc.stdin.flush()
            line = proc.stdout.readline()
            assert b'"serverInfo"' in line, line
            kids = children_of(proc.pid)
            assert len(kids) >= 2, f"expected both upstream servers as children, found {kids}"
            if how == "stdin EOF":
                proc.stdin.close()
            elif how == "SIGTERM":
                proc.send_signal(signal.SIGTERM)
            else:
                proc.kill()
            proc.wait(timeout=10)
            deadline = time.monotonic() + 10
            while alive(kids):
                assert time.monotonic() < deadline, f"children outlived ptc: {alive(kids)}"
                time.sleep(0.05)
        except Exception:  # noqa: BLE001
            failed += 1
            print(f"FAILED {name}")
            traceback.print_exc(file=sys.stdout)
            proc.kill()
            continue
        passed += 1
        print(f"PASSED {name} (exit status {proc.returncode})")
    return passed, failed


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--ptc", required=True, help="the ptc binary")
    parser.add_argument("--bin", required=True, help="node_modules/.bin with the reference servers")
    args = parser.parse_args()
    passed, failed = anyio.run(run_checks, args)
    more_passed, more_failed = lifecycle_checks(args)
    passed += more_passed
    failed += more_failed
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
