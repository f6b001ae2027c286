"""Lint many sources over one worker process per CPU, results in input order; few sources stay in this process."""

from __future__ import annotations

import os
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from lobsterlang.lint.config import Config
from lobsterlang.lint.engine import FileResult, Source, lint_sources
from lobsterlang.lint.shellcheck_cache import ShellcheckCache

PARALLEL_FROM = 24
"""Fewer sources than this are linted in this process: starting workers would cost more."""
CHUNKS_PER_WORKER = 2
"""Contiguous chunks per worker: few, so each shellcheck batch stays large; more than one, to even out the load."""


def lint_in_parallel(sources: list[Source], config: Config, cache_dir: Path | None) -> list[FileResult]:
    """The same results as `lint_sources(sources, config, cache)`, computed by up to one process per CPU."""
    workers = cpu_count()
    if len(sources) < PARALLEL_FROM or workers < 2:
        return _lint_chunk(sources, config, cache_dir)
    size = -(-len(sources) // (workers * CHUNKS_PER_WORKER))
    chunks = [sources[start : start + size] for start in range(0, len(sources), size)]
    with ProcessPoolExecutor(workers) as pool:
        parts = pool.map(_lint_chunk, chunks, [config] * len(chunks), [cache_dir] * len(chunks))
        return [result for part in parts for result in part]


def cpu_count() -> int:
    """The CPUs this process may use."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def _lint_chunk(sources: list[Source], config: Config, cache_dir: Path | None) -> list[FileResult]:
    return lint_sources(sources, config, ShellcheckCache(cache_dir) if cache_dir is not None else None)
