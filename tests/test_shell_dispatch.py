"""No automatic retry after a dispatch from a shell: a `run:` step whose shell ran an installed `openclaw.invoke` or
`clawd.invoke` (or `lobster '<pipeline>'`) that sent its call is treated as the pipeline case is: not retried, and
journaled before the call goes out, so a resume after a kill does not run it again either."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import gateway_fake
import pytest
from helpers import write_file

from lobsterlang.cli import main
from lobsterlang.cli.invoke_programs import run_program
from lobsterlang.interpret.dispatchlink import ENV_NAME, TOKEN_NAME, report_dispatch
from lobsterlang.interpret.errors import CommandError
from lobsterlang.interpret.workflow.dispatchlisten import DispatchListener

Capture = pytest.CaptureFixture[str]
BIN = Path(sys.executable).parent
"""Where this environment installed `lobster`, `openclaw.invoke` and `clawd.invoke` (a login shell resets PATH)."""
KILL_ONCE = '[ -e "$LOBSTER_STATE_DIR-killed" ] || { touch "$LOBSTER_STATE_DIR-killed"; kill -KILL $PPID; }'
"""Kill the engine that runs this shell (the first time only: a resume that ran the step again must not)."""
SEND = "--url {url} --tool message --action echo --args-json '{{\"to\":\"ops\"}}'"


@pytest.fixture
def gateway(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """The stand-in gateway (its `calls`), a state directory of the test's own, and BIN for the workflow files."""
    for name in ("OPENCLAW_URL", "CLAWD_URL", "OPENCLAW_TOKEN", "CLAWD_TOKEN", ENV_NAME, TOKEN_NAME):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LOBSTER_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("BIN", str(BIN))
    server = gateway_fake.start()
    server.url = f"http://127.0.0.1:{server.server_port}"  # type: ignore[attr-defined]
    yield server
    server.shutdown()


def _run(path: Path, capsys: Capture) -> tuple[int, dict[str, Any], str]:
    code = main(["run", "--mode", "tool", "--file", str(path)])
    out, err = capsys.readouterr()
    return code, json.loads(out), err


def _workflow(tmp_path: Path, command: str, then: str = "exit 1") -> Path:
    return write_file(tmp_path, "w.lobster", f"""steps:
  - id: post
    run: |
      {command}
      {then}
    retry: {{max: 3, delay_ms: 1}}
""")


@pytest.mark.parametrize("command", [
    f'"$BIN/openclaw.invoke" {SEND} > /dev/null',
    f'"$BIN/clawd.invoke" {SEND} 2>&1 | cat > /dev/null',
    '( "$BIN/lobster" "openclaw.invoke --url {url} --tool message --action echo" & wait ) > /dev/null 2>&1',
], ids=["openclaw.invoke", "clawd.invoke-piped", "lobster-pipeline-in-background-subshell"])
def test_a_run_step_whose_shell_called_the_gateway_is_not_retried(command: str, gateway: Any, tmp_path: Path,
                                                                   capsys: Capture) -> None:
    path = _workflow(tmp_path, command.format(url=gateway.url), "echo 'then it failed' >&2; exit 1")
    code, envelope, err = _run(path, capsys)
    assert code == 1 and len(gateway.calls) == 1 and "[RETRY]" not in err
    message = envelope["error"]["message"]
    name = "clawd.invoke" if "clawd" in command else "openclaw.invoke"
    assert message.startswith("workflow command failed (1): then it failed (step post was not retried: it had called "
                              f"{name}, which may have taken effect; `lobster resume --run r")
    assert main(["runs", "--json"]) == 0
    [row] = json.loads(capsys.readouterr().out)
    assert row["notRetried"] == {"step": "post", "calls": [name]}


def test_a_pipeline_step_whose_exec_ran_the_program_is_not_retried(gateway: Any, tmp_path: Path, capsys: Capture) -> None:
    path = write_file(tmp_path, "w.lobster", f"""steps:
  - id: post
    pipeline: exec --shell '"$BIN/openclaw.invoke" --url {gateway.url} --tool message --action echo; exit 4'
    retry: {{max: 3, delay_ms: 1}}
""")
    code, envelope, err = _run(path, capsys)
    assert code == 1 and len(gateway.calls) == 1 and "[RETRY]" not in err
    assert "(step post was not retried: it had called openclaw.invoke, which may have taken effect;" in envelope["error"]["message"]


def test_a_workflow_run_by_a_step_s_shell_reports_its_calls_to_that_step(gateway: Any, tmp_path: Path,
                                                                         capsys: Capture) -> None:
    """`run: lobster run --file child.lobster`: the child's own step sends and fails; the outer step is not retried."""
    child = write_file(tmp_path, "child.lobster", f"""steps:
  - id: inner
    pipeline: openclaw.invoke {SEND.format(url=gateway.url)} | exec --shell 'exit 7'
""")
    path = _workflow(tmp_path, f'"$BIN/lobster" run --mode tool --file {child} > /dev/null')
    code, envelope, err = _run(path, capsys)
    assert code == 1 and len(gateway.calls) == 1 and "[RETRY]" not in err
    assert "(step post was not retried: it had called openclaw.invoke, which may have taken effect;" in envelope["error"]["message"]


def test_a_program_that_outlives_its_step_sends_nothing(gateway: Any, tmp_path: Path, capsys: Capture) -> None:
    """A background job of step `start` calls only once step `later` runs (two FIFOs order them, no sleeps): the
    attempt it belonged to is over, nobody answers for it, and it sends nothing."""
    path = write_file(tmp_path, "w.lobster", f"""steps:
  - id: start
    run: |
      mkfifo "$LOBSTER_STATE_DIR-go" "$LOBSTER_STATE_DIR-done"
      ( read go < "$LOBSTER_STATE_DIR-go"
        "$BIN/openclaw.invoke" {SEND.format(url=gateway.url)} 2> "$LOBSTER_STATE_DIR-err"
        echo "exit $?" > "$LOBSTER_STATE_DIR-done" ) > /dev/null 2>&1 &
  - id: later
    run: echo go > "$LOBSTER_STATE_DIR-go"; cat "$LOBSTER_STATE_DIR-done"
""")
    code, envelope, _ = _run(path, capsys)
    assert code == 0 and envelope["output"] == ["exit 1\n"] and gateway.calls == []
    error = (tmp_path / "state-err").read_text(encoding="utf-8")
    assert "could not report its call to the workflow step that runs it" in error


def test_a_run_step_that_failed_before_its_call_went_out_is_retried(gateway: Any, tmp_path: Path,
                                                                   capsys: Capture) -> None:
    path = _workflow(tmp_path, f'"$BIN/openclaw.invoke" --url {gateway.url} --action send || exit 3')
    code, envelope, err = _run(path, capsys)
    assert code == 1 and err.count("[RETRY]") == 2 and gateway.calls == []
    assert envelope["error"]["message"] == "workflow command failed (3): Error: openclaw.invoke requires --tool and --action"


def test_a_run_step_that_succeeds_after_its_call_records_its_output(gateway: Any, tmp_path: Path, capsys: Capture) -> None:
    path = _workflow(tmp_path, f'"$BIN/openclaw.invoke" {SEND.format(url=gateway.url)}', "true")
    code, envelope, _ = _run(path, capsys)
    assert code == 0 and len(gateway.calls) == 1
    assert envelope["output"][0]["body"]["args"] == {"to": "ops"}


def test_a_run_killed_after_its_shell_dispatched_is_not_run_again_by_resume(gateway: Any, tmp_path: Path,
                                                                            capsys: Capture) -> None:
    """The engine dies right after the call (the step kills it): its journal already says the call went out."""
    path = _workflow(tmp_path, f'"$BIN/openclaw.invoke" {SEND.format(url=gateway.url)} > /dev/null', KILL_ONCE)
    killed = subprocess.run([str(BIN / "lobster"), "run", "--mode", "tool", "--file", str(path)], capture_output=True)
    assert killed.returncode == -9 and len(gateway.calls) == 1
    assert main(["runs", "--json"]) == 0
    [row] = json.loads(capsys.readouterr().out)
    assert main(["resume", "--run", row["id"]]) == 2
    refused = json.loads(capsys.readouterr().out)["error"]["message"]
    assert refused == (f"Run {row['id']}: step post was started but not recorded as finished (uncertain) after calling "
                       "openclaw.invoke, which may have taken effect; resume with --retry-step to run it again or "
                       "--skip-step to skip it")
    assert len(gateway.calls) == 1


def test_a_pipeline_step_killed_after_its_call_is_not_run_again_by_resume(gateway: Any, tmp_path: Path,
                                                                          capsys: Capture) -> None:
    path = write_file(tmp_path, "w.lobster", f"""steps:
  - id: post
    pipeline: openclaw.invoke {SEND.format(url=gateway.url)} | exec --shell '{KILL_ONCE}'
    retry: {{max: 3, delay_ms: 1}}
""")
    killed = subprocess.run([str(BIN / "lobster"), "run", "--mode", "tool", "--file", str(path)], capture_output=True)
    assert killed.returncode == -9 and len(gateway.calls) == 1
    assert main(["runs", "--json"]) == 0
    [row] = json.loads(capsys.readouterr().out)
    assert main(["resume", "--run", row["id"]]) == 2
    assert "after calling openclaw.invoke, which may have taken effect" in capsys.readouterr().out
    assert len(gateway.calls) == 1


def test_a_program_that_cannot_reach_its_step_sends_nothing(gateway: Any, tmp_path: Path, capsys: Capture,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """A link named but gone (the step ended, or something removed the socket): refuse rather than send unrecorded."""
    monkeypatch.setenv(ENV_NAME, str(tmp_path / "gone"))
    code = run_program("openclaw.invoke", ["--url", gateway.url, "--tool", "message", "--action", "echo"],
                       sys.stdout, sys.stderr)
    err = capsys.readouterr().err
    assert code == 1 and gateway.calls == []
    assert err.startswith(f"Error: openclaw.invoke could not report its call to the workflow step that runs it ({ENV_NAME}: ")
    assert err.endswith("nothing was sent, so that a retry cannot send it twice\n")


def test_the_listener_answers_the_attempts_registered_and_only_while_they_run() -> None:
    link = DispatchListener()
    first: list[str] = []
    with link.attempt(first.append) as env:
        path, token = env[ENV_NAME], env[TOKEN_NAME]
        report_dispatch("openclaw.invoke", path, token)
        with pytest.raises(CommandError, match="did not acknowledge"):
            report_dispatch("no spaces allowed", path, token)
        with pytest.raises(CommandError, match="did not acknowledge"):
            report_dispatch("clawd.invoke", path, "another-attempt")
    with pytest.raises(CommandError, match="did not acknowledge"):
        report_dispatch("clawd.invoke", path, token)
    link.close()
    with pytest.raises(CommandError, match="could not report"):
        report_dispatch("clawd.invoke", path, token)
    assert first == ["openclaw.invoke"] and not Path(path).exists()


def test_a_report_the_engine_could_not_record_is_not_answered() -> None:
    """The journal cannot be written: the program is not told to go ahead."""

    def unwritable(call: str) -> None:
        raise OSError("journal gone")

    link = DispatchListener()
    try:
        with link.attempt(unwritable) as env, pytest.raises(CommandError, match="did not acknowledge"):
            report_dispatch("openclaw.invoke", env[ENV_NAME], env[TOKEN_NAME])
    finally:
        link.close()
