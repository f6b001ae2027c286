"""`lobster lint`: check workflow files and pipelines for broken references, unsafe shells and ungated effects."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import click

from lobsterlang import __version__
from lobsterlang.cli.completion import complete_paths
from lobsterlang.cli.files import write_atomic
from lobsterlang.cli.options import COLOR_OPTION
from lobsterlang.cli.output import use_color
from lobsterlang.compile import WORKFLOW_SUFFIXES
from lobsterlang.diagnostics import Severity
from lobsterlang.lint import Config, ConfigError, FileResult, Source, all_rules, find_config, lint_sources, load_config
from lobsterlang.lint.config import with_overrides
from lobsterlang.lint.fixes import apply_fixes, fixable, unified_diff
from lobsterlang.lint.locate import fingerprint
from lobsterlang.record import Record, replace
from lobsterlang.report import Report, RuleInfo, render_github, render_json, render_sarif, render_text, summary

DIRECTORY_SUFFIXES = (".lobster", ".lobster.yaml", ".lobster.yml", ".lobster.json")
_SKIP_DIRS = frozenset({".git", "node_modules", ".venv", "venv", "__pycache__"})
_MAX_FIX_ROUNDS = 8
_FAMILIES = {"E": "file", "P": "pipeline-syntax", "X": "condition-syntax", "S": "schema", "W": "ignored-by-runtime"}


class CompileRule(Record):
    """SARIF metadata for a compile diagnostic code (documented in docs/diagnostics.md)."""

    code: str
    name: str
    summary: str
    severity: Severity
    docs_path: str = "docs/diagnostics.md"


def collect(paths: tuple[str, ...]) -> Iterator[str]:
    """Files to lint: explicit files as given; directories searched for *.lobster(.yaml|.yml|.json)."""
    for raw in paths:
        path = Path(raw)
        if raw == "-":
            yield raw
        elif path.is_dir():
            yield from sorted(str(p) for p in path.rglob("*") if _wanted(p, path))
        elif path.is_file():
            if path.suffix.lower() not in WORKFLOW_SUFFIXES:
                raise click.UsageError(f"{raw}: Workflow file must end in .lobster, .yaml, .yml, or .json")
            yield raw
        else:
            raise click.UsageError(f"{raw}: no such file or directory")


def _wanted(path: Path, root: Path) -> bool:
    parts = path.relative_to(root).parts
    hidden = any(p.startswith(".") or p in _SKIP_DIRS for p in parts[:-1])
    return not hidden and path.is_file() and path.name.lower().endswith(DIRECTORY_SUFFIXES)


def _read(path: str, stdin_filename: str | None) -> Source:
    if path == "-":
        return Source(stdin_filename or "<stdin>", sys.stdin.buffer.read())
    try:
        return Source(path, Path(path).read_bytes())
    except OSError as exc:
        raise click.UsageError(f"cannot read {path}: {exc.strerror or exc}") from None


def _sources(paths: tuple[str, ...], pipeline_text: str | None, stdin_filename: str | None) -> tuple[list[Source], Source | None]:
    """What to lint, and which source came from stdin or --pipeline (its fixed text goes to stdout)."""
    if pipeline_text is not None:
        source = Source("<pipeline>", pipeline_text, pipeline=True)
        return [source], source
    sources, streamed = [], None
    for path in collect(paths or (".",)):
        sources.append(_read(path, stdin_filename))
        streamed = sources[-1] if path == "-" else streamed
    return sources, streamed


def _config(config_path: str | None, paths: tuple[str, ...], select: str | None, ignore: str | None, no_shellcheck: bool) -> Config:
    try:
        if config_path:
            config = load_config(Path(config_path))
        else:
            start = Path(paths[0]) if paths and paths[0] != "-" else Path.cwd()
            config = load_config(find_config((start if start.is_dir() else start.parent).resolve()))
    except ConfigError as exc:
        raise click.UsageError(str(exc)) from None
    return with_overrides(config, select, ignore, False if no_shellcheck else None)


def fix_source(source: Source, config: Config) -> tuple[Source, int]:
    """The source with all safe fixes applied (repeatedly, until none is left), and the count."""
    quick = replace(config, shellcheck=False)
    total = 0
    for _ in range(_MAX_FIX_ROUNDS):
        result = lint_sources([source], quick)[0]
        text, applied = apply_fixes(result.text, result.diagnostics)
        if not applied:
            break
        source, total = Source(source.path, text, source.pipeline), total + applied
    return source, total


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
    fixes = len(fixable(diags))
    tail = f"{fixes} fixable with `lobster lint --fix`.\n" if fixes else ""
    return render_text(reports, color=color, rule_names=names) + summary(diags) + tail


@click.command("lint")
@click.argument("paths", nargs=-1, metavar="[PATHS]...", shell_complete=complete_paths)
@click.option("--pipeline", "pipeline_text", metavar="TEXT", help="Lint this pipeline string instead of files.")
@click.option("--stdin-filename", metavar="NAME", help="Name to report for PATH `-` (stdin).")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "sarif", "github"]), default="text", show_default=True,
              help="Output format (on stdout).")
@click.option("--fix", is_flag=True, help="Apply safe fixes in place (stdin: print the fixed text).")
@click.option("--diff", is_flag=True, help="Print the fixes as a unified diff; change nothing.")
@click.option("--select", metavar="CODES", help="Only these rule codes or prefixes (comma-separated), e.g. L3,L401.")
@click.option("--ignore", metavar="CODES", help="Also ignore these codes or prefixes (comma-separated).")
@click.option("--config", "config_path", metavar="FILE", help="Read settings from FILE instead of searching for one.")
@click.option("--no-shellcheck", is_flag=True, help="Do not run shellcheck on run: scripts (rule L310).")
@COLOR_OPTION
@click.pass_context
def lint_command(
    ctx: click.Context, paths: tuple[str, ...], pipeline_text: str | None, stdin_filename: str | None, fmt: str,
    fix: bool, diff: bool, select: str | None, ignore: str | None, config_path: str | None, no_shellcheck: bool, color: str,
) -> None:
    """Check workflow files (PATHS: files, directories or `-`) for bugs and dangers.

    Directories are searched for *.lobster, *.lobster.yaml, *.lobster.yml and *.lobster.json.
    Exit 0 when clean, 1 on findings, 2 on usage or internal errors. Rules: docs/lint.md;
    `lobster explain CODE` prints one rule's page.
    """
    if fix and diff:
        raise click.UsageError("use --fix or --diff, not both")
    config = _config(config_path, paths, select, ignore, no_shellcheck)
    sources, streamed = _sources(paths, pipeline_text, stdin_filename)
    try:
        code = _run(sources, config, fmt, fix, diff, use_color(color), streamed)
    except Exception as exc:  # an internal error must not look like "findings"
        click.echo(f"lobster lint: internal error: {type(exc).__name__}: {exc}", err=True)
        ctx.exit(2)
    ctx.exit(code)


def _run(sources: list[Source], config: Config, fmt: str, fix: bool, diff: bool, color: bool, streamed: Source | None) -> int:
    """Lint (fixing first with --fix/--diff); `streamed` is the stdin or --pipeline source, if any."""
    if diff:
        return _diff(sources, config)
    if fix:
        sources = [_fix_one(source, config, source is streamed) for source in sources]
    results = lint_sources(sources, config)
    click.echo(render(results, fmt, color), nl=False, err=fix and streamed is not None, color=color)
    return 1 if any(r.diagnostics for r in results) else 0


def _text(source: Source) -> str:
    return source.data.decode("utf-8", "replace") if isinstance(source.data, bytes) else source.data


def _fix_one(source: Source, config: Config, streamed: bool) -> Source:
    """Fix one source: write the file back, or print stdin/--pipeline text (fixed or not) on stdout."""
    after, count = fix_source(source, config)
    if streamed:
        click.echo(_text(after), nl=source.pipeline)
    elif count:
        write_atomic(source.path, _text(after))
    return after


def _diff(sources: list[Source], config: Config) -> int:
    changed = 0
    for source in sources:
        after, count = fix_source(source, config)
        if count:
            changed += 1
            click.echo(unified_diff(source.path, _text(source), _text(after)), nl=False)
    return 1 if changed else 0
