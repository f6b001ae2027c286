"""The engine's own backend: JSON-lines journals and gate state files under one state directory."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from lobsterlang.interpret.errors import StateIntegrityError
from lobsterlang.interpret.state import StateStore
from lobsterlang.interpret.statefiles import CorruptState, is_real_dir
from lobsterlang.interpret.workflow.journal import Journal
from lobsterlang.interpret.workflow.runlock import holder_pid
from lobsterlang.interpret.workflow.runlog import RunLog, list_runs, read_journal, runs_dir
from lobsterlang.interpret.workflow.stores import Holder


@dataclass
class FileBackend:
    """Runs in `<state dir>/runs/<run id>.jsonl`, gate state in `<state dir>/*.json`."""

    store: StateStore

    def journal(self, run_id: str) -> Journal:
        return Journal(self.store, run_id)

    def hold(self, run_id: str) -> None:
        """Nothing to take here: one machine's runs are serialised by the state directory's run locks."""

    def has_run(self, run_id: str) -> bool:
        path = self._path(run_id)
        return path is not None and os.path.lexists(path)

    def _path(self, run_id: str) -> Path | None:
        """Where run `run_id`'s journal is (None for an id that is not a plain file name)."""
        if not run_id or "/" in run_id or "\0" in run_id or run_id in (".", ".."):
            return None
        return runs_dir(self.store) / f"{run_id}.jsonl"

    def read_run(self, run_id: str) -> RunLog | None:
        path = self._path(run_id)
        if path is None:
            return None
        try:
            return read_journal(path) if is_real_dir(str(path.parent)) else None
        except CorruptState as exc:
            raise StateIntegrityError(f"The journal of run {run_id} cannot be read: {exc}; nothing ran") from None

    def list_runs(self) -> list[RunLog]:
        return list_runs(self.store)

    def holders(self, run_ids: list[str]) -> dict[str, Holder]:
        """The processes holding the runs' lock files (this machine's processes: the state directory is local)."""
        pids = {run_id: holder_pid(self.store, run_id) for run_id in run_ids}
        return {run_id: Holder(pid) for run_id, pid in pids.items() if pid is not None}
