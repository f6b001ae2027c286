"""Suppression comments, unused suppressions, and configuration files."""

from __future__ import annotations

from pathlib import Path

import pytest

from lobsterlang.cli import main
from lobsterlang.diagnostics import Severity
from lobsterlang.lint import Config, ConfigError, Source, find_config, lint_source, load_config
from lobsterlang.lint.config import with_overrides
from lobsterlang.syntax.source import MAX_INPUT_BYTES_ENV

RAW = "args:\n  msg:\n    default: hi\nsteps:\n  - id: a\n    run: echo ${msg}\n"


def codes(text: str, config: Config | None = None) -> list[str]:
    result = lint_source(Source("f.lobster", text), config or Config(shellcheck=False, target="reference"))
    return [d.code for d in result.diagnostics]


def test_ignore_comment_on_the_line() -> None:
    assert codes(RAW) == ["L301"]
    assert codes(RAW.replace("echo ${msg}", "echo ${msg}  # lobster: ignore[L301]")) == []


def test_ignore_comment_on_the_step_line_covers_the_whole_step() -> None:
    text = RAW.replace("- id: a", "- id: a  # lobster: ignore[L3]").replace("run: echo ${msg}", "run: |\n      true\n      echo ${msg}")
    assert codes(text) == []


def test_ignore_comment_on_the_line_above_the_step() -> None:
    text = RAW.replace("  - id: a", "  # lobster: ignore[L301]\n  - id: a")
    assert codes(text) == []


def test_ignore_comment_inside_a_block_script() -> None:
    text = RAW.replace("run: echo ${msg}", "run: |\n      echo ${msg}  # lobster: ignore[L301]\n      echo ${msg}")
    result = lint_source(Source("f.lobster", text), Config(shellcheck=False, target="reference"))
    assert [(d.code, d.span.line) for d in result.diagnostics] == [("L301", 8)]


def test_bare_ignore_covers_every_code() -> None:
    assert codes(RAW.replace("echo ${msg}", "echo ${msg} $nope.json  # lobster: ignore")) == []


def test_unused_suppression_is_reported_where_the_comment_is() -> None:
    text = RAW.replace("echo ${msg}", 'echo "$LOBSTER_ARG_MSG"  # lobster: ignore[L301]')
    result = lint_source(Source("f.lobster", text), Config(shellcheck=False, target="reference"))
    [diag] = result.diagnostics
    assert (diag.code, diag.span.line, diag.span.col) == ("L001", 6, 35)


def test_unused_suppression_can_itself_be_ignored() -> None:
    text = RAW.replace("echo ${msg}", 'echo "$LOBSTER_ARG_MSG"  # lobster: ignore[L301]')
    assert codes(text, Config(ignore=("L001",), shellcheck=False, target="reference")) == []


def test_select_ignore_and_per_file_ignores() -> None:
    assert codes(RAW, Config(select=("L1",), shellcheck=False, target="reference")) == []
    assert codes(RAW, Config(ignore=("L30",), shellcheck=False, target="reference")) == []
    assert codes(RAW, Config(per_file_ignores=(("*.lobster", ("L301",)),), shellcheck=False, target="reference")) == []
    assert codes(RAW, Config(per_file_ignores=(("other/*.lobster", ("L301",)),), shellcheck=False, target="reference")) == ["L301"]


def test_compile_warnings_follow_ignore_but_not_select() -> None:
    text = "steps:\n  - id: a\n    run: echo\n    retries: 3\n"
    assert codes(text, Config(select=("L3",), shellcheck=False, target="reference")) == ["W001"]
    assert codes(text, Config(ignore=("W001",), shellcheck=False, target="reference")) == []


def test_severity_override() -> None:
    result = lint_source(Source("f.lobster", RAW), Config(severity=(("L301", Severity.WARNING),), shellcheck=False, target="reference"))
    assert [d.severity for d in result.diagnostics] == [Severity.WARNING]


def test_pyproject_table_is_found_and_read(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "x"\n\n[tool.lobster.lint]\nignore = ["L106"]\nseverity = { L301 = "info" }\n'
        '[tool.lobster.lint.per-file-ignores]\n"legacy/*.lobster" = ["L3"]\n', encoding="utf-8"
    )
    (tmp_path / "sub").mkdir()
    found = find_config(tmp_path / "sub")
    assert found == tmp_path / "pyproject.toml"
    config = load_config(found)
    assert config.ignore == ("L106",)
    assert config.severity_of("L301", Severity.ERROR) is Severity.INFO
    assert config.per_file_ignores == (("legacy/*.lobster", ("L3",)),)


def test_pyproject_without_a_lint_table_is_skipped(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n', encoding="utf-8")
    assert find_config(tmp_path) is None or find_config(tmp_path) != tmp_path / "pyproject.toml"


def test_dot_lobster_toml_wins_over_pyproject(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.lobster.lint]\nignore = ["L1"]\n', encoding="utf-8")
    (tmp_path / ".lobster.toml").write_text('[lint]\nselect = ["L3", "L4"]\nshellcheck = false\n', encoding="utf-8")
    config = load_config(find_config(tmp_path))
    assert config.select == ("L3", "L4") and config.shellcheck is False


@pytest.mark.parametrize(
    "toml",
    ['[lint]\nselect = "L3"\n', '[lint]\nseverity = { L301 = "fatal" }\n', "[lint]\nnope = 1\n", "[lint\n"],
)
def test_bad_config_is_an_error_naming_the_file(tmp_path: Path, toml: str) -> None:
    path = tmp_path / ".lobster.toml"
    path.write_text(toml, encoding="utf-8")
    with pytest.raises(ConfigError, match=r"\.lobster\.toml"):
        load_config(path)


def test_command_line_overrides() -> None:
    config = with_overrides(Config(ignore=("L1",)), "l3, L4", "L401", False)
    assert config.select == ("L3", "L4") and config.ignore == ("L1", "L401") and config.shellcheck is False


def test_max_input_bytes_setting_limits_lint_unless_the_option_or_variable_sets_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(MAX_INPUT_BYTES_ENV, "1")  # recorded, so that the limit `lint` sets is undone
    monkeypatch.delenv(MAX_INPUT_BYTES_ENV)
    (tmp_path / ".lobster.toml").write_text("[lint]\nmax-input-bytes = 20\n", encoding="utf-8")
    flow = tmp_path / "flow.lobster"
    flow.write_text("steps:\n  - id: hello\n    run: echo hello\n", encoding="utf-8")
    assert main(["lint", "--no-shellcheck", str(flow)]) == 1
    assert "E008" in capsys.readouterr().out
    monkeypatch.delenv(MAX_INPUT_BYTES_ENV)
    assert main(["lint", "--no-shellcheck", "--max-input-bytes", "1000", str(flow)]) == 0
    monkeypatch.setenv(MAX_INPUT_BYTES_ENV, "1000")
    assert main(["lint", "--no-shellcheck", str(flow)]) == 0


@pytest.mark.parametrize("value", ["0", "-5", "true", '"4MiB"', "1.5"])
def test_max_input_bytes_setting_must_be_a_positive_whole_number(tmp_path: Path, value: str) -> None:
    path = tmp_path / ".lobster.toml"
    path.write_text(f"[lint]\nmax-input-bytes = {value}\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"lint\.max-input-bytes must be a positive whole number"):
        load_config(path)
