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
from lobsterlang.interpret.values import js_string, stringify, to_json_data

LOCAL_HOSTS = ("localhost", "127.0.0.1", "::1", "[::1]")
TIMEOUT_S = 120


class _Call:
    """One configured invocation: endpoint, credentials and the fixed parts of the body around `args`."""

    def __init__(self, name: str, args: StageArgs, ctx: RunContext, each: bool) -> None:
        """Checks in the reference's order: URL given, tool and action, `--args-json`, `--each`'s object, URL scheme, token."""
        self.name, self.cancel = name, ctx.cancel
        raw_url = self._raw_url(args, ctx)
        tool, action = args.get("tool"), args.get("action")
        if not tool or not action:
            raise CommandError(f"{name} requires --tool and --action")
        self.target = {"tool": js_string(tool), "action": js_string(action)}
        self.args = self._args_json(args)
        if each and not isinstance(self.args, dict):
            raise CommandError(f"{name} --each requires --args-json to be an object")
        self.url = self._url(raw_url)
        self.token = self._token(args, ctx)
        self.extra: dict[str, Any] = {}
        """What follows `args` in the body, in the reference's order."""
        session = args.get("sessionKey", "session-key")
        if session:
            self.extra["sessionKey"] = js_string(session)
        dry_run = args.get("dryRun", "dry-run")
        if dry_run is not None:  # given at all: `--dry-run ""` asks for a real run, as in the reference
            self.extra["dryRun"] = bool(dry_run)
        self.cap = response_cap(ctx.env)

    def _raw_url(self, args: StageArgs, ctx: RunContext) -> str:
        """`--url`, else OPENCLAW_URL, else CLAWD_URL (the first one set, even when empty), trimmed."""
        given = args.get("url")
        for value in (given, ctx.env.get("OPENCLAW_URL"), ctx.env.get("CLAWD_URL")):
            if value is not None:
                raw = js_string(value).strip()
                break
        else:
            raw = ""
        if not raw:
            raise CommandError(f"{self.name} requires --url or OPENCLAW_URL")
        return raw

    def _url(self, raw: str) -> str:
        parts = urlsplit(raw)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise CommandError(f"{self.name} requires an http(s) --url")
        return urlunsplit((parts.scheme, parts.netloc, "/tools/invoke", "", ""))

    def _token(self, args: StageArgs, ctx: RunContext) -> str | None:
        explicit = args.get("token")
        if explicit is not None:  # `--token ""` sends none, and does not fall back to the environment
            return js_string(explicit).strip() or None
        variable = "OPENCLAW_TOKEN" if "OPENCLAW_TOKEN" in ctx.env else "CLAWD_TOKEN"  # a set but empty one counts
        from_env = ctx.env.get(variable, "").strip()
        if from_env and (urlsplit(self.url).hostname or "") not in LOCAL_HOSTS:
            raise CommandError(
                f"{self.name} refuses to send OPENCLAW_TOKEN/CLAWD_TOKEN to non-local --url; pass --token explicitly for remote endpoints"
            )
        return from_env or None

    def _args_json(self, args: StageArgs) -> Any:
        raw = args.get("args-json")
        if not raw:
            return {}
        try:
            return json.loads(js_string(raw))
        except ValueError:
            raise CommandError(f"{self.name} --args-json must be valid JSON") from None

    def send(self, tool_args: Any, ctx: RunContext) -> list[Any]:
        body = stringify({**self.target, "args": to_json_data(tool_args), **self.extra}).encode("utf-8")
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
            return json.loads(reply.text) if reply.text else None  # an empty reply is the result null
        except ValueError:
            raise CommandError(f"{self.name} expected JSON response") from None

    def _result(self, data: Any) -> list[Any]:
        """`{ok: true, result}` gives the result's items; any other `ok` is a tool error; other JSON is the result."""
        if isinstance(data, dict) and "ok" in data:
            if data["ok"] is not True:
                error = data.get("error")
                message = error.get("message") if isinstance(error, dict) else None
                raise CommandError(f"{self.name} tool error: {'Unknown error' if message is None else js_string(message)}")
            result = data.get("result")
            return result if isinstance(result, list) else [result]
        return data if isinstance(data, list) else [data]


def invoke(name: str, input: Iterator[Any], args: StageArgs, ctx: RunContext) -> StageOutput:
    """One call with the drained input ignored, or with `--each` one call per item."""
    each = args.truthy("each")
    call = _Call(name, args, ctx, each)
    items = drain(input)
    if not each:
        return StageOutput(call.send(call.args, ctx))
    key = args.get("itemKey", "item-key")
    item_key = "item" if key is None else js_string(key)
    return StageOutput([out for item in items for out in call.send({**call.args, item_key: item}, ctx)])


def run_openclaw_invoke(input: Iterator[Any], args: StageArgs, ctx: RunContext) -> StageOutput:
    return invoke("openclaw.invoke", input, args, ctx)


def run_clawd_invoke(input: Iterator[Any], args: StageArgs, ctx: RunContext) -> StageOutput:
    return invoke("clawd.invoke", input, args, ctx)

