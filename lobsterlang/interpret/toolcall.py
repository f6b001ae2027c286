"""The embedded tool call: `{"action":"run"|"resume", ...}` → exactly one envelope, with a timeout and output caps.

Each call runs `lobster run --mode tool` (or `lobster resume`) in a child process group inside
the workspace; its arguments go to the child on stdin (no argv size or NUL limits). The child's
steps may write at most `maxStdoutBytes` to stdout and to stderr each, and stay in the workspace.
A timeout stops the whole tree, descendants that left the process group included.
"""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from lobsterlang.interpret import hostkey
from lobsterlang.interpret.confine import WORKSPACE_VAR
from lobsterlang.interpret.envelope import Envelope, error_envelope
from lobsterlang.interpret.outputcap import CAP_SETTING_VAR, CAP_VAR
from lobsterlang.interpret.process import signal_group
from lobsterlang.interpret.reaper import descendants

DEFAULT_TIMEOUT_MS = 20_000
DEFAULT_MAX_STDOUT_BYTES = 512_000
MIN_TIMEOUT_MS = 200
MAX_TIMEOUT_MS = 2**31 - 1
MIN_OUTPUT_BYTES = 1024
MAX_OUTPUT_BYTES = 1 << 40
ENVELOPE_READ_CAP = 256 << 20
"""The runner's own stdout (the envelope) and stderr are read up to this many bytes, to bound memory."""
STOP_GRACE_S = 1.5


class ToolCallError(Exception):
    """A request the tool refuses, or a run it had to stop; `error_type` goes into the envelope."""

    def __init__(self, message: str, error_type: str = "runtime_error") -> None:
        super().__init__(message)
        self.error_type = error_type


def call_tool(request: Any, workspace: str | os.PathLike[str] | None = None, env: Mapping[str, str] | None = None) -> Envelope:
    """Run or resume as the request says; always returns an envelope (errors included)."""
    try:
        if not isinstance(request, dict):
            raise ToolCallError("tool request must be a JSON object", "parse_error")
        root = Path(workspace if workspace is not None else os.getcwd()).resolve()
        cwd = resolve_cwd(request.get("cwd"), root)
        argv = request_argv(request)
        limits = _Limits(request)
        caller_env = os.environ if env is None else env
        return _run_child(_runner_input(argv, caller_env), cwd, _child_env(caller_env, root, limits), limits)
    except ToolCallError as exc:
        return error_envelope(exc.error_type, str(exc))
    except RecursionError:
        return error_envelope("parse_error", "tool request is nested too deeply")
    except (OSError, ValueError, OverflowError) as exc:
        return error_envelope("runtime_error", f"lobster runtime failed: {exc}")


def _runner_input(argv: list[str], env: Mapping[str, str]) -> dict[str, Any]:
    """What the runner reads on stdin: the `lobster` arguments, and the host's signing key (never in its environment)."""
    try:
        key = hostkey.for_env(env)
    except hostkey.HostKeyError as exc:
        raise ToolCallError(f"lobster runtime failed: {exc}") from None
    return {"argv": argv, **({"signingKey": key.hex()} if key is not None else {})}


def _child_env(env: Mapping[str, str], workspace: Path, limits: _Limits) -> dict[str, str]:
    """The runner's environment: the caller's (without the signing key), plus the workspace and the step output cap."""
    child = hostkey.without_key(env)
    child.update({WORKSPACE_VAR: str(workspace), CAP_VAR: str(limits.max_bytes), CAP_SETTING_VAR: "maxStdoutBytes"})
    return child


def resolve_cwd(raw: Any, workspace: Path) -> Path:
    """A relative `cwd` inside the workspace, symlinks resolved; anything else is refused."""
    base = workspace.resolve()
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return base
    if not isinstance(raw, str):
        raise ToolCallError("cwd must be a string", "parse_error")
    if "\0" in raw:
        raise ToolCallError("cwd must not contain a NUL byte", "parse_error")
    if os.path.isabs(raw.strip()):
        raise ToolCallError("cwd must be a relative path", "parse_error")
    target = (base / raw.strip()).resolve()
    if target != base and base not in target.parents:
        raise ToolCallError("cwd must stay within the gateway working directory", "parse_error")
    if not target.is_dir():
        raise ToolCallError(f"cwd is not a directory: {raw.strip()}", "parse_error")
    return target


def request_argv(request: dict[str, Any]) -> list[str]:
    """The `lobster` arguments for a run or resume request."""
    action = request.get("action")
    if action == "run":
        return _run_argv(request)
    if action == "resume":
        return _resume_argv(request)
    raise ToolCallError('action must be "run" or "resume"', "parse_error")


def _run_argv(request: dict[str, Any]) -> list[str]:
    pipeline = request.get("pipeline")
    if not isinstance(pipeline, str) or not pipeline.strip():
        raise ToolCallError("pipeline required", "parse_error")
    argv = ["run", "--mode", "tool"]
    args_json = request.get("argsJson")
    if isinstance(args_json, str) and args_json.strip():
        try:
            json.loads(args_json)
        except ValueError:
            raise ToolCallError("run --args-json must be valid JSON", "parse_error") from None
        argv += ["--args-json", args_json]
    elif args_json is not None and not isinstance(args_json, str):
        raise ToolCallError("run --args-json must be valid JSON", "parse_error")
    return [*argv, "--", pipeline.strip()]  # `--`: a pipeline that starts with `-` is never read as an option


def _resume_argv(request: dict[str, Any]) -> list[str]:
    token, approval_id = request.get("token"), request.get("approvalId")
    if isinstance(token, str) and token.strip():
        argv = ["resume", "--token", token.strip()]
    elif isinstance(approval_id, str) and approval_id.strip():
        argv = ["resume", "--id", approval_id.strip()]
    else:
        raise ToolCallError("token required", "parse_error")
    if "response" in request:
        return [*argv, "--response-json", json.dumps(request["response"])]
    if request.get("cancel") is True:
        return [*argv, "--cancel"]
    if not isinstance(request.get("approve"), bool):
        raise ToolCallError("approve required", "parse_error")
    return [*argv, "--approve", "yes" if request["approve"] else "no"]


class _Limits:
    """`timeoutMs` (200 ms to about 24.8 days) and `maxStdoutBytes` (1024 bytes to 1 TiB) of a request."""

    def __init__(self, request: dict[str, Any]) -> None:
        timeout_ms = _number(request.get("timeoutMs"), DEFAULT_TIMEOUT_MS)
        self.timeout_s = min(MAX_TIMEOUT_MS, max(MIN_TIMEOUT_MS, timeout_ms)) / 1000
        max_bytes = _number(request.get("maxStdoutBytes"), DEFAULT_MAX_STDOUT_BYTES)
        self.max_bytes = int(min(MAX_OUTPUT_BYTES, max(MIN_OUTPUT_BYTES, max_bytes)))


def _number(value: Any, default: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        return default
    return float(value)


def _run_child(payload: dict[str, Any], cwd: Path, env: dict[str, str], limits: _Limits) -> Envelope:
    proc = subprocess.Popen(
        [sys.executable, "-m", "lobsterlang.cli.toolchild"], cwd=cwd, env=env, start_new_session=True,
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    try:
        _send(proc, payload)
        stdout = _collect(proc, limits)
    except BaseException:
        stop_tree(proc)
        raise
    return _parse_envelope(stdout)


def _send(proc: subprocess.Popen[bytes], payload: dict[str, Any]) -> None:
    """The arguments (and key), as JSON on the runner's stdin (it reads all of it before it starts)."""
    assert proc.stdin is not None
    with contextlib.suppress(BrokenPipeError):
        proc.stdin.write(json.dumps(payload).encode("utf-8", "surrogatepass"))
    with contextlib.suppress(BrokenPipeError):
        proc.stdin.close()


def _collect(proc: subprocess.Popen[bytes], limits: _Limits) -> bytes:
    """Read stdout and stderr until both close; enforce the deadline and the byte cap."""
    deadline = time.monotonic() + limits.timeout_s
    chunks: dict[str, list[bytes]] = {"stdout": [], "stderr": []}
    sizes = {"stdout": 0, "stderr": 0}
    with selectors.DefaultSelector() as selector:
        selector.register(proc.stdout, selectors.EVENT_READ, "stdout")  # type: ignore[arg-type]
        selector.register(proc.stderr, selectors.EVENT_READ, "stderr")  # type: ignore[arg-type]
        while selector.get_map():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise ToolCallError("lobster runtime timed out")
            for key, _ in selector.select(timeout=remaining):
                data = os.read(key.fileobj.fileno(), 65536)  # type: ignore[union-attr]
                if not data:
                    selector.unregister(key.fileobj)
                    continue
                sizes[key.data] += len(data)
                if sizes[key.data] > ENVELOPE_READ_CAP:
                    raise ToolCallError(f"lobster {key.data} exceeded maxStdoutBytes")
                chunks[key.data].append(data)
    _wait(proc, deadline)
    return b"".join(chunks["stdout"])


def _wait(proc: subprocess.Popen[bytes], deadline: float) -> None:
    try:
        proc.wait(timeout=max(0.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        raise ToolCallError("lobster runtime timed out") from None


def stop_tree(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM the runner's group (it stops its own children), then SIGKILL whatever is left.

    The runner is a child subreaper, so what its steps left behind outside their process groups
    is still below it: that is killed before the runner itself.
    """
    import signal

    signal_group(proc.pid, signal.SIGTERM)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=STOP_GRACE_S)
    for pid in descendants(proc.pid):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
    signal_group(proc.pid, signal.SIGKILL)
    proc.wait()
    for stream in (proc.stdout, proc.stderr):
        if stream is not None:
            stream.close()


def _parse_envelope(stdout: bytes) -> Envelope:
    try:
        envelope = json.loads(stdout.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        envelope = None
    if not isinstance(envelope, dict) or "ok" not in envelope:
        return error_envelope("runtime_error", "lobster runtime failed")
    if envelope.get("ok") is False and not (isinstance(envelope.get("error"), dict) and envelope["error"].get("message")):
        return error_envelope("runtime_error", "lobster runtime failed")
    return envelope
