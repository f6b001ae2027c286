"""Lint through the persistent cache: unchanged files' findings are read back; the others are linted, with
shellcheck's comments on unchanged scripts read back, and stored."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

from lobsterlang.lint.config import Config
from lobsterlang.lint.engine import FileResult, Prepared, Source, finish_all, prepare
from lobsterlang.lint.lint_cache import Comments, Entry, LintCache
from lobsterlang.lint.rules.shellcheck import ScriptMemo
from lobsterlang.syntax.source import decode_source

Known = dict[str, Comments]
"""shellcheck's comments the cache holds on a file's scripts, by script text."""


def cached_results(sources: Sequence[Source], cache: LintCache) -> list[FileResult | None]:
    """What the cache holds for each source under this run's key (without IR), None where it holds nothing."""
    if not cache.reuse_findings:
        return [None] * len(sources)
    return [_hit(source, _load(source, cache, scripts=False), cache) for source in sources]


def prepare_cached(sources: Iterable[Source], config: Config, cache: LintCache | None,
                   keep_ir: bool) -> Iterator[tuple[Prepared, Known]]:
    """`prepare` each source, with the comments `cache` holds on its scripts (`finish_cached` finishes them)."""
    sources = list(sources)
    for source, item in zip(sources, prepare(sources, config, keep_ir), strict=True):
        yield item, _known(source, item, cache)


def finish_cached(sources: Sequence[Source], prepared: Iterable[tuple[Prepared, Known]], config: Config,
                  cache: LintCache | None) -> list[FileResult]:
    """The results of the `prepared` sources (in order), shellcheck checking only scripts the cache does not
    know; each file's findings are stored as soon as it is finished."""
    memo = ScriptMemo(cache.shellcheck if cache is not None else None)

    def known_first() -> Iterator[Prepared]:
        for item, known in prepared:
            memo.known.update(known)
            yield item

    def store(number: int, result: FileResult) -> None:
        if cache is not None and not sources[number].pipeline:
            _store(sources[number], result, memo, cache)

    return finish_all(known_first(), config, memo, store)


def _known(source: Source, item: Prepared, cache: LintCache | None) -> Known:
    if cache is None or cache.shellcheck is None or not item.scripts:
        return {}
    stored = _load(source, cache).scripts
    found = ((script.text, stored.get(cache.script_key(script.text))) for script in item.scripts)
    return {text: comments for text, comments in found if comments is not None}


def _load(source: Source, cache: LintCache, scripts: bool = True) -> Entry:
    return Entry() if source.pipeline else cache.load(source.path, scripts)


def _hit(source: Source, entry: Entry, cache: LintCache) -> FileResult | None:
    if not cache.reuse_findings or entry.key is None or entry.key != cache.file_key(source.path, source.data):
        return None
    text = decode_source(source.data)[0].text if isinstance(source.data, bytes) else source.data
    return FileResult(source.path, text, None, entry.findings)


def _store(source: Source, result: FileResult, memo: ScriptMemo, cache: LintCache) -> None:
    """Keep the comments on this file's scripts (a run without shellcheck keeps those stored before) and the
    findings, unless they depend on other files or a shellcheck run failed (never remembered as clean)."""
    complete = True
    if cache.shellcheck is None:
        scripts = _load(source, cache).scripts
    else:
        scripts = {}
        for text in result.scripts:
            comments = memo.get(text)
            complete = complete and comments is not None
            if comments is not None:
                scripts[cache.script_key(text)] = comments
    key = None if result.reads_files or not complete else cache.file_key(source.path, source.data)
    cache.store(source.path, key, result.diagnostics, scripts)
