"""What a run yields and how it settles: `Call`, `Calls`, `Settled`, `Outcome`, and the
static pipeline's `Diagnostic` and `CompileError`.

An `Outcome` is the runtime's own settlement, decoded from the one JSON object that
`ptc run --format json` prints; `Outcome.to_json()` gives that object back (the same data, as compact JSON).
"""

from __future__ import annotations

import copy
import dataclasses
import enum
import json
from typing import Any, Dict, Iterator, List, Literal, Optional, Sequence, Tuple, TypedDict, cast

#: How a run settled.
OutcomeKind = Literal["completed", "script-error", "denied", "interrupted", "tool-error"]

#: A nested call's state in the audit.
CallStatus = Literal["queued", "running", "success", "error", "denied", "cancelled", "interrupted"]


class ErrorKind(str, enum.Enum):
    """Why a run failed: the wire names of `Outcome.error["kind"]` (a `str`, so it compares
    equal to the name)."""

    INPUT = "input"
    PREFLIGHT = "preflight"
    EXPANSION = "expansion"
    STEP = "step"
    TIME = "time"
    TOOL_CALL = "tool-call"
    VALUE = "value"
    RETAINED_VALUE = "retained-value"
    ATOMIC_WORK = "atomic-work"
    STACK = "stack"
    SCRIPT = "script"
    CLOSED = "closed"
    DENIED = "denied"
    INTERRUPTED = "interrupted"
    TOOL_ERROR = "tool-error"
    ARGUMENTS = "arguments"
    CHECKPOINT = "checkpoint"
    ROSTER = "roster"


class OutcomeError(TypedDict):
    """`Outcome.error`: the typed error of a failed run."""

    kind: str
    message: str


class AuditCall(Dict[str, Any]):
    """One nested call in `Outcome.calls` (the runtime's audit record), read by attribute:
    `id`, `order`, `tool`, `status` always; `args` (None when omitted, with
    `args_omitted`), `batch`, `preview`, `media`, `notes` when present.

    It is also the record's dict (`call["status"]` reads the same, and it compares equal to
    the JSON object `ptc run --format json` prints), so code written against the plain
    records keeps working."""

    @property
    def id(self) -> str:
        """`ENVELOPE/N`."""
        return cast(str, self["id"])

    @property
    def order(self) -> int:
        """N, the call's place in dispatch order (from 1)."""
        return cast(int, self["order"])

    @property
    def tool(self) -> str:
        """The tool's name."""
        return cast(str, self["tool"])

    @property
    def status(self) -> CallStatus:
        """Where the call ended (or stands)."""
        return cast(CallStatus, self["status"])

    @property
    def args(self) -> Optional[Dict[str, Any]]:
        """The validated arguments; None when the audit bound omitted them."""
        return cast(Optional[Dict[str, Any]], self.get("args"))

    @property
    def args_omitted(self) -> bool:
        """Whether the audit bound omitted the arguments."""
        return bool(self.get("args_omitted", False))

    @property
    def batch(self) -> Optional[int]:
        """The `parallel` batch the call belonged to, if any."""
        return cast(Optional[int], self.get("batch"))

    @property
    def preview(self) -> Optional[str]:
        """The bounded preview of the result."""
        return cast(Optional[str], self.get("preview"))

    @property
    def media(self) -> List[Dict[str, Any]]:
        """Media references the result carried."""
        return cast(List[Dict[str, Any]], self.get("media", []))

    @property
    def notes(self) -> List[str]:
        """The tool's context notes."""
        return cast(List[str], self.get("notes", []))


@dataclasses.dataclass(frozen=True)
class Call:
    """One nested call the host must answer: its id `ENVELOPE/N`, tool name and validated
    JSON arguments."""

    id: str
    name: str
    arguments: Dict[str, Any]


@dataclasses.dataclass(frozen=True)
class Calls:
    """A step's result while the run is live: the calls dispatched since the last step.

    Empty when the run only waits for answers the host owes (or paused for fuel)."""

    calls: Tuple[Call, ...]

    def __iter__(self) -> Iterator[Call]:
        return iter(self.calls)

    def __len__(self) -> int:
        return len(self.calls)

    def __getitem__(self, index: int) -> Call:
        return self.calls[index]


@dataclasses.dataclass(frozen=True)
class Outcome:
    """A settled run.

    `outcome` is one of `completed`, `script-error`, `denied`, `interrupted`, `tool-error`;
    `text` is what the model sees; `value` the final value as Python data by the JSON
    mapping (None unless completed); `error` the typed error {kind, message} (None when
    completed); `direct` the tool's name when the script was one direct call; `calls` the
    audit (one `AuditCall` per nested call, in dispatch order); `notes` the children's context
    notes; `stats` the counters {fuel_used, tool_calls, elapsed_ms}.
    """

    id: str
    outcome: OutcomeKind
    text: str
    value: Any
    error: Optional[OutcomeError]
    direct: Optional[str]
    calls: List[AuditCall]
    notes: List[str]
    stats: Dict[str, int]
    _data: Dict[str, Any] = dataclasses.field(repr=False, compare=False, default_factory=dict)

    @classmethod
    def from_json(cls, text: str) -> "Outcome":
        """Decodes the runtime's JSON object (as `ptc run --format json` prints it)."""
        return cls.from_dict(json.loads(text))

    @classmethod
    def from_dict(cls, data: Dict[str, Any]) -> "Outcome":
        """The outcome of the runtime's object, already decoded."""
        return cls(
            id=data["id"],
            outcome=cast(OutcomeKind, data["outcome"]),
            text=data["text"],
            value=data["value"],
            error=data["error"],
            direct=data["direct"],
            calls=[AuditCall(call) for call in data["calls"]],
            notes=data["notes"],
            stats=data["stats"],
            _data=data,
        )

    @property
    def error_kind(self) -> Optional[ErrorKind]:
        """`error["kind"]` as an `ErrorKind` (None when completed; a name this package does
        not know reads as `ErrorKind.SCRIPT`, as the runtime reads one)."""
        if self.error is None:
            return None
        try:
            return ErrorKind(self.error["kind"])
        except ValueError:
            return ErrorKind.SCRIPT

    @property
    def ok(self) -> bool:
        """Whether the run completed."""
        return self.outcome == "completed"

    def text_with_notes(self) -> str:
        """`text` followed by a `Notes:` block when children left notes (what
        `ptc run --format text` prints)."""
        if not self.notes:
            return self.text
        lines = [self.text, "", "Notes:"]
        lines += ["- " + note.replace("\n", "\n  ") for note in self.notes]
        return "\n".join(lines)

    def to_json(self) -> str:
        """The JSON object of `ptc run --format json`, as compact text."""
        return json.dumps(self._data, ensure_ascii=False, separators=(",", ":"))

    def to_dict(self) -> Dict[str, Any]:
        """The same object as Python data (a copy)."""
        data: Dict[str, Any] = copy.deepcopy(self._data)
        return data


@dataclasses.dataclass(frozen=True)
class Settled:
    """A step's result once the run settled."""

    outcome: Outcome


@dataclasses.dataclass(frozen=True)
class Diagnostic:
    """One static diagnostic: stable `code`, error `kind`, `message`, `span` (byte
    offsets `(start, end)`), and `notes` (suggestions among them)."""

    code: str
    kind: str
    message: str
    span: Tuple[int, int]
    notes: Sequence[str] = ()
    labels: Sequence[Tuple[Tuple[int, int], str]] = ()

    @classmethod
    def from_dict(cls, data: Dict[str, Any]) -> "Diagnostic":
        span = data.get("span") or {}
        labels = tuple(
            ((label[0]["start"], label[0]["end"]), label[1]) for label in data.get("labels", [])
        )
        return cls(
            code=data["code"],
            kind=data["kind"],
            message=data["message"],
            span=(span.get("start", 0), span.get("end", 0)),
            notes=tuple(data.get("notes", [])),
            labels=labels,
        )

    def __str__(self) -> str:
        return f"{self.code} {self.kind}: {self.message}"


class CompileError(Exception):
    """`ptc.compile` refused a script: `diagnostics` says why (every diagnostic of the
    first failing stage), and `outcome` is the `script-error` Outcome a run of it settles
    with (what `ptc.run` returns for the same script)."""

    def __init__(self, diagnostics: Sequence[Diagnostic], outcome: Outcome):
        self.diagnostics = list(diagnostics)
        self.outcome = outcome
        super().__init__("\n".join(str(d) for d in self.diagnostics) or outcome.text)
