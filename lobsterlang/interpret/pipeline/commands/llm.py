"""`llm.invoke` and `llm_task.invoke`: an LLM adapter call with typed payloads, run-state replay and a file cache."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator, Mapping
from typing import Any

from lobsterlang.interpret.errors import CommandError
from lobsterlang.interpret.pipeline.args import FlagValue, StageArgs
from lobsterlang.interpret.pipeline.commands.llm_http import Adapter, resolve_adapter, resolve_provider
from lobsterlang.interpret.pipeline.runtime import RunContext, StageOutput
from lobsterlang.interpret.pipeline.streams import drain
from lobsterlang.interpret.schema_check import SchemaInvalid, first_problem
from lobsterlang.interpret.state import now_iso
from lobsterlang.interpret.statefiles import CorruptState
from lobsterlang.interpret.values import js_string, stringify, to_number, truthy
from lobsterlang.record import Record

STATE_VERSION = 1
DEFAULT_RETRIES = 1
CACHE_KEY_VERSION = 2
"""The reference's identity version of the cache key (2: sampling settings are part of the key)."""
LIVE_SOURCES = ("remote", "openclaw", "clawd", "pi", "http")


class LlmConfig(Record):
    """What differs between `llm.invoke` and its alias `llm_task.invoke`."""

    name: str
    default_provider: str | None
    source: str | None


LLM_INVOKE = LlmConfig("llm.invoke", None, None)
LLM_TASK_INVOKE = LlmConfig("llm_task.invoke", "openclaw", "clawd")


def run_llm_invoke(input: Iterator[Any], args: StageArgs, ctx: RunContext) -> StageOutput:
    return StageOutput(invoke_llm(LLM_INVOKE, input, args, ctx))


def run_llm_task_invoke(input: Iterator[Any], args: StageArgs, ctx: RunContext) -> StageOutput:
    return StageOutput(invoke_llm(LLM_TASK_INVOKE, input, args, ctx))


def _env_text(raw: FlagValue | None, keys: tuple[str, ...], env: Mapping[str, str], fallback: str) -> str:
    if raw is not None and js_string(raw).strip():
        return js_string(raw).strip()
    return next((env[k].strip() for k in keys if env.get(k, "").strip()), fallback)


def _flag(value: FlagValue | str | None) -> bool:
    if value is None:
        return False
    if isinstance(value, str) and value.strip().lower() in ("false", "0", "no"):
        return False
    return value is True or value != ""


def _json_arg(raw: FlagValue | None, label: str, kind: type) -> Any:
    if not raw:
        return None
    try:
        value = json.loads(js_string(raw))
    except ValueError:
        value = None
    if not isinstance(value, kind):
        raise CommandError(f"{label} must be a JSON {'array' if kind is list else 'object'}")
    return value


def _number(raw: FlagValue | None) -> float | None:
    number = None if raw is None else to_number(raw)
    return number if number is not None and number == number and abs(number) != float("inf") else None


def artifact(raw: Any) -> Any:
    """Objects as they are, strings and scalars as text artifacts, anything else as JSON data."""
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, str):
        return {"kind": "text", "text": raw}
    if isinstance(raw, (bool, int, float)):
        return {"kind": "text", "text": js_string(raw)}
    return {"kind": "json", "data": raw}


def sha256_of(value: Any) -> str:
    return hashlib.sha256(stringify(value, sort_keys=True).encode("utf-8")).hexdigest()


class _Request:
    """Everything the flags, environment and input say about one call."""

    def __init__(self, config: LlmConfig, input: Iterator[Any], args: StageArgs, ctx: RunContext) -> None:
        env, name = ctx.env, config.name
        self.provider = resolve_provider(args, env, config.default_provider)
        self.adapter: Adapter = resolve_adapter(self.provider, env, args, name, config.source)
        self.prompt = js_string(args.get("prompt")) if args.get("prompt") else " ".join(args.positionals)
        if not self.prompt:
            raise CommandError(f"{name} requires --prompt or positional text")
        self.model = _env_text(args.get("model"), ("LOBSTER_LLM_MODEL", "LLM_TASK_MODEL"), env, "")
        self.schema_version = _env_text(args.get("schema-version"), ("LOBSTER_LLM_SCHEMA_VERSION", "LLM_TASK_SCHEMA_VERSION"), env, "v1")
        provided = _json_arg(args.get("artifacts-json"), f"{name} --artifacts-json", list) or []
        self.metadata = _json_arg(args.get("metadata-json"), f"{name} --metadata-json", dict)
        self.output_schema = _json_arg(args.get("output-schema"), f"{name} --output-schema", dict)
        self.retries = self._retries(args, env)
        self.disable_cache = _flag(args.get("disable-cache"))
        refresh = args.get("refresh")
        self.refresh = _flag(refresh if refresh is not None else _env_text(None, ("LOBSTER_LLM_FORCE_REFRESH", "LLM_TASK_FORCE_REFRESH"), env, "") or None)
        self.state_key = js_string(args.get("state-key") or env.get("LOBSTER_RUN_STATE_KEY") or "").strip() or None
        self.temperature, self.max_output_tokens = _number(args.get("temperature")), _number(args.get("max-output-tokens"))
        self.artifacts = [artifact(item) for item in [*drain(input), *provided]]
        self.hashes = [sha256_of(a) for a in self.artifacts]
        self.cache_key = self._cache_key()
        self.payload = self._payload()

    def _cache_key(self) -> str:
        """What makes two calls the same call: a sampled answer is never replayed for other sampling settings."""
        return sha256_of({
            "cacheKeyVersion": CACHE_KEY_VERSION, "provider": self.provider, "prompt": self.prompt,
            "model": self.model or f"{self.provider}-default", "schemaVersion": self.schema_version,
            "artifactHashes": self.hashes, "outputSchema": self.output_schema,
            "temperature": self.temperature, "maxOutputTokens": self.max_output_tokens,
        })

    def _retries(self, args: StageArgs, env: Mapping[str, str]) -> int:
        if self.output_schema is None:
            return 0
        raw = args.get("max-validation-retries")
        raw = raw if raw is not None else _env_text(None, ("LOBSTER_LLM_VALIDATION_RETRIES", "LLM_TASK_VALIDATION_RETRIES"), env, "") or None
        number = _number(raw) if raw is not None else None
        return int(max(0, number if number is not None else DEFAULT_RETRIES))

    def _payload(self) -> dict[str, Any]:
        payload: dict[str, Any] = {"prompt": self.prompt}
        if self.model:
            payload["model"] = self.model
        payload.update(artifacts=self.artifacts, artifactHashes=self.hashes)
        for key, value in (("metadata", self.metadata), ("outputSchema", self.output_schema), ("schemaVersion", self.schema_version)):
            if value:
                payload[key] = value
        for key, number in (("maxOutputTokens", self.max_output_tokens), ("temperature", self.temperature)):
            if number is not None:
                payload[key] = number
        return payload


def invoke_llm(config: LlmConfig, input: Iterator[Any], args: StageArgs, ctx: RunContext) -> list[Any]:
    """Replay from run state or the cache when possible; else call the adapter, validating and retrying."""
    request = _Request(config, input, args, ctx)
    ctx.cancel.check()  # draining the input waited on earlier stages: a cancelled run does not replay an answer
    replay = None if request.refresh else _replay(request, config, ctx)
    if replay is not None:
        if ctx.spend is not None:
            ctx.spend.mark(replay, request.cache_key, replayed=True)
        return replay
    items = _call_until_valid(request, config, ctx)
    _persist(request, config, ctx, items)
    return items


def _replay(request: _Request, config: LlmConfig, ctx: RunContext) -> list[Any] | None:
    if request.state_key:
        try:
            stored = ctx.store.read(request.state_key)
        except CorruptState:
            stored = None
        if isinstance(stored, dict) and stored.get("type") == config.name and stored.get("cacheKey") == request.cache_key \
                and isinstance(stored.get("items"), list):
            return [{**item, "source": "run_state", "cached": True, "replayed": True} for item in stored["items"]]
    if request.disable_cache:
        return None
    cached = _read_cache(_cache_file(ctx, config.name, request.cache_key))
    if isinstance(cached, dict) and cached.get("cacheKey") == request.cache_key and isinstance(cached.get("items"), list):
        return [{**item, "source": "cache", "cached": True, "replayed": True} for item in cached["items"]]
    return None


def _call_until_valid(request: _Request, config: LlmConfig, ctx: RunContext) -> list[Any]:
    """Call the adapter until the answer fits the output schema; every answer is paid for, kept or not."""
    attempt, errors = 0, list[str]()
    while True:
        ctx.cancel.check()
        attempt += 1
        payload = dict(request.payload)
        if attempt > 1:
            payload["retryContext"] = {"attempt": attempt, **({"validationErrors": errors} if errors else {})}
        items = [_result_item(request, config, request.adapter.call(payload, config.name, ctx.cancel), attempt)]
        if ctx.spend is not None:
            ctx.spend.mark(items, request.cache_key, replayed=False)
            ctx.spend.paid(request.cache_key, items[0]["model"] if isinstance(items[0]["model"], str) else None, items[0]["usage"])
        if request.output_schema is None:
            return items
        problem = _schema_problem(request.output_schema, items[0]["output"]["data"])
        if problem is None:
            return items
        errors = [problem]
        if attempt > request.retries:
            raise CommandError(f"{config.name} output failed schema validation: {problem}")


def _schema_problem(schema: Any, value: Any) -> str | None:
    try:
        found = first_problem(schema, value)
    except SchemaInvalid as exc:
        return str(exc)
    return None if found is None else f"{found[0] or '/'} {found[1]}".strip()


def _result_item(request: _Request, config: LlmConfig, envelope: dict[str, Any], attempt: int) -> dict[str, Any]:
    result = envelope.get("result") or {}
    output = result.get("output") or {}
    source = request.adapter.source
    return {
        "kind": config.name, "runId": result.get("runId"), "prompt": result.get("prompt"), "model": result.get("model"),
        "schemaVersion": request.schema_version, "status": js_string("completed" if result.get("status") is None else result["status"]),
        "cacheKey": request.cache_key, "artifactHashes": request.hashes,
        "output": {"format": output["format"] if output.get("format") is not None else ("json" if truthy(output.get("data")) else "text"),
                   "text": output.get("text"),
                   "data": output.get("data")},
        "usage": result.get("usage"), "metadata": result.get("metadata"), "warnings": result.get("warnings"),
        "diagnostics": result.get("diagnostics"), "createdAt": now_iso(), "source": source,
        "cached": source not in LIVE_SOURCES, "attemptCount": attempt,
    }


def _persist(request: _Request, config: LlmConfig, ctx: RunContext, items: list[Any]) -> None:
    if request.state_key:
        record = {"type": config.name, "version": STATE_VERSION, "cacheKey": request.cache_key, "items": items, "storedAt": now_iso()}
        ctx.store.write(request.state_key, record)
    if not request.disable_cache:
        path = _cache_file(ctx, config.name, request.cache_key)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(stringify({"items": items, "cacheKey": request.cache_key, "storedAt": now_iso()}, 2))


def _cache_file(ctx: RunContext, namespace: str, key: str) -> str:
    root = ctx.env.get("LOBSTER_CACHE_DIR") or os.path.join(ctx.cwd, ".lobster-cache")
    return os.path.join(root, namespace, f"{key}.json")


def _read_cache(path: str) -> Any:
    """The parsed entry; None (a miss, so the adapter is asked again) when it is absent or not JSON."""
    try:
        with open(path, encoding="utf-8") as handle:
            return json.loads(handle.read())
    except (FileNotFoundError, NotADirectoryError, ValueError):
        return None
