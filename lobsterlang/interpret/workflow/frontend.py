"""`lobster run FILE`: load, run or plan, and print the result as the reference does (human or tool)."""

from __future__ import annotations

import io
import json
import os
import sys
from dataclasses import dataclass, field
from typing import Any, TextIO

from lobsterlang.interpret.envelope import Envelope, dump, error_envelope, ok_envelope
from lobsterlang.interpret.errors import Cancelled, LobsterRunError
from lobsterlang.interpret.process import Cancellation
from lobsterlang.interpret.values import stringify
from lobsterlang.interpret.wiring import store_from_env
from lobsterlang.interpret.workflow.context import (
    Frame,
    Options,
    check_required_args,
    check_undeclared_args,
    resolve_args,
)
from lobsterlang.interpret.workflow.errors import WorkflowError, WorkflowUsageError
from lobsterlang.interpret.workflow.loader import check_path, load_workflow
from lobsterlang.terminal import visible


@dataclass
class Console:
    """Where a run prints: the mode and the two streams."""

    mode: str
    out: TextIO = field(default_factory=lambda: sys.stdout)
    err: TextIO = field(default_factory=lambda: sys.stderr)

    @property
    def tool(self) -> bool:
        return self.mode == "tool"

    def error(self, kind: str, message: str, code: int, location: str | None = None) -> int:
        """Print an error: `Error: <message>` and where it happened (human) or the error envelope (tool). A
        `usage_error` is a `parse_error` in the envelope; a `parse_error` prints bare, as the reference does."""
        if self.tool:
            self.out.write(dump(error_envelope("parse_error" if kind == "usage_error" else kind, message)))
        else:
            shown = visible(message, lines=True)
            self.err.write(shown + "\n" if kind == "parse_error" else f"Error: {shown}\n")
            if location is not None:
                self.err.write(f"  {visible(location)}\n")
        return code

    def failed(self, exc: WorkflowError | LobsterRunError) -> int:
        """Print what stopped a run (and the step it stopped in): usage problems exit 2, a cancellation
        130/143, the rest 1 or their own code."""
        where = getattr(exc, "location", None)
        if isinstance(exc, Cancelled):
            return self.error("runtime_error", exc.message, exc.exit_code)
        if isinstance(exc, WorkflowUsageError):
            return self.error("parse_error" if exc.bare else "usage_error", str(exc), 2, where)
        if isinstance(exc, WorkflowError):
            return self.error("runtime_error", str(exc), 1, where)
        return self.error(exc.error_type, exc.message, exc.exit_code, where)

    def result(self, envelope: Envelope) -> int:
        """Print a finished or halted run."""
        if self.tool:
            self.out.write(dump(envelope))
        elif envelope["status"] == "ok":
            self.out.write(human_output(envelope["output"]))
        else:
            shown = {k: envelope[k] for k in ("status", "output", "requiresApproval", "requiresInput")}
            self.out.write(stringify(shown, 2) + "\n")
        self.out.flush()
        return 0


def human_output(output: list[Any]) -> str:
    """What a person reads: text items (a shell step's stdout) as the text itself, one after the other, each
    ending its line; anything else as indented JSON (the reference's human output); nothing for no output."""
    if not output:
        return ""
    if all(isinstance(item, str) for item in output):
        return "".join(visible(item if item.endswith("\n") else item + "\n", lines=True) for item in output)
    return stringify(output, 2) + "\n"


def parse_args_json(text: str | None) -> Any:
    """The `--args-json` value; WorkflowUsageError when it is not JSON."""
    if text is None:
        return {}
    try:
        return json.loads(text)
    except ValueError:
        raise WorkflowUsageError("run --args-json must be valid JSON", bare=True) from None  # case 42 pins the bare line


def stdin_is_tty() -> bool:
    try:
        return sys.stdin is not None and sys.stdin.isatty()
    except (ValueError, OSError):
        return False


def run_file(path: str, args_json: str | None, mode: str, dry_run: bool, raw_args: bool, schedule: str | None = None) -> int:
    """Run (or plan) the workflow file at `path`, print the result, and return the exit code; `schedule`: the run is a
    tick of that schedule (its journal says so)."""
    from lobsterlang.interpret.signals import cancel_on_signals

    console = Console("tool" if mode == "tool" else "human")
    cancel = Cancellation()
    try:
        with cancel_on_signals(cancel):
            return _run(path, args_json, console, dry_run, raw_args, cancel, schedule)
    except (WorkflowError, LobsterRunError) as exc:
        return console.failed(exc)


def _run(path: str, args_json: str | None, console: Console, dry_run: bool, raw_args: bool, cancel: Cancellation,
         schedule: str | None = None) -> int:
    given = parse_args_json(args_json)
    env = dict(os.environ)
    check_path(path, env)
    workflow = load_workflow(path)[0]  # not the file's bytes: a plan of a large file grows beside the IR
    opts = Options(
        mode=console.mode, raw_args=raw_args, interactive=not console.tool and stdin_is_tty(),
        store=store_from_env(env), cancel=cancel, err=console.err, schedule=schedule,
    )
    check_undeclared_args(workflow, given, env, console.err if not console.tool else io.StringIO())  # tool mode: stderr stays the reference's
    args = resolve_args(workflow, given)
    check_required_args(workflow, args)
    frame = Frame(workflow, os.path.abspath(path), args, env, os.getcwd(), cancel, (os.path.realpath(path),))
    if dry_run:
        from lobsterlang.interpret.pipeline.teardown import let_go
        from lobsterlang.interpret.workflow.plan import write_plan

        write_plan(frame, 0, raw_args, console.err)
        let_go([frame])  # the CLI may leave the IR to the process's exit (freeing 100k steps: ~8 % of their dry run)
        return console.result(ok_envelope([])) if console.tool else 0
    from lobsterlang.interpret.workflow.runs import start_run

    return console.result(start_run(frame, opts))
