"""Lint configuration: `[tool.lobster.lint]` in pyproject.toml or `[lint]` in .lobster.toml."""

from __future__ import annotations

import fnmatch
import re
from pathlib import Path
from typing import Any

from lobsterlang import config_file
from lobsterlang.config_file import ConfigError as ConfigError
from lobsterlang.diagnostics import Severity
from lobsterlang.record import Record, replace

TARGETS = ("lobsterlang", "reference")
"""The runtimes a file can be written for (`target`); docs/lint.md lists the rules that depend on it."""
OFF_FOR_TARGET = {"lobsterlang": ("L206", "L301", "L403"), "reference": ("L309",)}
"""Rules that do not apply to a target: lobsterlang passes args to shells as data (L301 is the
reference's danger) and halts the run at an `approve` stage anywhere (L206, L403: the reference fails the step);
under the reference raw substitution is what happens (L309 warns of the difference)."""


class Extensions(Record):
    """What a Lobster fork or host adds, declared per project: pipeline commands and condition functions.

    `commands` holds names or glob patterns (`ado.*`) of commands that take any flag; `command_flags` declares
    commands with the only flags they take; `functions` names condition functions (`length`).
    """

    commands: tuple[str, ...] = ()
    command_flags: tuple[tuple[str, tuple[str, ...]], ...] = ()
    functions: tuple[str, ...] = ()

    def command(self, name: str) -> tuple[str, ...] | None:
        """The flags a declared command takes (`("*",)`: any), or None when `name` is not declared."""
        for declared, accepted in self.command_flags:
            if declared == name:
                return accepted
        return ("*",) if any(fnmatch.fnmatchcase(name, pattern) for pattern in self.commands) else None


NO_EXTENSIONS = Extensions()


class Config(Record):
    """Which rules run and how severe they are.

    `select`/`ignore` hold codes or code prefixes (`L3`, `L301`, `ALL`). `select` filters
    the L-codes only; `ignore` applies to every code, compile warnings included.
    """

    select: tuple[str, ...] = ("ALL",)
    ignore: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    severity: tuple[tuple[str, Severity], ...] = ()
    shellcheck: bool = True
    source: str | None = None
    target: str = "lobsterlang"
    """The runtime the files are written for: `lobsterlang` (args reach shells as data) or `reference` (raw text)."""
    exclude: tuple[str, ...] = ()
    """Glob patterns of paths that directory searches skip (`extend-exclude`)."""
    max_input_bytes: int | None = None
    """`max-input-bytes`: the size limit on workflow files when neither the option nor the variable sets one."""
    extensions: Extensions = NO_EXTENSIONS
    """`extra-commands`, `command-flags` and `condition-functions`: what a Lobster fork or host adds."""

    def enabled(self, code: str, path: str) -> bool:
        return self.selects(code) and not ignored_here(code, self.file_ignores(path))

    def selects(self, code: str) -> bool:
        """Whether `code` is enabled before per-file ignores."""
        if code.startswith("L") and not _matches(code, self.select):
            return False
        return not _matches(code, self.ignore)

    def file_ignores(self, path: str) -> tuple[tuple[str, ...], ...]:
        """The `per_file_ignores` code lists that apply to `path`."""
        return tuple(codes for pattern, codes in self.per_file_ignores if _path_matches(path, pattern))

    def severity_of(self, code: str, default: Severity) -> Severity:
        return next((sev for prefix, sev in self.severity if code.startswith(prefix)), default)


def ignored_here(code: str, file_ignores: tuple[tuple[str, ...], ...]) -> bool:
    """Whether one of a file's `per_file_ignores` lists (from `Config.file_ignores`) names `code`."""
    return any(_matches(code, codes) for codes in file_ignores)


def _matches(code: str, prefixes: tuple[str, ...]) -> bool:
    return any(p == "ALL" or code.startswith(p) for p in prefixes)


def _path_matches(path: str, pattern: str) -> bool:
    posix = Path(path).as_posix()
    return fnmatch.fnmatch(posix, pattern) or fnmatch.fnmatch(Path(path).name, pattern) or fnmatch.fnmatch(posix, "*/" + pattern)


def find_config(start: Path) -> Path | None:
    """The nearest .lobster.toml, or pyproject.toml with a [tool.lobster.lint] table, at or above `start`."""
    return config_file.find_config(start, "lint")


def _lint_table(path: Path) -> dict[str, Any] | None:
    return config_file.read_table(path, "lint")


def load_config(path: Path | None) -> Config:
    """The configuration in `path` (defaults when None)."""
    if path is None:
        return Config()
    table = _lint_table(path) or {}
    return from_table(table, str(path))


def from_table(table: dict[str, Any], source: str) -> Config:
    known = {"select", "ignore", "per-file-ignores", "severity", "shellcheck", "target", "extend-exclude", "max-input-bytes",
             *EXTENSION_KEYS}
    unknown = sorted(set(table) - known)
    if unknown:
        raise ConfigError(f"{source}: unknown lint setting {unknown[0]!r} (known: {', '.join(sorted(known))})")
    return Config(
        select=_codes(table.get("select", ["ALL"]), source, "select"),
        ignore=_codes(table.get("ignore", []), source, "ignore"),
        per_file_ignores=tuple((str(k), _codes(v, source, f"per-file-ignores.{k}")) for k, v in _table(table, "per-file-ignores", source).items()),
        severity=tuple((str(k), _severity(v, source, k)) for k, v in _table(table, "severity", source).items()),
        shellcheck=bool(table.get("shellcheck", True)),
        source=source,
        target=_target(table.get("target", "lobsterlang"), source),
        exclude=_patterns(table.get("extend-exclude", []), source),
        max_input_bytes=_size(table.get("max-input-bytes"), source),
        extensions=_extensions(table, source),
    )


EXTENSION_KEYS = ("extra-commands", "command-flags", "condition-functions")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.*?-]*")
_FLAG = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]*")


def _extensions(table: dict[str, Any], source: str) -> Extensions:
    """`extra-commands = ["copilot", "ado.*"]`, `[command-flags] "teams.send" = ["channel", "message"]`,
    `condition-functions = ["length"]`."""
    if not any(key in table for key in EXTENSION_KEYS):
        return NO_EXTENSIONS
    commands = _names(table.get("extra-commands", []), source, "extra-commands", _NAME)
    flags = tuple(
        (_names([name], source, "command-flags", _NAME)[0],
         tuple(f.lstrip("-") for f in _names(value, source, f"command-flags.{name}", re.compile("-{0,2}" + _FLAG.pattern))))
        for name, value in _table(table, "command-flags", source).items()
    )
    functions = _names(table.get("condition-functions", []), source, "condition-functions", re.compile(r"[A-Za-z_][A-Za-z0-9_]*"))
    return Extensions(commands, flags, functions)


def _names(value: Any, source: str, key: str, shape: re.Pattern[str]) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{source}: lint.{key} must be a list of names")
    bad = next((v for v in value if not shape.fullmatch(v)), None)
    if bad is not None:
        raise ConfigError(f"{source}: lint.{key}: {bad!r} is not a name")
    return tuple(value)


def _size(value: Any, source: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(f"{source}: lint.max-input-bytes must be a positive whole number of bytes (got {value!r})")
    return value


def _target(value: Any, source: str) -> str:
    if value not in TARGETS:
        raise ConfigError(f"{source}: lint.target must be one of {', '.join(TARGETS)} (got {value!r})")
    return str(value)


def _patterns(value: Any, source: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{source}: lint.extend-exclude must be a list of glob patterns")
    return tuple(value)


def _codes(value: Any, source: str, key: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{source}: lint.{key} must be a list of rule codes")
    return tuple(v.strip().upper() for v in value)


def _table(table: dict[str, Any], key: str, source: str) -> dict[str, Any]:
    value = table.get(key, {})
    if not isinstance(value, dict):
        raise ConfigError(f"{source}: lint.{key} must be a table")
    return value


def _severity(value: Any, source: str, code: str) -> Severity:
    try:
        return Severity(value)
    except ValueError:
        raise ConfigError(f"{source}: lint.severity.{code} must be error, warning or info") from None


def with_overrides(config: Config, select: str | None, ignore: str | None, shellcheck: bool | None = None,
                   target: str | None = None) -> Config:
    """Command-line `--select`/`--ignore` (comma-separated) replace/extend the file's settings; `--target` replaces."""
    changes: dict[str, Any] = {}
    if target:
        changes["target"] = target
    if select:
        changes["select"] = _split(select)
    if ignore:
        changes["ignore"] = config.ignore + _split(ignore)
    if shellcheck is not None:
        changes["shellcheck"] = shellcheck
    return replace(config, **changes) if changes else config


def _split(text: str) -> tuple[str, ...]:
    return tuple(c.strip().upper() for c in text.split(",") if c.strip())


_COMPILE_CODE = re.compile(r"[EPXSW][0-9]{0,3}")
"""Compile diagnostic codes and their prefixes (docs/diagnostics.md), which `ignore` may name too."""


def check_codes(codes: tuple[str, ...], where: str, source: str | None) -> None:
    """Raise ConfigError for a code that names no rule (`L999`, `L30I`), with the closest known codes."""
    from lobsterlang.lint.registry import all_rules
    from lobsterlang.suggest import closest

    known = sorted(all_rules())
    for code in codes:
        if code == "ALL" or _COMPILE_CODE.fullmatch(code) or any(k.startswith(code) for k in known):
            continue
        close = closest(code, known)
        hint = f"; did you mean {close}?" if close else f" (rule codes: {known[0]}…{known[-1]}, or prefixes such as L3)"
        prefix = f"{source}: lint." if source else ""
        raise ConfigError(f"{prefix}{where}: unknown rule code {code!r}{hint}")
