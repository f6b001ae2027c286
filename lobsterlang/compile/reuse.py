"""Steps a document's previous compile lends to the next: an editor recompiles on every change, and a step
whose text (and the ids before it) did not change keeps its IR and diagnostics, moved to where it now stands."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from lobsterlang import ir
from lobsterlang.diagnostics import Diagnostic
from lobsterlang.record import Record
from lobsterlang.span import StepIndex


class CompiledStep(Record):
    """What compiling one top-level step gave: its IR (None when it is not a step), the diagnostics it
    reported and the ids it added (its own, its branches'), all positioned through `index`."""

    index: StepIndex
    step: ir.Step | None
    diagnostics: tuple[Diagnostic, ...]
    ids: tuple[str, ...]


StepKey = tuple[str, int, int]
"""A step's text, its column, and a hash of the ids of every step before it (duplicate ids are its errors)."""


class StepCache:
    """The steps of one document's last compile, by StepKey; each compile keeps only the steps it had."""

    def __init__(self) -> None:
        self.steps: dict[StepKey, CompiledStep] = {}
        self.reused = 0
        """How many steps the last compile took from the one before (for tests and benchmarks)."""
        self.source = ""
        self.regions: list[tuple[int, int]] = []
        """The text of the last compile that reached the steps, and where each of its steps starts and the token
        after it begins (`compile.recompose` finds them unchanged in the next version)."""
        self.left_out: dict[int, int] = {}
        """The steps the current compile did not compose: where each starts, and where the token after it begins."""


_ACTIVE: ContextVar[tuple[StepCache, str] | None] = ContextVar("lobster_step_cache", default=None)


@contextmanager
def reusing_steps(cache: StepCache, path: str) -> Iterator[None]:
    """The document at `path` compiled inside the block takes unchanged steps from `cache` and leaves its own
    in it; any other file compiled meanwhile (a sub-workflow a lint rule reads) compiles as usual.

    Only for one document's successive versions, and only where nothing keeps an IR of an earlier version
    whose positions must stay put: a reused step moves, in every IR that holds it.
    """
    token = _ACTIVE.set((cache, path))
    try:
        yield
    finally:
        _ACTIVE.reset(token)


def active_cache(path: str) -> StepCache | None:
    """The cache of `reusing_steps` when the document at `path` is the one it is for."""
    active = _ACTIVE.get()
    return active[0] if active is not None and active[1] == path else None
