"""Budgets that involve the host: per-call timeouts, the envelope's deadline, fuel pauses
returning to Python with the GIL released."""

import asyncio
import threading
import time
from typing import List

import ptc


def test_a_slow_sync_handler_times_out_as_an_error_value(sleeper: ptc.Tool) -> None:
    script = '(list (Sleep :ms 1) (parallel (Sleep :ms 2000 :tag "slow") (Sleep :ms 1)))'
    started = time.perf_counter()
    outcome = ptc.run(script, [sleeper], limits={"tool_timeout_ms": 200})
    elapsed = time.perf_counter() - started
    assert outcome.outcome == "completed", outcome.text
    first, (slow, quick) = outcome.value
    assert first == [1, None] and quick == [1, None]
    assert slow == {"error": slow["error"]} and "timed out" in slow["error"]
    assert elapsed < 1.5, elapsed  # the driver stopped waiting at the timeout
    assert [c["status"] for c in outcome.calls] == ["success", "error", "success"]


def test_the_envelope_deadline_cancels_async_children() -> None:
    cancelled: List[str] = []

    @ptc.tool
    async def Hang(tag: str) -> str:
        """Never answers in time."""
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            cancelled.append(tag)
            raise
        return tag

    started = time.perf_counter()
    outcome = asyncio.run(
        ptc.run_async('(parallel (Hang :tag "a") (Hang :tag "b"))', [Hang], limits={"seconds": 0.3})
    )
    assert time.perf_counter() - started < 2
    assert outcome.outcome == "script-error", outcome.text
    assert outcome.error is not None and outcome.error["kind"] == "time"
    assert sorted(cancelled) == ["a", "b"]


def test_a_fuel_pause_returns_to_python_with_the_gil_released() -> None:
    program = ptc.compile("(let ((n 0)) (while (< n 200000) (setq n (+ n 1))) n)", [],
                          limits={"steps": 50_000_000})
    native = program._native.start(None, False)
    pauses = 0
    while True:
        kind, payload = native.step()
        if kind == "settled":
            break
        assert kind == "pause"
        pauses += 1
    assert pauses > 10
    # Meanwhile another Python thread runs: the machine does not hold the GIL.
    ticks = [0]
    stop = threading.Event()

    def tick() -> None:
        while not stop.is_set():
            ticks[0] += 1

    thread = threading.Thread(target=tick)
    thread.start()
    try:
        outcome = program.run()
    finally:
        stop.set()
        thread.join()
    assert outcome.value == 200000
    assert ticks[0] > 1000
