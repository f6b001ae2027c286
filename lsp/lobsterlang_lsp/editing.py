"""Formatting (whole document and by step) and code actions: lint fixes, "did you mean" suggestions, suppressions,
an approval before a side effect."""

from __future__ import annotations

from lsprotocol import types

from lobsterlang import ir
from lobsterlang.compile import compile_workflow
from lobsterlang.diagnostics import Diagnostic, Fix
from lobsterlang.fmt import FormatError, format_step, format_text
from lobsterlang.fmt.api import verified
from lobsterlang.fmt.meaning import same_meaning
from lobsterlang.lint.fixes import apply_fixes
from lobsterlang.query.fixes import findings_in_range, fixes_in_range, suggested_edit
from lobsterlang.query.outline import Symbol, flat_symbols
from lobsterlang_lsp.convert import Capabilities, diagnostic, text_edit
from lobsterlang_lsp.documents import Analysis
from lobsterlang_lsp.server import LobsterServer

QUICKFIX, REFACTOR = types.CodeActionKind.QuickFix, types.CodeActionKind.RefactorRewrite
FIX_ALL = "source.fixAll.lobster"
SUPPRESSIBLE = 5


def whole_document(analysis: Analysis) -> list[types.TextEdit] | None:
    """One edit replacing the text by its canonical form, checked to mean the same; None when it cannot be formatted."""
    workflow = analysis.result.ir
    if workflow is None or not analysis.result.ok:
        return None
    try:
        formatted = format_text(analysis.text, analysis.path)
    except FormatError:
        return None
    if formatted == analysis.text:
        return []
    if not verified(workflow, formatted, analysis.path, analysis.text):
        return None
    return [types.TextEdit(analysis.positions.range(0, len(analysis.text)), formatted)]


def steps_in_range(analysis: Analysis, start: int, end: int) -> list[types.TextEdit] | None:
    """Format the top-level steps the range touches; None when the result would not mean the same."""
    workflow = analysis.result.ir
    if workflow is None or not analysis.result.ok:
        return None
    touched = [s for s in workflow.steps if s.span.start <= end and start <= s.span.end]
    try:
        replacements = [format_step(analysis.text, analysis.path, s.id) for s in touched]
    except FormatError:
        return None
    text = analysis.text
    for span, new in sorted(replacements, key=lambda r: r[0].start, reverse=True):
        text = text[: span.start] + new + text[span.end :]
    if not verified(workflow, text, analysis.path, analysis.text):
        return None
    return [types.TextEdit(analysis.positions.range(s.start, s.end), new) for s, new in replacements
            if analysis.text[s.start : s.end] != new]


def is_safe(fix: Fix) -> bool:
    """Fixes are safe unless the linter marks them otherwise (an `applicability` the linter may add)."""
    return "unsafe" not in str(getattr(fix, "applicability", "safe")).lower()


def fix_all(analysis: Analysis, findings: tuple[Diagnostic, ...]) -> types.CodeAction | None:
    """Every safe fix of the file at once (`lobster lint --fix`), for editors that fix on save."""
    safe = [d for d in fixes_in_range(findings, 0, len(analysis.text)) if d.fix is not None and is_safe(d.fix)]
    if not safe:
        return None
    fixed, count = apply_fixes(analysis.text, safe)
    edit = types.WorkspaceEdit(changes={analysis.uri: [types.TextEdit(analysis.positions.range(0, len(analysis.text)), fixed)]})
    return types.CodeAction(f"Apply {count} safe lobster fix(es)", kind=FIX_ALL, edit=edit)


def fix_actions(analysis: Analysis, fixes: list[Diagnostic], caps: Capabilities) -> list[types.CodeAction]:
    """A quick fix per finding with a fix (`fixes_in_range`)."""
    actions = []
    for diag in fixes:
        assert diag.fix is not None
        shown = diagnostic(diag, analysis, caps)
        safe = is_safe(diag.fix)
        title = diag.fix.message if safe else f"{diag.fix.message} (unsafe: may change behaviour)"
        edit = types.WorkspaceEdit(changes={analysis.uri: [text_edit(e, analysis) for e in diag.fix.edits]})
        actions.append(types.CodeAction(title, kind=QUICKFIX, diagnostics=[shown], edit=edit, is_preferred=safe))
    return actions


def suggestion_actions(analysis: Analysis, findings: list[Diagnostic], caps: Capabilities) -> list[types.CodeAction]:
    """A quick fix per "did you mean" (`pikc` → `pick`): it changes what runs, so it is never the preferred one."""
    actions = []
    for diag in findings:
        suggested = suggested_edit(diag, analysis.text)
        if suggested is not None:
            start, end, new = suggested
            edit = types.WorkspaceEdit(changes={analysis.uri: [types.TextEdit(analysis.positions.range(start, end), new)]})
            actions.append(types.CodeAction(f"Change `{analysis.text[start:end]}` to `{new}`", kind=QUICKFIX,
                                            diagnostics=[diagnostic(diag, analysis, caps)], edit=edit, is_preferred=False))
    return actions


def suppress_actions(analysis: Analysis, findings: list[Diagnostic], caps: Capabilities) -> list[types.CodeAction]:
    """`# lobster: ignore[CODE]` at the end of the finding's line, or above its step; offered only when the file still
    means the same with the comment (each check compiles the file: at most `SUPPRESSIBLE` findings per request)."""
    actions = []
    seen: set[tuple[str, int]] = set()
    for diag in findings:
        if diag.is_error and not diag.code.startswith("L"):
            continue  # a compile error stays an error at run time: hiding it would mislead
        if (diag.code, diag.span.line) in seen or len(seen) == SUPPRESSIBLE:
            continue
        seen.add((diag.code, diag.span.line))
        comment = f"# lobster: ignore[{diag.code}]"
        line_end = analysis.text.find("\n", diag.span.start)
        line_end = len(analysis.text) if line_end == -1 else line_end
        candidates = [(f"Suppress {diag.code} on this line", line_end, line_end, "  " + comment)]
        step = _step_at(analysis, diag.span.start)
        if step is not None:
            line_start = analysis.text.rfind("\n", 0, step.start) + 1
            indent = " " * (step.start - line_start - 2 if analysis.text[line_start:step.start].strip() == "-" else step.start - line_start)
            candidates.append((f"Suppress {diag.code} for step {step.name}", line_start, line_start, f"{indent}{comment}\n"))
        for title, start, end, new in candidates:
            if _same_meaning(analysis, start, end, new):
                edit = types.WorkspaceEdit(changes={analysis.uri: [types.TextEdit(analysis.positions.range(start, end), new)]})
                actions.append(types.CodeAction(title, kind=QUICKFIX, diagnostics=[diagnostic(diag, analysis, caps)], edit=edit))
    return actions


def _step_at(analysis: Analysis, offset: int) -> Symbol | None:
    workflow = analysis.workflow
    inside = [s for s in flat_symbols(workflow) if s.kind != "arg" and s.start <= offset <= s.end] if workflow else []
    return inside[-1] if inside else None


def _same_meaning(analysis: Analysis, start: int, end: int, new: str) -> bool:
    workflow = analysis.result.ir
    if workflow is None:
        return False
    after = compile_workflow(analysis.text[:start] + new + analysis.text[end:], analysis.path)
    return after.ir is not None and same_meaning(workflow, after.ir)


def approval_action(analysis: Analysis, offset: int) -> types.CodeAction | None:
    """Insert an approval step before the top-level side-effecting step at `offset`."""
    from lobsterlang.lint.effects import unit_side_effect
    from lobsterlang.lint.walk import units

    workflow = analysis.result.ir
    if workflow is None:
        return None
    unit = next((u for u in units(workflow) if u.kind == "step" and u.span.start <= offset <= u.span.end), None)
    effect = unit_side_effect(unit) if unit is not None else None
    if unit is None or effect is None or unit.step.approval is not None or _gated(workflow, unit.index):
        return None
    line_start = analysis.text.rfind("\n", 0, unit.span.start) + 1
    prefix = analysis.text[line_start : unit.span.start]
    if prefix.strip() != "-":
        return None
    indent = " " * (len(prefix) - len(prefix.lstrip()))
    taken = {s.id for s in workflow.steps}
    new_id = next(f"approve_{unit.id}{n or ''}" for n in range(len(taken) + 1) if f"approve_{unit.id}{n or ''}" not in taken)
    prompt = f"Run {unit.id}? It {effect}.".replace('"', "'")
    text = f'{indent}- id: {new_id}\n{indent}  approval: "{prompt}"\n'
    edit = types.WorkspaceEdit(changes={analysis.uri: [types.TextEdit(analysis.positions.range(line_start, line_start), text)]})
    return types.CodeAction(f"Add an approval step before {unit.id} ({effect})", kind=REFACTOR, edit=edit)


def _kind(kind: object) -> str:
    """A code action kind as its string (lsprotocol gives enum members for the standard ones)."""
    return str(getattr(kind, "value", kind))


def _gated(workflow: ir.Workflow, index: int) -> bool:
    return index > 0 and workflow.steps[index - 1].approval is not None


def register(server: LobsterServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_FORMATTING)
    def formatting(ls: LobsterServer, params: types.DocumentFormattingParams) -> list[types.TextEdit] | None:
        return whole_document(ls.current(params.text_document.uri))

    @server.feature(types.TEXT_DOCUMENT_RANGE_FORMATTING)
    def range_formatting(ls: LobsterServer, params: types.DocumentRangeFormattingParams) -> list[types.TextEdit] | None:
        analysis = ls.current(params.text_document.uri)
        start, end = (analysis.positions.offset(p) for p in (params.range.start, params.range.end))
        return steps_in_range(analysis, start, end)

    kinds = [QUICKFIX, REFACTOR, FIX_ALL]

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(code_action_kinds=kinds))
    def code_actions(ls: LobsterServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        analysis = ls.current(params.text_document.uri)
        start, end = (analysis.positions.offset(p) for p in (params.range.start, params.range.end))
        everything, caps = ls.documents.findings(analysis), ls.caps()
        found = fix_actions(analysis, fixes_in_range(everything, start, end), caps)
        found += suggestion_actions(analysis, findings_in_range(everything, start, end), caps)
        found += suppress_actions(analysis, findings_in_range(everything, start, end), caps)
        extra = [approval_action(analysis, start), fix_all(analysis, everything)]
        wanted = [_kind(w) for w in params.context.only or ()]
        return [a for a in found + [e for e in extra if e] if not wanted or any(_kind(a.kind).startswith(w) for w in wanted)]
