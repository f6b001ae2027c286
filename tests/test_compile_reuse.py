"""An editor's successive compiles of one document reuse unchanged steps: the IR and diagnostics are exactly
those of compiling each version afresh, wherever the edits fall (before, inside or between steps)."""

from __future__ import annotations

from pathlib import Path

import pytest
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
INSERTS = [
    "# a comment\n", "\n", "  - id: added\n    run: echo added\n", "    timeout_ms: 5\n", "x", " ", "  - id: fan\n    run: echo again\n",
    # What may swallow the steps after it, end the list, or make the text invalid:
    '    run: "unterminated\n', "    x: [1,\n", "    note: 'open\n", "    run: |\n      a # b\n", "---\n", "name: top\n",
    "  - - id: nested\n", "  -- id: z\n", "\t- id: tab\n", "      - id: deep\n", "  # between\n", "steps:\n", "  - &a id: x\n",
]


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
        with reusing_steps(cache, "doc.lobster"):
            reused = compile_workflow(source, "doc.lobster")
        assert dumped(reused) == dumped(compile_workflow(source, "doc.lobster"))


TYPED = "x:-# '\"[{|&*\n\t"


@settings(max_examples=150, deadline=None)
@given(typed=st.lists(st.tuples(st.floats(0, 1), st.sampled_from(TYPED), st.booleans()), min_size=1, max_size=8))
def test_every_version_compiles_as_it_would_afresh_while_typing(typed: list[tuple[float, str, bool]]) -> None:
    """Characters typed or deleted anywhere, one version each (steps left out of composing included)."""
    text, cache = BASE, StepCache()
    with reusing_steps(cache, "doc.lobster"):
        compile_workflow(text, "doc.lobster")
    for where, char, insert in typed:
        at = int(where * len(text))
        text = text[:at] + char + text[at:] if insert else text[:at] + text[at + 1 :]
        with reusing_steps(cache, "doc.lobster"):
            reused = compile_workflow(text, "doc.lobster")
        assert dumped(reused) == dumped(compile_workflow(text, "doc.lobster")), text


def test_a_file_with_windows_line_breaks_leaves_its_unchanged_steps_out_too() -> None:
    crlf, cache = BASE.replace("\n", "\r\n"), StepCache()
    mixed = crlf.replace("id: gate\r\n", "id: gate\n")
    with reusing_steps(cache, "doc.lobster"):
        compile_workflow(crlf, "doc.lobster")
        for text in ("# first\r\n" + crlf, "# again\r\n" + mixed, "#\n" + mixed):
            reused = compile_workflow(text, "doc.lobster")
            assert dumped(reused) == dumped(compile_workflow(text, "doc.lobster"))
            assert cache.left_out


def test_a_flow_list_of_steps_is_composed_whole() -> None:
    flow = "steps: [{id: a, run: x}, {id: b, run: y},\n  {id: c, run: z}]  # the keys of a flow list own comments\n"
    cache = StepCache()
    with reusing_steps(cache, "doc.lobster"):
        compile_workflow(flow, "doc.lobster")
        reused = compile_workflow("\n" + flow, "doc.lobster")
    assert cache.left_out == {}
    assert dumped(reused) == dumped(compile_workflow("\n" + flow, "doc.lobster"))


def test_unchanged_steps_are_not_composed_again() -> None:
    cache, moved = StepCache(), "# new first line\n" + BASE
    with reusing_steps(cache, "doc.lobster"):
        compile_workflow(BASE, "doc.lobster")
        compile_workflow(moved, "doc.lobster")
    # Every step but the last (`broken`), and but those holding a `#` (`show`: the comment survey reads its keys).
    assert [moved[at : moved.index("\n", at)] for at in sorted(cache.left_out)] == [
        "id: fetch", "id: fan", "id: loop", "id: gate", "id: fetch"]


HOSTILE = {
    "the list renamed": BASE.replace("steps:", "stepz:"),
    "the list moved under a key": BASE.replace("steps:\n", "other:\n steps:\n"),
    "a quote left open": BASE.replace("run: echo '{", "run: \"echo '{"),
    "a flow list left open": BASE.replace("for_each: $fetch.json.items", "for_each: [$fetch.json.items"),
    "an item made a nested list": BASE.replace("  - id: gate", "  - - id: gate"),
    "a second document": BASE.replace("  - id: gate", "---\n  - id: gate"),
    "an anchor": BASE.replace("  - id: gate", "  - &g\n    id: gate"),
}


@pytest.mark.parametrize("name", HOSTILE)
def test_an_edit_that_changes_what_the_steps_are_part_of_is_composed_afresh(name: str) -> None:
    """(The placeholders of `compile.recompose` would stand somewhere else than their steps did.)"""
    cache, text = StepCache(), HOSTILE[name]
    with reusing_steps(cache, "doc.lobster"):
        compile_workflow(BASE, "doc.lobster")
        reused = compile_workflow(text, "doc.lobster")
    assert dumped(reused) == dumped(compile_workflow(text, "doc.lobster"))


def test_an_edit_above_the_steps_moves_them_all_without_compiling_them() -> None:
    cache = StepCache()
    with reusing_steps(cache, "doc.lobster"):
        compile_workflow(BASE, "doc.lobster")
        assert cache.reused == 0
        moved = compile_workflow("# new first line\n" + BASE, "doc.lobster")
    assert cache.reused == 7
    assert dumped(moved) == dumped(compile_workflow("# new first line\n" + BASE, "doc.lobster"))


def test_another_file_compiled_meanwhile_neither_uses_nor_changes_the_cache() -> None:
    """A lint rule reads sub-workflows while the language server lints a document with its cache."""
    cache = StepCache()
    with reusing_steps(cache, "doc.lobster"):
        first = compile_workflow(BASE, "doc.lobster")
        child = compile_workflow(BASE, "child.lobster")
        moved = compile_workflow("# new first line\n" + BASE, "doc.lobster")
    assert first.ir is not None and child.ir is not None and moved.ir is not None
    assert child.ir.steps[0] is not first.ir.steps[0]
    assert cache.reused == 7 and moved.ir.steps[0] is first.ir.steps[0]


def test_a_changed_id_recompiles_the_steps_after_it() -> None:
    cache = StepCache()
    with reusing_steps(cache, "doc.lobster"):
        compile_workflow(BASE, "doc.lobster")
        compile_workflow(BASE.replace("id: fan\n", "id: fan2\n"), "doc.lobster")
    assert cache.reused == 1  # only `fetch`: every later step may now (not) be a duplicate


REAL = sorted([*ROOT.glob("examples/*.lobster"), *Path(ROOT / "tests" / "lint" / "corpus_real").glob("*")])


def test_real_workflows_compile_the_same_through_the_cache() -> None:
    for path in REAL:
        text = path.read_text(encoding="utf-8")
        cache = StepCache()
        with reusing_steps(cache, path.name):
            compile_workflow(text, path.name)
            again = compile_workflow("\n" + text, path.name)
        assert dumped(again) == dumped(compile_workflow("\n" + text, path.name)), path


@settings(max_examples=100, deadline=None)
@given(path=st.sampled_from(REAL), edits=st.lists(st.tuples(st.floats(0, 1), st.sampled_from(INSERTS)), min_size=1, max_size=4))
def test_real_workflows_compile_the_same_after_random_edits(path: Path, edits: list[tuple[float, str]]) -> None:
    text, cache = path.read_text(encoding="utf-8"), StepCache()
    with reusing_steps(cache, path.name):
        compile_workflow(text, path.name)
    for where, insert in edits:
        lines = text.splitlines(keepends=True)
        at = int(where * len(lines))
        text = "".join([*lines[:at], insert, *lines[at:]])
        with reusing_steps(cache, path.name):
            reused = compile_workflow(text, path.name)
        assert dumped(reused) == dumped(compile_workflow(text, path.name)), text
