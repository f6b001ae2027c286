"""Gates anywhere: an approval or input gate inside a sub-workflow (at any depth) or a `for_each` body halts the
whole run with one envelope naming the gate's path; resume continues inside, never re-running what finished.

Effects are counted in a ledger file; every shape is checked against the same run answered on a terminal
(uninterrupted), whose output and effects the halted-and-resumed run must equal.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from helpers import write_file

from lobsterlang.cli import main
from lobsterlang.interpret.process import Cancellation
from lobsterlang.interpret.state import StateStore
from lobsterlang.interpret.workflow.context import Frame, Options
from lobsterlang.interpret.workflow.engine import Runner
from lobsterlang.interpret.workflow.loader import load_workflow
from lobsterlang.interpret.workflow.runlog import list_runs

Capture = pytest.CaptureFixture[str]

LEAF = """\
args:
  target: {default: staging}
steps:
  - id: plan
    run: |
      echo "plan ${target}" >> "$LEDGER"; echo '{"plan": "deploy ${target}"}'
  - id: prod_gate
    stdin: $plan.json
    approval: Deploy now?
  - id: apply
    run: |
      echo "apply ${target}" >> "$LEDGER"; echo '"applied ${target}"'
"""
MIDDLE = """\
steps:
  - id: prepare
    run: |
      echo prepare >> "$LEDGER"; echo '"prepared"'
  - id: inner
    workflow: leaf.lobster
    workflow_args: {target: prod}
  - id: report
    stdin: $inner.json
    run: |
      echo report >> "$LEDGER"; cat
"""
DEPTH_TWO = """\
steps:
  - id: first
    run: |
      echo first >> "$LEDGER"; echo '"first"'
  - id: deploy
    workflow: middle.lobster
  - id: after
    stdin: $deploy.json
    run: |
      echo after >> "$LEDGER"; cat
"""
LOOP = """\
steps:
  - id: items
    run: echo '[1, 2, 3]'
  - id: loop
    for_each: $items.json
    item_var: n
    steps:
      - id: prepare
        run: |
          echo "prepare $n.stdout" >> "$LEDGER"; echo '{"n": $n.stdout}'
      - id: confirm
        stdin: $prepare.json
        approval: Ship this item?
      - id: ship
        run: |
          echo "ship $n.stdout" >> "$LEDGER"; echo '"shipped $n.stdout"'
  - id: after
    run: |
      echo after >> "$LEDGER"; echo '"done"'
"""
LOOP_INPUT = """\
steps:
  - id: items
    run: echo '["a", "b"]'
  - id: loop
    for_each: $items.json
    steps:
      - id: show
        run: |
          echo "show $item.stdout" >> "$LEDGER"; echo '{"name": "$item.stdout"}'
      - id: rename
        input:
          prompt: New name?
          responseSchema: {type: object, properties: {name: {type: string}}, required: [name]}
      - id: apply
        stdin: $rename.response
        run: |
          echo "apply $item.stdout $(cat)" >> "$LEDGER"; echo '"applied"'
"""
LOOP_IN_CHILD = """\
steps:
  - id: release
    workflow: looping.lobster
  - id: after
    run: |
      echo after >> "$LEDGER"; echo '"done"'
"""

FAN = """\
steps:
  - id: fan
    parallel:
      branches:
        - id: plain
          run: |
            echo plain >> "$LEDGER"; echo '"plain"'
        - id: eu
          run: |
            echo "plan eu" >> "$LEDGER"; echo '{"region": "eu"}'
          approval: Deploy EU?
        - id: us
          run: |
            echo "plan us" >> "$LEDGER"; echo '{"region": "us"}'
          approval: Deploy US?
  - id: after
    stdin: $fan.json
    run: |
      echo after >> "$LEDGER"; cat
"""
ANY = """\
steps:
  - id: race
    parallel:
      wait: any
      branches:
        - id: gated
          run: |
            echo gated >> "$LEDGER"; echo '"gated"'
          approval: Use this one?
        - id: quick
          run: |
            echo quick >> "$LEDGER"; echo '"quick"'
"""


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("LOBSTER_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("LEDGER", str(tmp_path / "ledger"))
    for name, text in (("leaf.lobster", LEAF), ("middle.lobster", MIDDLE), ("depth.lobster", DEPTH_TWO),
                       ("loop.lobster", LOOP), ("loop_input.lobster", LOOP_INPUT), ("looping.lobster", LOOP),
                       ("loop_in_child.lobster", LOOP_IN_CHILD), ("fan.lobster", FAN), ("any.lobster", ANY)):
        write_file(tmp_path, name, text)
    return tmp_path


def cli(capsys: Capture, *args: str) -> dict[str, Any]:
    main(list(args))
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


def ledger(work: Path) -> Counter[str]:
    path = work / "ledger"
    return Counter(path.read_text().splitlines()) if path.exists() else Counter()


def request_of(envelope: dict[str, Any]) -> dict[str, Any]:
    request = envelope["requiresApproval"] or envelope["requiresInput"]
    assert request is not None, envelope
    return request  # type: ignore[no-any-return]


def answer(capsys: Capture, envelope: dict[str, Any], response: Any = None) -> dict[str, Any]:
    """Answer the gate `envelope` waits at: approve it, or respond with `response`."""
    token = request_of(envelope)["resumeToken"]
    if envelope["status"] == "needs_input":
        return cli(capsys, "resume", "--token", token, "--response-json", json.dumps(response))
    return cli(capsys, "resume", "--token", token, "--approve", "yes")


def test_a_gate_two_workflows_down_halts_the_run_and_resume_continues_inside(work: Path, capsys: Capture) -> None:
    halted = cli(capsys, "run", "--mode", "tool", "depth.lobster")
    assert halted["protocolVersion"] == 1 and halted["status"] == "needs_approval"
    request = halted["requiresApproval"]
    assert request["path"] == "deploy > inner > prod_gate"
    assert request["prompt"] == "Deploy now?" and request["items"] == [{"plan": "deploy prod"}]
    assert request["approvalId"] and request["resumeToken"]
    assert ledger(work) == Counter(["first", "prepare", "plan prod"])
    done = answer(capsys, halted)
    assert done["status"] == "ok" and done["output"] == ["applied prod"], done
    assert ledger(work) == Counter(["first", "prepare", "plan prod", "apply prod", "report", "after"])
    assert list_runs(StateStore(work / "state")) == []


def test_a_loop_asks_once_per_item_in_order(work: Path, capsys: Capture) -> None:
    envelope = cli(capsys, "run", "--mode", "tool", "loop.lobster")
    paths = []
    while envelope["status"] == "needs_approval":
        paths.append(envelope["requiresApproval"]["path"])
        n = len(paths)
        assert envelope["requiresApproval"]["items"] == [{"n": n}]
        assert ledger(work) == Counter([*(f"prepare {i}" for i in range(1, n + 1)), *(f"ship {i}" for i in range(1, n))])
        envelope = answer(capsys, envelope)
    assert paths == ["loop[0] > confirm", "loop[1] > confirm", "loop[2] > confirm"]
    assert envelope["status"] == "ok" and envelope["output"] == ["done"]
    assert ledger(work) == Counter(["prepare 1", "ship 1", "prepare 2", "ship 2", "prepare 3", "ship 3", "after"])


def test_an_input_in_a_loop_body_is_asked_per_item_and_checked(work: Path, capsys: Capture) -> None:
    envelope = cli(capsys, "run", "--mode", "tool", "loop_input.lobster")
    request = envelope["requiresInput"]
    assert envelope["status"] == "needs_input" and request["path"] == "loop[0] > rename"
    assert request["subject"] == {"name": "a"} and request["prompt"] == "New name?"
    wrong = cli(capsys, "resume", "--token", request["resumeToken"], "--response-json", '{"nom": 1}')
    assert not wrong["ok"] and "response failed schema validation" in wrong["error"]["message"]
    assert "loop[0] > rename" in wrong["error"]["message"]
    envelope = answer(capsys, envelope, {"name": "A"})  # the token survived the wrong answer
    assert envelope["requiresInput"]["path"] == "loop[1] > rename"
    done = answer(capsys, envelope, {"name": "B"})
    assert done["status"] == "ok", done
    assert [item["rename"] for item in done["output"]] == [{"name": "A"}, {"name": "B"}]
    assert ledger(work) == Counter(["show a", 'apply a {"name":"A"}', "show b", 'apply b {"name":"B"}'])


def test_a_loop_inside_a_sub_workflow_names_both(work: Path, capsys: Capture) -> None:
    envelope = cli(capsys, "run", "--mode", "tool", "loop_in_child.lobster")
    assert envelope["requiresApproval"]["path"] == "release > loop[0] > confirm"
    envelope = answer(capsys, envelope)
    assert envelope["requiresApproval"]["path"] == "release > loop[1] > confirm"
    assert ledger(work) == Counter(["prepare 1", "ship 1", "prepare 2"])


@pytest.mark.parametrize("file, before", [
    ("depth.lobster", ["first", "prepare", "plan prod"]),
    ("fan.lobster", ["plain", "plan eu", "plan us"]),
    ("loop.lobster", ["prepare 1"]),
    ("loop_in_child.lobster", ["prepare 1"]),
])
def test_rejecting_a_nested_gate_cancels_the_run_as_at_top_level(
        file: str, before: list[str], work: Path, capsys: Capture) -> None:
    halted = cli(capsys, "run", "--mode", "tool", file)
    request = halted["requiresApproval"]
    rejected = cli(capsys, "resume", "--token", request["resumeToken"], "--approve", "no")
    assert rejected["ok"] and rejected["status"] == "cancelled"
    assert ledger(work) == Counter(before)
    assert list_runs(StateStore(work / "state")) == []
    again = cli(capsys, "resume", "--token", request["resumeToken"], "--approve", "yes")
    assert not again["ok"] and ledger(work) == Counter(before)


def test_a_nested_token_is_single_use(work: Path, capsys: Capture) -> None:
    halted = cli(capsys, "run", "--mode", "tool", "depth.lobster")
    assert answer(capsys, halted)["status"] == "ok"
    replayed = answer(capsys, halted)
    assert not replayed["ok"] and "not found" in replayed["error"]["message"]
    assert ledger(work)["apply prod"] == 1


def test_the_kept_records_are_sealed(work: Path, capsys: Capture) -> None:
    """What finished before a nested gate is in the sealed state: editing it is refused, nothing runs."""
    halted = cli(capsys, "run", "--mode", "tool", "depth.lobster")
    [state] = (p for p in (work / "state").iterdir() if p.name.startswith("workflow_resume_"))
    state.write_text(state.read_text().replace("deploy prod", "deploy evil"))
    refused = answer(capsys, halted)
    assert not refused["ok"] and refused["error"]["type"] == "state_integrity", refused
    assert ledger(work) == Counter(["first", "prepare", "plan prod"])


def test_resume_runs_the_sub_workflow_stored_at_the_gate(work: Path, capsys: Capture) -> None:
    halted = cli(capsys, "run", "--mode", "tool", "depth.lobster")
    write_file(work, "leaf.lobster", LEAF.replace("apply ${target}", "CHANGED ${target}"))
    main(["resume", "--token", halted["requiresApproval"]["resumeToken"], "--approve", "yes"])
    out, err = capsys.readouterr()
    assert json.loads(out)["status"] == "ok" and ledger(work)["apply prod"] == 1 and ledger(work)["CHANGED prod"] == 0
    assert f"warning: {work / 'leaf.lobster'} changed since the run halted" in err


def test_by_run_id_and_approval_id_too(work: Path, capsys: Capture) -> None:
    halted = cli(capsys, "run", "--mode", "tool", "depth.lobster")
    [log] = list_runs(StateStore(work / "state"))
    assert log.halted is not None and log.halted["step"] == "deploy > inner > prod_gate"
    done = cli(capsys, "resume", "--run", log.run_id, "--approve", "yes")
    assert done["status"] == "ok", done
    halted = cli(capsys, "run", "--mode", "tool", "loop.lobster")
    nxt = cli(capsys, "resume", "--id", halted["requiresApproval"]["approvalId"], "--approve", "yes")
    assert nxt["requiresApproval"]["path"] == "loop[1] > confirm"


def uninterrupted(work: Path, file: str, answers: str) -> list[Any]:
    """The run answered on a terminal as it goes: nothing halts."""
    path = str(work / file)
    workflow = load_workflow(path)[0]
    opts = Options(mode="human", interactive=True, prompt_in=io.StringIO(answers), prompt_out=io.StringIO())
    frame = Frame(workflow, path, {}, dict(os.environ), str(work), Cancellation(), (os.path.realpath(path),))
    outcome = Runner(frame, opts).run()
    assert outcome.status == "ok"
    return outcome.output


@pytest.mark.parametrize("file, responses", [
    ("depth.lobster", []),
    ("loop.lobster", []),
    ("loop_in_child.lobster", []),
    ("loop_input.lobster", [{"name": "x"}, {"name": "y"}]),
    ("fan.lobster", []),
])
def test_a_resumed_run_equals_the_uninterrupted_run(file: str, responses: list[Any], work: Path, capsys: Capture) -> None:
    typed = "".join(json.dumps(r) + "\n" for r in responses) if responses else "y\n" * 10
    expected = uninterrupted(work, file, typed)
    effects = ledger(work)
    (work / "ledger").unlink()
    envelope = cli(capsys, "run", "--mode", "tool", file)
    pending = list(responses)
    while envelope["status"] != "ok":
        envelope = answer(capsys, envelope, pending.pop(0) if envelope["status"] == "needs_input" else None)
    assert envelope["output"] == expected
    assert ledger(work) == effects


def test_parallel_branches_waiting_at_gates_are_listed_together_each_with_its_own_token(
        work: Path, capsys: Capture) -> None:
    halted = cli(capsys, "run", "--mode", "tool", "fan.lobster")
    assert halted["status"] == "needs_approval"
    eu, us = halted["pendingGates"]
    assert (eu["path"], eu["prompt"], eu["items"]) == ("fan > eu", "Deploy EU?", [{"region": "eu"}])
    assert (us["path"], us["prompt"], us["items"]) == ("fan > us", "Deploy US?", [{"region": "us"}])
    assert halted["requiresApproval"] == eu
    assert len({eu["resumeToken"], us["resumeToken"]}) == 2 and len({eu["approvalId"], us["approvalId"]}) == 2
    assert ledger(work) == Counter(["plain", "plan eu", "plan us"])  # the plain branch ran to its end
    waiting = cli(capsys, "resume", "--id", us["approvalId"], "--approve", "yes")
    assert waiting["status"] == "needs_approval" and "pendingGates" not in waiting
    assert waiting["requiresApproval"] == eu  # still halted, at the gate that remains, with its own token
    assert ledger(work) == Counter(["plain", "plan eu", "plan us"])
    again = cli(capsys, "resume", "--id", us["approvalId"], "--approve", "yes")
    assert not again["ok"]  # an answered gate is spent
    done = cli(capsys, "resume", "--token", eu["resumeToken"], "--approve", "yes")
    assert done["status"] == "ok", done
    assert done["output"] == [{"plain": "plain", "eu": {"region": "eu"}, "us": {"region": "us"}}]
    assert ledger(work) == Counter(["plain", "plan eu", "plan us", "after"])
    assert [p.name for p in (work / "state").iterdir() if p.is_file()] == ["signing.key"]


def test_rejecting_one_of_several_pending_gates_spends_them_all(work: Path, capsys: Capture) -> None:
    eu, us = cli(capsys, "run", "--mode", "tool", "fan.lobster")["pendingGates"]
    assert cli(capsys, "resume", "--token", us["resumeToken"], "--approve", "yes")["status"] == "needs_approval"
    assert cli(capsys, "resume", "--token", eu["resumeToken"], "--approve", "no")["status"] == "cancelled"
    assert [p.name for p in (work / "state").iterdir() if p.is_file()] == ["signing.key"]
    assert ledger(work)["after"] == 0


def test_wait_any_is_won_by_a_branch_that_finishes_not_one_waiting_at_its_gate(work: Path, capsys: Capture) -> None:
    done = cli(capsys, "run", "--mode", "tool", "any.lobster")
    assert done["status"] == "ok" and done["output"] == [{"quick": "quick"}], done
    assert list_runs(StateStore(work / "state")) == []


def test_wait_any_whose_every_branch_waits_halts_and_the_answer_wins(work: Path, capsys: Capture) -> None:
    write_file(work, "only.lobster", ANY.replace("approval: Use this one?", "approval: Use this one?\n        - id: other\n"
                                                 "          approval: Or this one?").replace("""        - id: quick
          run: |
            echo quick >> "$LEDGER"; echo '"quick"'
""", ""))
    halted = cli(capsys, "run", "--mode", "tool", "only.lobster")
    assert [g["path"] for g in halted["pendingGates"]] == ["race > gated", "race > other"]
    first = cli(capsys, "resume", "--token", halted["pendingGates"][1]["resumeToken"], "--approve", "yes")
    done = cli(capsys, "resume", "--token", first["requiresApproval"]["resumeToken"], "--approve", "yes")
    assert done["status"] == "ok" and done["output"] == [{"gated": "gated"}], done


def test_the_plan_the_graph_and_the_editor_name_the_gates_inside_a_step(work: Path, capsys: Capture) -> None:
    main(["run", "--dry-run", "depth.lobster"])
    plan = capsys.readouterr().err  # the plan is written where human-mode messages go
    assert "[approval required inside: deploy > inner > prod_gate — the whole run waits there]" in plan
    main(["run", "--dry-run", "fan.lobster"])
    assert "[approval required inside: fan > us" in capsys.readouterr().err
    main(["run", "--dry-run", "loop.lobster"])
    assert "[approval required inside: loop[*] > confirm" in capsys.readouterr().err
    main(["graph", "--file", "depth.lobster", "--format", "ascii"])
    assert "- deploy [workflow, approval gate: deploy > inner > prod_gate] (workflow: middle.lobster)" in capsys.readouterr().out
    main(["graph", "--file", "loop_input.lobster"])
    assert "input gate: loop[*] &gt; rename" in capsys.readouterr().out  # Mermaid escapes `>`


def test_the_language_server_hints_the_gates_inside_a_step(work: Path) -> None:
    pytest.importorskip("pygls")
    from lobsterlang_lsp.documents import Documents
    from lobsterlang_lsp.views import inlay_hints

    text = DEPTH_TWO
    documents = Documents()
    analysis = documents.analysis((work / "depth.lobster").as_uri(), text, 1)
    hints = [(h.position.line, str(h.label)) for h in inlay_hints(analysis, 0, len(text))]
    assert (4, " approval gate: deploy > inner > prod_gate") in hints


def test_the_answers_kept_for_pending_gates_are_sealed(work: Path, capsys: Capture) -> None:
    eu, us = cli(capsys, "run", "--mode", "tool", "fan.lobster")["pendingGates"]
    cli(capsys, "resume", "--token", us["resumeToken"], "--approve", "yes")
    [answers] = (p for p in (work / "state").iterdir() if p.name.startswith("workflow_answers_"))
    answers.write_text(answers.read_text().replace('"us"', '"evil"'))
    refused = cli(capsys, "resume", "--token", eu["resumeToken"], "--approve", "yes")
    assert not refused["ok"] and refused["error"]["type"] == "state_integrity", refused
    assert ledger(work)["after"] == 0


def test_a_nested_gate_expires_with_its_own_expires_in(work: Path, capsys: Capture, monkeypatch: pytest.MonkeyPatch) -> None:
    write_file(work, "leaf.lobster", LEAF.replace("approval: Deploy now?", "approval: {prompt: Deploy now?, expires_in: 1h}"))
    halted = cli(capsys, "run", "--mode", "tool", "depth.lobster")
    import lobsterlang.interpret.gatestate as gatestate

    real = time.time
    monkeypatch.setattr(gatestate, "time", SimpleNamespace(time=lambda: real() + 7200))
    expired = answer(capsys, halted)
    assert not expired["ok"] and expired["error"]["message"].startswith("Approval expired at "), expired
    assert ledger(work)["apply prod"] == 0
    assert cli(capsys, "resume", "--token", halted["requiresApproval"]["resumeToken"], "--cancel")["status"] == "cancelled"


def tool(work: Path, request: dict[str, Any]) -> dict[str, Any]:
    """`lobster tool` with `request` on stdin, as an agent's host runs it."""
    done = subprocess.run([sys.executable, "-m", "lobsterlang", "tool"], input=json.dumps(request), capture_output=True,
                          text=True, cwd=work, env=dict(os.environ), timeout=120)
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def test_an_agent_answers_nested_gates_through_the_tool_call(work: Path) -> None:
    """The embedded tool call (what an agent sends) carries `path` and `pendingGates` unchanged."""
    halted = tool(work, {"action": "run", "pipeline": "fan.lobster"})
    assert halted["protocolVersion"] == 1 and [g["path"] for g in halted["pendingGates"]] == ["fan > eu", "fan > us"]
    first = tool(work, {"action": "resume", "approvalId": halted["pendingGates"][0]["approvalId"], "approve": True})
    assert first["requiresApproval"]["path"] == "fan > us", first
    done = tool(work, {"action": "resume", "token": first["requiresApproval"]["resumeToken"], "approve": True})
    assert done["status"] == "ok" and ledger(work)["after"] == 1, done


ASKING_CHILD = """\
steps:
  - id: draft
    run: |
      echo draft >> "$LEDGER"; echo '{"text": "hi"}'
  - id: review
    stdin: $draft.json
    pipeline: exec --json --shell 'echo pre >> "$LEDGER"; echo "[1]"' | ask --prompt 'Send it?' | pick decision
  - id: send
    stdin: $review.json
    run: |
      echo "send $(cat)" >> "$LEDGER"; echo '["a", "b"]'
"""
ASKS_EVERYWHERE = """\
steps:
  - id: mail
    workflow: asking.lobster
  - id: loop
    for_each: $mail.json
    steps:
      - id: q
        pipeline: exec --json --shell 'echo "pre $LOBSTER_ARG_X" >> "$LEDGER"; echo "[1]"' | ask --prompt 'Item ok?' | pick decision
        env: {LOBSTER_ARG_X: $item.stdout}
  - id: fan
    parallel:
      branches:
        - id: p1
          pipeline: ask --prompt 'P1?' | pick decision
        - id: p2
          run: |
            echo p2 >> "$LEDGER"; echo '"p2"'
"""


def test_an_ask_stage_inside_a_sub_workflow_a_loop_or_a_branch_halts_and_continues_after_it(
        work: Path, capsys: Capture) -> None:
    write_file(work, "asking.lobster", ASKING_CHILD)
    write_file(work, "asks.lobster", ASKS_EVERYWHERE)
    envelope = cli(capsys, "run", "--mode", "tool", "asks.lobster")
    paths = []
    decisions = iter(["approve", "reject", "redraft", "approve"])
    while envelope["status"] == "needs_input":
        paths.append(envelope["requiresInput"]["path"])
        envelope = answer(capsys, envelope, {"decision": next(decisions)})
    assert paths == ["mail > review", "loop[0] > q", "loop[1] > q", "fan > p1"], envelope
    assert envelope["status"] == "ok", envelope
    assert envelope["output"] == [{"p1": {"decision": "approve"}, "p2": "p2"}]
    # every stage before an ask ran once; each pipeline continued after its ask with the answer given there
    assert ledger(work) == Counter(["draft", "pre", 'send {"decision":"approve"}', "pre a", "pre b", "p2"])


def test_a_retried_parallel_step_runs_only_the_branches_that_did_not_finish(work: Path, capsys: Capture) -> None:
    write_file(work, "retried.lobster", """\
steps:
  - id: fan
    retry: {max: 2, delay_ms: 0}
    parallel:
      branches:
        - id: a
          run: |
            echo a >> "$LEDGER"; touch a.done; echo '"a"'
        - id: b
          run: |
            until [ -e a.done ]; do sleep 0.01; done
            echo b >> "$LEDGER"; [ -e b.once ] || { touch b.once; exit 3; }; echo '"b"'
""")
    done = cli(capsys, "run", "--mode", "tool", "retried.lobster")
    assert done["status"] == "ok" and done["output"] == [{"a": "a", "b": "b"}], done
    assert ledger(work) == Counter({"a": 1, "b": 2})
