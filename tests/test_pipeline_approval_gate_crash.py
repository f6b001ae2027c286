"""A run approved at an `approve` stage of a `pipeline:` step and killed (SIGKILL) in a stage after it: `lobster resume
--run ID --retry-step` continues after the approve stage with the approved items, never asking again and never
re-running the stages before it or the steps before the step.

The runs are real `lobster` processes; side effects are counted in a ledger.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from test_nested_gates_crash import env, ledger, lobster, resume_and_kill

__all__ = ["env"]  # the fixture, shared with the nested-gate crash tests

AFTER = """echo "after $(cat)" >> "$LEDGER"; [ -e "$MARK" ] || { touch "$MARK"; echo $$ > "$SLEEPER"; exec sleep 30; }
echo '["done"]'
"""
TOP = """steps:
  - id: first
    run: echo first >> "$LEDGER"
  - id: review
    pipeline: exec --json --shell 'echo listed >> "$LEDGER"; echo "[7]"' | approve --prompt 'Delete?' | exec --json --stdin json --shell 'sh approved.sh'
"""
LOOP = """steps:
  - id: items
    run: echo '[1]'
  - id: loop
    for_each: $items.json
    steps:
      - id: q
        pipeline: exec --json --shell 'echo listed >> "$LEDGER"; echo "[7]"' | approve --prompt 'Ok?' | exec --json --stdin json --shell 'sh approved.sh'
"""


def test_killed_after_approving_a_top_level_stage_continues_after_it(tmp_path: Path, env: dict[str, str]) -> None:
    (tmp_path / "approved.sh").write_text(AFTER)
    (tmp_path / "top.lobster").write_text(TOP)
    halted = lobster(env, tmp_path, "run", "--mode", "tool", "top.lobster")
    assert halted["requiresApproval"]["items"] == [7], halted
    run_id = resume_and_kill(env, tmp_path, halted)  # killed in the stage after the approval
    done = lobster(env, tmp_path, "resume", "--run", run_id, "--retry-step")
    assert done["ok"] and done["status"] == "ok" and done["output"] == ["done"], done  # not asked again
    assert ledger(env) == Counter(["first", "listed", "after [7]", "after [7]"])  # only what ran after it twice


def test_killed_after_approving_a_stage_in_a_loop_continues_after_it(tmp_path: Path, env: dict[str, str]) -> None:
    (tmp_path / "approved.sh").write_text(AFTER)
    (tmp_path / "loop.lobster").write_text(LOOP)
    halted = lobster(env, tmp_path, "run", "--mode", "tool", "loop.lobster")
    assert halted["requiresApproval"]["path"] == "loop[0] > q", halted
    run_id = resume_and_kill(env, tmp_path, halted)
    done = lobster(env, tmp_path, "resume", "--run", run_id, "--retry-step")
    assert done["ok"] and done["output"] == [{"item": 1, "index": 0, "q": "done"}], done
    assert ledger(env) == Counter(["listed", "after [7]", "after [7]"])
