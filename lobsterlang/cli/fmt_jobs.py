"""The per-file work of `lobster fmt` (read, compile, format, verify; no printing), in worker processes for many files."""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor
from functools import partial
from pathlib import Path

from lobsterlang.cli.files import digest
from lobsterlang.config_file import ConfigError
from lobsterlang.cpus import usable_cpus
from lobsterlang.diagnostics import Diagnostic
from lobsterlang.fmt.api import FormatError, format_parsed, is_json_path, parse, verified
from lobsterlang.fmt.config import style_for
from lobsterlang.fmt.style import DEFAULT_STYLE, Style
from lobsterlang.record import Record
from lobsterlang.syntax.source import read_source

PARALLEL_FROM = 24
"""Fewer files than this are formatted in this process: starting workers would cost more."""


class Job(Record):
    """What formatting one file gave. `outcome` is `unchanged`, `changed` or `failed`.

    `source` is the file's text (for diffs and error snippets); `text` the formatted text when
    it changed; `target` where it goes (a JSON file converted to YAML gets a new name);
    `errors` the compile errors, or `message` another reason it failed; `read_digest` the digest of the
    bytes read, so that writing can check the file did not change meanwhile.
    """

    path: str
    target: str
    outcome: str
    source: str = ""
    text: str = ""
    errors: tuple[Diagnostic, ...] = ()
    message: str = ""
    read_digest: str = ""


def converted_name(path: str) -> str:
    """`x.json` and `x.lobster.json` become `x.lobster`."""
    stem = path[: -len(".json")]
    return stem if stem.lower().endswith(".lobster") else stem + ".lobster"


def examine_all(paths: list[str], to_yaml: bool, verify: bool) -> list[Job]:
    """Examine every file, in order; many files are shared among one worker process per CPU."""
    work = partial(examine, to_yaml=to_yaml, verify=verify)
    workers = usable_cpus()
    if len(paths) < PARALLEL_FROM or workers < 2:
        return [work(path) for path in paths]
    with ProcessPoolExecutor(workers) as pool:
        return list(pool.map(work, paths, chunksize=max(1, len(paths) // (workers * 8))))


def examine(path: str, *, to_yaml: bool, verify: bool) -> Job:
    """Format one file without writing it; with `verify`, check the result means what the file means."""
    target = converted_name(path) if to_yaml and is_json_path(path) else path
    try:
        data = read_source(path)
        style = style_for(Path(path))
    except OSError as exc:
        return Job(path, target, "failed", message=f"{path}: cannot read: {exc.strerror or exc}")
    except ConfigError as exc:
        return Job(path, target, "failed", message=f"{path}: not formatted: {exc}")
    return examine_bytes(data, path, target, verify, style)


def examine_bytes(data: bytes, path: str, target: str, verify: bool, style: Style = DEFAULT_STYLE) -> Job:
    """Format one file's bytes with the settings `style`; with `verify`, check the result means the same."""
    try:
        parsed = parse(data, path)
    except FormatError as exc:
        errors = tuple(d for d in exc.diagnostics if d.is_error)
        return Job(path, target, "failed", exc.text, errors=errors, message=str(exc))
    workflow = parsed.workflow
    text = format_parsed(parsed, as_json=is_json_path(target), style=style)
    if target == path and text.encode("utf-8") == data:
        return Job(path, target, "unchanged")
    source = data.decode("utf-8-sig", "replace")
    if verify and not verified(workflow, text, target, source):
        message = f"{path}: not formatted: the result would change what it means or lose a comment (a formatter bug; please report it)"
        return Job(path, target, "failed", source, message=message)
    return Job(path, target, "changed", source, text, read_digest=digest(data))
