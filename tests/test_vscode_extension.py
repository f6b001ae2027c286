"""The VS Code extension (vscode-extension/): its npm checks, its .vsix, and what it shares with the Python side."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import zipfile
from pathlib import Path
from typing import Any

import pytest
from helpers import ROOT
from mermaid_check import mermaid_check
from npm_installs import install

from lobsterlang import compile_workflow
from lobsterlang.commands.specs import COMMANDS
from lobsterlang.graph import render_graph

EXTENSION = ROOT / "vscode-extension"
NPM = shutil.which("npm")
needs_node = pytest.mark.skipif(
    NPM is None or shutil.which("node") is None,
    reason="node/npm are not installed, so the VS Code extension's checks (tsc, grammar and unit tests, .vsix) cannot run",
)


def _npm(*args: str, timeout: float) -> subprocess.CompletedProcess[str]:
    assert NPM is not None
    return subprocess.run([NPM, *args], cwd=EXTENSION, capture_output=True, text=True, timeout=timeout, check=False)


@pytest.fixture(scope="module")
def node_modules() -> None:
    """`npm ci` once when node_modules is missing (a fresh clone or CI)."""
    result = install(EXTENSION)
    assert result is None or result.returncode == 0, result.stdout + result.stderr


@needs_node
def test_npm_test_passes(node_modules: None) -> None:
    """tsc --noEmit, the vscode-tmgrammar-test syntax and snapshot tests, and the node:test unit tests."""
    result = _npm("test", timeout=600)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert "run successfuly" in output and "run successfully" in output, output
    assert re.search(r"ℹ fail 0\b", output) and not re.search(r"ℹ pass 0\b", output), output


@needs_node
def test_vsix_holds_the_bundle_grammars_and_no_node_modules(node_modules: None, tmp_path: Path) -> None:
    vsix = tmp_path / "lobster.vsix"
    result = _npm("run", "package", "--", "--out", str(vsix), timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    with zipfile.ZipFile(vsix) as archive:
        names = set(archive.namelist())
        manifest: dict[str, Any] = json.loads(archive.read("extension/package.json"))
    print(f"\n{vsix.name}: {vsix.stat().st_size / 1e6:.2f} MB, {len(names)} files")
    assert "extension.vsixmanifest" in names
    assert f"extension/{manifest['main'].removeprefix('./')}" in names
    assert "extension/dist/graph-webview.js" in names
    assert "extension/dist/THIRD_PARTY_LICENSES.txt" in names
    for contributed in manifest["contributes"]["grammars"] + manifest["contributes"]["snippets"]:
        assert f"extension/{contributed['path'].removeprefix('./')}" in names
    assert {"extension/readme.md", "extension/changelog.md", "extension/LICENSE.txt", "extension/images/icon.png"} <= {
        n if not n.lower().startswith(("extension/readme", "extension/changelog")) else n.lower() for n in names
    }
    bloat = [n for n in names if "node_modules/" in n or n.endswith((".ts", ".map")) or "/test/" in n or "/src/" in n]
    assert bloat == []
    assert vsix.stat().st_size < 5_000_000


def _mermaid_errors(texts: dict[str, str]) -> dict[str, str | None]:
    """Each text's parse error from the mermaid version the graph webview bundles (None: it parses)."""
    results = mermaid_check(list(texts.values()))
    return {name: None if result["ok"] else result["error"] for name, result in zip(texts, results, strict=True)}


@needs_node
def test_bundled_mermaid_parses_the_graphs_lobster_draws(node_modules: None) -> None:
    """The preview renders the server's mermaid with the bundled mermaid: every example and graph case must parse."""
    files = sorted([*(ROOT / "examples").glob("*.lobster"), *(ROOT / "tests" / "cases" / "graph").glob("*.lobster")])
    texts = {}
    for path in files:
        workflow = compile_workflow(path.read_text(), str(path)).ir
        if workflow is not None:
            texts[path.name] = render_graph(workflow, "mermaid")
    assert len(texts) >= 10
    texts["control: not mermaid"] = 'flowchart TD\n  a[["unclosed'
    errors = _mermaid_errors(texts)
    assert errors.pop("control: not mermaid") is not None
    failing = {name for name, error in errors.items() if error is not None}
    assert failing == set(_UNRENDERABLE), {name: errors[name] for name in failing}


# Graphs the bundled mermaid cannot parse, with the reason. Remove an entry when the graph module changes.
# (None since edge labels write `( ) [ ] { }` as Mermaid entity codes: tests/test_graph_mermaid.py.)
_UNRENDERABLE: dict[str, str] = {}


def test_grammar_knows_exactly_the_standard_commands() -> None:
    """The grammar marks the standard commands as builtins; its list must follow specs.py."""
    listed = json.loads((EXTENSION / "scripts" / "commands.json").read_text())
    assert listed == sorted(spec.name for spec in COMMANDS)
    keys_grammar = (EXTENSION / "syntaxes" / "lobster-keys.injection.tmLanguage.json").read_text()
    assert "llm_task\\\\.invoke" in keys_grammar


_PLACEHOLDER = re.compile(r"\$\{(\d+|[A-Z_]+):([^${}]*)\}")
_MIRROR = re.compile(r"\$\{(\d+)\}|\$(\d+)")


def _expand(body: list[str]) -> str:
    """A snippet's text with every placeholder at its default, as VS Code inserts it: `${n:default}` from
    the innermost out, then the mirrors `${n}` / `$n` take placeholder n's default."""
    text = "\n".join(body).replace("\\$", "\0")
    defaults: dict[str, str] = {}

    def placeholder(match: re.Match[str]) -> str:
        defaults.setdefault(match.group(1), match.group(2))
        return match.group(2)

    while _PLACEHOLDER.search(text):
        text = _PLACEHOLDER.sub(placeholder, text)
    text = _MIRROR.sub(lambda m: defaults.get(m.group(1) or m.group(2), ""), text)
    return text.replace("\0", "$")


def _snippets() -> dict[str, list[str]]:
    raw = json.loads((EXTENSION / "snippets" / "lobster.code-snippets").read_text())
    return {name: snippet["body"] for name, snippet in raw.items()}


def test_snippet_placeholders_expand() -> None:
    assert _expand(["a: ${1:${2:x}}", "b: \\$${3:step}.json", "c: ${3}/$2", "$0"]) == "a: x\nb: $step.json\nc: step/x\n"


@pytest.mark.parametrize("name", sorted(_snippets()))
def test_snippet_expands_to_a_workflow_that_compiles(name: str) -> None:
    """Each snippet, at its defaults, compiles without errors (step snippets inside a small workflow)."""
    text = _expand(_snippets()[name])
    if not text.startswith("name:"):
        step_lines = "\n".join("  " + line if line else line for line in text.splitlines())
        text = (
            "name: snippet\nsteps:\n"
            "  - id: previous\n    run: echo '[1]'\n"
            "  - id: list\n    run: echo '[1, 2]'\n"
            f"{step_lines}\n"
        )
    result = compile_workflow(text, f"{name}.lobster")
    errors = [d for d in result.diagnostics if d.severity.name == "ERROR"]
    assert result.ok and errors == [], f"{text}\n{errors}"
