"""Linting frees each file's contexts and IR by reference counting: it leaves no reference cycles.

A cycle through a context would keep its whole IR alive until a full collection, and a
long-running process (the language server lints on every edit) would grow meanwhile.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from lobsterlang.lint import Config, Source, lint_sources

# Raw args in shell text (L301, L306), a suppression comment and a `run:` script: the
# findings and the suppression read the context's text map, which once held the context.
WORKFLOW = b"""\
args:
  name: {default: x}
steps:
  - id: greet  # lobster: ignore[L301]
    run: |
      echo ${name}
      ls ${name}
  - id: list
    pipeline: exec --shell "ls ${name}" | head --n 2
  - id: send
    when: $list.json.count == 1
    run: mail send --to ${name}
"""


@pytest.fixture
def collector_off() -> Iterator[None]:
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


@pytest.mark.parametrize("shellcheck", [False, True])
@pytest.mark.usefixtures("collector_off")
def test_linting_leaves_no_cyclic_garbage(shellcheck: bool) -> None:
    results = lint_sources([Source("a.lobster", WORKFLOW), Source("b.lobster", WORKFLOW)], Config(shellcheck=shellcheck, target="reference"))
    assert {d.code for d in results[0].diagnostics} >= {"L301", "L306"}
    del results
    assert gc.collect() == 0
