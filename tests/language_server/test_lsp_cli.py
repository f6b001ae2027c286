"""`lobster lsp`: starts the server; the other commands never import pygls; a missing extra is a clear error."""

from __future__ import annotations

import subprocess
import sys

from helpers import EXAMPLES, ROOT

HELLO = str(EXAMPLES / "hello.lobster")


def python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)


def test_other_commands_never_import_the_language_server() -> None:
    code = (
        "import sys, contextlib, io\n"
        "from lobsterlang.cli import main\n"
        f"for args in (['lint', {HELLO!r}], ['fmt', '--check', {HELLO!r}], ['compile', {HELLO!r}], ['graph', {HELLO!r}],"
        " ['--help'], ['help', 'lsp']):\n"
        "    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):\n"
        "        main(args)\n"
        "print(sorted(m for m in ('pygls', 'lsprotocol', 'lobsterlang_lsp', 'cattrs') if m in sys.modules))\n"
    )
    proc = python(code)
    assert proc.stdout.splitlines()[-1] == "[]", proc.stderr


def test_missing_extra_is_a_clear_error() -> None:
    proc = python("import sys; sys.modules['pygls'] = None\nfrom lobsterlang.cli import main\nraise SystemExit(main(['lsp']))")
    assert proc.returncode == 2
    assert f"-m pip install -e '{ROOT}[lsp]'" in proc.stderr and "Traceback" not in proc.stderr  # works from here


def test_help_lists_the_command() -> None:
    proc = subprocess.run([sys.executable, "-m", "lobsterlang", "lsp", "--help"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and "language server" in proc.stdout
