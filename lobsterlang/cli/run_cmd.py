"""`lobster run` (and `lobster '<pipeline>'`): argv parsed as the reference does, then a pipeline or a workflow file."""

from __future__ import annotations

import os
import sys

WORKFLOW_SUFFIXES = (".lobster", ".yaml", ".yml", ".json")
_LEADING_FLAGS = ("--dry-run", "--raw-args", "--detach")


class RunArgs:
    """`lobster run` after the reference's argv rules: removable flags pulled out, the rest joined."""

    def __init__(self) -> None:
        self.mode = "human"
        self.file: str | None = None
        self.args_json: str | None = None
        self.dry_run = False
        self.raw_args = False
        self.approval_ttl: str | None = None
        self.backend: str | None = None
        self.detach = False
        self.words: list[str] = []

    @property
    def text(self) -> str:
        return " ".join(self.words)

    def workflow_file(self) -> str | None:
        """`--file`, or a sole word without `|` naming an existing workflow file."""
        if self.file is not None:
            return self.file
        if len(self.words) == 1 and "|" not in self.words[0] and _is_workflow_file(self.words[0]):
            return self.words[0]
        return None


def _is_workflow_file(path: str) -> bool:
    return path.lower().endswith(WORKFLOW_SUFFIXES) and os.path.isfile(path)


def parse_run_args(argv: list[str]) -> RunArgs:
    """`--mode`, `--file` and `--args-json` are taken from anywhere; `--dry-run` only before the pipeline."""
    parsed = RunArgs()
    index = 0
    while index < len(argv):
        index = _take(argv, index, parsed)
    _trailing_leading_flags(parsed)
    return parsed


def _take(argv: list[str], index: int, parsed: RunArgs) -> int:
    word = argv[index]
    for name in ("mode", "file", "args-json", "approval-ttl", "backend"):
        if word == f"--{name}":
            if index + 1 < len(argv):
                _set(parsed, name, argv[index + 1])
            return index + 2
        if word.startswith(f"--{name}="):
            _set(parsed, name, word.split("=", 1)[1])
            return index + 1
    if word in _LEADING_FLAGS and not parsed.words:
        setattr(parsed, word[2:].replace("-", "_"), True)
        return index + 1
    parsed.words.append(word)
    return index + 1


def _set(parsed: RunArgs, name: str, value: str) -> None:
    if name == "mode":
        parsed.mode = "tool" if value == "tool" else "human"
    elif name == "file":
        parsed.file = value
    elif name == "approval-ttl":
        parsed.approval_ttl = value
    elif name == "backend":
        parsed.backend = value
    else:
        parsed.args_json = value


def _trailing_leading_flags(parsed: RunArgs) -> None:
    """`run FILE --dry-run` also works when FILE is an existing workflow file."""
    rest = [w for w in parsed.words if w not in _LEADING_FLAGS]
    if len(rest) == 1 and rest != parsed.words and _is_workflow_file(rest[0]):
        for flag in set(parsed.words) - set(rest):
            setattr(parsed, flag[2:].replace("-", "_"), True)
        parsed.words = rest


def run_main(argv: list[str]) -> int:
    """Run what `argv` names; prints the result and returns the exit code."""
    parsed = parse_run_args(argv)
    problem = _approval_ttl_problem(parsed)
    if problem is not None:
        return problem
    if parsed.backend:
        os.environ["LOBSTER_BACKEND"] = parsed.backend
    path = parsed.workflow_file()
    if parsed.detach and not parsed.dry_run:  # a dry run only prints the plan, detached or not
        from lobsterlang.interpret.backend.detach import detach_file

        return detach_file(path or parsed.text, parsed.args_json, parsed.mode, parsed.raw_args, parsed.approval_ttl)
    if path is not None:
        return _run_workflow(path, parsed)
    from lobsterlang.interpret.pipeline.frontend import run_pipeline_text

    return run_pipeline_text(parsed.text, parsed.mode, dry_run=parsed.dry_run)


def _run_workflow(path: str, parsed: RunArgs) -> int:
    from lobsterlang.interpret.resume import workflow_entry

    run_file = workflow_entry("run_file")
    if run_file is None:
        sys.stderr.write("Error: workflow files are not supported by this build\n")
        return 1
    return int(run_file(path, parsed.args_json, parsed.mode, parsed.dry_run, parsed.raw_args))


def _approval_ttl_problem(parsed: RunArgs) -> int | None:
    """`--approval-ttl` (else LOBSTER_APPROVAL_TTL) checked before anything runs; it becomes the run's TTL."""
    if parsed.approval_ttl is None and not os.environ.get("LOBSTER_APPROVAL_TTL", "").strip():
        return None
    from lobsterlang.durations import HINT, parse_duration
    from lobsterlang.interpret.errors import LobsterRunError, UsageError
    from lobsterlang.interpret.gatestate import TTL_ENV, approval_ttl
    from lobsterlang.interpret.pipeline.frontend import report_error

    try:
        if parsed.approval_ttl is not None:
            if parse_duration(parsed.approval_ttl) is None:
                raise UsageError(f"run --approval-ttl {parsed.approval_ttl!r} is not a duration; {HINT}")
            os.environ[TTL_ENV] = parsed.approval_ttl
        approval_ttl(os.environ)
    except LobsterRunError as exc:
        return report_error(exc, parsed.mode, sys.stdout, sys.stderr)
    return None
