"""Lint many sources over one worker process per CPU, results in input order; few sources stay in this process."""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor
from functools import partial
from pathlib import Path

from lobsterlang.cpus import usable_cpus
from lobsterlang.lint.cached import cached_results, lint_cached
from lobsterlang.lint.config import Config
from lobsterlang.lint.engine import FileResult, Source, lint_sources
from lobsterlang.lint.lint_cache import LintCache, open_cache, shellcheck_version
from lobsterlang.lint.rules import shellcheck
from lobsterlang.record import replace

PARALLEL_FROM = 24
"""Fewer sources than this are linted in this process: starting workers would cost more."""
CHUNKS_PER_WORKER = 2
"""Contiguous chunks per worker: few, so each shellcheck batch stays large; more than one, to even out the load."""


def lint_in_parallel(sources: list[Source], config: Config, cache_dir: Path | None, keep_ir: bool) -> list[FileResult]:
    """The results of `lint_sources(sources, config)`, computed by up to one process per CPU, through the
    cache in `cache_dir` (None: no cache).

    Without `keep_ir`, results come back without their IR (`workflow` None): sending the IR between
    processes costs more than linting the file, and findings read from the cache have none. With it,
    only shellcheck's comments are read from the cache.
    """
    cache = _open(cache_dir, config, reuse_findings=not keep_ir) if cache_dir is not None else None
    found = cached_results(sources, cache) if cache is not None else [None] * len(sources)
    todo = [source for source, result in zip(sources, found, strict=True) if result is None]
    fresh = iter(_lint_all(todo, config, cache, keep_ir))
    return [result if result is not None else next(fresh) for result in found]


def _open(cache_dir: Path, config: Config, reuse_findings: bool) -> LintCache:
    program = shellcheck.binary() if config.shellcheck and config.selects("L310") else None
    version = None if program is None else shellcheck_version(cache_dir, program)
    flags = "" if version is None else " ".join(shellcheck.options(version))
    return open_cache(cache_dir, repr(config), version, flags, reuse_findings)


def _lint_all(sources: list[Source], config: Config, cache: LintCache | None, keep_ir: bool) -> list[FileResult]:
    workers = usable_cpus()
    if len(sources) < PARALLEL_FROM or workers < 2:
        return _lint_chunk(sources, config, cache)
    size = -(-len(sources) // (workers * CHUNKS_PER_WORKER))
    chunks = [sources[start : start + size] for start in range(0, len(sources), size)]
    work = partial(_lint_chunk, config=config, cache=cache, keep_ir=keep_ir)
    with ProcessPoolExecutor(workers) as pool:
        return [result for part in pool.map(work, chunks) for result in part]


def _lint_chunk(sources: list[Source], config: Config, cache: LintCache | None, keep_ir: bool = True) -> list[FileResult]:
    results = lint_cached(sources, config, cache) if cache is not None else lint_sources(sources, config)
    return results if keep_ir else [replace(result, workflow=None) for result in results]
