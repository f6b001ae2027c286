"""The step and branch ids met so far while compiling a workflow's steps, in the order they came."""

from __future__ import annotations

from collections.abc import Iterable


class SeenIds:
    """Ids of the steps and branches compiled so far: a later one with the same id is a duplicate (S120)."""

    __slots__ = ("_ids", "order")

    def __init__(self) -> None:
        self._ids: set[str] = set()
        self.order: list[str] = []
        """Every id added, in order (a step's own, then its branches')."""

    def __contains__(self, step_id: str) -> bool:
        return step_id in self._ids

    def add(self, step_id: str) -> None:
        self._ids.add(step_id)
        self.order.append(step_id)

    def update(self, step_ids: Iterable[str]) -> None:
        for step_id in step_ids:
            self.add(step_id)
