"""`lobster tool`: exactly one envelope for every request, and workflows confined to the workspace."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lobsterlang.interpret.toolcall import call_tool


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "LOBSTER_STATE_DIR": str(tmp_path / "state")}


def tool(request_text: str, cwd: Path, env: dict[str, str]) -> tuple[int, dict[str, Any]]:
    """Run `lobster tool` on `request_text`: its exit code and its only stdout document."""
    proc = subprocess.run(
        [sys.executable, "-m", "lobsterlang", "tool"], input=request_text.encode(), capture_output=True,
        cwd=cwd, env=env, timeout=60,
    )
    assert b"Traceback" not in proc.stderr, proc.stderr.decode()
    return proc.returncode, json.loads(proc.stdout)


def test_args_json_over_128_kib(tmp_path: Path, env: dict[str, str]) -> None:
    (tmp_path / "wf.lobster").write_text(
        "args:\n  x: {default: ''}\nsteps:\n  - id: n\n    pipeline: template --text '${x}' | map --wrap v\n",
        encoding="utf-8",
    )
    big = "a" * 200_000
    request = {"action": "run", "pipeline": "wf.lobster", "argsJson": json.dumps({"x": big})}
    code, envelope = tool(json.dumps(request), tmp_path, env)
    assert code == 0 and envelope["ok"] is True, envelope


def test_args_too_large_for_a_child_process_is_a_clear_error(tmp_path: Path, env: dict[str, str]) -> None:
    (tmp_path / "wf.lobster").write_text("args:\n  x: {default: ''}\nsteps:\n  - id: s\n    run: echo hi\n", encoding="utf-8")
    request = {"action": "run", "pipeline": "wf.lobster", "argsJson": json.dumps({"x": "a" * 200_000})}
    code, envelope = tool(json.dumps(request), tmp_path, env)
    assert code == 1 and "Argument list too long" in envelope["error"]["message"]


@pytest.mark.parametrize(
    "request_, expected",
    [
        ({"action": "run", "pipeline": "exec echo hi", "cwd": "a\u0000b"}, "cwd must not contain a NUL byte"),
        ({"action": "run", "pipeline": "exec echo hi", "timeoutMs": 1e12}, None),
        ({"action": "run", "pipeline": "exec echo hi", "maxStdoutBytes": 1e300}, None),
        ({"action": "run", "pipeline": "exec echo 'a\u0000b'"}, "exec failed"),
    ],
)
def test_hostile_fields_get_an_envelope(request_: dict[str, Any], expected: str | None, tmp_path: Path, env: dict[str, str]) -> None:
    _, envelope = tool(json.dumps(request_), tmp_path, env)
    if expected is None:
        assert envelope["output"] == ["hi"]
    else:
        assert expected in envelope["error"]["message"]


def test_request_nested_100k_deep(tmp_path: Path, env: dict[str, str]) -> None:
    code, envelope = tool("[" * 100_000 + "]" * 100_000, tmp_path, env)
    assert code == 2 and envelope["error"]["message"] == "tool request is nested too deeply"


def test_response_nested_deeply(tmp_path: Path, env: dict[str, str]) -> None:
    nested: Any = 0
    for _ in range(5000):
        nested = [nested]
    envelope = call_tool({"action": "resume", "token": "t", "response": nested}, tmp_path, env)
    assert envelope["ok"] is False


def test_step_cwd_outside_the_workspace_is_refused(tmp_path: Path, env: dict[str, str]) -> None:
    (tmp_path / "wf.lobster").write_text(
        "args:\n  d: {default: .}\nsteps:\n  - id: s\n    cwd: ${d}\n    run: pwd > \"$OUT\"\n", encoding="utf-8",
    )
    (tmp_path / "inside").mkdir()
    out = tmp_path / "pwd"
    env = {**env, "OUT": str(out)}
    refused = call_tool({"action": "run", "pipeline": "wf.lobster", "argsJson": '{"d": "/etc"}'}, tmp_path, env)
    assert refused["error"]["message"] == "Workflow step s cwd must stay within the gateway working directory: /etc"
    assert not out.exists()
    (tmp_path / "escape").symlink_to("/etc")
    refused = call_tool({"action": "run", "pipeline": "wf.lobster", "argsJson": '{"d": "escape"}'}, tmp_path, env)
    assert "must stay within the gateway working directory" in refused["error"]["message"] and not out.exists()
    allowed = call_tool({"action": "run", "pipeline": "wf.lobster", "argsJson": '{"d": "inside"}'}, tmp_path, env)
    assert allowed["ok"] is True and out.read_text().strip() == str((tmp_path / "inside").resolve())


def test_workflow_file_outside_the_workspace_is_refused(tmp_path: Path, env: dict[str, str]) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    outside = tmp_path / "outside.lobster"
    outside.write_text("steps:\n  - id: s\n    run: touch ran\n", encoding="utf-8")
    (workspace / "link.lobster").symlink_to(outside)
    for pipeline in (str(outside), "../outside.lobster", "link.lobster"):
        envelope = call_tool({"action": "run", "pipeline": pipeline}, workspace, env)
        assert "Workflow file must stay within the gateway working directory" in envelope["error"]["message"], pipeline
    (workspace / "parent.lobster").write_text("steps:\n  - id: c\n    workflow: ../outside.lobster\n", encoding="utf-8")
    envelope = call_tool({"action": "run", "pipeline": "parent.lobster"}, workspace, env)
    assert "workflow file must stay within the gateway working directory" in envelope["error"]["message"]
    assert not list(tmp_path.rglob("ran"))


NUMBERS = st.one_of(
    st.integers(-(10**30), 10**30), st.floats(allow_nan=True, allow_infinity=True), st.booleans(), st.none(),
    st.text(max_size=5),
)
ARGS_JSON = st.one_of(
    st.none(), st.text(max_size=30), st.integers(),
    st.builds(json.dumps, st.dictionaries(st.sampled_from(["x", "d", "n"]), st.text(max_size=40), max_size=3)),
)
OPTIONAL = {
    "cwd": st.one_of(st.none(), st.text(max_size=20), st.integers(), st.just("sub")),
    "timeoutMs": NUMBERS,
    "maxStdoutBytes": NUMBERS,
    "argsJson": ARGS_JSON,
    "token": st.one_of(st.none(), st.text(max_size=30)),
    "approvalId": st.one_of(st.none(), st.text(max_size=10)),
    "approve": st.one_of(st.none(), st.booleans(), st.text(max_size=3)),
    "response": st.recursive(st.none() | st.integers() | st.text(max_size=5), lambda c: st.lists(c, max_size=3), max_leaves=8),
}
PIPELINES = st.one_of(
    st.sampled_from(["exec echo hi", "nope |", "wf.lobster", "../wf.lobster", "exec --shell 'printf a'", "exec 'echo ${x} y'"]),
    st.text(max_size=40),
)
RUNS = st.fixed_dictionaries({"action": st.just("run"), "pipeline": PIPELINES}, optional=OPTIONAL)
ANYTHING = st.fixed_dictionaries({}, optional={"action": st.sampled_from(["run", "resume", "fly", "", None, 1]), **OPTIONAL})
FUZZ_WORKFLOW = "args:\n  x: {default: ''}\n  d: {default: .}\nsteps:\n  - id: s\n    cwd: ${d}\n    run: echo ${x}\n"


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(request=RUNS | ANYTHING | st.lists(st.integers(), max_size=2) | st.text(max_size=5))
def test_fuzzed_requests_always_get_one_envelope(request: Any, tmp_path: Path, env: dict[str, str]) -> None:
    (tmp_path / "sub").mkdir(exist_ok=True)
    (tmp_path / "wf.lobster").write_text(FUZZ_WORKFLOW, encoding="utf-8")
    envelope = call_tool(request, tmp_path, {**env, "LOBSTER_STATE_DIR": str(tmp_path / "fuzz-state")})
    assert envelope["protocolVersion"] == 1 and isinstance(envelope["ok"], bool)
    if envelope["ok"] is False:
        assert envelope["error"]["type"] in ("parse_error", "runtime_error") and envelope["error"]["message"]
        assert envelope["error"]["message"] != "lobster runtime failed", request
    json.dumps(envelope)
