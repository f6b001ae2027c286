"""The dry run's shortcuts on large files change nothing it reports, nor its exit code."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from test_teardown import RETURNING, WHOLE_PROCESS, _run

from lobsterlang.compile import compile_workflow
from lobsterlang.interpret.pipeline import runtime
from lobsterlang.interpret.process import Cancellation
from lobsterlang.interpret.workflow.context import Frame
from lobsterlang.interpret.workflow.errors import WorkflowError
from lobsterlang.interpret.workflow.plan import WRITE_LINES, Planner, describe_plan, write_plan


def _frame(steps: str) -> Frame:
    workflow = compile_workflow(f"args:\n  n:\n    default: x\nsteps:\n{steps}", "plan.lobster").ir
    assert workflow is not None
    return Frame(workflow, "plan.lobster", {"n": "y"}, {"PATH": "/bin"}, "/", Cancellation())  # a caller's value


def _plan(steps: str) -> str:
    return describe_plan(_frame(steps), 0)


def test_the_plan_is_written_in_pieces_that_make_its_text() -> None:
    steps = "  - id: s0\n    run: echo\n" + "".join(
        f"  - id: s{n}\n    when: $s0.exitCode == 0\n    run: echo ${{n}} {n}\n    timeout_ms: 5\n" for n in range(1, WRITE_LINES)
    )
    lines = Planner(_frame(steps)).plan(0)
    assert len(lines) > 2 * WRITE_LINES
    writes: list[str] = []
    out = io.StringIO()
    out.write = writes.append  # type: ignore[method-assign,assignment]
    write_plan(_frame(steps), 0, False, out)
    assert len(writes) == -(-len(lines) // WRITE_LINES)
    assert "".join(writes) == "\n".join(lines) + "\n" == describe_plan(_frame(steps), 0)
    assert "".join(writes).startswith(f"[DRY RUN] Would execute {WRITE_LINES} steps:\n  args: n=\"y\" (given)\n\n  1. s0  [shell]\n")


def test_a_failing_plan_writes_nothing() -> None:
    out = io.StringIO()
    with pytest.raises(WorkflowError, match="unknown command: nosuch"):
        write_plan(_frame("  - id: a\n    run: echo hi\n  - id: b\n    pipeline: nosuch\n"), 0, False, out)
    assert out.getvalue() == ""


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


_FLOW = "args:\n  n:\n    default: x\nsteps:\n  - id: a\n    run: echo ${n}\n  - id: b\n    when: $a.exitCode == 0\n    pipeline: where 'a>1' | head\n"


@pytest.mark.parametrize("argv", [["run", "--dry-run", "flow.lobster"], ["run", "--mode", "tool", "--dry-run", "flow.lobster"]])
def test_a_dry_run_alone_leaves_its_ir_to_the_exit(argv: list[str], tmp_path: Path) -> None:
    """`lobster run --dry-run FILE` ends the process once the plan is written; same output, same exit code."""
    (tmp_path / "flow.lobster").write_text(_FLOW, encoding="utf-8")
    code, out, err = _run(WHOLE_PROCESS, argv, tmp_path)
    assert err.endswith("<hard exit 0>")
    assert (code, out, err.removesuffix("<hard exit 0>")) == _run(RETURNING, argv, tmp_path)
    assert "[DRY RUN] Would execute 2 steps:" in (out + err)


def test_a_failing_dry_run_exits_the_usual_way(tmp_path: Path) -> None:
    (tmp_path / "flow.lobster").write_text(_FLOW.replace("where", "nosuch"), encoding="utf-8")
    code, _, err = _run(WHOLE_PROCESS, ["run", "--dry-run", "flow.lobster"], tmp_path)
    assert code == 1 and "unknown command: nosuch" in err and "<hard exit" not in err
