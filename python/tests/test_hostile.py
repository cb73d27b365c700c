"""Hostile handlers (issue 38): a lone call that never returns, data the native side
cannot read, exceptions whose message raises, sans-IO misuse, and handlers abandoned at
interpreter exit. Each is bounded, an error value, or a `SessionError` — never a hang or
an exception escaping `ptc.run`."""

import asyncio
import os
import random
import subprocess
import sys
import textwrap
import threading
import time
from typing import Any

import pytest

import ptc


def _stuck_tool(release: threading.Event) -> ptc.Tool:
    @ptc.tool
    def Stuck() -> str:
        """Never returns until released."""
        release.wait(30)
        return "late"

    return Stuck


def test_a_lone_stuck_call_is_bounded_by_its_timeout() -> None:
    release = threading.Event()
    try:
        started = time.perf_counter()
        outcome = ptc.run("(Stuck)", [_stuck_tool(release)], limits={"tool_timeout_ms": 200})
        assert time.perf_counter() - started < 3
        assert outcome.outcome == "tool-error", outcome.text
        assert "timed out" in outcome.text
        assert [c["status"] for c in outcome.calls] == ["error"]
    finally:
        release.set()


def test_a_lone_stuck_call_is_bounded_by_the_run_seconds() -> None:
    release = threading.Event()
    try:
        started = time.perf_counter()
        outcome = ptc.run(
            '(progn (Stuck) "done")',
            [_stuck_tool(release)],
            limits={"seconds": 0.3, "tool_timeout_ms": None},
        )
        assert time.perf_counter() - started < 3
        assert outcome.outcome != "completed", outcome.text
    finally:
        release.set()


def _deep(n: int) -> Any:
    value: Any = []
    for _ in range(n):
        value = [value]
    return value


@pytest.mark.parametrize(
    "value",
    [10**400, -(10**400), _deep(200), _deep(5000), "\ud800 lone", {"k\udfff": 1}, float("nan")],
    ids=["big", "negbig", "deep200", "deep5000", "surrogate", "surrogate-key", "nan"],
)
def test_unreadable_handler_data_is_an_error_value(value: Any) -> None:
    @ptc.tool
    def Give() -> Any:
        """Returns hostile data."""
        return value

    # Composed: the guest gets an error value and the script goes on.
    outcome = ptc.run("(list (Give) 1)", [Give])
    assert outcome.outcome == "completed", outcome.text
    assert "error" in outcome.value[0], outcome.value
    assert outcome.calls[0]["status"] == "error"
    # Direct: the call's failure is the outcome.
    outcome = asyncio.run(ptc.run_async("(Give)", [Give]))
    assert outcome.outcome == "tool-error", outcome.text


def test_unreadable_data_in_the_sans_io_api_settles_the_call() -> None:
    @ptc.tool
    def Give() -> Any:
        """Returns hostile data."""
        return None

    run = ptc.compile("(list (Give) (Give))", [Give]).start()
    calls = run.step()
    run.resume({calls[0].id: 10**400})
    step = run.step()
    assert isinstance(step, ptc.Calls)
    run.resume({step[0].id: _deep(300)})
    settled = run.step()
    assert isinstance(settled, ptc.Settled), settled
    assert settled.outcome.outcome == "completed"
    assert [c["status"] for c in settled.outcome.calls] == ["error", "error"]


class Nasty(Exception):
    def __str__(self) -> str:
        raise RuntimeError("no message for you")


def test_an_exception_whose_str_raises_is_contained() -> None:
    @ptc.tool
    def Raise() -> str:
        """Raises a hostile exception."""
        raise Nasty()

    outcome = ptc.run("(list (Raise))", [Raise])
    assert outcome.outcome == "completed", outcome.text
    assert "Nasty" in outcome.value[0]["error"]
    outcome = ptc.run("(Raise)", [Raise])
    assert outcome.outcome == "tool-error"
    result = ptc.ToolResult(error=Nasty())  # type: ignore[arg-type]

    @ptc.tool
    def Bad() -> Any:
        """Returns a result whose error text raises."""
        return result

    outcome = ptc.run("(list (Bad))", [Bad])
    assert outcome.outcome == "completed", outcome.text
    assert "error" in outcome.value[0]


def test_deny_after_resume_of_the_same_call_is_an_error() -> None:
    @ptc.tool
    def Echo(x: int) -> int:
        """Echoes."""
        return x

    run = ptc.compile("(Echo :x 1)", [Echo]).start()
    call = run.step()[0]
    run.resume({call.id: 1})
    with pytest.raises(ptc.SessionError):
        run.deny(call.id, "too late")
    settled = run.step()
    assert isinstance(settled, ptc.Settled) and settled.outcome.outcome == "completed"


def test_random_handler_values_never_escape() -> None:
    """A small property test: any mix of JSON-ish and hostile values returns an outcome."""
    rng = random.Random(38)
    atoms: list = [0, -1, 10**18, 10**19, 10**400, 1.5, float("inf"), float("nan"), "", "x",
                   "\ud800", "\u202e", None, True, b"bytes", object()]

    def value(depth: int) -> Any:
        kind = rng.randrange(4 if depth < 6 else 1)
        if kind == 0:
            return rng.choice(atoms)
        if kind == 1:
            return [value(depth + 1) for _ in range(rng.randrange(3))]
        if kind == 2:
            return {rng.choice(["a", "b", "\udc80", "c"]): value(depth + 1)}
        return _deep(rng.randrange(100, 300))

    for _ in range(150):
        given = value(0)

        @ptc.tool
        def Give() -> Any:
            """Returns a random value."""
            return given

        outcome = ptc.run("(list (Give))", [Give])
        assert outcome.outcome in ("completed", "script-error"), outcome.text


EXIT_SCRIPT = textwrap.dedent(
    """
    import asyncio, faulthandler, os, signal, sys, threading, time
    import ptc

    # A hang prints every thread's stack and fails the test with it, instead of
    # ending in the parent's bare timeout.
    faulthandler.dump_traceback_later(15, exit=True)

    @ptc.tool
    def Stuck() -> str:
        \"\"\"Never returns.\"\"\"
        while True:
            time.sleep(0.05)

    mode = sys.argv[1]
    if mode == "timeout":
        outcome = ptc.run("(Stuck)", [Stuck], limits={"tool_timeout_ms": 100})
        print(outcome.outcome, flush=True)
    elif mode == "asyncio":
        outcome = asyncio.run(ptc.run_async("(Stuck)", [Stuck], limits={"tool_timeout_ms": 100}))
        print(outcome.outcome, flush=True)
    elif mode == "interrupt":
        threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
        try:
            ptc.run("(Stuck)", [Stuck], limits={"tool_timeout_ms": None, "seconds": None})
        except KeyboardInterrupt:
            print("interrupted", flush=True)
    """
)


@pytest.mark.parametrize("mode", ["timeout", "asyncio", "interrupt"])
def test_an_abandoned_handler_does_not_block_interpreter_exit(mode: str, tmp_path: Any) -> None:
    script = tmp_path / "exit.py"
    script.write_text(EXIT_SCRIPT)
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, str(script), mode],
        capture_output=True,
        text=True,
        timeout=20,
        env={**os.environ},
    )
    elapsed = time.perf_counter() - started
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() in ("tool-error", "interrupted"), done.stdout
    assert elapsed < 10, elapsed
