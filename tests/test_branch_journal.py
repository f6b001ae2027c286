"""`for_each` and `parallel` branches are journaled one by one: a run killed mid-step resumes without
re-running the branches whose records were written, and a branch in flight is uncertain like a step.

The runs are real `lobster run` processes killed with SIGKILL; side effects are counted in a ledger.
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
from lobsterlang.interpret.workflow.runlog import list_runs, runs_dir

CLI = "import sys; from lobsterlang.cli import main; sys.exit(main(sys.argv[1:]))"
HANG = '[ "$ITEM" = 3 ] && [ ! -e "$MARK" ] && { touch "$MARK"; echo $$ > "$SLEEPER"; exec sleep 30; }; true'
LOOP = f"""steps:
  - id: items
    run: echo '[0, 1, 2, 3, 4, 5]'
  - id: loop
    for_each: $items.json
    item_var: n
    steps:
      - id: effect
        run: ITEM=$n.stdout; echo "item $ITEM" >> "$LEDGER"; {HANG}
      - id: twice
        run: |
          echo '{{"value": $n.stdout}}'
"""
PARALLEL = """steps:
  - id: fan
    parallel:
      wait: all
      branches:
        - id: a
          run: echo a >> "$LEDGER"; echo '"a"'
        - id: b
          run: echo b >> "$LEDGER"; echo '"b"'
        - id: c
          run: echo c >> "$LEDGER"; [ -e "$MARK" ] || { touch "$MARK"; echo $$ > "$SLEEPER"; exec sleep 30; }; echo '"c"'
  - id: after
    run: echo after >> "$LEDGER"
"""


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "LOBSTER_STATE_DIR": str(tmp_path / "state"), "LEDGER": str(tmp_path / "ledger"),
            "MARK": str(tmp_path / "mark"), "SLEEPER": str(tmp_path / "sleeper")}


def lobster(env: dict[str, str], *args: str) -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-c", CLI, *args], env=env, capture_output=True, text=True, timeout=60)
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def ledger(env: dict[str, str]) -> Counter[str]:
    path = Path(env["LEDGER"])
    return Counter(path.read_text().splitlines()) if path.exists() else Counter()


def branches_done(env: dict[str, str]) -> set[str]:
    """The branches the one run's journal recorded."""
    [journal] = runs_dir(StateStore(Path(env["LOBSTER_STATE_DIR"]))).glob("*.jsonl")
    events = [json.loads(line) for line in journal.read_text().splitlines()]
    return {e["branch"] for e in events if e["event"] == "branch_done"}


def kill_when_hung(env: dict[str, str], path: Path, ready: Any = lambda: True) -> str:
    """Run `path`, SIGKILL it once a branch hangs and `ready()` (and the hanging shell); the interrupted run's id."""
    run = subprocess.Popen([sys.executable, "-c", CLI, "run", "--mode", "tool", str(path)], env=env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    sleeper = Path(env["SLEEPER"])
    deadline = time.monotonic() + 60
    while not sleeper.exists() or not sleeper.read_text().strip() or not ready():
        assert time.monotonic() < deadline and run.poll() is None, "the branch never hung"
        time.sleep(0.05)
    run.kill()
    run.wait()
    os.kill(int(sleeper.read_text()), signal.SIGKILL)
    [log] = list_runs(StateStore(Path(env["LOBSTER_STATE_DIR"])))
    return log.run_id


def test_a_killed_for_each_reruns_only_the_item_in_flight(tmp_path: Path, env: dict[str, str]) -> None:
    (tmp_path / "loop.lobster").write_text(LOOP)
    run_id = kill_when_hung(env, tmp_path / "loop.lobster")
    assert ledger(env) == Counter(f"item {n}" for n in range(4))
    refused = lobster(env, "resume", "--run", run_id)
    assert not refused["ok"] and "branch 3/effect of step loop" in refused["error"]["message"], refused
    assert "6 recorded branch(es) do not run again" in refused["error"]["message"]  # 0..2, effect and twice
    runs = subprocess.run([sys.executable, "-c", CLI, "runs", "--json"], env=env, capture_output=True, text=True)
    [row] = json.loads(runs.stdout)
    assert row["uncertainStep"] == "loop" and row["uncertainBranches"] == ["3/effect"]
    done = lobster(env, "resume", "--run", run_id, "--retry-step")
    assert done["ok"] and done["status"] == "ok", done
    assert [it["twice"] for it in done["output"]] == [{"value": n} for n in range(6)]
    assert ledger(env) == Counter({**{f"item {n}": 1 for n in range(6)}, "item 3": 2})  # only the one in flight twice


def test_a_step_killed_between_branches_continues_without_a_flag(tmp_path: Path, env: dict[str, str]) -> None:
    (tmp_path / "loop.lobster").write_text(LOOP)
    run_id = kill_when_hung(env, tmp_path / "loop.lobster")
    journal = runs_dir(StateStore(Path(env["LOBSTER_STATE_DIR"]))) / f"{run_id}.jsonl"
    lines = journal.read_text().splitlines()
    assert json.loads(lines[-1])["event"] == "branch_started"
    journal.write_text("\n".join(lines[:-1]) + "\n")  # as if killed after item 2 was recorded, before item 3 began
    done = lobster(env, "resume", "--run", run_id)
    assert done["ok"] and len(done["output"]) == 6, done
    assert ledger(env) == Counter({**{f"item {n}": 1 for n in range(6)}, "item 3": 2})


def test_a_killed_parallel_reruns_only_the_unrecorded_branch(tmp_path: Path, env: dict[str, str]) -> None:
    (tmp_path / "fan.lobster").write_text(PARALLEL)
    run_id = kill_when_hung(env, tmp_path / "fan.lobster", lambda: branches_done(env) == {"a", "b"})
    refused = lobster(env, "resume", "--run", run_id)
    assert not refused["ok"] and "branch c of step fan" in refused["error"]["message"], refused
    done = lobster(env, "resume", "--run", run_id, "--retry-step")
    assert done["ok"], done
    assert ledger(env) == Counter({"a": 1, "b": 1, "c": 2, "after": 1})


SPEND = """cost_limit: {max_usd: 1, action: stop}
steps:
  - id: first
    run: |
      echo '{"model": "gpt-4o", "usage": {"inputTokens": 240000, "outputTokens": 0}}'
  - id: second
    run: |
      [ -e "$MARK" ] || { touch "$MARK"; echo $$ > "$SLEEPER"; exec sleep 30; }
      echo '{"model": "gpt-4o", "usage": {"inputTokens": 240000, "outputTokens": 0}}'
"""


def test_a_resumed_run_keeps_the_spend_recorded_before_the_crash(tmp_path: Path, env: dict[str, str]) -> None:
    (tmp_path / "spend.lobster").write_text(SPEND)
    run_id = kill_when_hung(env, tmp_path / "spend.lobster")  # first spent $0.60
    done = lobster(env, "resume", "--run", run_id, "--retry-step")  # second spends $0.60 more: over the $1 cap
    assert not done["ok"] and "Cost limit exceeded: $1.2000 > $1.00 limit" in done["error"]["message"], done


RETRIED = """steps:
  - id: flaky
    retry: {max: 3, delay_ms: 0}
    run: |
      echo "flaky $LOBSTER_IDEMPOTENCY_KEY" >> "$LEDGER"
      n=$(wc -l < "$LEDGER")
      [ "$n" -ge 3 ] || { echo $$ > "$SLEEPER"; exec sleep 30; }
  - id: after
    run: echo after >> "$LEDGER"
"""


def test_a_step_with_a_retry_policy_is_run_again_after_a_crash_until_its_attempts_are_spent(
        tmp_path: Path, env: dict[str, str]) -> None:
    (tmp_path / "retried.lobster").write_text(RETRIED)
    run_id = kill_when_hung(env, tmp_path / "retried.lobster")  # attempt 1 of 3 killed
    Path(env["SLEEPER"]).unlink()
    resumed = subprocess.Popen([sys.executable, "-c", CLI, "resume", "--run", run_id], env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    sleeper = Path(env["SLEEPER"])
    deadline = time.monotonic() + 60
    while not sleeper.exists() or not sleeper.read_text().strip():  # attempt 2 runs without a flag, and hangs
        assert time.monotonic() < deadline and resumed.poll() is None, resumed.communicate()
        time.sleep(0.05)
    resumed.kill()
    assert "note: step flaky was interrupted in attempt 1 of 3; its retry policy runs it again" in resumed.communicate()[1]
    os.kill(int(sleeper.read_text()), signal.SIGKILL)
    done = lobster(env, "resume", "--run", run_id)  # attempt 3: the ledger has 3 lines now, it succeeds
    assert done["ok"], done
    [key] = {line.split()[1] for line in Path(env["LEDGER"]).read_text().splitlines() if line.startswith("flaky")}
    assert ledger(env) == Counter({f"flaky {key}": 3, "after": 1})  # one idempotency key for all three attempts


def test_an_interrupted_step_whose_retry_attempts_are_spent_needs_a_flag(tmp_path: Path, env: dict[str, str]) -> None:
    (tmp_path / "once.lobster").write_text(RETRIED.replace("max: 3", "max: 1"))
    run_id = kill_when_hung(env, tmp_path / "once.lobster")
    refused = lobster(env, "resume", "--run", run_id)
    assert not refused["ok"] and "its retry policy's 1 attempts were all started" in refused["error"]["message"]
    assert ledger(env)["after"] == 0


def test_a_parallel_step_with_a_retry_policy_reruns_only_its_unrecorded_branch_without_a_flag(
        tmp_path: Path, env: dict[str, str]) -> None:
    retried = PARALLEL.replace("    parallel:\n", "    retry: {max: 2, delay_ms: 0}\n    parallel:\n")
    (tmp_path / "fan.lobster").write_text(retried)
    run_id = kill_when_hung(env, tmp_path / "fan.lobster", lambda: branches_done(env) == {"a", "b"})
    done = lobster(env, "resume", "--run", run_id)
    assert done["ok"], done
    assert ledger(env) == Counter({"a": 1, "b": 1, "c": 2, "after": 1})


@pytest.mark.skipif(not hasattr(os, "fdatasync") or not os.path.isdir("/proc/self/fd"), reason="needs fdatasync and /proc")
def test_each_step_costs_one_sync_of_the_journal_made_before_its_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The previous step's `done` and this step's `started` reach the disk in one `fdatasync` (issue 33), before
    the command runs: what each sync covered is read back from the file at that moment."""
    from lobsterlang.cli import main

    synced: list[list[str]] = []
    real_sync = os.fdatasync

    def record(fd: int) -> None:
        path = Path(os.readlink(f"/proc/self/fd/{fd}"))
        real_sync(fd)
        if path.suffix == ".jsonl":
            synced.append([json.loads(line)["event"] for line in path.read_text().splitlines()])

    monkeypatch.setattr(os, "fdatasync", record)
    monkeypatch.setenv("LOBSTER_STATE_DIR", str(tmp_path / "state"))
    path = tmp_path / "three.lobster"
    path.write_text("steps:\n" + "".join(f"  - id: s{i}\n    run: \"true\"\n" for i in range(3)), encoding="utf-8")
    assert main(["run", "--mode", "tool", "--file", str(path)]) == 0, capsys.readouterr()
    assert synced == [
        ["start"],
        ["start", "started"],
        ["start", "started", "done", "started"],
        ["start", "started", "done", "started", "done", "started"],
    ]


SENDING = """steps:
  - id: items
    run: echo '[0, 1]'
  - id: loop
    for_each: $items.json
    item_var: n
    retry: {max: 2, delay_ms: 0}
    steps:
      - id: wait
        run: |
          [ "$n.stdout" = 1 ] && [ ! -e "$MARK" ] && { touch "$MARK"; echo $$ > "$SLEEPER"; exec sleep 30; }
          printf '{"to": "a@example.com"}'
      - id: send
        stdin: $wait.json
        pipeline: gog.gmail.send
"""
GOG = """#!/bin/sh
echo send >> "$LEDGER"
echo '{"sent": true}'
"""


def test_a_recorded_items_call_does_not_stop_the_retry_of_the_item_in_flight(tmp_path: Path, env: dict[str, str]) -> None:
    """Item 0 sent its mail and was recorded; item 1 was killed before sending anything. Its `retry:` runs it again
    after the crash without a flag: the journal names the branch of each call, and item 0's call is settled."""
    env = with_gog(tmp_path, env)
    (tmp_path / "send.lobster").write_text(SENDING)
    run_id = kill_when_hung(env, tmp_path / "send.lobster")
    assert ledger(env) == Counter({"send": 1})
    assert journaled_call(env)["branch"] == "0/send"
    envelope, err = resume_by_run(env, run_id)
    assert envelope["ok"] and [it["send"] for it in envelope["output"]] == [{"sent": True}] * 2, envelope
    assert "its retry policy runs it again" in err
    assert ledger(env) == Counter({"send": 2})  # once per item


def with_gog(tmp_path: Path, env: dict[str, str]) -> dict[str, str]:
    """`env` with a stand-in `gog` that writes `send` to the ledger and reports the mail sent."""
    gog = tmp_path / "gog"
    gog.write_text(GOG)
    gog.chmod(0o755)
    return {**env, "GOG_BIN": str(gog)}


def journaled_call(env: dict[str, str]) -> dict[str, Any]:
    """The one `dispatched` event of the one run's journal."""
    [journal] = runs_dir(StateStore(Path(env["LOBSTER_STATE_DIR"]))).glob("*.jsonl")
    [call] = [json.loads(line) for line in journal.read_text().splitlines() if '"dispatched"' in line]
    return call  # type: ignore[no-any-return]


def resume_by_run(env: dict[str, str], run_id: str) -> tuple[dict[str, Any], str]:
    """`lobster resume --run RUN_ID` without a flag: its envelope and its stderr."""
    done = subprocess.run([sys.executable, "-c", CLI, "resume", "--run", run_id], env=env, capture_output=True, text=True,
                          timeout=60)
    return json.loads(done.stdout), done.stderr


CHILD = """steps:
  - id: draft
    run: |
      printf '{"to": "a@example.com"}'
  - id: send
    stdin: $draft.json
    pipeline: gog.gmail.send
  - id: wait
    run: |
      [ -e "$MARK" ] || { touch "$MARK"; echo $$ > "$SLEEPER"; exec sleep 30; }
      echo waited
"""
CALLER = """steps:
  - id: notify
    workflow: child.lobster
    retry: {max: 2, delay_ms: 0}
"""


def test_a_recorded_sub_workflow_steps_call_does_not_stop_the_retry_of_the_calling_step(
    tmp_path: Path, env: dict[str, str],
) -> None:
    """The same inside a sub-workflow: its `send` step's call is journaled as branch `send` of the calling step."""
    env = with_gog(tmp_path, env)
    (tmp_path / "child.lobster").write_text(CHILD)
    (tmp_path / "caller.lobster").write_text(CALLER)
    run_id = kill_when_hung(env, tmp_path / "caller.lobster")
    assert journaled_call(env)["branch"] == "send"
    envelope, err = resume_by_run(env, run_id)
    assert envelope["ok"] and envelope["status"] == "ok", (envelope, err)
    assert ledger(env) == Counter({"send": 1})
