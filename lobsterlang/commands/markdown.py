"""docs/commands.md, generated from the declared command specs and their help text."""

from __future__ import annotations

from lobsterlang.commands.help import flag_usage, positional_usage, usage_line
from lobsterlang.commands.specs import COMMANDS, CommandSpec, FlagSpec

HEADER = """\
# Pipeline commands

Generated from `lobsterlang/commands/specs.py` by `python tools/gen_commands_md.py`; do not edit by hand
(a test checks that this page is current). `lobster help COMMAND` prints the same information.

A pipeline is commands joined by `|`: `exec --json --shell 'inbox list --json' | where 'unread=true' | approve`.
Flag values are always text; `--flag value`, `--flag=value` and a bare `--flag` (true) are accepted, and a
bare flag followed by a word takes that word as its value (write `--json=true` or put it before another flag).
"""


def _flag_row(flag: FlagSpec) -> str:
    notes = [flag.help]
    if flag.aliases:
        notes.append("aliases: " + ", ".join(f"`--{a}`" for a in flag.aliases))
    default = f"`{flag.default}`" if flag.default is not None else ""
    return f"| `{flag_usage(flag).replace('|', chr(92) + '|')}` | {flag.kind}{' (required)' if flag.required else ''} | {default} | {'; '.join(notes)} |"


def command_section(spec: CommandSpec) -> str:
    lines = [f"## `{spec.name}`", "", spec.summary[0].upper() + spec.summary[1:] + ".", "", "```", usage_line(spec), "```", ""]
    if spec.flags:
        lines += ["| flag | kind | default | meaning |", "|---|---|---|---|", *(_flag_row(f) for f in spec.flags), ""]
    for positional in spec.positionals:
        lines.append(f"- `{positional_usage(positional)}`: {positional.help}")
    if spec.positionals:
        lines.append("")
    if spec.requires_one_of:
        lines += ["Requires one of: " + ", ".join(f"`{name}`" for name in spec.requires_one_of) + ".", ""]
    lines += ["Side effects: " + (", ".join(f"`{e}`" for e in spec.side_effects) or "none") + ".", ""]
    lines += ["Example:", "", "```", *spec.examples, "```", ""]
    return "\n".join(lines)


def commands_markdown() -> str:
    """The whole page, one section per command in spec order."""
    index = ", ".join(f"[`{s.name}`](#{s.name.replace('.', '').lower()})" for s in COMMANDS)
    sections = [command_section(spec) for spec in COMMANDS]
    return HEADER + "\n" + index + "\n\n" + "\n".join(sections)
