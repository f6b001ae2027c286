"""Workflow engine behaviour beyond the recorded cases: quoting contexts, timeouts, resume safety, state hygiene."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest
from helpers import write_file

from lobsterlang import ir
from lobsterlang.cli import main
from lobsterlang.compile import compile_workflow
from lobsterlang.interpret.workflow.conditions import deep_equal, same_value
from lobsterlang.interpret.workflow.retry import RetryPolicy
from lobsterlang.interpret.workflow.shellscan import context_at_end
from lobsterlang.interpret.workflow.templates import Scope, render_shell

Capture = pytest.CaptureFixture[str]


@pytest.mark.parametrize(
    "prefix, kind",
    [
        ("echo ", "top"),
        ('echo "a ', "dq"),
        ("echo 'a ", "sq"),
        ('echo "$(ls "x" ', "cmd"),
        ("echo $((1 + ", "arith"),
        ("echo `ls ", "bq"),
        ("(cd x; echo ", "paren"),
        ("x=${Y:-", "param"),
        ("echo hi # ", "comment"),
        ("echo a#b ", "top"),
        ("cat <<EOF\n", "heredoc"),
        ("cat <<'EOF'\nbody ", "heredoc"),
        ("cat <<EOF\nx\nEOF\necho ", "top"),
        ("echo \"it's\" ", "top"),
        ("echo 'a'\"b\"'", "sq"),
    ],
)
def test_shell_context(prefix: str, kind: str) -> None:
    assert context_at_end(prefix).kind == kind


def _template(text: str) -> ir.Template:
    result = compile_workflow(json.dumps({"steps": [{"id": "a", "run": text}]}), "w.json")
    assert result.ir is not None
    action = result.ir.steps[0].action
    assert isinstance(action, ir.ShellRun)
    return action.command


@pytest.mark.parametrize(
    "text, command",
    [
        ("echo ${x}", 'echo "${LOBSTER_ARG_X}"'),
        ('echo "v=${x}!"', 'echo "v=${LOBSTER_ARG_X}!"'),
        ("echo '${x}'", "echo ''\"${LOBSTER_ARG_X}\"''"),
        ("echo $((${x} + 1))", "echo $((${LOBSTER_ARG_X} + 1))"),
        ("echo \\${x}", 'echo "${LOBSTER_ARG_X}"'),
        ('echo "\\${x}"', 'echo "\\\\${LOBSTER_ARG_X}"'),
        ("echo ${nope} ${x}", 'echo ${nope} "${LOBSTER_ARG_X}"'),
    ],
)
def test_args_become_quoted_variable_references(text: str, command: str) -> None:
    env = {"LOBSTER_ARG_X": "1"}
    assert render_shell(_template(text), Scope({"x": 1}, {}), env).command == command


def test_overridden_arg_variable_gets_a_private_one() -> None:
    shell = render_shell(_template("echo ${x}"), Scope({"x": "real"}, {}), {"LOBSTER_ARG_X": "overridden"})
    (name, value), = shell.env.items()
    assert value == "real" and shell.command == f'echo "${{{name}}}"'


def test_raw_args_splice_text() -> None:
    assert render_shell(_template("echo ${x}"), Scope({"x": "a b"}, {}, raw=True), {}).command == "echo a b"


def test_js_equality() -> None:
    assert same_value(float("nan"), float("nan")) and not same_value(0.0, -0.0)
    assert not same_value(1, True) and not same_value(None, "null") and same_value(2, 2.0)
    assert deep_equal({"a": [1, {"b": 2}]}, {"a": [1, {"b": 2}]}) and not deep_equal([1], {"0": 1})


def test_exponential_backoff_is_capped() -> None:
    rules = RetryPolicy(max=4, backoff="exponential", delay_ms=10, max_delay_ms=25)
    assert [rules.delay(k) for k in (1, 2, 3)] == [10, 20, 25]
    assert RetryPolicy(delay_ms=7).delay(3) == 7


def _run(args: list[str], capsys: Capture) -> tuple[int, Any]:
    code = main(args)
    out = capsys.readouterr().out
    return code, json.loads(out) if out.strip() else None


@pytest.fixture
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    directory = tmp_path / "state"
    monkeypatch.setenv("LOBSTER_STATE_DIR", str(directory))
    return directory


def test_timeout_kills_background_jobs(tmp_path: Path, state: Path, capsys: Capture) -> None:
    marker = tmp_path / "late"
    path = write_file(tmp_path, "t.lobster", f"steps:\n  - id: a\n    run: (sleep 0.6; touch {marker}) & sleep 5\n    timeout_ms: 200\n")
    started = time.monotonic()
    code, envelope = _run(["run", "--mode", "tool", "--file", str(path)], capsys)
    assert code == 1 and envelope["error"]["message"] == "Step 'a' timed out after 200ms"
    assert time.monotonic() - started < 2
    time.sleep(0.8)
    assert not marker.exists()


def test_resume_runs_the_ir_stored_at_the_gate(tmp_path: Path, state: Path, capsys: Capture) -> None:
    path = write_file(tmp_path, "g.lobster", "steps:\n  - id: gate\n    approval: true\n  - id: after\n    run: echo original\n")
    _, halted = _run(["run", "--mode", "tool", "--file", str(path)], capsys)
    path.write_text("steps:\n  - id: gate\n    approval: true\n  - id: after\n    run: echo CHANGED\n", encoding="utf-8")
    code = main(["resume", "--token", halted["requiresApproval"]["resumeToken"], "--approve", "yes"])
    out, err = capsys.readouterr()
    assert code == 0 and json.loads(out)["output"] == ["original\n"]
    assert "changed since the run halted" in err


def test_no_state_left_behind(tmp_path: Path, state: Path, capsys: Capture) -> None:
    write_file(tmp_path, "child.lobster", "steps:\n  - id: g\n    approval: true\n")
    path = write_file(tmp_path, "p.lobster", "steps:\n  - id: gate\n    approval: true\n  - id: sub\n    workflow: child.lobster\n    on_error: continue\n")
    _, halted = _run(["run", "--mode", "tool", "--file", str(path)], capsys)
    _, nested = _run(["resume", "--token", halted["requiresApproval"]["resumeToken"], "--approve", "yes"], capsys)
    assert nested["requiresApproval"]["path"] == "sub > g"  # the sub-workflow's own gate halts the run
    code, done = _run(["resume", "--token", nested["requiresApproval"]["resumeToken"], "--approve", "yes"], capsys)
    assert code == 0 and done["status"] == "ok"
    assert [p.name for p in state.rglob("*") if p.is_file()] == ["signing.key"]
    _, halted = _run(["run", "--mode", "tool", "--file", str(path)], capsys)
    _run(["resume", "--id", halted["requiresApproval"]["approvalId"], "--cancel"], capsys)
    assert [p.name for p in state.rglob("*") if p.is_file()] == ["signing.key"]


def test_failed_resume_before_any_step_keeps_the_token(tmp_path: Path, state: Path, capsys: Capture) -> None:
    path = write_file(tmp_path, "k.lobster", "steps:\n  - id: gate\n    approval: true\n  - id: b\n    run: cat\n    stdin: $later.stdout\n  - id: later\n    run: echo\n")
    _, halted = _run(["run", "--mode", "tool", "--file", str(path)], capsys)
    token = halted["requiresApproval"]["resumeToken"]
    code, failed = _run(["resume", "--token", token, "--approve", "yes"], capsys)
    assert code == 1 and failed["error"]["message"] == "Unknown step reference: later.stdout"
    code, again = _run(["resume", "--token", token, "--approve", "yes"], capsys)
    assert again["error"]["message"] == "Unknown step reference: later.stdout"


def test_dunder_ids_are_plain_data(tmp_path: Path, state: Path, capsys: Capture) -> None:
    text = (
        "args:\n  __class__: {default: k}\nsteps:\n  - id: __init__\n    run: printf '{\"__class__\":1}'\n"
        "  - id: __proto__\n    input: {prompt: p, responseSchema: {type: object}}\n"
        "  - id: constructor\n    run: printf '%s|%s|%s' '$__init__.json.__class__' '$__proto__.response.decision' \"${__class__}\"\n"
    )
    path = write_file(tmp_path, "d.lobster", text)
    _, halted = _run(["run", "--mode", "tool", "--file", str(path)], capsys)
    _, done = _run(["resume", "--token", halted["requiresInput"]["resumeToken"], "--response-json", '{"decision":"yes"}'], capsys)
    assert done["output"] == ["1|yes|k"]


def test_missing_file_is_a_usage_error(tmp_path: Path, capsys: Capture) -> None:
    # The reference: runtime_error (exit 1) `ENOENT: …`; a usage error in lobsterlang (docs/compatibility.md).
    assert main(["run", "--file", str(tmp_path / "none.lobster")]) == 2
    assert capsys.readouterr().err.endswith(f"Error: {tmp_path / 'none.lobster'}: no such file or directory\n")
    code, envelope = _run(["run", "--mode", "tool", "--file", str(tmp_path / "x.txt")], capsys)
    assert code == 2 and envelope["error"] == {
        "type": "parse_error", "message": f"{tmp_path / 'x.txt'}: Workflow file must end in .lobster, .yaml, .yml, or .json"}


def test_runs_lists_a_run_waiting_at_a_gate(tmp_path: Path, state: Path, capsys: Capture) -> None:
    path = write_file(tmp_path, "w.lobster", "steps:\n  - id: a\n    run: echo\n  - id: gate\n    approval: true\n")
    _run(["run", "--mode", "tool", "--file", str(path)], capsys)
    assert main(["runs", "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert row["workflow"] == str(path) and row["waitingGate"] == "gate" and row["lastCompletedStep"] == "a"
    code, done = _run(["resume", "--run", row["id"], "--approve", "yes"], capsys)
    assert code == 0 and done["status"] == "ok"
    assert main(["runs"]) == 0 and capsys.readouterr().out == "No unfinished runs.\n"
    assert not os.listdir(state / "runs")


def _interactive(text: str, answers: str, env: dict[str, str] | None = None) -> tuple[Any, str]:
    import io

    from lobsterlang.interpret.process import Cancellation
    from lobsterlang.interpret.workflow.context import Frame, Options
    from lobsterlang.interpret.workflow.engine import Runner

    workflow = compile_workflow(text, "i.lobster").ir
    assert workflow is not None
    out = io.StringIO()
    opts = Options(mode="human", interactive=True, prompt_in=io.StringIO(answers), prompt_out=out)
    frame = Frame(workflow, "i.lobster", {}, {**os.environ, **(env or {})}, os.getcwd(), Cancellation())
    return Runner(frame, opts).run(), out.getvalue()


def test_interactive_approval_and_input() -> None:
    text = (
        "steps:\n  - id: gate\n    approval: Ship it?\n  - id: ask\n"
        "    input: {prompt: Decision?, responseSchema: {type: object, required: [d]}}\n"
        "  - id: done\n    run: printf '%s' '$gate.approved $ask.response.d'\n"
    )
    outcome, shown = _interactive(text, 'y\n{"d":1}\n')
    assert outcome.output == ["true 1"] and shown == "Ship it? [y/N] Decision?\nEnter JSON response: "


@pytest.mark.parametrize(
    "answers, env, message",
    [
        ("n\n", None, "Not approved"),
        ("yes\nnot json\n", None, "Input response must be valid JSON"),
        ("y\n{}\n", None, "Workflow input step ask response failed schema validation at /: must have required property 'd'"),
    ],
)
def test_interactive_refusals(answers: str, env: dict[str, str] | None, message: str) -> None:
    from lobsterlang.interpret.workflow.errors import WorkflowError

    text = "steps:\n  - id: gate\n    approval: Ship it?\n  - id: ask\n    input: {prompt: Decision?, responseSchema: {type: object, required: [d]}}\n"
    with pytest.raises(WorkflowError, match="^" + message.replace("?", r"\?") + "$"):
        _interactive(text, answers, env)


def test_a_journal_torn_before_its_first_line_is_dropped(state: Path, capsys: Capture) -> None:
    runs = state / "runs"
    runs.mkdir(parents=True)
    torn, fresh = runs / "rdead.jsonl", runs / "rnew.jsonl"
    torn.write_text('{"event":"sta', encoding="utf-8")
    fresh.write_text('{"event":"sta', encoding="utf-8")
    os.utime(torn, (time.time() - 3600, time.time() - 3600))
    assert main(["runs"]) == 0
    out, err = capsys.readouterr()
    assert out == "No unfinished runs.\n" and not torn.exists() and fresh.exists()
    assert f"warning: {torn}:1: no start event (a run killed as it started, or not a journal); file removed\n" in err
    assert f"warning: {fresh}:1: no start event (a run killed as it started, or not a journal); file skipped\n" in err


def test_resume_run_of_an_unknown_id(state: Path, capsys: Capture) -> None:
    code, envelope = _run(["resume", "--run", "rnope"], capsys)
    assert code == 2 and envelope["error"]["message"] == "Run rnope not found (finished, cancelled or never started)"


def test_raw_args_re_parse_pipeline_text(tmp_path: Path, state: Path, capsys: Capture) -> None:
    helper = write_file(tmp_path, "argv.py", "import json, sys\nprint(json.dumps(sys.argv[1:]))\n")
    import sys

    path = write_file(tmp_path, "p.lobster", f"args: {{v: {{default: x}}}}\nsteps:\n  - id: p\n    pipeline: exec --json=true {sys.executable} {helper} ${{v}}\n")
    given = ["--args-json", json.dumps({"v": "a b"})]
    assert _run(["run", "--mode", "tool", "--file", str(path), *given], capsys)[1]["output"] == ["a b"]
    assert _run(["run", "--mode", "tool", "--raw-args", "--file", str(path), *given], capsys)[1]["output"] == ["a", "b"]
