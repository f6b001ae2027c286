"""What a workflow run's LLM calls cost it: the charge each paid call opens, the marks that tell an answer the
LLM commands handed out (live or replayed) from a copy, and which charges were billed — so a provider call is
billed once however many steps re-emit its answer, and a call whose output a failed step dropped still counts.

The marks live in this process only (an item's identity, never a field of its JSON), as in the reference: a
step that prints a replay-shaped object stays billed, so `cost_limit` cannot be evaded from outside.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from lobsterlang.interpret.values import to_number

INPUT_KEYS = ("inputTokens", "input_tokens", "prompt_tokens")
OUTPUT_KEYS = ("outputTokens", "output_tokens", "completion_tokens")
MAX_KEYS = 256
"""Cache keys with open (or billed) charges kept per run; the oldest go first, so a long run's ledger stays bounded."""


def billable(usage: Mapping[str, Any]) -> tuple[int, int]:
    """Input and output tokens of a usage record under any of the spellings providers use (first one present)."""
    return _tokens(usage, INPUT_KEYS), _tokens(usage, OUTPUT_KEYS)


def _tokens(usage: Mapping[str, Any], keys: tuple[str, ...]) -> int:
    raw = next((usage[key] for key in keys if usage.get(key) is not None), 0)
    number = to_number(raw)
    return math.floor(number) if math.isfinite(number) and number >= 0 else 0


@dataclass(frozen=True)
class Charge:
    """One paid call: its cache key, the model and usage it was billed for, and the step that made it."""

    cache_key: str
    model: str | None
    usage: Mapping[str, Any] | None
    step_id: str | None = None

    def costs_as(self, model: str | None, usage: Mapping[str, Any]) -> bool:
        return self.model == model and self.usage is not None and billable(self.usage) == billable(usage)


@dataclass
class Provenance:
    """Which call an item came from, and whether that call is already accounted for (a replay)."""

    cache_key: str
    replayed: bool


@dataclass
class _Marks:
    """Items (and their usage records) the LLM commands handed out, by identity; kept alive as long as the run."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    by_id: dict[int, tuple[object, Provenance]] = field(default_factory=dict)

    def put(self, value: object, provenance: Provenance) -> None:
        with self.lock:
            self.by_id[id(value)] = (value, provenance)

    def get(self, value: object) -> Provenance | None:
        with self.lock:
            found = self.by_id.get(id(value))
        return found[1] if found is not None and found[0] is value else None


class SpendLedger:
    """The charges of one run; a composed run's ledger also opens each charge in the run that called it."""

    def __init__(self, parent: SpendLedger | None = None) -> None:
        self.parent = parent
        self.marks: _Marks = parent.marks if parent is not None else _Marks()
        self.lock = threading.Lock()
        self.open: dict[str, list[Charge]] = {}
        self.billed: dict[str, list[Charge]] = {}

    def mark(self, item: Any, provenance: Provenance) -> None:
        """Mark an item the LLM commands emit, and its usage record (a projection such as `pick usage` keeps that)."""
        if isinstance(item, dict):
            self.marks.put(item, provenance)
            if isinstance(item.get("usage"), dict):
                self.marks.put(item["usage"], provenance)

    def provenance(self, item: dict[str, Any]) -> Provenance | None:
        """The item's mark, or its usage record's (a projection may have dropped the item's own)."""
        usage = item.get("usage")
        return self.marks.get(item) or (self.marks.get(usage) if isinstance(usage, dict) else None)

    def record(self, charge: Charge) -> None:
        """A live call was paid for: open its charge until a step bills it."""
        if self.parent is not None:
            self.parent.record(charge)
        with self.lock:
            self.open.setdefault(charge.cache_key, []).append(charge)
            _bound(self.open)

    def claim(self, cache_key: str, model: str | None = None, usage: Mapping[str, Any] | None = None) -> Charge | None:
        """Settle one open charge under `cache_key` (the one that cost `model`/`usage` when given) and return it;
        None when nothing under the key is left to bill."""
        with self.lock:
            charges = self.open.get(cache_key)
            if not charges:
                return None
            own = next((i for i, c in enumerate(charges) if usage is not None and c.costs_as(model, usage)), None)
            index = own if own is not None else next((i for i, c in enumerate(charges) if c.usage is not None), 0)
            charge = charges.pop(index)
            if not charges:
                del self.open[cache_key]
            self._settle(charge)
        return charge

    def bill_copy(self, cache_key: str | None, model: str | None, usage: Mapping[str, Any]) -> Charge | None:
        """A copy of an answer (its marks lost on the way) is billed; it settles the open charge it stands for, if
        any (returned)."""
        with self.lock:
            for key in list(self.open) if cache_key is None else [cache_key]:
                charges = self.open.get(key) or []
                index = next((i for i, c in enumerate(charges) if c.costs_as(model, usage)), None)
                if index is not None:
                    charge = charges.pop(index)
                    if not charges:
                        del self.open[key]
                    self._settle(charge)
                    return charge
        return None

    def recognise(self, value: Any, billed: list[tuple[Any, Any, tuple[Any, Any]]]) -> None:
        """Mark, inside a resumed run's step records, the answers of calls the run billed before it paused
        (`billed`: cache key, model and tokens of each): their JSON lost the marks, and a step that re-emits one
        after the pause must not bill it again. Only the run's own saved state comes here, never command output."""
        if isinstance(value, list):
            for item in value:
                self.recognise(item, billed)
        elif isinstance(value, dict):
            key, usage = value.get("cacheKey"), value.get("usage")
            if isinstance(key, str) and isinstance(usage, dict):
                model = value.get("model") if isinstance(value.get("model"), str) else None
                if (key, model, billable(usage)) in billed:
                    self.mark(value, Provenance(key, replayed=True))
            for child in value.values():
                self.recognise(child, billed)

    def outstanding(self) -> list[Charge]:
        with self.lock:
            return [charge for charges in self.open.values() for charge in charges]

    def _settle(self, charge: Charge) -> None:
        self.billed.setdefault(charge.cache_key, []).append(charge)
        _bound(self.billed)


def _bound(table: dict[str, list[Charge]]) -> None:
    while len(table) > MAX_KEYS:
        del table[next(iter(table))]


@dataclass(frozen=True)
class StepSpend:
    """The ledger as one step's commands see it: a charge knows the step that opened it."""

    ledger: SpendLedger
    step_id: str

    def paid(self, cache_key: str, model: str | None, usage: Any) -> None:
        if isinstance(usage, dict):
            self.ledger.record(Charge(cache_key, model, usage, self.step_id))

    def mark(self, items: list[Any], cache_key: str, replayed: bool) -> None:
        provenance = Provenance(cache_key, replayed)
        for item in items:
            self.ledger.mark(item, provenance)
