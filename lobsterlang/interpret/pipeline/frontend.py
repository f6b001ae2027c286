"""Run a pipeline string for the CLI: human output or one tool envelope, exit codes as the reference."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from typing import TextIO

from lobsterlang.interpret.dispatchlink import dispatch_reporter
from lobsterlang.interpret.envelope import Envelope, dump, error_envelope
from lobsterlang.interpret.errors import LobsterRunError
from lobsterlang.interpret.pipeline.runtime import (
    Mode,
    PipelineResult,
    RunContext,
    check_stages,
    describe_plan,
    run_pipeline,
)
from lobsterlang.interpret.pipeline.session import compile_text
from lobsterlang.interpret.signals import cancel_on_signals
from lobsterlang.interpret.values import stringify
from lobsterlang.interpret.wiring import store_from_env
from lobsterlang.terminal import visible


def make_context(mode: Mode, env: Mapping[str, str] | None = None, cwd: str | None = None) -> RunContext:
    """A pipeline run from the CLI; under a workflow step's shell, its dispatches are reported to that step."""
    env = dict(os.environ if env is None else env)
    return RunContext(env=env, cwd=cwd or os.getcwd(), mode=mode, store=store_from_env(env),
                      on_dispatch=dispatch_reporter(env))


def run_pipeline_text(text: str, mode: str, *, dry_run: bool = False, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Parse and run `text`; print its output (human) or envelope (tool); return the exit code."""
    out, err = out or sys.stdout, err or sys.stderr
    ctx = make_context("tool" if mode == "tool" else "human")
    try:
        with cancel_on_signals(ctx.cancel):
            pipeline = compile_text(text)
            if dry_run:
                check_stages(pipeline, [stage.name.value for stage in pipeline.stages])
                err.write(describe_plan(pipeline))
                return _print_ok(out, ctx, None)
            result = run_pipeline(pipeline, [], ctx)
            if ctx.mode == "tool":
                from lobsterlang.interpret.pipeline.session import envelope_for

                return print_envelope(out, envelope_for(pipeline, result, ctx))
            return _print_ok(out, ctx, result)
    except LobsterRunError as exc:
        return report_error(exc, ctx.mode, out, err)
    except (OSError, RecursionError) as exc:
        return report_error(as_run_error(exc), ctx.mode, out, err)


def as_run_error(exc: OSError | RecursionError) -> LobsterRunError:
    """An unexpected system problem (unwritable state dir, nesting too deep) as a runtime error."""
    if isinstance(exc, RecursionError):
        return LobsterRunError("value nested too deeply")
    where = f": {exc.filename}" if exc.filename else ""
    return LobsterRunError(f"{exc.strerror or exc}{where}")


def _print_ok(out: TextIO, ctx: RunContext, result: PipelineResult | None) -> int:
    if ctx.mode == "tool":
        from lobsterlang.interpret.envelope import ok_envelope

        return print_envelope(out, ok_envelope([]))
    if result is None:
        return 0
    out.write(result.rendered_text if result.rendered_text is not None else stringify(result.items, 2) + "\n")
    return 0


def print_envelope(out: TextIO, envelope: Envelope) -> int:
    """Print an envelope; the exit code follows it (0 ok, 2 parse_error, 1 other errors)."""
    out.write(dump(envelope))
    out.flush()
    if envelope.get("ok"):
        return 0
    return 2 if envelope["error"]["type"] == "parse_error" else 1


def report_error(exc: LobsterRunError, mode: str, out: TextIO, err: TextIO, *, stage_notes: bool = True) -> int:
    """Tool mode: an error envelope on stdout. Human mode: `Parse error: …` or `Error: …` on stderr, and its notes
    (`stage_notes`: where in the pipeline it happened)."""
    if mode == "tool":
        print_envelope(out, error_envelope(exc.error_type, exc.message))
    else:
        label = "Parse error" if exc.error_type == "parse_error" else "Error"
        err.write(f"{label}: {visible(exc.message, lines=True)}\n")
        if stage_notes and exc.stage_note is not None:  # where it happened (`in stage 3 (pikc)`), under the reference's line
            err.write(f"  {visible(exc.stage_note)}\n")
    return exc.exit_code
