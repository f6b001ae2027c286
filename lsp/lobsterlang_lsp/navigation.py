"""Definition, references, rename, hover and symbols for step ids and args, across sub-workflow calls."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from lobsterlang.query.at import Hit, at_offset, key_at
from lobsterlang.query.names import call_args, called_path
from lobsterlang.query.outline import Symbol, flat_symbols, symbols
from lobsterlang.query.rename import rename_edits, rename_problem
from lobsterlang_lsp.convert import markup
from lobsterlang_lsp.documents import Analysis, workspace_files
from lobsterlang_lsp.errors import RequestFailed
from lobsterlang_lsp.hovers import hover_text, rule_notes
from lobsterlang_lsp.server import LobsterServer

_SYMBOL_KIND = {
    "args": types.SymbolKind.Namespace, "arg": types.SymbolKind.Variable, "step": types.SymbolKind.Function,
    "branch": types.SymbolKind.Function, "substep": types.SymbolKind.Function,
}


def hit_at(ls: LobsterServer, uri: str, position: types.Position) -> tuple[Analysis, Hit | None]:
    analysis = ls.current(uri)
    offset = analysis.positions.offset(position)
    if analysis.workflow is None:
        return analysis, key_at(analysis.text, offset)  # a key needs no IR
    return analysis, at_offset(analysis.workflow, analysis.text, offset, analysis.occurrences)


def locations(ls: LobsterServer, analysis: Analysis, hit: Hit, roles: tuple[str, ...]) -> list[types.Location]:
    """Where the step or arg at `hit` is defined or referenced, with sub-workflow call args in other files."""
    if hit.kind == "call_arg":
        target = callee(ls, analysis, hit.detail)
        return [] if target is None else locations(ls, target, Hit("arg", hit.name, 0, 0), roles)
    if (hit.kind != "step" and hit.kind != "arg") or analysis.workflow is None:
        return []
    named = [o for o in analysis.occurrences if o.kind == hit.kind and o.name == hit.name and o.role in roles]
    found = [(analysis, o.start, o.end) for o in named]
    if hit.kind == "arg" and "reference" in roles:
        found += callers(ls, analysis, hit.name)
    return [types.Location(a.uri, a.positions.range(start, end)) for a, start, end in found]


def callee(ls: LobsterServer, analysis: Analysis, written: str) -> Analysis | None:
    return ls.analysis_of(called_path(analysis.path, written))


def callers(ls: LobsterServer, callee_analysis: Analysis, arg: str) -> list[tuple[Analysis, int, int]]:
    """`workflow_args` keys naming `arg` in workspace files that call this file (files that do not mention its
    name are not compiled)."""
    me = Path(callee_analysis.path).resolve()
    found = []
    for path in workspace_files(ls.root_paths()):
        other = ls.analysis_of(path) if path.resolve() != me else None
        if other is None or me.name not in other.text or other.workflow is None:
            continue
        for call in call_args(other.workflow, other.text):
            if call.name == arg and called_path(other.path, call.path) == me:
                found.append((other, call.start, call.end))
    return found


def register(server: LobsterServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_DEFINITION)
    def definition(ls: LobsterServer, params: types.DefinitionParams) -> list[types.Location] | None:
        analysis, hit = hit_at(ls, params.text_document.uri, params.position)
        return locations(ls, analysis, hit, ("definition",)) or None if hit else None

    @server.feature(types.TEXT_DOCUMENT_REFERENCES)
    def find_references(ls: LobsterServer, params: types.ReferenceParams) -> list[types.Location] | None:
        analysis, hit = hit_at(ls, params.text_document.uri, params.position)
        roles = ("definition", "reference") if params.context.include_declaration else ("reference",)
        return locations(ls, analysis, hit, roles) or None if hit else None

    @server.feature(types.TEXT_DOCUMENT_PREPARE_RENAME)
    def prepare_rename(ls: LobsterServer, params: types.PrepareRenameParams) -> types.PrepareRenamePlaceholder | None:
        analysis, hit = hit_at(ls, params.text_document.uri, params.position)
        if hit is None or hit.kind not in ("step", "arg"):
            return None
        if not analysis.result.ok:
            raise RequestFailed("the file has errors: fix them before renaming")
        return types.PrepareRenamePlaceholder(analysis.positions.range(hit.start, hit.end), hit.name)

    @server.feature(types.TEXT_DOCUMENT_RENAME)
    def rename(ls: LobsterServer, params: types.RenameParams) -> types.WorkspaceEdit | None:
        analysis, hit = hit_at(ls, params.text_document.uri, params.position)
        if hit is None or hit.kind not in ("step", "arg") or not analysis.result.ok:
            return None
        return rename_workspace(ls, analysis, hit, params.new_name)

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def hover(ls: LobsterServer, params: types.HoverParams) -> types.Hover | None:
        analysis, hit = hit_at(ls, params.text_document.uri, params.position)
        notes = rule_notes(analysis.findings or (), analysis.positions.offset(params.position))
        texts = [t for t in [hover_text(analysis, hit) if hit else None, *(note for _, note in notes)] if t]
        if not texts:
            return None
        start, end = (hit.start, hit.end) if hit else (notes[0][0].span.start, notes[0][0].span.end)
        return types.Hover(markup("\n\n---\n\n".join(texts), ls.caps().hover_markdown), analysis.positions.range(start, end))

    @server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    def document_symbols(ls: LobsterServer, params: types.DocumentSymbolParams) -> list[types.DocumentSymbol]:
        analysis = ls.current(params.text_document.uri)
        return [_symbol(s, analysis) for s in symbols(analysis.workflow)] if analysis.workflow else []

    @server.feature(types.WORKSPACE_SYMBOL)
    def workspace_symbols(ls: LobsterServer, params: types.WorkspaceSymbolParams) -> list[types.WorkspaceSymbol]:
        return workspace_symbol_list(ls, params.query)


def workspace_symbol_list(ls: LobsterServer, query: str) -> list[types.WorkspaceSymbol]:
    """Args and steps of every workflow file in the workspace whose name contains `query` (case-insensitive)."""
    found = []
    for path in workspace_files(ls.root_paths()):
        analysis = ls.analysis_of(path)
        if analysis is None or analysis.workflow is None:
            continue
        for s in flat_symbols(analysis.workflow):
            if query.lower() in s.name.lower():
                where = types.Location(analysis.uri, analysis.positions.range(s.name_start, s.name_end))
                found.append(types.WorkspaceSymbol(location=where, name=s.name, kind=_SYMBOL_KIND[s.kind], container_name=path.name))
    return found


def rename_workspace(ls: LobsterServer, analysis: Analysis, hit: Hit, new: str) -> types.WorkspaceEdit:
    """The edits of a rename in this file and, for an arg, in the files that call it; refused with the reason."""
    workflow = analysis.result.ir
    assert workflow is not None and hit.kind in ("step", "arg")
    problem = rename_problem(workflow, analysis.text, hit.kind, hit.name, new)
    if problem is not None:
        raise RequestFailed(problem)
    changes: dict[str, list[types.TextEdit]] = {}
    for start, end, text in rename_edits(workflow, analysis.text, hit.kind, hit.name, new):
        changes.setdefault(analysis.uri, []).append(types.TextEdit(analysis.positions.range(start, end), text))
    if hit.kind == "arg":
        for other, start, end in callers(ls, analysis, hit.name):
            changes.setdefault(other.uri, []).append(types.TextEdit(other.positions.range(start, end), new))
    return types.WorkspaceEdit(changes=changes)


def _symbol(symbol: Symbol, analysis: Analysis) -> types.DocumentSymbol:
    return types.DocumentSymbol(
        name=symbol.name,
        kind=_SYMBOL_KIND[symbol.kind],
        range=analysis.positions.range(symbol.start, symbol.end),
        selection_range=analysis.positions.range(symbol.name_start, symbol.name_end),
        detail=symbol.detail or None,
        children=[_symbol(c, analysis) for c in symbol.children],
    )

