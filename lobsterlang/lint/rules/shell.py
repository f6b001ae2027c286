"""L30x: shell text that lets data become code: raw args, spliced step output, curl|sh, eval, sh -c."""

from __future__ import annotations

import re
from collections.abc import Iterator

from lobsterlang import ir
from lobsterlang.diagnostics import Diagnostic, Fix, Severity
from lobsterlang.lint.context import LintContext
from lobsterlang.lint.registry import rule
from lobsterlang.lint.rules.references import env_arg_name
from lobsterlang.lint.shelltext import variable_for
from lobsterlang.lint.textmap import part_offsets
from lobsterlang.lint.walk import Unit
from lobsterlang.record import replace
from lobsterlang.span import Span
from lobsterlang.syntax.shellparse import Command, Context, Script, Word, parse
from lobsterlang.syntax.shellvalues import value_uses

SAFE_FIELDS = frozenset({"approved", "skipped", "error", "id"})
_TEXT_FIELDS = frozenset({"stdout", "json", "errorMessage", "response", "subject"})
"""Fields that hold text or data a step produced (another field renders empty: L108)."""
SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "ash"})
_DOWNLOADER = re.compile(r"(?<![\w.-])(?:curl|wget)(?![\w.-])")
_EVAL_HINT = re.compile(r"(?<![\w.-])eval(?![\w.-])")
_SH_C_HINT = re.compile(r"(?<![\w.-])(?:ba|z|da|k|a)?sh\s+-\w*c")
"""A shell name followed by a `-…c` flag: true of every text where L305 finds something."""


def exec_stages(ctx: LintContext) -> list[ir.Stage]:
    return ctx.stages_by_name.get("exec", [])


def shell_flag(stage: ir.Stage) -> ir.Word | None:
    word = None
    for arg in stage.args:
        if isinstance(arg, ir.Flag) and arg.name == "shell" and arg.value is not None:
            word = arg.value
    return word


_STYLES = {"|": "block", ">": "block", '"': "double", "'": "single"}


def _yaml_style(ctx: LintContext, run: ir.ShellRun, json_file: bool) -> str:
    """How the shell text of `run` is written in the file (`json_file`: the file is JSON)."""
    if json_file:
        return "double"
    return _STYLES.get(ctx.source_char(run.span.start), "plain")


_ESCAPING = frozenset({"double", "single"})
"""The styles in which `_escape` changes text."""


def _escape(text: str, style: str) -> str:
    if style == "double":
        return text.replace("\\", "\\\\").replace('"', '\\"')
    if style == "single":
        return text.replace("'", "''")
    return text


class _ArgNote:
    """What L301 says about one arg name, worked out once per file (a file uses a few args many times)."""

    __slots__ = ("default", "env", "fix_message", "hint", "message", "written")

    def __init__(self, name: str, default: str) -> None:
        env = env_arg_name(name)
        self.default = default
        """The text of the arg's default (empty without one)."""
        self.written = "${" + name + "}"
        self.env = "LOBSTER_ARG_" + env if env else None  # what the fix reads instead (None: no fix)
        self.message = f"`{self.written}` is pasted into the shell text raw by the reference: a value with quotes, `;` or `$(…)` runs as code"
        self.hint = f'use the environment variable instead: "$LOBSTER_ARG_{env or "<NAME>"}"'
        self.fix_message = f"pass {name} through $LOBSTER_ARG_{env}"


_DIFFERS_IN = {"double": frozenset('$`\\"'), "heredoc": frozenset("$`\\"), "single": frozenset("'")}
"""Where the quoted variable stands, the characters of a value that the raw text would treat otherwise: inside
`"…"` and an unquoted heredoc the shell expands `$`, backquotes and backslashes in pasted text (and `"` ends the
string); inside `'…'` a `'` ends it."""


def _arg_fix(ctx: LintContext, note: _ArgNote, style: str, text: str, start: int, ref: ir.ArgRef, state: Context) -> Fix | None:
    """The fix that reads `note.env` instead of the `${arg}` at offset `start` of shell text `text`.

    A fix is safe only when no value the file allows runs differently after it: unquoted, the quoted variable is
    one word where raw text was split into words (and could be a command name or several arguments); quoted, a
    default holding what the raw text would expand there (`${HOME}/x`, `$(date)` in `"…"`) would no longer be
    expanded. Those fixes are unsafe. For other values only an injection changes, which is the point of the fix.
    """
    assert note.env is not None
    end = start + len(note.written)
    replacement = variable_for(state, note.env, text[end : end + 1])
    if style == "plain" and start == 0 and replacement[0] in "\"'":
        return None
    written = note.written
    if style in _ESCAPING:
        written, replacement = _escape(written, style), _escape(replacement, style)
    fix = ctx.replace(ref.span, written, replacement, note.fix_message)
    if fix is not None and (state == "code" or not _DIFFERS_IN.get(state, frozenset()).isdisjoint(note.default)):
        fix = replace(fix, applicability="unsafe")
    return fix


def _default_text(arg: ir.ArgDecl | None) -> str:
    """The text an arg's default is pasted as (a list or object: JSON, whose quotes count)."""
    if arg is None or not arg.has_default or arg.default is None:
        return ""
    default = arg.default
    if isinstance(default, bool):
        return "true" if default else "false"
    if isinstance(default, str | int | float):
        return str(default)
    return '"'  # an array or object: its text has quotes


_NOT_FIXABLE = frozenset({"comment", "quoted-heredoc"})
"""Where no variable expands, so reading the environment variable instead would print its name."""


@rule("L301", "raw-arg-in-shell", Severity.ERROR, "`${arg}` spliced into `run:`/`command:` shell text (target `reference`)", fixable=True, per_step=True)
def raw_arg_in_shell(ctx: LintContext) -> Iterator[Diagnostic]:
    """Only for files written for the reference: lobsterlang passes args to shells as data."""
    if ctx.target != "reference":
        return
    notes: dict[str, _ArgNote] = {}
    args = {arg.name: arg for arg in (ctx.workflow.args if ctx.workflow else None) or ()}
    json_file = ctx.path.lower().endswith(".json")
    for _, run in ctx.shell_runs:
        refs = [(start, part) for start, part in ctx.offsets(run.command) if type(part) is ir.ArgRef and part.name in ctx.arg_names]
        if not refs:
            continue
        style = _yaml_style(ctx, run, json_file)
        text = run.command.text
        script = parse(text)
        for start, ref in refs:
            note = notes.get(ref.name)
            if note is None:
                note = notes[ref.name] = _ArgNote(ref.name, _default_text(args.get(ref.name)))
            state = script.context(start)
            if state == "quoted-heredoc" and _runs_as_program(script, start, ref):
                continue  # L313 reports it: the shell pastes the value, another program runs it
            fixable = note.env is not None and state not in _NOT_FIXABLE
            fix = _arg_fix(ctx, note, style, text, start, ref, state) if fixable else None
            yield ctx.diag("L301", ref.span, note.message, note.hint, fix)


def _runs_as_program(script: Script, start: int, ref: ir.ArgRef) -> bool:
    [use] = value_uses(script, [(start, start + len(ref.name) + 3)])
    return use is not None and use.kind == "program"


@rule("L302", "step-output-in-shell", Severity.WARNING, "a step's output spliced into shell text")
def step_output_in_shell(ctx: LintContext) -> Iterator[Diagnostic]:
    for unit, run in ctx.shell_runs:
        heredocs = "<<" in run.command.text  # once per script: a long line with many references stays linear
        for start, part in ctx.offsets(run.command):
            if (type(part) is ir.StepRef and part.path[0] not in SAFE_FIELDS and part.path[0] in _TEXT_FIELDS
                    and _resolves(ctx, unit, part) and not (heredocs and _inert(run, start, start + len(part.text)))):
                yield ctx.diag(
                    "L302", part.span,
                    f"`{part.text}` is pasted into the shell text raw: output containing quotes or `$(…)` runs as code",
                    f"pass it as data: `stdin: {part.text}`, or `env: {{VALUE: {part.text}}}` and use \"$VALUE\"",
                )


def _inert(run: ir.ShellRun, start: int, end: int) -> bool:
    """Whether `start`..`end` is in a quoted heredoc (`<<'EOF'`) read as data: nothing there expands or runs
    (`shellvalues` decides which readers run their stdin as code)."""
    script = parse(run.command.text)
    heredoc = script.heredoc_at(start)
    return heredoc is not None and heredoc.quoted and value_uses(script, [(start, end)]) == [None]


def _resolves(ctx: LintContext, unit: Unit, ref: ir.StepRef) -> bool:
    if unit.loop is not None and ref.step in (unit.loop.item_var or "item", unit.loop.index_var or "index"):
        return True
    return ref.step in ctx.by_id


ShellText = tuple[str, ir.Template | None, ir.Word | None]


def shell_texts(ctx: LintContext) -> tuple[ShellText, ...]:
    """Shell text to scan: each `run:` template, and each `exec --shell` word."""
    found: list[ShellText] = [(run.command.text, run.command, None) for _, run in ctx.shell_runs]
    for stage in exec_stages(ctx):
        word = shell_flag(stage)
        if word is not None:
            found.append((word.value, None, word))
    return tuple(found)


def _all_shell_text(ctx: LintContext) -> str:
    return "\n".join(text for text, _, _ in ctx.shared(shell_texts))


Found = tuple[int, int, ir.Template | None, ir.Word | None]
"""A finding in shell text: its offsets, and the template or `exec --shell` word it sits in."""


def _scripts(ctx: LintContext, hint: re.Pattern[str]) -> Iterator[tuple[Script, ir.Template | None, ir.Word | None]]:
    """The parse of each shell text where `hint` matches (a quick test true wherever the rule finds something)."""
    if hint.search(ctx.shared(_all_shell_text)) is None:
        return
    for text, template, word in ctx.shared(shell_texts):
        if hint.search(text) is not None:
            yield parse(text), template, word


def _span(ctx: LintContext, start: int, end: int, template: ir.Template | None, word: ir.Word | None) -> Span:
    if template is not None:
        return ctx.textmap.span(template, start, end)
    assert word is not None
    return word.span


def _downloads(text: str) -> bool:
    return _DOWNLOADER.search(text) is not None


def _piped_downloads(script: Script) -> Iterator[tuple[int, int]]:
    """`curl … | sh` (a download earlier in the pipeline than a shell) and `sh <(curl …)`."""
    for pipeline in script.pipelines:
        first = next((c for c in pipeline if _downloads(script.text[c.start : c.end])), None)
        if first is None:
            continue
        shell = next((c for c in pipeline if c.start > first.start and _runs_shell(c)), None)
        if shell is not None:
            yield first.start, shell.name_end if shell.program in SHELLS else shell.end
    for command in script.commands:
        if command.program in SHELLS and any(w.value.startswith("<(") and _downloads(w.value) for w in command.args):
            yield command.start, command.end


def _runs_shell(command: Command) -> bool:
    """A shell reading its script from stdin (`sh`, `sudo bash -s`)."""
    if command.program == "sudo":
        return any(w.value.rsplit("/", 1)[-1] in SHELLS for w in command.args[:2])
    return command.program in SHELLS and "-c" not in (w.value for w in command.args)


@rule("L303", "pipe-to-shell", Severity.ERROR, "downloaded code piped into a shell (`curl … | sh`)", per_step=True)
def pipe_to_shell(ctx: LintContext) -> Iterator[Diagnostic]:
    for script, template, word in _scripts(ctx, _DOWNLOADER):
        for start, end in _piped_downloads(script):
            yield ctx.diag("L303", _span(ctx, start, end, template, word), "downloaded code is run by a shell without any check",
                           "download to a file, verify its checksum or signature, then run it")


@rule("L304", "eval", Severity.WARNING, "`eval` in shell text", per_step=True)
def shell_eval(ctx: LintContext) -> Iterator[Diagnostic]:
    for script, template, word in _scripts(ctx, _EVAL_HINT):
        for command in script.commands:
            if command.name == "eval":
                yield ctx.diag("L304", _span(ctx, command.start, command.name_end, template, word), "`eval` runs its arguments as shell code",
                               "run the command directly; pass data in quoted variables")


def _shell_c_word(command: Command) -> tuple[int, Word] | None:
    """Where `sh -c WORD` starts (also behind `ssh host`, `sudo`, `env`…) and its command word."""
    words = [Word(command.name, command.start, command.name_end, "word"), *command.args]
    for index, word in enumerate(words[:-2]):
        flag = words[index + 1].value
        if word.value.rsplit("/", 1)[-1] in SHELLS and flag.startswith("-") and flag.endswith("c") and flag[1:].isalpha():
            return word.start, words[index + 2]
    return None


def _substituted(part: ir.TemplatePart, args: frozenset[str]) -> bool:
    return isinstance(part, ir.StepRef) or (isinstance(part, ir.ArgRef) and part.name in args)


_QUOTED_HEREDOC_CAT = re.compile(r"\$\(\s*cat\s*<<-?\s*(['\"])[A-Za-z_][A-Za-z0-9_]*\1[^)]*\)")
"""`$(cat <<'E' … E)` once its quoted body is taken out: constant text."""


def _interpolated(script: Script, template: ir.Template | None, word: Word, args: frozenset[str]) -> bool:
    """Whether an `sh -c` command word is built from expansions or Lobster references (a step's, or a declared
    arg's; a quoted heredoc's body, read by `cat`, is constant text)."""
    if template is not None and any(_substituted(p, args) and word.start <= at < word.end for at, p in part_offsets(template)):
        return True
    if word.node_type == "raw_string" or "$" not in word.value:
        return False
    raw = script.text[word.start : word.end]
    for heredoc in script.heredocs:
        if heredoc.quoted and word.start <= heredoc.body_start and heredoc.body_end <= word.end:
            raw = raw[: heredoc.body_start - word.start] + " " * (heredoc.body_end - heredoc.body_start) + raw[heredoc.body_end - word.start :]
    return "$" in _QUOTED_HEREDOC_CAT.sub("", raw)


@rule("L305", "sh-c-interpolation", Severity.WARNING, "`sh -c` with a command string built by interpolation", per_step=True)
def sh_c_interpolation(ctx: LintContext) -> Iterator[Diagnostic]:
    for script, template, word in _scripts(ctx, _SH_C_HINT):
        for command in script.commands:
            found = _shell_c_word(command)
            if found is not None and _interpolated(script, template, found[1], ctx.arg_names):
                yield ctx.diag(
                    "L305", _span(ctx, found[0], found[1].end, template, word),
                    "`sh -c` re-parses a command string that was built by interpolation: interpolated values run as code",
                    "pass values as positional parameters: sh -c 'cmd \"$1\"' sh \"$VALUE\"",
                )


@rule("L306", "exec-shell-from-data", Severity.ERROR, "`exec --shell` text built from an argument or step output", per_step=True)
def exec_shell_from_data(ctx: LintContext) -> Iterator[Diagnostic]:
    for _, _, word in ctx.shared(shell_texts):
        ref = _first_ref(word.template) if word is not None and word.template is not None else None
        if ref is None:
            continue
        shown = "${" + ref.name + "}" if isinstance(ref, ir.ArgRef) else ref.text
        yield ctx.diag(
            "L306", ref.span, f"`exec --shell` command text contains `{shown}`: the value becomes shell code",
            "run the program without a shell (`exec prog arg…`), or read the value from an environment variable",
        )



def _first_ref(template: ir.Template) -> ir.ArgRef | ir.StepRef | None:
    for part in template.parts:
        if type(part) is ir.ArgRef or type(part) is ir.StepRef:
            return part
    return None
