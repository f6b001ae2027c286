"""A dry run of a large workflow: no collector passes over the IR while the plan is built."""

from __future__ import annotations

import gc

from lobsterlang.compile import compile_workflow
from lobsterlang.interpret.process import Cancellation
from lobsterlang.interpret.workflow.context import Frame
from lobsterlang.interpret.workflow.plan import describe_plan


def test_planning_a_large_workflow_runs_no_collection() -> None:
    steps = "".join(f"  - id: s{n}\n    run: echo ${{who}} {n} | tr a b\n" for n in range(3000))
    workflow = compile_workflow(f"args:\n  who:\n    default: me\nsteps:\n{steps}", "big.lobster").ir
    assert workflow is not None
    frame = Frame(workflow, "big.lobster", {"who": "you"}, {"PATH": "/bin"}, "/", Cancellation())  # a caller's value
    collections: list[str] = []

    def count(phase: str, info: dict[str, int]) -> None:
        collections.append(phase)

    gc.callbacks.append(count)
    try:
        plan = describe_plan(frame, 0)
    finally:
        gc.callbacks.remove(count)
    assert plan.count("[shell]") == 3000
    assert 'run: echo "${LOBSTER_ARG_WHO}" 2999 | tr a b' in plan
    assert collections == []
    assert gc.isenabled()
