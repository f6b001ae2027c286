"""Regenerate docs/cli-reference.md (from the CLI's own --help) and docs/ir-schema.md (from docs/ir.schema.json)."""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lobsterlang.cli import SUBCOMMANDS, main  # noqa: E402

CLI_PAGE = ROOT / "docs" / "cli-reference.md"
SCHEMA_PAGE = ROOT / "docs" / "ir-schema.md"
HELP_WIDTH = "80"


@contextlib.contextmanager
def _fixed_width() -> Iterator[None]:
    """click wraps help to the terminal: fix the width so the page does not depend on who generates it."""
    saved = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = HELP_WIDTH
    try:
        yield
    finally:
        if saved is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = saved


def help_output(args: list[str]) -> str:
    """What `lobster ARGS` prints on stdout, run in this process."""
    out = io.StringIO()
    with _fixed_width(), contextlib.redirect_stdout(out):
        code = main(args)
    if code != 0:
        raise RuntimeError(f"lobster {' '.join(args)} exited {code}")
    return out.getvalue()


def cli_reference() -> str:
    """`lobster --help`, then every subcommand's `--help`, each under its own heading."""
    parts = [
        "# CLI reference\n\n"
        "Generated from the CLI's own `--help` output by `python tools/gen_reference_docs.py`; do not edit by hand\n"
        "(a test checks that this page is current). The prose guide is [The `lobster` command](cli.md).\n\n"
        f"## `lobster`\n\n```text\n{help_output(['--help']).rstrip()}\n```\n"
    ]
    for name in sorted(SUBCOMMANDS - {"help", "version"}):
        parts.append(f"\n## `lobster {name}`\n\n```text\n{help_output([name, '--help']).rstrip()}\n```\n")
    return "".join(parts)


def _type_text(schema: dict[str, Any]) -> str:
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        return f"[`{name}`](#{name.lower()})"
    if "anyOf" in schema or "oneOf" in schema:
        return " or ".join(_type_text(s) for s in schema.get("anyOf", schema.get("oneOf", [])))
    if "const" in schema:
        return f"`{json.dumps(schema['const'])}`"
    if "enum" in schema:
        return " \\| ".join(f"`{json.dumps(v)}`" for v in schema["enum"])
    kind = schema.get("type", "any")
    if kind == "array" and "items" in schema and "minItems" not in schema:
        return f"array of {_type_text(schema['items'])}"
    return f"`{kind}`" if isinstance(kind, str) else " or ".join(f"`{k}`" for k in kind)


def _merge_all_of(schema: dict[str, Any]) -> dict[str, Any]:
    """`allOf` parts folded into one schema: their properties and required fields, and their alternatives."""
    merged = {k: v for k, v in schema.items() if k != "allOf"}
    for part in schema.get("allOf", []):
        merged.setdefault("properties", {}).update(part.get("properties", {}))
        merged["required"] = [*merged.get("required", []), *part.get("required", [])]
        if "anyOf" in part:
            merged["anyOf"] = part["anyOf"]
    return merged


def _definition(name: str, schema: dict[str, Any]) -> str:
    schema = _merge_all_of(schema)
    lines = [f"## {name}", ""]
    if "description" in schema:
        lines += [schema["description"], ""]
    properties: dict[str, Any] = schema.get("properties", {})
    if properties:
        required = set(schema.get("required", []))
        lines += ["| field | type | required | description |", "|---|---|---|---|"]
        for field, sub in properties.items():
            description = str(sub.get("description", "")).replace("|", "\\|")
            lines.append(f"| `{field}` | {_type_text(sub)} | {'yes' if field in required else ''} | {description} |")
        lines.append("")
    if "anyOf" in schema or not properties:
        lines += [f"Type: {_type_text({k: v for k, v in schema.items() if k != 'properties'})}.", ""]
    return "\n".join(lines)


def ir_schema_page() -> str:
    """One section per definition of docs/ir.schema.json, fields in a table."""
    schema = json.loads((ROOT / "docs" / "ir.schema.json").read_text(encoding="utf-8"))
    head = (
        "# IR schema\n\n"
        "Generated from [`ir.schema.json`](ir.schema.json) by `python tools/gen_reference_docs.py`; do not edit by\n"
        "hand (a test checks that this page is current). The schema describes what `lobster compile` prints;\n"
        "[The IR](ir.md) explains it.\n\n"
    )
    top = _definition("Top level", {k: v for k, v in schema.items() if k != "definitions"})
    definitions = schema.get("definitions", schema.get("$defs", {}))
    return head + top + "\n" + "\n".join(_definition(n, d) for n, d in definitions.items())


def main_() -> None:
    CLI_PAGE.write_text(cli_reference(), encoding="utf-8")
    SCHEMA_PAGE.write_text(ir_schema_page(), encoding="utf-8")


if __name__ == "__main__":
    main_()
