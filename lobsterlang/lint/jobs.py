"""Lint many sources over one worker process per CPU, results in input order; few sources stay in this process.

The workers compile and check the files in small chunks; this process runs shellcheck on every script of
the run (`ShellcheckRuns`: one shellcheck process per CPU until the end) and finishes each file.
"""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor
from functools import partial
from pathlib import Path

from lobsterlang.cpus import usable_cpus
from lobsterlang.gcpause import collector_paused
from lobsterlang.lint.cache_files import open_folder
from lobsterlang.lint.cached import Known, cached_results, finish_cached, prepare_cached
from lobsterlang.lint.config import Config
from lobsterlang.lint.engine import FileResult, Prepared, Source
from lobsterlang.lint.lint_cache import LintCache, open_cache, shellcheck_version
from lobsterlang.lint.rules import shellcheck

PARALLEL_FROM = 24
"""Fewer sources than this are linted in this process: starting workers would cost more."""
CHUNK = 8
"""Sources per task of a worker: small, so that shellcheck gets their scripts early and the workers end together."""


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
    folder = open_folder(cache_dir)
    program = shellcheck.binary() if config.shellcheck and config.selects("L310") else None
    version = None if program is None else shellcheck_version(folder, program)
    flags = "" if version is None else " ".join(shellcheck.options(version))
    return open_cache(folder, repr(config), version, flags, reuse_findings)


def _lint_all(sources: list[Source], config: Config, cache: LintCache | None, keep_ir: bool) -> list[FileResult]:
    workers = usable_cpus()
    if len(sources) < PARALLEL_FROM or workers < 2:
        with collector_paused():
            return finish_cached(sources, prepare_cached(sources, config, cache, keep_ir), config, cache)
    chunks = [sources[start : start + CHUNK] for start in range(0, len(sources), CHUNK)]
    work = partial(_prepare_chunk, config=config, cache=cache, keep_ir=keep_ir)
    with ProcessPoolExecutor(workers) as pool:
        parts = pool.map(work, chunks)  # the workers start here, before this process pauses its collector
        with collector_paused():
            return finish_cached(sources, (item for part in parts for item in part), config, cache)


def _prepare_chunk(sources: list[Source], config: Config, cache: LintCache | None, keep_ir: bool) -> list[tuple[Prepared, Known]]:
    with collector_paused():
        return list(prepare_cached(sources, config, cache, keep_ir))
