"""Shared set-up of the language server tests: the server command, client profiles, documents, waiting for diagnostics."""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.protocol import default_converter
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

SERVER = ClientServerConfig(server_command=[sys.executable, "-m", "lobsterlang", "lsp"])
PROFILES = ["visual-studio-code", "neovim", "emacs", "helix", "vscode-languageclient-11"]
"""The capability profiles pytest-lsp ships (VS Code 1.65, Neovim 0.11, Emacs 29.1), Helix's, written from its source
(`clients/helix.json`), and a client that pulls diagnostics and can be refreshed (`PULLING`)."""
RECORDED = {name: Path(__file__).parent / "clients" / f"{name}.json" for name in ("helix", "eglot-1.9")}
"""Capabilities written from the clients' sources: Helix, and Emacs 28's Eglot 1.9 without markdown-mode."""
PULLING = {
    "textDocument": {"diagnostic": {
        "relatedInformation": True, "tagSupport": {"valueSet": [1, 2]}, "codeDescriptionSupport": True, "dataSupport": True,
        "dynamicRegistration": True, "relatedDocumentSupport": False, "markupMessageSupport": False,
    }},
    "workspace": {"diagnostics": {"refreshSupport": True}},
}
"""What vscode-languageclient 11.0.0 adds for diagnostics (`DiagnosticFeature.fillClientCapabilities` in
`lib/common/diagnostic.js`): pulled, and refreshed on the server's request. Put over the VS Code 1.65 profile."""

REGISTERED: list[types.Registration] = []
"""What the server registered dynamically (the config file watchers)."""
OFFERED: dict[LanguageClient, types.ServerCapabilities] = {}
"""What the server offered each client at initialization."""
DEADLINE = 60.0
"""Seconds a test waits for something the server sends: a failsafe, never reached when the server works."""

STRICT = pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning")
"""Protocol checks on: a result the client's capabilities do not allow fails the test."""


async def start(client: LanguageClient, profile: str, root: Path) -> None:
    @client.feature(types.CLIENT_REGISTER_CAPABILITY)  # type: ignore[untyped-decorator, unused-ignore]
    def register_capability(params: types.RegistrationParams) -> None:
        REGISTERED.extend(params.registrations)

    OFFERED[client] = (await client.initialize_session(
        types.InitializeParams(
            capabilities=capabilities(profile),
            root_uri=root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(root.as_uri(), root.name)],
        )
    )).capabilities


def capabilities(profile: str) -> types.ClientCapabilities:
    """A client's capabilities: pytest-lsp's profile, one of `RECORDED`, or VS Code with vscode-languageclient 11."""
    if profile == "vscode-languageclient-11":
        recorded = _merged(_unstructured(client_capabilities("visual-studio-code")), PULLING)
    elif profile in RECORDED:
        recorded = json.loads(RECORDED[profile].read_text(encoding="utf-8"))["capabilities"]
    else:
        return client_capabilities(profile)
    converted: types.ClientCapabilities = default_converter().structure(recorded, types.ClientCapabilities)  # type: ignore[no-untyped-call, unused-ignore]
    return converted


def _unstructured(caps: types.ClientCapabilities) -> dict[str, Any]:
    data: dict[str, Any] = default_converter().unstructure(caps)  # type: ignore[no-untyped-call, unused-ignore]
    return data


def _merged(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in extra.items():
        merged[key] = _merged(merged.get(key) or {}, value) if isinstance(value, dict) else value
    return merged


def open_doc(client: LanguageClient, path: Path, text: str | None = None, version: int = 1) -> str:
    uri = path.as_uri()
    content = path.read_text(encoding="utf-8") if text is None else text
    forget_push(client, uri)
    client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "lobster", version, content)))
    return uri


def change_doc(client: LanguageClient, uri: str, text: str, version: int) -> None:
    change = types.TextDocumentContentChangeWholeDocument(text)
    client.text_document_did_change(types.DidChangeTextDocumentParams(types.VersionedTextDocumentIdentifier(version=version, uri=uri), [change]))


def doc(uri: str) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri)


def pulls(client: LanguageClient) -> bool:
    """Whether the server lets this client pull diagnostics: it pulls and can be refreshed."""
    caps = client.capabilities
    if caps is None or caps.text_document is None or caps.text_document.diagnostic is None:
        return False
    return caps.workspace is not None and caps.workspace.diagnostics is not None and bool(caps.workspace.diagnostics.refresh_support)


async def diagnostics(client: LanguageClient, uri: str) -> list[types.Diagnostic]:
    """The document's diagnostics: pulled when the client pulls, else the next push (call `forget_push` before the edit)."""
    if pulls(client):
        report = await client.text_document_diagnostic_async(types.DocumentDiagnosticParams(doc(uri)))
        assert isinstance(report, types.RelatedFullDocumentDiagnosticReport)
        return list(report.items)
    await until(lambda: uri in client.diagnostics, f"diagnostics published for {uri}")
    return list(client.diagnostics[uri])


async def until(condition: Callable[[], bool], what: str) -> None:
    """Wait until `condition()` holds (checked every 20 ms), failing after `DEADLINE` seconds."""
    deadline = time.monotonic() + DEADLINE
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {DEADLINE:.0f} s for {what}")
        await asyncio.sleep(0.02)


def forget_push(client: LanguageClient, uri: str) -> None:
    client.diagnostics.pop(uri, None)


def position(text: str, needle: str, shift: int = 0) -> types.Position:
    offset = text.index(needle) + shift
    line = text.count("\n", 0, offset)
    return types.Position(line, offset - (text.rfind("\n", 0, offset) + 1))


def apply_edits(text: str, edits: list[types.TextEdit]) -> str:
    """Apply LSP edits to ASCII text (tests use ASCII documents)."""
    lines = text.split("\n")
    starts = [0]
    for line in lines[:-1]:
        starts.append(starts[-1] + len(line) + 1)

    def offset(p: types.Position) -> int:
        return starts[p.line] + p.character if p.line < len(starts) else len(text)

    for edit in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        text = text[: offset(edit.range.start)] + edit.new_text + text[offset(edit.range.end) :]
    return text
