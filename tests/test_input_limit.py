"""The input size limit (E008) is a setting: `--max-input-bytes`, LOBSTER_MAX_INPUT_BYTES, 64 MiB by default."""

from __future__ import annotations

from pathlib import Path

import pytest

from lobsterlang.cli import main
from lobsterlang.syntax.source import DEFAULT_MAX_INPUT_BYTES, MAX_INPUT_BYTES_ENV, decode_source

STEP = b"  - id: s{n}\n    run: echo " + b"x" * 200 + b"\n"


@pytest.fixture(autouse=True)
def _no_limit_set(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test starts without the variable; whatever the option sets in os.environ is undone after it."""
    monkeypatch.setenv(MAX_INPUT_BYTES_ENV, "")  # recorded, so the teardown restores the variable's absence
    monkeypatch.delenv(MAX_INPUT_BYTES_ENV)


def _workflow(tmp_path: Path, steps: int) -> Path:
    path = tmp_path / "big.lobster"
    path.write_bytes(b"steps:\n" + b"".join(STEP.replace(b"{n}", str(n).encode()) for n in range(steps)))
    return path


def test_a_generated_file_over_the_former_4_mib_limit_compiles(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _workflow(tmp_path, 21_000)
    assert path.stat().st_size > 4 * 1024 * 1024
    assert main(["compile", "--compact", str(path)]) == 0, capsys.readouterr().err[:300]


def test_the_default_refuses_more_than_64_mib() -> None:
    _, problems = decode_source(b" " * (DEFAULT_MAX_INPUT_BYTES + 1))
    assert [p.code for p in problems] == ["E008"]
    _, problems = decode_source(b"steps: []" + b" " * (DEFAULT_MAX_INPUT_BYTES - 9))
    assert not problems


@pytest.mark.parametrize("command", ["compile", "lint", "fmt"])
def test_the_option_lowers_the_limit_and_the_error_names_the_setting(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _workflow(tmp_path, 10)
    assert main([command, "--max-input-bytes", "1000", str(path)]) == 1
    captured = capsys.readouterr()
    err = captured.out + captured.err  # lint reports on stdout
    assert f"{path}:1:1: E008 file is larger than the limit of 1,000 bytes" in err, err[:500]
    assert "--max-input-bytes" in err and MAX_INPUT_BYTES_ENV in err


def test_the_environment_variable_sets_the_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    path = _workflow(tmp_path, 10)
    monkeypatch.setenv(MAX_INPUT_BYTES_ENV, "1000")
    assert main(["compile", str(path)]) == 1
    assert "E008" in capsys.readouterr().err
    assert main(["compile", "--max-input-bytes", "100000", "--compact", str(path)]) == 0


def test_graph_and_run_refuse_with_the_same_message(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    path = _workflow(tmp_path, 10)
    assert main(["graph", "--max-input-bytes", "1000", str(path)]) == 1
    assert "the limit of 1,000 bytes (--max-input-bytes, LOBSTER_MAX_INPUT_BYTES)" in capsys.readouterr().err
    monkeypatch.setenv(MAX_INPUT_BYTES_ENV, "1000")
    assert main(["run", "--dry-run", str(path)]) != 0
    assert "the limit of 1,000 bytes (--max-input-bytes, LOBSTER_MAX_INPUT_BYTES)" in capsys.readouterr().err


@pytest.mark.parametrize("value", ["0", "-5", "lots"])
def test_a_bad_limit_is_a_usage_error(value: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compile", f"--max-input-bytes={value}", str(_workflow(tmp_path, 1))]) == 2
    assert "--max-input-bytes" in capsys.readouterr().err


@pytest.mark.parametrize("value", ["", "0", "²", "12x"])
def test_a_variable_that_is_not_a_positive_integer_leaves_the_default(value: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from lobsterlang.syntax.source import max_input_bytes

    monkeypatch.setenv(MAX_INPUT_BYTES_ENV, value)
    assert max_input_bytes() == DEFAULT_MAX_INPUT_BYTES
