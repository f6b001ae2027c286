"""An `approve` inside a `pipeline:` step is an approval gate: the run halts there (`needs_approval`, the stage's prompt
and the items reaching it), `--approve yes` continues the step's pipeline after that stage with the same items, `no`
cancels; inside a sub-workflow, a loop or a branch it halts the whole run. The plan, the graph and the editor show
the step as an approval gate, and lint reports it only for files written for the reference."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from gate_runs import ledger, on_terminal, tool
from helpers import write_file

from lobsterlang.cli import main
from lobsterlang.compile import compile_workflow
from lobsterlang.graph import render_graph
from lobsterlang.query.outline import describe

__all__ = ["ledger"]  # the fixture (gate_runs.py), used by name
Capture = pytest.CaptureFixture[str]
APPROVES = """steps:
  - id: first
    run: echo first >> "$LEDGER"; printf '[{"id":7},{"id":8}]'
  - id: review
    stdin: $first.json
    pipeline: exec --stdin json --json --shell 'echo listed >> "$LEDGER"; cat' | approve --prompt 'Delete these?' | exec --stdin json --json --shell 'echo "deleted $(cat)" >> "$LEDGER"; echo "[\\"gone\\"]"'
  - id: after
    stdin: $review.json
    run: cat
"""
CHILD = """steps:
  - id: review
    pipeline: exec --json --shell 'echo listed >> "$LEDGER"; echo "[1,2]"' | approve --prompt 'Go?' | map --wrap n
"""
LOOP = """steps:
  - id: items
    run: echo '[1, 2]'
  - id: loop
    for_each: $items.json
    steps:
      - id: ship
        pipeline: exec --json --shell 'echo "plan $item.stdout" >> "$LEDGER"; echo "[$item.stdout]"' | approve --prompt Ship? | map --wrap shipped
"""


def _approve(envelope: dict[str, Any], decision: str, capsys: Capture) -> tuple[int, dict[str, Any]]:
    return tool(["resume", "--token", envelope["requiresApproval"]["resumeToken"], "--approve", decision], capsys)


def test_approving_continues_the_pipeline_after_the_stage_with_the_same_items(
    tmp_path: Path, ledger: Path, capsys: Capture,
) -> None:
    path = write_file(tmp_path, "w.lobster", APPROVES)
    code, halted = tool(["run", "--mode", "tool", "--file", str(path)], capsys)
    request = halted["requiresApproval"]
    assert code == 0 and halted["status"] == "needs_approval", halted
    assert request["prompt"] == "Delete these?" and request["items"] == [{"id": 7}, {"id": 8}]
    assert request["approvalId"] and ledger.read_text() == "first\nlisted\n"
    code, done = _approve(halted, "yes", capsys)
    assert code == 0 and done["status"] == "ok" and done["output"] == ["gone"], done
    assert ledger.read_text() == 'first\nlisted\ndeleted [{"id":7},{"id":8}]\n'  # nothing before the gate ran again
    code, again = _approve(halted, "yes", capsys)  # single use
    assert again["ok"] is False and "not found" in again["error"]["message"], again


def test_rejecting_cancels_and_the_stages_after_the_gate_never_run(tmp_path: Path, ledger: Path, capsys: Capture) -> None:
    path = write_file(tmp_path, "w.lobster", APPROVES)
    _, halted = tool(["run", "--mode", "tool", "--file", str(path)], capsys)
    code, cancelled = _approve(halted, "no", capsys)
    assert code == 0 and cancelled["status"] == "cancelled", cancelled
    assert ledger.read_text() == "first\nlisted\n"
    assert main(["runs", "--json"]) == 0 and json.loads(capsys.readouterr().out) == []


def test_the_approver_identity_rules_apply(tmp_path: Path, ledger: Path, capsys: Capture,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LOBSTER_APPROVAL_REQUIRED_APPROVER", "alice")
    path = write_file(tmp_path, "w.lobster", APPROVES)
    _, halted = tool(["run", "--mode", "tool", "--file", str(path)], capsys)
    assert halted["requiresApproval"]["requiredApprover"] == "alice"
    monkeypatch.setenv("LOBSTER_APPROVAL_APPROVED_BY", "bob")
    code, refused = _approve(halted, "yes", capsys)
    assert code == 2 and "requires approver 'alice'" in refused["error"]["message"], refused
    monkeypatch.setenv("LOBSTER_APPROVAL_APPROVED_BY", "alice")
    code, done = _approve(halted, "yes", capsys)  # the refusal kept the token
    assert code == 0 and done["output"] == ["gone"], done


def test_inside_a_sub_workflow_it_halts_the_whole_run(tmp_path: Path, ledger: Path, capsys: Capture) -> None:
    write_file(tmp_path, "child.lobster", CHILD)
    path = write_file(tmp_path, "w.lobster", "steps:\n  - id: call\n    workflow: child.lobster\n"
                                             "  - id: after\n    stdin: $call.json\n    run: cat\n")
    _, halted = tool(["run", "--mode", "tool", "--file", str(path)], capsys)
    request = halted["requiresApproval"]
    assert request["path"] == "call > review" and request["items"] == [1, 2], halted
    code, done = _approve(halted, "yes", capsys)
    assert code == 0 and done["output"] == [{"n": 1}, {"n": 2}], done
    assert ledger.read_text() == "listed\n"
    _, halted = tool(["run", "--mode", "tool", "--file", str(path)], capsys)
    _, cancelled = _approve(halted, "no", capsys)
    assert cancelled["status"] == "cancelled", cancelled


def test_inside_a_loop_it_asks_once_per_item(tmp_path: Path, ledger: Path, capsys: Capture) -> None:
    path = write_file(tmp_path, "w.lobster", LOOP)
    _, first = tool(["run", "--mode", "tool", "--file", str(path)], capsys)
    assert first["requiresApproval"]["path"] == "loop[0] > ship" and first["requiresApproval"]["items"] == [1], first
    _, second = _approve(first, "yes", capsys)
    assert second["requiresApproval"]["path"] == "loop[1] > ship" and second["requiresApproval"]["items"] == [2], second
    _, done = _approve(second, "yes", capsys)
    assert done["output"] == [{"item": 1, "index": 0, "ship": {"shipped": 1}},
                              {"item": 2, "index": 1, "ship": {"shipped": 2}}], done
    assert ledger.read_text() == "plan 1\nplan 2\n"  # each item's stages before the gate ran once


def test_inside_a_parallel_branch_it_halts_the_whole_run(tmp_path: Path, ledger: Path, capsys: Capture) -> None:
    path = write_file(tmp_path, "w.lobster", """steps:
  - id: fan
    parallel:
      branches:
        - id: eu
          pipeline: exec --json --shell 'echo eu >> "$LEDGER"; echo "[5]"' | approve --prompt EU? | map --wrap eu
        - id: us
          run: echo us >> "$LEDGER"
""")
    _, halted = tool(["run", "--mode", "tool", "--file", str(path)], capsys)
    assert halted["requiresApproval"]["path"] == "fan > eu" and halted["requiresApproval"]["items"] == [5], halted
    _, done = _approve(halted, "yes", capsys)
    assert done["status"] == "ok" and done["output"] == [{"eu": {"eu": 5}}], done
    assert sorted(ledger.read_text().splitlines()) == ["eu", "us"]


def test_the_plan_the_graph_and_the_editor_show_the_approval_gate(tmp_path: Path, ledger: Path, capsys: Capture) -> None:
    path = write_file(tmp_path, "w.lobster", APPROVES)
    assert main(["run", "--dry-run", "--file", str(path)]) == 0
    assert "     [approval required at stage 2: approve — the run waits for the decision]\n" in capsys.readouterr().err
    workflow = compile_workflow(APPROVES, str(path)).ir
    assert workflow is not None
    assert "- review [pipeline, approval gate] (pipeline: exec" in render_graph(workflow, "ascii")
    assert describe(workflow.steps[1]) == "pipeline: exec | approve | exec (approval gate)"
    loop = write_file(tmp_path, "loop.lobster", LOOP)
    assert main(["run", "--dry-run", "--file", str(loop)]) == 0
    assert "[approval required inside: loop[*] > ship — the whole run waits there]" in capsys.readouterr().err


def test_lint_reports_it_only_for_the_reference(tmp_path: Path, capsys: Capture) -> None:
    path = write_file(tmp_path, "w.lobster", APPROVES)
    assert main(["lint", "--no-cache", "--format", "json", "--select", "L206,L403", str(path)]) == 0
    assert "L206" not in capsys.readouterr().out
    main(["lint", "--no-cache", "--format", "json", "--select", "L206,L403", "--target", "reference", str(path)])
    assert "L206" in capsys.readouterr().out


def test_two_branches_halt_together_and_the_run_goes_on_once_both_are_approved(
    tmp_path: Path, ledger: Path, capsys: Capture,
) -> None:
    branch = "        - id: {0}\n          pipeline: exec --json --shell 'echo {0} >> \"$LEDGER\"; echo \"[{1}]\"' | approve --prompt {0}? | map --wrap {0}\n"
    path = write_file(tmp_path, "w.lobster", "steps:\n  - id: fan\n    parallel:\n      branches:\n"
                      + branch.format("eu", 5) + branch.format("us", 6))
    _, halted = tool(["run", "--mode", "tool", "--file", str(path)], capsys)
    eu, us = halted["pendingGates"]
    assert (eu["path"], eu["items"], us["path"], us["items"]) == ("fan > eu", [5], "fan > us", [6]), halted
    _, waiting = tool(["resume", "--token", us["resumeToken"], "--approve", "yes"], capsys)
    assert waiting["status"] == "needs_approval" and waiting["requiresApproval"]["path"] == "fan > eu", waiting
    _, done = tool(["resume", "--token", eu["resumeToken"], "--approve", "yes"], capsys)
    assert done["output"] == [{"eu": {"eu": 5}, "us": {"us": 6}}], done
    assert sorted(ledger.read_text().splitlines()) == ["eu", "us"]


def test_on_a_terminal_the_stage_asks_in_place(tmp_path: Path, ledger: Path) -> None:
    outcome, shown = on_terminal(write_file(tmp_path, "w.lobster", APPROVES), "y\n")
    assert outcome.status == "ok" and outcome.output == ["gone"] and shown.endswith("Delete these? [y/N] ")
