"""`lobster fmt`: in-place rewrites, --check, --diff, stdin, --to yaml, --from-ir, refusing broken files, exit codes."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from helpers import EXAMPLES, write_file

from lobsterlang.cli import main
from lobsterlang.fmt import format_text

Capture = pytest.CaptureFixture[str]
MESSY = "steps:\n- run: echo hi|cat\n  id: a\nname: messy  # the name\n"
CLEAN = "steps:\n  - run: echo hi|cat\n    id: a\nname: messy  # the name\n"
BROKEN = "steps:\n  - id: a\n    run: echo\n    pipeline: json\n"


def test_rewrites_in_place(tmp_path: Path, capsys: Capture) -> None:
    path = write_file(tmp_path, "a.lobster", MESSY)
    assert main(["fmt", str(path)]) == 0
    assert path.read_text(encoding="utf-8") == CLEAN
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.lobster"]  # no temporary file left
    err = capsys.readouterr().err
    assert f"reformatted {path}" in err and "1 file reformatted, 0 files already formatted." in err


def test_check_lists_files_and_changes_nothing(tmp_path: Path, capsys: Capture) -> None:
    messy, clean = write_file(tmp_path, "a.lobster", MESSY), write_file(tmp_path, "b.lobster", CLEAN)
    assert main(["fmt", "--check", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert out == f"would reformat {messy}\n"
    assert messy.read_text(encoding="utf-8") == MESSY
    assert main(["fmt", "--check", str(clean)]) == 0


def test_diff_prints_a_unified_diff(tmp_path: Path, capsys: Capture) -> None:
    path = write_file(tmp_path, "a.lobster", MESSY)
    assert main(["fmt", "--diff", str(path)]) == 1  # like `lint --diff` and `fmt --check`: 1 when something would change
    out = capsys.readouterr().out
    assert out.startswith(f"--- {path}\n+++ {path} (formatted)\n")
    assert "-- run: echo hi|cat\n" in out and "+  - run: echo hi|cat\n" in out
    assert path.read_text(encoding="utf-8") == MESSY


def test_directories_pick_up_workflow_files_only(tmp_path: Path, capsys: Capture) -> None:
    picked = [write_file(tmp_path, n, MESSY) for n in ("a.lobster", "sub/b.lobster.yaml", "sub/c.lobster.yml")]
    picked.append(write_file(tmp_path, "d.lobster.json", '{"steps":[{"id":"a","run":"x"}]}'))
    picked.append(write_file(tmp_path, "workflow.yaml", MESSY))  # a top-level `steps:` list of steps: a workflow
    ignored = [write_file(tmp_path, n, MESSY) for n in (".hidden/e.lobster", "build/f.lobster")]
    ignored += [write_file(tmp_path, "config.yaml", "name:   x\nvalues: [1]\n"), write_file(tmp_path, "data.json", '{"steps": [1]}')]
    write_file(tmp_path, ".gitignore", "build/\n")
    assert main(["fmt", str(tmp_path)]) == 0
    assert all(p.read_text(encoding="utf-8") != MESSY for p in picked)
    assert [p.read_text(encoding="utf-8") for p in ignored] == [MESSY, MESSY, "name:   x\nvalues: [1]\n", '{"steps": [1]}']
    assert "5 files reformatted" in capsys.readouterr().err


def test_named_yaml_and_json_files_are_formatted(tmp_path: Path) -> None:
    yaml_file = write_file(tmp_path, "config.yaml", MESSY)
    json_file = write_file(tmp_path, "data.json", '{"steps":[{"run":"x","id":"a"}]}')
    assert main(["fmt", str(yaml_file), str(json_file)]) == 0
    assert yaml_file.read_text(encoding="utf-8") == CLEAN
    assert json_file.read_text(encoding="utf-8") == '{\n  "steps": [\n    {\n      "id": "a",\n      "run": "x"\n    }\n  ]\n}\n'


def test_a_file_with_errors_is_reported_and_left_alone(tmp_path: Path, capsys: Capture) -> None:
    broken, messy = write_file(tmp_path, "broken.lobster", BROKEN), write_file(tmp_path, "messy.lobster", MESSY)
    assert main(["fmt", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert f"{broken}:4:5: S111 Workflow step a can only define one of" in err
    assert "1 file reformatted, 0 files already formatted, 1 file not formatted (errors)." in err
    assert broken.read_text(encoding="utf-8") == BROKEN
    assert messy.read_text(encoding="utf-8") == CLEAN


def test_stdin_to_stdout(monkeypatch: pytest.MonkeyPatch, capsys: Capture) -> None:
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(MESSY.encode())))
    assert main(["fmt", "-"]) == 0
    assert capsys.readouterr().out == CLEAN


def test_stdin_filename_decides_json(monkeypatch: pytest.MonkeyPatch, capsys: Capture) -> None:
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b'{"steps":[{"run":"x","id":"a"}]}')))
    assert main(["fmt", "-", "--stdin-filename", "w.json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"steps": [{"id": "a", "run": "x"}]}


def test_stdin_check_and_errors(monkeypatch: pytest.MonkeyPatch, capsys: Capture) -> None:
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(MESSY.encode())))
    assert main(["fmt", "--check", "-", "--stdin-filename", "m.lobster"]) == 1
    assert capsys.readouterr().out == "would reformat m.lobster\n"
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(BROKEN.encode())))
    assert main(["fmt", "-"]) == 1
    out, err = capsys.readouterr()
    assert out == "" and "S111" in err


def test_to_yaml_converts_json_files(tmp_path: Path, capsys: Capture) -> None:
    source = write_file(tmp_path, "w.lobster.json", '{"name": "j", "steps": [{"id": "a", "run": "echo hi"}]}')
    assert main(["fmt", "--to", "yaml", str(source)]) == 0
    assert not source.exists()
    assert (tmp_path / "w.lobster").read_text(encoding="utf-8") == "name: j\nsteps:\n  - id: a\n    run: echo hi\n"
    assert f"converted {source} -> {tmp_path / 'w.lobster'}" in capsys.readouterr().err


def test_to_yaml_never_overwrites(tmp_path: Path) -> None:
    source = write_file(tmp_path, "w.json", '{"steps": [{"id": "a", "run": "x"}]}')
    write_file(tmp_path, "w.lobster", CLEAN)
    assert main(["fmt", "--to", "yaml", str(source)]) == 1
    assert source.exists() and (tmp_path / "w.lobster").read_text(encoding="utf-8") == CLEAN


def test_from_ir(tmp_path: Path, capsys: Capture) -> None:
    example = EXAMPLES / "hello.lobster"
    assert main(["compile", str(example), "-o", str(tmp_path / "ir.json")]) == 0
    assert main(["fmt", "--from-ir", str(tmp_path / "ir.json")]) == 0
    assert capsys.readouterr().out == format_text(example.read_text(encoding="utf-8"), str(example))


def test_from_ir_rejects_bad_ir(tmp_path: Path, capsys: Capture) -> None:
    path = write_file(tmp_path, "ir.json", '{"type": "Nope"}')
    assert main(["fmt", "--from-ir", str(path)]) == 1
    assert "not valid IR JSON" in capsys.readouterr().err


@pytest.mark.parametrize(
    "args",
    [["fmt"], ["fmt", "missing.lobster"], ["fmt", "-", "x.lobster"], ["fmt", "--from-ir", "ir.json", "a.lobster"], ["fmt", "--to", "toml", "-"]],
)
def test_usage_errors_exit_2(args: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(args) == 2


def test_a_file_with_the_wrong_suffix_is_a_usage_error(tmp_path: Path) -> None:
    assert main(["fmt", str(write_file(tmp_path, "notes.txt", MESSY))]) == 2


def test_many_files_are_formatted_in_worker_processes(tmp_path: Path, capsys: Capture) -> None:
    paths = [write_file(tmp_path, f"w{i:02d}.lobster", MESSY) for i in range(30)]
    broken = write_file(tmp_path, "w15b.lobster", BROKEN)
    assert main(["fmt", "--check", str(tmp_path)]) == 1
    out, err = capsys.readouterr()
    assert out.splitlines() == [f"would reformat {p}" for p in sorted([*paths])]
    assert f"{broken}:4:5: S111" in err
    assert main(["fmt", str(tmp_path)]) == 1
    assert all(p.read_text(encoding="utf-8") == CLEAN for p in paths) and broken.read_text(encoding="utf-8") == BROKEN


def test_the_repository_s_own_workflows_are_formatted() -> None:
    """Dogfooding: the examples and the linter's clean corpus are in canonical form."""
    from lobsterlang.cli import main as lobster

    root = Path(__file__).resolve().parent.parent
    assert lobster(["fmt", "--check", str(root / "examples"), str(root / "tests" / "lint" / "clean")]) == 0
