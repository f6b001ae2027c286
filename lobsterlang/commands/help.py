"""Help text of a standard command, derived from its declared spec (used by `lobster help CMD` and docs)."""

from __future__ import annotations

from lobsterlang.commands.specs import CommandSpec, FlagSpec, PositionalSpec

BARE_FLAG_NOTE = "Note: a bare flag takes the next word as its value; write --flag=true or put it before another --flag."


def flag_usage(flag: FlagSpec) -> str:
    """`--json`, `--n NUMBER`, `--stdin raw|json|jsonl`."""
    if flag.kind == "bool":
        return f"--{flag.name}"
    if flag.kind == "enum":
        return f"--{flag.name} {'|'.join(flag.choices)}"
    return f"--{flag.name} {flag.kind.upper() if flag.kind != 'string' else 'TEXT'}"


def positional_usage(positional: PositionalSpec) -> str:
    word = positional.name.upper() + ("..." if positional.variadic else "")
    return word if positional.required else f"[{word}]"


def usage_line(spec: CommandSpec) -> str:
    parts = [spec.name, *(f"[{flag_usage(f)}]" if not f.required else flag_usage(f) for f in spec.flags)]
    parts += [positional_usage(p) for p in spec.positionals]
    return " ".join(parts)


def _flag_lines(spec: CommandSpec) -> list[str]:
    rows = []
    for flag in spec.flags:
        notes = [flag.help]
        if flag.default is not None:
            notes.append(f"default {flag.default}")
        if flag.aliases:
            notes.append("also " + ", ".join(f"--{a}" for a in flag.aliases))
        if flag.required:
            notes.append("required")
        rows.append((flag_usage(flag), "; ".join(notes)))
    rows += [(positional_usage(p), p.help) for p in spec.positionals]
    width = max((len(left) for left, _ in rows), default=0)
    return [f"  {left.ljust(width)}  {right}" for left, right in rows]


def help_text(spec: CommandSpec) -> str:
    """`<name> — <summary>`, usage, arguments, side effects and examples."""
    lines = [f"{spec.name} — {spec.summary}", "", "Usage:", f"  {usage_line(spec)}"]
    arguments = _flag_lines(spec)
    if arguments:
        lines += ["", "Arguments:", *arguments]
    if spec.requires_one_of:
        lines += ["", "Requires one of: " + ", ".join(spec.requires_one_of)]
    lines += ["", "Side effects: " + (", ".join(spec.side_effects) or "none")]
    if spec.examples:
        lines += ["", "Examples:", *(f"  {e}" for e in spec.examples)]
    if spec.positionals and any(f.kind == "bool" for f in spec.flags):
        lines += ["", BARE_FLAG_NOTE]
    return "\n".join(lines) + "\n"
