"""`ptc.Engine`: the roster and budgets built once, programs cached, the same outcomes as
`ptc.run`."""

import asyncio
import json
import re
import threading

import pytest

import ptc


@ptc.tool
def weather(city: str) -> dict:
    """Gives the weather of a city."""
    return {"city": city, "temp": 24 if city == "Rome" else 11}


PARALLEL = '(mapcar (lambda (r) (plist-get r :temp)) (parallel (weather :city "Oslo") (weather :city "Rome")))'


def test_engine_runs_like_ptc_run_and_caches_programs():
    engine = ptc.Engine([weather], limits={"tool_calls": 5})
    first = engine.run(PARALLEL)
    assert first.text == "(11 24)" and len(first.calls) == 2
    assert engine.compile(PARALLEL) is engine.compile(PARALLEL)
    again = engine.run(PARALLEL)
    assert again.text == first.text and again.id != first.id
    assert ptc.run(PARALLEL, [weather]).text == first.text


def test_engine_budgets_apply():
    engine = ptc.Engine([weather], limits={"tool_calls": 1})
    outcome = engine.run(PARALLEL)
    assert outcome.outcome == "script-error" and outcome.error["kind"] == "tool-call"


def test_engine_compile_errors_are_outcomes_and_carry_the_id():
    engine = ptc.Engine([weather])
    outcome = engine.run("(weather :town 1)", id="toolu_9")
    assert outcome.outcome == "script-error" and outcome.id == "toolu_9"
    assert outcome.to_dict() == ptc.run("(weather :town 1)", [weather], id="toolu_9").to_dict() | {
        "stats": outcome.to_dict()["stats"]
    }
    with pytest.raises(ptc.CompileError) as caught:
        engine.compile("(weather :town 1)")
    assert caught.value.diagnostics
    assert [d.code for d in engine.check("(weather :town 1)")] == [
        d.code for d in ptc.check("(weather :town 1)", [weather])
    ]


def test_engine_policy_and_per_run_override():
    engine = ptc.Engine([weather], policy=lambda call: "no Rome" if call.arguments["city"] == "Rome" else None)
    assert engine.run(PARALLEL).outcome == "denied"
    assert engine.run(PARALLEL, policy=lambda call: None).text == "(11 24)"


def test_engine_async_and_threads():
    engine = ptc.Engine([weather])
    assert asyncio.run(engine.run_async(PARALLEL)).text == "(11 24)"
    results: list = []
    threads = [threading.Thread(target=lambda: results.append(engine.run(PARALLEL).text)) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == ["(11 24)"] * 4


def test_engine_describe_matches_describe_and_cache_is_bounded():
    engine = ptc.Engine([weather], cache=2)
    assert engine.describe() == ptc.describe([weather])
    for n in range(5):
        engine.compile(f"(+ {n} 1)")
    assert len(engine._programs) == 2


def test_engine_rejects_a_bad_roster():
    with pytest.raises(ValueError, match="legal tool name"):
        ptc.Engine([ptc.Tool("delete", "d", {"type": "object"}, lambda: 1)])
    with pytest.raises(TypeError):
        ptc.Engine([lambda: 1])  # type: ignore[list-item]


def test_inline_runs_lone_sync_calls_on_the_calling_thread_and_batches_on_workers():
    seen: list = []

    @ptc.tool
    def where(n: int) -> int:
        """Records its thread."""
        seen.append((n, threading.get_ident()))
        return n

    engine = ptc.Engine([where], inline=True)
    outcome = engine.run("(list (where :n 1) (where :n 2) (parallel (where :n 3) (where :n 4)))")
    assert outcome.text == "(1 2 (3 4))"
    threads = dict(seen)
    assert threads[1] == threads[2] == threading.get_ident()
    assert threads[3] != threading.get_ident() and threads[4] != threading.get_ident()
    # Without inline every call runs on a worker.
    seen.clear()
    assert ptc.Engine([where]).run("(where :n 1)").text == "1"
    assert seen[0][1] != threading.get_ident()


def test_inline_late_answer_is_a_timeout_not_a_crash():
    import time

    @ptc.tool
    def slow() -> str:
        """Sleeps past its timeout."""
        time.sleep(0.3)
        return "late"

    outcome = ptc.Engine([slow], limits={"tool_timeout_ms": 50}, inline=True).run("(list (slow) 1)")
    assert outcome.outcome == "completed"
    assert "timed out" in outcome.text, outcome.text


def test_inline_unreadable_or_raising_answers_become_error_values():
    @ptc.tool
    def deep() -> list:
        """Nests past what the native side reads."""
        value: list = []
        for _ in range(300):
            value = [value]
        return value

    @ptc.tool
    def boom() -> str:
        """Raises."""
        raise RuntimeError("kaput")

    engine = ptc.Engine([deep, boom], inline=True)
    outcome = engine.run("(list (deep) (boom) 7)")
    assert outcome.outcome == "completed", outcome.text
    assert "cannot read" in outcome.text and "RuntimeError: kaput" in outcome.text
    assert outcome.text.endswith(' 7)')


def test_inline_async_handler_goes_to_the_driver_and_base_exceptions_cancel():
    @ptc.tool
    async def later(n: int) -> int:
        """Async."""
        return n + 1

    class Stop(BaseException):
        pass

    @ptc.tool
    def stop() -> str:
        """Raises a BaseException."""
        raise Stop()

    engine = ptc.Engine([later, stop], inline=True)
    assert engine.run("(later :n 1)").text == "2"
    with pytest.raises(Stop):
        engine.run("(stop)")


def _nested(depth: int) -> list:
    value: list = []
    for _ in range(depth):
        value = [value]
    return value


RETURNS = [
    None, True, False, 0, -7, 2**63 - 1, 2**63, 2**64, 2**70, 1.5, -0.0, 1e308, float("nan"),
    float("inf"), "text", "", "lone \ud800", [1, (2, 3)], {"a": {"b": [None, 2.5]}}, {1: "x"},
    {"k": {3}}, {3}, object(), ptc.ToolResult(text="t", notes=["n"]), ptc.ToolResult(value=[1]),
    ptc.ToolResult(error="bad"), _nested(120), _nested(124), _nested(125), _nested(126), _nested(127), _nested(200),
    [_nested(123)], {"a": _nested(124)}, [[1, _nested(123)]],
]


@pytest.mark.parametrize("index", range(len(RETURNS)))
def test_inline_answers_match_the_worker_path(index):
    returned = RETURNS[index]

    @ptc.tool
    def give() -> object:
        """Returns the value under test."""
        return returned

    def comparable(outcome: ptc.Outcome) -> dict:
        # The envelope ids differ between runs, and so do parse errors' columns.
        data = json.loads(re.sub(r"column \d+", "column N", outcome.to_json()))
        data.pop("stats")
        for call in data["calls"]:
            call.pop("id", None)
        data.pop("id")
        return data

    for expression in ["(give)", "(list (give) 1)"]:
        inline = ptc.Engine([give], inline=True).run(expression)
        workers = ptc.Engine([give]).run(expression)
        assert comparable(inline) == comparable(workers), (returned, inline.text, workers.text)


@pytest.mark.parametrize(
    "expression, limits, kind",
    [
        (PARALLEL, {"tool_calls": 1}, ptc.ErrorKind.TOOL_CALL),
        ("(weather :town 1)", None, None),
        ("(car 1)", None, ptc.ErrorKind.SCRIPT),
        ("(no-such-function 1)", None, ptc.ErrorKind.PREFLIGHT),
        ("(let ((i 0)) (while t (setq i (+ i 1))))", {"steps": 1000}, ptc.ErrorKind.STEP),
    ],
)
def test_error_kind_is_the_wire_name_as_an_enum(expression, limits, kind):
    outcome = ptc.Engine([weather], limits=limits).run(expression)
    assert outcome.error is not None
    assert isinstance(outcome.error_kind, ptc.ErrorKind)
    # Every kind the runtime sent is one the enum knows (no fallback).
    assert outcome.error_kind.value == outcome.error["kind"]
    assert outcome.error_kind == outcome.error["kind"]
    if kind is not None:
        assert outcome.error_kind is kind


def test_completed_has_no_error_kind_and_denied_has_one():
    assert ptc.Engine([weather]).run(PARALLEL).error_kind is None
    denied = ptc.Engine([weather], policy=lambda c: False).run(PARALLEL)
    assert denied.error_kind is ptc.ErrorKind.DENIED
    assert {c["status"] for c in denied.calls} <= {"denied", "cancelled", "success"}


def test_a_denial_in_a_parallel_batch_settles_denied_sync_and_async():
    asked: list = []

    def deny_all(call: ptc.Call) -> bool:
        asked.append(call.arguments["city"])
        return False

    assert ptc.run(PARALLEL, [weather], policy=deny_all).outcome == "denied"
    assert asked == ["Oslo"]  # the first denial aborts; the sibling is not asked about
    outcome = asyncio.run(ptc.run_async(PARALLEL, [weather], policy=deny_all))
    assert outcome.outcome == "denied" and outcome.error_kind is ptc.ErrorKind.DENIED
