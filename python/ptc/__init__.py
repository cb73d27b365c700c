"""ptc inside Python agent hosts: run a model's ToolCall expression — one small, closed Lisp
expression that calls your tools, in parallel batches, with light processing in between —
in-process, under hard budgets, with an audit of every nested call.

    import ptc

    @ptc.tool
    def weather(city: str) -> dict:
        \"\"\"Gives the weather of a city.\"\"\"
        return {"city": city, "temp": 24 if city == "Rome" else 11}

    outcome = ptc.run('(mapcar (lambda (r) (plist-get r :temp))'
                      '  (parallel (weather :city "Oslo") (weather :city "Rome")))', [weather])
    assert outcome.text == "(11 24)" and len(outcome.calls) == 2

The envelope — validation, ids, batches, permissions, audit, outcome — is the Rust runtime's
(the native module `ptc._ptc`); this package runs your handlers and answers its calls.
"""

from ._outcome import (
    AuditCall,
    Call,
    CallStatus,
    Calls,
    CompileError,
    Diagnostic,
    ErrorKind,
    Outcome,
    OutcomeError,
    OutcomeKind,
    Settled,
)
from ._ptc import SessionError, __version__
from ._run import Engine, Program, Run, check, compile, default_limits, describe, run, run_async
from ._tools import Tool, ToolResult, input_schema, schema_for, tool

__all__ = [
    "AuditCall",
    "Call",
    "CallStatus",
    "Calls",
    "CompileError",
    "Diagnostic",
    "Engine",
    "ErrorKind",
    "Outcome",
    "OutcomeError",
    "OutcomeKind",
    "Program",
    "Run",
    "SessionError",
    "Settled",
    "Tool",
    "ToolResult",
    "__version__",
    "check",
    "compile",
    "default_limits",
    "describe",
    "input_schema",
    "run",
    "run_async",
    "schema_for",
    "tool",
]
