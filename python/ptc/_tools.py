"""Tools as the host defines them: `Tool`, the `@tool` decorator, and handler results.

The decorator derives a tool's JSON Schema from its signature's type hints (str, int, float,
bool, list[...], dict[str, ...], Optional, Literal, Annotated[T, "description"]; a parameter
with a default is optional) and its description from the docstring, the way FastMCP and
Pydantic AI users define tools. A type it cannot map is a `TypeError` at decoration time,
never a surprise at run time.
"""

from __future__ import annotations

import collections.abc
import dataclasses
import inspect
import json
import logging
import sys
import typing
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Union

if sys.version_info >= (3, 10):
    from types import UnionType as _UnionType
else:  # pragma: no cover - Python 3.9
    _UnionType = None

logger = logging.getLogger("ptc")

_SCALARS: Dict[Any, str] = {str: "string", int: "integer", float: "number", bool: "boolean"}
_ARRAYS = (list, collections.abc.Sequence)
_OBJECTS = (dict, collections.abc.Mapping)


@dataclasses.dataclass(frozen=True)
class ToolResult:
    """A handler's explicit result, when a bare return value is not enough.

    Exactly one of `value` (structured JSON data), `text` or `error` (the tool ran but
    failed: the guest receives `(:error "TEXT")`) is meaningful; `notes` are context notes
    carried into the outer result even when the script discards this call's value.
    """

    value: Any = None
    text: Optional[str] = None
    error: Optional[str] = None
    notes: Sequence[str] = ()


@dataclasses.dataclass(frozen=True)
class Tool:
    """One host tool: its contract (what the model and the validator see) and its handler.

    The handler is called with the validated arguments as keyword arguments; it may be a
    plain function or a coroutine function. Its return value reaches the guest by the JSON
    mapping (a `str` is a text result, anything else structured data), or it may return a
    `ToolResult`. A handler that raises gives the guest an error value; the traceback goes
    to the `ptc` logger, never to the model.
    """

    name: str
    description: str
    input_schema: Mapping[str, Any]
    handler: Callable[..., Any]
    standalone: bool = False
    summary: Optional[str] = None

    def contract(self) -> Dict[str, Any]:
        """The tool's contract as the runtime reads it."""
        contract: Dict[str, Any] = {
            "name": self.name,
            "description": self.description,
            "input_schema": dict(self.input_schema),
            "standalone": self.standalone,
        }
        if self.summary is not None:
            contract["summary"] = self.summary
        return contract

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Calls the handler directly (so a decorated function stays callable)."""
        return self.handler(*args, **kwargs)


def schema_for(annotation: Any, where: str = "parameter") -> Dict[str, Any]:
    """The JSON Schema of one type hint."""
    if annotation is inspect.Parameter.empty or annotation is Any:
        return {}
    if annotation is type(None) or annotation is None:
        return {"type": "null"}
    if annotation in _SCALARS:
        return {"type": _SCALARS[annotation]}
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Annotated:
        annotated = schema_for(args[0], where)
        texts = [a for a in args[1:] if isinstance(a, str)]
        if texts:
            annotated["description"] = " ".join(texts)
        return annotated
    if annotation in (list, tuple) or origin in _ARRAYS:
        return {"type": "array", "items": schema_for(args[0], where)} if args else {"type": "array"}
    if annotation is dict or origin in _OBJECTS:
        if args and args[0] is not str:
            raise TypeError(f"{where}: dict keys must be str, not {args[0]!r}")
        schema: Dict[str, Any] = {"type": "object"}
        if len(args) == 2 and args[1] is not Any:
            schema["additionalProperties"] = schema_for(args[1], where)
        return schema
    if origin is typing.Literal:
        values = list(args)
        schema = {"enum": values}
        kinds = {_SCALARS.get(type(v)) for v in values}
        if len(kinds) == 1 and None not in kinds:
            schema["type"] = kinds.pop()
        return schema
    if origin is Union or (_UnionType is not None and isinstance(annotation, _UnionType)):
        members = [a for a in args if a is not type(None)]
        nullable = len(members) < len(args)
        if len(members) == 1:
            inner = schema_for(members[0], where)
            if not nullable:
                return inner
            if isinstance(inner.get("type"), str) and "enum" not in inner:
                return {**inner, "type": [inner["type"], "null"]}
            return {"anyOf": [inner, {"type": "null"}]}
        alternatives = [schema_for(a, where) for a in members]
        if nullable:
            alternatives.append({"type": "null"})
        return {"anyOf": alternatives}
    raise TypeError(
        f"{where}: type {annotation!r} has no JSON Schema mapping "
        "(use str, int, float, bool, list[...], dict[str, ...], Optional, Literal or Any)"
    )


def input_schema(function: Callable[..., Any]) -> Dict[str, Any]:
    """The JSON Schema of `function`'s keyword arguments, from its type hints."""
    signature = inspect.signature(function)
    try:
        hints = typing.get_type_hints(function, include_extras=True)
    except Exception as error:  # unresolved forward references
        raise TypeError(f"cannot read the type hints of {function.__qualname__}: {error}") from None
    properties: Dict[str, Any] = {}
    required: List[str] = []
    for name, parameter in signature.parameters.items():
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            continue
        if parameter.kind is parameter.POSITIONAL_ONLY:
            raise TypeError(f"{function.__qualname__}: parameter {name} is positional-only")
        where = f"{function.__qualname__}({name})"
        schema = schema_for(hints.get(name, inspect.Parameter.empty), where)
        if parameter.default is inspect.Parameter.empty:
            required.append(name)
        else:
            try:
                json.dumps(parameter.default)
                schema["default"] = parameter.default
            except (TypeError, ValueError):
                pass
        properties[name] = schema
    schema = {"type": "object", "properties": properties, "additionalProperties": False}
    if required:
        schema["required"] = required
    return schema


def tool(
    function: Optional[Callable[..., Any]] = None,
    *,
    name: Optional[str] = None,
    description: Optional[str] = None,
    standalone: bool = False,
    summary: Optional[str] = None,
) -> Any:
    """Makes a `Tool` of a function: `@ptc.tool` or `@ptc.tool(name="Weather", ...)`.

    The name defaults to the function's name, the description to its docstring; the input
    schema comes from the type hints (see `schema_for`).
    """

    def make(fn: Callable[..., Any]) -> Tool:
        text = description if description is not None else inspect.getdoc(fn) or ""
        return Tool(
            name=name or fn.__name__,
            description=text,
            input_schema=input_schema(fn),
            handler=fn,
            standalone=standalone,
            summary=summary,
        )

    if function is not None:
        return make(function)
    return make


def safe_text(error: BaseException) -> str:
    """`str(error)`, or a stated placeholder when its `__str__` raises or is not a str."""
    try:
        text = str(error)
        if isinstance(text, str):
            return text
    except Exception:  # noqa: BLE001 - a hostile __str__
        pass
    return f"<the {type(error).__name__}'s message could not be read>"


def encode_result(tool_name: str, result: Any) -> str:
    """A handler's return value as the JSON answer the native module reads: {"value": data},
    {"text": str} or {"error": str} (a tool's own failure), with optional "notes"; data that
    is not JSON, or not valid Unicode (lone surrogates), becomes {"failure": why} (the host
    could not run the tool). Never raises."""
    try:
        return _encode_result(tool_name, result)
    except Exception as error:  # noqa: BLE001 - a hostile __str__, __iter__, ...
        why = f"{type(error).__name__}: {safe_text(error)}"
        logger.warning("tool %s returned data that cannot be encoded: %s", tool_name, why)
        return json.dumps({"failure": f"returned data that cannot be encoded: {why}"})


def _encode_result(tool_name: str, result: Any) -> str:
    notes: Sequence[str] = ()
    if isinstance(result, ToolResult):
        notes = result.notes
        if result.error is not None:
            answer: Dict[str, Any] = {"error": str(result.error)}
        elif result.text is not None:
            answer = {"text": str(result.text)}
        else:
            answer = {"value": result.value}
    elif isinstance(result, str):
        answer = {"text": result}
    else:
        answer = {"value": result}
    if notes:
        answer["notes"] = [str(n) for n in notes]
    try:
        text = json.dumps(answer, allow_nan=False, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError) as error:
        why = safe_text(error)
        logger.warning("tool %s returned data that is not JSON: %s", tool_name, why)
        return json.dumps({"failure": f"returned data that is not JSON: {why}"})
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        logger.warning("tool %s returned a string that is not valid Unicode", tool_name)
        return json.dumps(
            {"failure": "returned a string that is not valid Unicode (a lone surrogate)"}
        )
    return text


def encode_failure(tool_name: str, error: BaseException) -> str:
    """A raising handler's answer: the exception's type and message for the guest
    (`Error: TOOL failed: TYPE: MESSAGE`); the traceback goes to the `ptc` logger only.
    Never raises, whatever the exception's `__str__` does."""
    try:
        logger.error("tool %s raised", tool_name, exc_info=error)
    except Exception:  # noqa: BLE001 - a logging handler tripped on the exception
        pass
    message = f"{type(error).__name__}: {safe_text(error)}"
    return json.dumps({"failure": message}, ensure_ascii=True)
