"""Lint many sources over one worker process per CPU, results in input order; few sources stay in this process."""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor
from functools import partial
from pathlib import Path

from lobsterlang.cpus import usable_cpus
from lobsterlang.lint.config import Config
from lobsterlang.lint.engine import FileResult, Source, lint_sources
from lobsterlang.lint.shellcheck_cache import ShellcheckCache
from lobsterlang.record import replace

PARALLEL_FROM = 24
"""Fewer sources than this are linted in this process: starting workers would cost more."""
CHUNKS_PER_WORKER = 2
"""Contiguous chunks per worker: few, so each shellcheck batch stays large; more than one, to even out the load."""


def lint_in_parallel(sources: list[Source], config: Config, cache_dir: Path | None, keep_ir: bool) -> list[FileResult]:
    """The results of `lint_sources(sources, config, cache)`, computed by up to one process per CPU.

    Without `keep_ir`, results computed in workers come back without their IR (`workflow` None):
    sending the IR between processes costs more than linting the file.
    """
    workers = usable_cpus()
    if len(sources) < PARALLEL_FROM or workers < 2:
        return _lint_chunk(sources, config, cache_dir)
    size = -(-len(sources) // (workers * CHUNKS_PER_WORKER))
    chunks = [sources[start : start + size] for start in range(0, len(sources), size)]
    work = partial(_lint_chunk, config=config, cache_dir=cache_dir, keep_ir=keep_ir)
    with ProcessPoolExecutor(workers) as pool:
        return [result for part in pool.map(work, chunks) for result in part]


def _lint_chunk(sources: list[Source], config: Config, cache_dir: Path | None, keep_ir: bool = True) -> list[FileResult]:
    results = lint_sources(sources, config, ShellcheckCache(cache_dir) if cache_dir is not None else None)
    return results if keep_ir else [replace(result, workflow=None) for result in results]
