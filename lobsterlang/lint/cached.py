"""Lint through the persistent cache: unchanged files' findings are read back, the others linted and stored."""

from __future__ import annotations

from collections.abc import Sequence

from lobsterlang.lint.config import Config
from lobsterlang.lint.engine import FileResult, Source, lint_sources
from lobsterlang.lint.lint_cache import Comments, Entry, LintCache
from lobsterlang.lint.rules.shellcheck import ScriptMemo
from lobsterlang.syntax.source import decode_source


def cached_results(sources: Sequence[Source], cache: LintCache) -> list[FileResult | None]:
    """What the cache holds for each source under this run's key (without IR), None where it holds nothing."""
    if not cache.reuse_findings:
        return [None] * len(sources)
    return [_hit(source, _load(source, cache, scripts=False), cache) for source in sources]


def lint_cached(sources: Sequence[Source], config: Config, cache: LintCache) -> list[FileResult]:
    """`lint_sources(sources, config)`, with unchanged files read from `cache` and the others' findings stored."""
    entries = [_load(source, cache) for source in sources]
    found = [_hit(source, entry, cache) for source, entry in zip(sources, entries, strict=True)]
    todo = [index for index, result in enumerate(found) if result is None]
    known = {key: comments for index in todo for key, comments in entries[index].scripts.items()}
    memo = ScriptMemo(known, cache.script_key, cache.shellcheck)
    fresh = lint_sources([sources[index] for index in todo], config, memo)
    for index, result in zip(todo, fresh, strict=True):
        found[index] = result
        if not sources[index].pipeline:
            _store(sources[index], result, entries[index], memo, cache)
    return [result for result in found if result is not None]


def _load(source: Source, cache: LintCache, scripts: bool = True) -> Entry:
    return Entry() if source.pipeline else cache.load(source.path, scripts)


def _hit(source: Source, entry: Entry, cache: LintCache) -> FileResult | None:
    if not cache.reuse_findings or entry.key is None or entry.key != cache.file_key(source.path, source.data):
        return None
    text = decode_source(source.data)[0].text if isinstance(source.data, bytes) else source.data
    return FileResult(source.path, text, None, entry.findings)


def _store(source: Source, result: FileResult, before: Entry, memo: ScriptMemo, cache: LintCache) -> None:
    """Keep the comments on this file's scripts (a run without shellcheck keeps those stored before) and the
    findings, unless they depend on other files or a shellcheck run failed (never remembered as clean)."""
    scripts: dict[str, Comments] = before.scripts
    complete = True
    if cache.shellcheck is not None:
        scripts = {}
        for text in result.scripts:
            comments = memo.get(text)
            complete = complete and comments is not None
            if comments is not None:
                scripts[cache.script_key(text)] = comments
    key = None if result.reads_files or not complete else cache.file_key(source.path, source.data)
    cache.store(source.path, key, result.diagnostics, scripts)
