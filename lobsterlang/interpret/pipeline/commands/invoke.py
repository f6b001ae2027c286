"""`openclaw.invoke` / `clawd.invoke`: POST a tool call to the OpenClaw gateway's `/tools/invoke`."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from lobsterlang.interpret.errors import CommandError
from lobsterlang.interpret.pipeline.args import StageArgs
from lobsterlang.interpret.pipeline.commands.http_post import HttpFailure, ResponseTooLarge, post, response_cap
from lobsterlang.interpret.pipeline.runtime import RunContext, StageOutput
from lobsterlang.interpret.pipeline.streams import drain
from lobsterlang.interpret.values import stringify, to_json_data

LOCAL_HOSTS = ("localhost", "127.0.0.1", "::1", "[::1]")
TIMEOUT_S = 120


class _Call:
    """One configured invocation: endpoint, credentials and the fixed part of the body."""

    def __init__(self, name: str, args: StageArgs, ctx: RunContext) -> None:
        self.name, self.cancel = name, ctx.cancel
        self.url = self._url(args, ctx)
        self.token = self._token(args, ctx)
        tool, action = args.text("tool"), args.text("action")
        if not tool or not action:
            raise CommandError(f"{name} requires --tool and --action")
        self.body: dict[str, Any] = {"tool": tool, "action": action}
        self.args = self._args_json(args)
        session = args.text("session-key", "sessionKey")
        if session:
            self.body["sessionKey"] = session
        if args.truthy("dry-run", "dryRun"):
            self.body["dryRun"] = True
        self.cap = response_cap(ctx.env)

    def _url(self, args: StageArgs, ctx: RunContext) -> str:
        raw = args.text("url") or ctx.env.get("OPENCLAW_URL") or ctx.env.get("CLAWD_URL")
        if not raw:
            raise CommandError(f"{self.name} requires --url or OPENCLAW_URL")
        parts = urlsplit(raw)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise CommandError(f"{self.name} requires an http(s) --url")
        return urlunsplit((parts.scheme, parts.netloc, "/tools/invoke", "", ""))

    def _token(self, args: StageArgs, ctx: RunContext) -> str | None:
        explicit = args.text("token")
        if explicit:
            return explicit
        from_env = ctx.env.get("OPENCLAW_TOKEN") or ctx.env.get("CLAWD_TOKEN")
        if from_env and (urlsplit(self.url).hostname or "") not in LOCAL_HOSTS:
            raise CommandError(
                f"{self.name} refuses to send OPENCLAW_TOKEN/CLAWD_TOKEN to non-local --url; pass --token explicitly for remote endpoints"
            )
        return from_env or None

    def _args_json(self, args: StageArgs) -> Any:
        raw = args.text("args-json")
        if raw is None:
            return {}
        try:
            return json.loads(raw)
        except ValueError:
            raise CommandError(f"{self.name} --args-json must be valid JSON") from None

    def send(self, tool_args: Any, ctx: RunContext) -> list[Any]:
        body = stringify({**self.body, "args": to_json_data(tool_args)}).encode("utf-8")
        headers = {"content-type": "application/json"}
        if self.token:
            headers["authorization"] = f"Bearer {self.token}"
        ctx.dispatching(self.name)
        return self._result(self._post(body, headers))

    def _post(self, body: bytes, headers: dict[str, str]) -> Any:
        try:
            reply = post(self.url, body, headers, timeout_s=TIMEOUT_S, cap=self.cap, cancel=self.cancel)
        except ResponseTooLarge as exc:  # the reference's words, without the command's name
            raise CommandError(str(exc)) from None
        except HttpFailure as exc:
            raise CommandError(f"{self.name} failed: {exc}") from None
        if not reply.ok:
            raise CommandError(f"{self.name} failed ({reply.status}): {reply.text[:400]}")
        try:
            return json.loads(reply.text) if reply.text else None
        except ValueError:
            raise CommandError(f"{self.name} expected JSON response") from None

    def _result(self, data: Any) -> list[Any]:
        if isinstance(data, dict) and data.get("ok") is True:
            result = data.get("result")
            return result if isinstance(result, list) else [result]
        if isinstance(data, dict) and data.get("ok") is False:
            error = data.get("error")
            message = error.get("message") if isinstance(error, dict) else error
            raise CommandError(f"{self.name} tool error: {message if message is not None else 'unknown error'}")
        return data if isinstance(data, list) else [data]


def invoke(name: str, input: Iterator[Any], args: StageArgs, ctx: RunContext) -> StageOutput:
    """One call with the drained input ignored, or with `--each` one call per item."""
    call = _Call(name, args, ctx)
    items = drain(input)
    if not args.truthy("each"):
        return StageOutput(call.send(call.args, ctx))
    if not isinstance(call.args, dict):
        raise CommandError(f"{name} --each requires --args-json to be an object")
    item_key = args.text("item-key", "itemKey") or "item"
    return StageOutput([out for item in items for out in call.send({**call.args, item_key: item}, ctx)])


def run_openclaw_invoke(input: Iterator[Any], args: StageArgs, ctx: RunContext) -> StageOutput:
    return invoke("openclaw.invoke", input, args, ctx)


def run_clawd_invoke(input: Iterator[Any], args: StageArgs, ctx: RunContext) -> StageOutput:
    return invoke("clawd.invoke", input, args, ctx)

