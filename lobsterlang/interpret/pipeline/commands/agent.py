"""`openclaw.agent`: one OpenClaw agent turn through the `openclaw agent --json` CLI (`LOBSTER_OPENCLAW_BIN`)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from lobsterlang.interpret.errors import CommandError
from lobsterlang.interpret.outputcap import OutputCap, output_cap
from lobsterlang.interpret.pipeline.args import StageArgs
from lobsterlang.interpret.pipeline.runtime import RunContext, StageOutput
from lobsterlang.interpret.pipeline.streams import drain
from lobsterlang.interpret.process import OutputTooLarge, run_to_end
from lobsterlang.interpret.values import stringify

NAME = "openclaw.agent"
MAX_OUTPUT_BYTES = 10 * 1024 * 1024
_INTEGER = re.compile(r"[0-9]+")
_OPTIONS = (("agent", ("agent",)), ("model", ("model",)), ("session-key", ("session-key", "sessionKey")),
            ("session-id", ("session-id", "sessionId")), ("thinking", ("thinking",)))


def agent_message(args: StageArgs, items: list[Any]) -> str:
    """The prompt (`--prompt`, `--message` or the positional text) plus the input items as JSONL."""
    prompt = args.text("prompt") or args.text("message") or " ".join(args.positionals)
    if not prompt:
        raise CommandError(f"{NAME} requires --prompt, --message, or positional text")
    if not items:
        return prompt
    return prompt + "\n\nPipeline input (JSONL):\n" + "\n".join(stringify(item) for item in items)


def agent_argv(args: StageArgs, message: str) -> list[str]:
    """`agent --json --message M` and the optional flags, in the reference's order."""
    argv = ["agent", "--json", "--message", message]
    for flag, names in _OPTIONS:
        value = args.text(*names)
        if value:
            argv += [f"--{flag}", value]
    if not any(args.text(*names) for flag, names in _OPTIONS if flag in ("agent", "session-key", "session-id")):
        raise CommandError(f"{NAME} requires --agent, --session-key, or --session-id")
    timeout = args.get("timeout")
    if timeout is not None:
        if not isinstance(timeout, str) or not _INTEGER.fullmatch(timeout.strip()):
            raise CommandError(f"{NAME} --timeout must be a non-negative integer in seconds")
        argv += ["--timeout", timeout.strip()]
    return argv + (["--local"] if args.truthy("local") else [])


def run_openclaw_agent(input: Iterator[Any], args: StageArgs, ctx: RunContext) -> StageOutput:
    argv = agent_argv(args, agent_message(args, drain(input)))
    binary = ctx.env.get("LOBSTER_OPENCLAW_BIN") or "openclaw"
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
        raise CommandError(f"{NAME} failed: {(err.strip() or out.strip())[:400]}")
    try:
        return StageOutput([json.loads(out)])
    except ValueError:
        raise CommandError(f"{NAME} expected JSON output from `openclaw agent --json`") from None
