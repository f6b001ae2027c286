"""The Postgres backend: runs halted on one machine resume from another with the same signed tokens."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from pg_server import pg_root, pg_url  # noqa: F401  (fixtures used by name)

from lobsterlang.cli import main
from lobsterlang.interpret.errors import UsageError
from lobsterlang.interpret.wiring import store_from_env
from lobsterlang.interpret.workflow.stores import backend_of

CLI = "import sys; from lobsterlang.cli import main; sys.exit(main(sys.argv[1:]))"

GATED = (
    "steps:\n"
    '  - id: before\n    run: echo before >> "$LEDGER"\n'
    "  - id: ok\n    approval: Ship it?\n"
    '  - id: ship\n    run: echo ship >> "$LEDGER"\n    when: $ok.approved\n'
)


@pytest.fixture
def machine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pg_url: str) -> Path:  # noqa: F811
    """A workflow file, a ledger of side effects, and a state directory the backend must leave empty."""
    monkeypatch.setenv("LOBSTER_BACKEND", pg_url)
    monkeypatch.setenv("LOBSTER_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("LEDGER", str(tmp_path / "ledger"))
    (tmp_path / "gated.lobster").write_text(GATED)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _cli(capsys: Any, *args: str) -> dict[str, Any]:
    main(list(args))
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


def _ledger(root: Path) -> list[str]:
    path = root / "ledger"
    return path.read_text().split() if path.exists() else []


def test_a_halted_run_lives_in_the_database_not_the_state_directory(machine: Path, capsys: Any) -> None:
    halted = _cli(capsys, "run", "--mode", "tool", "gated.lobster")
    assert halted["status"] == "needs_approval", halted
    assert not (machine / "state").exists()
    [log] = backend_of(store_from_env({"LOBSTER_BACKEND": _url()})).list_runs()
    assert log.halted is not None and log.halted["step"] == "ok" and "before" in log.results


def test_resume_by_token_and_by_approval_id_from_another_directory(machine: Path, capsys: Any,
                                                                  monkeypatch: pytest.MonkeyPatch,
                                                                  tmp_path_factory: pytest.TempPathFactory) -> None:
    halted = _cli(capsys, "run", "--mode", "tool", "gated.lobster")
    approval_id = halted["requiresApproval"]["approvalId"]
    monkeypatch.setenv("LOBSTER_STATE_DIR", str(tmp_path_factory.mktemp("other") / "state"))
    done = _cli(capsys, "resume", "--id", approval_id, "--approve", "yes")
    assert done["ok"] and done["status"] == "ok", done
    assert _ledger(machine) == ["before", "ship"]
    again = _cli(capsys, "resume", "--token", halted["requiresApproval"]["resumeToken"], "--approve", "yes")
    assert not again["ok"] and _ledger(machine) == ["before", "ship"]
    assert backend_of(store_from_env({"LOBSTER_BACKEND": _url()})).list_runs() == []


def test_an_uncertain_step_is_not_rerun_without_a_flag(machine: Path, capsys: Any) -> None:
    store = store_from_env({"LOBSTER_BACKEND": _url()})
    backend = backend_of(store)
    from lobsterlang.interpret.workflow.loader import load_workflow

    workflow, _ = load_workflow(str(machine / "gated.lobster"))
    journal = backend.journal("rdeadbeef0001")
    journal.start(str(machine / "gated.lobster"), {}, workflow, None, False)
    journal.step_started(0, workflow.steps[0])  # the worker dies here: `before` may or may not have run
    busy = _cli(capsys, "resume", "--run", "rdeadbeef0001")
    assert not busy["ok"] and "being run by another process" in busy["error"]["message"]
    # the worker's connection is gone: its hold on the run ends
    store.close()  # type: ignore[attr-defined]
    refused = _cli(capsys, "resume", "--run", "rdeadbeef0001")
    assert not refused["ok"] and "uncertain" in refused["error"]["message"] and _ledger(machine) == []
    halted = _cli(capsys, "resume", "--run", "rdeadbeef0001", "--skip-step")
    assert halted["status"] == "needs_approval" and _ledger(machine) == []


def test_an_unknown_backend_is_a_clear_error() -> None:
    with pytest.raises(UsageError, match="unknown backend"):
        store_from_env({"LOBSTER_BACKEND": "mysql://x"})


@pytest.mark.slow
def test_concurrent_resumes_of_one_approval_exactly_one_continues(machine: Path, capsys: Any) -> None:
    halted = _cli(capsys, "run", "--mode", "tool", "gated.lobster")
    token = halted["requiresApproval"]["resumeToken"]
    command = [sys.executable, "-c", CLI, "resume", "--token", token, "--approve", "yes"]
    procs = [subprocess.Popen(command, stdout=subprocess.PIPE, text=True) for _ in range(8)]  # 16 in bench/backend_bench.py
    envelopes = [json.loads(p.communicate(timeout=120)[0]) for p in procs]
    assert sum(e["ok"] for e in envelopes) == 1, envelopes
    assert _ledger(machine) == ["before", "ship"]


def _url() -> str:
    import os

    return os.environ["LOBSTER_BACKEND"]


@pytest.mark.parametrize("argv", [["run", "--mode", "tool", "gated.lobster"], ["resume", "--id", "abcd1234", "--approve", "yes"]])
def test_an_unreachable_database_is_a_clear_error_and_nothing_runs(argv: list[str], tmp_path: Path, capsys: Any,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("psycopg")
    monkeypatch.setenv("LOBSTER_BACKEND", f"postgresql://lobster:secret@/none?host={tmp_path}/no-server")
    monkeypatch.setenv("LEDGER", str(tmp_path / "ledger"))
    (tmp_path / "gated.lobster").write_text(GATED)
    monkeypatch.chdir(tmp_path)
    code = main(argv)
    envelope = json.loads(capsys.readouterr().out)
    assert code == 2 and envelope["error"]["message"].startswith("Cannot connect to the backend postgresql://lobster:***@")
    assert "secret" not in envelope["error"]["message"] and not (tmp_path / "ledger").exists()


def test_runs_shows_a_detached_run_no_worker_started_as_queued(machine: Path, capsys: Any) -> None:
    from lobsterlang.interpret.backend.postgres import PgStore
    from lobsterlang.interpret.workflow.journal import start_event
    from lobsterlang.interpret.workflow.loader import load_workflow

    workflow, _ = load_workflow(str(machine / "gated.lobster"))
    store = store_from_env({"LOBSTER_BACKEND": _url()})
    assert isinstance(store, PgStore)
    for run_id, detached in (("rqueued00001", True), ("rinline00001", False)):
        event = start_event(run_id, str(machine / "gated.lobster"), {}, workflow, None, False, detached=detached)
        store.backend.journal(run_id).append(event)
    store.close()
    main(["runs", "--json"])
    rows = {row["id"]: row for row in json.loads(capsys.readouterr().out)}
    assert rows["rqueued00001"]["queued"] and not rows["rinline00001"]["queued"]
    main(["runs"])
    table = capsys.readouterr().out
    assert "rqueued00001" in table and " queued " in table.split("rqueued00001")[1].splitlines()[0]
    assert "queued" not in table.split("rinline00001")[1].splitlines()[0]


HANGING = 'steps:\n  - id: hang\n    run: echo $$ > "$SLEEPER"; exec sleep 30\n'


def test_runs_shows_a_run_running_in_another_process_through_the_database(machine: Path, capsys: Any,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    import os
    import signal
    import socket
    import time

    monkeypatch.setenv("SLEEPER", str(machine / "sleeper"))
    (machine / "hang.lobster").write_text(HANGING)
    run = subprocess.Popen([sys.executable, "-c", CLI, "run", "--mode", "tool", "hang.lobster"], stdout=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while not (machine / "sleeper").exists() or not (machine / "sleeper").read_text().strip():
            assert time.monotonic() < deadline and run.poll() is None
            time.sleep(0.05)
        main(["runs", "--json"])  # this process holds no lock file: only the database knows
        [row] = json.loads(capsys.readouterr().out)
        assert row["running"] and row["pid"] == run.pid and row["host"] == socket.gethostname(), row
        main(["runs"])
        assert f"running (pid {run.pid} on {socket.gethostname()})" in capsys.readouterr().out
    finally:
        run.kill()
        run.wait()
        os.kill(int((machine / "sleeper").read_text()), signal.SIGKILL)
    deadline = time.monotonic() + 10  # Postgres ends the killed client's session (and its lock) once it sees the socket closed
    while True:
        main(["runs", "--json"])
        [row] = json.loads(capsys.readouterr().out)
        if not row["running"] or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert not row["running"] and row["uncertainStep"] == "hang", row


def test_a_run_that_cannot_be_queued_records_nothing(machine: Path, capsys: Any) -> None:
    """No worker ever created DBOS's tables: queueing fails, and neither the run nor a decision is left half-queued."""
    refused = _cli(capsys, "run", "--mode", "tool", "gated.lobster", "--detach")
    assert not refused["ok"] and refused["error"]["message"].startswith("Cannot queue the run"), refused
    main(["runs", "--json"])
    assert json.loads(capsys.readouterr().out) == []
    halted = _cli(capsys, "run", "--mode", "tool", "gated.lobster")
    approval_id = halted["requiresApproval"]["approvalId"]
    detached = _cli(capsys, "resume", "--id", approval_id, "--approve", "yes", "--detach")
    assert not detached["ok"] and "nothing was recorded: the gate still waits" in detached["error"]["message"], detached
    main(["runs", "--json"])
    [row] = json.loads(capsys.readouterr().out)
    assert row["waitingGate"] == "ok" and not row["queued"], row
    done = _cli(capsys, "resume", "--id", approval_id, "--approve", "yes")  # the same approval id still works
    assert done["ok"] and done["status"] == "ok" and _ledger(machine) == ["before", "ship"], done


BAD_URLS = [
    "postgresql://lobster:se%cret@/none?host={dir}",
    "postgresql://lobster:s@c/r%et@/none?host={dir}",
    "postgresql://lobster:secret@[::1:bad/db",
    "postgres://lobster:secret@[::1/none",
    "postgresql://lobster@/none?host={dir}&password=se%cret",
    "postgresql://lobster:%E2%82%ACsecret@/none?host={dir}",
]


@pytest.mark.parametrize("url", BAD_URLS)
@pytest.mark.parametrize("argv", [["run", "--mode", "tool", "gated.lobster"], ["runs", "--json"], ["worker"]])
def test_a_password_never_reaches_a_message(url: str, argv: list[str], tmp_path: Path, capsys: Any,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 29 item 8: an unencoded `%`, `@` or `/` in the password, a malformed host: a clear error, no password, no traceback."""
    pytest.importorskip("psycopg")
    monkeypatch.setenv("LOBSTER_BACKEND", url.format(dir=tmp_path / "no-server"))
    monkeypatch.setenv("LEDGER", str(tmp_path / "ledger"))
    (tmp_path / "gated.lobster").write_text(GATED)
    monkeypatch.chdir(tmp_path)
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 2 and "Cannot connect to the backend" in out + err, (out, err)
    for secret in ("secret", "cret", "r%et", "€"):
        assert secret not in out + err, (out, err)
    assert "Traceback" not in out + err and not (tmp_path / "ledger").exists()


def test_redaction_never_parses_the_url() -> None:
    from lobsterlang.interpret.backend.redact import password_problem, redacted, scrubbed

    assert redacted("postgresql://u:p%w@[::1:bad/db") == "postgresql://u:***@[::1:bad/db"
    assert redacted("postgresql://u:a@b/c@host/db?sslmode=x&password=z") == "postgresql://u:***@host/db?sslmode=x&password=***"
    assert redacted("postgresql://u@host/db") == "postgresql://u@host/db"
    assert scrubbed('bad token "p%41ss" or pAss', "postgresql://u:p%41ss@h/d") == 'bad token "***" or ***'
    assert password_problem("postgresql://u:p%41ss@h/d") is None and password_problem("postgresql://u:p@ss@h/d")


AWKWARD = """steps:
  - id: gen
    run: |
      printf '{"note": "%s"}' 'x\\udcffy \\u2028'
  - id: ok
    approval: Ship it?
  - id: ship
    stdin: $gen.json
    run: cat >> "$LEDGER"
"""


def test_a_halt_names_its_records_in_the_database_journal_and_keeps_awkward_text(machine: Path, capsys: Any) -> None:
    """The gate's state holds no step records (the events do, once); a lone surrogate from a step's JSON output is
    stored (Postgres text is UTF-8 only) and read back, so the digest the state names still matches."""
    (machine / "awkward.lobster").write_text(AWKWARD)
    halted = _cli(capsys, "run", "--mode", "tool", "awkward.lobster")
    assert halted["status"] == "needs_approval", halted
    store = store_from_env({"LOBSTER_BACKEND": _url()})
    [log] = backend_of(store).list_runs()
    assert log.results["gen"]["json"] == {"note": "x\udcffy \u2028"}
    state = store.read(log.halted["stateKey"]) if log.halted else None
    assert isinstance(state, dict) and "steps" not in state and state["lobsterlang"]["records"]["in"] == "journal"
    done = _cli(capsys, "resume", "--token", halted["requiresApproval"]["resumeToken"], "--approve", "yes")
    assert done["status"] == "ok", done
    assert "x\\udcffy" in (machine / "ledger").read_text()
