"""`timeout_ms`, `retry:` and `on_error` on a `for_each` step apply to the whole loop, as in the reference; a retry
or a resume never runs an item again that finished (its sub-steps' records are kept)."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from helpers import write_file
from test_branch_journal import CLI, LOOP, kill_when_hung, ledger

from lobsterlang.cli import main
from lobsterlang.compile import compile_workflow
from lobsterlang.interpret.errors import Cancelled
from lobsterlang.interpret.process import Cancellation
from lobsterlang.interpret.workflow.attempt import AttemptCancellation, pause

Capture = pytest.CaptureFixture[str]


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    import os

    return {**os.environ, "LOBSTER_STATE_DIR": str(tmp_path / "state"), "LEDGER": str(tmp_path / "ledger"),
            "MARK": str(tmp_path / "mark"), "SLEEPER": str(tmp_path / "sleeper")}


def test_the_timeout_stops_the_loop_in_the_item_running_then(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                              capsys: Capture) -> None:
    """Each item sleeps 3 s under a 1 s timeout for the loop: the first is killed, the second never starts."""
    monkeypatch.setenv("LOBSTER_STATE_DIR", str(tmp_path / "state"))
    started = tmp_path / "started"
    path = write_file(tmp_path, "w.lobster", f"""steps:
  - id: items
    run: printf '[1, 2]'
  - id: loop
    for_each: $items.json
    timeout_ms: 1000
    steps:
      - id: nap
        run: echo $item.json >> {started}; sleep 3; echo slept $item.json >> {started}
""")
    assert main(["run", "--mode", "tool", "--file", str(path)]) == 1
    assert json.loads(capsys.readouterr().out)["error"]["message"] == "Step 'loop' timed out after 1000ms"
    assert started.read_text() == "1\n"
    assert main(["runs", "--json"]) == 0
    [row] = json.loads(capsys.readouterr().out)
    assert row["uncertainStep"] == "loop" and row["uncertainBranches"] == ["0/nap"]  # kept, as after any timeout


def test_a_pause_between_batches_ends_when_the_attempt_is_stopped() -> None:
    attempt = AttemptCancellation(Cancellation())
    outcome: list[BaseException] = []

    def wait() -> None:
        try:
            pause(attempt, 600)
        except Cancelled as exc:
            outcome.append(exc)

    sleeper = threading.Thread(target=wait, daemon=True)
    sleeper.start()
    attempt.cancel("timeout")
    sleeper.join(30)
    assert not sleeper.is_alive() and len(outcome) == 1  # a 10-minute pause ended with the attempt


def test_a_retried_loop_keeps_the_items_that_finished(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      capsys: Capture) -> None:
    monkeypatch.setenv("LOBSTER_STATE_DIR", str(tmp_path / "state"))
    effects = tmp_path / "effects"
    path = write_file(tmp_path, "w.lobster", f"""steps:
  - id: items
    run: printf '[0, 1, 2]'
  - id: loop
    for_each: $items.json
    retry: {{max: 3, delay_ms: 1}}
    steps:
      - id: send
        run: echo "send $item.json" >> {effects}; [ $item.json != 1 ] || [ $(grep -c 'send 1' {effects}) -ge 3 ] || exit 4
      - id: log
        run: echo "log $item.json" >> {effects}; echo $item.json
""")
    assert main(["run", "--mode", "tool", "--file", str(path)]) == 0
    out, err = capsys.readouterr()
    assert [it["log"] for it in json.loads(out)["output"]] == [0, 1, 2] and err.count("[RETRY] Step 'loop'") == 2
    assert Counter(effects.read_text().splitlines()) == Counter(
        {"send 0": 1, "log 0": 1, "send 1": 3, "log 1": 1, "send 2": 1, "log 2": 1})


def test_a_killed_loop_with_a_retry_policy_continues_without_a_flag(tmp_path: Path, env: dict[str, str]) -> None:
    """Its retry policy allows running the item in flight again; the recorded items never run again."""
    (tmp_path / "loop.lobster").write_text(LOOP.replace("    item_var: n\n", "    item_var: n\n    retry: {max: 2}\n"))
    run_id = kill_when_hung(env, tmp_path / "loop.lobster")
    resumed = subprocess.run([sys.executable, "-c", CLI, "resume", "--run", run_id], env=env, capture_output=True,
                             text=True, timeout=60)
    done: dict[str, Any] = json.loads(resumed.stdout)
    assert done["ok"] and len(done["output"]) == 6, done
    assert "note: step loop was interrupted in attempt 1 of 2; its retry policy runs it again" in resumed.stderr
    assert ledger(env) == Counter({**{f"item {n}": 1 for n in range(6)}, "item 3": 2})


def test_w009_is_only_about_sub_steps() -> None:
    text = """steps:
  - id: loop
    for_each: $x.json
    retry: {max: 2}
    timeout_ms: 100
    on_error: continue
    steps:
      - id: s
        run: echo
        timeout_ms: 5
"""
    found = [(d.code, d.message) for d in compile_workflow(text, "w.lobster").diagnostics]
    assert found == [("W009", "`timeout_ms` on for_each sub-step s is ignored by the runtime (put it on the loop step loop)")]


def test_the_plan_shows_the_loops_policies(tmp_path: Path, capsys: Capture) -> None:
    path = write_file(tmp_path, "w.lobster", """steps:
  - id: loop
    for_each: '[1]'
    timeout_ms: 1000
    on_error: skip_rest
    retry: {max: 2, delay_ms: 5}
    steps:
      - id: s
        run: echo
""")
    assert main(["run", "--dry-run", "--file", str(path)]) == 0
    assert capsys.readouterr().err.endswith(
        "       1. s  [shell] run: echo\n     timeout: 1000ms\n     on_error: skip_rest\n"
        "     retry: up to 2 attempts, fixed backoff (base: 5ms)\n")
