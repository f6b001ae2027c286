"""Findings inside block scalars, folded text and quoted strings point at the exact file position."""

from __future__ import annotations

import pytest

from lobsterlang.lint import Config, Source, lint_source
from lobsterlang.lint.rules.shellcheck import binary
from lobsterlang.lint.textmap import align

ARGS = "args:\n  msg:\n    default: hi\n"


def positions(text: str, code: str, shellcheck: bool = False) -> list[tuple[int, int, int, int]]:
    result = lint_source(Source("f.lobster", text), Config(shellcheck=shellcheck, target="reference"))
    return [(d.span.line, d.span.col, d.span.end_line, d.span.end_col) for d in result.diagnostics if d.code == code]


def test_align_skips_indentation_quotes_and_escapes() -> None:
    assert aligned("a\nb", "a\n    b") == [0, 1, 6, 7]
    assert aligned('say "x"', 'say \\"x\\"') == [0, 1, 2, 3, 5, 6, 8, 9]
    assert aligned("a b", "a\n  b") == [0, 2, 4, 5]
    assert aligned("ab\ncd\n", "ab\n  cd\n") == [0, 1, 2, 5, 6, 7, 8]


def aligned(value: str, raw: str) -> list[int]:
    return [align(value, raw, at) for at in range(len(value) + 1)]


def test_curl_pipe_sh_on_the_third_line_of_a_literal_block() -> None:
    text = "steps:\n  - id: a\n    run: |\n      set -e\n      cd /tmp\n        curl -s https://x.sh | sh\n"
    assert positions(text, "L303") == [(6, 9, 6, 34)]


def test_eval_in_a_folded_block() -> None:
    text = "steps:\n  - id: a\n    run: >-\n      make all &&\n      eval \"$CMD\"\n"
    assert positions(text, "L304") == [(5, 7, 5, 11)]


def test_unknown_env_in_a_double_quoted_scalar_with_escapes() -> None:
    text = 'steps:\n  - id: a\n    run: "echo \\"$LOBSTER_STEP_X\\""\n'
    assert positions(text, "L107") == [(3, 19, 3, 33)]


def test_raw_arg_inside_a_block_keeps_its_column() -> None:
    text = ARGS + "steps:\n  - id: a\n    run: |\n      true\n      printf '%s\\n' ${msg} >&2\n"
    assert positions(text, "L301") == [(8, 21, 8, 27)]


@pytest.mark.skipif(binary() is None, reason="shellcheck is not installed")
def test_shellcheck_finding_maps_to_the_line_and_column_in_the_file() -> None:
    text = "steps:\n  - id: list\n    run: |\n      for f in ./*.txt; do\n        echo $f\n      done\n"
    assert positions(text, "L310", shellcheck=True) == [(5, 14, 5, 16)]


@pytest.mark.skipif(binary() is None, reason="shellcheck is not installed")
def test_shellcheck_does_not_report_blanked_references() -> None:
    text = ARGS + "steps:\n  - id: a\n    run: |\n      echo \"${msg}\"\n"
    assert positions(text, "L310", shellcheck=True) == []
