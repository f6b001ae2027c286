"""docs/commands.md (the index) and docs/commands/NAME.md (one page per command), generated from the command specs."""

from __future__ import annotations

from lobsterlang.commands.examples import EXAMPLE_RUNS
from lobsterlang.commands.help import flag_usage, positional_usage, usage_line
from lobsterlang.commands.specs import COMMANDS, CommandSpec, FlagSpec

HEADER = """\
# Pipeline commands

Generated from `lobsterlang/commands/specs.py` by `python tools/gen_commands_md.py`; do not edit by hand
(a test checks that these pages are current). Each command has its own page; `lobster help COMMAND` prints
the same information.

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


def command_page(spec: CommandSpec) -> str:
    """docs/commands/NAME.md: the command's summary, usage, flags, side effects, an example and an example run (whose
    output tools/gen_commands_md.py fills in)."""
    lines = [f"# `{spec.name}`", "", spec.summary[0].upper() + spec.summary[1:] + ".", "", "```", usage_line(spec), "```", ""]
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
    lines += _example_run(spec.name)
    lines += ["Generated from `lobsterlang/commands/specs.py`; all commands: [Pipeline commands](../commands.md).", ""]
    return "\n".join(lines)


def _example_run(name: str) -> list[str]:
    """A console block of the command's example run; its output is filled in by tools/doc_examples.py."""
    runs = EXAMPLE_RUNS[name]
    if any(" run --dry-run " in f" {run} " for run in runs):
        intro = "What it would do, shown by a dry run (nothing is called):"
    else:
        intro = "Run on the sample emails of `examples/data/inbox.json`, in a clone:"
    return [intro, "", "```console", *(f"$ {run}" for run in runs), "```", ""]


def commands_markdown() -> str:
    """docs/commands.md: the header and a table of every command (spec order) linking to its page."""
    rows = [f"| [`{s.name}`](commands/{s.name}.md) | {s.summary} | {', '.join(f'`{e}`' for e in s.side_effects) or 'none'} |" for s in COMMANDS]
    return HEADER + "\n| command | what it does | side effects |\n|---|---|---|\n" + "\n".join(rows) + "\n"


def command_pages() -> dict[str, str]:
    """File name under docs/commands/ → page text, for every command."""
    return {f"{spec.name}.md": command_page(spec) for spec in COMMANDS}
