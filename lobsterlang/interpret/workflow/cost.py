"""LLM spend: token usage reported in step output, billed once per paid call, priced per model, checked against `cost_limit`."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Any, TextIO

from lobsterlang import ir
from lobsterlang.interpret.llmspend import SpendLedger, billable
from lobsterlang.interpret.values import is_number, stringify, to_number
from lobsterlang.interpret.workflow.errors import Unrecoverable
from lobsterlang.interpret.workflow.refs import Record

PRICES: dict[str, tuple[float, float]] = {
    "gpt-4o": (2.5, 10),
    "gpt-4o-mini": (0.15, 0.6),
    "gpt-4-turbo": (10, 30),
    "gpt-3.5-turbo": (0.5, 1.5),
    "claude-opus-4-20250514": (15, 75),
    "claude-sonnet-4-5-20250514": (3, 15),
    "claude-haiku-3-5": (0.8, 4),
    "gemini-1.5-pro": (1.25, 5),
    "gemini-1.5-flash": (0.075, 0.3),
}
"""USD per million input and output tokens."""

INVALID_PRICING = (
    "[WARN] Ignoring invalid LOBSTER_LLM_PRICING_JSON; custom LLM pricing must be a JSON object whose model entries "
    "have finite non-negative input and output rates.\n"
)
UNPRICED = (
    "[WARN] No LLM pricing configured for model {model}; recording zero cost. "
    "Set LOBSTER_LLM_PRICING_JSON to enable cost_limit enforcement for this model.\n"
)
_UNSAFE_IN_JSON = re.compile("[\u007f-\u009f\u2028\u2029]")


def pricing(env: Mapping[str, str], err: TextIO | None = None) -> dict[str, tuple[float, float]]:
    """The built-in prices with LOBSTER_LLM_PRICING_JSON (`{model: {input, output}}`) laid over them; a value that
    is not such a map is ignored as a whole, with a warning on `err`."""
    prices = dict(PRICES)
    raw = env.get("LOBSTER_LLM_PRICING_JSON") or ""
    if not raw:
        return prices
    try:
        extra = json.loads(raw)
    except ValueError:
        extra = None
    if not _is_pricing_map(extra):
        _warn(err, INVALID_PRICING)
        return prices
    prices.update((model, (float(rate["input"]), float(rate["output"]))) for model, rate in extra.items())
    return prices


def _is_pricing_map(value: Any) -> bool:
    if not isinstance(value, dict):
        return False
    return all(model.strip() and isinstance(rate, dict) and _is_rate(rate.get("input")) and _is_rate(rate.get("output"))
               for model, rate in value.items())


def _is_rate(value: Any) -> bool:
    return is_number(value) and math.isfinite(value) and value >= 0


def _warn(err: TextIO | None, text: str) -> None:
    if err is not None:
        err.write(text)
        err.flush()


def fixed(value: float, digits: int) -> str:
    """JavaScript `toFixed`: the exact value rounded half up."""
    return str(Decimal(value).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP))


@dataclass(frozen=True)
class Held:
    """Usage a step carried that waits until the step's live answers settled their own charges."""

    replay: bool
    step_id: str
    cache_key: str | None
    model: str | None
    usage: dict[str, Any]


class CostTracker:
    """The spend of one workflow run (restored from resume state after a gate), billed through its `ledger`."""

    def __init__(self, env: Mapping[str, str], entries: list[dict[str, Any]] | None = None, err: TextIO | None = None,
                 ledger: SpendLedger | None = None) -> None:
        self.err = err
        self.prices = pricing(env, err)
        self.entries: list[dict[str, Any]] = entries if entries is not None else []
        self.ledger = ledger if ledger is not None else SpendLedger()
        self.unpriced: set[str] = set()

    @property
    def total(self) -> float:
        return sum(float(e.get("costUsd", 0)) for e in self.entries)

    def recognise(self, results: Mapping[str, Record]) -> None:
        """After a pause: the answers in the restored step records whose calls this run already billed."""
        billed = [(e["cacheKey"], e.get("model"), (e.get("inputTokens"), e.get("outputTokens")))
                  for e in self.entries if isinstance(e.get("cacheKey"), str)]
        if billed:
            self.ledger.recognise(list(results.values()), billed)

    def record_usage(self, step_id: str, model: str | None, usage: Mapping[str, Any], cache_key: str | None = None) -> None:
        """One billed call (`cache_key`: the call it was, when known); a model without a price costs nothing, and is
        named on stderr once per run."""
        tokens_in, tokens_out = billable(usage)
        key = model if model is not None and model.strip() else None
        rate = self.prices.get(key) if key is not None else None
        if rate is None:
            self._unpriced(key)
        rate_in, rate_out = rate or (0.0, 0.0)
        cost = (tokens_in * rate_in + tokens_out * rate_out) / 1e6
        entry = {"stepId": step_id, "model": model, "inputTokens": tokens_in, "outputTokens": tokens_out, "costUsd": cost}
        self.entries.append(entry if cache_key is None else {**entry, "cacheKey": cache_key})

    def _unpriced(self, model: str | None) -> None:
        name = "<missing>" if model is None else model
        if name not in self.unpriced:
            self.unpriced.add(name)
            shown = _UNSAFE_IN_JSON.sub(lambda m: f"\\u{ord(m.group()):04x}", stringify(name))
            _warn(self.err, UNPRICED.format(model=shown))

    def record(self, step_id: str, record: Record | None) -> None:
        """Bill what one step (a branch, a loop sub-step) spent, then the calls it paid for that no item carried."""
        held: list[Held] = []
        self.track(step_id, record, held)
        self.settle_held(held)
        self.settle_unbilled()

    def track(self, step_id: str, record: Record | None, held: list[Held]) -> None:
        """Bill the live answers among the step's output items; replays and copies wait in `held`."""
        data = (record or {}).get("json")
        for item in data if isinstance(data, list) else [data]:
            if not isinstance(item, dict) or not isinstance(item.get("usage"), dict):
                continue
            usage, model = item["usage"], item.get("model") if isinstance(item.get("model"), str) else None
            mark = self.ledger.provenance(item)
            if mark is None:
                key = item.get("cacheKey") if isinstance(item.get("cacheKey"), str) and item.get("cacheKey") else None
                held.append(Held(False, step_id, key, model, usage))
            elif mark.replayed:
                held.append(Held(True, step_id, mark.cache_key, model, usage))
            else:
                settled = self.ledger.claim(mark.cache_key, model, usage)
                if settled is not None and settled.usage is not None:  # billed as the provider was asked
                    self.record_usage(step_id, settled.model, settled.usage, mark.cache_key)
                else:
                    self.record_usage(step_id, model, usage, mark.cache_key)
                mark.replayed = True

    def settle_held(self, held: list[Held]) -> None:
        """A replay is billed only for a call still unpaid for (a retried step's); a copy always is."""
        for replay in held:
            if not replay.replay or replay.cache_key is None:
                continue
            settled = self.ledger.claim(replay.cache_key)
            if settled is not None:
                usage = settled.usage if settled.usage is not None else replay.usage
                self.record_usage(replay.step_id, settled.model if settled.usage is not None else replay.model, usage,
                                  replay.cache_key)
        for copy in (h for h in held if not h.replay):
            settled = self.ledger.bill_copy(copy.cache_key, copy.model, copy.usage)
            self.record_usage(copy.step_id, copy.model, copy.usage, settled.cache_key if settled is not None else None)

    def settle_unbilled(self) -> None:
        """Bill the paid calls no item carried: a failed pipeline's, or one whose answer a later stage consumed."""
        for charge in self.ledger.outstanding():
            if charge.usage is not None and self.ledger.claim(charge.cache_key) is not None:
                self.record_usage(charge.step_id or "llm", charge.model, charge.usage, charge.cache_key)

    def check(self, limit: ir.CostLimit | None, err: TextIO) -> None:
        """`stop` fails the run once the spend exceeds `max_usd`; `warn` (the default) says so on stderr."""
        if limit is None or not self.entries:
            return
        ceiling = to_number(limit.max_usd)
        total = round(self.total, 6)
        if math.isnan(ceiling) or total <= ceiling:
            return
        if limit.action == "stop":
            raise CostLimitExceeded(f"Cost limit exceeded: ${fixed(total, 4)} > ${fixed(ceiling, 2)} limit")
        err.write(f"[WARN] Cost ${fixed(total, 4)} exceeds limit ${fixed(ceiling, 2)}\n")
        err.flush()


class CostLimitExceeded(Unrecoverable):
    """`cost_limit` with `action: stop` was passed: the run ends, whatever the step's `retry` and `on_error` say."""
