"""`ptc.run_async`: async handlers, a semaphore-bounded batch, cancellation."""

import asyncio
import time
from typing import Any, List

import pytest

import ptc


def make_sleeper(log: List[str], peak: List[int]) -> ptc.Tool:
    active = [0]

    @ptc.tool(name="Nap")
    async def nap(ms: int) -> int:
        """Sleeps asynchronously."""
        active[0] += 1
        peak[0] = max(peak[0], active[0])
        try:
            await asyncio.sleep(ms / 1000)
        except asyncio.CancelledError:
            log.append("cancelled")
            raise
        finally:
            active[0] -= 1
        log.append("done")
        return ms

    return nap


def test_async_handlers_run_concurrently_under_the_semaphore() -> None:
    log: List[str] = []
    peak = [0]
    nap = make_sleeper(log, peak)
    script = "(parallel " + " ".join("(Nap :ms 200)" for _ in range(6)) + ")"

    async def main() -> ptc.Outcome:
        return await ptc.run_async(script, [nap], limits={"parallelism": 3})

    started = time.perf_counter()
    outcome = asyncio.run(main())
    elapsed = time.perf_counter() - started
    assert outcome.outcome == "completed", outcome.text
    assert outcome.value == [200] * 6
    assert peak[0] == 3
    assert 0.35 < elapsed < 0.9, elapsed  # two waves of three


def test_sync_handlers_and_async_policy_in_run_async(weather: ptc.Tool) -> None:
    async def policy(call: ptc.Call) -> Any:
        await asyncio.sleep(0)
        return call.arguments["city"] != "Rome" or "not Rome"

    async def main() -> List[ptc.Outcome]:
        ok = await ptc.run_async('(Weather :city "Oslo")', [weather], policy=policy)
        denied = await ptc.run_async('(Weather :city "Rome")', [weather], policy=policy)
        return [ok, denied]

    ok, denied = asyncio.run(main())
    assert ok.outcome == "completed" and ok.value["temp"] == 11
    assert denied.outcome == "denied" and "not Rome" in denied.text


def test_cancelling_the_awaiting_task_interrupts_the_run_and_its_children() -> None:
    log: List[str] = []
    peak = [0]
    nap = make_sleeper(log, peak)

    async def main() -> None:
        task = asyncio.ensure_future(ptc.run_async("(parallel (Nap :ms 5000) (Nap :ms 5000))", [nap]))
        while peak[0] < 2:
            await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    started = time.perf_counter()
    asyncio.run(main())
    assert time.perf_counter() - started < 2
    assert log == ["cancelled", "cancelled"]


def test_a_raising_async_handler_is_an_error_value() -> None:
    @ptc.tool
    async def Broken() -> int:
        """Breaks."""
        raise LookupError("gone")

    outcome = asyncio.run(ptc.run_async("(list (Broken))", [Broken]))
    assert outcome.value == [{"error": "Error: Broken failed: LookupError: gone"}]
