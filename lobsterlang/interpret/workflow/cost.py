"""LLM spend: token usage reported in step output, priced per model, checked against `cost_limit`."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from decimal import ROUND_HALF_UP, Decimal
from typing import Any, TextIO

from lobsterlang import ir
from lobsterlang.interpret.values import is_number, to_number
from lobsterlang.interpret.workflow.errors import WorkflowError
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

INPUT_KEYS = ("inputTokens", "input_tokens", "prompt_tokens")
OUTPUT_KEYS = ("outputTokens", "output_tokens", "completion_tokens")


def pricing(env: Mapping[str, str]) -> dict[str, tuple[float, float]]:
    """The built-in prices with LOBSTER_LLM_PRICING_JSON (`{model: {input, output}}`) laid over them."""
    prices = dict(PRICES)
    try:
        extra = json.loads(env.get("LOBSTER_LLM_PRICING_JSON") or "{}")
    except ValueError:
        return prices
    if isinstance(extra, dict):
        for model, rate in extra.items():
            if isinstance(rate, dict) and is_number(rate.get("input")) and is_number(rate.get("output")):
                prices[model] = (float(rate["input"]), float(rate["output"]))
    return prices


def _tokens(usage: Mapping[str, Any], keys: tuple[str, ...]) -> int:
    for key in keys:
        if is_number(usage.get(key)) and math.isfinite(usage[key]):
            return max(0, math.floor(float(usage[key])))
    return 0


def fixed(value: float, digits: int) -> str:
    """JavaScript `toFixed`: the exact value rounded half up."""
    return str(Decimal(value).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP))


class CostTracker:
    """The spend of one workflow run (restored from resume state after a gate)."""

    def __init__(self, env: Mapping[str, str], entries: list[dict[str, Any]] | None = None) -> None:
        self.prices = pricing(env)
        self.entries: list[dict[str, Any]] = entries if entries is not None else []

    @property
    def total(self) -> float:
        return sum(float(e.get("costUsd", 0)) for e in self.entries)

    def record(self, step_id: str, record: Record | None) -> None:
        """Count every output item of the step that carries a `usage` object."""
        data = (record or {}).get("json")
        for item in data if isinstance(data, list) else [data]:
            if isinstance(item, dict) and isinstance(item.get("usage"), dict):
                self.entries.append(self._entry(step_id, item))

    def _entry(self, step_id: str, item: dict[str, Any]) -> dict[str, Any]:
        model = item.get("model") if isinstance(item.get("model"), str) else None
        tokens_in, tokens_out = _tokens(item["usage"], INPUT_KEYS), _tokens(item["usage"], OUTPUT_KEYS)
        rate_in, rate_out = self.prices.get(model or "", (0.0, 0.0))
        cost = (tokens_in * rate_in + tokens_out * rate_out) / 1e6
        return {"stepId": step_id, "model": model, "inputTokens": tokens_in, "outputTokens": tokens_out, "costUsd": cost}

    def check(self, limit: ir.CostLimit | None, err: TextIO) -> None:
        """`stop` fails the run once the spend exceeds `max_usd`; `warn` (the default) says so on stderr."""
        if limit is None or not self.entries:
            return
        ceiling = to_number(limit.max_usd)
        total = round(self.total, 6)
        if math.isnan(ceiling) or total <= ceiling:
            return
        if limit.action == "stop":
            raise WorkflowError(f"Cost limit exceeded: ${fixed(total, 4)} > ${fixed(ceiling, 2)} limit")
        err.write(f"[WARN] Cost ${fixed(total, 4)} exceeds limit ${fixed(ceiling, 2)}\n")
        err.flush()
