"""`lobster run` (and `lobster '<pipeline>'`): argv parsed as the reference does, then a pipeline or a workflow file.

Where the reference is unsafe we differ (docs/compatibility.md): `--dry-run`, `--mode` and `-h/--help`
count wherever they stand, `--` ends the options, and an unknown option or a missing file is a usage error.
"""

from __future__ import annotations

import os
import sys

from lobsterlang.cli.usage import USAGE_EXIT, did_you_mean, looks_like_a_file, print_usage_error, workflow_path_problem
from lobsterlang.syntax.source import limit_message, over_limit, read_source_stream

RUN_USAGE = "[--mode human|tool] [--dry-run] [--raw-args] [--strict-args] [--approval-ttl D] [--backend URL [--detach]] [--schedule NAME [--overlap skip|queue]] [--args-json JSON] ('<pipeline>' | FILE | --file FILE | -)"
_VALUED = ("mode", "file", "args-json", "approval-ttl", "max-output-bytes", "backend", "schedule", "overlap")
RUN_OPTIONS = ("--mode", "--file", "--args-json", "--approval-ttl", "--max-output-bytes", "--backend", "--schedule", "--overlap",
               "--dry-run", "--raw-args", "--strict-args", "--detach", "--help", "-h", "--")
"""Every option `run` reads (usage errors suggest from it; shell completion offers it)."""
_MODES = ("human", "tool")
_OVERLAPS = ("skip", "queue")


class RunUsageError(Exception):
    """A `lobster run` command line that cannot mean anything: printed as a usage error, exit 2."""


class RunArgs:
    """`lobster run` after the argv rules: flags pulled out, the remaining words joined into the pipeline."""

    def __init__(self) -> None:
        self.mode = "human"
        self.file: str | None = None
        self.args_json: str | None = None
        self.dry_run = False
        self.raw_args = False
        self.strict_args = False
        self.approval_ttl: str | None = None
        self.help = False
        self.max_output_bytes: str | None = None
        self.backend: str | None = None
        self.detach = False
        self.schedule: str | None = None
        self.overlap: str | None = None
        self.words: list[str] = []

    @property
    def text(self) -> str:
        return " ".join(self.words)

    def workflow_file(self) -> str | None:
        """`--file`, or a sole word without `|` or spaces that names a workflow file (RunUsageError if it is missing)."""
        path = self.file
        if path is None and len(self.words) == 1 and (_looks_like_file(self.words[0]) or _names_directory(self.words[0])):
            path = self.words[0]
        if path is None:
            return None
        problem = workflow_path_problem(path)
        if problem is not None:
            raise RunUsageError(problem)
        return path


def _looks_like_file(word: str) -> bool:
    """A word meant as a workflow file (`flows/x.lobster`, a mistyped `cleanup.lobstr`), not a pipeline command."""
    if not looks_like_a_file(word):
        return False
    from lobsterlang.interpret.pipeline.registry import IMPLEMENTATIONS

    return word not in IMPLEMENTATIONS


def _names_directory(word: str) -> bool:
    """A sole word naming a directory that is no pipeline command (`lobster run flows/`)."""
    if not os.path.isdir(word):
        return False
    from lobsterlang.interpret.pipeline.registry import IMPLEMENTATIONS

    return word not in IMPLEMENTATIONS


def parse_run_args(argv: list[str]) -> RunArgs:
    """`--mode`, `--file`, `--args-json`, `--dry-run` and `-h` from anywhere before `--`; `--raw-args` before the pipeline."""
    parsed = RunArgs()
    index = 0
    while index < len(argv):
        if argv[index] == "--":
            parsed.words += argv[index + 1:]
            break
        index = _take(argv, index, parsed)
    _trailing_flags(parsed)
    return parsed


def _take(argv: list[str], index: int, parsed: RunArgs) -> int:
    word = argv[index]
    for name in _VALUED:
        if word == f"--{name}":
            if index + 1 >= len(argv):
                raise RunUsageError(f"--{name} needs a value")
            _set(parsed, name, argv[index + 1])
            return index + 2
        if word.startswith(f"--{name}="):
            _set(parsed, name, word.split("=", 1)[1])
            return index + 1
    if word in ("-h", "--help"):
        parsed.help = True
    elif word == "--dry-run":
        parsed.dry_run = True
    elif word in _TRAILING_FLAGS and not parsed.words:
        setattr(parsed, word[2:].replace("-", "_"), True)
    elif word.startswith("-") and word != "-" and not parsed.words:
        raise RunUsageError(f"No such option '{word}'.{did_you_mean(word.split('=', 1)[0], RUN_OPTIONS)}")
    else:
        parsed.words.append(word)
    return index + 1


def _set(parsed: RunArgs, name: str, value: str) -> None:
    if name == "mode":
        if value not in _MODES:
            raise RunUsageError(f"--mode must be human or tool, not {value!r}.{did_you_mean(value, _MODES)}")
        parsed.mode = value
    elif name == "file":
        parsed.file = value
    elif name == "approval-ttl":
        parsed.approval_ttl = value
    elif name == "max-output-bytes":
        parsed.max_output_bytes = value
    elif name == "backend":
        parsed.backend = value
    elif name == "schedule":
        parsed.schedule = value
    elif name == "overlap":
        if value not in _OVERLAPS:
            raise RunUsageError(f"--overlap must be skip or queue, not {value!r}.{did_you_mean(value, _OVERLAPS)}")
        parsed.overlap = value
    else:
        parsed.args_json = value


_TRAILING_FLAGS = ("--raw-args", "--strict-args", "--detach")


def _trailing_flags(parsed: RunArgs) -> None:
    """`run FILE --raw-args` and `run FILE --detach` also work when FILE is a workflow file."""
    rest = [w for w in parsed.words if w not in _TRAILING_FLAGS]
    if len(rest) == 1 and rest != parsed.words and _looks_like_file(rest[0]):
        for flag in set(parsed.words) - set(rest):
            setattr(parsed, flag[2:].replace("-", "_"), True)
        parsed.words = rest


def run_main(argv: list[str], *, whole_process: bool = False) -> int:
    """Run what `argv` names; prints the result and returns the exit code. `whole_process`: the process ends
    after it, so a lone pipeline's large buffers may be left to the exit (`lobsterlang.cli.main`)."""
    tool = _tool_mode_requested(argv)
    try:
        parsed = parse_run_args(argv)
        if parsed.help:
            from lobsterlang.cli.app import run

            return run(["run", "--help"])
        problem = _approval_ttl_problem(parsed)
        if problem is not None:
            return problem
        if parsed.workflow_file() is None and not parsed.words:
            raise RunUsageError("give a pipeline, a workflow file, or `-` to read the pipeline from stdin")
        _check_schedule_options(parsed)
    except RunUsageError as exc:
        return _usage_error(str(exc), tool)
    if parsed.max_output_bytes is None:
        return _run_parsed(parsed, whole_process)
    from lobsterlang.interpret.outputcap import cap_from_flag

    with cap_from_flag(parsed.max_output_bytes) as cap_problem:
        if cap_problem is not None:
            from lobsterlang.interpret.errors import UsageError
            from lobsterlang.interpret.pipeline.frontend import report_error

            return report_error(UsageError(cap_problem), parsed.mode, sys.stdout, sys.stderr)
        return _run_parsed(parsed, whole_process)


def _run_parsed(parsed: RunArgs, whole_process: bool) -> int:
    if parsed.backend:
        os.environ["LOBSTER_BACKEND"] = parsed.backend
    if parsed.strict_args:
        os.environ["LOBSTER_STRICT_ARGS"] = "1"  # read where the workflow's args are resolved (workflow/context.py)
    path = parsed.workflow_file()
    if parsed.detach and not parsed.dry_run:  # a dry run only prints the plan, detached or not
        from lobsterlang.interpret.backend.detach import detach_file

        return detach_file(path or parsed.text, parsed.args_json, parsed.mode, parsed.raw_args, parsed.approval_ttl)
    if parsed.schedule is not None and not parsed.dry_run and path is not None:
        return _run_tick(path, parsed)
    if path is not None:
        if not (whole_process and parsed.dry_run):
            return _run_workflow(path, parsed)
        from lobsterlang.interpret.pipeline.teardown import ending_the_process

        with ending_the_process() as finish:  # a dry run alone: its IR may be left to the exit, as a lone pipeline's buffers
            return finish(_run_workflow(path, parsed))
    from lobsterlang.interpret.pipeline.frontend import run_pipeline_text

    text = parsed.text
    if parsed.words == ["-"]:
        data = read_source_stream()
        if over_limit(data):
            from lobsterlang.interpret.errors import UsageError
            from lobsterlang.interpret.pipeline.frontend import report_error

            return report_error(UsageError(limit_message("stdin")), parsed.mode, sys.stdout, sys.stderr)
        text = data.decode("utf-8", "replace")
    if not whole_process:
        return run_pipeline_text(text, parsed.mode, dry_run=parsed.dry_run)
    from lobsterlang.interpret.pipeline.teardown import ending_the_process

    with ending_the_process() as finish:
        return finish(run_pipeline_text(text, parsed.mode, dry_run=parsed.dry_run))


def _tool_mode_requested(argv: list[str]) -> bool:
    """Whether a usage error should be an envelope: `--mode tool` appears among the options."""
    options = argv[: argv.index("--")] if "--" in argv else argv
    return any(a == "--mode=tool" or (a == "--mode" and options[i + 1:i + 2] == ["tool"]) for i, a in enumerate(options))


def _usage_error(message: str, tool: bool) -> int:
    if not tool:
        return print_usage_error("run", RUN_USAGE, message)
    from lobsterlang.interpret.envelope import dump, error_envelope

    sys.stdout.write(dump(error_envelope("parse_error", message)))
    sys.stdout.flush()
    return USAGE_EXIT


def _run_workflow(path: str, parsed: RunArgs, schedule: str | None = None) -> int:
    from lobsterlang.interpret.workflow.frontend import run_file

    return int(run_file(path, parsed.args_json, parsed.mode, parsed.dry_run, parsed.raw_args, schedule))


def _check_schedule_options(parsed: RunArgs) -> None:
    """`--schedule` runs a workflow file on this machine; `--overlap` says what a tick does while the last one runs."""
    if parsed.overlap is not None and parsed.schedule is None:
        raise RunUsageError("--overlap goes with --schedule NAME")
    if parsed.schedule is None:
        return
    if parsed.detach:
        raise RunUsageError("--schedule is for ticks fired on this machine (cron, systemd); schedules the workers fire "
                            "are added with `lobster schedule add` and need no --detach")
    if parsed.workflow_file() is None:
        raise RunUsageError("--schedule runs a workflow file: give FILE")


def _run_tick(path: str, parsed: RunArgs) -> int:
    """`run --schedule NAME FILE`: the run, under the schedule's lock (`lobsterlang.interpret.schedule.ticklock`)."""
    from lobsterlang.interpret.errors import LobsterRunError
    from lobsterlang.interpret.pipeline.frontend import report_error
    from lobsterlang.interpret.schedule.ticklock import run_tick

    assert parsed.schedule is not None
    schedule = parsed.schedule
    try:
        return run_tick(schedule, parsed.overlap or "skip", lambda: _run_workflow(path, parsed, schedule), os.environ,
                        sys.stderr)
    except LobsterRunError as exc:
        return report_error(exc, parsed.mode, sys.stdout, sys.stderr)


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
