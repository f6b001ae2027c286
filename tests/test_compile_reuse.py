"""An editor's successive compiles of one document reuse unchanged steps: the IR and diagnostics are exactly
those of compiling each version afresh, wherever the edits fall (before, inside or between steps)."""

from __future__ import annotations

from pathlib import Path

from helpers import ROOT
from hypothesis import given, settings
from hypothesis import strategies as st

from lobsterlang.compile import CompileResult, compile_workflow
from lobsterlang.compile.reuse import StepCache, reusing_steps
from lobsterlang.ir import Workflow
from lobsterlang.ir_codec import to_json

BASE = """name: reuse
args:
  who:
    default: world
steps:
  - id: fetch
    run: echo '{"items":[1,2]}'
  - id: fan
    parallel:
      wait: all
      branches:
        - id: left
          run: echo "${who}"
        - id: right
          pipeline: exec --json --shell 'echo [1]' | where 'n>1' | head --n 2
  - id: loop
    for_each: $fetch.json.items
    batch_size: 2
    steps:
      - id: each
        run: echo $item.json
  - id: gate
    approval: Continue?
    when: $fetch.json.ok == true
  - id: show
    stdin: $fan.json
    run: |
      cat
      echo "${who}" # done
  - id: fetch
    run: echo duplicate
  - id: broken
    retry: {max: -1}
"""
LINES = BASE.splitlines(keepends=True)
INSERTS = ["# a comment\n", "\n", "  - id: added\n    run: echo added\n", "    timeout_ms: 5\n", "x", " ", "  - id: fan\n    run: echo again\n"]


def dumped(result: CompileResult[Workflow]) -> tuple[object, ...]:
    """Everything a compile gives, positions (offsets, lines, columns) included."""
    ir = to_json(result.ir) if result.ir is not None else None
    return ir, [(d.code, d.severity, d.message, d.span.to_list(), d.hint) for d in result.diagnostics]


edits = st.lists(st.tuples(st.integers(0, len(LINES)), st.sampled_from(["insert", "delete"]), st.sampled_from(INSERTS)),
                 min_size=1, max_size=6)


@settings(max_examples=120, deadline=None)
@given(edits=edits)
def test_every_version_compiles_as_it_would_afresh(edits: list[tuple[int, str, str]]) -> None:
    lines, cache = list(LINES), StepCache()
    for at, kind, text in [(0, "insert", ""), *edits]:
        at = min(at, len(lines))
        if kind == "insert":
            lines.insert(at, text)
        elif lines:
            del lines[min(at, len(lines) - 1)]
        source = "".join(lines)
        with reusing_steps(cache):
            reused = compile_workflow(source, "doc.lobster")
        assert dumped(reused) == dumped(compile_workflow(source, "doc.lobster"))


def test_an_edit_above_the_steps_moves_them_all_without_compiling_them() -> None:
    cache = StepCache()
    with reusing_steps(cache):
        compile_workflow(BASE, "doc.lobster")
        assert cache.reused == 0
        moved = compile_workflow("# new first line\n" + BASE, "doc.lobster")
    assert cache.reused == 7
    assert dumped(moved) == dumped(compile_workflow("# new first line\n" + BASE, "doc.lobster"))


def test_a_changed_id_recompiles_the_steps_after_it() -> None:
    cache = StepCache()
    with reusing_steps(cache):
        compile_workflow(BASE, "doc.lobster")
        compile_workflow(BASE.replace("id: fan\n", "id: fan2\n"), "doc.lobster")
    assert cache.reused == 1  # only `fetch`: every later step may now (not) be a duplicate


def test_real_workflows_compile_the_same_through_the_cache() -> None:
    for path in sorted([*ROOT.glob("examples/*.lobster"), *Path(ROOT / "tests" / "lint" / "corpus_real").glob("*")])[:80]:
        text = path.read_text(encoding="utf-8")
        cache = StepCache()
        with reusing_steps(cache):
            compile_workflow(text, path.name)
            again = compile_workflow("\n" + text, path.name)
        assert dumped(again) == dumped(compile_workflow("\n" + text, path.name)), path
