"""Compiling without keeping the document lets go of each step's nodes, and changes nothing in the result."""

from __future__ import annotations

import weakref
from pathlib import Path

import pytest
import yaml
from helpers import CASES, ROOT, example_files

from lobsterlang.compile import compile_workflow, steps
from lobsterlang.compile.context import Context
from lobsterlang.compile.files import compile_composed
from lobsterlang.compile.ids import SeenIds
from lobsterlang.ir_codec import to_json

WORKFLOW_FILES = sorted((CASES / "workflows").glob("[0-9]*.*")) + example_files()

COMMENTED = """\
# header
name: demo  # trailing
steps:
  # before the first step
  - id: a
    env:
      X: "1"
      X: "2"
    run: echo a  # after run
  - id: b
    run: |  # block header
      echo "# not a comment"
    # indented end of b
  - id: a
    run: echo again
# the end
"""


def _same_result(text: str | bytes, path: str) -> None:
    released = compile_workflow(text, path)
    kept, _ = compile_composed(text, path)
    assert released.diagnostics == kept.diagnostics
    assert (released.ir is None) == (kept.ir is None)
    if released.ir is not None and kept.ir is not None:
        assert to_json(released.ir) == to_json(kept.ir)


@pytest.mark.parametrize("path", WORKFLOW_FILES, ids=lambda p: p.name)
def test_releasing_steps_compiles_every_case_as_keeping_them(path: Path) -> None:
    _same_result(path.read_bytes(), str(path.relative_to(ROOT)))


def test_comments_and_duplicates_are_found_as_when_the_tree_is_kept() -> None:
    _same_result(COMMENTED, "commented.lobster")
    result = compile_workflow(COMMENTED, "commented.lobster")
    assert result.ir is not None
    assert [c.text for c in result.ir.comments] == [
        "# header", "# trailing", "# before the first step", "# after run", "# block header", "# indented end of b", "# the end",
    ]
    assert [d.code for d in result.diagnostics].count("E007") == 1
    assert [d.code for d in result.diagnostics].count("S120") == 1


def test_an_aliased_mapping_with_duplicate_keys_is_reported_once() -> None:
    text = "steps:\n  - id: a\n    env: &e {X: '1', X: '2'}\n    run: echo a\n  - id: b\n    env: *e\n    run: echo b\n"
    _same_result(text, "alias.lobster")
    assert [d.code for d in compile_workflow(text, "alias.lobster").diagnostics].count("E007") == 1


def _earlier_steps_alive(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Patch compile_step to count, at each step, how many earlier step nodes are still alive."""
    compile_step = steps.compile_step
    earlier: list[weakref.ref[yaml.Node]] = []
    alive: list[int] = []

    def counting(ctx: Context, node: yaml.Node, seen: SeenIds) -> object:
        alive.append(sum(ref() is not None for ref in earlier))
        earlier.append(weakref.ref(node))
        return compile_step(ctx, node, seen)

    monkeypatch.setattr(steps, "compile_step", counting)
    return alive


STEPS = "steps:\n" + "".join(f"  - id: s{n}\n    env: {{N: '{n}'}}\n    run: echo {n}\n" for n in range(6))


def test_compiling_a_workflow_lets_go_of_each_step_once_compiled(monkeypatch: pytest.MonkeyPatch) -> None:
    alive = _earlier_steps_alive(monkeypatch)
    assert compile_workflow(STEPS, "six.lobster").ok
    assert alive == [0] * 6


def test_the_formatter_s_compile_keeps_the_document(monkeypatch: pytest.MonkeyPatch) -> None:
    alive = _earlier_steps_alive(monkeypatch)
    result, composed = compile_composed(STEPS, "six.lobster")
    assert result.ok and composed is not None
    assert alive == list(range(6))
    root = composed[0]
    assert isinstance(root, yaml.MappingNode)
    assert all(isinstance(step, yaml.MappingNode) for step in root.value[0][1].value)


def test_a_document_with_aliases_is_kept_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    alive = _earlier_steps_alive(monkeypatch)
    assert compile_workflow("x-run: &r echo hi\n" + STEPS.replace("run: echo 5", "run: *r"), "alias.lobster").ok
    assert alive == list(range(6))
