"""Streaming stages close their input however they end: stopped early, drained, or failing on an item."""

from __future__ import annotations

from typing import Any

import pytest

from lobsterlang.interpret.errors import CommandError
from lobsterlang.interpret.pipeline.args import StageArgs
from lobsterlang.interpret.pipeline.commands.template import run_map, run_template
from lobsterlang.interpret.pipeline.commands.transform import run_pick, run_where
from lobsterlang.interpret.pipeline.runtime import Command, RunContext

STAGES: list[tuple[str, Command, StageArgs]] = [
    ("where number", run_where, StageArgs(["n>=1"], {})),
    ("where text", run_where, StageArgs(["name==x"], {})),
    ("where path", run_where, StageArgs(["a.b>=1"], {})),
    ("pick", run_pick, StageArgs(["n,name"], {})),
    ("map assigned", run_map, StageArgs(["label={{name}}"], {})),
    ("map wrapped", run_map, StageArgs(["label={{name}}"], {"wrap": "x"})),
    ("template keyed", run_template, StageArgs([], {"text": "{{n}} {{name | upper}}"})),
    ("template path", run_template, StageArgs([], {"text": "{{a.b}}"})),
]


class Upstream:
    """Items `{"n": 1..}` (endless without a count) that note whether they were closed: running out does not close them."""

    def __init__(self, count: int | None = None) -> None:
        self.count, self.n, self.closed = count, 0, False

    def __iter__(self) -> Upstream:
        return self

    def __next__(self) -> dict[str, Any]:
        if self.count is not None and self.n >= self.count:
            raise StopIteration
        self.n += 1
        return {"n": self.n, "name": "x", "a": {"b": self.n}}

    def close(self) -> None:
        self.closed = True


@pytest.mark.parametrize(("name", "command", "args"), STAGES, ids=[stage[0] for stage in STAGES])
def test_closing_a_stage_early_closes_its_input(name: str, command: Command, args: StageArgs) -> None:
    upstream = Upstream()
    items = iter(command(upstream, args, RunContext(mode="tool")).items)
    next(items)
    assert not upstream.closed
    items.close()  # type: ignore[attr-defined]
    assert upstream.closed


@pytest.mark.parametrize(("name", "command", "args"), STAGES, ids=[stage[0] for stage in STAGES])
def test_a_drained_stage_has_closed_its_input(name: str, command: Command, args: StageArgs) -> None:
    upstream = Upstream(3)
    assert len(list(command(upstream, args, RunContext(mode="tool")).items)) == 3
    assert upstream.closed


def test_a_stage_failing_on_an_item_closes_its_input() -> None:
    upstream = Upstream()
    items = iter(run_template(upstream, StageArgs([], {"text": "{{n | nope}}"}), RunContext(mode="tool")).items)
    with pytest.raises(CommandError, match="Unknown template filter: nope"):
        next(items)
    assert upstream.closed
