"""`ptc.run`: outcomes, the audit, budgets, failures, policy and real parallelism."""

import json
import logging
import threading
import time
from typing import Any, Dict

import ptc

SCRIPT = '(mapcar (lambda (r) (plist-get r :temp)) (parallel (Weather :city "Oslo") (Weather :city "Rome")))'


def test_a_composed_script_completes_with_an_audit(weather: ptc.Tool) -> None:
    outcome = ptc.run(SCRIPT, [weather], id="toolu_1")
    assert outcome.outcome == "completed" and outcome.ok
    assert outcome.text == "(11 24)"
    assert outcome.value == [11, 24]
    assert outcome.error is None and outcome.direct is None
    assert [c["id"] for c in outcome.calls] == ["toolu_1/1", "toolu_1/2"]
    assert [c["status"] for c in outcome.calls] == ["success", "success"]
    assert outcome.calls[0]["args"] == {"city": "Oslo"}
    assert outcome.calls[0]["batch"] == 1
    first = outcome.calls[0]
    assert isinstance(first, ptc.AuditCall)
    assert (first.id, first.order, first.tool, first.status) == ("toolu_1/1", 1, "Weather", "success")
    assert first.args == {"city": "Oslo"} and first.batch == 1 and not first.args_omitted
    assert first.preview is not None and first.notes == [] and first.media == []
    assert outcome.stats["tool_calls"] == 2 and outcome.stats["fuel_used"] > 0
    as_json = json.loads(outcome.to_json())
    assert set(as_json) == {"id", "outcome", "text", "value", "error", "direct", "calls", "notes", "stats"}
    assert as_json == outcome.to_dict() and as_json["value"] == [11, 24]


def test_a_direct_call_keeps_the_tools_own_result(weather: ptc.Tool) -> None:
    outcome = ptc.run('(Weather :city "Rome")', [weather])
    assert outcome.outcome == "completed"
    assert outcome.direct == "Weather"
    assert outcome.value == {"city": "Rome", "temp": 24, "unit": "C"}
    assert json.loads(outcome.text) == outcome.value


def test_script_errors_and_budgets_are_outcomes_not_exceptions(weather: ptc.Tool) -> None:
    outcome = ptc.run("(car 1)", [weather])
    assert outcome.outcome == "script-error" and outcome.error is not None
    assert outcome.text.startswith("Error: ")
    busy = ptc.run("(while t)", [weather], limits={"steps": 5000})
    assert busy.outcome == "script-error"
    assert busy.error == {"kind": "step", "message": busy.error["message"]}
    unknown = ptc.run("(Nope :x 1)", [weather])
    assert unknown.outcome == "script-error" and unknown.calls == []
    calls = ptc.run('(list (Weather :city "a") (Weather :city "b"))', [weather], limits={"tool_calls": 1})
    assert calls.outcome == "script-error" and calls.error["kind"] == "tool-call"


def test_bad_limits_are_value_errors(weather: ptc.Tool) -> None:
    import pytest

    with pytest.raises(ValueError, match="unknown limit"):
        ptc.run("1", [weather], limits={"stepz": 1})


def test_invalid_arguments_are_refused_before_the_handler(weather: ptc.Tool) -> None:
    # A literal of the wrong type is refused by preflight before anything runs...
    refused = ptc.run("(Weather :city 12)", [weather])
    assert refused.outcome == "script-error" and refused.error["kind"] == "preflight"
    assert refused.calls == []
    # ...a computed one at dispatch, as the guest's error value.
    outcome = ptc.run("(let ((r (Weather :city (+ 10 2)))) (plist-get r :error))", [weather])
    assert outcome.outcome == "completed"
    assert outcome.value.startswith("Error: ")
    assert outcome.calls[0]["status"] == "error"


def test_a_raising_handler_is_the_guests_error_value_with_the_traceback_logged(caplog: Any) -> None:
    @ptc.tool
    def Boom(secret: str) -> str:
        """Fails."""
        raise RuntimeError("disk on fire")

    with caplog.at_level(logging.ERROR, logger="ptc"):
        outcome = ptc.run('(let ((r (Boom :secret "s"))) (list :caught (plist-get r :error)))', [Boom])
    assert outcome.outcome == "completed", outcome.text
    message = outcome.value["caught"]
    assert message == "Error: Boom failed: RuntimeError: disk on fire"
    assert "Traceback" not in outcome.text
    assert outcome.calls[0]["status"] == "error"
    records = [r for r in caplog.records if r.name == "ptc"]
    assert records and records[0].exc_info is not None
    assert "disk on fire" in caplog.text and "Traceback" in caplog.text


def test_a_raising_direct_call_settles_tool_error() -> None:
    @ptc.tool
    def Boom() -> str:
        """Fails."""
        raise ValueError("no")

    outcome = ptc.run("(Boom)", [Boom])
    assert outcome.outcome == "tool-error"
    assert outcome.error == {"kind": "tool-error", "message": "Boom failed: ValueError: no"}


def test_non_json_data_from_a_handler_is_a_clear_error_value() -> None:
    @ptc.tool
    def Odd(kind: str) -> Any:
        """Returns odd data."""
        return {"set": {1, 2}} if kind == "set" else float("nan")

    outcome = ptc.run(
        '(list (plist-get (Odd :kind "set") :error) (plist-get (Odd :kind "nan") :error))', [Odd]
    )
    assert outcome.outcome == "completed", outcome.text
    first, second = outcome.value
    assert first.startswith("Error: Odd failed: returned data that is not JSON:")
    assert "set" in first
    assert second.startswith("Error: Odd failed: returned data that is not JSON:")


def test_results_text_notes_and_explicit_errors() -> None:
    @ptc.tool
    def Say(what: str) -> ptc.ToolResult:
        """Says."""
        if what == "fail":
            return ptc.ToolResult(error="Error: cannot")
        return ptc.ToolResult(text=what.upper(), notes=["said " + what])

    outcome = ptc.run('(list (Say :what "hi") (plist-get (Say :what "fail") :error))', [Say])
    assert outcome.value == ["HI", "Error: cannot"]
    assert outcome.notes == ["said hi"]
    assert outcome.text_with_notes().endswith("Notes:\n- said hi")


def test_a_parallel_batch_runs_on_parallelism_workers(sleeper: ptc.Tool, clock: Any) -> None:
    script = "(parallel " + " ".join(f'(Sleep :ms 200 :tag "{i}")' for i in range(4)) + ")"
    started = time.perf_counter()
    outcome = ptc.run(script, [sleeper], limits={"parallelism": 4})
    elapsed = time.perf_counter() - started
    assert outcome.outcome == "completed", outcome.text
    assert outcome.value == [[200, str(i)] for i in range(4)]
    assert clock.peak == 4
    assert elapsed < 0.6, elapsed  # four 200 ms sleeps, concurrently
    clock.peak = 0
    outcome = ptc.run(script, [sleeper], limits={"parallelism": 2})
    assert outcome.outcome == "completed" and clock.peak == 2


def test_a_policy_denial_aborts_the_script(weather: ptc.Tool) -> None:
    seen = []

    def policy(call: ptc.Call) -> Any:
        seen.append((call.name, call.arguments))
        return "Rome is off limits" if call.arguments["city"] == "Rome" else None

    outcome = ptc.run(SCRIPT, [weather], policy=policy)
    assert outcome.outcome == "denied"
    assert outcome.error["kind"] == "denied"
    assert "Rome is off limits" in outcome.text
    assert "denied" in [c["status"] for c in outcome.calls]
    assert ("Weather", {"city": "Oslo"}) in seen


def test_describe_and_check(weather: ptc.Tool) -> None:
    description = ptc.describe([weather])
    assert description["name"] == "ToolCall"
    assert description["input_schema"]["required"] == ["expression"]
    assert '(Weather :city STRING &optional :unit STRING)' in description["listing"]
    assert "Gives the weather of a city." in description["listing"]
    assert ptc.check(SCRIPT, [weather]) == []
    diagnostics = ptc.check("(Wether :city 1)", [weather])
    assert diagnostics and diagnostics[0].code.startswith("E")
    assert diagnostics[0].span[1] > diagnostics[0].span[0]
    assert "Wether" in diagnostics[0].message
    unbalanced = ptc.check("(let ((x 1)", [weather])
    assert unbalanced[0].kind == "script" and unbalanced[0].code.startswith("E")


def test_keyboard_interrupt_style_exceptions_cancel_the_run(sleeper: ptc.Tool) -> None:
    class Stop(BaseException):
        pass

    calls = []

    def policy(call: ptc.Call) -> None:
        calls.append(call.id)
        if len(calls) == 2:
            raise Stop()

    import pytest

    with pytest.raises(Stop):
        ptc.run("(list (Sleep :ms 1) (Sleep :ms 1) (Sleep :ms 1))", [sleeper], policy=policy)
    assert len(calls) == 2
    assert threading.active_count() < 50
