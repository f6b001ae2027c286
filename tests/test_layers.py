"""The layering rule of docs/architecture.md, checked on the import graph of `lobsterlang` and `lobsterlang_lsp`.

Every module has a layer; a module imports only from its own layer or below (lazy imports inside
functions count, `if TYPE_CHECKING:` imports do not: they never run). The consumers of the IR never
import one another, and no two packages import each other.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Bottom to top. A module belongs to the longest prefix that names it; every module must belong to one.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("foundation", ("lobsterlang", "lobsterlang.span", "lobsterlang.record", "lobsterlang.diagnostics",
                    "lobsterlang.digits", "lobsterlang.durations", "lobsterlang.suggest", "lobsterlang.terminal",
                    "lobsterlang.reading", "lobsterlang.cpus", "lobsterlang.gcpause", "lobsterlang.grammar_files",
                    "lobsterlang.config_file", "lobsterlang.cron")),
    ("ir", ("lobsterlang.ir", "lobsterlang.ir_codec", "lobsterlang.commands")),
    ("syntax", ("lobsterlang.syntax",)),
    ("compile", ("lobsterlang.compile",)),
    # The consumers of the IR; inside `interpret`, the sub-layers below order its parts.
    ("interpret: core", ("lobsterlang.interpret",)),
    ("interpret: pipelines", ("lobsterlang.interpret.pipeline",)),
    ("interpret: workflow engine", ("lobsterlang.interpret.workflow",)),
    ("interpret: shared stores", ("lobsterlang.interpret.backend", "lobsterlang.interpret.backend.postgres",
                                  "lobsterlang.interpret.backend.redact")),
    ("interpret: schedules", ("lobsterlang.interpret.schedule",)),
    # What opens a store and hands it to an engine: the commands' front ends, the workers and the hand-off to them.
    ("interpret: entry points and workers", (
        "lobsterlang.interpret.wiring", "lobsterlang.interpret.resume", "lobsterlang.interpret.toolcall",
        "lobsterlang.interpret.mcp_server", "lobsterlang.interpret.pipeline.frontend",
        "lobsterlang.interpret.workflow.frontend", "lobsterlang.interpret.backend.worker",
        "lobsterlang.interpret.backend.handoff", "lobsterlang.interpret.backend.scheduler",
        "lobsterlang.interpret.backend.detach")),
    ("lint", ("lobsterlang.lint",)),
    ("fmt", ("lobsterlang.fmt",)),
    ("graph", ("lobsterlang.graph",)),
    ("query", ("lobsterlang.query",)),
    ("report", ("lobsterlang.report",)),
    ("language server", ("lobsterlang_lsp",)),
    ("cli", ("lobsterlang.cli", "lobsterlang.__main__")),
)

# Layers that stand side by side: none of them imports another (they all read the IR, nothing else).
CONSUMERS = ("interpret", "lint", "fmt", "graph", "query")


def modules() -> dict[str, Path]:
    """Every module of the two import packages, by dotted name (the language server's source folder is lsp/)."""
    found = {}
    for package, base in (("lobsterlang", ROOT), ("lobsterlang_lsp", ROOT / "lsp")):
        for path in sorted((base / package).rglob("*.py")):
            parts = list(path.relative_to(base).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


@cache
def import_graph() -> dict[str, frozenset[str]]:
    """Module -> the project modules it imports."""
    known = modules()
    return {name: frozenset(_imported(ast.parse(path.read_text(encoding="utf-8")), known) - {name})
            for name, path in known.items()}


def _imported(tree: ast.AST, known: dict[str, Path]) -> set[str]:
    found: set[str] = set()
    for node in _runtime_nodes(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                submodule = f"{node.module}.{alias.name}"
                found.add(submodule if submodule in known else node.module)
    return {name for name in found if name in known}


def _runtime_nodes(tree: ast.AST) -> Iterator[ast.AST]:
    """Every node, except what sits under `if TYPE_CHECKING:`."""
    for child in ast.iter_child_nodes(tree):
        if isinstance(child, ast.If) and _is_type_checking(child.test):
            for other in child.orelse:
                yield other
                yield from _runtime_nodes(other)
            continue
        yield child
        yield from _runtime_nodes(child)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def layer_of(module: str) -> int:
    """The index in LAYERS of the longest prefix naming `module`."""
    best, length = -1, -1
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > length:
                best, length = index, len(prefix)
    return best


def consumer_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[0] == "lobsterlang" and parts[1] in CONSUMERS else None


def test_every_module_has_a_layer() -> None:
    assert [m for m in modules() if layer_of(m) < 0] == []


def test_no_module_imports_from_a_layer_above_its_own() -> None:
    upward = [f"{a} ({LAYERS[layer_of(a)][0]}) imports {b} ({LAYERS[layer_of(b)][0]})"
              for a, targets in import_graph().items() for b in sorted(targets) if layer_of(b) > layer_of(a)]
    assert upward == []


def test_the_consumers_of_the_ir_never_import_one_another() -> None:
    sideways = [f"{a} imports {b}" for a, targets in import_graph().items() for b in sorted(targets)
                if consumer_of(a) and consumer_of(b) and consumer_of(a) != consumer_of(b)]
    assert sideways == []


def package_of(module: str) -> str:
    """The package a module is part of: a subpackage of `interpret`, else a top-level package or module."""
    parts = module.split(".")
    if parts[0] == "lobsterlang_lsp":
        return "lobsterlang_lsp"
    return ".".join(parts[:3] if parts[:2] == ["lobsterlang", "interpret"] and len(parts) > 3 else parts[:2])


def test_no_two_packages_of_one_layer_import_each_other() -> None:
    """Across layers the upward rule forbids a loop; inside one, two packages may still reach into each other.

    The entry points are the exception: they wire the packages together, each from where its command lives.
    """
    entry = _layer("interpret: entry points and workers")
    edges = {(package_of(a), package_of(b)) for a, targets in import_graph().items() for b in targets
             if layer_of(a) == layer_of(b) != entry}
    loops = sorted({tuple(sorted(pair)) for pair in edges if pair[0] != pair[1] and pair[::-1] in edges})
    assert loops == []


def test_the_workflow_engine_knows_no_worker_and_no_database() -> None:
    """The engine reaches runs through the store interface passed in (workflow/stores.py), never a backend."""
    engine = [m for m in modules() if m.startswith("lobsterlang.interpret.workflow.") and layer_of(m) == _layer("interpret: workflow engine")]
    reached = sorted({b for a in engine for b in _reachable(a) if b.startswith(("lobsterlang.interpret.backend", "lobsterlang.interpret.schedule"))})
    assert engine and reached == []


def _layer(name: str) -> int:
    return [n for n, _ in LAYERS].index(name)


def _reachable(start: str) -> set[str]:
    graph, seen, todo = import_graph(), set(), [start]
    while todo:
        for target in graph[todo.pop()]:
            if target not in seen:
                seen.add(target)
                todo.append(target)
    return seen


def test_the_graph_counts_lazy_imports_and_skips_type_checking_ones() -> None:
    source = ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from lobsterlang.lint import engine\n"
              "def later():\n    from lobsterlang.interpret.backend import handoff\n")
    found = _imported(ast.parse(source), modules())
    assert found == {"lobsterlang.interpret.backend.handoff"}
    assert layer_of("lobsterlang.interpret.backend.handoff") > layer_of("lobsterlang.interpret.workflow.runs")
