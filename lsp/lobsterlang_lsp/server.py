"""The server object: document sync, debounced diagnostics (pull when the client supports it, push otherwise), config."""

from __future__ import annotations

import asyncio
import itertools
import logging
import os
import time
from pathlib import Path
from typing import Any, BinaryIO

from lsprotocol import types
from pygls.capabilities import get_capability
from pygls.exceptions import JsonRpcContentModified, JsonRpcException
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.uris import to_fs_path

from lobsterlang import __version__
from lobsterlang_lsp.convert import Capabilities, diagnostic
from lobsterlang_lsp.documents import Analysis, Documents, disk_text, uri_of, workspace_files
from lobsterlang_lsp.schedules import ScheduleCache, fetch_for
from lobsterlang_lsp.wire import serve_stdio

DEBOUNCE_SECONDS = 0.2
INDEX_LIMIT = 5000
"""Workflow files compiled ahead of time; a bigger workspace compiles the rest when a request needs them."""
QUIET_SECONDS = 0.05
"""How long the editor must have sent nothing before a small workspace file is compiled in the background."""
SMALL_FILE_BYTES = 16_000
"""A file this size compiles in a few milliseconds: it may be compiled while diagnostics wait out their
debounce (not within QUIET_SECONDS of them). A bigger one waits until the editor has been quiet for a
debounce period."""
CONFIG_GLOBS = ("**/.lobster.toml", "**/pyproject.toml")

logger = logging.getLogger(__name__)


class _Protocol(LanguageServerProtocol):
    """pygls's protocol, noting when the editor last sent anything: background work waits while it is busy."""

    def handle_message(self, message: Any) -> Any:
        server = self._server
        if isinstance(server, LobsterServer):
            server.active_at = time.monotonic()
        return super().handle_message(message)


class LobsterServer(LanguageServer):
    """A pygls server with the documents' analyses and one pending diagnostics task per document."""

    def __init__(self) -> None:
        super().__init__("lobster-lsp", __version__, protocol_cls=_Protocol)
        self.documents = Documents()
        self.pending: dict[str, asyncio.Task[None]] = {}
        self.debounce = DEBOUNCE_SECONDS
        self.indexing: asyncio.Task[None] | None = None
        self.changed_at: dict[str, float] = {}
        self.active_at = 0.0
        """When the editor last sent a message, or diagnostics were last sent (monotonic seconds)."""
        self.due: dict[str, float] = {}
        """When each document's diagnostics are due (monotonic seconds), until they are sent."""
        self._schedules: ScheduleCache | None = None

    def schedules(self) -> ScheduleCache:
        """The schedules of the backend the environment names, read in the background (`lsp.schedules`)."""
        if self._schedules is None:
            self._schedules = ScheduleCache(fetch_for(os.environ), self.refresh_lenses)
        return self._schedules

    def refresh_lenses(self) -> None:
        """Ask the client for its code lenses again (the schedules changed), if it can be asked."""
        if get_capability(self.client_capabilities, "workspace.code_lens.refresh_support", False):
            self.workspace_code_lens_refresh(None)

    def current(self, uri: str) -> Analysis:
        """The analysis of the document's current text (of what is on disk, read bounded, for a document that
        is not open: empty when that is not a readable workflow file)."""
        document = self.workspace.text_documents.get(uri)
        if document is not None:
            return self.documents.analysis(uri, document.source, document.version)
        path = to_fs_path(uri)
        return self.documents.analysis(uri, (disk_text(Path(path)) if path else None) or "", None)

    def start_io(self, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> None:
        """Serve on stdio with the bounded loop of `lsp.wire` (pygls's own ends on some bad input)."""
        serve_stdio(self, stdin, stdout)

    def analysis_of(self, path: Path) -> Analysis | None:
        """The analysis of a workspace file: its editor text when it is open, else what is on disk (None when
        that is not a regular UTF-8 file within the input limit: a FIFO or a device is never read)."""
        uri = uri_of(path)
        document = self.workspace.text_documents.get(uri)
        if document is not None:
            return self.documents.analysis(uri, document.source, document.version)
        text = disk_text(path)
        return None if text is None else self.documents.analysis(uri, text, None)

    async def index_workspace(self) -> None:
        """Compile every workflow file of the workspace once, between requests, so that the first rename or
        workspace symbol search does not have to: the smallest first, as they may run while the editor is busy.
        Open documents are compiled for their diagnostics anyway."""
        sized = sorted((_size(path), path) for path in itertools.islice(workspace_files(self.root_paths()), INDEX_LIMIT))
        for size, path in sized:
            await self.until_quiet(small=size <= SMALL_FILE_BYTES)
            if uri_of(path) in self.workspace.text_documents:
                continue
            analysis = self.analysis_of(path)
            if analysis is not None:
                _ = analysis.occurrences  # compiles, and indexes the names
            await asyncio.sleep(0)

    async def until_quiet(self, small: bool) -> None:
        """Wait until background work of this size cannot delay what the editor waits for: a small piece once
        the editor has sent nothing for QUIET_SECONDS and no diagnostics are due within as long; a big one
        once it has been quiet for a debounce period and no diagnostics are pending."""
        while not (self._quiet_for_small() if small else self._quiet_for_big()):
            await asyncio.sleep(QUIET_SECONDS / 2)

    def _quiet_for_small(self) -> bool:
        now = time.monotonic()
        soon = any(-self.debounce < due - now < QUIET_SECONDS for due in self.due.values())  # older: never pulled
        return now - self.active_at >= QUIET_SECONDS and not soon

    def _quiet_for_big(self) -> bool:
        return not self.pending and time.monotonic() - self.active_at >= self.debounce

    @property
    def pull(self) -> bool:
        """Whether diagnostics are pulled: the client pulls and can be told to pull again
        (`workspace/diagnostic/refresh`), as after a save or a config change the findings change with no edit.
        Other clients (Neovim 0.11 pulls, but cannot be refreshed) get them pushed; the server never does both."""
        caps = self.client_capabilities
        return (get_capability(caps, "text_document.diagnostic", None) is not None
                and bool(get_capability(caps, "workspace.diagnostics.refresh_support", False)))

    def refresh_pulled(self) -> None:
        """Ask a pulling client to pull again: the findings changed without an edit (a save, a config file)."""
        if self.pull:
            self.workspace_diagnostic_refresh(None)

    def caps(self) -> Capabilities:
        return Capabilities(self.client_capabilities, self.pull)

    def lsp_diagnostics(self, uri: str) -> list[types.Diagnostic]:
        analysis = self.current(uri)
        caps = self.caps()
        return [diagnostic(d, analysis, caps) for d in self.documents.findings(analysis)]

    def schedule(self, uri: str, delay: float) -> None:
        """Publish the document's diagnostics after `delay`, replacing an earlier pending publication."""
        previous = self.pending.pop(uri, None)
        if previous is not None:
            previous.cancel()
        self.due[uri] = time.monotonic() + delay
        if not self.pull:
            self.pending[uri] = asyncio.get_event_loop().create_task(self._publish(uri, delay))

    async def _publish(self, uri: str, delay: float) -> None:
        await asyncio.sleep(delay)
        version = self.workspace.get_text_document(uri).version
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri, self.lsp_diagnostics(uri), version))
        self.pending.pop(uri, None)
        self.due.pop(uri, None)
        self.active_at = time.monotonic()
        self.report_config_errors()

    def report_config_errors(self) -> None:
        """Show each broken config file once (its files are linted with the defaults meanwhile)."""
        for message in self.documents.new_config_errors():
            self.window_show_message(types.ShowMessageParams(types.MessageType.Warning, f"lobster: {message}"))

    def wait_for_quiet(self, uri: str) -> float:
        """How long until the debounce after the document's last change is over."""
        return max(0.0, self.changed_at.get(uri, 0.0) + self.debounce - time.monotonic())

    def root_paths(self) -> list[str]:
        folders = [to_fs_path(folder.uri) for folder in self.workspace.folders.values()]
        return [f for f in folders if f] or [p for p in [self.workspace.root_path] if p]


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def build() -> LobsterServer:
    """A server with every feature registered."""
    from lobsterlang_lsp import assist, editing, navigation
    from lobsterlang_lsp.errors import quiet_refusals

    quiet_refusals()
    server = LobsterServer()
    _register_sync(server)
    for module in (navigation, editing, assist):
        module.register(server)
    return server


def _register_sync(server: LobsterServer) -> None:
    @server.feature(types.INITIALIZE)
    def initialize(ls: LobsterServer, params: types.InitializeParams) -> None:
        """pygls has picked the client's first position encoding it knows: count characters in it. The
        capabilities are worked out after this handler: diagnostics are offered for pulling only to a client
        that pulls them and can be refreshed."""
        ls.documents.encoding = ls.workspace.position_encoding or types.PositionEncodingKind.Utf16
        if ls.pull:
            _register_pull(ls)

    @server.feature(types.INITIALIZED)
    async def initialized(ls: LobsterServer, params: types.InitializedParams) -> None:
        ls.indexing = asyncio.get_event_loop().create_task(ls.index_workspace())  # kept: a task needs a reference
        if get_capability(ls.client_capabilities, "workspace.did_change_watched_files.dynamic_registration", False):
            watchers = [types.FileSystemWatcher(glob_pattern=glob) for glob in CONFIG_GLOBS]
            options = types.DidChangeWatchedFilesRegistrationOptions(watchers=watchers)
            registration = types.Registration("lobster-config", types.WORKSPACE_DID_CHANGE_WATCHED_FILES, options)
            try:
                await ls.client_register_capability_async(types.RegistrationParams([registration]))
            except JsonRpcException as exc:  # the client may refuse: configs are then reloaded on save only
                logger.warning("could not watch config files: %s", exc)

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: LobsterServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.documents.dirty.discard(params.text_document.uri)
        ls.schedule(params.text_document.uri, 0)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: LobsterServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.documents.dirty.add(params.text_document.uri)
        ls.changed_at[params.text_document.uri] = time.monotonic()
        ls.schedule(params.text_document.uri, ls.debounce)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: LobsterServer, params: types.DidSaveTextDocumentParams) -> None:
        ls.documents.dirty.discard(params.text_document.uri)
        ls.documents.reload_configs()  # for clients that cannot watch the config files
        ls.schedule(params.text_document.uri, 0)
        ls.refresh_pulled()  # shellcheck runs on saved text, and a config may have changed

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: LobsterServer, params: types.DidCloseTextDocumentParams) -> None:
        pending = ls.pending.pop(params.text_document.uri, None)
        if pending is not None:
            pending.cancel()
        ls.due.pop(params.text_document.uri, None)
        ls.documents.forget(params.text_document.uri)
        if not ls.pull:
            ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(params.text_document.uri, []))

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def config_changed(ls: LobsterServer, params: types.DidChangeWatchedFilesParams) -> None:
        ls.documents.reload_configs()
        for uri in list(ls.workspace.text_documents):
            ls.schedule(uri, 0)
        ls.refresh_pulled()


_PULL_OPTIONS = types.DiagnosticOptions(inter_file_dependencies=False, workspace_diagnostics=False, identifier="lobster")


def _register_pull(server: LobsterServer) -> None:
    """Offer `textDocument/diagnostic` (called at initialization, for a client that pulls and can be refreshed)."""

    @server.feature(types.TEXT_DOCUMENT_DIAGNOSTIC, _PULL_OPTIONS)
    async def pull_diagnostics(ls: LobsterServer, params: types.DocumentDiagnosticParams) -> types.DocumentDiagnosticReport:
        uri = params.text_document.uri
        version = ls.workspace.get_text_document(uri).version
        await asyncio.sleep(ls.wait_for_quiet(uri))  # the client cancels this request when it sends a newer change
        if ls.workspace.get_text_document(uri).version != version:
            raise JsonRpcContentModified("the document changed; pull again")
        items = ls.lsp_diagnostics(uri)
        ls.due.pop(uri, None)
        ls.active_at = time.monotonic()
        ls.report_config_errors()
        return types.RelatedFullDocumentDiagnosticReport(items=items)


def main() -> None:
    """Serve on stdin/stdout until the client exits."""
    build().start_io()
