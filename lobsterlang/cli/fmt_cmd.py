"""`lobster fmt`: format workflow files in place (settings from `[tool.lobster.fmt]`), or check or diff them; IR JSON to a .lobster file."""

from __future__ import annotations

import difflib
import json
from pathlib import Path

import click

from lobsterlang import ir
from lobsterlang.cli.completion import complete_paths
from lobsterlang.cli.files import FileChanged, file_digest, read_only, say_skipped, workflows_under, write_atomic
from lobsterlang.cli.fmt_jobs import Job, converted_name, examine_all, examine_bytes
from lobsterlang.cli.options import COLOR_OPTION, FORMAT_OPTION, MAX_INPUT_BYTES_OPTION
from lobsterlang.cli.output import print_diagnostics
from lobsterlang.cli.usage import workflow_path_problem
from lobsterlang.compile import WORKFLOW_SUFFIXES
from lobsterlang.config_file import ConfigError
from lobsterlang.fmt.api import emit, is_json_path
from lobsterlang.fmt.config import style_for
from lobsterlang.ir_codec import from_json
from lobsterlang.report import Report
from lobsterlang.syntax.source import limit_message, over_limit, read_source, read_source_stream
from lobsterlang.terminal import visible


class _Options:
    """How to treat each file: check only, print a diff, convert JSON to YAML; how to print diagnostics."""

    def __init__(self, check: bool, diff: bool, to_yaml: bool, fmt: str, color: str, force: bool = False) -> None:
        self.check = check
        self.diff = diff
        self.to_yaml = to_yaml
        self.fmt = fmt
        self.color = color
        self.force = force

    @property
    def writes(self) -> bool:
        return not (self.check or self.diff)


@click.command("fmt")
@click.argument("paths", nargs=-1, metavar="[PATHS]...", shell_complete=complete_paths)
@click.option("--check", is_flag=True, help="Change nothing; list the files that would change and exit 1 if any.")
@click.option("--diff", "show_diff", is_flag=True, help="Change nothing; print a unified diff of the changes and exit 1 if any.")
@click.option("--stdin-filename", metavar="NAME", help="Name for `-` in messages (a .json name keeps JSON).")
@click.option("--to", "to", type=click.Choice(["yaml"]), help="Convert JSON workflow files to YAML (`x.json` becomes `x.lobster`).")
@click.option("--from-ir", "from_ir", metavar="IR_JSON", help="Print a canonical .lobster file for IR JSON (`-`: stdin).")
@click.option("--force", is_flag=True, help="Also rewrite read-only files (by default they are reported and left alone).")
@FORMAT_OPTION
@COLOR_OPTION
@MAX_INPUT_BYTES_OPTION
@click.pass_context
def fmt_command(
    ctx: click.Context, paths: tuple[str, ...], check: bool, show_diff: bool, stdin_filename: str | None,
    to: str | None, from_ir: str | None, force: bool, fmt: str, color: str,
) -> None:
    """Format workflow files in place: PATHS are files and directories (`-`: stdin to stdout).

    Directories are searched for *.lobster* files and for .yaml, .yml and .json files that are
    Lobster workflows (a top-level `steps:` list), skipping .gitignore'd paths. A file with compile errors is
    never rewritten: its errors are reported, and neither is a read-only file (without --force) or a
    file that changed while it was being formatted. Exit 0 when done (or, with --check, when nothing
    would change), 1 when a file would change under --check or --diff or has errors, 2 on usage errors.
    """
    if from_ir is not None:
        if paths:
            raise click.UsageError("--from-ir takes no PATHS")
        ctx.exit(_from_ir(from_ir))
    if not paths:
        raise click.UsageError("give PATHS to format, or `-` to format stdin")
    options = _Options(check, show_diff, to == "yaml", fmt, color, force)
    if "-" in paths:
        if len(paths) > 1:
            raise click.UsageError("`-` (stdin) cannot be combined with other PATHS")
        ctx.exit(_format_stdin(stdin_filename or "<stdin>", options))
    jobs = examine_all([str(p) for p in _collect(paths)], options.to_yaml, verify=options.writes)
    outcomes = [_report(job, options) for job in jobs]
    _summary(outcomes, options)
    failed = "failed" in outcomes or ((check or show_diff) and "changed" in outcomes)
    ctx.exit(1 if failed else 0)


def _collect(paths: tuple[str, ...]) -> list[Path]:
    """The files to format, in order, without duplicates; missing paths are usage errors."""
    found: dict[Path, None] = {}
    for name in paths:
        path = Path(name)
        if path.is_dir():
            files, skipped = workflows_under(path)
            say_skipped("fmt", skipped)
            found.update(dict.fromkeys(files))
        elif path.is_file():
            if path.suffix.lower() not in WORKFLOW_SUFFIXES:
                raise click.UsageError(f"{name}: Workflow file must end in .lobster, .yaml, .yml, or .json")
            found[path] = None
        else:
            raise click.UsageError(workflow_path_problem(name) or f"{name}: no such file or directory")
    return list(found)


def _report(job: Job, options: _Options) -> str:
    """Print what happened to one file, write it when asked; returns its outcome."""
    if job.outcome == "failed":
        _print_failure(job, options)
    elif job.outcome == "changed":
        if options.diff:
            click.echo(_unified_diff(job.source, job.text, job.path, job.target), nl=False)
        if options.check:
            click.echo(visible(f"would reformat {job.path}"))
        if options.writes:
            return _write(job, options.force)
    return job.outcome


def _print_failure(job: Job, options: _Options) -> None:
    if job.errors:
        print_diagnostics([Report(job.path, job.source, job.errors)], options.fmt, options.color)
    else:
        _say(job.message)


def _write(job: Job, force: bool) -> str:
    """Write the formatted text (through a symlink, not over it), unless the file is read-only (without
    `force`) or changed since it was read; converting JSON to YAML removes the JSON file."""
    converting = job.target != job.path
    if converting and Path(job.target).exists():
        _say(f"{job.path}: not converted: {job.target} already exists")
        return "failed"
    if not force and read_only(job.path):
        _say(f"{job.path}: not formatted: the file is read-only (--force rewrites it)")
        return "failed"
    try:
        if converting:
            if file_digest(job.path) != job.read_digest:
                raise FileChanged(job.path)
            write_atomic(job.target, job.text)
        else:
            write_atomic(job.path, job.text, read_digest=job.read_digest)
    except FileChanged:
        _say(f"{job.path}: not formatted: it changed while it was being formatted (run lobster fmt again)")
        return "failed"
    if converting:
        Path(job.path).unlink()
        _say(f"converted {job.path} -> {job.target}")
    else:
        _say(f"reformatted {job.path}")
    return "changed"


def _say(line: str) -> None:
    """A line on stderr, control characters made visible (file names and messages hold any text)."""
    click.echo(visible(line), err=True)


def _unified_diff(old: str, new: str, path: str, target: str) -> str:
    lines = difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True), path, f"{target} (formatted)")
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)


def _format_stdin(name: str, options: _Options) -> int:
    target = converted_name(name) if options.to_yaml and is_json_path(name) else name
    try:
        style = style_for(Path(name if name != "<stdin>" else "stdin.lobster"))
    except ConfigError as exc:
        _say(f"{name}: not formatted: {exc}")
        return 1
    data = read_source_stream()
    job = examine_bytes(data, name, target, not (options.check or options.diff), style)
    if job.outcome == "failed":
        _print_failure(job, options)
        return 1
    changed = job.outcome == "changed"
    if options.diff and changed:
        click.echo(_unified_diff(job.source, job.text, name, target), nl=False)
        return 1
    if options.check:
        if changed:
            click.echo(visible(f"would reformat {name}"))
        return 1 if changed else 0
    if not options.diff:
        click.echo(job.text if changed else data.decode("utf-8"), nl=False)
    return 0


def _from_ir(source: str) -> int:
    """Print the canonical .lobster text of a Workflow IR JSON file."""
    try:
        raw = read_source_stream() if source == "-" else read_source(source)
    except OSError as exc:
        raise click.UsageError(f"cannot read {source}: {exc.strerror or exc}") from None
    if over_limit(raw):
        _say(f"{source}: not valid IR JSON: {limit_message()}")
        return 1
    try:
        workflow = from_json(json.loads(raw))
    except (ValueError, TypeError, RecursionError) as exc:
        _say(f"{source}: not valid IR JSON: {exc}")
        return 1
    if not isinstance(workflow, ir.Workflow):
        _say(f"{source}: the IR is a {type(workflow).__name__}, not a Workflow")
        return 1
    click.echo(emit(workflow), nl=False)
    return 0


def _summary(outcomes: list[str], options: _Options) -> None:
    changed, failed = outcomes.count("changed"), outcomes.count("failed")
    verb = "reformatted" if options.writes else "would be reformatted"
    parts = [f"{_files(changed)} {verb}", f"{_files(outcomes.count('unchanged'))} already formatted"]
    if failed:
        parts.append(f"{_files(failed)} not formatted (errors)")
    click.echo(", ".join(parts) + ".", err=True)


def _files(count: int) -> str:
    return f"{count} file" + ("" if count == 1 else "s")
