"""A wheel built with LOBSTERLANG_MYPYC=1 carries C extensions that behave exactly like the Python sources."""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import compiled_wheel
import pytest
from compiled_wheel import c_compiler
from helpers import ROOT

from tools import mypyc_hook

PROBE = ROOT / "tests" / "compiled_probe.py"


def probe(extra_env: dict[str, str]) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"} | extra_env
    done = subprocess.run([sys.executable, str(PROBE)], capture_output=True, text=True, env=env, cwd=ROOT / "tests")
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


@pytest.mark.slow
def test_compiled_wheel_matches_pure_python(tmp_path: Path) -> None:
    if c_compiler() is None:
        pytest.skip("no C compiler: the mypyc build needs one")
    wheel = compiled_wheel.build().wheel()
    assert not wheel.name.endswith("-none-any.whl"), "a compiled wheel is platform-specific"
    site = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(site), str(wheel)], check=True)
    assert list((site / "lobsterlang" / "syntax").glob("pipeline.*.so")), "the parser must be an extension module"
    assert not any(ROOT.rglob("lobsterlang/**/*.so")), "the build must leave nothing in the checkout"

    pure, compiled = probe({}), probe({"PYTHONPATH": str(site)})
    assert (pure.pop("compiled"), compiled.pop("compiled")) == (False, True)
    assert pure.keys() == compiled.keys()
    differ = [name for name in pure if pure[name] != compiled[name]]
    assert not differ, f"the compiled build disagrees on {len(differ)} of {len(pure)} inputs, first: {differ[:5]}"


def test_hook_compiles_parser_compiler_and_linter_but_not_what_mypyc_cannot() -> None:
    modules = mypyc_hook.sources(ROOT)
    for module in ("syntax/pipeline.py", "compile/steps.py", "lint/engine.py", "lint/rules/shell.py"):
        assert f"lobsterlang/{module}" in modules
    assert not mypyc_hook.INTERPRETED & set(modules)
    assert all(m.startswith(mypyc_hook.COMPILED) for m in modules)


def test_hook_asks_for_mypy_only_when_enabled(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(mypyc_hook.ENABLE, raising=False)
    assert not mypyc_hook.enabled()
    monkeypatch.setenv(mypyc_hook.ENABLE, "0")
    assert not mypyc_hook.enabled()
    monkeypatch.setenv(mypyc_hook.ENABLE, "1")
    assert mypyc_hook.enabled()
    assert any(req.startswith("mypy") for req in mypyc_hook.BUILD_REQUIRES)


def _third_party_imports(paths: list[str]) -> set[str]:
    found: set[str] = set()
    for relative in paths:
        for node in ast.walk(ast.parse((ROOT / relative).read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found.add(node.module.split(".")[0])
    return {name for name in found if name not in sys.stdlib_module_names and name != "lobsterlang"}


def test_the_build_environment_has_every_module_the_compiled_sources_import() -> None:
    """In pip's isolated build environment mypy sees only BUILD_REQUIRES: a missing one fails a fresh install."""
    imported = _third_party_imports(mypyc_hook.sources(ROOT))
    assert imported == set(mypyc_hook.IMPORTED_DISTRIBUTIONS)
    requirements = {re.split(r"[<>=!~ ]", req, maxsplit=1)[0] for req in mypyc_hook.BUILD_REQUIRES}
    assert set(mypyc_hook.IMPORTED_DISTRIBUTIONS.values()) <= requirements


def test_a_failed_build_says_whether_mypy_or_the_c_compiler_stopped_it() -> None:
    typed = "lobsterlang/syntax/shellparse.py:254: error: Cannot find implementation or library stub  [import-not-found]\n"
    assert mypyc_hook._failure_hint(typed).startswith("mypy, which mypyc runs first, reported errors")
    assert mypyc_hook._failure_hint("error: command 'cc' failed: No such file or directory\n").startswith("it needs a C compiler")
