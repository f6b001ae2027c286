"""One shellcheck scheduler for a whole lint run: scripts go in as their files are checked, and each file
comes out as soon as shellcheck has answered for all of its scripts."""

from __future__ import annotations

import queue
import tempfile
import threading
from collections import deque
from collections.abc import Iterable, Iterator
from functools import partial
from pathlib import Path
from typing import Generic, TypeVar

from lobsterlang.cpus import usable_cpus
from lobsterlang.lint.lint_cache import Comments, shellcheck_version
from lobsterlang.lint.rules.shellcheck import ScriptMemo, check_batch, options, scratch_dir

File = TypeVar("File")
BATCH = 400
"""The most scripts per shellcheck process: a process costs a few milliseconds to start, a script about two,
and shellcheck slows down past about 1,000 files per run."""
LEAST = 8
"""The smallest batch of the tail."""
_Answer = tuple[list[str], list[Comments] | Exception | None]


class ShellcheckRuns(Generic[File]):
    """shellcheck over the scripts of many files, in one shellcheck process (and thread) per CPU at a time.

    Each distinct text is checked once, and texts `memo` knows are not checked. While files come in, a
    process starts as soon as a batch is full; after the last file (`rest`), the texts left go out in
    batches of a share of what is left (a quarter with two CPUs: guided self-scheduling), so that the processes
    end together. Use as a context manager; only the thread that made it calls its methods.
    """

    def __init__(self, program: str, memo: ScriptMemo, batch: int = BATCH, workers: int | None = None) -> None:
        self.memo = memo
        self._program = program
        self._batch = batch
        self._workers = workers or usable_cpus()
        self._seen: set[str] = set()
        self._waiting: dict[str, list[File]] = {}
        """By text not answered yet: the files waiting for it (a file once per script)."""
        self._missing: dict[File, int] = {}
        """By file: how many of its scripts are not answered yet."""
        self._ready: list[File] = []
        self._answers: queue.SimpleQueue[_Answer] = queue.SimpleQueue()
        self._todo: deque[str] = deque()
        """Texts no thread has taken yet (shared with the threads, under `_lock`)."""
        self._closed = False
        self._taken = 0
        self._lock = threading.Condition()
        self._threads: list[threading.Thread] = []
        self._tmp: tempfile.TemporaryDirectory[str] | None = None

    def __enter__(self) -> ShellcheckRuns[File]:
        return self

    def __exit__(self, *exc: object) -> None:
        with self._lock:
            self._closed = True
            self._todo.clear()
            self._lock.notify_all()
        for thread in self._threads:
            thread.join()
        if self._tmp is not None:
            self._tmp.cleanup()

    def add(self, file: File, texts: Iterable[str]) -> None:
        """The scripts of `file`: it is ready once shellcheck has answered for each (at once when it has none to wait for)."""
        missing = 0
        new = []
        for text in texts:
            waiting = self._waiting.get(text)
            if waiting is None and text not in self._seen:
                self._seen.add(text)
                if self.memo.get(text) is None:
                    waiting = self._waiting[text] = []
                    new.append(text)
            if waiting is not None:
                waiting.append(file)
                missing += 1
        if missing:
            self._missing[file] = missing
        else:
            self._ready.append(file)
        if new:
            self._queue(new)

    def ready(self) -> list[File]:
        """The files whose scripts shellcheck has answered for since the last call, without waiting."""
        while True:
            try:
                self._take_answer(self._answers.get_nowait())
            except queue.Empty:
                break
        ready, self._ready = self._ready, []
        return ready

    def rest(self) -> Iterator[File]:
        """After the last `add`: every file not yet ready, as it becomes ready."""
        with self._lock:
            self._closed = True
            self._lock.notify_all()
        yield from self.ready()
        while self._waiting:
            self._take_answer(self._answers.get())
            yield from self.ready()

    def comments(self, text: str) -> Comments:
        """shellcheck's comments on a text added and answered for (none where shellcheck failed)."""
        return self.memo.get(text) or []

    def _take_answer(self, answer: _Answer) -> None:
        batch, comments = answer
        if isinstance(comments, Exception):
            raise comments
        if comments is not None:
            self.memo.learned.update(zip(batch, comments, strict=True))
        for text in batch:
            for file in self._waiting.pop(text):
                left = self._missing[file] - 1
                if left:
                    self._missing[file] = left
                else:
                    del self._missing[file]
                    self._ready.append(file)

    def _queue(self, texts: list[str]) -> None:
        if not self._threads:
            self._start()
        with self._lock:
            self._todo.extend(texts)
            if len(self._todo) >= self._batch:
                self._lock.notify_all()

    def _start(self) -> None:
        self._tmp = tempfile.TemporaryDirectory(prefix="lobster-shellcheck-", dir=scratch_dir())
        flags = options(self.memo.version or shellcheck_version(None, self._program))
        check = partial(check_batch, tmp=Path(self._tmp.name), program=self._program, flags=flags)
        self._threads = [threading.Thread(target=self._work, args=(check,), daemon=True) for _ in range(self._workers)]
        for thread in self._threads:
            thread.start()

    def _work(self, check: partial[list[Comments] | None]) -> None:
        """One thread: take a batch, run shellcheck on it, hand the answer over; until nothing is left."""
        while True:
            taken = self._next_batch()
            if taken is None:
                return
            number, batch = taken
            try:
                answer: list[Comments] | Exception | None = check(batch, number)
            except Exception as error:  # re-raised in the thread that reads the answers
                answer = error
            self._answers.put((batch, answer))

    def _next_batch(self) -> tuple[int, list[str]] | None:
        with self._lock:
            while not self._closed and len(self._todo) < self._batch:
                self._lock.wait()
            if not self._todo:
                return None
            batch = [self._todo.popleft() for _ in range(min(self._size(), len(self._todo)))]
            self._taken += 1
            return self._taken, batch

    def _size(self) -> int:
        """A full batch while files come in; then half of each process's share of what is left."""
        if not self._closed:
            return self._batch
        return min(self._batch, max(LEAST, -(-len(self._todo) // (2 * self._workers))))
