"""`openclaw.agent`: one OpenClaw agent turn through the `openclaw agent --json` CLI (`LOBSTER_OPENCLAW_BIN`)."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from typing import Any

from lobsterlang.interpret.errors import CommandError
from lobsterlang.interpret.outputcap import OutputCap, output_cap
from lobsterlang.interpret.pipeline.args import StageArgs
from lobsterlang.interpret.pipeline.runtime import RunContext, StageOutput
from lobsterlang.interpret.pipeline.streams import drain
from lobsterlang.interpret.process import OutputTooLarge, run_to_end
from lobsterlang.interpret.values import js_string, stringify, to_number

NAME = "openclaw.agent"
MAX_OUTPUT_BYTES = 10 * 1024 * 1024
_OPTIONS = (("agent", ("agent",)), ("model", ("model",)), ("session-key", ("sessionKey", "session-key")),
            ("session-id", ("sessionId", "session-id")), ("thinking", ("thinking",)))
"""Flags passed on to `openclaw agent`, in the reference's order; of two spellings the camelCase one wins."""


def _optional(args: StageArgs, *names: str) -> str | None:
    """The first given flag of `names` as trimmed text (a bare flag is `true`); None when absent or blank."""
    value = args.get(*names)
    return (js_string(value).strip() or None) if value is not None else None


def agent_message(args: StageArgs, items: list[Any]) -> str:
    """The prompt (`--prompt`, else `--message`, else the positional text) plus the input items as JSONL."""
    prompt = _optional(args, "prompt", "message") or " ".join(args.positionals).strip()
    if not prompt:
        raise CommandError(f"{NAME} requires --prompt, --message, or positional text")
    if not items:
        return prompt
    return prompt + "\n\nPipeline input (JSONL):\n" + "\n".join(stringify(item) for item in items)


def agent_argv(args: StageArgs, message: str) -> list[str]:
    """`agent --json --message M` and the optional flags, in the reference's order."""
    values = {flag: _optional(args, *names) for flag, names in _OPTIONS}
    if not (values["agent"] or values["session-key"] or values["session-id"]):
        raise CommandError(f"{NAME} requires --agent, --session-key, or --session-id")
    argv = ["agent", "--json", "--message", message]
    for flag, value in values.items():
        if value:
            argv += [f"--{flag}", value]
    timeout = args.get("timeout")
    if timeout is not None:
        seconds = to_number(timeout)
        if not (math.isfinite(seconds) and seconds == int(seconds) and seconds >= 0):
            raise CommandError(f"{NAME} --timeout must be a non-negative integer in seconds")
        argv += ["--timeout", js_string(seconds)]
    return argv + (["--local"] if args.get("local") is True else [])


def run_openclaw_agent(input: Iterator[Any], args: StageArgs, ctx: RunContext) -> StageOutput:
    argv = agent_argv(args, agent_message(args, drain(input)))
    binary = (ctx.env.get("LOBSTER_OPENCLAW_BIN") or "").strip() or "openclaw"
    ctx.dispatching(NAME)
    own = OutputCap(MAX_OUTPUT_BYTES, NAME)
    configured = output_cap(ctx.env)  # a smaller LOBSTER_MAX_OUTPUT_BYTES wins, as in the reference
    try:
        code, out, err = run_to_end(ctx.cancel, [binary, *argv], ctx.env, ctx.cwd, min(own, configured, key=lambda c: c.limit))
    except (FileNotFoundError, PermissionError):
        raise CommandError(f"{NAME} could not find the OpenClaw CLI") from None
    except OutputTooLarge as exc:
        if exc.cap is not own:
            raise
        raise CommandError(f"{NAME} output exceeded {MAX_OUTPUT_BYTES} bytes") from None
    if code != 0:
        raise CommandError(f"{NAME} failed: {(err or out or f'exited with code {code}').strip()}")
    try:
        response = json.loads(out)
    except ValueError:
        response = None
    if not isinstance(response, dict):  # the CLI's --json answer is one object
        raise CommandError(f"{NAME} expected JSON output from `openclaw agent --json`")
    return StageOutput([response])
