"""Find and read a tool's settings: `[tool.lobster.<tool>]` in pyproject.toml or `[<tool>]` in .lobster.toml."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from lobsterlang.reading import read_file

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib  # type: ignore[import-not-found, unused-ignore]

CONFIG_FILES = (".lobster.toml", "pyproject.toml")
CONFIG_LIMIT = 16 * 1024 * 1024
"""A settings file larger than this is cut there (and then is not valid TOML): no real one comes close."""


class ConfigError(Exception):
    """A configuration file that cannot be used; the message says where and why."""


def find_config(start: Path, tool: str) -> Path | None:
    """The nearest .lobster.toml, or pyproject.toml with a [tool.lobster.<tool>] table, at or above `start`."""
    for directory in [start, *start.parents]:
        for name in CONFIG_FILES:
            candidate = directory / name
            if candidate.is_file() and (name != "pyproject.toml" or read_table(candidate, tool) is not None):
                return candidate
    return None


def read_toml(path: Path) -> dict[str, Any]:
    """The whole TOML file; ConfigError when it cannot be read or is not valid TOML."""
    try:
        data: dict[str, Any] = tomllib.loads(read_file(path, CONFIG_LIMIT).decode("utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: {exc}") from None
    return data


def read_table(path: Path, tool: str) -> dict[str, Any] | None:
    """The tool's table in `path` (None when it has none); ConfigError when the file is not valid TOML."""
    data = read_toml(path)
    table = data.get(tool) if path.name == ".lobster.toml" else data.get("tool", {}).get("lobster", {}).get(tool)
    return table if isinstance(table, dict) else None
