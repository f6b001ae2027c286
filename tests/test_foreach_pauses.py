"""`for_each` `pause_ms`: a pause between batches, slept only before sub-steps that really run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from lobsterlang import ir
from lobsterlang.cli import main
from lobsterlang.compile import compile_workflow
from lobsterlang.interpret.workflow import foreach
from lobsterlang.interpret.workflow.foreach import BatchPauses

LOOP = """steps:
  - id: items
    run: echo '[0, 1, 2, 3, 4]'
  - id: loop
    for_each: $items.json
    batch_size: 2
    pause_ms: 321
    steps:
      - id: show
        when: $item.json != 2 && $item.json != 3
        run: echo "$LOBSTER_ARG_X" > /dev/null; echo item
"""


def loop_of(batch: object, pause: object) -> ir.ForEach:
    source = f"steps:\n  - id: l\n    for_each: $items.json\n    batch_size: {batch}\n    pause_ms: {pause}\n    steps:\n      - id: s\n        run: 'true'\n"
    result = compile_workflow(source, "x.lobster")
    assert result.ir is not None, result.diagnostics
    action = result.ir.steps[0].action
    assert isinstance(action, ir.ForEach)
    return action


def replay(pauses: BatchPauses, items: list[str]) -> list[str]:
    """Drive `pauses` over items whose sub-steps are `r`un, `j`ournal-restored or `s`kipped; what happened, in order."""
    events: list[str] = []
    pauses._sleep = lambda seconds: events.append(f"sleep {seconds}")
    for index, subs in enumerate(items):
        pauses.item(index)
        for sub in subs:
            if sub == "j":
                pauses.restored()
            elif sub == "r":
                pauses.before_run()
                events.append(f"run {index}")
    return events


def test_a_fresh_run_pauses_before_each_batch_after_the_first() -> None:
    events = replay(BatchPauses(loop_of(2, 250)), ["rr", "rr", "rr", "rr", "r"])
    assert events == ["run 0", "run 0", "run 1", "run 1", "sleep 0.25", "run 2", "run 2", "run 3", "run 3",
                      "sleep 0.25", "run 4"]


def test_a_resumed_run_does_not_pause_before_the_items_it_restores() -> None:
    events = replay(BatchPauses(loop_of(1, 100)), ["jj", "jj", "jj", "r", "rr"])
    assert events == ["sleep 0.1", "run 3", "sleep 0.1", "run 4", "run 4"]


def test_a_batch_that_began_in_an_earlier_attempt_does_not_pause_again() -> None:
    assert replay(BatchPauses(loop_of(3, 100)), ["jj", "jj", "jj", "jr", "rr"]) == ["run 3", "run 4", "run 4"]


def test_a_pause_waits_through_skipped_items_for_the_first_one_that_runs() -> None:
    assert replay(BatchPauses(loop_of(1, 100)), ["r", "s", "s", "r"]) == ["run 0", "sleep 0.1", "run 3"]


@pytest.mark.parametrize("pause", ["0", "true", "'100'"])
def test_no_pause_without_a_positive_number(pause: str) -> None:
    assert replay(BatchPauses(loop_of(1, pause)), ["r", "r"]) == ["run 0", "run 1"]


def test_a_run_sleeps_once_per_batch_that_runs_something(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          capsys: Any) -> None:
    (tmp_path / "loop.lobster").write_text(LOOP)
    slept: list[float] = []
    monkeypatch.setattr(foreach, "pause", lambda cancel, seconds: slept.append(seconds))
    assert main(["run", "--mode", "tool", str(tmp_path / "loop.lobster")]) == 0
    output = json.loads(capsys.readouterr().out)
    assert output["ok"] and len(output["output"]) == 5, output
    assert slept == [0.321]  # before item 4: the batch of items 2 and 3 ran nothing
