"""Completion, semantic tokens, folding, document links, inlay hints, code lenses, and the dry-run / graph commands."""

from __future__ import annotations

from typing import Any

from lsprotocol import types
from pygls.uris import to_fs_path

from lobsterlang.query.complete import completions
from lobsterlang.query.outline import symbols
from lobsterlang_lsp import views
from lobsterlang_lsp.convert import markup, plain_text
from lobsterlang_lsp.documents import Analysis
from lobsterlang_lsp.schedules import ScheduleCache
from lobsterlang_lsp.server import LobsterServer

_COMPLETION_KIND = {
    "key": types.CompletionItemKind.Property, "step": types.CompletionItemKind.Reference,
    "field": types.CompletionItemKind.Field, "arg": types.CompletionItemKind.Variable,
    "command": types.CompletionItemKind.Function, "flag": types.CompletionItemKind.Keyword,
    "value": types.CompletionItemKind.EnumMember, "file": types.CompletionItemKind.File,
}
TRIGGERS = ["$", "{", ".", "|", "-", " ", "/"]
GRAPH_REQUEST = "lobster/graph"


def complete(analysis: Analysis, offset: int, markdown: bool) -> list[types.CompletionItem]:
    items: list[types.CompletionItem] = []
    for c in completions(analysis.workflow, analysis.text, offset, analysis.directory):
        edit = types.TextEdit(analysis.positions.range(c.start, c.end), c.insert if c.insert is not None else c.label)
        doc = (markup(c.documentation, True) if markdown else plain_text(c.documentation)) if c.documentation else None
        items.append(types.CompletionItem(c.label, kind=_COMPLETION_KIND[c.kind], detail=c.detail or None,
                                          documentation=doc, text_edit=edit, sort_text=f"{len(items):04}"))
    return items


def folding(analysis: Analysis) -> list[types.FoldingRange]:
    ranges = []
    pending = symbols(analysis.workflow) if analysis.workflow else []
    while pending:
        symbol = pending.pop()
        start, end = analysis.positions.position(symbol.start).line, analysis.positions.position(symbol.end).line
        if analysis.text[symbol.end - 1 : symbol.end] == "\n":
            end -= 1
        if end > start:
            ranges.append(types.FoldingRange(start, end, kind=types.FoldingRangeKind.Region))
        pending += symbol.children
    return sorted(ranges, key=lambda r: r.start_line)


def code_lenses(analysis: Analysis) -> list[types.CodeLens]:
    if analysis.workflow is None or not analysis.workflow.steps:
        return []
    where = analysis.positions.range(analysis.workflow.steps[0].span.start, analysis.workflow.steps[0].span.start)
    return [
        types.CodeLens(where, types.Command("▶ Dry run", "lobster.dryRun", arguments=[analysis.uri])),
        types.CodeLens(where, types.Command("Graph", "lobster.graph", arguments=[analysis.uri, "mermaid"])),
    ]


def schedule_lenses(analysis: Analysis, cache: ScheduleCache) -> list[types.CodeLens]:
    """One lens per schedule that runs this file (from the cache: the backend is read in the background)."""
    path = to_fs_path(analysis.uri)
    if analysis.workflow is None or not analysis.workflow.steps or not path:
        return []
    where = analysis.positions.range(analysis.workflow.steps[0].span.start, analysis.workflow.steps[0].span.start)
    return [types.CodeLens(where, types.Command(s.title, "lobster.schedules", arguments=[analysis.uri]))
            for s in cache.lookup(path)]


def _param(params: Any, *path: str) -> Any:
    """A field of a custom request's params, whether they arrive as a mapping or as an object."""
    for name in path:
        params = params.get(name) if isinstance(params, dict) else getattr(params, name, None)
    return params


def register(server: LobsterServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_COMPLETION, types.CompletionOptions(trigger_characters=TRIGGERS))
    def completion(ls: LobsterServer, params: types.CompletionParams) -> types.CompletionList:
        analysis = ls.current(params.text_document.uri)
        items = complete(analysis, analysis.positions.offset(params.position), ls.caps().completion_markdown)
        return types.CompletionList(is_incomplete=False, items=items)

    legend = types.SemanticTokensLegend(token_types=list(views.TOKEN_TYPES), token_modifiers=[])

    @server.feature(types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL, types.SemanticTokensRegistrationOptions(legend=legend, full=True))
    def semantic_tokens(ls: LobsterServer, params: types.SemanticTokensParams) -> types.SemanticTokens:
        return types.SemanticTokens(data=views.encoded_tokens(ls.current(params.text_document.uri)))

    @server.feature(types.TEXT_DOCUMENT_FOLDING_RANGE)
    def folding_ranges(ls: LobsterServer, params: types.FoldingRangeParams) -> list[types.FoldingRange]:
        return folding(ls.current(params.text_document.uri))

    @server.feature(types.TEXT_DOCUMENT_DOCUMENT_LINK)
    def document_links(ls: LobsterServer, params: types.DocumentLinkParams) -> list[types.DocumentLink]:
        return views.links(ls.current(params.text_document.uri), ls.caps().link_tooltip)

    @server.feature(types.TEXT_DOCUMENT_INLAY_HINT)
    def inlay_hints(ls: LobsterServer, params: types.InlayHintParams) -> list[types.InlayHint]:
        analysis = ls.current(params.text_document.uri)
        start, end = (analysis.positions.offset(p) for p in (params.range.start, params.range.end))
        return views.inlay_hints(analysis, start, end)

    @server.feature(types.TEXT_DOCUMENT_CODE_LENS)
    def lenses(ls: LobsterServer, params: types.CodeLensParams) -> list[types.CodeLens]:
        analysis = ls.current(params.text_document.uri)
        return code_lenses(analysis) + schedule_lenses(analysis, ls.schedules())

    @server.command("lobster.schedules")
    def schedules_of(ls: LobsterServer, uri: str) -> str:
        path = to_fs_path(uri)
        return "\n".join(s.title for s in ls.schedules().lookup(path)) if path else ""

    @server.command("lobster.dryRun")
    def dry_run(ls: LobsterServer, uri: str) -> str:
        return views.dry_run_text(ls.current(uri))

    @server.command("lobster.graph")
    def graph_command(ls: LobsterServer, uri: str, fmt: str = "mermaid") -> dict[str, str]:
        return views.graph(ls.current(uri), fmt)

    @server.feature(GRAPH_REQUEST)
    def graph_request(ls: LobsterServer, params: Any) -> dict[str, str]:
        uri = _param(params, "textDocument", "uri") or _param(params, "text_document", "uri")
        return views.graph(ls.current(str(uri)), str(_param(params, "format") or "mermaid"))
