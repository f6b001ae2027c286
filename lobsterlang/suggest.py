""""Did you mean": the closest known name within a small edit distance, for messages and hints."""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache


def edit_distance(a: str, b: str, limit: int) -> int:
    """The Levenshtein distance of `a` and `b` (adjacent swaps count one), or `limit + 1` when larger."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, start=1):
        current = [i] + [0] * len(b)
        for j, cb in enumerate(b, start=1):
            cost = 0 if ca == cb else 1
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                current[j] = min(current[j], previous2[j - 2] + 1)
        if min(current) > limit:
            return limit + 1
        previous2, previous = previous, current
    return previous[-1]


def allowed_distance(name: str) -> int:
    """How many edits still count as a typo of a name this long (none below three characters)."""
    if len(name) < 3:
        return 0
    return 1 if len(name) <= 5 else 2


def closest(name: str, known: Iterable[str]) -> str | None:
    """The known name nearest to `name` within `allowed_distance` (one edit more when both start with the
    same four letters: `retries` → `retry`), or None (ties: the first in sorted order).

    Remembered: the language server asks the same questions of every version of a document (each
    `$step.field` with an unknown field, at every edit)."""
    return _closest(name, frozenset(known))


@lru_cache(maxsize=1024)
def _closest(name: str, known: frozenset[str]) -> str | None:
    limit = allowed_distance(name)
    best, best_distance = None, limit + 2
    for candidate in sorted(known):
        if candidate == name:
            continue
        distance = edit_distance(name.lower(), candidate.lower(), limit + 1)
        if distance > limit and not (limit and _same_stem(name, candidate)):
            continue
        if distance < best_distance:
            best, best_distance = candidate, distance
    return best if best_distance <= limit + 1 else None


def _same_stem(a: str, b: str) -> bool:
    return len(a) >= 4 and len(b) >= 4 and a[:4].lower() == b[:4].lower()
