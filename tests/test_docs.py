"""The docs list every diagnostic code the compiler can emit, and their examples compile."""

from __future__ import annotations

import re

from helpers import ROOT

CODE = re.compile(r'"([EPXSW]\d{3})"')


def _emitted_codes() -> set[str]:
    sources = [*(ROOT / "lobsterlang" / "compile").glob("*.py"), *(ROOT / "lobsterlang" / "syntax").glob("*.py")]
    return {code for path in sources for code in CODE.findall(path.read_text())}


def test_every_compiler_code_is_documented() -> None:
    documented = set(re.findall(r"^\| ([EPXSW]\d{3}) \|", (ROOT / "docs" / "diagnostics.md").read_text(), re.M))
    emitted = _emitted_codes()
    assert emitted, "no codes found: the scan is broken"
    assert emitted - documented == set(), "add these codes to docs/diagnostics.md"
    assert documented - emitted == set(), "docs/diagnostics.md lists codes the compiler never emits"
