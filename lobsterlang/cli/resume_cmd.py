"""`lobster resume --token T | --id ID` with `--approve yes|no`, `--response-json` or `--cancel`; always an envelope.

`--mode tool|human` is accepted and changes nothing: resume prints the envelope in either mode, as the
reference does (it ignores `--mode` there, and agents pass `--mode tool`).
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

_CANCEL_WORDS = {"true": True, "1": True, "yes": True, "y": True, "false": False, "0": False, "no": False, "n": False}
_APPROVE_WORDS = {"yes": True, "y": True, "no": False, "n": False}
_VALUE_FLAGS = {
    "--token": "token", "--id": "id", "--approve": "approve", "--decision": "approve", "--response-json": "response", "--run": "run",
    "--backend": "backend", "--mode": "mode",
}
_MODES = ("tool", "human")
_SWITCHES = {"--retry-step": "retry_step", "--skip-step": "skip_step", "--accept-unsigned-state": "accept_unsigned",
             "--detach": "detach"}
RESUME_OPTIONS = (*_VALUE_FLAGS, *_SWITCHES, "--cancel")
"""Every option `resume` reads (usage errors suggest from it; shell completion offers it)."""


class ResumeArgs:
    """Raw `resume` flags as given; an unknown option is kept to be reported (the reference ignores it)."""

    def __init__(self, token: str | None = None, approve: str | None = None, response: str | None = None,
                 cancel: bool = False, cancel_error: bool = False) -> None:
        self.token, self.approve, self.response = token, approve, response
        self.id: str | None = None
        self.cancel, self.cancel_error = cancel, cancel_error
        self.run: str | None = None
        self.retry_step = self.skip_step = False
        self.accept_unsigned = False
        self.detach = False
        self.unknown: str | None = None
        self.backend: str | None = None
        self.mode: str | None = None

    def env(self) -> dict[str, str]:
        """The environment the resume runs with (`--accept-unsigned-state` sets LOBSTER_ACCEPT_UNSIGNED_STATE=1)."""
        env = dict(os.environ)
        if self.accept_unsigned:
            env["LOBSTER_ACCEPT_UNSIGNED_STATE"] = "1"
        if self.backend:
            env["LOBSTER_BACKEND"] = self.backend
        if self.detach:
            env["LOBSTER_RESUME_DETACH"] = "1"  # the approved gate's continuation goes to the workers
        return env


def parse_resume_args(argv: list[str]) -> ResumeArgs:
    parsed = ResumeArgs()
    index = 0
    while index < len(argv):
        index = _take(argv, index, parsed)
    return parsed


def _take(argv: list[str], index: int, parsed: ResumeArgs) -> int:
    word = argv[index]
    name, _, inline = word.partition("=")
    if name in _VALUE_FLAGS:
        if "=" in word:
            setattr(parsed, _VALUE_FLAGS[name], inline)
            return index + 1
        if index + 1 < len(argv):
            setattr(parsed, _VALUE_FLAGS[name], argv[index + 1])
        return index + 2
    if word in _SWITCHES:
        setattr(parsed, _SWITCHES[word], True)
        return index + 1
    if name == "--cancel":
        given = inline if "=" in word else (argv[index + 1] if index + 1 < len(argv) and not argv[index + 1].startswith("--") else None)
        value = True if given is None else _CANCEL_WORDS.get(given.lower())
        parsed.cancel, parsed.cancel_error = bool(value), parsed.cancel_error or value is None
        return index + (1 if "=" in word or given is None else 2)
    if word.startswith("-") and parsed.unknown is None:
        parsed.unknown = word
    return index + 1


def _check_unknown(parsed: ResumeArgs) -> None:
    from lobsterlang.cli.usage import did_you_mean
    from lobsterlang.interpret.errors import UsageError

    if parsed.unknown is not None:
        name = parsed.unknown.partition("=")[0]
        raise UsageError(f"No such option '{name}'.{did_you_mean(name, RESUME_OPTIONS)}")
    if parsed.mode is not None and parsed.mode not in _MODES:
        raise UsageError(f"--mode must be tool or human, not {parsed.mode!r}.{did_you_mean(parsed.mode, _MODES)}")
    if parsed.detach and not parsed.env().get("LOBSTER_BACKEND", "").startswith(("postgresql://", "postgres://")):
        raise UsageError("resume --detach needs a Postgres backend: --backend postgresql://USER@HOST/DB or LOBSTER_BACKEND")


def decision_from(parsed: ResumeArgs) -> Any:
    """Check the flags in the reference's order; a `Decision` or `UsageError`."""
    from lobsterlang.interpret.errors import UsageError
    from lobsterlang.interpret.pipeline.session import Decision

    _check_unknown(parsed)
    if parsed.cancel_error:
        raise UsageError("resume --cancel must be true or false")
    if not parsed.token and not parsed.id:
        raise UsageError("resume requires --token or --id")
    given = [parsed.approve is not None, parsed.response is not None, parsed.cancel]
    if sum(given) > 1:
        raise UsageError("resume accepts only one of --approve, --response-json, or --cancel")
    if not any(given):
        raise UsageError("resume requires --approve yes|no, --response-json, or --cancel")
    if parsed.response is not None:
        try:
            return Decision(response=json.loads(parsed.response))
        except ValueError:
            raise UsageError("resume --response-json must be valid JSON") from None
    if parsed.cancel:
        return Decision(cancel=True)
    approved = _APPROVE_WORDS.get((parsed.approve or "").lower())
    if approved is None:
        raise UsageError("resume --approve must be yes or no")
    return Decision(approve=approved)


def run_decision(parsed: ResumeArgs) -> Any:
    """For `--run ID`: the gate answer when one is given, else an empty decision."""
    from lobsterlang.interpret.pipeline.session import Decision

    _check_unknown(parsed)
    if parsed.approve is None and parsed.response is None and not parsed.cancel and not parsed.cancel_error:
        return Decision()
    return decision_from(ResumeArgs(token=parsed.run, approve=parsed.approve, response=parsed.response,
                                    cancel=parsed.cancel, cancel_error=parsed.cancel_error))


def resume_run_envelope(parsed: ResumeArgs) -> Any:
    """`resume --run ID [--retry-step|--skip-step]`: continue an interrupted workflow run from its journal."""
    from lobsterlang.interpret.envelope import error_envelope
    from lobsterlang.interpret.errors import LobsterRunError
    from lobsterlang.interpret.pipeline.frontend import make_context
    from lobsterlang.interpret.workflow.recover import resume_run

    try:
        decision = run_decision(parsed)
        return resume_run(parsed.run or "", decision, parsed.retry_step, parsed.skip_step, make_context("tool", parsed.env()))
    except LobsterRunError as exc:
        return error_envelope(exc.error_type, exc.message)


def resume_main(argv: list[str]) -> int:
    """Resume a halted pipeline or workflow; prints one envelope and returns the exit code."""
    from lobsterlang.interpret.pipeline.frontend import print_envelope
    from lobsterlang.interpret.resume import resume_envelope

    parsed = parse_resume_args(argv)
    if parsed.run is not None:
        return print_envelope(sys.stdout, resume_run_envelope(parsed))
    return print_envelope(sys.stdout, resume_envelope(parsed.token, parsed.id, lambda: decision_from(parsed), parsed.env()))
