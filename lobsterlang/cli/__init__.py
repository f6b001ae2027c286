"""The `lobster` entry point: answers --version and --help without importing heavy modules."""

from __future__ import annotations

import os
import sys

from lobsterlang import __version__

HELP = """\
lobster — the Lobster workflow language toolchain (lobsterlang {version})

Usage:
  lobster compile FILE [-o OUT] [--format text|json]     print a workflow file's IR as JSON
  lobster compile --pipeline '<pipeline>'                 print a pipeline's IR as JSON
  lobster graph FILE [--format mermaid|dot|ascii]         draw a workflow's steps and data flow
  lobster schema                                          print the workflow-file JSON Schema
  lobster lint [PATHS...] [--fix|--diff] [--format F]     find bugs and dangers (F: text|json|sarif|github)
  lobster explain CODE|NAME                               print the docs of a lint rule (L301, raw-arg-in-shell)
  lobster fmt [PATHS...] [--check|--diff] [--to yaml]    format workflow files in place (`-`: stdin; --from-ir IR)
  lobster run [--mode human|tool] [--dry-run] '<pipeline>'  run a pipeline (also: lobster '<pipeline>')
  lobster run [--mode tool] FILE.lobster [--args-json J]  run a workflow file
  lobster resume --token T|--id ID --approve yes|no       continue after an approval (or --response-json, --cancel)
  lobster runs [--json]                                   list unfinished workflow runs (resume --run ID)
  lobster worker [--backend URL] [--quiet]                execute runs queued with run --backend URL --detach
  lobster cancel RUN_ID [--backend URL]                   abandon an unfinished run without running a step
  lobster schedule add NAME --cron EXPR FILE              run a workflow on a schedule (list, pause, run-now, export…)
  lobster tool [--workspace DIR]                          answer one embedded tool request (JSON on stdin)
  lobster mcp [--workspace DIR]                           serve the tool call over MCP (stdio)
  lobster lsp                                             start the language server (stdio; the `lsp` extra)
  lobster doctor                                          self-check in tool mode
  lobster version                                         print the version
  lobster help [COMMAND]                                  show help (also: COMMAND --help)

Pipeline commands (lobster help CMD; docs/commands.md):
{commands}

Exit codes: 0 ok, 1 problems in the input or a runtime error, 2 usage or parse errors,
130/143 when stopped by SIGINT/SIGTERM.
Shell completion: eval "$(lobster --completion bash)" (or zsh, fish; docs/cli.md).
Docs: docs/cli.md, docs/language.md, docs/workflows.md, docs/commands.md, docs/lint.md, docs/fmt.md
"""


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; returns the exit code.

    Called without `argv`, as the `lobster` process itself, a lone pipeline run that left large item
    buffers ends the process at once after flushing its output, with the same exit code
    (lobsterlang/interpret/pipeline/teardown.py); with `argv` it always returns.
    """
    if argv is None:
        from lobsterlang.cli.stdio import prepare_streams

        prepare_streams()
        if "LOBSTER_SIGNING_KEY" in os.environ or "LOBSTER_SIGNING_KEY_FD" in os.environ:
            from lobsterlang.interpret.hostkey import take_from_process

            take_from_process()  # before any step could start: out of the environment, the process non-dumpable
    args = sys.argv[1:] if argv is None else list(argv)
    if "_LOBSTER_COMPLETE" in os.environ:  # a shell asks for completions (lobster --completion SHELL)
        from lobsterlang.cli.app import run

        return run(args)
    if args and args[0] in ("--version", "-v", "version") and len(args) == 1:
        sys.stdout.write(__version__ + "\n")
        return 0
    if not args or args in (["--help"], ["-h"], ["help"]):
        _print_help()
        return 0
    fast = _compile_entry(args) if args[0] == "compile" else _runtime_entry(args, whole_process=argv is None)
    if fast is not None:
        return fast
    from lobsterlang.cli.app import run

    return run(args)


def _print_help() -> None:
    import textwrap

    from lobsterlang.commands.specs import COMMANDS

    names = ", ".join(sorted(spec.name for spec in COMMANDS))
    sys.stdout.write(HELP.format(version=__version__, commands=textwrap.fill(names, 100, initial_indent="  ", subsequent_indent="  ")))


SUBCOMMANDS = frozenset(line.split()[1] for line in HELP.splitlines() if line.startswith("  lobster "))
_GROUP_OPTIONS = ("--version", "-v", "--help", "-h", "--completion")


def _mistyped_subcommand(word: str) -> bool:
    """A bare word close to a `lobster` subcommand (`lnt`) that is no pipeline command: click reports it,
    with the suggestion taken from the registered commands (SUBCOMMANDS lists the same: tests/test_cli.py)."""
    if word.startswith("-") or any(c in word for c in " \t\n|'\"") or "." in word:
        return False
    from lobsterlang.interpret.pipeline.registry import IMPLEMENTATIONS  # the run imports it anyway

    if word in IMPLEMENTATIONS:
        return False
    from lobsterlang.cli.usage import did_you_mean

    return bool(did_you_mean(word, SUBCOMMANDS))


def _compile_entry(args: list[str]) -> int | None:
    """`compile` with plain arguments runs without click; None hands the rest to the click command."""
    if "-h" in args or "--help" in args:
        return None
    from lobsterlang.cli.compile_main import fast_compile

    return fast_compile(args[1:])


def _runtime_entry(args: list[str], *, whole_process: bool = False) -> int | None:
    """`run`, `resume` and bare pipelines go straight to the runtime (no click import); None otherwise.
    `whole_process`: this run is all the process does (see `main`)."""
    first = args[0]
    options = args[: args.index("--")] if "--" in args else args
    wants_help = "-h" in options or "--help" in options
    if first in ("run", "resume") and not wants_help:
        if first == "resume":
            from lobsterlang.cli.resume_cmd import resume_main

            return resume_main(args[1:])
        from lobsterlang.cli.run_cmd import run_main

        return run_main(args[1:], whole_process=whole_process)
    if first in SUBCOMMANDS or first in _GROUP_OPTIONS or _mistyped_subcommand(first):
        return None
    if wants_help:
        _print_help()
        return 0
    from lobsterlang.cli.run_cmd import run_main

    return run_main(args, whole_process=whole_process)
