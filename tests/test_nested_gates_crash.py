"""A run resumed at a nested gate and killed (SIGKILL) before it finished: `lobster resume --run ID` continues it
without asking the gate again and without re-running what finished; only a step in flight is uncertain.

The runs are real `lobster` processes; side effects are counted in a ledger.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from lobsterlang.interpret.state import StateStore
from lobsterlang.interpret.wiring import store_from_env
from lobsterlang.interpret.workflow.runlog import runs_dir
from lobsterlang.interpret.workflow.stores import backend_of

CLI = "import sys; from lobsterlang.cli import main; sys.exit(main(sys.argv[1:]))"
HANG = '[ -e "$MARK" ] || { touch "$MARK"; echo $$ > "$SLEEPER"; exec sleep 30; }'
LEAF = f"""steps:
  - id: plan
    run: |
      echo plan >> "$LEDGER"; echo '{{"plan": 1}}'
  - id: gate
    stdin: $plan.json
    approval: Deploy?
  - id: apply
    run: |
      echo apply >> "$LEDGER"; {HANG}; echo '"applied"'
  - id: verify
    run: |
      echo verify >> "$LEDGER"; echo '"verified"'
"""
MIDDLE = """steps:
  - id: prepare
    run: echo prepare >> "$LEDGER"
  - id: inner
    workflow: leaf.lobster
"""
DEPTH = """steps:
  - id: first
    run: echo first >> "$LEDGER"
  - id: deploy
    workflow: middle.lobster
  - id: after
    stdin: $deploy.json
    run: |
      echo "after $(cat)" >> "$LEDGER"; echo '"done"'
"""
LOOP = f"""steps:
  - id: items
    run: echo '[1, 2]'
  - id: loop
    for_each: $items.json
    steps:
      - id: prepare
        run: |
          echo "prepare $item.stdout" >> "$LEDGER"
      - id: confirm
        approval: Ship?
      - id: ship
        run: |
          echo "ship $item.stdout" >> "$LEDGER"; [ "$item.stdout" != 2 ] || {HANG}; echo '"shipped"'
  - id: after
    run: |
      echo after >> "$LEDGER"; echo '"done"'
"""
FAN = f"""steps:
  - id: fan
    parallel:
      branches:
        - id: eu
          run: |
            echo "plan eu" >> "$LEDGER"; echo '"eu"'
          approval: EU?
        - id: us
          run: |
            echo "plan us" >> "$LEDGER"; echo '"us"'
          approval: US?
  - id: after
    run: |
      echo after >> "$LEDGER"; {HANG}; echo '"done"'
"""
ASKING = """steps:
  - id: items
    run: echo '[1]'
  - id: loop
    for_each: $items.json
    steps:
      - id: q
        pipeline: exec --json --shell 'echo pre >> "$LEDGER"; echo "[1]"' | ask --prompt 'Ok?' | exec --json --stdin json --shell 'sh after.sh'
"""
AFTER_ASK = f"""echo "after $(cat)" >> "$LEDGER"; {HANG}; echo '"done"'
"""
CASES = {
    # file, the branch in flight when killed, what ran before the gate of the resumed run
    "depth": ("depth.lobster", "inner > apply", ["first", "prepare", "plan"]),
    "loop": ("loop.lobster", "1/ship", ["prepare 1", "ship 1", "prepare 2"]),
}


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    for name, text in (("leaf.lobster", LEAF), ("middle.lobster", MIDDLE), ("depth.lobster", DEPTH),
                       ("loop.lobster", LOOP), ("fan.lobster", FAN), ("asking.lobster", ASKING), ("after.sh", AFTER_ASK)):
        (tmp_path / name).write_text(text)
    return {**os.environ, "LOBSTER_STATE_DIR": str(tmp_path / "state"), "LEDGER": str(tmp_path / "ledger"),
            "MARK": str(tmp_path / "mark"), "SLEEPER": str(tmp_path / "sleeper")}


def lobster(env: dict[str, str], cwd: Path, *args: str) -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-c", CLI, *args], env=env, cwd=cwd, capture_output=True, text=True,
                          timeout=120)
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def ledger(env: dict[str, str]) -> Counter[str]:
    path = Path(env["LEDGER"])
    return Counter(path.read_text().splitlines()) if path.exists() else Counter()


def halt_at_last_gate(env: dict[str, str], cwd: Path, file: str) -> dict[str, Any]:
    """Run `file` and approve its gates until the one whose resume will hang (the loop: item 2's)."""
    envelope = lobster(env, cwd, "run", "--mode", "tool", file)
    while file == "loop.lobster" and envelope["requiresApproval"]["path"] != "loop[1] > confirm":
        envelope = lobster(env, cwd, "resume", "--token", envelope["requiresApproval"]["resumeToken"], "--approve", "yes")
    assert envelope["status"] == "needs_approval", envelope
    return envelope


def resume_and_kill(env: dict[str, str], cwd: Path, envelope: dict[str, Any], *answer: str) -> str:
    """Approve (or give `answer`), then SIGKILL the resume (and the hanging step) while the first step after the gate
    runs."""
    token = (envelope["requiresApproval"] or envelope["requiresInput"])["resumeToken"]
    run = subprocess.Popen([sys.executable, "-c", CLI, "resume", "--token", token, *(answer or ("--approve", "yes"))],
                           env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    sleeper = Path(env["SLEEPER"])
    deadline = time.monotonic() + 60
    while not sleeper.exists() or not sleeper.read_text().strip():
        assert time.monotonic() < deadline and run.poll() is None, "the step after the gate never ran"
        time.sleep(0.05)
    run.kill()
    run.wait()
    os.kill(int(sleeper.read_text()), signal.SIGKILL)
    store = store_from_env(env)  # the state directory, or the database of LOBSTER_BACKEND
    try:
        [log] = backend_of(store).list_runs()
    finally:
        getattr(store, "close", lambda: None)()
    return log.run_id


@pytest.mark.parametrize("case", sorted(CASES))
def test_killed_in_the_step_after_a_nested_gate_reruns_only_that_step(
        case: str, tmp_path: Path, env: dict[str, str]) -> None:
    file, in_flight, before = CASES[case]
    run_id = resume_and_kill(env, tmp_path, halt_at_last_gate(env, tmp_path, file))
    refused = lobster(env, tmp_path, "resume", "--run", run_id)
    assert not refused["ok"] and f"branch {in_flight} of step" in refused["error"]["message"], refused
    done = lobster(env, tmp_path, "resume", "--run", run_id, "--retry-step")
    assert done["ok"] and done["status"] == "ok", done  # the gate is not asked again
    rerun = "apply" if case == "depth" else "ship 2"
    tail = ["apply", "verify", "after verified"] if case == "depth" else ["ship 2", "after"]
    assert ledger(env) == Counter([*before, *tail, rerun])  # only the step in flight ran twice


@pytest.mark.parametrize("case", sorted(CASES))
def test_killed_between_the_approval_and_the_next_step_nothing_runs_twice(
        case: str, tmp_path: Path, env: dict[str, str]) -> None:
    file, _, before = CASES[case]
    run_id = resume_and_kill(env, tmp_path, halt_at_last_gate(env, tmp_path, file))
    journal = runs_dir(StateStore(Path(env["LOBSTER_STATE_DIR"]))) / f"{run_id}.jsonl"
    lines = journal.read_text().splitlines()
    resumed = max(i for i, line in enumerate(lines) if json.loads(line)["event"] == "resumed")
    assert json.loads(lines[resumed + 1])["event"] == "started"
    journal.write_text("\n".join(lines[:resumed + 2]) + "\n")  # as if killed once the approval was written
    ledger_path = Path(env["LEDGER"])
    ledger_path.write_text("\n".join(line for line in ledger_path.read_text().splitlines()
                                     if line not in ("apply", "ship 2")) + "\n")  # and the step had not begun
    Path(env["MARK"]).touch()
    done = lobster(env, tmp_path, "resume", "--run", run_id)
    assert done["ok"] and done["status"] == "ok", done
    tail = ["apply", "verify", "after verified"] if case == "depth" else ["ship 2", "after"]
    assert ledger(env) == Counter([*before, *tail])


def test_killed_after_the_last_of_several_parallel_gates_nothing_runs_twice(tmp_path: Path, env: dict[str, str]) -> None:
    halted = lobster(env, tmp_path, "run", "--mode", "tool", "fan.lobster")
    eu, us = halted["pendingGates"]
    waiting = lobster(env, tmp_path, "resume", "--token", eu["resumeToken"], "--approve", "yes")
    assert waiting["requiresApproval"] == us, waiting
    run_id = resume_and_kill(env, tmp_path, waiting)  # `after` hangs: killed in the step after the gates
    refused = lobster(env, tmp_path, "resume", "--run", run_id)
    assert not refused["ok"] and "step after was started but not recorded" in refused["error"]["message"], refused
    done = lobster(env, tmp_path, "resume", "--run", run_id, "--retry-step")
    assert done["ok"] and done["output"] == ["done"], done
    assert ledger(env) == Counter(["plan eu", "plan us", "after", "after"])  # only the step in flight twice


def test_killed_after_answering_an_ask_in_a_loop_the_answer_is_kept(tmp_path: Path, env: dict[str, str]) -> None:
    """The journal keeps the answer to an `ask` inside a step: after a crash the pipeline continues after its stage."""
    halted = lobster(env, tmp_path, "run", "--mode", "tool", "asking.lobster")
    assert halted["requiresInput"]["path"] == "loop[0] > q", halted
    run_id = resume_and_kill(env, tmp_path, halted, "--response-json", '{"decision": "approve"}')  # killed after it
    done = lobster(env, tmp_path, "resume", "--run", run_id, "--retry-step")
    assert done["ok"] and done["status"] == "ok", done  # not asked again
    assert done["output"] == [{"item": 1, "index": 0, "q": "done"}], done
    after = 'after [{"decision":"approve"}]'  # the answer, the one item after the ask
    assert ledger(env) == Counter(["pre", after, after])  # only what ran after the ask twice: `pre` once
