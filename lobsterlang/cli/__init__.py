"""The `lobster` entry point: answers --version and --help without importing heavy modules."""

from __future__ import annotations

import sys

from lobsterlang import __version__

HELP = """\
lobster — the Lobster workflow language toolchain (lobsterlang {version})

Usage:
  lobster compile FILE [-o OUT] [--format text|json]     print a workflow file's IR as JSON
  lobster compile --pipeline '<pipeline>'                 print a pipeline's IR as JSON
  lobster schema                                          print the workflow-file JSON Schema
  lobster version                                         print the version
  lobster help [COMMAND]                                  show help (also: COMMAND --help)

Exit codes: 0 ok, 1 problems in the input, 2 usage errors.
Docs: docs/cli.md, docs/language.md, docs/ir.md
"""


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; returns the exit code."""
    args = sys.argv[1:] if argv is None else list(argv)
    if args and args[0] in ("--version", "-v", "version") and len(args) == 1:
        sys.stdout.write(__version__ + "\n")
        return 0
    if not args or args in (["--help"], ["-h"], ["help"]):
        sys.stdout.write(HELP.format(version=__version__))
        return 0
    from lobsterlang.cli.app import run

    return run(args)
