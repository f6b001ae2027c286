"""The README's quick start and CI run the same test command."""

from __future__ import annotations

import pytest
from helpers import ROOT


def test_ci_runs_the_readme_test_command() -> None:
    ci = (ROOT / ".ci" / "run").read_text().strip().splitlines()[-1]
    readme = (ROOT / "README.md").read_text()
    assert ci.startswith("python3 -m venv .venv && ") and "pytest" in ci
    assert f"```sh\n{ci}\n```" in readme


def test_readme_main_job_uses_an_existing_example() -> None:
    readme = (ROOT / "README.md").read_text()
    line = next(ln for ln in readme.splitlines() if ln.startswith("python3 -m venv") and "lobster run --dry-run examples/" in ln)
    example = line.rsplit(" ", 1)[1]
    assert (ROOT / example).is_file()


def test_readme_quick_start_shows_what_the_dry_run_prints(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    import re

    from lobsterlang.cli import main

    shown = re.search(r"lobster run --dry-run (examples/\S+)\n```\n\n```text\n(.*?)```", (ROOT / "README.md").read_text(), re.S)
    assert shown is not None
    monkeypatch.chdir(ROOT)
    assert main(["run", "--dry-run", shown.group(1)]) == 0
    assert capsys.readouterr().err == shown.group(2)


def test_readme_workflow_compiles() -> None:
    import re

    from lobsterlang.compile import compile_workflow

    block = re.search(r"```yaml\n(.*?)```", (ROOT / "README.md").read_text(), re.S)
    assert block is not None
    result = compile_workflow(block.group(1), "README.lobster")
    assert result.ok and not result.diagnostics
