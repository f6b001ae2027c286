"""The approval rules with gates anywhere: an approval sub-step, branch or sub-workflow step gates what runs after it
(and only that)."""

from __future__ import annotations

from pathlib import Path

import pytest

from lobsterlang.compile import compile_workflow
from lobsterlang.diagnostics import Diagnostic
from lobsterlang.lint import Config, Source, lint_source

LOBSTERLANG = Config(shellcheck=False)
REFERENCE = Config(shellcheck=False, target="reference")
POST = "curl -X POST -d @- https://example.com/send"


def lint(text: str, config: Config = LOBSTERLANG, path: str = "f.lobster") -> list[Diagnostic]:
    assert compile_workflow(text, path).ok
    return list(lint_source(Source(path, text), config).diagnostics)


def found(text: str, code: str, config: Config = LOBSTERLANG) -> list[tuple[int, str]]:
    return [(d.span.line, d.message) for d in lint(text, config) if d.code == code]


FAN = f"""\
steps:
  - id: data
    run: echo '[1]'
  - id: fan
    parallel:
      wait: {{wait}}
      branches:
        - id: ok
          stdin: $data.json
          approval: Send these records?
        - id: look
          {{sibling}}
  - id: send
    stdin: $data.json
    run: {POST}
"""


def test_an_approval_branch_gates_the_steps_after_its_parallel_step_not_its_siblings() -> None:
    """Under `wait: all` the parallel step ends only once the branch's gate was answered; the sibling runs meanwhile."""
    gated = FAN.format(wait="all", sibling="run: echo hi")
    assert found(gated, "L401") == []
    sibling = FAN.format(wait="all", sibling=f"run: {POST}")
    [(line, message)] = found(sibling, "L401")
    assert line == 12 and message.endswith("; approval branch `ok` runs at the same time")


@pytest.mark.parametrize(("wait", "config", "why"), [
    ("any", LOBSTERLANG, "under `wait: any` another branch can win"),
    ("all", REFERENCE, "the reference ignores `approval:` on a branch"),
])
def test_an_approval_branch_that_may_never_ask_gates_nothing(wait: str, config: Config, why: str) -> None:
    [(line, message)] = found(FAN.format(wait=wait, sibling="run: echo hi"), "L401", config)
    assert line == 15 and message.endswith(f"; approval branch `ok` of `fan` may never ask: {why}")


LOOP = f"""\
steps:
  - id: data
    run: echo '["a", "b"]'
  - id: loop
    for_each: $data.json
    item_var: row
    steps:
      - id: ok
        stdin: $row.json
        approval: Send this record?
      - id: each
        {{each}}
  - id: send
    stdin: $data.json
    run: {POST}
"""


def test_an_approval_sub_step_does_not_gate_the_steps_after_its_loop_and_the_finding_says_why() -> None:
    [(line, message)] = found(LOOP.format(each="run: echo hi"), "L401")
    assert line == 15
    assert message.endswith("; approval sub-step `ok` of loop `loop` asks once per item: not at all for an empty list")


def test_an_effect_before_the_approval_sub_step_of_its_loop_is_not_gated_and_the_finding_says_why() -> None:
    text = "steps:\n  - id: loop\n    for_each: '[1]'\n    steps:\n      - id: send\n        run: curl -X POST https://x\n" \
           "      - id: ok\n        approval: Was the record right?\n"
    [(line, message)] = found(text, "L401")
    assert line == 6 and message.endswith("; approval sub-step `ok` comes after it in the loop")


SUB_WORKFLOW = f"""\
steps:
  - id: draft
    pipeline: llm.invoke --prompt 'Write the release mail'
  - id: review
    workflow: review.lobster
  - id: send
    stdin: $draft.json
    run: {POST}
"""
REVIEW = "steps:\n  - id: show\n    stdin: '{{\"to\": \"all\"}}'\n    approval: {approval}\n"


@pytest.mark.parametrize("when", ["", "\n    when: $show.json.to"])
def test_the_approval_step_of_a_sub_workflow_gates_the_steps_after_it(tmp_path: Path, when: str) -> None:
    (tmp_path / "review.lobster").write_text(REVIEW.format(approval="Send the release mail?") + when)
    path = tmp_path / "main.lobster"
    path.write_text(SUB_WORKFLOW)
    codes = {d.code for d in lint_source(Source(str(path), SUB_WORKFLOW), LOBSTERLANG).diagnostics}
    assert codes == (set() if not when else {"L401", "L408"})  # an approval with a condition may not ask
    reference = {d.code for d in lint_source(Source(str(path), SUB_WORKFLOW), REFERENCE).diagnostics}
    assert {"L401", "L408"} <= reference  # the reference fails the calling step at the child's gate


def test_a_nested_approval_with_nothing_after_it_gates_nothing() -> None:
    branch = "steps:\n  - id: fan\n    parallel:\n      branches:\n        - id: ok\n          approval: Is the deploy done?\n" \
             "        - id: act\n          run: curl -X POST https://x\n"
    [(line, message)] = found(branch, "L402")
    assert line == 6 and "its sibling branches run at the same time and no step runs after `fan`" in message
    loop = "steps:\n  - id: loop\n    for_each: '[1]'\n    steps:\n      - id: look\n        run: echo hi\n" \
           "      - id: ok\n        approval: Is the record right?\n"
    assert [line for line, _ in found(loop, "L402")] == [8]  # only a read runs after it (the next item's)
    acting = loop.replace("run: echo hi", "run: curl -X POST https://x")  # the next item's effect waits for it
    assert found(acting, "L402") == []


def test_a_nested_approval_that_shows_nothing_is_blind() -> None:
    loop = LOOP.format(each="run: echo hi").replace("        stdin: $row.json\n        approval: Send this record?", "        approval: Approve?")
    assert [line for line, _ in found(loop, "L406")] == [9]
    fan = FAN.format(wait="all", sibling="run: echo hi")
    branch = fan.replace("          stdin: $data.json\n          approval: Send these records?", "          approval: ok?")
    assert [line for line, _ in found(branch, "L406")] == [9]


def test_the_approval_sub_step_before_an_effect_is_the_one_that_must_show_its_data() -> None:
    other = LOOP.format(each=f"stdin: $other.json\n        run: {POST}").replace(
        "  - id: loop", "  - id: other\n    run: echo '[2]'\n  - id: loop")
    assert [message for _, message in found(other, "L405")] == ["approval `ok` showed $data, $row, but `each` acts on `$other.json`"]
    item = LOOP.format(each=f"stdin: $row.json\n        run: {POST}")  # shows the item: the loop's list, item by item
    assert found(item, "L405") == []


def test_model_output_approved_in_a_loop_or_a_branch() -> None:
    model = "  - id: data\n    pipeline: llm.invoke --prompt 'Write the records'\n"
    in_loop = LOOP.format(each=f"stdin: $data.json\n        run: {POST}").replace("  - id: data\n    run: echo '[\"a\", \"b\"]'\n", model)
    assert [line for line, _ in found(in_loop, "L408")] == [15]  # the step after the loop, not the sub-step after `ok`
    in_branch = FAN.format(wait="all", sibling=f"stdin: $data.json\n          run: {POST}").replace("  - id: data\n    run: echo '[1]'\n", model)
    assert [line for line, _ in found(in_branch, "L408")] == [12]  # the sibling, not the step after `fan`


def test_a_retried_loop_or_parallel_step_repeats_the_effects_of_its_sub_steps_once_reported() -> None:
    loop = LOOP.format(each=f"run: {POST}").replace("    item_var: row\n", "    item_var: row\n    retry: {max: 3}\n")
    assert [m for _, m in found(loop, "L404")] == [
        "step `loop` is retried, but its sub-step `each` runs `curl -X POST`: a retry can repeat the effect"]
    fan = FAN.format(wait="all", sibling=f"run: {POST}").replace("    parallel:\n", "    retry: {max: 2}\n    parallel:\n")
    fan = fan.replace("approval: Send these records?", f"run: {POST}")
    assert [line for line, _ in found(fan, "L404")] == [5]


CONDITION = """\
steps:
  - id: ok
    approval: Start the rollout?
  - id: loop
    for_each: '[1]'
    steps:
{before}      - id: ok
        {gate}
      - id: use
        when: "!$ok.approved"
        run: echo hi
"""


@pytest.mark.parametrize(("before", "gate", "lines"), [
    ("", "run: echo '{}'", []),  # `$ok` is the sub-step, not the approval step
    ("", "approval: Roll out this item?", [10]),  # the approval sub-step asked before
    ("      - id: early\n        when: \"!$ok.approved\"\n        run: echo hi\n", "run: echo '{}'", [8]),  # before the sub-step: the step
])
def test_approved_is_read_where_the_id_means_a_gate(before: str, gate: str, lines: list[int]) -> None:
    assert [line for line, _ in found(CONDITION.format(before=before, gate=gate), "L502")] == lines


def test_an_approval_branch_is_approved_after_its_parallel_step() -> None:
    text = FAN.format(wait="all", sibling="run: echo hi").replace("    stdin: $data.json\n    run:", "    when: '!$ok.approved'\n    run:")
    assert [line for line, _ in found(text, "L502")] == [14]


def test_a_sub_step_id_that_repeats_a_step_id_means_the_step_before_it() -> None:
    [(_, message)] = found(CONDITION.format(before="", gate="run: echo '{}'"), "L501")
    assert message.endswith("in the sub-steps after it `$ok` means the sub-step, before it and outside the loop the step")


APPROVE_STAGE = """\
steps:
  - id: review
    pipeline: exec --json --shell 'cat drafts.json' | approve --prompt 'Send these drafts?'{then}
  - id: send
    stdin: $review.json
    run: mailer send --from-stdin
"""


def test_an_approve_stage_gates_the_stages_after_it_and_the_steps_after_its_step() -> None:
    """The run halts at the stage (lobsterlang; the reference fails the step there, on a terminal both ask)."""
    assert found(APPROVE_STAGE.format(then=" | gog.gmail.send"), "L401") == []
    assert 3 not in [line for line, _ in found(APPROVE_STAGE.format(then=" | gog.gmail.send"), "L401", REFERENCE)]
    before = "pipeline: exec --json --shell 'curl -X POST https://x' | approve --prompt 'Was that right?'"
    assert [code for code in ("L401", "L407") if found(APPROVE_STAGE.format(then="").replace(
        "pipeline: exec --json --shell 'cat drafts.json' | approve --prompt 'Send these drafts?'", before), code)] == ["L401", "L407"]


def test_an_approve_stage_in_a_sub_step_gates_the_later_sub_steps_only() -> None:
    text = LOOP.format(each=f"run: {POST}").replace(
        "        stdin: $row.json\n        approval: Send this record?",
        "        stdin: $row.json\n        pipeline: approve --preview-from-stdin --prompt 'Send this record?'")
    [(line, message)] = found(text, "L401")
    assert line == 15 and message.endswith("; sub-step `ok` (`approve` stage) of loop `loop` asks once per item: not at all for an empty list")
