"""The example workflows run end to end; the outside tools they call are replaced by small stubs on PATH."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest
from helpers import EXAMPLES

from lobsterlang.cli import main

STUBS = {
    "inbox": """#!/bin/sh
case "$1" in
  list) printf '%s' '[{"id":1,"from":"ada@example.com","subject":"Lunch","unread":true,"date":"2026-01-02"},
    {"id":2,"from":"noreply@shop.example","subject":"Sale","unread":true,"noReply":true,"date":"2026-01-03"},
    {"id":3,"from":"bob@example.com","subject":"Old","unread":false,"date":"2026-01-01"}]' ;;
  send) n=$(jq 'if type == "array" then length else 1 end'); printf '{"sent":%s}\\n' "$n" ;;
esac
""",
    "gh": """#!/bin/sh
printf '{"number":%s,"title":"Fix it","url":"https://example.com/pr","state":"%s","isDraft":false,"mergeable":"MERGEABLE","reviewDecision":null,"headRefName":"fix","updatedAt":"2026-01-01"}' "$3" "${PR_STATE:-OPEN}"
""",
    "make": "#!/bin/sh\necho building >&2\n",
    "mailer": """#!/bin/sh
printf '{"to":"%s","items":%s}\\n' "$3" "$(jq length)"
""",
    "plain-sh": '#!/bin/sh\nshift\nexec /bin/sh -c "$@"\n',
    "git": "#!/bin/sh\necho v1.2.3\n",
    "gcal": "#!/bin/sh\necho '[{\"title\":\"standup\"}]'\n",
    "curl": """#!/bin/sh
case "$*" in
  *wttr.in*) echo '{"current_condition":[{"temp_C":"21"}]}' ;;
  *jsonfeed*) echo '{"items":[{"title":"one"},{"title":"two"}]}' ;;
  *) echo 200 ;;
esac
""",
}
Capture = pytest.CaptureFixture[str]


@pytest.fixture
def stubs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "bin"
    folder.mkdir()
    for name, text in STUBS.items():
        path = folder / name
        path.write_text(text, encoding="utf-8")
        path.chmod(path.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("LOBSTER_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("LOBSTER_SHELL", str(folder / "plain-sh"))  # a login shell would reset PATH
    monkeypatch.setenv("HOME", str(tmp_path))
    return folder


def _run(capsys: Capture, *args: str) -> Any:
    code = main(list(args))
    out = capsys.readouterr().out
    assert code == 0, out
    return json.loads(out)


def _tool(name: str, capsys: Capture, args: dict[str, Any] | None = None) -> Any:
    extra = ["--args-json", json.dumps(args)] if args else []
    return _run(capsys, "run", "--mode", "tool", "--file", str(EXAMPLES / name), *extra)


def test_hello(stubs: Path, capsys: Capture) -> None:
    assert _tool("hello.lobster", capsys, {"name": "Ada"})["output"][0].startswith("Hello, Ada!")
    assert _tool("json-workflow.json", capsys)["output"][0].startswith("Hello, world!")


def test_email_triage_sends_only_after_approval(stubs: Path, capsys: Capture, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LOBSTER_APPROVAL_INITIATED_BY", "triage-bot")
    halted = _tool("email-triage.lobster", capsys)
    request = halted["requiresApproval"]
    assert halted["status"] == "needs_approval" and [d["to"] for d in request["items"]] == ["ada@example.com"]
    assert main(["resume", "--id", request["approvalId"], "--approve", "yes"]) == 2  # no approver identity
    assert "set LOBSTER_APPROVAL_APPROVED_BY" in capsys.readouterr().out
    monkeypatch.setenv("LOBSTER_APPROVAL_APPROVED_BY", "carol")
    assert _run(capsys, "resume", "--id", request["approvalId"], "--approve", "yes")["output"] == [{"sent": 1}]


def test_morning_briefing_as_a_scheduled_tick_waits_for_its_approval(stubs: Path, capsys: Capture) -> None:
    briefing = str(EXAMPLES / "morning-briefing.lobster")
    added = main(["schedule", "add", "briefing", "--cron", "30 7 * * mon-fri", "--timezone", "Europe/Berlin", briefing,
                  "--args-json", '{"to": "team@example.com"}'])
    assert added == 0, capsys.readouterr().err
    capsys.readouterr()
    halted = _run(capsys, "run", "--mode", "tool", "--schedule", "briefing", "--args-json", '{"to": "team@example.com"}',
                  briefing)
    assert halted["status"] == "needs_approval" and [i["from"] for i in halted["requiresApproval"]["items"]] == [
        "noreply@shop.example", "ada@example.com"]
    [waiting] = _run(capsys, "runs", "--json", "--schedule", "briefing")
    assert waiting["waitingGate"] == "approve"
    sent = _run(capsys, "resume", "--id", halted["requiresApproval"]["approvalId"], "--approve", "yes")
    assert sent["output"] == [{"to": "team@example.com", "items": 2}]
    [view] = _run(capsys, "schedule", "list", "--json")
    assert view["lastRun"]["status"] == "ok"


def test_pr_monitor_notifies_on_change(stubs: Path, capsys: Capture, monkeypatch: pytest.MonkeyPatch) -> None:
    first = _tool("pr-monitor.lobster", capsys, {"repo": "o/r", "pr": 7})
    assert "changed: Fix it is OPEN" in json.dumps(first["output"])
    assert _tool("pr-monitor.lobster", capsys, {"repo": "o/r", "pr": 7})["output"][0]["changed"] is False
    monkeypatch.setenv("PR_STATE", "MERGED")
    assert "is MERGED" in json.dumps(_tool("pr-monitor.lobster", capsys, {"repo": "o/r", "pr": 7})["output"])


def test_compose_runs_the_sub_workflow(stubs: Path, capsys: Capture) -> None:
    output = _tool("compose.lobster", capsys, {"channel": "#releases"})["output"]
    assert output == [{"sent": True, "channel": "#releases", "text": "Build v1.2.3 finished"}]


def test_parallel_fetch_merges_branches(stubs: Path, capsys: Capture) -> None:
    output = _tool("parallel-fetch.lobster", capsys)["output"]
    assert output == [{"city": "Lisbon", "now": "21", "events": 1, "headlines": ["one", "two"]}]


def test_foreach_lists_down_services(stubs: Path, capsys: Capture) -> None:
    assert _tool("foreach.lobster", capsys)["output"] == []


@pytest.mark.parametrize("name", ["hello.lobster", "email-triage.lobster", "retry-and-timeouts.lobster", "compose.lobster"])
def test_examples_plan(name: str, capsys: Capture) -> None:
    assert main(["run", "--dry-run", "--file", str(EXAMPLES / name)]) == 0
    assert capsys.readouterr().err.startswith("[DRY RUN] Would execute")
