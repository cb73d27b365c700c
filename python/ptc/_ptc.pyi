"""Type stubs of the native module `ptc._ptc`: rosters, limits and answers go in as JSON
text; events, outcomes, diagnostics and descriptions come out as Python data, built
natively."""

from typing import Any, Callable, Dict, List, Optional, Tuple

__version__: str

class SessionError(Exception):
    """A host misused a run (unknown or repeated call id, answer after cancel or settlement)."""

class CompileFailed(Exception):
    """A script did not compile: args are (diagnostics, outcome): a list of diagnostic dicts
    and the outcome dict."""

class Run:
    def step(self) -> Tuple[str, Any]:
        """(kind, payload): permission | dispatch (a list of call dicts), cancel (a list of
        ids), pause (None), waiting (seconds or None), settled (the outcome dict)."""
    def step_inline(
        self,
        handler: Callable[[str, Dict[str, Any]], Optional[Tuple[bool, Any]]],
        encode: Callable[[str, Any], str],
    ) -> Tuple[str, Any]:
        """As `step`; a lone dispatched call is answered on this thread by
        `handler(name, arguments)`: `(True, answer_text)`, `(False, plain_result)` (converted
        natively, else by `encode(name, result)`), or None to leave it to the host."""
    def allow(self, id: str) -> None: ...
    def deny(self, id: str, reason: str) -> None: ...
    def answer(self, answers: str) -> None: ...
    def cancel(self) -> None: ...

class Program:
    def __init__(
        self,
        expression: str,
        tools: str,
        limits: Optional[str] = None,
        id: Optional[str] = None,
    ) -> None: ...
    @property
    def direct(self) -> Optional[str]: ...
    def start(self, id: Optional[str] = None, ask_permission: bool = True) -> Run: ...

class Engine:
    def __init__(self, tools: str, limits: Optional[str] = None) -> None: ...
    def compile(self, expression: str, id: Optional[str] = None) -> Program: ...
    def describe(self) -> Dict[str, Any]: ...
    def check(self, expression: str) -> List[Dict[str, Any]]: ...

def describe(tools: str) -> Dict[str, Any]: ...
def check(expression: str, tools: str, limits: Optional[str] = None) -> List[Dict[str, Any]]: ...
def default_limits() -> Dict[str, Any]: ...
