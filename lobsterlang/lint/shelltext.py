"""The shell text a `run:` template becomes under a target runtime, for shellcheck to read.

shellcheck must see what the runtime would run, not lint's own placeholders: a declared `${arg}` becomes, for
lobsterlang, the quoted `LOBSTER_ARG_<NAME>` variable the runtime passes (quoted for where it stands, bare in
arithmetic), and for the reference a value of the arg's type (its default when that is one plain word); a
`${name}` that is not a declared arg is left as written (the shell reads it); a `$step.path` becomes a plain word.
`Rendered.back` maps offsets in the rendered text back to the template's text, and `Rendered.names` says how a
variable lint wrote in is written in the file, so that no message shows a name the author never wrote.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from lobsterlang import ir
from lobsterlang.record import Record
from lobsterlang.syntax.shellparse import Context, Script, parse

STEP_WORD = "stepvalue"
"""What a `$step.path` reference stands for: a plain word (the runtime pastes the step's output)."""
_PLAIN = re.compile(r"[A-Za-z0-9_./:@%+,=-]+")
"""A default that is one plain shell word, the same quoted or not."""
_WINDOWS_PATH = re.compile(r"(?<![A-Za-z0-9_$])[A-Za-z]:\\+[A-Za-z0-9_.%$-]")
"""A drive-letter path (`C:\\tools`): text written for Windows `cmd.exe`, which the reference runs there."""


class Rendered(Record):
    """A template's text as the runtime would give it to the shell, with the way back to the template's text."""

    text: str
    back: tuple[tuple[int, int, int, int], ...]
    """For each reference: where its stand-in starts and ends in `text`, and where the reference starts and ends
    in the template's text; in order."""
    names: tuple[tuple[str, str], ...]
    """Each variable lint wrote in, with how the file writes it (`LOBSTER_ARG_DIR` → `${dir}`)."""


def variable_for(state: Context, name: str, next_char: str = "") -> str:
    """A reference to environment variable `name`, quoted for where it stands.

    Inside double quotes `${NAME}` would read as a Lobster `${arg}`, so a following name
    character is kept apart with an empty `""`; in an unquoted heredoc body quotes are text,
    so there it is `${NAME}` (not an arg: the runtime leaves it to the shell).
    """
    joined = next_char.isalnum() or next_char == "_"
    if state == "heredoc":
        return "${" + name + "}" if joined else "$" + name
    if state == "double":
        return "$" + name + ('""' if joined else "")
    if state == "single":
        return "'\"$" + name + "\"'"
    return '"$' + name + '"'


def windows_text(text: str) -> str | None:
    """The first drive-letter path in `text` (a script written for Windows `cmd.exe`), or None."""
    found = _WINDOWS_PATH.search(text) if ":\\" in text else None
    return found.group(0) if found else None


def render(template: ir.Template, offsets: list[tuple[int, ir.TemplatePart]], args: Mapping[str, ir.ArgDecl],
           target: str, env_name: Mapping[str, str]) -> Rendered:
    """`template` (its `part_offsets`) as the `target` runtime runs it; `args` are the declared args by name and
    `env_name` their `LOBSTER_ARG_<NAME>` names."""
    script: Script | None = None
    out: list[str] = []
    back: list[tuple[int, int, int, int]] = []
    names: dict[str, str] = {}
    text = template.text
    at = 0
    for start, part in offsets:
        if isinstance(part, ir.Text):
            out.append(part.value)
            at += len(part.value)
            continue
        if isinstance(part, ir.StepRef):
            written, stand_in = part.text, STEP_WORD
        else:
            written = stand_in = "${" + part.name + "}"
            arg = args.get(part.name)
            if arg is not None:
                script = script or parse(text)
                after = text[start + len(written) : start + len(written) + 1]
                stand_in = _arg_stand_in(script, start, after, arg, target, env_name[part.name])
                if target == "lobsterlang":
                    names[env_name[part.name]] = written
        out.append(stand_in)
        back.append((at, at + len(stand_in), start, start + len(written)))
        at += len(stand_in)
    return Rendered("".join(out), tuple(back), tuple(names.items()))


def _arg_stand_in(script: Script, start: int, next_char: str, arg: ir.ArgDecl, target: str, env: str) -> str:
    state = script.context(start)
    if target != "lobsterlang" or state == "quoted-heredoc":
        return _value_of_type(arg)  # raw text (the reference), or the value itself (lobsterlang in a quoted heredoc)
    if state == "code" and script.in_arithmetic(start):
        return env
    return variable_for(state, env, next_char)


def _value_of_type(arg: ir.ArgDecl) -> str:
    """A value the arg may hold, as one plain word: its default when it is one, else one of its type."""
    default = arg.default if arg.has_default else None
    if isinstance(default, bool):
        return "true" if default else "false"
    if isinstance(default, int | float):
        return str(default)
    if isinstance(default, str) and _PLAIN.fullmatch(default):
        return default
    return "value"


def template_offset(rendered: Rendered, offset: int) -> int:
    """The offset in the template's text of `offset` in `rendered.text` (inside a stand-in: its reference's start)."""
    shift = 0
    for start, end, written_start, written_end in rendered.back:
        if offset < start:
            break
        if offset < end:
            return written_start
        shift = written_end - end
    return offset + shift


def written_names(rendered: Rendered, message: str) -> str:
    """`message` with each variable lint wrote in replaced by how the file writes it."""
    for name, written in rendered.names:
        if name in message:
            message = re.sub(r"\$?\{?" + name + r"\}?(?![A-Z0-9_])", written, message)
    return message
