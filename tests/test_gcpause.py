"""The collector pause: re-enables the collector, leaves no young objects to rescan, loses no garbage."""

from __future__ import annotations

import gc
import weakref

import pytest

from lobsterlang.gcpause import collector_paused


class Node:
    def __init__(self) -> None:
        self.other: Node | None = None


def test_the_collector_is_paused_inside_and_enabled_after() -> None:
    assert gc.isenabled()
    with collector_paused():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_a_disabled_collector_stays_disabled() -> None:
    gc.disable()
    try:
        with collector_paused():
            kept = [Node() for _ in range(2000)]
        assert not gc.isenabled()
        assert gc.get_count()[0] >= len(kept)  # nothing was spliced away behind the caller's back
    finally:
        gc.enable()


def test_objects_left_alive_are_not_young_any_more() -> None:
    with collector_paused():
        kept = [Node() for _ in range(5000)]
    oldest = {id(obj) for obj in gc.get_objects(generation=2)}
    assert all(id(node) in oldest for node in kept)  # no young pass will traverse them


def test_cyclic_garbage_made_inside_is_still_collected() -> None:
    with collector_paused():
        first, second = Node(), Node()
        first.other, second.other = second, first
        watch = weakref.ref(first)
        del first, second
    assert watch() is not None  # a cycle: only the collector frees it
    gc.collect()
    assert watch() is None


@pytest.fixture
def frozen_by_caller() -> object:
    gc.collect()
    gc.freeze()
    yield
    gc.unfreeze()


@pytest.mark.usefixtures("frozen_by_caller")
def test_objects_the_caller_froze_stay_frozen() -> None:
    frozen = gc.get_freeze_count()
    assert frozen > 0
    with collector_paused():
        [Node() for _ in range(10)]
    assert gc.get_freeze_count() == frozen
