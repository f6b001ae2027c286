"""No automatic retry after a dispatch: a step whose call went out (`openclaw.invoke`, `clawd.invoke`,
`openclaw.agent`, `gog.gmail.send`) and then failed is not run again by `retry:`, wherever the call was."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest
from helpers import write_file

from lobsterlang.cli import main

Capture = pytest.CaptureFixture[str]
FAILING = """#!/bin/sh
echo call >> "$CALLS"
echo "gateway timed out" >&2
exit 1
"""


class _FailingGateway(BaseHTTPRequestHandler):
    """Counts the calls it gets and answers each with a server error (the call may have taken effect)."""

    calls: ClassVar[list[dict[str, Any]]] = []

    def do_POST(self) -> None:
        _FailingGateway.calls.append(json.loads(self.rfile.read(int(self.headers["content-length"]))))
        self.send_response(502)
        self.end_headers()
        self.wfile.write(b"upstream went away")

    def log_message(self, *args: Any) -> None:
        return


@pytest.fixture
def gateway() -> Iterator[str]:
    server = HTTPServer(("127.0.0.1", 0), _FailingGateway)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    _FailingGateway.calls.clear()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()


@pytest.fixture
def calls(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A stand-in `gog` and `openclaw` that fail after writing one line per call to the returned file."""
    monkeypatch.setenv("LOBSTER_STATE_DIR", str(tmp_path / "state"))
    script = write_file(tmp_path, "failing.sh", FAILING)
    script.chmod(0o755)
    monkeypatch.setenv("GOG_BIN", str(script))
    monkeypatch.setenv("LOBSTER_OPENCLAW_BIN", str(script))
    monkeypatch.setenv("CALLS", str(tmp_path / "calls"))
    return tmp_path / "calls"


def _run(path: Path, capsys: Capture, *extra: str) -> tuple[int, dict[str, Any], str]:
    code = main(["run", "--mode", "tool", "--file", str(path), *extra])
    out, err = capsys.readouterr()
    return code, json.loads(out), err


def _count(calls: Path) -> int:
    return len(calls.read_text(encoding="utf-8").splitlines()) if calls.exists() else 0


@pytest.mark.parametrize("command", ["openclaw.invoke", "clawd.invoke"])
def test_a_step_that_called_the_gateway_is_not_retried(command: str, gateway: str, tmp_path: Path, calls: Path,
                                                       capsys: Capture) -> None:
    path = write_file(tmp_path, "w.lobster", f"""steps:
  - id: post
    pipeline: {command} --url {gateway} --tool message --action send --args-json '{{"to":"ops"}}'
    retry: {{max: 3, delay_ms: 1}}
""")
    code, envelope, err = _run(path, capsys)
    assert code == 1 and len(_FailingGateway.calls) == 1
    message = envelope["error"]["message"]
    assert message.startswith(f"{command} failed (502): upstream went away (step post was not retried: it had called "
                              f"{command}, which may have taken effect; `lobster resume --run r")
    assert message.endswith(" --retry-step` runs it again)") and "[RETRY]" not in err


def test_the_run_is_kept_and_only_an_explicit_retry_runs_it_again(tmp_path: Path, calls: Path, capsys: Capture) -> None:
    path = write_file(tmp_path, "w.lobster", """steps:
  - id: draft
    run: printf '{"to":"ops@example.com","subject":"s","body":"b"}'
  - id: send
    stdin: $draft.json
    pipeline: gog.gmail.send
    retry: {max: 3, delay_ms: 1}
""")
    code, _, _ = _run(path, capsys)
    assert code == 1 and _count(calls) == 1
    assert main(["runs", "--json"]) == 0
    [row] = json.loads(capsys.readouterr().out)
    assert row["notRetried"] == {"step": "send", "calls": ["gog.gmail.send"]} and row["lastCompletedStep"] == "draft"
    assert main(["runs"]) == 0
    assert "not retried in send (its gog.gmail.send may have taken effect)" in capsys.readouterr().out
    assert main(["resume", "--run", row["id"]]) == 2
    refused = json.loads(capsys.readouterr().out)["error"]["message"]
    assert refused == (f"Run {row['id']}: step send failed after calling gog.gmail.send, which may have taken effect, and "
                       "was not retried; resume with --retry-step to run it again or --skip-step to skip it")
    assert _count(calls) == 1
    assert main(["resume", "--run", row["id"], "--retry-step"]) == 1
    capsys.readouterr()
    assert _count(calls) == 2  # the explicit retry made one more call, and its own retry policy none
    assert main(["resume", "--run", row["id"], "--skip-step"]) == 0
    assert json.loads(capsys.readouterr().out)["status"] == "ok" and _count(calls) == 2


def test_a_dry_run_send_is_retried_like_any_step(tmp_path: Path, calls: Path, capsys: Capture) -> None:
    path = write_file(tmp_path, "w.lobster", """steps:
  - id: send
    pipeline: gog.gmail.send --dry-run | exec --shell 'echo attempt >> "$CALLS"; exit 1'
    retry: {max: 3, delay_ms: 1}
""")
    code, envelope, err = _run(path, capsys)
    assert code == 1 and _count(calls) == 3 and err.count("[RETRY]") == 2
    assert "not retried" not in envelope["error"]["message"]


def test_calls_in_a_branch_or_a_sub_workflow_count_for_the_step(tmp_path: Path, calls: Path, capsys: Capture) -> None:
    write_file(tmp_path, "child.lobster", "steps:\n  - id: inner\n    pipeline: openclaw.agent --agent main --prompt hi\n")
    path = write_file(tmp_path, "w.lobster", """steps:
  - id: fan
    parallel:
      branches:
        - id: agent
          pipeline: openclaw.agent --agent main --prompt hi
        - id: quiet
          run: echo quiet
    retry: {max: 3, delay_ms: 1}
    on_error: continue
  - id: nested
    workflow: child.lobster
    retry: {max: 3, delay_ms: 1}
    on_error: continue
  - id: report
    run: printf '%s|%s' "$fan.errorMessage" "$nested.errorMessage"
""")
    code, envelope, _ = _run(path, capsys)
    assert code == 0 and _count(calls) == 2
    fan, nested = envelope["output"][0].split("|")
    assert fan.endswith("(step fan was not retried: it had called openclaw.agent, which may have taken effect)")
    assert nested.endswith("(step nested was not retried: it had called openclaw.agent, which may have taken effect)")


def test_a_loop_retries_an_item_that_failed_before_dispatching_but_not_the_finished_items_calls(
    tmp_path: Path, calls: Path, capsys: Capture,
) -> None:
    """Item 0 sends (and its record is kept); item 1 fails before sending twice, then sends: one send each."""
    path = write_file(tmp_path, "w.lobster", """steps:
  - id: items
    run: printf '[0, 1]'
  - id: loop
    for_each: $items.json
    retry: {max: 3, delay_ms: 1}
    steps:
      - id: prepare
        run: |
          f="$CALLS.prepare"; echo x >> "$f"
          [ $item.json = 0 ] || [ $(grep -c . "$f") -ge 4 ] || exit 5
          printf '{"to":"a@example.com"}'
      - id: send
        stdin: $prepare.json
        pipeline: gog.gmail.send
""")
    write_file(tmp_path, "failing.sh", "#!/bin/sh\necho call >> \"$CALLS\"\necho '{\"sent\":true}'\n").chmod(0o755)
    code, envelope, err = _run(path, capsys)
    assert code == 0, envelope
    assert _count(calls) == 2 and err.count("[RETRY]") == 2
    assert [item["send"] for item in envelope["output"]] == [{"sent": True}, {"sent": True}]
