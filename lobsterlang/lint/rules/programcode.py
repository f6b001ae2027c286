"""L313: `${arg}` in a here-document or here-string that another program (`python3`, `bash`, `psql`…) runs as its code."""

from __future__ import annotations

from collections.abc import Iterator

from lobsterlang import ir
from lobsterlang.diagnostics import Diagnostic, Severity
from lobsterlang.lint.context import LintContext
from lobsterlang.lint.registry import rule
from lobsterlang.lint.rules.references import env_arg_name
from lobsterlang.lint.rules.shell import shell_texts
from lobsterlang.syntax.shellparse import parse
from lobsterlang.syntax.shellvalues import value_uses


@rule("L313", "arg-in-program-code", Severity.ERROR,
      "`${arg}` in a here-document or here-string that another program runs as code (`python3 <<'EOF'`)", per_step=True)
def arg_in_program_code(ctx: LintContext) -> Iterator[Diagnostic]:
    """For every target: the reference pastes the value into the program, lobsterlang refuses to run it."""
    for text, template, word in ctx.shared(shell_texts):
        source = template if template is not None else word.template if word is not None else None
        if source is None or "<<" not in text:
            continue
        refs = [(start, part) for start, part in ctx.offsets(source) if type(part) is ir.ArgRef and part.name in ctx.arg_names]
        if not refs:
            continue
        uses = value_uses(parse(source.text), [(start, start + len(ref.name) + 3) for start, ref in refs])
        for (_, ref), use in zip(refs, uses, strict=True):
            if use is not None and use.kind == "program":
                yield ctx.diag("L313", ref.span, _message(ref.name, use.construct), _hint(ref.name))


def _message(name: str, construct: str) -> str:
    return (f"`${{{name}}}` is in {construct}: its value becomes code there (the reference runs it; "
            "lobsterlang refuses a value that is not an integer)")


def _hint(name: str) -> str:
    var = "LOBSTER_ARG_" + (env_arg_name(name) or "<NAME>")
    return f'read the value from the environment inside the program: os.environ["{var}"] in Python, process.env.{var} in Node, "${var}" in a shell'
