"""Click entries for run, resume, doctor, tool and mcp; the real work is in their plain `*_main` functions.

`lobster run`/`resume` and bare pipelines normally skip click entirely (see `lobsterlang.cli.main`);
these entries give them help text and a place in `lobster help`.
"""

from __future__ import annotations

import click

from lobsterlang.cli.completion import PassThroughCommand, complete_resume_words, complete_run_words

_PASS_THROUGH = {"ignore_unknown_options": True, "allow_extra_args": True, "allow_interspersed_args": False}
_WORKSPACE = click.option("--workspace", type=click.Path(file_okay=False), default=None,
                          help="Directory that request cwd values must stay inside (default: the current directory).")


@click.command("run", cls=PassThroughCommand, context_settings=_PASS_THROUGH)
@click.argument("argv", nargs=-1, type=click.UNPROCESSED, shell_complete=complete_run_words)
def run_command(argv: tuple[str, ...]) -> int:
    """Run a pipeline or a workflow file.

    \b
    lobster run [--mode human|tool] [--dry-run] '<pipeline>'
    lobster run [--mode tool] FILE.lobster [--args-json '{...}']
    lobster run -            (read the pipeline from stdin)
    lobster '<pipeline>'     (the same as run)

    \b
    Flags (anywhere among the arguments; `--` ends them):
      --mode human|tool    tool: print exactly one JSON envelope on stdout
      --file FILE          run this workflow file (also: a sole FILE argument ending in
                           .lobster, .yaml, .yml or .json)
      --args-json JSON     workflow args, a JSON object (`${name}`, LOBSTER_ARG_<NAME>)
      --dry-run            print the plan on stderr and run nothing
      --raw-args           substitute `${arg}` as raw text, as the reference does (unsafe;
                           before the pipeline, or after FILE)
      --strict-args        refuse --args-json keys the workflow does not declare (by
                           default a warning; also LOBSTER_STRICT_ARGS=1)
      --approval-ttl D     how long gates stay approvable (e.g. 1h, 7d; default
                           LOBSTER_APPROVAL_TTL or 7 days; a step's expires_in wins)
      --backend URL        keep runs and gates in this database (postgresql://…;
                           default LOBSTER_BACKEND, else the local state directory)
      --detach             with --backend: queue the workflow file for `lobster worker`
                           and print its run id
      --max-output-bytes N cap each step's stdout and stderr, each (default
                           LOBSTER_MAX_OUTPUT_BYTES, else 256 MiB)

    \b
    Exit codes: 0 ok (also halted at an approval or input gate), 1 runtime error,
    2 parse or usage error, 130/143 on SIGINT/SIGTERM. See docs/cli.md and docs/workflows.md.
    """
    from lobsterlang.cli.run_cmd import run_main

    return run_main(list(argv))


@click.command("resume", cls=PassThroughCommand, context_settings=_PASS_THROUGH)
@click.argument("argv", nargs=-1, type=click.UNPROCESSED, shell_complete=complete_resume_words)
def resume_command(argv: tuple[str, ...]) -> int:
    """Continue a halted run; prints one envelope.

    \b
    lobster resume --token T | --id APPROVAL_ID  --approve yes|no
    lobster resume --token T --response-json '{"decision":"approve"}'
    lobster resume --token T --cancel
    lobster resume --run RUN_ID [--retry-step | --skip-step]

    \b
    Flags:
      --token T            the resumeToken of a needs_approval / needs_input envelope
      --id APPROVAL_ID     the short approvalId instead of the token
      --approve yes|no     answer an approval gate (no cancels the run)
      --response-json J    answer an input gate with JSON matching its schema
      --cancel             abandon the halted run
      --run RUN_ID         continue a workflow run from its journal (see `lobster runs`)
      --retry-step         with --run: re-run the step that was started but not recorded
      --skip-step          with --run: skip that step instead
      --backend URL        the database the run lives in (default LOBSTER_BACKEND)
      --detach             with --backend: the approved run continues on a worker
                           (automatic for runs started with run --detach)
      --accept-unsigned-state  accept state without this directory's signature (written
                           by the reference CLI); also LOBSTER_ACCEPT_UNSIGNED_STATE=1
      --mode tool|human    accepted as by the reference; resume always prints the envelope

    \b
    A token works once and until its gate expires; a reused, altered or unknown token or id is
    an error and nothing runs; state that does not match its signature is refused (state_integrity).
    Exit codes: 0 ok, 1 runtime error, 2 parse or usage error.
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
