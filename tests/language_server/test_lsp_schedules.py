# mypy: disable-error-code="union-attr, index, arg-type, no-untyped-call, untyped-decorator"
"""The code lens of a workflow file names the schedules that run it, read in the background: a lens request never
waits for the backend, and a read that does not answer in time only means no schedule lenses."""

from __future__ import annotations

import asyncio
import json
import shutil
import sys
import tempfile
import threading
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import pytest_lsp
from lobsterlang_lsp.schedules import ScheduleCache, Shown
from lsp_helpers import DEADLINE, doc, open_doc, start
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

STATE = Path(tempfile.mkdtemp(prefix="lobster-lsp-schedules-"))
SERVER = ClientServerConfig(server_command=[sys.executable, "-m", "lobsterlang", "lsp"],
                            server_env={"LOBSTER_STATE_DIR": str(STATE / "state"), "LOBSTER_BACKEND": "", "PATH": "/usr/bin:/bin"})
FLOW = "steps:\n  - id: hello\n    run: echo hi\n"


@pytest.fixture(scope="module")
def workspace() -> Iterator[Path]:
    """A workflow file with one schedule in the state directory the server reads."""
    root = STATE / "ws"
    root.mkdir()
    (root / "flow.lobster").write_text(FLOW)
    schedules = STATE / "state" / "schedules"
    schedules.mkdir(parents=True)
    (schedules / "morning.json").write_text(json.dumps({
        "name": "morning", "cron": "30 7 * * 1-5", "timezone": "Europe/Berlin", "file": str(root / "flow.lobster"),
        "args": {}, "overlap": "skip", "catchUp": "last", "cwd": str(root), "paused": False}))
    yield root
    shutil.rmtree(STATE, ignore_errors=True)


@pytest_lsp.fixture(config=SERVER)
async def client(lsp_client: LanguageClient, workspace: Path) -> AsyncIterator[None]:
    await start(lsp_client, "visual-studio-code", workspace)
    yield
    await lsp_client.shutdown_session()


@pytest.mark.asyncio
async def test_the_lens_names_the_schedules_of_the_file(client: LanguageClient, workspace: Path) -> None:
    refreshed = asyncio.Event()

    @client.feature(types.WORKSPACE_CODE_LENS_REFRESH)
    def refresh(params: None) -> None:
        refreshed.set()

    uri = open_doc(client, workspace / "flow.lobster")
    first = await client.text_document_code_lens_async(types.CodeLensParams(doc(uri)))
    titles = [lens.command.title for lens in first]
    if not any("schedule" in t for t in titles):  # the read had not finished: the server asks for lenses again
        await asyncio.wait_for(refreshed.wait(), DEADLINE)
        titles = [lens.command.title for lens in await client.text_document_code_lens_async(types.CodeLensParams(doc(uri)))]
    [shown] = [t for t in titles if "schedule" in t]
    assert shown.startswith("⏱ schedule morning: 30 7 * * 1-5 (Europe/Berlin), next ")
    listed = await client.workspace_execute_command_async(types.ExecuteCommandParams("lobster.schedules", [uri]))
    assert listed == shown


def test_a_lens_request_never_waits_for_the_backend() -> None:
    release = threading.Event()
    news: list[bool] = []

    def slow() -> dict[str, list[Shown]]:
        release.wait(DEADLINE)
        return {str(Path("/x/flow.lobster").resolve()): [Shown("m", "@daily", "UTC", None, True)]}

    async def scenario() -> None:
        cache = ScheduleCache(slow, lambda: news.append(True))
        assert cache.lookup("/x/flow.lobster") == []  # answered while the read is blocked
        assert cache.reading is not None
        release.set()
        await cache.reading
        assert news == [True] and [s.title for s in cache.lookup("/x/flow.lobster")] == ["⏸ schedule m: paused (@daily, UTC)"]

    asyncio.run(scenario())


def test_a_read_that_does_not_answer_in_time_gives_no_lenses_and_is_tried_again() -> None:
    never = threading.Event()
    news: list[bool] = []

    async def scenario() -> None:

        def blocked() -> dict[str, list[Shown]]:
            never.wait(DEADLINE)
            return {}

        cache = ScheduleCache(blocked, lambda: news.append(True), refresh_s=0, timeout_s=0.01)
        assert cache.lookup("/x/flow.lobster") == []
        reading = cache.reading
        assert reading is not None
        await reading  # gave up
        assert cache.reading is None and news == [] and cache.read_at is not None
        cache.lookup("/x/flow.lobster")
        assert cache.reading is not None and cache.reading is not reading  # stale again: another read starts
        never.set()  # the reads' threads end

    asyncio.run(scenario())
