"""A "safe" fix changes nothing that runs: each safe L301 fix's shell word, before and after, under dash and bash, over
adversarial values (issue 31 item 14). The values left out for a quoting context are the injections the fix exists to
stop (`$(…)` inside `"…"`, `'` inside `'…'`); an arg's own default is never left out."""

from __future__ import annotations

import atexit
import shutil
import subprocess
import tempfile
from functools import cache
from pathlib import Path

import pytest

from lobsterlang import ir
from lobsterlang.compile import compile_workflow
from lobsterlang.diagnostics import Diagnostic
from lobsterlang.lint import Config, Source, lint_source
from lobsterlang.syntax.shellparse import Context, parse

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = Config(shellcheck=False, target="reference")
SHELLS = [shell for shell in ("dash", "bash") if shutil.which(shell)]
VALUES = [
    "", "plain", "two words", "  lead and trail  ", "tab\there", "new\nline", "*", "?", "[ab]", "~", "~root", "-n", "-e",
    "--", "a;b", "a|b", "a&b", "<x>", "#hash", "!bang", "{a,b}", "%s %d", "ünïcødé", "a'b", 'a"b', "back\\slash", "$HOME",
    "$(echo pwned)", "`echo pwned`", "${IFS}", "EOF",
]
INJECTIONS: dict[str, str] = {"double": '$`\\"', "heredoc": "$`\\", "single": "'"}

SAMPLE = """\
args:
  name:
    default: World
  home:
    default: "${HOME}/data"
  stamp:
    default: "$(date +%Y)"
  quote:
    default: "it's"
  n:
    default: 3
steps:
  - id: words
    run: |
      printf '%s\\n' "hello ${name}!" "${n}x" "${home}"
      printf '%s\\n' 'single ${name} quoted' 'q ${quote}'
      echo "${stamp}" >/dev/null
      cat <<EOF
      heredoc ${name} and ${home}
      EOF
"""


def _word(text: str, offset: int) -> tuple[int, int]:
    """The start and end of the shell word (or unquoted heredoc body) that holds `offset`."""
    script = parse(text)
    heredoc = script.heredoc_at(offset)
    if heredoc is not None:
        return heredoc.body_start, heredoc.body_end
    node = script._tree.root_node.descendant_for_byte_range(offset, offset + 1)  # ASCII samples: bytes are characters
    while node is not None and node.parent is not None and node.parent.type in ("string", "concatenation", "raw_string", "expansion"):
        node = node.parent
    assert node is not None
    return node.start_byte, node.end_byte


class Case:
    """One fix: the word before and after, where it stands, the arg and its default."""

    def __init__(self, template: ir.Template, diag: Diagnostic, defaults: dict[str, str]) -> None:
        assert diag.fix is not None
        text = template.text
        ref = next(p for at, p in _offsets(template) if type(p) is ir.ArgRef and p.span == diag.span)
        start = next(at for at, p in _offsets(template) if p is ref)
        self.state: Context = parse(text).context(start)
        word_start, word_end = _word(text, start)
        self.name = ref.name
        self.default = defaults.get(ref.name, "")
        self.before = text[word_start:word_end]
        [edit] = diag.fix.edits
        self.after = text[word_start:start] + edit.new_text + text[start + len(ref.name) + 3 : word_end]
        self.heredoc = self.state == "heredoc"
        self.var = "LOBSTER_ARG_" + ref.name.upper()

    def script(self, value: str, fixed: bool) -> str:
        word = self.after if fixed else self.before.replace("${" + self.name + "}", value)
        setup = f"{self.var}={_single(value)}; export {self.var}\n" if fixed else ""
        if self.heredoc:
            return setup + f"cat <<EOF_OF_TEST\n{word}\nEOF_OF_TEST\n"
        return setup + f"printf '[%s]\\n' {word}\n"

    def values(self) -> list[str]:
        left_out = INJECTIONS.get(self.state, "")
        return sorted({v for v in VALUES if not set(v) & set(left_out)} | {self.default})


def _offsets(template: ir.Template) -> list[tuple[int, ir.TemplatePart]]:
    from lobsterlang.lint.textmap import part_offsets

    return part_offsets(template)


def _single(value: str) -> str:
    return "'" + value.replace("'", "'\\''") + "'"


def cases(text: str) -> tuple[list[Case], list[Case]]:
    """The safe and the unsafe L301 fixes of a workflow (plain or block YAML style: the edit is the shell text)."""
    compiled = compile_workflow(text, "f.lobster")
    assert compiled.ir is not None
    defaults = {a.name: str(a.default) for a in compiled.ir.args or () if a.has_default}
    result = lint_source(Source("f.lobster", text), REFERENCE)
    runs = [s.action.command for s in compiled.ir.steps if isinstance(s.action, ir.ShellRun)]
    safe: list[Case] = []
    unsafe: list[Case] = []
    for diag in result.diagnostics:
        if diag.code != "L301" or diag.fix is None:
            continue
        template = next(t for t in runs if t.span.start <= diag.span.start < t.span.end)
        (safe if diag.fix.is_safe else unsafe).append(Case(template, diag, defaults))
    return safe, unsafe


@cache
def _fixed_clock() -> str:
    """A folder whose `date` prints one instant: a word such as `$(date -u +%H:%M:%S)` (in the corpus) gives the same
    text before and after the fix however far apart the two runs are (two seconds on a busy machine)."""
    folder = Path(tempfile.mkdtemp(prefix="fix-safety-clock-"))
    atexit.register(shutil.rmtree, folder, True)
    (folder / "date").write_text("#!/bin/sh\necho 2026-01-02T03:04:05Z\n")
    (folder / "date").chmod(0o755)
    return str(folder)


def _run(shell: str, script: str) -> tuple[int, str]:
    path = f"{_fixed_clock()}:/usr/bin:/bin"
    proc = subprocess.run([shell, "-c", script], capture_output=True, text=True, env={"PATH": path, "HOME": "/home/test"})
    return proc.returncode, proc.stdout


def _all(case: Case, values: list[str], fixed: bool) -> str:
    """One script that runs the word for each value in a subshell and prints its status after it."""
    return "".join(f"(\n{case.script(value, fixed)}); echo \"== $?\"\n" for value in values)


def _differences(case: Case, values: list[str]) -> list[tuple[str, str]]:
    """The (shell, value) pairs for which the two versions print something else or end otherwise."""
    found = []
    for shell in SHELLS:
        if _run(shell, _all(case, values, False)) == _run(shell, _all(case, values, True)):
            continue
        found += [(shell, v) for v in values if _run(shell, case.script(v, False)) != _run(shell, case.script(v, True))]
    return found


@pytest.mark.skipif(not SHELLS, reason="needs dash or bash")
def test_safe_fixes_run_the_same_for_every_value_the_file_allows() -> None:
    safe, _ = cases(SAMPLE)
    assert {(c.name, c.state) for c in safe} == {("name", "double"), ("n", "double"), ("name", "single"), ("name", "heredoc")}
    for case in safe:
        assert _differences(case, case.values()) == [], f"{case.before!r} → {case.after!r}"


@pytest.mark.skipif(not SHELLS, reason="needs dash or bash")
def test_a_default_the_raw_text_expands_makes_the_fix_unsafe() -> None:
    """`"${home}"` with the default `${HOME}/data`: the raw text expands $HOME, the variable does not."""
    _, unsafe = cases(SAMPLE)
    by_name = {(c.name, c.state) for c in unsafe}
    assert {("home", "double"), ("quote", "single"), ("home", "heredoc"), ("stamp", "double")} <= by_name
    for case in unsafe:
        if case.state != "code":
            assert _differences(case, [case.default]), f"{case.before!r} with {case.default!r} should run differently"


@pytest.mark.skipif(not SHELLS, reason="needs dash or bash")
def test_every_safe_fix_of_the_corpus_runs_the_same() -> None:
    """The labelled corpus, written for the reference: its safe fixes (one of each distinct word)."""
    seen: set[tuple[str, str]] = set()
    checked = 0
    for path in sorted((ROOT / "tests" / "lint" / "corpus_real").glob("*.lobster")):
        safe, _ = cases(path.read_text(encoding="utf-8"))
        for case in safe:
            if (case.before, case.after) in seen:
                continue
            seen.add((case.before, case.after))
            checked += 1
            assert _differences(case, case.values()) == [], f"{path.name}: {case.before!r} → {case.after!r}"
    assert checked >= 5
