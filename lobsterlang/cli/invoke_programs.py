"""The `openclaw.invoke` and `clawd.invoke` programs: one pipeline stage of that command, run from a shell.

The reference package installs both beside `lobster`, and workflow files call them in `run:` lines
(`run: openclaw.invoke --tool message --action send --args-json '{…}'`). Each argument is one word of
the stage, exactly as given; the stage runs as `lobster '<stage>'` runs it, and its items are printed as
a JSON array on stdout, which the next step reads with `stdin: $step.json`.
"""

from __future__ import annotations

import sys
from typing import TextIO

HELP = """\
{name} — call an OpenClaw tool through the gateway, from a shell or a workflow's `run:` line

Usage:
  {name} --tool TOOL --action ACTION [--args-json JSON] [--url URL] [--token TOKEN]
  {pad} [--session-key KEY] [--dry-run]

Each argument is one word of the `{name}` pipeline stage, run as `lobster '{name} …'`
runs it (`lobster help {name}` describes the flags; `--each` has no items to read here).
The tool's result is printed as a JSON array.

Environment:
  OPENCLAW_URL, else CLAWD_URL      the gateway, when --url is not given
  OPENCLAW_TOKEN, else CLAWD_TOKEN  the bearer token when --token is not given; sent only to a local
                                    gateway (localhost, 127.0.0.1, ::1)
  LOBSTER_DISPATCH_SOCKET,          set by a workflow step for its shell: the call is reported to the step
  LOBSTER_DISPATCH_TOKEN            before it is sent (so `retry:` does not send it again); when the step
                                    does not answer, nothing is sent

Exit codes: 0 ok, 1 the call failed (the reason is on stderr), 2 a usage error.
"""


def quoted(word: str) -> str:
    """`word` as one double-quoted pipeline word: `\\`, `"`, `$` and backquote escaped, nothing else changed."""
    return '"' + "".join("\\" + c if c in '\\"$`' else c for c in word) + '"'


def run_program(name: str, argv: list[str], out: TextIO, err: TextIO) -> int:
    """Run `name` with `argv` as its words; print the items (or `Error: …`) and return the exit code."""
    if argv[:1] == ["-h"] or "--help" in argv:
        out.write(HELP.format(name=name, pad=" " * len(name)))
        return 0
    from lobsterlang.interpret.errors import LobsterRunError
    from lobsterlang.interpret.pipeline.frontend import as_run_error, make_context, report_error
    from lobsterlang.interpret.pipeline.runtime import run_pipeline
    from lobsterlang.interpret.pipeline.session import compile_text
    from lobsterlang.interpret.signals import cancel_on_signals
    from lobsterlang.interpret.values import stringify

    ctx = make_context("human")
    try:
        with cancel_on_signals(ctx.cancel):
            result = run_pipeline(compile_text(" ".join([name, *map(quoted, argv)])), [], ctx)
    except LobsterRunError as exc:
        return report_error(exc, "human", out, err, stage_notes=False)  # a program, not a pipeline: no stage to name
    except (OSError, RecursionError) as exc:
        return report_error(as_run_error(exc), "human", out, err)
    out.write(stringify(result.items, 2) + "\n")
    return 0


def openclaw_invoke() -> None:
    """Console script `openclaw.invoke`."""
    sys.exit(run_program("openclaw.invoke", sys.argv[1:], sys.stdout, sys.stderr))


def clawd_invoke() -> None:
    """Console script `clawd.invoke` (the legacy name)."""
    sys.exit(run_program("clawd.invoke", sys.argv[1:], sys.stdout, sys.stderr))
