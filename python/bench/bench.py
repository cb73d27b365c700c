"""Side-by-side bench: ptc (this package) against pydantic-monty, from Python.

Two measurements, the same program in each engine's language with the same host functions:

1. compile+run of a 10-line script (one Glob call, then one Size call per file, a filter
   and a sum), from source text to the final value, per run (for ptc also through a
   `ptc.Engine` built once, `engine_script_us`, where the roster and the program are kept,
   and `engine_inline_script_us` with `inline=True`, lone calls on the calling thread);
2. the per-nested-call overhead: a loop of N calls of a trivial host function `echo`
   minus the same loop with the call replaced by its value, divided by N (for ptc also with
   `inline=True`, `inline_per_call_us`).

Run one engine per interpreter (they live in separate venvs):

    python bench.py ptc     # in a venv with `pip install ./python`
    python bench.py monty   # in a scratch venv with pydantic-monty (bench only)

or both at once with `bash python/bench/run.sh`, which prints the table. Each prints one
JSON line: medians over repeated runs, in microseconds.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from typing import Any, Callable, Dict, List

FILES = [f"src/file{i}.txt" for i in range(8)]
SIZES = {f: 100 * (i + 1) for i, f in enumerate(FILES)}


def glob(pattern: str) -> List[str]:
    return list(FILES)


def size(path: str) -> int:
    return SIZES[path]


def echo(x: int) -> int:
    return x


PTC_SCRIPT = """
(let* ((files (Glob :pattern "src/*.txt"))
       (sizes (mapcar (lambda (f) (Size :path f)) files))
       (total 0)
       (big 0))
  (dolist (s sizes)
    (setq total (+ total s))
    (when (> s 300)
      (setq big (+ big 1))))
  (list :files (length files) :total total :big big))
"""

MONTY_SCRIPT = """
files = glob("src/*.txt")
sizes = [size(f) for f in files]
total = 0
big = 0
for s in sizes:
    total = total + s
    if s > 300:
        big = big + 1
{"files": len(files), "total": total, "big": big}
"""

EXPECTED = {"files": 8, "total": 3600, "big": 5}


def ptc_loop(n: int, call: bool) -> str:
    body = "(Echo :x i)" if call else "i"
    return f"(let ((total 0)) (dotimes (i {n}) (setq total (+ total {body}))) total)"


def monty_loop(n: int, call: bool) -> str:
    body = "echo(i)" if call else "i"
    return f"total = 0\nfor i in range({n}):\n    total += {body}\ntotal"


#: Every measurement's minimum too, by name (the machine may be loaded; the minimum is the
#: least disturbed sample).
MINIMA: Dict[str, float] = {}


def median_us(fn: Callable[[], Any], repeat: int, name: str = "") -> float:
    fn()  # warm
    samples = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - started) * 1e6)
    if name:
        MINIMA[name] = min(samples)
    return statistics.median(samples)


def bench_ptc(n: int, repeat: int) -> Dict[str, Any]:
    import ptc

    tools = [
        ptc.tool(glob, name="Glob"),
        ptc.tool(size, name="Size"),
        ptc.tool(echo, name="Echo"),
    ]
    limits = {"tool_calls": n + 10, "steps": 10_000_000}

    def script() -> None:
        outcome = ptc.run(PTC_SCRIPT, tools, limits=limits)
        assert outcome.value == EXPECTED, outcome.text

    with_calls = ptc.compile(ptc_loop(n, True), tools, limits=limits)
    without = ptc.compile(ptc_loop(n, False), tools, limits=limits)

    def loop(program: Any) -> Callable[[], None]:
        def run() -> None:
            outcome = program.run()
            assert outcome.value == n * (n - 1) // 2, outcome.text

        return run

    calls = median_us(loop(with_calls), repeat, "calls")
    bare = median_us(loop(without), repeat, "bare")
    result: Dict[str, Any] = {}
    if hasattr(ptc, "Engine"):
        engine = ptc.Engine(tools, limits=limits)

        def engine_script() -> None:
            outcome = engine.run(PTC_SCRIPT)
            assert outcome.value == EXPECTED, outcome.text

        # The roster built once and the program cached: what a host that keeps an Engine pays.
        result["engine_script_us"] = median_us(engine_script, repeat * 4, "engine_script_us")
        inline = ptc.Engine(tools, limits=limits, inline=True)

        def inline_script() -> None:
            outcome = inline.run(PTC_SCRIPT)
            assert outcome.value == EXPECTED, outcome.text

        # ... and with lone calls run on the calling thread (no hand-off to a worker).
        result["engine_inline_script_us"] = median_us(inline_script, repeat * 4, "inline_script")

        def inline_loop(program: Any) -> Callable[[], None]:
            def run() -> None:
                outcome = program.run(inline=True)
                assert outcome.value == n * (n - 1) // 2, outcome.text

            return run

        inline_calls = median_us(inline_loop(with_calls), repeat, "inline_calls")
        inline_bare = median_us(inline_loop(without), repeat, "inline_bare")
        result["inline_per_call_us"] = (inline_calls - inline_bare) / n
        result["min_inline_per_call_us"] = (MINIMA["inline_calls"] - MINIMA["inline_bare"]) / n
    return {
        "engine": f"ptc {ptc.__version__}",
        **result,
        "script_us": median_us(script, repeat * 4, "script_us"),
        "loop_calls_us": calls,
        "loop_bare_us": bare,
        "per_call_us": (calls - bare) / n,
    }


def bench_monty(n: int, repeat: int) -> Dict[str, Any]:
    import pydantic_monty as pm

    lookup = {"glob": glob, "size": size, "echo": echo}
    limits = pm.ResourceLimits(max_suspensions=10**9)  # type: ignore[call-arg]
    with pm.Monty() as pool:
        with pool.checkout(limits=limits) as session:

            def script() -> None:
                value = session.feed_run(MONTY_SCRIPT, external_lookup=lookup)
                assert value == EXPECTED, value

            def loop(call: bool) -> Callable[[], None]:
                code = monty_loop(n, call)

                def run() -> None:
                    assert session.feed_run(code, external_lookup=lookup) == n * (n - 1) // 2

                return run

            script_us = median_us(script, repeat * 4, "script_us")
            calls = median_us(loop(True), repeat, "calls")
            bare = median_us(loop(False), repeat, "bare")

        def fresh_session() -> None:
            with pool.checkout(limits=limits) as session:
                assert session.feed_run(MONTY_SCRIPT, external_lookup=lookup) == EXPECTED

        checkout_us = median_us(fresh_session, repeat)
    return {
        "engine": f"pydantic-monty {pm.__version__}",
        "script_us": script_us,
        "script_fresh_session_us": checkout_us,
        "loop_calls_us": calls,
        "loop_bare_us": bare,
        "per_call_us": (calls - bare) / n,
    }


def main() -> None:
    engine = sys.argv[1] if len(sys.argv) > 1 else "ptc"
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 100
    repeat = int(sys.argv[3]) if len(sys.argv) > 3 else 50
    result = bench_ptc(n, repeat) if engine == "ptc" else bench_monty(n, repeat)
    result["min_script_us"] = MINIMA["script_us"]
    result["min_per_call_us"] = (MINIMA["calls"] - MINIMA["bare"]) / n
    result.update({"n": n, "repeat": repeat, "python": sys.version.split()[0]})
    print(json.dumps({k: round(v, 1) if isinstance(v, float) else v for k, v in result.items()}))


if __name__ == "__main__":
    main()
