"""The sans-IO API: compile once, start runs, step, resume, deny, cancel; misuse."""

import concurrent.futures
from typing import Any

import pytest

import ptc

SCRIPT = '(let ((a (Weather :city "Oslo"))) (list (plist-get a :temp) (parallel (Weather :city "Rome") (Weather :city "Bern"))))'


def answer(call: ptc.Call) -> Any:
    return {"temp": len(call.arguments["city"])}


def drive(run: ptc.Run) -> ptc.Outcome:
    while True:
        step = run.step()
        if isinstance(step, ptc.Settled):
            return step.outcome
        if len(step):
            run.resume({call.id: answer(call) for call in step})


def test_step_resume_until_settled(weather: ptc.Tool) -> None:
    program = ptc.compile(SCRIPT, [weather])
    assert program.direct is None
    run = program.start("env")
    first = run.step()
    assert isinstance(first, ptc.Calls)
    assert [(c.id, c.name, c.arguments) for c in first] == [("env/1", "Weather", {"city": "Oslo"})]
    run.resume({"env/1": {"temp": 4}})
    seen = []
    while True:
        step = run.step()
        if isinstance(step, ptc.Settled):
            break
        seen += list(step)
        run.resume({c.id: answer(c) for c in step})
    assert sorted(c.id for c in seen) == ["env/2", "env/3"]
    outcome = step.outcome
    assert outcome.outcome == "completed"
    assert outcome.value == [4, [{"temp": 4}, {"temp": 4}]]
    assert [c["status"] for c in outcome.calls] == ["success"] * 3
    assert run.step() == step  # settled stays settled


def test_a_program_is_reusable_and_shared_across_threads(weather: ptc.Tool) -> None:
    program = ptc.compile(SCRIPT, [weather])
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        outcomes = list(pool.map(lambda i: drive(program.start(f"t{i}")), range(32)))
    assert [o.value for o in outcomes] == [[4, [{"temp": 4}, {"temp": 4}]]] * 32
    assert {o.calls[0]["id"] for o in outcomes} == {f"t{i}/1" for i in range(32)}
    # and through the handlers, concurrently
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda i: program.run().value, range(8)))
    assert results == [[11, [{"city": "Rome", "temp": 24, "unit": "C"}, {"city": "Bern", "temp": 11, "unit": "C"}]]] * 8


def test_deny_aborts_and_cancel_interrupts(weather: ptc.Tool) -> None:
    program = ptc.compile(SCRIPT, [weather])
    run = program.start("d")
    (call,) = run.step()
    run.deny(call.id, "no weather today")
    settled = run.step()
    assert isinstance(settled, ptc.Settled)
    assert settled.outcome.outcome == "denied"
    assert "no weather today" in settled.outcome.text
    assert settled.outcome.calls[0]["status"] == "denied"

    run = program.start("c")
    (call,) = run.step()
    run.cancel()
    settled = run.step()
    assert isinstance(settled, ptc.Settled)
    assert settled.outcome.outcome == "interrupted"
    assert settled.outcome.calls[0]["status"] == "cancelled"
    with pytest.raises(ptc.SessionError):
        run.resume({call.id: 1})  # a result after cancel


def test_unknown_and_repeated_ids_are_session_errors(weather: ptc.Tool) -> None:
    run = ptc.compile(SCRIPT, [weather]).start("u")
    (call,) = run.step()
    with pytest.raises(ptc.SessionError, match="u/9"):
        run.resume({"u/9": 1})
    run.resume({call.id: {"temp": 1}})
    with pytest.raises(ptc.SessionError):
        run.resume({call.id: {"temp": 1}})
    run.cancel()
    assert isinstance(run.step(), ptc.Settled)


def test_a_handler_failure_through_fail(weather: ptc.Tool) -> None:
    run = ptc.compile('(plist-get (Weather :city "x") :error)', [weather]).start()
    (call,) = run.step()
    run.fail(call.id, KeyError("k"))
    outcome = run.step().outcome  # type: ignore[union-attr]
    assert outcome.value == "Error: Weather failed: KeyError: 'k'"


def test_compile_error_carries_diagnostics_and_the_outcome(weather: ptc.Tool) -> None:
    with pytest.raises(ptc.CompileError) as caught:
        ptc.compile('(Wether :city "x")', [weather])
    error = caught.value
    assert error.diagnostics and "Wether" in error.diagnostics[0].message
    assert error.outcome.outcome == "script-error"
    assert ptc.run('(Wether :city "x")', [weather]).text == error.outcome.text
