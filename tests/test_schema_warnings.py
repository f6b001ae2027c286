"""Warnings for what the reference silently ignores, and errors reported exactly once."""

from __future__ import annotations

import pytest

from lobsterlang.compile import compile_workflow


def _codes(source: str, path: str = "w.lobster") -> list[str]:
    return [f"{d.span.line}:{d.code}" for d in compile_workflow(source, path).diagnostics]


@pytest.mark.parametrize(
    "source, expected",
    [
        ("steps:\n  - id: a\n    run: echo\n    approval: 5\n", ["4:W013"]),
        ("steps:\n  - id: a\n    run: echo\n    approval: false\n", []),
        ("steps:\n  - id: a\n    run: echo\n    retries: 3\n", ["4:W001"]),
        ("nmae: x\nsteps:\n  - id: a\n    run: echo\n", ["1:W001"]),
        ("x-shared: &c echo\n$schema: s.json\nsteps:\n  - id: a\n    run: *c\n", []),
        ("steps:\n  - id: a\n    run: echo\n    env: {N: 5}\n", ["4:W003"]),
        ("steps:\n  - id: a\n    run: echo\n    command: echo 2\n", ["4:W002"]),
        ("steps:\n  - id: a\n    run: echo\n    when: true\n    condition: false\n", ["5:W006"]),
        (
            "steps:\n  - id: l\n    for_each: $x.json\n    steps:\n      - id: s\n        run: echo\n        retry: {max: 2}\n",
            ["7:W009"],
        ),
        ("steps:\n  - id: a\n    run: echo\n    approval: {prompt: p, prompt: q}\n", ["4:E007"]),
        ("steps:\n  - id: a\n    parallel:\n      branches:\n        - id: a\n          run: echo\n", ["5:S106"]),
    ],
)
def test_diagnostics(source: str, expected: list[str]) -> None:
    assert _codes(source) == expected


def test_json_duplicate_key_is_a_warning_reported_once() -> None:
    source = '{"steps": [{"id": "a", "run": "echo", "approval": {"prompt": "p", "prompt": "q"}}]}'
    assert _codes(source, "w.json") == ["1:W011"]
