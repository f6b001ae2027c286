"""Side effects and retries: LOBSTER_IDEMPOTENCY_KEY per step, and a timed-out step left uncertain in the journal."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from lobsterlang.cli import main
from lobsterlang.interpret.state import StateStore
from lobsterlang.interpret.workflow import attempt, engine
from lobsterlang.interpret.workflow.attempt import TIMEOUT_REASON, AttemptCancellation
from lobsterlang.interpret.workflow.idempotency import idempotency_key
from lobsterlang.interpret.workflow.runlog import list_runs

RETRIED = """\
steps:
  - id: send
    timeout_ms: 300
    retry: {max: 3, delay_ms: 1}
    run: echo "$LOBSTER_IDEMPOTENCY_KEY" >> keys; test -f done || sleep 5
  - id: after
    run: echo "$LOBSTER_IDEMPOTENCY_KEY" >> after-keys
"""


@pytest.fixture
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> StateStore:
    monkeypatch.setenv("LOBSTER_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.chdir(tmp_path)
    return StateStore(tmp_path / "state")


def times_out_once_the_key_is_written(folder: Path) -> Any:
    """Stands in for the step's 300 ms timer: an attempt times out once its shell has written its key and hangs (an
    event, so a loaded machine that starts the shell late changes nothing); once `done` exists, none times out.
    Steps without a timeout keep the real one (none)."""
    keys = folder / "keys"

    @contextmanager
    def deadline(cancel: AttemptCancellation, timeout_ms: int | None) -> Iterator[None]:
        if timeout_ms is None:
            with attempt.deadline(cancel, timeout_ms):
                yield
            return
        assert timeout_ms == 300
        written, ended = _count(keys), threading.Event()

        def expire_once_written() -> None:
            while not ended.wait(0.01):
                if _count(keys) > written and not (folder / "done").exists():
                    cancel.cancel(TIMEOUT_REASON)
                    return

        watcher = threading.Thread(target=expire_once_written, daemon=True)
        watcher.start()
        try:
            yield
        finally:
            ended.set()
            watcher.join()

    return deadline


def _count(keys: Path) -> int:
    return len(keys.read_text().split()) if keys.exists() else 0


def run(capsys: Any, *args: str) -> tuple[int, dict[str, Any]]:
    code = main(list(args) if args[0] == "resume" else ["run", "--mode", "tool", *args])
    return code, json.loads(capsys.readouterr().out)


def test_retries_and_resume_share_one_key_and_the_timeout_is_uncertain(
    tmp_path: Path, state: StateStore, capsys: Any, monkeypatch: pytest.MonkeyPatch,
) -> None:
    (tmp_path / "wf.lobster").write_text(RETRIED, encoding="utf-8")
    monkeypatch.setattr(engine, "deadline", times_out_once_the_key_is_written(tmp_path))
    code, envelope = run(capsys, "wf.lobster")
    assert code == 1 and envelope["error"]["message"] == "Step 'send' timed out after 300ms"
    keys = (tmp_path / "keys").read_text().split()
    assert len(keys) == 3 and len(set(keys)) == 1 and keys[0].startswith("lobster-")
    (log,) = list_runs(state)
    assert log.uncertain == (0, "send")
    assert keys[0] == idempotency_key(log.run_id, ("send",))
    (tmp_path / "done").touch()
    code, envelope = run(capsys, "resume", "--run", log.run_id, "--retry-step")
    assert code == 0 and envelope["ok"] is True, envelope
    assert (tmp_path / "keys").read_text().split() == [keys[0]] * 4
    after = (tmp_path / "after-keys").read_text().split()
    assert after == [idempotency_key(log.run_id, ("after",))] and after[0] != keys[0]
    assert list_runs(state) == []


def test_keys_differ_per_loop_item_and_branch_and_survive_an_approval(tmp_path: Path, state: StateStore, capsys: Any) -> None:
    (tmp_path / "wf.lobster").write_text(
        """\
steps:
  - id: list
    run: echo '[1, 2]'
  - id: loop
    for_each: $list.json
    steps:
      - id: each
        run: echo "$LOBSTER_IDEMPOTENCY_KEY" >> keys
  - id: fan
    parallel:
      branches:
        - id: a
          run: echo "$LOBSTER_IDEMPOTENCY_KEY" >> keys
        - id: b
          run: echo "$LOBSTER_IDEMPOTENCY_KEY" >> keys
  - id: gate
    approval: Go?
  - id: after
    run: echo "$LOBSTER_IDEMPOTENCY_KEY" >> keys
""",
        encoding="utf-8",
    )
    code, halted = run(capsys, "wf.lobster")
    assert code == 0 and halted["status"] == "needs_approval", halted
    (log,) = list_runs(state)
    code, done = run(capsys, "resume", "--token", halted["requiresApproval"]["resumeToken"], "--approve", "yes")
    assert code == 0 and done["ok"] is True, done
    keys = (tmp_path / "keys").read_text().split()
    paths: list[tuple[str | int, ...]] = [("loop", 0, "each"), ("loop", 1, "each"), ("fan", "a"), ("fan", "b"), ("after",)]
    expected = {idempotency_key(log.run_id, path) for path in paths}
    assert set(keys) == expected and len(keys) == 5
