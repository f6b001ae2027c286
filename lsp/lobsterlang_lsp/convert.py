"""lobsterlang values → LSP values: diagnostics (with rule docs and related locations), edits, markup."""

from __future__ import annotations

import re
import textwrap
from functools import cache

from lsprotocol import types
from pygls.capabilities import get_capability

from lobsterlang.diagnostics import Diagnostic, Edit, Severity
from lobsterlang_lsp.documents import Analysis

_SEVERITY = {
    Severity.ERROR: types.DiagnosticSeverity.Error,
    Severity.WARNING: types.DiagnosticSeverity.Warning,
    Severity.INFO: types.DiagnosticSeverity.Information,
}


class Capabilities:
    """The client features a result may use."""

    def __init__(self, client: types.ClientCapabilities, pull: bool) -> None:
        prefix = "text_document.diagnostic" if pull else "text_document.publish_diagnostics"
        self.related = bool(get_capability(client, f"{prefix}.related_information", False))
        self.code_description = bool(get_capability(client, f"{prefix}.code_description_support", False))
        formats = get_capability(client, "text_document.completion.completion_item.documentation_format", []) or []
        self.completion_markdown = types.MarkupKind.Markdown in formats
        hover = get_capability(client, "text_document.hover.content_format", []) or []
        self.hover_markdown = types.MarkupKind.Markdown in hover or not hover
        self.link_tooltip = bool(get_capability(client, "text_document.document_link.tooltip_support", False))


def diagnostic(diag: Diagnostic, analysis: Analysis, caps: Capabilities) -> types.Diagnostic:
    message = diag.message + (f"\nhint: {diag.hint}" if diag.hint else "")
    docs = rule_doc_uri(diag.code) if caps.code_description else None
    return types.Diagnostic(
        range=analysis.positions.range(diag.span.start, diag.span.end),
        message=message,
        severity=_SEVERITY[diag.severity],
        code=diag.code,
        code_description=types.CodeDescription(href=docs) if docs else None,
        source="lobster",
        related_information=related(diag, analysis) if caps.related else None,
    )


@cache
def rule_doc_uri(code: str) -> str | None:
    """The lint rule's page on the documentation site (None for compile errors: they have no page)."""
    from lobsterlang.lint import all_rules

    rule = all_rules().get(code)
    return rule.docs_url if rule is not None else None


def related(diag: Diagnostic, analysis: Analysis) -> list[types.DiagnosticRelatedInformation] | None:
    """Where the steps and args a finding points at are defined (other than under the finding itself)."""
    if analysis.workflow is None:
        return None
    found = [
        types.DiagnosticRelatedInformation(
            types.Location(analysis.uri, analysis.positions.range(o.start, o.end)), f"{o.kind} `{o.name}` is defined here"
        )
        for o in analysis.definitions_of(analysis.names_under(diag))
        if not diag.span.start <= o.start < diag.span.end
    ]
    return found or None


def text_edit(edit: Edit, analysis: Analysis) -> types.TextEdit:
    return types.TextEdit(analysis.positions.range(edit.span.start, edit.span.end), edit.new_text)


def markup(text: str, markdown: bool) -> types.MarkupContent:
    """Markdown `text` as the client asked for it: as is, or as plain text."""
    if markdown:
        return types.MarkupContent(types.MarkupKind.Markdown, text)
    return types.MarkupContent(types.MarkupKind.PlainText, plain_text(text))


_FENCE = re.compile(r"^```[^\n]*\n(.*?)^```[ \t]*(?:\n|\Z)", re.MULTILINE | re.DOTALL)
_RULE = re.compile(r"\n\n---\n\n")
_LINK = re.compile(r"\[([^\]\n]+)\]\(([^)\s]+)\)")
_BOLD = re.compile(r"\*\*(.+?)\*\*")
_CODE = re.compile(r"`([^`\n]+)`")


def plain_text(markdown: str) -> str:
    """The markdown the server writes (hovers, completion docs, schema descriptions) for a client that shows plain
    text: code blocks indented, `[label](url)` as `label: url`, no `**`, backticks or `---` rules."""
    parts, position = [], 0
    for block in _FENCE.finditer(markdown):
        parts += [_plain_inline(markdown[position : block.start()]), textwrap.indent(block.group(1), "    ")]
        position = block.end()
    parts.append(_plain_inline(markdown[position:]))
    return "".join(parts)


def _plain_inline(text: str) -> str:
    text = _RULE.sub("\n\n", text)
    text = _LINK.sub(lambda link: f"{link.group(1)}: {link.group(2)}", text)
    return _CODE.sub(lambda code: code.group(1), _BOLD.sub(lambda bold: bold.group(1), text))
