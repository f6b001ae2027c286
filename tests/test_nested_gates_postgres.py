"""Gates anywhere on the Postgres backend: a nested gate's run lives in the database, resumes from another machine,
has exactly one winner among concurrent resumes, survives a kill -9 after its approval, and a detached run's
nested gate continues on a worker. The shapes are those of test_nested_gates.py."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from pg_server import pg_root, pg_url  # noqa: F401  (fixtures used by name)
from test_backend_workers import live_worker, lobster, unfinished, wait_for, worker_env
from test_nested_gates import DEPTH_TWO, FAN, LEAF, LOOP, MIDDLE
from test_nested_gates_crash import resume_and_kill

CLI = "import sys; from lobsterlang.cli import main; sys.exit(main(sys.argv[1:]))"
BEFORE_GATE = ["first", "prepare", "plan prod"]
ALL = [*BEFORE_GATE, "apply prod", "report", "after"]


@pytest.fixture
def env(tmp_path: Path, pg_url: str) -> dict[str, str]:  # noqa: F811
    for name, text in (("leaf.lobster", LEAF), ("middle.lobster", MIDDLE), ("depth.lobster", DEPTH_TWO),
                       ("loop.lobster", LOOP), ("fan.lobster", FAN)):
        (tmp_path / name).write_text(text)
    return worker_env(tmp_path, pg_url)


def tool(env: dict[str, str], *args: str) -> dict[str, Any]:
    done = lobster(env, *args, timeout=120)
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def ledger(tmp_path: Path) -> Counter[str]:
    path = tmp_path / "ledger"
    return Counter(path.read_text().splitlines()) if path.exists() else Counter()


def test_a_nested_gate_lives_in_the_database_and_resumes_from_elsewhere(tmp_path: Path, env: dict[str, str]) -> None:
    halted = tool(env, "run", "--mode", "tool", str(tmp_path / "depth.lobster"))
    assert halted["requiresApproval"]["path"] == "deploy > inner > prod_gate", halted
    assert not (tmp_path / "state").exists()
    [row] = unfinished(env)
    assert row["waitingGate"] == "deploy > inner > prod_gate", row
    elsewhere = {**env, "LOBSTER_STATE_DIR": str(tmp_path / "other")}
    done = tool(elsewhere, "resume", "--id", halted["requiresApproval"]["approvalId"], "--approve", "yes")
    assert done["ok"] and done["output"] == ["applied prod"], done
    assert ledger(tmp_path) == Counter(ALL) and unfinished(env) == []
    again = tool(env, "resume", "--token", halted["requiresApproval"]["resumeToken"], "--approve", "yes")
    assert not again["ok"] and ledger(tmp_path) == Counter(ALL)


def test_a_loop_asks_per_item_and_a_rejection_cancels(tmp_path: Path, env: dict[str, str]) -> None:
    envelope = tool(env, "run", "--mode", "tool", str(tmp_path / "loop.lobster"))
    assert envelope["requiresApproval"]["path"] == "loop[0] > confirm"
    envelope = tool(env, "resume", "--token", envelope["requiresApproval"]["resumeToken"], "--approve", "yes")
    assert envelope["requiresApproval"]["path"] == "loop[1] > confirm"
    cancelled = tool(env, "resume", "--token", envelope["requiresApproval"]["resumeToken"], "--approve", "no")
    assert cancelled["status"] == "cancelled" and unfinished(env) == []
    assert ledger(tmp_path) == Counter(["prepare 1", "ship 1", "prepare 2"])


def test_parallel_gates_pending_together_are_answered_one_by_one(tmp_path: Path, env: dict[str, str]) -> None:
    halted = tool(env, "run", "--mode", "tool", str(tmp_path / "fan.lobster"))
    eu, us = halted["pendingGates"]
    [row] = unfinished(env)
    assert row["waitingGate"] == "fan > eu", row
    waiting = tool(env, "resume", "--id", eu["approvalId"], "--approve", "yes")
    assert waiting["requiresApproval"] == us and not (tmp_path / "state").exists(), waiting  # kept in the database
    [row] = unfinished(env)
    assert row["waitingGate"] == "fan > us", row
    done = tool(env, "resume", "--token", us["resumeToken"], "--approve", "yes")
    assert done["status"] == "ok", done
    assert ledger(tmp_path) == Counter(["plain", "plan eu", "plan us", "after"]) and unfinished(env) == []


@pytest.mark.slow
def test_concurrent_resumes_of_a_nested_gate_exactly_one_continues(tmp_path: Path, env: dict[str, str]) -> None:
    halted = tool(env, "run", "--mode", "tool", str(tmp_path / "depth.lobster"))
    command = [sys.executable, "-c", CLI, "resume", "--token", halted["requiresApproval"]["resumeToken"], "--approve", "yes"]
    procs = [subprocess.Popen(command, env=env, stdout=subprocess.PIPE, text=True) for _ in range(4)]
    envelopes = [json.loads(p.communicate(timeout=120)[0]) for p in procs]
    assert sum(e["ok"] for e in envelopes) == 1, envelopes
    assert ledger(tmp_path) == Counter(ALL)


@pytest.mark.slow
def test_killed_after_a_nested_approval_only_the_step_in_flight_reruns(tmp_path: Path, env: dict[str, str]) -> None:
    from test_nested_gates_crash import DEPTH as CRASH_DEPTH
    from test_nested_gates_crash import LEAF as CRASH_LEAF
    from test_nested_gates_crash import MIDDLE as CRASH_MIDDLE

    for name, text in (("leaf.lobster", CRASH_LEAF), ("middle.lobster", CRASH_MIDDLE), ("depth.lobster", CRASH_DEPTH)):
        (tmp_path / name).write_text(text)
    halted = json.loads(subprocess.run([sys.executable, "-c", CLI, "run", "--mode", "tool", "depth.lobster"], env=env,
                                       cwd=tmp_path, capture_output=True, text=True, timeout=120).stdout)
    run_id = resume_and_kill(env, tmp_path, halted)
    refused = tool(env, "resume", "--run", run_id)
    assert not refused["ok"] and "branch inner > apply of step deploy" in refused["error"]["message"], refused
    done = tool(env, "resume", "--run", run_id, "--retry-step")
    assert done["ok"] and done["status"] == "ok", done
    assert ledger(tmp_path) == Counter(["first", "prepare", "plan", "apply", "apply", "verify", "after verified"])


@pytest.mark.slow
def test_a_detached_runs_nested_gate_continues_on_a_worker(tmp_path: Path, env: dict[str, str]) -> None:
    worker = live_worker(env, tmp_path / "w1.log", 1)
    try:
        queued = tool(env, "run", "--mode", "tool", str(tmp_path / "depth.lobster"), "--detach")
        wait_for(lambda: any(r["id"] == queued["runId"] and r["waitingGate"] for r in unfinished(env)), 60, "the gate")
        [row] = unfinished(env)
        assert row["waitingGate"] == "deploy > inner > prod_gate", row
        answered = tool(env, "resume", "--run", queued["runId"], "--approve", "yes")
        assert answered["ok"] and answered["status"] == "queued", answered
        wait_for(lambda: not unfinished(env), 60, "a worker to finish the run")
    finally:
        worker.send_signal(signal.SIGTERM)
        worker.wait(timeout=60)
    assert ledger(tmp_path) == Counter(ALL)
    final = tool(env, "resume", "--run", queued["runId"])
    assert final["ok"] and final["output"] == ["applied prod"], final


def test_an_approve_stage_halts_in_the_database_and_continues_after_the_stage(tmp_path: Path, env: dict[str, str]) -> None:
    """A `pipeline:` step's `approve` stage (test_pipeline_approval_gate.py) on Postgres: top level and in a loop."""
    from test_pipeline_approval_gate import APPROVES
    from test_pipeline_approval_gate import LOOP as APPROVE_LOOP

    (tmp_path / "approves.lobster").write_text(APPROVES)
    (tmp_path / "approve-loop.lobster").write_text(APPROVE_LOOP)
    halted = tool(env, "run", "--mode", "tool", str(tmp_path / "approves.lobster"))
    assert halted["requiresApproval"]["items"] == [{"id": 7}, {"id": 8}] and not (tmp_path / "state").exists(), halted
    elsewhere = {**env, "LOBSTER_STATE_DIR": str(tmp_path / "other")}
    done = tool(elsewhere, "resume", "--id", halted["requiresApproval"]["approvalId"], "--approve", "yes")
    assert done["ok"] and done["output"] == ["gone"], done
    assert ledger(tmp_path) == Counter(["first", "listed", 'deleted [{"id":7},{"id":8}]']) and unfinished(env) == []
    first = tool(env, "run", "--mode", "tool", str(tmp_path / "approve-loop.lobster"))
    assert first["requiresApproval"]["path"] == "loop[0] > ship", first
    second = tool(env, "resume", "--token", first["requiresApproval"]["resumeToken"], "--approve", "yes")
    assert second["requiresApproval"]["path"] == "loop[1] > ship", second
    cancelled = tool(env, "resume", "--token", second["requiresApproval"]["resumeToken"], "--approve", "no")
    assert cancelled["status"] == "cancelled" and unfinished(env) == []
    assert ledger(tmp_path)["plan 1"] == 1 and ledger(tmp_path)["plan 2"] == 1
