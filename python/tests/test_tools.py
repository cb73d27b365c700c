"""`@ptc.tool`, `ptc.Tool` and schema derivation."""

import sys
from typing import Annotated, Any, Dict, List, Literal, Optional, Union

import pytest

import ptc


def test_decorator_takes_name_description_and_schema_from_the_function() -> None:
    @ptc.tool
    def search(query: str, limit: int = 10, exact: bool = False) -> List[str]:
        """Searches the index. Returns matching titles."""
        return []

    assert isinstance(search, ptc.Tool)
    assert search.name == "search"
    assert search.description == "Searches the index. Returns matching titles."
    assert search.input_schema == {
        "type": "object",
        "properties": {
            "query": {"type": "string"},
            "limit": {"type": "integer", "default": 10},
            "exact": {"type": "boolean", "default": False},
        },
        "required": ["query"],
        "additionalProperties": False,
    }
    assert search(query="x") == []


def test_every_supported_hint_maps_to_json_schema() -> None:
    @ptc.tool(name="Kinds", description="d", standalone=True)
    def kinds(
        a: float,
        b: List[int],
        c: Dict[str, float],
        d: Optional[str],
        e: Literal["fast", "slow"],
        f: Annotated[int, "how many"],
        g: Any,
        h: Union[int, str],
        i: list,
        j: dict,
        k: Optional[List[str]] = None,
    ) -> None:
        pass

    props = kinds.input_schema["properties"]
    assert props["a"] == {"type": "number"}
    assert props["b"] == {"type": "array", "items": {"type": "integer"}}
    assert props["c"] == {"type": "object", "additionalProperties": {"type": "number"}}
    assert props["d"] == {"type": ["string", "null"]}
    assert props["e"] == {"enum": ["fast", "slow"], "type": "string"}
    assert props["f"] == {"type": "integer", "description": "how many"}
    assert props["g"] == {}
    assert props["h"] == {"anyOf": [{"type": "integer"}, {"type": "string"}]}
    assert props["i"] == {"type": "array"}
    assert props["j"] == {"type": "object"}
    assert props["k"] == {"type": ["array", "null"], "items": {"type": "string"}, "default": None}
    assert kinds.input_schema["required"] == list("abcdefghij")
    assert kinds.standalone and kinds.description == "d"


@pytest.mark.skipif(sys.version_info < (3, 10), reason="PEP 604 unions need 3.10")
def test_pep_604_and_builtin_generics() -> None:
    namespace: Dict[str, Any] = {}
    exec(
        "def f(a: list[str], b: dict[str, int], c: int | None = None) -> None: pass",
        namespace,
    )
    schema = ptc.input_schema(namespace["f"])
    assert schema["properties"] == {
        "a": {"type": "array", "items": {"type": "string"}},
        "b": {"type": "object", "additionalProperties": {"type": "integer"}},
        "c": {"type": ["integer", "null"], "default": None},
    }


def test_unmappable_hints_fail_at_decoration_time() -> None:
    with pytest.raises(TypeError, match="no JSON Schema mapping"):

        @ptc.tool
        def bad(x: bytes) -> None:
            pass

    with pytest.raises(TypeError, match="dict keys must be str"):

        @ptc.tool
        def bad2(x: Dict[int, str]) -> None:
            pass


def test_explicit_tool_with_an_mcp_schema_runs() -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    double = ptc.Tool("Double", "Doubles n.", schema, lambda n: n * 2)
    outcome = ptc.run("(+ 1 (Double :n 20))", [double])
    assert outcome.outcome == "completed", outcome.text
    assert outcome.value == 41


def test_illegal_and_duplicate_tool_names_are_value_errors() -> None:
    schema = {"type": "object"}
    with pytest.raises(ValueError, match="not a legal tool name"):
        ptc.compile("1", [ptc.Tool("list", "", schema, lambda: 1)])
    with pytest.raises(ValueError, match="twice"):
        ptc.compile("1", [ptc.Tool("A", "", schema, lambda: 1)] * 2)
    with pytest.raises(ValueError, match="invalid input schema"):
        ptc.compile("1", [ptc.Tool("A", "", {"type": 12}, lambda: 1)])
    with pytest.raises(TypeError, match="not a ptc.Tool"):
        ptc.compile("1", [lambda: 1])  # type: ignore[list-item]
