"""The persistent lint cache: a warm run says what an uncached run says and starts no shellcheck; a change
in a script, the configuration, shellcheck or a sub-workflow is linted again; damage is a miss; concurrent
runs share it safely."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lobsterlang.cli import main
from lobsterlang.lint.lint_cache import modules_fingerprint
from lobsterlang.lint.rules.shellcheck import binary

pytestmark = pytest.mark.skipif(binary() is None, reason="needs shellcheck")
Capture = pytest.CaptureFixture[str]
FLOW = "steps:\n  - id: list\n    run: |\n      ls $1 | grep {word}\n      echo done\n"
REAL = Path(__file__).parent / "corpus_real"


@pytest.fixture
def logged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """`shellcheck` on PATH is a wrapper that logs each start to the returned file, then runs the real one."""
    log = tmp_path / "calls.log"
    log.touch()
    _wrapper(tmp_path / "bin", f'echo "$1" >> "{log}"\nexec "{binary()}" "$@"')
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("LOBSTER_CACHE_DIR", str(tmp_path / "cache"))
    return log


def _wrapper(folder: Path, body: str) -> None:
    folder.mkdir(exist_ok=True)
    wrapper = folder / "shellcheck"
    wrapper.write_text(f"#!/bin/sh\n{body}\n", encoding="utf-8")
    wrapper.chmod(0o755)


def _flows(tmp_path: Path, count: int = 3) -> Path:
    folder = tmp_path / "flows"
    folder.mkdir(exist_ok=True)
    for number in range(count):
        (folder / f"f{number}.lobster").write_text(FLOW.format(word=f"w{number}"), encoding="utf-8")
    return folder


def _lint(folder: Path, capsys: Capture, *extra: str, findings: int = 3) -> str:
    assert main(["lint", "--format", "json", *extra, str(folder)]) == (1 if findings else 0)
    out = capsys.readouterr().out
    assert out.count("SC2086: ") == findings
    return out


def _calls(log: Path) -> int:
    return len(log.read_text(encoding="utf-8").splitlines())


def _entries(tmp_path: Path) -> list[Path]:
    return sorted(p for p in (tmp_path / "cache" / "lint").rglob("*.json") if p.parent.name != "versions")


def test_a_warm_run_starts_no_shellcheck_and_says_the_same(tmp_path: Path, logged: Path, capsys: Capture) -> None:
    folder = _flows(tmp_path)
    cold = _lint(folder, capsys)
    assert _calls(logged) >= 1
    logged.write_text("", encoding="utf-8")
    assert _lint(folder, capsys) == cold
    assert _calls(logged) == 0
    assert len(_entries(tmp_path)) == 3  # one entry per file linted


def test_cached_and_uncached_runs_agree_on_real_workflows(tmp_path: Path, logged: Path, capsys: Capture) -> None:
    """Every format, on the corpus in the style of real users' files (long scripts, jq, heredocs, loops)."""
    folder = tmp_path / "real"
    shutil.copytree(REAL, folder, ignore=shutil.ignore_patterns("*.expect"))
    for fmt in ("json", "text", "sarif"):
        main(["lint", "--no-cache", "--format", fmt, str(folder)])
        uncached = capsys.readouterr().out
        for _ in range(2):  # cold, then warm
            main(["lint", "--format", fmt, str(folder)])
            assert capsys.readouterr().out == uncached
    assert "L310" in uncached


def test_a_changed_script_is_checked_again(tmp_path: Path, logged: Path, capsys: Capture) -> None:
    folder = _flows(tmp_path)
    _lint(folder, capsys)
    logged.write_text("", encoding="utf-8")
    (folder / "f1.lobster").write_text(FLOW.format(word="changed").replace("$1", '"$1"'), encoding="utf-8")
    _lint(folder, capsys, findings=2)
    assert _calls(logged) == 1


def test_a_changed_configuration_is_linted_again(tmp_path: Path, logged: Path, capsys: Capture) -> None:
    folder = _flows(tmp_path)
    _lint(folder, capsys)
    _lint(folder, capsys, "--ignore", "L310", findings=0)
    (tmp_path / ".lobster.toml").write_text('[lint]\nignore = ["L310"]\n', encoding="utf-8")
    _lint(folder, capsys, findings=0)
    (tmp_path / ".lobster.toml").unlink()
    logged.write_text("", encoding="utf-8")
    _lint(folder, capsys)
    assert _calls(logged) == 0  # the scripts' comments outlived the runs without shellcheck


def test_another_shellcheck_version_checks_again(tmp_path: Path, logged: Path, capsys: Capture,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    folder = _flows(tmp_path)
    cold = _lint(folder, capsys)
    _wrapper(tmp_path / "newer", f'[ "$1" = --version ] && {{ echo "version: 0.99.0"; exit 0; }}\n'
                                 f'echo "$1" >> "{logged}"\nexec "{binary()}" "$@"')
    monkeypatch.setenv("PATH", f"{tmp_path / 'newer'}{os.pathsep}{os.environ['PATH']}")
    logged.write_text("", encoding="utf-8")
    assert _lint(folder, capsys) == cold
    assert _calls(logged) >= 1


def test_a_failed_shellcheck_is_not_remembered_as_clean(tmp_path: Path, logged: Path, capsys: Capture,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    folder = _flows(tmp_path)
    _wrapper(tmp_path / "broken", f'[ "$1" = --version ] && exec "{binary()}" --version\nexit 3')
    monkeypatch.setenv("PATH", f"{tmp_path / 'broken'}{os.pathsep}{os.environ['PATH']}")
    _lint(folder, capsys, findings=0)
    monkeypatch.setenv("PATH", os.environ["PATH"].split(os.pathsep, 1)[1])
    _lint(folder, capsys)


def test_a_changed_sub_workflow_is_seen(tmp_path: Path, logged: Path, capsys: Capture) -> None:
    """A file's findings can depend on another file (L403, target reference: an `approve` stage inside a sub-workflow)."""
    folder = tmp_path / "flows"
    folder.mkdir()
    (folder / "child.lobster").write_text("steps:\n  - id: a\n    run: echo a\n", encoding="utf-8")
    parent = "steps:\n  - id: go\n    workflow: child.lobster\n"
    (folder / "parent.lobster").write_text(parent, encoding="utf-8")
    main(["lint", "--format", "json", "--select", "L403", "--target", "reference", str(folder)])
    assert "L403" not in capsys.readouterr().out
    (folder / "child.lobster").write_text("steps:\n  - id: ok\n    pipeline: approve --prompt go?\n", encoding="utf-8")
    main(["lint", "--no-cache", "--format", "json", "--select", "L403", "--target", "reference", str(folder)])
    uncached = capsys.readouterr().out
    assert "L403" in uncached
    main(["lint", "--format", "json", "--select", "L403", "--target", "reference", str(folder)])
    assert capsys.readouterr().out == uncached


def test_a_damaged_entry_is_a_miss_and_is_repaired(tmp_path: Path, logged: Path, capsys: Capture) -> None:
    folder = _flows(tmp_path)
    cold = _lint(folder, capsys)
    entries = _entries(tmp_path)
    entries[0].write_text('{"key": "x", "findings": [', encoding="utf-8")
    entries[1].write_text('{"key": null, "findings": [], "scripts": {"k": "not a list"}}', encoding="utf-8")
    damaged = entries[2].read_bytes().replace(b'"key":"', b'"key":null,"was":"').replace(b'"line":', b'"line":"x","was":')
    entries[2].write_bytes(damaged)  # findings to recompute, and a script comment with a field of the wrong type
    logged.write_text("", encoding="utf-8")
    assert _lint(folder, capsys) == cold
    assert 1 <= _calls(logged) <= 2  # the three damaged files, in one batch or two parallel ones
    logged.write_text("", encoding="utf-8")
    assert _lint(folder, capsys) == cold and _calls(logged) == 0


def test_no_cache_neither_reads_nor_writes(tmp_path: Path, logged: Path, capsys: Capture) -> None:
    folder = _flows(tmp_path)
    _lint(folder, capsys, "--no-cache")
    assert not (tmp_path / "cache").exists()
    logged.write_text("", encoding="utf-8")
    _lint(folder, capsys, "--no-cache")
    assert _calls(logged) >= 1


def test_two_concurrent_lints_share_the_cache(tmp_path: Path, logged: Path, capsys: Capture) -> None:
    """Two processes, each over its worker pool, fill one cache; neither output nor the cache is torn."""
    folder = _flows(tmp_path, 30)
    command = [sys.executable, "-m", "lobsterlang", "lint", "--format", "json", str(folder)]
    runs = [subprocess.Popen(command, stdout=subprocess.PIPE, text=True) for _ in range(2)]
    outputs = [run.communicate(timeout=120)[0] for run in runs]
    assert [run.returncode for run in runs] == [1, 1]
    assert outputs[0] == outputs[1] and outputs[0].count("SC2086: ") == 30
    assert not [p for p in (tmp_path / "cache").rglob(".tmp-*")]
    assert len(_entries(tmp_path)) == 30
    logged.write_text("", encoding="utf-8")
    assert main(["lint", "--format", "json", str(folder)]) == 1
    assert capsys.readouterr().out == outputs[0] and _calls(logged) == 0


def test_another_input_limit_is_linted_again(tmp_path: Path, logged: Path, capsys: Capture,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LOBSTER_MAX_INPUT_BYTES", raising=False)  # restored after the test
    folder = _flows(tmp_path)
    cold = _lint(folder, capsys)
    main(["lint", "--format", "json", "--max-input-bytes", "10", str(folder)])
    assert capsys.readouterr().out.count('"E008"') == 3
    del os.environ["LOBSTER_MAX_INPUT_BYTES"]  # the option sets it, for worker processes
    assert _lint(folder, capsys) == cold


def test_an_edited_module_is_a_new_linter(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    (package / "rules").mkdir(parents=True)
    module = package / "rules" / "rule.py"
    module.write_text("A = 1\n", encoding="utf-8")
    (package / "notes.txt").write_text("not code\n", encoding="utf-8")
    before = modules_fingerprint(package)
    (package / "notes.txt").write_text("still not code\n", encoding="utf-8")
    assert modules_fingerprint(package) == before
    module.write_text("A = 2\n", encoding="utf-8")
    os.utime(module, ns=(1, 1))
    assert modules_fingerprint(package) != before


def test_no_shellcheckrc_outside_the_key_changes_a_finding(tmp_path: Path, logged: Path, capsys: Capture,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """shellcheck runs with --norc: a home-directory rc file would change findings the cache keeps."""
    home = tmp_path / "home"
    home.mkdir()
    (home / ".shellcheckrc").write_text("disable=SC2086\n", encoding="utf-8")
    monkeypatch.setenv("HOME", str(home))
    _lint(_flows(tmp_path), capsys, "--no-cache")
