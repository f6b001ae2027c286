"""Shared test helpers: case files and converting IR to the reference's shapes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from lobsterlang import ir

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "tests" / "cases"
EXAMPLES = ROOT / "examples"


def load_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def reference_stages(pipeline: ir.Pipeline) -> list[dict[str, Any]]:
    """The reference parser's `{name, args}` view of a pipeline (later flags win)."""
    out = []
    for stage in pipeline.stages:
        positionals = [a.value.value for a in stage.args if isinstance(a, ir.Positional)]
        flags = {a.name: True if a.value is None else a.value.value for a in stage.args if isinstance(a, ir.Flag)}
        out.append({"name": stage.name.value, "args": {"_": positionals, **flags}})
    return out


def example_files() -> list[Path]:
    """The example workflows (examples/data/ holds input data for the docs' examples, not workflows)."""
    return sorted(p for p in EXAMPLES.rglob("*") if p.suffix in (".lobster", ".yaml", ".yml", ".json")
                  and not p.is_relative_to(EXAMPLES / "data"))


def write_file(directory: Path, name: str, text: str) -> Path:
    """Write `text` to `directory/name` (creating folders) and return the path."""
    path = directory / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def alive(pid: int) -> bool:
    """True while the process exists and is not a zombie waiting to be reaped."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False
