"""LLM adapters for `llm.invoke`: provider resolution and the HTTP calls (OpenClaw `llm-task`, pi, generic http)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from lobsterlang.interpret.errors import CommandError
from lobsterlang.interpret.pipeline.args import StageArgs
from lobsterlang.interpret.pipeline.commands.http_post import HttpFailure, ResponseCap, post, response_cap
from lobsterlang.interpret.process import Cancellation
from lobsterlang.interpret.schema_check import first_problem
from lobsterlang.interpret.values import js_string, stringify

PROVIDERS = ("openclaw", "pi", "http")
TIMEOUT_S = 300
RESPONSE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "ok": {"type": "boolean"},
        "result": {
            "type": "object",
            "properties": {
                "runId": {"type": "string"}, "model": {"type": "string"}, "prompt": {"type": "string"}, "status": {"type": "string"},
                "output": {"type": "object", "properties": {"text": {"type": "string"}, "format": {"type": "string"}}},
                "usage": {"type": "object"}, "warnings": {"type": "array", "items": {"type": "string"}},
                "metadata": {"type": "object"}, "diagnostics": {"type": "object"},
            },
            "required": ["output"],
        },
        "error": {"type": "object"},
    },
    "required": ["ok"],
}


class Adapter:
    """Where and how to POST: `wrap` sends the OpenClaw `/tools/invoke` body around the payload; `cap` bounds the reply."""

    def __init__(self, endpoint: str, token: str, wrap: bool, source: str, cap: ResponseCap) -> None:
        self.endpoint, self.token, self.wrap, self.source, self.cap = endpoint, token, wrap, source, cap

    def call(self, payload: dict[str, Any], name: str, cancel: Cancellation) -> dict[str, Any]:
        """The checked response envelope (`ok: true`), or the reference's error messages; `cancel` ends the wait."""
        try:
            envelope = self._post(payload, cancel)
        except _AdapterFailure as exc:
            raise CommandError(f"{name} request failed: {exc}") from None
        if first_problem(RESPONSE_SCHEMA, envelope) is not None:
            raise CommandError(f"{name} received invalid response envelope")
        if envelope["ok"] is not True:
            error = envelope.get("error") or {}
            message = error.get("message") if error.get("message") is not None else "llm adapter returned an error"
            raise CommandError(f"{name} remote error: {js_string(message)}")
        checked: dict[str, Any] = envelope
        return checked

    def _post(self, payload: dict[str, Any], cancel: Cancellation) -> Any:
        body = {"tool": "llm-task", "action": "invoke", "args": payload} if self.wrap else payload
        headers = {"content-type": "application/json", **({"authorization": f"Bearer {self.token}"} if self.token else {})}
        try:
            reply = post(self.endpoint, stringify(body).encode("utf-8"), headers, timeout_s=TIMEOUT_S, cap=self.cap, cancel=cancel)
        except HttpFailure as exc:
            raise _AdapterFailure(str(exc)) from None
        if not reply.ok:
            raise _AdapterFailure(f"{reply.status} {reply.reason}: {reply.text[:400]}")
        return self._unwrap(_parse(reply.text))

    def _unwrap(self, parsed: Any) -> Any:
        if not (isinstance(parsed, dict) and "ok" in parsed):
            return {"ok": True, "result": parsed}
        if not self.wrap:
            return parsed
        if parsed["ok"] is not True:
            error = parsed.get("error")
            message = error.get("message") if isinstance(error, dict) and error.get("message") is not None else "Unknown error"
            raise _AdapterFailure(f"openclaw adapter error: {js_string(message)}")
        inner = parsed.get("result")
        return inner if isinstance(inner, dict) and "ok" in inner else {"ok": True, "result": inner}


class _AdapterFailure(Exception):
    """The HTTP call itself failed."""


def _parse(text: str) -> Any:
    try:
        return json.loads(text) if text else None
    except ValueError:
        raise _AdapterFailure("Response was not JSON") from None


def resolve_provider(args: StageArgs, env: Mapping[str, str], default: str | None) -> str:
    """`--provider`, LOBSTER_LLM_PROVIDER, the command's default, then whichever adapter URL is set."""
    given = args.get("provider")
    explicit = js_string(given if given is not None else env.get("LOBSTER_LLM_PROVIDER", "")).strip().lower()
    if explicit:
        if explicit not in PROVIDERS:
            raise CommandError(f"Unsupported llm provider: {explicit}")
        return explicit
    if default:
        return default
    for provider, keys in (("pi", ("LOBSTER_PI_LLM_ADAPTER_URL",)), ("openclaw", ("OPENCLAW_URL", "CLAWD_URL")), ("http", ("LOBSTER_LLM_ADAPTER_URL",))):
        if _first(env, keys):
            return provider
    raise CommandError("llm.invoke could not resolve a provider. Set --provider or LOBSTER_LLM_PROVIDER")


def _first(env: Mapping[str, str], keys: tuple[str, ...]) -> str:
    value = next((env[k] for k in keys if env.get(k) is not None), "")
    return value.strip()


def resolve_adapter(provider: str, env: Mapping[str, str], args: StageArgs, name: str, source: str | None) -> Adapter:
    """The endpoint, token and reply cap for a provider; a missing URL is `<name> requires <VAR> for provider=<p>`."""
    cap = response_cap(env)
    token_flag = args.get("token")
    if provider == "openclaw":
        url = _first(env, ("OPENCLAW_URL", "CLAWD_URL"))
        if not url:
            raise CommandError(f"{name} requires OPENCLAW_URL (or CLAWD_URL) for provider=openclaw")
        token = js_string(token_flag) if token_flag is not None else _first(env, ("OPENCLAW_TOKEN", "CLAWD_TOKEN"))
        return Adapter(_with_path(url, "/tools/invoke", always=True), token.strip(), True, source or "openclaw", cap)
    variable = "LOBSTER_PI_LLM_ADAPTER_URL" if provider == "pi" else "LOBSTER_LLM_ADAPTER_URL"
    url = _first(env, (variable,))
    if not url:
        raise CommandError(f"{name} requires {variable} for provider={provider}")
    token = js_string(token_flag) if token_flag is not None else _first(env, (variable.replace("_URL", "_TOKEN"),))
    return Adapter(_with_path(url, "/invoke", always=False), token.strip(), False, source or provider, cap)


def _with_path(url: str, path: str, *, always: bool) -> str:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise CommandError(f"Invalid URL: {url}")
    if always:
        return urlunsplit((parts.scheme, parts.netloc, path, "", ""))
    return urlunsplit((parts.scheme, parts.netloc, parts.path if parts.path not in ("", "/") else path, parts.query, ""))
