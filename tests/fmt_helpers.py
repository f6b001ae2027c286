"""Helpers for the formatter tests: the files to format and the guarantees to check on each."""

from __future__ import annotations

from pathlib import Path

from helpers import CASES, ROOT, example_files

from lobsterlang import ir
from lobsterlang.compile import compile_workflow
from lobsterlang.fmt import format_text
from lobsterlang.fmt.meaning import meaning

FMT = ROOT / "tests" / "fmt"


def formattable_files() -> list[Path]:
    """Every example and workflow case that compiles without errors."""
    cases = sorted((CASES / "workflows").glob("*"))
    files = [p for p in [*example_files(), *cases] if p.suffix in (".lobster", ".yaml", ".yml", ".json")]
    return [p for p in files if compile_workflow(p.read_bytes(), _name(p)).ok]


def _name(path: Path) -> str:
    return str(path.relative_to(ROOT))


def compiled(text: str, path: str) -> ir.Workflow:
    result = compile_workflow(text, path)
    assert result.ok and result.ir is not None, [d.message for d in result.diagnostics if d.is_error]
    return result.ir


def check_guarantees(text: str, path: str) -> str:
    """Format `text` and assert: same meaning, every comment kept, idempotent. Returns the output."""
    before = compiled(text, path)
    out = format_text(text, path)
    after = compiled(out, path)
    assert meaning(after) == meaning(before)
    for comment in before.comments:
        assert comment.text in out
    assert sorted(c.text for c in after.comments) == sorted(c.text for c in before.comments)
    assert format_text(out, path) == out
    return out
