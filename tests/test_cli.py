"""The `lobster` command: compile output, diagnostics formats, exit codes, help and version."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import click
import pytest
from helpers import EXAMPLES, example_files, write_file

from lobsterlang import __version__
from lobsterlang.cli import HELP, main
from lobsterlang.cli.app import cli
from lobsterlang.ir_codec import from_json

Capture = pytest.CaptureFixture[str]
BROKEN = "steps:\n  - id: a\n    run: echo\n    pipeline: json\n  - id: a\n    when: yes\n    run: echo\n"


@pytest.mark.parametrize("path", example_files(), ids=lambda p: p.name)
def test_every_example_compiles_cleanly(path: Path, capsys: Capture) -> None:
    assert main(["compile", str(path)]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    assert json.loads(out)["type"] == "Workflow"


def test_compile_prints_ir_that_decodes(capsys: Capture) -> None:
    assert main(["compile", str(EXAMPLES / "hello.lobster")]) == 0
    workflow = from_json(json.loads(capsys.readouterr().out))
    assert [s.id for s in workflow.steps]


def test_all_problems_are_reported_at_once(tmp_path: Path, capsys: Capture) -> None:
    path = write_file(tmp_path, "broken.lobster", BROKEN)
    assert main(["compile", str(path)]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert f"{path}:4:5: S111 Workflow step a can only define one of" in err
    assert f"{path}:5:9: S120 Duplicate workflow step id: a" in err
    assert f"{path}:6:11: X001 Unsupported condition: yes" in err
    assert "   = hint: `yes` is a string in YAML 1.2; write true or false" in err
    assert " 6 |     when: yes\n   |           ^^^\n" in err
    assert err.rstrip().endswith("Found 3 errors.")
    assert "\x1b[" not in err  # no colour when not on a terminal


def test_json_diagnostics(tmp_path: Path, capsys: Capture) -> None:
    path = write_file(tmp_path, "broken.lobster", BROKEN)
    assert main(["compile", str(path), "--format", "json"]) == 1
    items = json.loads(capsys.readouterr().err)
    assert [i["code"] for i in items] == ["S111", "S120", "X001"]
    assert items[2]["span"] == {"start": 70, "end": 73, "line": 6, "col": 11, "end_line": 6, "end_col": 14}
    assert items[2]["severity"] == "error" and items[2]["path"] == str(path)


def test_colour_when_forced(tmp_path: Path, capsys: Capture) -> None:
    path = write_file(tmp_path, "broken.lobster", BROKEN)
    main(["compile", str(path), "--color", "always"])
    assert "\x1b[1;31mS111\x1b[0m" in capsys.readouterr().err


def test_output_file_is_written_atomically(tmp_path: Path, capsys: Capture) -> None:
    out = tmp_path / "ir.json"
    assert main(["compile", str(EXAMPLES / "hello.lobster"), "-o", str(out)]) == 0
    assert capsys.readouterr().out == ""
    assert json.loads(out.read_text())["ir_version"] == 1
    assert [p.name for p in tmp_path.iterdir()] == ["ir.json"]


def test_no_output_file_when_the_input_has_errors(tmp_path: Path, capsys: Capture) -> None:
    out = tmp_path / "ir.json"
    assert main(["compile", str(write_file(tmp_path, "b.lobster", BROKEN)), "-o", str(out)]) == 1
    assert not out.exists()


def test_pipeline_option(capsys: Capture) -> None:
    assert main(["compile", "--compact", "--pipeline", "exec --json --shell 'echo [1]' | json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["type"] == "Pipeline" and len(data["stages"]) == 2


def test_stdin_with_filename(monkeypatch: pytest.MonkeyPatch, capsys: Capture) -> None:
    import io

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b'{"steps": [{"id": "a", "run": "echo"}]}')))
    assert main(["compile", "-", "--stdin-filename", "w.json"]) == 0
    assert json.loads(capsys.readouterr().out)["source"] == "w.json"


@pytest.mark.parametrize(
    "args, message",
    [
        (["compile"], "give a workflow FILE or --pipeline TEXT"),
        (["compile", "x.lobster", "--pipeline", "json"], "give a workflow FILE or --pipeline TEXT"),
        (["compile", "missing.lobster"], "missing.lobster: no such file or directory"),
        (["compile", "notes.txt"], "Workflow file must end in .lobster, .yaml, .yml, or .json"),
        (["compile", "--format", "xml", "x.lobster"], "Invalid value for '--format'"),
        (["--nonsense"], "No such option"),
    ],
)
def test_usage_errors_exit_2(args: list[str], message: str, capsys: Capture) -> None:
    assert main(args) == 2
    assert message in capsys.readouterr().err


def test_directory_is_a_usage_error(tmp_path: Path, capsys: Capture) -> None:
    folder = tmp_path / "dir.lobster"
    folder.mkdir()
    assert main(["compile", str(folder)]) == 2
    assert f"{folder}: is a directory, not a workflow file" in capsys.readouterr().err


@pytest.mark.parametrize("args", [["--version"], ["-v"], ["version"]])
def test_version(args: list[str], capsys: Capture) -> None:
    assert main(args) == 0
    assert capsys.readouterr().out == f"{__version__}\n"


@pytest.mark.parametrize("args", [[], ["--help"], ["-h"], ["help"]])
def test_top_level_help(args: list[str], capsys: Capture) -> None:
    assert main(args) == 0
    assert "lobster compile FILE" in capsys.readouterr().out


def test_help_lists_exactly_the_commands() -> None:
    listed = {line.split()[1] for line in HELP.splitlines() if line.startswith("  lobster ")}
    assert listed == set(cli.list_commands(click.Context(cli)))


def test_help_for_a_command(capsys: Capture) -> None:
    assert main(["help", "compile"]) == 0
    assert "--stdin-filename" in capsys.readouterr().out
    assert main(["help", "nope"]) == 2
    assert "Unknown command: nope" in capsys.readouterr().err


def test_schema_command_prints_the_workflow_schema(capsys: Capture) -> None:
    assert main(["schema"]) == 0
    assert json.loads(capsys.readouterr().out)["$schema"].startswith("http://json-schema.org/draft-07")


def test_version_does_not_import_heavy_modules() -> None:
    code = "import sys; from lobsterlang.cli import main; main(['--version']); print(sorted(m for m in ('yaml','click','lark') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.splitlines()[-1] == "[]"


def test_console_script_runs() -> None:
    proc = subprocess.run([sys.executable, "-m", "lobsterlang", "compile", str(EXAMPLES / "hello.lobster")], capture_output=True, text=True)
    assert proc.returncode == 0 and proc.stderr == ""


@pytest.mark.parametrize("target, message", [("missing-dir/ir.json", "does not exist"), (".", "is a directory")])
def test_bad_output_path_is_a_usage_error(tmp_path: Path, target: str, message: str, capsys: Capture) -> None:
    assert main(["compile", str(EXAMPLES / "hello.lobster"), "-o", str(tmp_path / target)]) == 2
    assert message in capsys.readouterr().err


def test_output_file_mode_follows_the_umask(tmp_path: Path) -> None:
    import os

    out = tmp_path / "ir.json"
    old = os.umask(0o022)
    try:
        assert main(["compile", str(EXAMPLES / "hello.lobster"), "-o", str(out)]) == 0
    finally:
        os.umask(old)
    assert out.stat().st_mode & 0o777 == 0o644
