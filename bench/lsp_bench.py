"""Drive `lobster lsp` over stdio like an editor and report latency percentiles and memory.

A project with a 500-step file and a folder of 200 files that all call one sub-workflow. The editor starts
the server on it (which compiles the workspace in the background), opens the 500-step file, makes 50 edits
(waiting for each edit's diagnostics), asks 50 completions and 50 hovers; then renames the sub-workflow's
arg (every caller's `workflow_args` key changes), opens all 200 files and reads the server's RSS.

    python bench/lsp_bench.py [--files 200] [--steps 500] [--edits 50]

Diagnostics latency is measured from the edit to the published diagnostics, minus the server's debounce;
the server's CPU time over the same interval (Linux scheduler statistics) is printed too, as it varies far
less than the latency on a shared, loaded machine. Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient

sys.path.insert(0, str(Path(__file__).resolve().parent))

from corpus import workflow, write_corpus
from harness import load_note, lobster_command
from lobsterlang_lsp.server import DEBOUNCE_SECONDS

CHILD = "args:\n  target:\n    default: main\nsteps:\n  - id: show\n    run: echo \"$LOBSTER_ARG_TARGET\"\n"
CALL = "  - id: call_child\n    workflow: child.lobster\n    workflow_args:\n      target: ${%s}\n"


class Editor:
    """A client that records when each document's diagnostics arrive."""

    def __init__(self) -> None:
        self.client = LanguageClient("lsp-bench", "1")
        self.published: dict[str, asyncio.Event] = {}

        @self.client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)  # type: ignore[untyped-decorator, unused-ignore]
        def published(params: types.PublishDiagnosticsParams) -> None:
            self.published.setdefault(params.uri, asyncio.Event()).set()

    async def start(self, root: Path) -> None:
        await self.client.start_io(*lobster_command(), "lsp")
        caps = types.ClientCapabilities(
            text_document=types.TextDocumentClientCapabilities(
                publish_diagnostics=types.PublishDiagnosticsClientCapabilities(related_information=True)),
        )
        folder = types.WorkspaceFolder(root.as_uri(), root.name)
        await self.client.initialize_async(types.InitializeParams(capabilities=caps, root_uri=root.as_uri(), workspace_folders=[folder]))
        self.client.initialized(types.InitializedParams())

    def expect(self, uri: str) -> asyncio.Event:
        event = self.published[uri] = asyncio.Event()
        return event

    def open(self, path: Path, text: str | None = None) -> str:
        uri = path.as_uri()
        item = types.TextDocumentItem(uri, "lobster", 1, path.read_text() if text is None else text)
        self.client.text_document_did_open(types.DidOpenTextDocumentParams(item))
        return uri

    def change(self, uri: str, text: str, version: int) -> None:
        change = types.TextDocumentContentChangeWholeDocument(text)
        ident = types.VersionedTextDocumentIdentifier(version=version, uri=uri)
        self.client.text_document_did_change(types.DidChangeTextDocumentParams(ident, [change]))

    def cpu_ms(self) -> float:
        """The CPU time the server has used so far (all its threads; Linux's scheduler statistics, in ns)."""
        pid = self.client._server.pid if self.client._server else None
        return sum(int(stat.read_text().split()[0]) for stat in Path(f"/proc/{pid}/task").glob("*/schedstat")) / 1e6

    def rss_mb(self) -> float:
        pid = self.client._server.pid if self.client._server else None
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return float("nan")

    async def stop(self) -> None:
        await self.client.shutdown_async(None)
        self.client.exit(None)
        await self.client.stop()  # type: ignore[no-untyped-call, unused-ignore]


def position(text: str, offset: int) -> types.Position:
    return types.Position(text.count("\n", 0, offset), offset - (text.rfind("\n", 0, offset) + 1))


async def timed(work: object) -> float:
    start = time.perf_counter()
    await work  # type: ignore[misc]
    return (time.perf_counter() - start) * 1000


async def big_file(editor: Editor, root: Path, steps: int, edits: int) -> dict[str, list[float]]:
    path = root / "big.lobster"
    text = path.read_text()
    event = editor.expect(path.as_uri())
    uri = editor.open(path)
    await event.wait()
    diag, cpu, completion, hover = [], [], [], []
    anchor = text.index("steps:\n")
    for version in range(2, edits + 2):
        text = text[:anchor] + f"# edit {version}\n" + text[anchor:]
        event = editor.expect(uri)
        start, used = time.perf_counter(), editor.cpu_ms()
        editor.change(uri, text, version)
        await event.wait()
        diag.append((time.perf_counter() - start - DEBOUNCE_SECONDS) * 1000)
        cpu.append(editor.cpu_ms() - used)
    dollars = [i + 1 for i in range(len(text)) if text[i] == "$"][: edits]
    for offset in dollars:
        params = types.CompletionParams(text_document=types.TextDocumentIdentifier(uri), position=position(text, offset))
        completion.append(await timed(editor.client.text_document_completion_async(params)))
        hovered = types.HoverParams(text_document=types.TextDocumentIdentifier(uri), position=position(text, offset + 1))
        hover.append(await timed(editor.client.text_document_hover_async(hovered)))
    return {"diagnostics after debounce": diag, "server CPU per edit": cpu, "completion": completion, "hover": hover}


def write_project(root: Path, files: int, steps: int) -> list[Path]:
    """The 500-step file, and a folder of `files` workflows that all call `child.lobster`."""
    (root / "big.lobster").write_text(workflow("lsp-bench", steps))
    folder = root / "ws"
    folder.mkdir()
    (folder / "child.lobster").write_text(CHILD)
    paths = write_corpus(folder, files)
    for path in paths:
        text = path.read_text()
        arg = text.split("args:\n  ", 1)[1].split(":", 1)[0]
        path.write_text(text + CALL % arg)
    return paths


async def workspace(editor: Editor, root: Path, paths: list[Path]) -> tuple[float, int, float]:
    folder = root / "ws"
    child = editor.open(folder / "child.lobster")
    params = types.RenameParams(text_document=types.TextDocumentIdentifier(child), position=position(CHILD, CHILD.index("target")),
                                new_name="branch")
    start = time.perf_counter()
    result = await editor.client.text_document_rename_async(params)
    rename_ms = (time.perf_counter() - start) * 1000
    changed = len(result.changes or {}) if result else 0
    events = [editor.expect(path.as_uri()) for path in paths]
    for path in paths:
        editor.open(path)
    await asyncio.gather(*(e.wait() for e in events))
    return rename_ms, changed, editor.rss_mb()


def summary(name: str, values: list[float]) -> str:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return f"{name:28} p50 {statistics.median(ordered):7.1f} ms   p95 {p95:7.1f} ms   max {ordered[-1]:7.1f} ms   (n={len(ordered)})"


async def main(files: int, steps: int, edits: int) -> None:
    with tempfile.TemporaryDirectory(prefix="lsp-bench-") as tmp:
        root = Path(tmp)
        paths = write_project(root, files, steps)
        editor = Editor()
        await editor.start(root)
        try:
            figures = await big_file(editor, root, steps, edits)
            rename_ms, changed, rss = await workspace(editor, root, paths)
        finally:
            await editor.stop()
    print(f"{load_note()}; {steps}-step file, {edits} edits; workspace of {files} files; debounce {DEBOUNCE_SECONDS * 1000:.0f} ms")
    for name, values in figures.items():
        print(summary(name, values))
    print(f"{'rename over the workspace':28} {rename_ms:7.1f} ms   ({changed} files changed)")
    print(f"{'server RSS, all files open':28} {rss:7.1f} MB")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=200)
    parser.add_argument("--steps", type=int, default=500)
    parser.add_argument("--edits", type=int, default=50)
    options = parser.parse_args()
    asyncio.run(main(options.files, options.steps, options.edits))
