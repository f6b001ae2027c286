"""Formatter settings: `line-width` and `quote-style` in `[tool.lobster.fmt]` (pyproject.toml) or `[fmt]` (.lobster.toml)."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from lobsterlang.config_file import ConfigError, find_config, read_table
from lobsterlang.fmt.style import DEFAULT_STYLE, QUOTE_STYLES, Style

MIN_WIDTH, MAX_WIDTH = 40, 400
_KNOWN = ("line-width", "quote-style")


def style_for(file: Path) -> Style:
    """The settings that apply to `file`: from the nearest configuration file at or above its directory."""
    return _style_in(file.resolve().parent)


@cache
def _style_in(directory: Path) -> Style:
    path = find_config(directory, "fmt")
    return DEFAULT_STYLE if path is None else style_from_table(read_table(path, "fmt") or {}, str(path))


def style_from_table(table: dict[str, Any], source: str) -> Style:
    """The Style a `[fmt]` table describes; ConfigError, saying where and why, for anything else."""
    unknown = sorted(set(table) - set(_KNOWN))
    if unknown:
        raise ConfigError(f"{source}: unknown fmt setting {unknown[0]!r} (known: {', '.join(_KNOWN)})")
    width = table.get("line-width", DEFAULT_STYLE.line_width)
    if not isinstance(width, int) or isinstance(width, bool) or not MIN_WIDTH <= width <= MAX_WIDTH:
        raise ConfigError(f"{source}: fmt.line-width must be a whole number from {MIN_WIDTH} to {MAX_WIDTH}")
    quotes = table.get("quote-style", DEFAULT_STYLE.quote_style)
    if quotes not in QUOTE_STYLES:
        raise ConfigError(f"{source}: fmt.quote-style must be one of {', '.join(QUOTE_STYLES)}, not {quotes!r}")
    return Style(line_width=width, quote_style=quotes)
