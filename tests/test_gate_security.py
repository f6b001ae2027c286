"""Approval gates that cannot be forged, stretched or redirected (issue 22; issue 13 item 10; issue 14 items 13-14).

Each test names the guarantee it pins; docs/security.md lists them.
"""

from __future__ import annotations

import base64
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from lobsterlang.cli import main
from lobsterlang.interpret.state import StateStore, now_iso

Capture = pytest.CaptureFixture[str]
FIXTURES = Path(__file__).parent / "fixtures" / "reference_state"
GATED = """\
steps:
  - id: plan
    run: printf '[{"id":1}]'
  - id: gate
    approval: {prompt: Ship it?}
    stdin: $plan.json
  - id: ship
    run: touch shipped
    when: $gate.approved
"""


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("LOBSTER_STATE_DIR", str(tmp_path / "state"))
    for name in ("LOBSTER_APPROVAL_TTL", "LOBSTER_ACCEPT_UNSIGNED_STATE", "LOBSTER_APPROVAL_APPROVED_BY",
                 "LOBSTER_APPROVAL_INITIATED_BY", "LOBSTER_APPROVAL_REQUIRE_DIFFERENT_APPROVER", "LOBSTER_BACKEND",
                 "LOBSTER_SIGNING_KEY"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


def cli(args: list[str], capsys: Capture) -> tuple[int, dict[str, Any]]:
    code = main(args)
    return code, json.loads(capsys.readouterr().out)


def halt(work: Path, capsys: Capture, text: str = GATED, *extra: str) -> dict[str, Any]:
    (work / "flow.lobster").write_text(text)
    code, envelope = cli(["run", "--mode", "tool", *extra, "flow.lobster"], capsys)
    assert (code, envelope["status"]) == (0, "needs_approval"), envelope
    return envelope["requiresApproval"]  # type: ignore[no-any-return]


def approve(token: str, capsys: Capture, *extra: str) -> tuple[int, dict[str, Any]]:
    return cli(["resume", "--token", token, "--approve", "yes", *extra], capsys)


def snapshot(work: Path) -> dict[str, bytes]:
    """Every file of the state directory (journals included) and its bytes."""
    root = work / "state"
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file() and not p.is_symlink()}


def resume_state(work: Path) -> Path:
    (path,) = (p for p in (work / "state").iterdir() if p.name.startswith(("workflow_resume_", "pipeline_resume_")))
    return path


def unpadded(payload: dict[str, Any]) -> str:
    return base64.urlsafe_b64encode(json.dumps(payload, separators=(",", ":")).encode()).rstrip(b"=").decode()


def payload_of(token: str) -> dict[str, Any]:
    return json.loads(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))  # type: ignore[no-any-return]


def test_hand_built_token_is_refused(work: Path, capsys: Capture) -> None:
    """A token written from a file name in the state directory does not resume the run."""
    request = halt(work, capsys)
    key = resume_state(work).name.removesuffix(".json")
    forged = [
        unpadded({"protocolVersion": 1, "v": 1, "kind": "workflow-file", "stateKey": key}),
        unpadded({**payload_of(request["resumeToken"]), "mac": "0" * 64}),
        unpadded({**payload_of(request["resumeToken"]), "exp": 4102444800}),
    ]
    for token in forged:
        code, envelope = approve(token, capsys)
        assert (code, envelope["error"]["type"]) == (2, "parse_error"), envelope
        assert envelope["error"]["message"].startswith("Invalid workflow token") or envelope["error"]["message"] == "Invalid token"
    assert not (work / "shipped").exists()
    assert approve(request["resumeToken"], capsys)[1]["status"] == "ok"
    assert (work / "shipped").exists()


def test_edited_stored_ir_is_refused_and_nothing_deleted(work: Path, capsys: Capture) -> None:
    request = halt(work, capsys)
    path = resume_state(work)
    path.write_text(path.read_text().replace("touch shipped", "touch canary"))
    before = snapshot(work)
    for _ in range(2):
        code, envelope = approve(request["resumeToken"], capsys)
        assert (code, envelope["error"]["type"]) == (1, "state_integrity"), envelope
        assert "modified" in envelope["error"]["message"]
        assert snapshot(work) == before
    code, envelope = cli(["resume", "--id", request["approvalId"], "--cancel"], capsys)
    assert envelope["error"]["type"] == "state_integrity" and snapshot(work) == before
    assert not (work / "canary").exists() and not (work / "shipped").exists()


def test_edited_approval_items_are_refused(work: Path, capsys: Capture) -> None:
    """`id: 1` shown, `id: 666` stored: the stored items are refused (workflow state, whose records the run's journal
    holds, and pipeline state)."""
    request = halt(work, capsys)
    assert request["items"] == [{"id": 1}]
    path = resume_state(work)
    (journal,) = (work / "state" / "runs").glob("*.jsonl")
    journal.write_text(journal.read_text().replace('"id":1', '"id":666'))
    before = snapshot(work)
    code, envelope = approve(request["resumeToken"], capsys)
    assert (code, envelope["error"]["type"]) == (1, "state_integrity"), envelope
    assert "journal" in envelope["error"]["message"] and snapshot(work) == before
    path.unlink()
    code, envelope = cli(["run", "--mode", "tool", "exec --json --shell 'echo [1]' | approve --prompt ok | exec --stdin json --shell 'cat > got'"], capsys)
    path = resume_state(work)
    state = json.loads(path.read_text())
    state["items"] = [666]
    path.write_text(json.dumps(state))
    code, envelope = approve(envelope["requiresApproval"]["resumeToken"], capsys)
    assert (code, envelope["error"]["type"]) == (1, "state_integrity") and not (work / "got").exists()
    assert json.loads(path.read_text())["items"] == [666]


IDENTITY = """\
steps:
  - id: plan
    run: echo '{"prompt":"Deploy?","requireDifferentApprover":false,"requiredApprover":"bot"}'
  - id: gate
    approval: {prompt: Deploy?, require_different_approver: true}
    stdin: $plan.json
  - id: ship
    run: touch shipped
    when: $gate.approved
"""


def test_step_output_cannot_change_identity_policy(work: Path, capsys: Capture, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LOBSTER_APPROVAL_INITIATED_BY", "alice")
    request = halt(work, capsys, IDENTITY)
    assert request.get("requireDifferentApprover") is True and "requiredApprover" not in request
    monkeypatch.setenv("LOBSTER_APPROVAL_APPROVED_BY", "alice")
    code, envelope = approve(request["resumeToken"], capsys)
    assert (code, envelope["error"]["message"]) == (2, "Workflow step gate approval must be granted by someone other than 'alice'")
    assert not (work / "shipped").exists()
    monkeypatch.setenv("LOBSTER_APPROVAL_APPROVED_BY", "carol")
    assert approve(request["resumeToken"], capsys)[1]["status"] == "ok" and (work / "shipped").exists()


def later(seconds: float) -> SimpleNamespace:
    """A stand-in for the `time` module, `seconds` ahead of now."""
    return SimpleNamespace(time=lambda: time.time() + seconds)


def test_expired_gate_is_refused_listed_expired_and_never_extended(work: Path, capsys: Capture, monkeypatch: pytest.MonkeyPatch) -> None:
    request = halt(work, capsys, GATED.replace("{prompt: Ship it?}", "{prompt: Ship it?, expires_in: 1h}"))
    assert abs(payload_of(request["resumeToken"])["exp"] - time.time() - 3600) < 60
    monkeypatch.setenv("LOBSTER_APPROVAL_APPROVED_BY", "x")
    before = snapshot(work)
    import lobsterlang.interpret.gatestate as gatestate

    monkeypatch.setattr(gatestate, "time", later(7200))
    for _ in range(2):
        code, envelope = approve(request["resumeToken"], capsys)
        assert (code, envelope["error"]["type"]) == (1, "runtime_error")
        assert envelope["error"]["message"].startswith("Approval expired at ")
        assert snapshot(work) == before  # a failed attempt changes nothing, expiry included
    assert main(["runs", "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert (row["waitingGate"], row["expired"]) == ("gate", True)
    assert main(["runs"]) == 0 and "expired at gate" in capsys.readouterr().out
    assert cli(["resume", "--token", request["resumeToken"], "--cancel"], capsys)[1]["status"] == "cancelled"
    assert not (work / "shipped").exists()


def test_resume_by_run_id_checks_the_seal_too(work: Path, capsys: Capture) -> None:
    """`resume --run ID` needs no token, but answers the gate only of state that is still sealed."""
    halt(work, capsys)
    path = resume_state(work)
    path.write_text(path.read_text().replace("touch shipped", "touch canary"))
    assert main(["runs", "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    code, envelope = cli(["resume", "--run", row["id"], "--approve", "yes"], capsys)
    assert (code, envelope["error"]["type"]) == (1, "state_integrity")
    assert not (work / "canary").exists() and path.exists()


def test_expired_input_request_says_so(work: Path, capsys: Capture, monkeypatch: pytest.MonkeyPatch) -> None:
    code, envelope = cli(["run", "--mode", "tool", "exec --json --shell 'echo [7]' | ask --prompt Decide | pick decision"], capsys)
    import lobsterlang.interpret.gatestate as gatestate

    monkeypatch.setattr(gatestate, "time", later(8 * 86400))
    code, envelope = cli(["resume", "--token", envelope["requiresInput"]["resumeToken"], "--response-json", '{"decision": "x"}'], capsys)
    assert code == 1 and envelope["error"]["message"].startswith("Input request expired at ")


def test_ttl_comes_from_the_cli_the_env_or_the_default(work: Path, capsys: Capture, monkeypatch: pytest.MonkeyPatch) -> None:
    def ttl(*extra: str) -> float:
        return float(payload_of(halt(work, capsys, GATED, *extra)["resumeToken"])["exp"]) - time.time()

    assert abs(ttl() - 7 * 86400) < 60
    assert abs(ttl("--approval-ttl", "2h") - 7200) < 60
    monkeypatch.setenv("LOBSTER_APPROVAL_TTL", "90m")
    assert abs(ttl() - 5400) < 60
    assert main(["run", "--mode", "tool", "--approval-ttl", "soon", "flow.lobster"]) == 2
    assert "not a duration" in json.loads(capsys.readouterr().out)["error"]["message"]


def test_expires_in_must_be_a_duration(work: Path, capsys: Capture) -> None:
    from lobsterlang.compile import compile_workflow

    result = compile_workflow(GATED.replace("{prompt: Ship it?}", "{prompt: Ship it?, expires_in: soon}"), "f.lobster")
    (problem,) = [d for d in result.diagnostics if d.code == "S116"]
    assert (problem.message, problem.span.line) == ("Workflow step gate approval.expires_in must be a duration", 5)


def test_cancel_before_any_step_keeps_the_token(work: Path, capsys: Capture, monkeypatch: pytest.MonkeyPatch) -> None:
    """A resume stopped (SIGINT) before its first step started leaves the token usable."""
    from lobsterlang.interpret.pipeline import frontend

    request = halt(work, capsys)
    real = frontend.make_context

    def interrupted(*args: Any, **kwargs: Any) -> Any:
        ctx = real(*args, **kwargs)
        ctx.cancel.cancel("Received SIGINT")
        return ctx

    monkeypatch.setattr(frontend, "make_context", interrupted)
    code, envelope = approve(request["resumeToken"], capsys)
    assert (code, envelope["error"]["message"]) == (1, "Received SIGINT")
    monkeypatch.setattr(frontend, "make_context", real)
    assert main(["runs", "--json"]) == 0 and json.loads(capsys.readouterr().out)[0]["waitingGate"] == "gate"
    assert approve(request["resumeToken"], capsys)[1]["status"] == "ok" and (work / "shipped").exists()


@pytest.mark.slow
def test_cancel_after_a_side_effect_spends_the_token(work: Path, capsys: Capture) -> None:
    request = halt(work, capsys, GATED.replace("touch shipped", "touch shipped; sleep 30"))
    argv = [sys.executable, "-m", "lobsterlang", "resume", "--token", request["resumeToken"], "--approve", "yes"]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True, env=os.environ.copy())
    deadline = time.time() + 30
    while not (work / "shipped").exists() and time.time() < deadline:
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    proc.communicate(timeout=30)
    code, envelope = approve(request["resumeToken"], capsys)
    assert (code, envelope["error"]["message"]) == (1, "Workflow resume state not found")


def test_resume_killed_before_any_step_can_be_resumed_again(work: Path, capsys: Capture) -> None:
    """A hidden `.claimed-<pid>-…` file of a dead resume whose run still waits at the gate is taken over."""
    request = halt(work, capsys)
    path = resume_state(work)
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    path.rename(path.with_name(f".{path.name}.claimed-{dead.pid}-0123abcd"))
    assert approve(request["resumeToken"], capsys)[1]["status"] == "ok" and (work / "shipped").exists()
    assert [p.name for p in (work / "state").iterdir() if ".claimed-" in p.name] == []


def test_claim_of_a_live_resume_is_not_taken_over(work: Path, capsys: Capture) -> None:
    request = halt(work, capsys)
    path = resume_state(work)
    path.rename(path.with_name(f".{path.name}.claimed-{os.getpid()}-0123abcd"))
    assert approve(request["resumeToken"], capsys)[1]["error"]["message"] == "Workflow resume state not found"


def test_forged_state_key_never_deletes(work: Path, capsys: Capture) -> None:
    """Issue 13 item 10: a token naming a `state.set` key or an approval index touches nothing."""
    request = halt(work, capsys)
    store = StateStore(work / "state")
    store.write("deploy-notes", {"keep": True})
    approval_file = f"approval_{request['approvalId']}"
    before = snapshot(work)
    for key in ("deploy-notes", approval_file, "workflow_resume_x", "../state/deploy-notes"):
        for kind in ("workflow-file", "pipeline-resume"):
            token = unpadded({"protocolVersion": 1, "v": 1, "kind": kind, "stateKey": key})
            for extra in ([], ["--accept-unsigned-state"]):
                code, envelope = approve(token, capsys, *extra)
                assert code == 2 and envelope["error"]["message"].startswith(("Invalid token", "Invalid workflow token")), (key, envelope)
                code, envelope = cli(["resume", "--token", token, "--cancel", *extra], capsys)
                assert code == 2, envelope
    assert snapshot(work) == before


def test_corrupt_resume_state_is_kept(work: Path, capsys: Capture) -> None:
    request = halt(work, capsys)
    path = resume_state(work)
    path.write_text("{not json")
    code, envelope = approve(request["resumeToken"], capsys)
    assert (code, envelope["error"]["type"]) == (1, "state_integrity")
    assert path.read_text() == "{not json"


def test_symlinked_state_file_is_not_followed(work: Path, capsys: Capture) -> None:
    request = halt(work, capsys)
    path = resume_state(work)
    outside = work / "elsewhere.json"
    outside.write_text(path.read_text())
    path.unlink()
    path.symlink_to(outside)
    code, envelope = approve(request["resumeToken"], capsys)
    assert (code, envelope["error"]["type"]) == (1, "state_integrity"), envelope
    assert path.is_symlink() and outside.exists() and not (work / "shipped").exists()


def test_signing_key_is_private_and_created_once_under_a_race(tmp_path: Path) -> None:
    code = "import sys; from lobsterlang.interpret.state import StateStore; print(StateStore(sys.argv[1]).secret_key().hex())"
    procs = [subprocess.Popen([sys.executable, "-c", code, str(tmp_path / "s")], stdout=subprocess.PIPE, text=True) for _ in range(6)]
    keys = {proc.communicate(timeout=60)[0].strip() for proc in procs}
    assert len(keys) == 1 and len(keys.pop()) == 64
    assert (tmp_path / "s" / "signing.key").stat().st_mode & 0o777 == 0o600
    (tmp_path / "s" / "signing.key").chmod(0o644)
    from lobsterlang.interpret.statefiles import CorruptState

    with pytest.raises(CorruptState, match="mode 0600"):
        StateStore(tmp_path / "s").secret_key()


def test_rotating_the_key_invalidates_outstanding_tokens(work: Path, capsys: Capture) -> None:
    request = halt(work, capsys)
    (work / "state" / "signing.key").unlink()
    code, envelope = approve(request["resumeToken"], capsys)
    assert (code, envelope["error"]["message"]) == (2, "Invalid token")
    assert not (work / "shipped").exists()


def _load_reference_state(work: Path, case: str) -> dict[str, Any]:
    """Put the reference CLI's recorded state files in the state directory (fresh createdAt)."""
    data: dict[str, Any] = json.loads((FIXTURES / f"{case}.json").read_text(encoding="utf-8"))
    for name in ("deploy.lobster", "items.json"):
        (work / name).write_text((FIXTURES / name).read_text())
    store = StateStore(work / "state")
    for name, content in data["files"].items():
        text = json.dumps(content).replace("<dir>", str(work))
        value = json.loads(text)
        if not name.startswith("approval_"):
            value["createdAt"] = now_iso()
        store.write(name.removesuffix(".json"), value)
    return data


@pytest.mark.parametrize("case", ["workflow", "pipeline", "workflow-2026.5.22", "pipeline-2026.5.22"])
def test_reference_state_resumes_only_with_the_opt_in(work: Path, capsys: Capture, monkeypatch: pytest.MonkeyPatch, case: str) -> None:
    data = _load_reference_state(work, case)
    token = data["halted"]["stdout"]["requiresApproval"]["resumeToken"]
    before = snapshot(work)
    code, envelope = approve(token, capsys)
    assert code == 2 and "--accept-unsigned-state" in envelope["error"]["message"]
    code, envelope = cli(["resume", "--id", data["halted"]["stdout"]["requiresApproval"]["approvalId"], "--approve", "yes"], capsys)
    assert code == 2 and "--accept-unsigned-state" in envelope["error"]["message"]
    assert snapshot(work) == before
    code, envelope = approve(token, capsys, "--accept-unsigned-state")
    assert (code, envelope) == (data["resumed"]["exit"], data["resumed"]["stdout"])


def test_reference_state_by_approval_id_with_the_env_opt_in(work: Path, capsys: Capture, monkeypatch: pytest.MonkeyPatch) -> None:
    data = _load_reference_state(work, "workflow")
    monkeypatch.setenv("LOBSTER_ACCEPT_UNSIGNED_STATE", "1")
    code, envelope = cli(["resume", "--id", data["halted"]["stdout"]["requiresApproval"]["approvalId"], "--approve", "yes"], capsys)
    assert (code, envelope) == (data["resumed"]["exit"], data["resumed"]["stdout"])


def test_stale_reference_state_expires(work: Path, capsys: Capture) -> None:
    data = _load_reference_state(work, "pipeline")
    path = resume_state(work)
    path.write_text(path.read_text().replace(json.loads(path.read_text())["createdAt"], "2020-01-01T00:00:00.000Z"))
    token = data["halted"]["stdout"]["requiresApproval"]["resumeToken"]
    code, envelope = approve(token, capsys, "--accept-unsigned-state")
    assert code == 1 and envelope["error"]["message"].startswith("Approval expired at 2020-01-08T00:00:00Z")


def test_unsigned_token_cannot_open_signed_state(work: Path, capsys: Capture) -> None:
    request = halt(work, capsys)
    key = resume_state(work).name.removesuffix(".json")
    token = unpadded({"protocolVersion": 1, "v": 1, "kind": "workflow-file", "stateKey": key})
    code, envelope = approve(token, capsys, "--accept-unsigned-state")
    assert (code, envelope["error"]["type"]) == (1, "state_integrity") and not (work / "shipped").exists()
    assert approve(request["resumeToken"], capsys)[1]["status"] == "ok"


def test_signed_token_with_unsigned_state_is_refused(work: Path, capsys: Capture) -> None:
    request = halt(work, capsys)
    path = resume_state(work)
    state = json.loads(path.read_text())
    del state["mac"]
    path.write_text(json.dumps(state))
    code, envelope = approve(request["resumeToken"], capsys, "--accept-unsigned-state")
    assert (code, envelope["error"]["type"]) == (1, "state_integrity") and not (work / "shipped").exists()


def _halted(work: Path, capsys: Capture, name: str, target: str) -> dict[str, Any]:
    (work / f"{name}.lobster").write_text(GATED.replace("touch shipped", f"touch {target}"))
    envelope = cli(["run", "--mode", "tool", f"{name}.lobster"], capsys)[1]
    assert envelope["status"] == "needs_approval", envelope
    return envelope["requiresApproval"]  # type: ignore[no-any-return]


def test_an_approval_id_opens_only_its_own_gate(work: Path, capsys: Capture) -> None:
    """Issue 29 item 3: `cp approval_B.json approval_A.json; resume --id A` runs nothing (workflows and pipelines)."""
    state = work / "state"
    a, b = _halted(work, capsys, "a", "ran_a"), _halted(work, capsys, "b", "ran_b")
    pipelines = [cli(["run", "--mode", "tool", f"exec --json --shell 'echo [1]' | approve --prompt {n} | exec --shell 'touch {n}'"],
                     capsys)[1]["requiresApproval"] for n in ("pa", "pb")]
    for first, second, ran in ((a, b, "ran_b"), (*pipelines, "pb")):
        (state / f"approval_{second['approvalId']}.json").replace(state / f"approval_{first['approvalId']}.json")
        before = snapshot(work)
        code, envelope = cli(["resume", "--id", first["approvalId"], "--approve", "yes"], capsys)
        assert (code, envelope["error"]["type"]) == (1, "state_integrity"), envelope
        assert "is not the id its gate was issued with" in envelope["error"]["message"]
        assert snapshot(work) == before and not (work / ran).exists()
        assert approve(second["resumeToken"], capsys)[1]["status"] == "ok" and (work / ran).exists()
    assert approve(a["resumeToken"], capsys)[1]["status"] == "ok" and (work / "ran_a").exists()


def test_resume_by_run_id_opens_only_that_runs_gate(work: Path, capsys: Capture) -> None:
    """Issue 29 item 3: run A's journal pointed at run B's gate state: `resume --run A` runs nothing."""
    a, b = _halted(work, capsys, "a", "ran_a"), _halted(work, capsys, "b", "ran_b")
    assert main(["runs", "--json"]) == 0
    runs = {Path(row["workflow"]).stem: row["id"] for row in json.loads(capsys.readouterr().out)}
    journals = {name: work / "state" / "runs" / f"{run}.jsonl" for name, run in runs.items()}
    keys = {name: payload_of(r["resumeToken"])["stateKey"] for name, r in (("a", a), ("b", b))}
    journals["a"].write_text(journals["a"].read_text().replace(keys["a"], keys["b"]))
    before = snapshot(work)
    code, envelope = cli(["resume", "--run", runs["a"], "--approve", "yes"], capsys)
    assert (code, envelope["error"]["type"]) == (1, "state_integrity"), envelope
    assert f"belongs to run '{runs['b']}', not '{runs['a']}'" in envelope["error"]["message"]
    assert snapshot(work) == before and not (work / "ran_b").exists() and not (work / "ran_a").exists()
    assert cli(["resume", "--run", runs["b"], "--approve", "yes"], capsys)[1]["status"] == "ok" and (work / "ran_b").exists()


SELF_APPROVAL = GATED.replace("{prompt: Ship it?}", "{prompt: Ship it?, require_different_approver: true}")


@pytest.mark.parametrize("approver", [" bot", "BOT", "bot\t", "Ｂｏｔ"])
def test_an_initiator_cannot_approve_under_another_spelling(work: Path, capsys: Capture, monkeypatch: pytest.MonkeyPatch,
                                                            approver: str) -> None:
    """Issue 29 item 16: identities are compared trimmed, NFKC-normalised and case-folded."""
    monkeypatch.setenv("LOBSTER_APPROVAL_INITIATED_BY", "bot")
    request = halt(work, capsys, SELF_APPROVAL)
    monkeypatch.setenv("LOBSTER_APPROVAL_APPROVED_BY", approver)
    code, envelope = approve(request["resumeToken"], capsys)
    assert (code, envelope["error"]["message"]) == (2, "Workflow step gate approval must be granted by someone other than 'bot'")
    assert not (work / "shipped").exists()


@pytest.mark.parametrize("approver", [" Carol ", "CAROL", "carol"])
def test_the_required_approver_is_matched_under_any_spelling(work: Path, capsys: Capture, monkeypatch: pytest.MonkeyPatch,
                                                             approver: str) -> None:
    request = halt(work, capsys, GATED.replace("{prompt: Ship it?}", "{prompt: Ship it?, required_approver: ' carol'}"))
    assert request["requiredApprover"] == "carol"
    monkeypatch.setenv("LOBSTER_APPROVAL_APPROVED_BY", "mallory")
    code, envelope = approve(request["resumeToken"], capsys)
    assert (code, envelope["error"]["message"]) == (2, "Workflow step gate approval requires approver 'carol', got 'mallory'")
    monkeypatch.setenv("LOBSTER_APPROVAL_APPROVED_BY", approver)
    assert approve(request["resumeToken"], capsys)[1]["status"] == "ok" and (work / "shipped").exists()


def test_a_blank_approver_is_no_approver(work: Path, capsys: Capture, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LOBSTER_APPROVAL_INITIATED_BY", "bot")
    request = halt(work, capsys, SELF_APPROVAL)
    monkeypatch.setenv("LOBSTER_APPROVAL_APPROVED_BY", " \t")
    code, envelope = approve(request["resumeToken"], capsys)
    assert code == 2 and envelope["error"]["message"].endswith("requires approver identity; set LOBSTER_APPROVAL_APPROVED_BY")
