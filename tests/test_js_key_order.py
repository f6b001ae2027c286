"""Objects print their keys in JavaScript's order (integer-like keys first, ascending), checked against Node itself."""

from __future__ import annotations

import json
import random
import shutil
import subprocess

import pytest

from lobsterlang.interpret.jsorder import MAX_INDEX, is_index, js_ordered, may_reorder
from lobsterlang.interpret.values import stringify

EDGE_KEYS = ["0", "1", "2", "10", "01", "00", "-1", "-0", "1.5", "1e3", " 1", "1 ", "+1", "٣", "²",
             str(MAX_INDEX), str(MAX_INDEX + 1), "99999999999", "a", "b", "z", "", "__proto__x", "é"]


def random_objects(count: int) -> list[object]:
    rng = random.Random(18)

    def value(depth: int) -> object:
        roll = rng.random()
        if depth < 3 and roll < 0.3:
            return {rng.choice(EDGE_KEYS): value(depth + 1) for _ in range(rng.randint(0, 6))}
        if depth < 3 and roll < 0.4:
            return [value(depth + 1) for _ in range(rng.randint(0, 3))]
        return rng.choice([1, "x", None, True, 2.5])

    return [value(0) for _ in range(count)]


@pytest.mark.skipif(shutil.which("node") is None, reason="needs Node")
def test_stringify_orders_keys_as_node_does() -> None:
    objects = random_objects(300)
    script = "const a = JSON.parse(require('fs').readFileSync(0, 'utf8')); console.log(JSON.stringify(a.map(o => JSON.stringify(o))))"
    node = subprocess.run(["node", "-e", script], input=json.dumps(objects), capture_output=True, text=True, check=True)
    expected = json.loads(node.stdout)
    assert [stringify(o) for o in objects] == expected


def test_only_canonical_integers_up_to_the_largest_array_index_are_indices() -> None:
    assert [k for k in EDGE_KEYS if is_index(k)] == ["0", "1", "2", "10", str(MAX_INDEX)]


def test_output_without_integer_keys_is_not_rebuilt() -> None:
    assert not may_reorder(stringify({"a": {"b": [1, "2", {"c": "3"}]}, "d": "0"}))
    data = {"a": 1}
    assert js_ordered(data) == data and stringify({"b": 1, "2": 2}) == '{"2":2,"b":1}'
