"""An `ask` inside a `pipeline:` step is an input gate: the run halts there (`needs_input`), the answer continues
the step's pipeline after that stage, and the plan, the graph and the editor show the step as a gate."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from gate_runs import ledger, on_terminal, tool
from helpers import write_file

from lobsterlang import ir
from lobsterlang.cli import main
from lobsterlang.compile import compile_workflow
from lobsterlang.graph import render_graph
from lobsterlang.query.outline import describe, symbols

__all__ = ["ledger"]  # the fixture (gate_runs.py), used by name
Capture = pytest.CaptureFixture[str]
ASKS = """steps:
  - id: fetch
    run: printf '[{"id":7}]'
  - id: review
    stdin: $fetch.json
    pipeline: exec --stdin json --json --shell 'echo ran >> "$LEDGER"; cat' | ask --prompt 'Keep it?' --subject-from-stdin | map --wrap answer
  - id: after
    run: printf 'kept=%s' '$review.json.answer.decision'
"""


def test_the_answer_continues_the_pipeline_after_the_gate_without_running_earlier_stages(
    tmp_path: Path, ledger: Path, capsys: Capture,
) -> None:
    path = write_file(tmp_path, "w.lobster", ASKS)
    code, halted = tool(["run", "--mode", "tool", "--file", str(path)], capsys)
    request = halted["requiresInput"]
    assert code == 0 and halted["status"] == "needs_input"
    assert request["prompt"] == "Keep it?" and request["subject"] == {"text": '{"id":7}'}
    assert ledger.read_text() == "ran\n"
    code, done = tool(["resume", "--token", request["resumeToken"], "--response-json", '{"decision":"approve"}'], capsys)
    assert code == 0 and done["output"] == ["kept=approve"]
    assert ledger.read_text() == "ran\n"  # the stage before the gate did not run again


def test_a_run_interrupted_after_the_answer_continues_after_the_gate(tmp_path: Path, ledger: Path, capsys: Capture) -> None:
    """The answer is journaled: `resume --run --retry-step` continues after the gate with it, never asking again."""
    mark = tmp_path / "mark"
    path = write_file(tmp_path, "w.lobster", f"""steps:
  - id: review
    pipeline: ask --prompt 'Go?' | exec --stdin json --json --shell 'cat; [ -e {mark} ] || {{ touch {mark}; exec sleep 30; }}'
    timeout_ms: 500
""")
    _, halted = tool(["run", "--mode", "tool", "--file", str(path)], capsys)
    token = halted["requiresInput"]["resumeToken"]
    code, failed = tool(["resume", "--token", token, "--response-json", '{"decision":"approve"}'], capsys)
    assert code == 1 and failed["error"]["message"] == "Step 'review' timed out after 500ms"
    assert main(["runs", "--json"]) == 0
    [row] = json.loads(capsys.readouterr().out)
    assert row["uncertainStep"] == "review" and row["waitingGate"] is None
    code, done = tool(["resume", "--run", row["id"], "--retry-step"], capsys)
    assert code == 0 and done["status"] == "ok" and done["output"] == [{"decision": "approve"}]


def test_human_mode_without_a_terminal_halts_and_on_a_terminal_ask_asks(tmp_path: Path, ledger: Path, capsys: Capture) -> None:
    path = write_file(tmp_path, "w.lobster", ASKS)
    assert main(["run", "--file", str(path)]) == 0
    assert json.loads(capsys.readouterr().out)["status"] == "needs_input"
    outcome, shown = on_terminal(path, "reject\n")
    assert outcome.status == "ok" and outcome.output == ["kept=reject"] and shown == "Keep it?\n> "


@pytest.mark.parametrize(
    "steps, path",
    [
        ("  - id: loop\n    for_each: $a.json\n    steps:\n      - id: q\n        pipeline: ask\n", "loop[0] > q"),
        ("  - id: fan\n    parallel:\n      branches:\n        - id: q\n          pipeline: ask\n        - id: r\n          run: echo\n",
         "fan > q"),
        ("  - id: call\n    workflow: child.lobster\n", "call > q"),
    ],
)
def test_an_ask_inside_a_step_halts_the_whole_run_and_names_its_path(
    steps: str, path: str, tmp_path: Path, ledger: Path, capsys: Capture,
) -> None:
    """The reference fails the step; lobsterlang halts there (docs/workflows.md, "Gates anywhere")."""
    write_file(tmp_path, "child.lobster", "steps:\n  - id: q\n    pipeline: ask --prompt Go?\n")
    file = write_file(tmp_path, "w.lobster", "steps:\n  - id: a\n    run: echo '[1]'\n" + steps)
    code, envelope = tool(["run", "--mode", "tool", "--file", str(file)], capsys)
    assert code == 0 and envelope["status"] == "needs_input" and envelope["requiresInput"]["path"] == path, envelope


def test_the_plan_the_graph_and_the_editor_show_the_input_gate(tmp_path: Path, ledger: Path, capsys: Capture) -> None:
    path = write_file(tmp_path, "w.lobster", ASKS)
    assert main(["run", "--dry-run", "--file", str(path)]) == 0
    plan = capsys.readouterr().err
    assert "     [input required at stage 2: ask — the run waits for the answer]\n" in plan
    workflow = compile_workflow(ASKS, str(path)).ir
    assert workflow is not None
    assert "- review [pipeline, input gate] (pipeline: exec" in render_graph(workflow, "ascii")
    assert "\\ninput gate\"]" in render_graph(workflow, "mermaid")
    review = workflow.steps[1]
    assert describe(review) == "pipeline: exec | ask | map (input gate)"
    loop = compile_workflow("steps:\n  - id: l\n    for_each: $x.json\n    steps:\n      - id: q\n        pipeline: ask\n",
                            "l.lobster").ir
    assert loop is not None and isinstance(loop.steps[0].action, ir.ForEach)
    assert describe(loop.steps[0].action.steps[0], top_level=False) == "pipeline: ask"  # a sub-step cannot halt
    [symbol] = symbols(workflow)[1:2]
    assert symbol.detail == "pipeline: exec | ask | map (input gate)"
