"""Workflow runs match the reference: each case in tests/cases/workflow_runs runs its commands in order.

`expected` was recorded from the reference CLI (tools/record_workflow_runs.py); a case whose
`lobsterlang` key is set differs on purpose, and its `note` says why. A case with an `xfail` key
records reference behaviour that lobsterlang does not have yet; the key names the work item.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import llm_fake
import pytest
from helpers import CASES

from lobsterlang.cli import main
from tools.record_workflow_runs import fill_env, gate_of, normalise, substitute

RUNS = CASES / "workflow_runs"
BIN = os.path.dirname(sys.executable)
"""`{bin}`: where this environment installed `openclaw.invoke` and `clawd.invoke`."""
CASE_FILES = sorted(RUNS.glob("*.case.json"))


def _run(args: list[str], env: dict[str, str], monkeypatch: pytest.MonkeyPatch, capsys: Any) -> dict[str, Any]:
    with monkeypatch.context() as patch:
        for key, value in env.items():
            patch.setenv(key, value)
        code = main(args)
    out, err = capsys.readouterr()
    return {"exit": code, "stdout": normalise(out), "stderr": normalise(err), "raw": out}


@pytest.fixture(scope="module")
def adapter() -> Iterator[str]:
    """The stand-in LLM adapter and OpenClaw gateway that `{adapter}` in a case's env points at."""
    server = llm_fake.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()


def _param(path: Path) -> Any:
    """The case file, marked as an expected failure when its `xfail` names work still to do."""
    reason = json.loads(path.read_text(encoding="utf-8")).get("xfail")
    marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
    return pytest.param(path, marks=marks, id=path.name.removesuffix(".case.json"))


@pytest.mark.parametrize("path", [_param(p) for p in CASE_FILES])
def test_workflow_run(path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, adapter: str) -> None:
    case = json.loads(path.read_text(encoding="utf-8"))
    expected = case.get("lobsterlang") or case["expected"]
    monkeypatch.chdir(RUNS)
    monkeypatch.setenv("LOBSTER_STATE_DIR", str(tmp_path / "state"))
    last: dict[str, Any] = {}
    for index, command in enumerate(case["commands"]):
        args = [substitute(a, RUNS / case["file"], last) for a in command["args"]]
        env = fill_env(command.get("env", {}), str(tmp_path / "state"), adapter, BIN)
        got = _run(args, env, monkeypatch, capsys)
        last = gate_of(got.pop("raw")) or last
        assert got == expected[index], f"command {index}: {args}"
        assert json.dumps(got) == json.dumps(expected[index]), f"command {index}: key order differs"
    state = tmp_path / "state"
    leftovers = [p.name for p in state.rglob("*") if p.is_file()] if state.exists() else []
    assert not [n for n in leftovers if n.startswith("approval_") and not _live(state, n)], leftovers


def _live(state: Path, name: str) -> bool:
    """An approval index is live when the resume state it points at still exists."""
    data = json.loads((state / name).read_text(encoding="utf-8"))
    return any(p.name.startswith(data["stateKey"]) for p in state.iterdir())


def test_case_set_is_substantial() -> None:
    assert len(CASE_FILES) >= 50
    # against 2026.9.13: 40 names the failing step, 41 and 70 show what will really run, 46 names a missing cwd,
    # 47 and 48 keep caller text as data, a human-mode `ask` halts (76), a retried loop keeps its finished items
    # (80), a step not retried after a dispatch says so (81, 82), the plan notes the file's defaults (84), a wrong
    # answer to a pipeline gate names the CLI flags (103), a shell's dispatch is not repeated by `retry` (110), a
    # sub-workflow's gate halts the run (32, issue 34), an `approve` stage in a `pipeline:` step halts it (51, 120),
    # a branch's or a loop's approval halts it (121, 122) (NOTES.md, docs/compatibility.md)
    assert sum(1 for p in CASE_FILES if "lobsterlang" in json.loads(p.read_text(encoding="utf-8"))) <= 18
