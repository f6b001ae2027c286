"""Locate the grammar folder: packaged inside the wheel, or at the root of a source checkout."""

from __future__ import annotations

from pathlib import Path

_HERE = Path(__file__).resolve().parent


def grammar_dir() -> Path:
    """`lobsterlang/grammar` in an installed wheel, else `grammar/` beside the package."""
    for candidate in (_HERE / "grammar", _HERE.parent / "grammar"):
        if (candidate / "pipeline.lark").is_file():
            return candidate
    raise FileNotFoundError("lobsterlang grammar files not found (expected lobsterlang/grammar or ./grammar)")


def grammar_file(name: str) -> Path:
    return grammar_dir() / name
