"""What every adapter shares: the ToolCall tool's model-facing text and the approval gate.

The model-facing text is the seed's: ToolCall's static description followed by the listing of
the wrapped tools (`ptc.describe`). The approval gate maps a framework's "this tool needs
approval" onto ptc's permission seam in two halves:

- before the run, `mentions(expression, gated)` names the approval-gated tools the expression
  mentions as a symbol or a string (an over-approximation: a mention in a comment or an
  unrelated string also counts). A framework that asks its user before a tool runs asks about
  the ToolCall when this is not empty;
- during the run, `gate_policy` is the ptc policy: a nested call to a gated tool is allowed
  only when that tool was mentioned and the ToolCall was approved; any other gated call (one
  the expression computes at run time) is denied, which aborts the composition with the
  `denied` outcome. A user policy, when given, is consulted for every call the gate allows.
"""

from __future__ import annotations

import inspect
import re
from typing import AbstractSet, Any, Dict, FrozenSet, Iterable, Optional, Sequence, Union

from .._outcome import Call
from .._run import Policy, describe
from .._tools import Tool

#: The default name of the code-mode tool, as the seed names it.
TOOL_NAME = "ToolCall"

# Characters that end a symbol in the dialect's reader (whitespace, parentheses, quotes,
# brackets, comment and quote-like prefixes).
_DELIMITERS = r"\s()\[\]\"'`,;#"


def description(tools: Sequence[Tool]) -> Dict[str, Any]:
    """{"description": ToolCall's static description + the tool listing, "input_schema": ...}
    for `tools` (what the framework's one tool shows the model)."""
    described = describe(tools)
    text = described["description"]
    listing = described.get("listing") or ""
    if listing:
        text = text.rstrip() + "\n\n" + listing.strip()
    return {"description": text, "input_schema": described["input_schema"]}


def mentions(expression: str, names: Iterable[str]) -> FrozenSet[str]:
    """The names among `names` that `expression` mentions as a whole symbol (or inside a
    string). Conservative: used to decide whether a ToolCall needs its user's approval."""
    found = set()
    for name in names:
        pattern = rf"(?<![^{_DELIMITERS}]){re.escape(name)}(?![^{_DELIMITERS}])"
        if re.search(pattern, expression):
            found.add(name)
    return frozenset(found)


def needs_approval_reason(name: str) -> str:
    """The denial reason for a gated call the ToolCall was not approved for."""
    return (
        f"{name} needs the user's approval, and this ToolCall was not approved for it "
        f"(name {name} literally in the expression so that the approval is asked for)"
    )


def gate_policy(
    gated: AbstractSet[str], approved: AbstractSet[str], policy: Optional[Policy] = None
) -> Optional[Policy]:
    """The ptc policy for one run: deny gated calls not in `approved`, then ask `policy`.
    None when nothing is gated and there is no user policy (no permission step at all)."""
    if not gated and policy is None:
        return None

    async def decide(call: Call) -> Union[None, bool, str]:
        if call.name in gated and call.name not in approved:
            return needs_approval_reason(call.name)
        if policy is None:
            return None
        answer = policy(call)
        if inspect.isawaitable(answer):
            answer = await answer
        return answer

    return decide


def sync_gate_policy(
    gated: AbstractSet[str], approved: AbstractSet[str], policy: Optional[Policy] = None
) -> Optional[Policy]:
    """As `gate_policy`, for the synchronous driver (`ptc.run`): `policy` must answer
    synchronously."""
    if not gated and policy is None:
        return None

    def decide(call: Call) -> Union[None, bool, str]:
        if call.name in gated and call.name not in approved:
            return needs_approval_reason(call.name)
        if policy is None:
            return None
        answer = policy(call)
        if inspect.isawaitable(answer):
            raise TypeError("an async policy needs the async tool (ptc.run_async)")
        return answer

    return decide


def plain(value: Any) -> Any:
    """A tool's return value as JSON data for the guest: JSON types pass, a pydantic model
    becomes its dump, anything else its `str`."""
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return plain(dump(mode="json"))
    return str(value)
