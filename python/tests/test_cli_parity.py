"""`Outcome.to_json()` is the object `ptc run --format json` prints, for the same script and
the same tool behaviour (ids and wall-clock time aside)."""

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any, Dict

import pytest

import ptc


def ptc_binary() -> str:
    candidates = [os.environ.get("PTC_BIN"), str(Path(__file__).parents[2] / "target/debug/ptc"), shutil.which("ptc")]
    for candidate in candidates:
        if candidate and Path(candidate).is_file():
            return candidate
    if os.environ.get("CI"):
        pytest.fail("CI is set but no ptc binary was found (set PTC_BIN)")
    pytest.skip("NO ptc BINARY: the CLI parity test was NOT run (build with cargo build -p ptc-cli)")


def normalise(outcome: Dict[str, Any]) -> Dict[str, Any]:
    outcome = dict(outcome)
    outcome.pop("id")
    outcome["stats"] = {k: v for k, v in outcome["stats"].items() if k != "elapsed_ms"}
    outcome["calls"] = [{k: v for k, v in c.items() if k != "id"} for c in outcome["calls"]]
    return outcome


@pytest.mark.parametrize(
    "script",
    [
        '(list (plist-get (Data :q "a") :n) (parallel (Data :q "b") (Fail)) (Data :q (make-string 600 ?x)))',
        '(Data :q "direct")',
        "(Fail)",
        "(car (Data))",
    ],
)
def test_outcome_json_equals_the_cli(script: str) -> None:
    binary = ptc_binary()
    data = {"n": 3, "ok": True, "none": None, "list": [1, "two"]}
    printed = subprocess.run(
        [binary, "run", "--no-builtin-tools", "--stub", f"Data=json:{json.dumps(data)}",
         "--stub", "Fail=error:Error: broken", "--format", "json", "-e", script],
        capture_output=True, text=True, timeout=60, check=False,
    )
    cli = json.loads(printed.stdout)
    open_schema = {"type": "object"}
    tools = [
        ptc.Tool("Data", "Gives data.", open_schema, lambda **_: data),
        ptc.Tool("Fail", "Fails.", open_schema, lambda **_: ptc.ToolResult(error="Error: broken")),
    ]
    ours = ptc.run(script, tools).to_dict()
    assert normalise(ours) == normalise(cli)
