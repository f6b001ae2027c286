"""Child processes in their own process group, killed with every descendant on cancel, timeout or early stop.

Output is read while the child runs and capped: more than the cap on stdout or on stderr kills the tree.
"""

from __future__ import annotations

import contextlib
import errno
import itertools
import os
import secrets
import select
import signal
import subprocess
import threading
import time
import weakref
from collections.abc import Callable, Iterator, Mapping, Sequence

from lobsterlang.interpret.errors import Cancelled, CommandError
from lobsterlang.interpret.hostkey import without_key
from lobsterlang.interpret.outputcap import OutputCap
from lobsterlang.interpret.reaper import TAG_VAR, kill_tagged

FORCE_KILL_AFTER_S = 0.25
QUIET_S = 1.0
"""Past its output cap, a child that writes nothing for this long is not waited for any more."""
TOO_BIG = (
    "cannot start {program}: its arguments or environment are too large (Argument list too long; "
    "Linux allows 128 KiB per argument or variable, and args reach steps as LOBSTER_ARG_<NAME>)"
)
_TAGS: weakref.WeakKeyDictionary[subprocess.Popen[bytes], str] = weakref.WeakKeyDictionary()


class Cancellation:
    """Shared by one run: records why it was cancelled and kills the process groups it started."""

    def __init__(self) -> None:
        self.reason: str | None = None
        self.exit_code = 130
        self._live: set[subprocess.Popen[bytes]] = set()
        self._lock = threading.Lock()
        self._watchers: list[Callable[[], None]] = []
        self.tag = secrets.token_hex(6)
        self._count = itertools.count(1)

    @property
    def cancelled(self) -> bool:
        return self.reason is not None

    def check(self) -> None:
        """Raise `Cancelled` if the run was cancelled."""
        if self.reason is not None:
            raise Cancelled(self.reason, self.exit_code)

    def cancel(self, reason: str, exit_code: int = 130) -> None:
        """Mark the run cancelled and kill every live process tree (SIGTERM, then SIGKILL)."""
        if self.reason is None:
            self.reason, self.exit_code = reason, exit_code
        self.notify_watchers()
        for proc in self._snapshot():
            kill_tree(proc)
        self.sweep()

    @contextlib.contextmanager
    def watch(self, stop: Callable[[], None]) -> Iterator[None]:
        """While the block runs, a cancellation calls `stop` (from the cancelling thread; at once when already
        cancelled): how a wait that is not a child process, such as an HTTP reply, is ended."""
        with self._lock:
            self._watchers.append(stop)
            already = self.reason is not None
        if already:
            stop()
        try:
            yield
        finally:
            with self._lock:
                self._watchers.remove(stop)

    def notify_watchers(self) -> None:
        with self._lock:
            watchers = list(self._watchers)
        for stop in watchers:
            stop()

    def sweep(self) -> None:
        """Kill whatever this run started that is still alive, inside its process groups or not."""
        kill_tagged(self.tag)

    def spawn(self, argv: Sequence[str], env: Mapping[str, str], cwd: str, *, stdin: bool) -> subprocess.Popen[bytes]:
        """Start `argv` (never through a shell) in a new process group, tagged, and track it."""
        self.check()
        tagged = {**without_key(env), TAG_VAR: f"{self.tag}.{next(self._count)}"}  # a step never sees the signing key
        try:
            proc = subprocess.Popen(
                list(argv), env=tagged, cwd=cwd, shell=False, start_new_session=True,
                stdin=subprocess.PIPE if stdin else subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            )
        except OSError as exc:
            if exc.errno == errno.E2BIG:
                raise CommandError(TOO_BIG.format(program=argv[0])) from None
            raise
        _TAGS[proc] = tagged[TAG_VAR]
        with self._lock:
            self._live.add(proc)
        if self.reason is not None:  # cancelled while it started: `cancel()` could not see it yet
            kill_tree(proc)
            self.forget(proc)
            self.check()
        return proc

    def forget(self, proc: subprocess.Popen[bytes]) -> None:
        with self._lock:
            self._live.discard(proc)

    def _snapshot(self) -> list[subprocess.Popen[bytes]]:
        with self._lock:
            return list(self._live)


def kill_tree(proc: subprocess.Popen[bytes], grace: float = FORCE_KILL_AFTER_S) -> None:
    """SIGTERM the child's whole process group, then SIGKILL it and every descendant after `grace` seconds."""
    signal_group(proc.pid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    kill_now(proc)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=5)


def kill_now(proc: subprocess.Popen[bytes]) -> None:
    """SIGKILL the child's process group, its live descendants, and the processes that carry its tag."""
    tag = _tag_of(proc)
    if tag is not None:
        kill_tagged(tag, (proc.pid,))
    signal_group(proc.pid, signal.SIGKILL)


def _tag_of(proc: subprocess.Popen[bytes]) -> str | None:
    return _TAGS.get(proc)


def signal_group(pgid: int, sig: int) -> None:
    """Send `sig` to a process group; a group that is already gone is fine."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


class OutputTooLarge(CommandError):
    """A child wrote more than its cap on one stream (its tree has been killed): `lobster stdout exceeded …`."""

    def __init__(self, stream: str, cap: OutputCap, written: int, complete: bool) -> None:
        super().__init__(cap.exceeded(stream, written, complete))
        self.stream, self.cap = stream, cap


def count_rest(fd: int, counted: int, limit: int) -> tuple[int, bool]:
    """Read and drop what follows on `fd`: the bytes counted in all, and whether the stream ended (stops at `limit`
    bytes, or when nothing arrives for QUIET_S)."""
    while counted < limit:
        ready, _, _ = select.select([fd], [], [], QUIET_S)
        if not ready:
            return counted, False
        chunk = os.read(fd, 65536)
        if not chunk:
            return counted, True
        counted += len(chunk)
    return counted, False


class CappedReader:
    """Reads one pipe of a child; past the cap, counts on (keeping nothing) for the error message, then kills the tree."""

    def __init__(self, proc: subprocess.Popen[bytes], stream: str, cap: OutputCap | None, keep: int | None = None) -> None:
        self.proc, self.stream, self.cap = proc, stream, cap
        self.keep = keep
        self.size = 0
        self.chunks: list[bytes] = []
        self.overflow = False
        self.complete = False

    def take(self, chunk: bytes) -> bool:
        """Count `chunk`; False once the stream went over its cap (then call `give_up`)."""
        self.size += len(chunk)
        if self.cap is not None and self.size > self.cap.limit:
            self.overflow = True
            return False
        if self.keep is None or self.size - len(chunk) < self.keep:
            self.chunks.append(chunk)
        return True

    def give_up(self, fd: int) -> None:
        """Past the cap: count what follows until the stream ends, goes quiet or reaches the cap's measuring limit,
        so the error can say how much the command wrote; then kill the child's tree."""
        assert self.cap is not None
        self.size, self.complete = count_rest(fd, self.size, self.cap.measure_limit)
        kill_now(self.proc)

    def count_on(self, chunk: bytes, *, ended: bool = True) -> bool:
        """Past the cap: count `chunk` (empty: the stream `ended`, or nothing read yet); False once counting is over,
        as `count_rest` ends it, and then the child's tree is killed."""
        assert self.cap is not None
        self.size += len(chunk)
        if (chunk or not ended) and self.size < self.cap.measure_limit:
            return True
        self.stop_counting(complete=not chunk and ended)
        return False

    def stop_counting(self, *, complete: bool) -> None:
        """Counting past the cap is over (`complete`: the stream ended): kill the child's tree."""
        self.complete = complete
        kill_now(self.proc)

    def read_all(self, fd: int) -> None:
        """Read `fd` to its end (or until the cap was passed)."""
        for chunk in iter(lambda: os.read(fd, 65536), b""):
            if not self.take(chunk):
                self.give_up(fd)
                return

    def check(self) -> None:
        if self.overflow:
            assert self.cap is not None
            raise OutputTooLarge(self.stream, self.cap, self.size, self.complete)

    @property
    def data(self) -> bytes:
        return b"".join(self.chunks)


def run_to_end(
    cancel: Cancellation, argv: Sequence[str], env: Mapping[str, str], cwd: str, cap: OutputCap | None = None,
    stdin: bytes | None = None,
) -> tuple[int, str, str]:
    """Run a child to completion in its own process group: (exit code, stdout, stderr).

    A cancelled run kills the child's tree; `FileNotFoundError` means the program was not found;
    more than `cap` bytes on stdout or on stderr kills the tree and raises `OutputTooLarge`.
    """
    proc = cancel.spawn(argv, env, cwd, stdin=stdin is not None)
    try:
        out, err = _read_both(proc, cap, stdin)
    except BaseException:
        kill_tree(proc)
        raise
    finally:
        cancel.forget(proc)
    proc.wait()
    cancel.check()
    return proc.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace")


def _read_both(proc: subprocess.Popen[bytes], cap: OutputCap | None, stdin: bytes | None) -> tuple[bytes, bytes]:
    """Both pipes read to the end in this thread (stdin written in another); past the cap on either, the tree is killed."""
    assert proc.stdout is not None and proc.stderr is not None
    out, err = CappedReader(proc, "stdout", cap), CappedReader(proc, "stderr", cap)
    writer = threading.Thread(target=write_stdin, args=(proc, stdin), daemon=True) if stdin is not None else None
    if writer is not None:
        writer.start()
    read_pipes({proc.stdout.fileno(): out, proc.stderr.fileno(): err})
    if writer is not None:
        writer.join()
    proc.stdout.close()
    proc.stderr.close()
    out.check()
    err.check()
    return out.data, err.data


def read_pipes(pipes: dict[int, CappedReader]) -> None:
    """Read a child's pipes to their ends in this thread, each as its data comes (no thread per pipe: a step
    costs no thread start and join). A pipe past its cap is counted on while the others are still read, as
    `give_up` counts: until it ends, reaches the cap's measuring limit or writes nothing for QUIET_S; then
    the child's tree is killed."""
    poller = select.poll()
    for fd in pipes:
        poller.register(fd, select.POLLIN)
    left = dict(pipes)
    counting: dict[int, float] = {}
    """The pipes past their cap, and when each last wrote."""

    def close(fd: int) -> None:
        poller.unregister(fd)
        del left[fd]
        counting.pop(fd, None)

    while left:
        ready = poller.poll(_quiet_ms(counting))
        now = time.monotonic()
        for fd, _ in ready:
            if not _read_once(fd, left[fd], counting, now):
                close(fd)
        for fd in [fd for fd, last in counting.items() if now - last >= QUIET_S]:
            left[fd].stop_counting(complete=False)
            close(fd)


def _quiet_ms(counting: dict[int, float]) -> int | None:
    """How long `poll` may wait: for ever, unless a pipe past its cap may go quiet for QUIET_S before then."""
    if not counting:
        return None
    return max(0, int((min(counting.values()) + QUIET_S - time.monotonic()) * 1000) + 1)


def _read_once(fd: int, reader: CappedReader, counting: dict[int, float], now: float) -> bool:
    """One read of a ready pipe; False once the pipe is done with (its end, or counting past its cap is over)."""
    chunk = os.read(fd, 65536)
    if fd in counting:
        counting[fd] = now
        return reader.count_on(chunk)
    if not chunk:
        return False
    if reader.take(chunk):
        return True
    counting[fd] = now
    return reader.count_on(b"", ended=False)


def write_stdin(proc: subprocess.Popen[bytes], payload: bytes) -> None:
    """Write the child's whole stdin and close it; a child that stopped reading is fine."""
    assert proc.stdin is not None
    with contextlib.suppress(OSError):
        proc.stdin.write(payload)
    with contextlib.suppress(OSError):
        proc.stdin.close()
