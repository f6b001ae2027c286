"""Whole numbers read from user text accept ASCII digits only: `²`, `٣` or `1_0` is refused, never a traceback (issue 29 item 9).

`str.isdigit()` is true for `²` and `int("²")` raises; `int("٣")` is 3. Every entry point that
reads a whole number from a file, a flag, a setting or the state directory goes through
`lobsterlang.digits.whole_number`.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from lobsterlang.cli import main
from lobsterlang.digits import is_whole, whole_number

Capture = pytest.CaptureFixture[str]
ODD = ["²", "٣", "1_0", "+1", "١٢s", "²h"]
GATE = "steps:\n  - id: gate\n    approval: {{prompt: Go?, expires_in: {value}}}\n  - id: after\n    run: echo after\n"
PLAIN = "steps:\n  - id: gate\n    approval: {prompt: Go?}\n"


def test_whole_number_is_ascii_digits_only() -> None:
    assert [whole_number(t) for t in ("0", "42", "007")] == [0, 42, 7]
    assert [whole_number(t) for t in (*ODD, "", " 1", "1\n", "-1", "1.0")] == [None] * (len(ODD) + 5)
    assert is_whole("123") and not is_whole("²")


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("LOBSTER_STATE_DIR", str(tmp_path / "state"))
    for name in ("LOBSTER_APPROVAL_TTL", "LOBSTER_MAX_OUTPUT_BYTES", "LOBSTER_MAX_TOOL_ENVELOPE_BYTES"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


@pytest.mark.parametrize("value", ODD)
@pytest.mark.parametrize("command", ["compile", "lint", "fmt --check", "graph --file", "run --mode tool"])
def test_expires_in_with_odd_digits_is_a_diagnostic(work: Path, capsys: Capture, command: str, value: str) -> None:
    (work / "flow.lobster").write_text(GATE.format(value=json.dumps(value)), encoding="utf-8")
    code = main([*command.split(), "flow.lobster"])
    out, err = capsys.readouterr()
    assert code in (1, 2), (out, err)
    assert "must be a duration" in out + err and "Traceback" not in out + err


def test_the_language_server_reports_odd_expires_in(work: Path) -> None:
    from lobsterlang_lsp.documents import Documents

    documents = Documents()
    uri = (work / "flow.lobster").as_uri()
    documents.dirty.add(uri)
    analysis = documents.analysis(uri, GATE.format(value='"²"'), 1)
    assert any("must be a duration" in d.message for d in documents.findings(analysis))


@pytest.mark.parametrize("value", ODD)
def test_ttl_setting_and_flag_with_odd_digits_are_refused(work: Path, capsys: Capture, monkeypatch: pytest.MonkeyPatch,
                                                          value: str) -> None:
    (work / "flow.lobster").write_text(PLAIN)
    assert main(["run", "--mode", "tool", "--approval-ttl", value, "flow.lobster"]) == 2
    assert "is not a duration" in json.loads(capsys.readouterr().out)["error"]["message"]
    monkeypatch.setenv("LOBSTER_APPROVAL_TTL", value)
    assert main(["run", "--mode", "tool", "flow.lobster"]) == 2
    assert "is not a duration" in json.loads(capsys.readouterr().out)["error"]["message"]
    assert not (work / "state").exists() or not list((work / "state").glob("workflow_resume_*"))


@pytest.mark.parametrize("value", ODD)
def test_max_output_bytes_with_odd_digits_is_refused(work: Path, capsys: Capture, value: str) -> None:
    assert main(["run", "--max-output-bytes", value, "exec --shell 'echo ran > ran'"]) == 2
    assert "--max-output-bytes must be a positive whole number" in capsys.readouterr().err
    assert not (work / "ran").exists()


@pytest.mark.parametrize("value", ["²", "٣"])
def test_output_cap_setting_with_odd_digits_is_refused(work: Path, capsys: Capture, monkeypatch: pytest.MonkeyPatch,
                                                       value: str) -> None:
    monkeypatch.setenv("LOBSTER_MAX_OUTPUT_BYTES", value)
    assert main(["run", "--mode", "tool", "exec --shell 'echo ran > ran'"]) == 1
    assert "LOBSTER_MAX_OUTPUT_BYTES must be a positive safe integer" in json.loads(capsys.readouterr().out)["error"]["message"]
    assert not (work / "ran").exists()


def test_pick_and_paths_with_odd_digits_find_nothing(work: Path, capsys: Capture) -> None:
    """`pick ²` on a list item is no index (as in the reference, which reads only ASCII digits as one)."""
    (work / "in.json").write_text("[[10, 20, 30]]")
    for fields, expected in (("²", {}), ("٣", {}), ("'1,²'", {"1": 20})):
        assert main(["run", "--mode", "tool", f"exec --json --shell 'cat in.json' | pick {fields}"]) == 0
        assert json.loads(capsys.readouterr().out)["output"] == [expected]


def test_envelope_limit_with_odd_digits_is_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    from lobsterlang.interpret.workflow.session import DEFAULT_ENVELOPE_BYTES, envelope_limit

    for value in ODD:
        assert envelope_limit({"LOBSTER_MAX_TOOL_ENVELOPE_BYTES": value + "0000"}) == DEFAULT_ENVELOPE_BYTES


def test_state_directory_names_and_lock_files_with_odd_digits(work: Path, capsys: Capture) -> None:
    """A claimed file `.<key>.json.claimed-²-x` and a lock file holding `²` are someone else's, never a crash."""
    (work / "flow.lobster").write_text(PLAIN)
    assert main(["run", "--mode", "tool", "flow.lobster"]) == 0
    token = json.loads(capsys.readouterr().out)["requiresApproval"]["resumeToken"]
    state = work / "state"
    (path,) = state.glob("workflow_resume_*.json")
    path.rename(state / f".{path.name}.claimed-²-0123abcd")
    assert main(["resume", "--token", token, "--approve", "yes"]) == 1
    assert json.loads(capsys.readouterr().out)["error"]["message"] == "Workflow resume state not found"
    (run,) = (state / "runs").glob("*.jsonl")
    (state / "runs" / f"{run.stem}.lock").write_text("²\n")
    assert main(["runs", "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert row["id"] == run.stem


def test_database_holder_names_with_odd_digits() -> None:
    from lobsterlang.interpret.backend.postgres import _holder

    assert _holder("lobster host:²") == _holder("psql") and _holder("lobster host:12").pid == 12


def test_max_input_bytes_with_odd_digits_is_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    from lobsterlang.syntax.source import DEFAULT_MAX_INPUT_BYTES, max_input_bytes

    for value in ("²", "٣", "1_0"):
        monkeypatch.setitem(os.environ, "LOBSTER_MAX_INPUT_BYTES", value)
        assert max_input_bytes() == DEFAULT_MAX_INPUT_BYTES
