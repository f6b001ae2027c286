# mypy: disable-error-code="union-attr, index, arg-type, untyped-decorator"
"""A client that shows plain text (Eglot without markdown-mode) gets hovers and completion docs without markdown."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator

import pytest
import pytest_lsp
from lsp_helpers import SERVER, STRICT, diagnostics, doc, open_doc, position, start
from lsprotocol import types
from pytest_lsp import LanguageClient

pytestmark = [pytest.mark.asyncio(loop_scope="module"), STRICT]

FLOW = """\
steps:
  - id: fetch
    run: echo hi
  - id: keep
    pipeline: pikc a | pick a
    stdin: $fetch.json
    when: $fetch.json.0.a == 1
"""
MARKDOWN = re.compile(r"\*\*|`|\]\(|^---$", re.MULTILINE)


@pytest_lsp.fixture(config=SERVER, scope="module")
async def client(lsp_client: LanguageClient, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[None]:
    await start(lsp_client, "eglot-1.9", tmp_path_factory.mktemp("plain"))
    yield
    await lsp_client.shutdown_session()


async def hover(client: LanguageClient, uri: str, needle: str) -> types.MarkupContent:
    found = await client.text_document_hover_async(types.HoverParams(doc(uri), position(FLOW, needle, 1)))
    assert found is not None and isinstance(found.contents, types.MarkupContent)
    return found.contents


async def test_hovers_are_plain_text(client: LanguageClient, tmp_path_factory: pytest.TempPathFactory) -> None:
    uri = open_doc(client, tmp_path_factory.mktemp("doc") / "flow.lobster", FLOW)
    assert "L201" in {d.code for d in await diagnostics(client, uri)}
    for needle in ("pick a", "pikc", "when:", "stdin:", "$fetch.json"):
        contents = await hover(client, uri, needle)
        assert contents.kind == types.MarkupKind.PlainText and contents.value
        assert not MARKDOWN.search(contents.value), (needle, contents.value)
    finding = await hover(client, uri, "pikc")
    assert "L201 unknown-command: " in finding.value and "(docs: https://lobsterlang.dev/rules/L201/)" in finding.value


async def test_completion_docs_are_plain_text(client: LanguageClient, tmp_path_factory: pytest.TempPathFactory) -> None:
    text = FLOW + "  - id: last\n    pipeline: exec --json | "
    uri = open_doc(client, tmp_path_factory.mktemp("doc") / "edited.lobster", text)
    found = await client.text_document_completion_async(types.CompletionParams(doc(uri), position(text, "| ", 2)))
    documented = [i for i in found.items if i.documentation]
    assert documented and all(isinstance(i.documentation, str) for i in documented)
    assert not any(MARKDOWN.search(str(i.documentation)) for i in documented)
