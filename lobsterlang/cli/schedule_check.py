"""`lobster schedule add` checks a schedule before storing it: its cron expression, its time zone, the workflow file as
`lobster lint` sees it, and its args (required ones given, given ones declared), each problem as a diagnostic."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lobsterlang import ir
from lobsterlang.cli.usage import workflow_path_problem
from lobsterlang.cron import parse_cron
from lobsterlang.diagnostics import Diagnostic, Severity
from lobsterlang.interpret.errors import UsageError
from lobsterlang.interpret.schedule.model import Schedule, check_name
from lobsterlang.interpret.schedule.timing import ZoneError, local_zone_name, zone_named
from lobsterlang.interpret.workflow.session import file_digest
from lobsterlang.report import Report
from lobsterlang.span import LineIndex, Span


@dataclass
class Checked:
    """The schedule as it would be stored, its workflow's IR, and every problem found (as lint reports them)."""

    schedule: Schedule
    workflow: ir.Workflow | None
    digest: str | None
    reports: list[Report] = field(default_factory=list)

    @property
    def diagnostics(self) -> list[Diagnostic]:
        return [d for r in self.reports for d in r.diagnostics]

    @property
    def ok(self) -> bool:
        return self.workflow is not None and not any(d.is_error for d in self.diagnostics)


@dataclass(frozen=True)
class Request:
    """What `schedule add` was given."""

    name: str
    cron: str
    file: str
    args_json: str | None
    timezone: str | None
    overlap: str
    catch_up: str


def check_schedule(request: Request, env: Mapping[str, str], cwd: str) -> Checked:
    """Check everything `request` names; UsageError for what is no diagnostic (the name, the zone, a missing file)."""
    check_name(request.name)
    zone = request.timezone or local_zone_name(env)
    try:
        zone_named(zone)
    except ZoneError as exc:
        raise UsageError(f"--timezone: {exc}") from None
    problem = workflow_path_problem(request.file)
    if problem is not None:
        raise UsageError(problem)
    path = os.path.abspath(request.file)
    reports: list[Report] = []
    _, cron_problems = parse_cron(request.cron)
    if cron_problems:
        reports.append(Report("--cron", request.cron, tuple(cron_problems)))
    result = _lint(path, request.file)
    args, arg_reports = _args(request.args_json, result.workflow, Report(request.file, result.text, result.diagnostics))
    reports += arg_reports
    schedule = Schedule(request.name, request.cron.strip(), zone, path, args, request.overlap, request.catch_up, cwd)
    return Checked(schedule, result.workflow, file_digest(path), reports)


def _lint(path: str, shown: str) -> Any:
    """`lobster lint` of the file, with its lint configuration (`.lobster.toml` / `pyproject.toml`)."""
    from lobsterlang.lint import ConfigError, Source, find_config, lint_sources, load_config

    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise UsageError(f"cannot read {shown}: {exc.strerror or exc}") from None
    try:
        config = load_config(find_config(Path(path).parent))
    except ConfigError as exc:
        raise UsageError(str(exc)) from None
    return lint_sources([Source(shown, data)], config)[0]


def _args(text: str | None, workflow: ir.Workflow | None, file_report: Report) -> tuple[dict[str, Any], list[Report]]:
    """The args object, and the reports: the file's (with missing required args added) and the --args-json text's."""
    given, problems = _parse_args(text)
    if workflow is None or problems:
        return given, [file_report, *([Report("--args-json", text or "", tuple(problems))] if problems else [])]
    declared = {a.name: a for a in workflow.args or ()}
    missing = [_missing(a) for a in declared.values() if a.required is True and a.name not in given]
    unknown = [_undeclared(key, text or "", declared) for key in given if key not in declared]
    reports = [Report(file_report.path, file_report.text, (*file_report.diagnostics, *missing))]
    if unknown:
        reports.append(Report("--args-json", text or "", tuple(unknown)))
    return given, reports


def _parse_args(text: str | None) -> tuple[dict[str, Any], list[Diagnostic]]:
    if text is None:
        return {}, []
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        return {}, [_at(text, exc.pos, exc.pos + 1, "A003", f"--args-json is not JSON: {exc.msg}",
                        "give a JSON object, e.g. '{\"to\": \"me@example.com\"}'")]
    if not isinstance(value, dict):
        return {}, [_at(text, 0, len(text), "A003", "--args-json must be a JSON object", "give one, e.g. '{\"to\": \"me@example.com\"}'")]
    return value, []


def _missing(arg: ir.ArgDecl) -> Diagnostic:
    example = json.dumps({arg.name: "…"}, ensure_ascii=False)
    return Diagnostic("A001", Severity.ERROR, f"required arg {arg.name!r} has no value: every run of the schedule would "
                      "stop before its first step", arg.name_span, hint=f"give it with --args-json '{example}'")


def _undeclared(key: str, text: str, declared: Mapping[str, ir.ArgDecl]) -> Diagnostic:
    from lobsterlang.suggest import closest

    match = re.search(re.escape(json.dumps(key, ensure_ascii=False)) + r"\s*:", text)
    start, end = (match.start(), match.start() + len(json.dumps(key, ensure_ascii=False))) if match else (0, len(text))
    near = closest(key, declared)
    hint = f"did you mean {near!r}?" if near else (f"the workflow declares {', '.join(sorted(declared))}" if declared
                                                  else "the workflow declares no args")
    return _at(text, start, end, "A002", f"{key!r} is not an arg of the workflow: the run would not use it", hint,
               Severity.WARNING)


def _at(text: str, start: int, end: int, code: str, message: str, hint: str, severity: Severity = Severity.ERROR) -> Diagnostic:
    index = LineIndex(text)
    span: Span = index.span(min(start, len(text)), min(end, len(text)))
    return Diagnostic(code, severity, message, span, hint=hint)
