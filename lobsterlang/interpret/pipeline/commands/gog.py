"""`gog.gmail.search` and `gog.gmail.send`: Gmail through the gog CLI (`GOG_BIN`, default `gog`)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from lobsterlang.interpret.errors import CommandError
from lobsterlang.interpret.outputcap import output_cap
from lobsterlang.interpret.pipeline.args import StageArgs
from lobsterlang.interpret.pipeline.runtime import RunContext, StageOutput
from lobsterlang.interpret.pipeline.streams import drain
from lobsterlang.interpret.process import run_to_end
from lobsterlang.interpret.values import UNDEFINED, js_string, to_number

NOT_FOUND = "gog not found on PATH (install: https://github.com/steipete/gogcli)"
_SCRIPT = re.compile(r"\.(mjs|cjs|js|ts)$", re.IGNORECASE)


def gog(args: list[str], ctx: RunContext, label: str) -> str:
    """Run `gog ARGS` (a JavaScript `GOG_BIN` runs under node); its stdout, or `<label> failed (<code>): …`."""
    binary = ctx.env.get("GOG_BIN") or "gog"
    argv = ["node", binary, *args] if _SCRIPT.search(binary) else [binary, *args]
    try:
        code, out, err = run_to_end(ctx.cancel, argv, ctx.env, ctx.cwd, output_cap(ctx.env))
    except (FileNotFoundError, PermissionError):
        raise CommandError(NOT_FOUND) from None
    if code != 0:
        raise CommandError(f"{label} failed ({code if code >= 0 else '?'}): {err[:400]}")
    return out


def run_gmail_search(input: Iterator[Any], args: StageArgs, ctx: RunContext) -> StageOutput:
    drain(input)
    query = args.get("query")
    given = args.get("max", "limit")
    limit = js_string(to_number(20 if given is None else given))
    out = gog(["gmail", "search", "newer_than:1d" if query is None else js_string(query), "--json", "--max", limit], ctx, "gog.gmail.search")
    try:
        parsed = json.loads(out)
    except ValueError:
        raise CommandError("gog.gmail.search expected JSON output") from None
    return StageOutput(threads(parsed))


def threads(parsed: Any) -> list[Any]:
    """`[{threads:[…]}]`, `{threads:[…]}` or a plain array, flattened into items."""
    if isinstance(parsed, list):
        return [t for x in parsed for t in (x["threads"] if isinstance(x, dict) and isinstance(x.get("threads"), list) else [x])]
    if isinstance(parsed, dict) and isinstance(parsed.get("threads"), list):
        return list(parsed["threads"])
    return [parsed]


def draft(item: Any) -> dict[str, str]:
    if not isinstance(item, (dict, list)):
        raise CommandError("gog.gmail.send expects draft objects")
    fields = item if isinstance(item, dict) else {}
    values = {key: _text(fields.get(key)).strip() for key in ("to", "subject", "body")}
    if not values["to"]:
        raise CommandError("gog.gmail.send draft missing to")
    return values


def _text(value: Any) -> str:
    return "" if value is None or value is UNDEFINED else js_string(value)


def run_gmail_send(input: Iterator[Any], args: StageArgs, ctx: RunContext) -> StageOutput:
    """One `gog gmail send` per draft; every draft is read first, so an upstream error sends nothing."""
    dry_run = args.truthy("dryRun", "dry-run")
    results = []
    for item in drain(input):
        message = draft(item)
        if dry_run:
            results.append({"ok": True, "dryRun": True, **message})
            continue
        argv = ["gmail", "send", "--to", message["to"]]
        argv += ["--subject", message["subject"]] if message["subject"] else []
        argv += ["--body", message["body"]] if message["body"] else []
        ctx.dispatching("gog.gmail.send")
        results.append(_send_result(gog([*argv, "--json"], ctx, "gog.gmail.send")))
    return StageOutput(results)


def _send_result(out: str) -> Any:
    if not out:
        return {"ok": True}
    try:
        return json.loads(out)
    except ValueError:
        return {"ok": True, "raw": out}
