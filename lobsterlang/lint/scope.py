"""Which step records exist when a unit runs: run order, loop scopes and loop variables."""

from __future__ import annotations

from lobsterlang import ir
from lobsterlang.lint.walk import Unit


def loop_vars(loop: ir.ForEach) -> tuple[str, str]:
    return loop.item_var or "item", loop.index_var or "index"


def visible(unit: Unit, target: Unit) -> bool:
    """Whether `target`'s record exists when `unit` runs."""
    if target.kind == "substep":
        return unit.loop is not None and target.loop is unit.loop and target.position < unit.position and unit.kind == "substep"
    return target.index < unit.index


def is_shell_like_name(name: str) -> bool:
    """`$HOME.txt`, `$1.bak`: shell variables, not step references, when no such step exists."""
    return name.upper() == name
