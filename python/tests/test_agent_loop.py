"""A small agent loop: a scripted fake model writes a ToolCall expression, the host runs it
with `ptc.run` and feeds the result back as the tool result."""

import json
from typing import Any, Dict, List

import ptc


@ptc.tool
def Read(file_path: str) -> str:
    """Reads a file of the fake workspace."""
    files = {"a.txt": "alpha\nTODO: one\n", "b.txt": "TODO: two\nTODO: three\n"}
    if file_path not in files:
        raise FileNotFoundError(file_path)
    return files[file_path]


@ptc.tool
def Glob(pattern: str) -> List[str]:
    """Lists files matching a pattern."""
    return ["a.txt", "b.txt"]


class FakeModel:
    """Answers from a script: first a ToolCall, then a final text built from its result."""

    def __init__(self) -> None:
        self.turn = 0

    def respond(self, messages: List[Dict[str, Any]], tools: List[Dict[str, Any]]) -> Dict[str, Any]:
        self.turn += 1
        assert tools[0]["name"] == "ToolCall"
        if self.turn == 1:
            assert "(Read :file_path" in tools[0]["description"]
            expression = """
(let ((counts (mapcar (lambda (f)
                        (list f (length (split-string (Read :file_path f) "TODO" ))))
                      (Glob :pattern "*.txt"))))
  counts)"""
            return {"tool_use": {"id": "toolu_42", "name": "ToolCall", "input": {"expression": expression}}}
        result = messages[-1]["content"]
        return {"text": f"Counted: {result}"}


def agent(model: FakeModel, tools: List[ptc.Tool], prompt: str) -> str:
    described = ptc.describe(tools)
    tool_list = [
        {
            "name": described["name"],
            "description": described["description"] + "\n\n" + described["listing"],
            "input_schema": described["input_schema"],
        }
    ]
    messages: List[Dict[str, Any]] = [{"role": "user", "content": prompt}]
    audits = []
    for _ in range(5):
        reply = model.respond(messages, tool_list)
        if "text" in reply:
            assert len(audits) == 1
            return reply["text"]
        use = reply["tool_use"]
        outcome = ptc.run(use["input"]["expression"], tools, id=use["id"])
        audits.append(outcome.calls)
        messages.append({"role": "assistant", "tool_use": use})
        messages.append({"role": "tool", "tool_use_id": use["id"], "content": outcome.text_with_notes(),
                         "is_error": not outcome.ok})
    raise AssertionError("the loop did not end")


def test_the_agent_loop_runs_the_models_expression_with_an_audit() -> None:
    model = FakeModel()
    answer = agent(model, [Read, Glob], "How many TODOs per file?")
    assert answer == 'Counted: (("a.txt" 2) ("b.txt" 3))'
    outcome = ptc.run(
        '(mapcar (lambda (f) (Read :file_path f)) (Glob :pattern "*"))', [Read, Glob], id="x"
    )
    assert [c["tool"] for c in outcome.calls] == ["Glob", "Read", "Read"]
    assert [c["id"] for c in outcome.calls] == ["x/1", "x/2", "x/3"]
    assert json.loads(outcome.to_json())["calls"] == outcome.calls
