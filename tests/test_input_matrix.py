"""Every input path against a FIFO, a device, an oversized sparse file and endless stdin: a clear refusal, never a
hang, never more memory than the input limit (docs/security.md, "Inputs").

The cases run in this process, guarded (`input_guards`) so that a regression fails instead of hanging or eating
the machine.
"""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import pytest
from input_guards import bounded_memory, fifo_released

from lobsterlang.cli import main

LIMIT = 1000
SPARSE_BYTES = 8 << 30
OK = "steps:\n  - id: ok\n    run: echo ok\n"
REFUSED = {
    "fifo": ("a FIFO (named pipe), not a regular file", "Workflow path is not a file"),
    "device": ("a character device, not a regular file", "Workflow path is not a file"),
    "oversize": ("larger than the limit of 1,000 bytes",),
}
"""What each kind of input is refused with (the second wording: a `run` path checked as the reference checks it)."""


def make_input(kind: str, path: Path) -> Path:
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "device":
        path.symlink_to("/dev/zero")
    else:
        with open(path, "wb") as sparse:
            sparse.truncate(SPARSE_BYTES)
    return path


@pytest.fixture
def limited(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LOBSTER_MAX_INPUT_BYTES", str(LIMIT))


def run_case(argv: list[str], capsys: pytest.CaptureFixture[str], fifo: Path | None = None) -> tuple[int, str, str]:
    with fifo_released(fifo), bounded_memory():
        code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _refused(kind: str, code: int, out: str, err: str) -> None:
    said = out + err
    assert code in (1, 2), said[-800:]
    assert "Traceback" not in said and "MemoryError" not in said, said[-800:]
    assert any(phrase in said for phrase in REFUSED[kind]), said[-800:]


FILE_COMMANDS = {
    "compile": ["compile", "{p}"],
    "lint": ["lint", "--no-cache", "{p}"],
    "fmt": ["fmt", "{p}"],
    "fmt-check": ["fmt", "--check", "{p}"],
    "graph": ["graph", "{p}"],
    "run": ["run", "{p}"],
    "run-dry": ["run", "--dry-run", "{p}"],
    "run-tool": ["run", "--mode", "tool", "{p}"],
    "run-file": ["run", "--file", "{p}"],
    "fmt-from-ir": ["fmt", "--from-ir", "{p}"],
}


@pytest.mark.parametrize("kind", sorted(REFUSED))
@pytest.mark.parametrize("command", sorted(FILE_COMMANDS))
def test_a_named_file(command: str, kind: str, tmp_path: Path, limited: None, capsys: pytest.CaptureFixture[str]) -> None:
    path = make_input(kind, tmp_path / ("in.json" if command == "fmt-from-ir" else "in.lobster"))
    argv = [a.replace("{p}", str(path)) for a in FILE_COMMANDS[command]]
    _refused(kind, *run_case(argv, capsys, path if kind == "fifo" else None))


@pytest.mark.parametrize("kind", sorted(REFUSED))
@pytest.mark.parametrize("command", [["lint", "--no-cache"], ["fmt"], ["fmt", "--check"]])
def test_a_directory_walk_skips_what_is_not_a_regular_file(
    command: list[str], kind: str, tmp_path: Path, limited: None, capsys: pytest.CaptureFixture[str]
) -> None:
    """FIFOs and devices are skipped with a line saying so; an oversized regular file is reported (E008); the
    other files are still done."""
    (tmp_path / "a-ok.lobster").write_text(OK, encoding="utf-8")
    odd = make_input(kind, tmp_path / "b-odd.lobster")
    code, out, err = run_case([*command, str(tmp_path)], capsys, odd if kind == "fifo" else None)
    said = out + err
    assert "Traceback" not in said and "MemoryError" not in said, said[-800:]
    if kind == "oversize":
        assert code == 1 and "E008" in said and "larger than the limit" in said, said[-800:]
    else:
        assert code == 0, said[-800:]
        assert f"lobster {command[0]}: skipped {odd}: {REFUSED[kind][0]}" in err, err
    if command[0] == "lint":
        assert "b-odd" in said and ("a-ok" not in said or kind == "oversize")  # a-ok was linted: clean


@pytest.mark.parametrize("kind", sorted(REFUSED))
def test_a_sub_workflow_file(kind: str, tmp_path: Path, limited: None, capsys: pytest.CaptureFixture[str]) -> None:
    child = make_input(kind, tmp_path / "child.lobster")
    parent = tmp_path / "parent.lobster"
    parent.write_text("steps:\n  - id: call\n    workflow: child.lobster\n", encoding="utf-8")
    fifo = child if kind == "fifo" else None
    code, out, err = run_case(["run", str(parent)], capsys, fifo)
    assert code == 1 and "Traceback" not in err and any(p in err for p in ("not a regular file", REFUSED[kind][0])), err
    code, out, err = run_case(["lint", "--no-cache", str(parent)], capsys, fifo)  # the approval rules read the child
    assert code == 0 and "All checks passed!" in out, out + err


@pytest.mark.parametrize("kind", sorted(REFUSED))
def test_a_file_a_tool_request_names(kind: str, tmp_path: Path, limited: None, capsys: pytest.CaptureFixture[str],
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    path = make_input(kind, tmp_path / "flow.lobster")
    request = json.dumps({"action": "run", "pipeline": "flow.lobster", "cwd": "."}).encode()
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(request)))
    monkeypatch.chdir(tmp_path)
    code, out, _ = run_case(["tool", "--workspace", str(tmp_path)], capsys, path if kind == "fifo" else None)
    envelope = json.loads(out)
    assert code != 0 and envelope["ok"] is False
    assert any(phrase in envelope["error"]["message"] for phrase in REFUSED[kind]), envelope


@pytest.mark.parametrize("kind", sorted(REFUSED))
def test_a_template_file(kind: str, tmp_path: Path, limited: None, capsys: pytest.CaptureFixture[str],
                         monkeypatch: pytest.MonkeyPatch) -> None:
    path = make_input(kind, tmp_path / "page.txt")
    monkeypatch.chdir(tmp_path)
    code, _, err = run_case(["run", "template --file page.txt"], capsys, path if kind == "fifo" else None)
    assert code == 1 and "template --file could not be read" in err and "Traceback" not in err, err
    assert any(phrase in err for phrase in REFUSED[kind]), err


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_a_named_config_file(kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = make_input(kind, tmp_path / "lobster.toml")
    (tmp_path / "ok.lobster").write_text(OK, encoding="utf-8")
    code, _, err = run_case(["lint", "--no-cache", "--config", str(config), str(tmp_path / "ok.lobster")], capsys,
                            config if kind == "fifo" else None)
    assert code == 2 and REFUSED[kind][0] in err, err


STDIN_COMMANDS = {
    "lint": ["lint", "--no-cache", "-"],
    "fmt": ["fmt", "-"],
    "compile": ["compile", "-"],
    "compile-pipeline": ["compile", "--pipeline", "-"],
    "run": ["run", "-"],
    "run-tool": ["run", "--mode", "tool", "-"],
    "fmt-from-ir": ["fmt", "--from-ir", "-"],
    "tool": ["tool"],
}


@pytest.mark.parametrize("command", sorted(STDIN_COMMANDS))
def test_endless_stdin(command: str, limited: None, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """stdin that never ends (here /dev/zero) is read up to the limit and refused; tool mode still answers with
    one envelope."""
    with open("/dev/zero", "rb") as zero:
        monkeypatch.setattr("sys.stdin", io.TextIOWrapper(zero))
        code, out, err = run_case(STDIN_COMMANDS[command], capsys)
    _refused("oversize", code, out, err)
    if command in ("tool", "run-tool"):
        envelope = json.loads(out)
        assert envelope["ok"] is False and envelope["error"]["type"] == "parse_error"


def test_the_default_limit_is_reached_on_a_sparse_8_gb_file(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LOBSTER_MAX_INPUT_BYTES", raising=False)
    path = make_input("oversize", tmp_path / "big.lobster")
    code, _, err = run_case(["compile", str(path)], capsys)
    assert code == 1 and "E008 file is larger than the limit of 67,108,864 bytes" in err, err
