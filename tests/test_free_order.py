"""`sort` and `groupBy` let go of their items in the order they came (from the end), not in sorted or grouped order.

Freeing a million items in random memory order costs five to ten times more CPU than in the order
they were made; these tests pin the order, not a timing.
"""

from __future__ import annotations

import pytest

from lobsterlang.compile import compile_pipeline
from lobsterlang.interpret.pipeline.runtime import RunContext, run_pipeline


class Probe:
    """Records its number when freed."""

    def __init__(self, number: int, freed: list[int]) -> None:
        self.number, self.freed = number, freed

    def __del__(self) -> None:
        self.freed.append(self.number)


@pytest.mark.parametrize(
    "stages",
    [
        "sort --key k --desc | head --n 2",
        "groupBy --key g | pick key,count | head --n 1",
        "sort --key k | where 'k>=0' | pick k | head --n 1",
        "sort --key k | where 'k.x==1' | head --n 1",
        "sort --key k | map 'x={{k}}' | pick x | head --n 1",
        "sort --key k | map --wrap v | pick x | head --n 1",
        "sort --key k | template --text '{{k}}' | head --n 1",
        "sort --key k | template --text '{{k.x}}' | head --n 1",
    ],
)
def test_items_are_freed_in_arrival_order(stages: str) -> None:
    freed: list[int] = []
    keys = [5, 1, 4, 2, 3, 0]
    items = ({"k": k, "g": k % 2, "probe": Probe(n, freed)} for n, k in enumerate(keys))
    pipeline = compile_pipeline(stages).ir
    assert pipeline is not None
    result = run_pipeline(pipeline, items, RunContext())
    kept = {item["probe"].number for item in result.items if "probe" in item}
    assert freed == [n for n in reversed(range(len(keys))) if n not in kept]  # a list lets go from its end
