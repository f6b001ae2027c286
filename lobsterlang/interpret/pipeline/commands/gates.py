"""Gates: `approve` halts for a yes/no, `ask` halts for a structured answer (or asks on a terminal)."""

from __future__ import annotations

import json
import math
import re
import select
import sys
from collections.abc import Iterator
from typing import Any

from lobsterlang.interpret.errors import CommandError
from lobsterlang.interpret.pipeline.args import StageArgs
from lobsterlang.interpret.pipeline.runtime import RunContext, StageOutput
from lobsterlang.interpret.pipeline.streams import drain
from lobsterlang.interpret.schema_check import SchemaInvalid, first_problem
from lobsterlang.interpret.values import stringify, to_number
from lobsterlang.terminal import visible

DEFAULT_PREVIEW = 5
SUBJECT_LIMIT = 2000
_YES = re.compile(r"y(es)?", re.IGNORECASE)
DEFAULT_ASK_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "decision": {"type": "string", "enum": ["approve", "reject", "redraft"]},
        "feedback": {"type": "string", "description": "Feedback for redraft"},
    },
    "required": ["decision"],
}


def _gate_halts(args: StageArgs, ctx: RunContext) -> bool:
    return args.truthy("emit") or not ctx.can_prompt


def run_approve(input: Iterator[Any], args: StageArgs, ctx: RunContext) -> StageOutput:
    items = drain(input)
    prompt = args.get("prompt")
    prompt = "Approve?" if prompt is None else prompt
    if _gate_halts(args, ctx):
        request: dict[str, Any] = {"type": "approval_request", "prompt": prompt, "items": items}
        preview = approval_preview(items, args) if args.truthy("preview-from-stdin", "previewFromStdin") else ""
        if preview:
            request["preview"] = preview
        return StageOutput([request], halt=True)
    shown = preview_items(items, args)  # always on a terminal, as --preview-from-stdin shows them in the envelope
    answer = read_answer(terminal_preview(preview_text(shown), len(items) - len(shown)) + f"{prompt} [y/N] ", ctx)
    if not _YES.fullmatch(answer.strip()):
        raise CommandError("Not approved")
    return StageOutput(items)


def approval_preview(items: list[Any], args: StageArgs) -> str:
    """The first `--limit` items: lines when they are all strings, else pretty JSON."""
    return preview_text(preview_items(items, args))


def preview_items(items: list[Any], args: StageArgs) -> list[Any]:
    """The first `--limit` items (default 5)."""
    given = args.get("limit", "previewLimit", "preview-limit")
    limit = DEFAULT_PREVIEW if given is None else to_number(given)
    if math.isnan(limit):
        limit = DEFAULT_PREVIEW
    return items[: max(0, math.ceil(limit))] if not math.isinf(limit) else items


def preview_text(items: list[Any]) -> str:
    """Items as a preview shows them: lines when they are all strings, else pretty JSON ("" for none)."""
    if not items:
        return ""
    if all(isinstance(item, str) for item in items):
        return "\n".join(items)
    return stringify(items, 2)


def terminal_preview(text: str, hidden: int = 0) -> str:
    """What a person reads above `<prompt> [y/N]`: `text` (control characters shown, never obeyed) and how many
    items it leaves out; "" when there is nothing to show."""
    if not text:
        return ""
    more = f"\n… and {hidden} more item{'' if hidden == 1 else 's'}" if hidden > 0 else ""
    return visible(text, lines=True) + more + "\n"


def request_preview(request: dict[str, Any]) -> str:
    """A workflow gate's request above its question: its `preview` as the envelope carries it, else its first items."""
    preview = request.get("preview")
    if isinstance(preview, str) and preview:
        return terminal_preview(preview)
    items = request.get("items")
    items = items if isinstance(items, list) else []
    return terminal_preview(preview_text(items[:DEFAULT_PREVIEW]), len(items) - DEFAULT_PREVIEW)


def read_answer(question: str, ctx: RunContext) -> str:
    """Write `question` and read one line (honouring LOBSTER_APPROVAL_INPUT_TIMEOUT_MS)."""
    out, source = ctx.prompt_out or sys.stdout, ctx.prompt_in or sys.stdin
    out.write(question)
    out.flush()
    timeout = to_number(ctx.env.get("LOBSTER_APPROVAL_INPUT_TIMEOUT_MS", ""))
    if timeout > 0 and not math.isinf(timeout) and source is sys.stdin:
        ready, _, _ = select.select([source], [], [], timeout / 1000)
        if not ready:
            raise CommandError(f"Timed out waiting for input ({int(timeout)}ms)")
    return source.readline().rstrip("\r\n")


def ask_schema(args: StageArgs) -> Any:
    raw = args.get("schema")
    if raw is None:
        return DEFAULT_ASK_SCHEMA
    try:
        schema = json.loads(raw) if isinstance(raw, str) else raw
    except ValueError:
        raise CommandError("ask --schema must be valid JSON") from None
    if not isinstance(schema, dict):
        raise CommandError("ask --schema must decode to a JSON schema object")
    return schema


def ask_subject(items: list[Any]) -> dict[str, str]:
    text = "\n".join(item if isinstance(item, str) else stringify(item) for item in items)
    return {"text": text[:SUBJECT_LIMIT]}


def run_ask(input: Iterator[Any], args: StageArgs, ctx: RunContext) -> StageOutput:
    items = drain(input)
    prompt = args.get("prompt")
    prompt = "Input required" if prompt is None else prompt
    schema = ask_schema(args)
    if _gate_halts(args, ctx):
        request: dict[str, Any] = {"type": "input_request", "prompt": prompt, "responseSchema": schema}
        if args.truthy("subject-from-stdin", "subjectFromStdin"):
            request["subject"] = ask_subject(items)
        request["items"] = items
        return StageOutput([request], halt=True)
    return StageOutput([interactive_response(str(prompt), schema, ctx)])


def interactive_response(prompt: str, schema: Any, ctx: RunContext) -> Any:
    """Ask on the terminal; the first reading of the answer that matches the schema wins."""
    text = read_answer(f"{prompt}\n> ", ctx)
    candidates = _candidates(text)
    problems = [check_response(schema, candidate, "ask response") for candidate in candidates]
    for candidate, problem in zip(candidates, problems, strict=False):
        if problem is None:
            return candidate
    raise CommandError(problems[0])


def _candidates(text: str) -> list[Any]:
    try:
        parsed = json.loads(text)
    except ValueError:
        return [text, {"decision": text}]
    return [parsed, {"decision": parsed}] if isinstance(parsed, str) else [parsed]


def check_response(schema: Any, value: Any, label: str) -> str | None:
    """`<label> failed schema validation at <path>: <message>`, or None when valid."""
    try:
        problem = first_problem(schema, value)
    except SchemaInvalid:
        return f"{label} schema is invalid"
    if problem is None:
        return None
    return f"{label} failed schema validation at {problem[0] or '/'}: {problem[1]}"
