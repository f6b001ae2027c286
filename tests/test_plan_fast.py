"""The dry run's shortcuts on large files change nothing it reports: each stage name is looked up once."""

from __future__ import annotations

import pytest

from lobsterlang.compile import compile_workflow
from lobsterlang.interpret.pipeline import runtime
from lobsterlang.interpret.process import Cancellation
from lobsterlang.interpret.workflow.context import Frame
from lobsterlang.interpret.workflow.errors import WorkflowError
from lobsterlang.interpret.workflow.plan import describe_plan


def _plan(steps: str) -> str:
    workflow = compile_workflow(f"args:\n  n:\n    default: x\nsteps:\n{steps}", "plan.lobster").ir
    assert workflow is not None
    return describe_plan(Frame(workflow, "plan.lobster", {"n": "x"}, {"PATH": "/bin"}, "/", Cancellation()), 0)


def test_each_stage_name_is_looked_up_once(monkeypatch: pytest.MonkeyPatch) -> None:
    looked_up: list[str] = []
    lookup = runtime.lookup

    def counting(name: str) -> runtime.Command:
        looked_up.append(name)
        return lookup(name)

    monkeypatch.setattr(runtime, "lookup", counting)
    steps = "".join(f"  - id: s{n}\n    pipeline: exec --shell 'echo {n}' | where 'a>1' | head --n 2\n" for n in range(5))
    plan = _plan(steps)
    assert plan.count("[pipeline]") == 5
    assert sorted(looked_up) == ["exec", "head", "where"]


def test_an_unknown_stage_after_known_ones_still_fails() -> None:
    steps = "  - id: a\n    pipeline: where 'a>1' | head\n  - id: b\n    pipeline: where 'a>1' | nosuch | head\n"
    with pytest.raises(WorkflowError, match="Workflow step b pipeline references unknown command: nosuch"):
        _plan(steps)


def test_exec_shell_lines_are_checked_in_every_step() -> None:
    """The exec line's arithmetic check runs for each stage, though `exec` itself is looked up once."""
    steps = "  - id: a\n    pipeline: exec --shell 'echo 1'\n  - id: b\n    pipeline: exec --shell 'echo $((${n} + 1))'\n"
    with pytest.raises(WorkflowError, match=r"arg n is used in \$\(\(…\)\)"):
        _plan(steps)



_PLACES = {
    "step": "  - id: a\n    run: echo hi\n  - id: b\n    run: {run}\n",
    "branch": "  - id: a\n    run: echo hi\n  - id: b\n    parallel:\n      branches:\n        - id: c\n          run: {run}\n",
    "sub-step": "  - id: a\n    run: echo '[1]'\n  - id: b\n    for_each: $a.json\n    steps:\n      - id: c\n        run: {run}\n",
}


@pytest.mark.parametrize("before", ["echo", "echo $a.stdout"])
@pytest.mark.parametrize("place", sorted(_PLACES))
def test_shell_text_is_checked_wherever_it_stands(place: str, before: str) -> None:
    """The plan checks a shell line once before rendering it, with or without step refs beside the arg."""
    with pytest.raises(WorkflowError, match=r"arg n is used in \$\(\(…\)\)"):
        _plan(_PLACES[place].format(run=before + " $((${n} + 1))"))
    assert f'{before} $((1 + 1)) "${{LOBSTER_ARG_N}}"' in _plan(_PLACES[place].format(run=before + " $((1 + 1)) ${n}"))
