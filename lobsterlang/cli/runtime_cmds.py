"""Click entries for run, resume, doctor, tool and mcp; the real work is in their plain `*_main` functions.

`lobster run`/`resume` and bare pipelines normally skip click entirely (see `lobsterlang.cli.main`);
these entries give them help text and a place in `lobster help`.
"""

from __future__ import annotations

import click

_PASS_THROUGH = {"ignore_unknown_options": True, "allow_extra_args": True, "allow_interspersed_args": False}
_WORKSPACE = click.option("--workspace", type=click.Path(file_okay=False), default=None,
                          help="Directory that request cwd values must stay inside (default: the current directory).")


@click.command("run", context_settings=_PASS_THROUGH)
@click.argument("argv", nargs=-1, type=click.UNPROCESSED)
def run_command(argv: tuple[str, ...]) -> int:
    """Run a pipeline or a workflow file.

    \b
    lobster run [--mode human|tool] [--dry-run] '<pipeline>'
    lobster run [--mode tool] FILE.lobster [--args-json '{...}']
    lobster '<pipeline>'   (the same as run)
    """
    from lobsterlang.cli.run_cmd import run_main

    return run_main(list(argv))


@click.command("resume", context_settings=_PASS_THROUGH)
@click.argument("argv", nargs=-1, type=click.UNPROCESSED)
def resume_command(argv: tuple[str, ...]) -> int:
    """Continue a halted run; prints one envelope.

    \b
    lobster resume --token T | --id APPROVAL_ID  --approve yes|no
    lobster resume --token T --response-json '{"decision":"approve"}'
    lobster resume --token T --cancel
    """
    from lobsterlang.cli.resume_cmd import resume_main

    return resume_main(list(argv))


@click.command("doctor", context_settings=_PASS_THROUGH)
@click.argument("notes", nargs=-1, type=click.UNPROCESSED)
def doctor_command(notes: tuple[str, ...]) -> int:
    """Self-check: run a pipeline in tool mode and print the envelope."""
    from lobsterlang.cli.doctor_cmd import doctor_main

    return doctor_main(list(notes))


@click.command("tool")
@_WORKSPACE
def tool_command(workspace: str | None) -> int:
    """Read an embedded tool request (JSON) on stdin and print its envelope.

    \b
    {"action":"run","pipeline":"...","cwd":"sub","timeoutMs":20000,"maxStdoutBytes":512000,"argsJson":"{}"}
    {"action":"resume","token":"...","approve":true}
    """
    from lobsterlang.cli.tool_cmd import tool_main

    return tool_main(workspace)


@click.command("mcp")
@_WORKSPACE
def mcp_command(workspace: str | None) -> int:
    """Serve the tool call (run and resume) over MCP on stdio."""
    from lobsterlang.cli.mcp_cmd import mcp_main

    return mcp_main(workspace)
