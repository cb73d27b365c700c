"""Measures `ptc mcp` against calling the same upstream tool directly (not a timed test).

    python mcp/e2e/bench.py --ptc target/release/ptc --bin NODE_MODULES/.bin --root spec/reference

1. Per-call latency of server-everything's `echo`: straight from the Python SDK client, as a
   direct ToolCall `(everything.echo ...)` through ptc, and per nested call inside one
   ToolCall that makes N sequential calls.
2. Context kept out of the model: one composed ToolCall over server-filesystem (the first
   heading and line count of every Markdown file under --root) against the characters of
   the intermediate results the same work would put in the model's context one call per
   turn (list_directory, then read_text_file per file).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


def text_of(result) -> str:  # noqa: ANN001
    return "".join(b.text for b in result.content if b.type == "text")


async def timed(n: int, fn) -> list[float]:  # noqa: ANN001
    samples = []
    for _ in range(n):
        t = time.perf_counter()
        await fn()
        samples.append((time.perf_counter() - t) * 1e6)
    return samples


def summary(name: str, samples: list[float]) -> str:
    samples = sorted(samples)
    p90 = samples[int(len(samples) * 0.9)]
    return (f"{name}: n={len(samples)} median={statistics.median(samples):.0f} us "
            f"mean={statistics.mean(samples):.0f} us p90={p90:.0f} us")


async def main(args: argparse.Namespace) -> None:
    bin_dir = Path(args.bin).resolve()
    root = Path(args.root).resolve()
    work = Path(tempfile.mkdtemp(prefix="ptc-mcp-bench-"))
    config = work / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {
        "everything": {"command": str(bin_dir / "mcp-server-everything"), "args": ["stdio"]},
        "fs": {"command": str(bin_dir / "mcp-server-filesystem"), "args": [str(root)]},
    }, "ptc": {"parallelism": 8}}))
    quiet = open(os.devnull, "w")  # noqa: SIM115
    ptc = StdioServerParameters(command=args.ptc, args=["mcp", "--config", str(config)],
                                env={**os.environ, "PTC_LOG": "warn"})
    everything = StdioServerParameters(command=str(bin_dir / "mcp-server-everything"), args=["stdio"])
    fs = StdioServerParameters(command=str(bin_dir / "mcp-server-filesystem"), args=[str(root)])
    n = args.n
    async with stdio_client(ptc, errlog=quiet) as (r1, w1), ClientSession(r1, w1) as via:
        await via.initialize()
        async with stdio_client(everything, errlog=quiet) as (r2, w2), ClientSession(r2, w2) as direct:
            await direct.initialize()

            async def direct_echo():
                await direct.call_tool("echo", {"message": "x"})

            async def ptc_echo():
                await via.call_tool("ToolCall", {"expression": '(everything.echo :message "x")'})

            await timed(20, direct_echo)
            await timed(20, ptc_echo)
            d = await timed(n, direct_echo)
            p = await timed(n, ptc_echo)
            t = time.perf_counter()
            r = await via.call_tool("ToolCall", {
                "expression": f'(dotimes (i {n}) (everything.echo :message "x"))'})
            loop_total = (time.perf_counter() - t) * 1e6
            assert not r.is_error, text_of(r)
            print(summary("direct from the Python client  ", d))
            print(summary("direct ToolCall through ptc     ", p))
            print(f"one ToolCall, {n} sequential nested calls: total {loop_total / 1000:.1f} ms, "
                  f"{loop_total / n:.0f} us per nested call")
            print(f"overhead of a ToolCall round trip: {statistics.median(p) - statistics.median(d):.0f} us "
                  f"(median); a nested call costs {loop_total / n - statistics.median(d):.0f} us "
                  f"more than a direct client call (negative: less)")

        # Context: the composed request against the one-call-per-turn transcript.
        script = f'''
(let ((names nil) (out nil) (i 0))
  (dolist (line (split-string (plist-get (fs.list_directory :path "{root}") :content) "\\n" t))
    (when (and (string-prefix-p "[FILE] " line) (string-suffix-p ".md" line))
      (setq names (cons (substring line 7) names))))
  (setq names (reverse names))
  (let ((texts (parallel-map (lambda (f) (fs.read_text_file :path (concat "{root}/" f))) names)))
    (dolist (f names)
      (let ((lines (split-string (plist-get (nth i texts) :content) "\\n")))
        (setq out (cons (list f (car lines) (length lines)) out)))
      (setq i (+ i 1))))
  (reverse out))'''
        r = await via.call_tool("ToolCall", {"expression": script})
        assert not r.is_error, text_of(r)
        final = text_of(r)
        calls = r.structured_content["calls"]
    async with stdio_client(fs, errlog=quiet) as (r3, w3), ClientSession(r3, w3) as raw:
        await raw.initialize()
        intermediate = 0
        listing = await raw.call_tool("list_directory", {"path": str(root)})
        intermediate += len(text_of(listing))
        for call in calls[1:]:
            got = await raw.call_tool("read_text_file", call["args"])
            intermediate += len(text_of(got))
    print(f"composed example: {len(calls)} nested calls; intermediate results {intermediate} chars "
          f"stayed out of context; the model saw {len(final)} chars "
          f"(+ {len(script)} chars of script)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--ptc", required=True)
    parser.add_argument("--bin", required=True)
    parser.add_argument("--root", required=True)
    parser.add_argument("-n", type=int, default=200)
    anyio.run(main, parser.parse_args())
