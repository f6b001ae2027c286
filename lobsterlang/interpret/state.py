"""The state directory: small JSON files written atomically, 0600 files in a 0700 dir.

Keys map to file names as the reference does (`keyToPath`). Resume state is claimed by
renaming its file, so a token can be used once even when several resumes race. Files are
read through `statefiles`: a symlink, FIFO, socket, device, directory or oversized file where
a state file should be is refused (`CorruptState`), never followed, blocked on or read whole.
The directory's signing key (`signing.key`, see `secret_key`) signs tokens and resume state.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from lobsterlang.digits import whole_number
from lobsterlang.interpret.errors import ApprovalNotFound, StateIntegrityError, StateKeyError, StateNotFound
from lobsterlang.interpret.statefiles import MAX_INDEX_BYTES, MAX_STATE_BYTES, CorruptState, read_regular

if TYPE_CHECKING:
    from pathlib import Path

_UNSAFE = re.compile(r"[^a-z0-9._-]+")
_UNDERSCORES = re.compile(r"_+")
_NOT_HEX = re.compile(r"[^a-f0-9]")
_RESUME_KEY = re.compile(r"(pipeline_resume|workflow_resume)_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
SECRET_FILE = "signing.key"
BACKEND_ENV = "LOBSTER_BACKEND"
"""Where runs and gate state live instead of the state directory (a `postgresql://` URL; see `interpret.wiring`)."""
"""The per-directory HMAC key: 64 hex characters, mode 0600. Delete it to rotate (outstanding tokens die)."""
_SECRET_BYTES = 32


def default_state_dir(env: Mapping[str, str] | None = None) -> str:
    """`LOBSTER_STATE_DIR` when set and not blank, else `~/.lobster/state`."""
    configured = (os.environ if env is None else env).get("LOBSTER_STATE_DIR", "").strip()
    return configured or os.path.join(os.path.expanduser("~"), ".lobster", "state")


def key_to_filename(key: str) -> str:
    """The reference's lossy, case-insensitive key → `<safe>.json` mapping (no path separators)."""
    safe = _UNDERSCORES.sub("_", _UNSAFE.sub("_", key.lower()))
    safe = safe[1:] if safe.startswith("_") else safe
    safe = safe[:-1] if safe.endswith("_") else safe
    if not safe:
        raise StateKeyError("state key is empty/invalid")
    return safe + ".json"


def resume_key_prefix(key: str) -> str | None:
    """`pipeline_resume` or `workflow_resume` for a well-formed resume state key, else None.

    Checked before any file is touched, so a token naming a `state.set` key or an approval
    index can never read, claim or delete it.
    """
    match = _RESUME_KEY.fullmatch(key)
    return match.group(1) if match else None


def approval_id_of(text: str) -> str:
    """The approval id in what was typed: its lowercase hex characters (as the reference reads `--id`)."""
    return _NOT_HEX.sub("", text)


def random_hex(size: int) -> str:
    """`size` random bytes from the OS as lowercase hex (the `secrets` module, without its import cost)."""
    return os.urandom(size).hex()


def uuid4() -> str:
    """A random (version 4) UUID string."""
    raw = bytearray(os.urandom(16))
    raw[6] = (raw[6] & 0x0F) | 0x40
    raw[8] = (raw[8] & 0x3F) | 0x80
    text = raw.hex()
    return f"{text[:8]}-{text[8:12]}-{text[12:16]}-{text[16:20]}-{text[20:]}"


def now_iso() -> str:
    """UTC time as JavaScript's `toISOString()` prints it."""
    from datetime import datetime, timezone

    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


class Claim:
    """A claimed resume state: `value` is its content; `release()` removes it, `put_back()` restores it."""

    def __init__(self, path: str, value: Any, source: str, problem: str | None = None) -> None:
        self.path = path
        self.value = value
        self.source = source
        self.problem = problem
        """Why the claimed file could not be read as JSON (a symlink, not JSON), or None."""

    def release(self) -> None:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)

    def put_back(self) -> None:
        """Return the claimed file, unchanged, to its key (never over a file that is there)."""
        try:
            os.link(self.path, self.source, follow_symlinks=False)
        except (FileExistsError, FileNotFoundError):
            return
        except OSError:  # a directory cannot be linked: rename it back while its key is free
            if not os.path.lexists(self.source):
                with contextlib.suppress(OSError):
                    os.rename(self.path, self.source)
            return
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)


class StateStore:
    """Read and write JSON state under one directory (created 0700 on first write)."""

    on_disk = True
    """Whether runs live in `dir` (their journals and run locks); a database backend's store says False."""

    def __init__(self, directory: str | os.PathLike[str] | None = None) -> None:
        self.root = os.fspath(directory) if directory is not None else default_state_dir()
        self.host_key: bytes | None = None
        """The key the host supplied (`hostkey`): it signs instead of `secret_key()`."""
        self.host_key_problem: str | None = None
        """Why the key the host supplied cannot be used (then nothing is signed or verified)."""

    @property
    def dir(self) -> Path:
        """The directory as a `Path` (pathlib is imported only when asked for)."""
        from pathlib import Path

        return Path(self.root)

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> StateStore:
        return cls(default_state_dir(env))

    def path_for(self, key: str) -> str:
        return os.path.join(self.root, key_to_filename(key))

    def read(self, key: str, default: Any = None) -> Any:
        """The stored value, `default` when the key is absent; `CorruptState` when not JSON or not a regular file."""
        return self._read_path(self.path_for(key), default)

    def write(self, key: str, value: Any) -> None:
        """Store `value` as pretty JSON, atomically (temp file, fsync, rename, fsync dir)."""
        self._write_path(self.path_for(key), json.dumps(value, indent=2, ensure_ascii=False) + "\n")

    def delete(self, key: str) -> bool:
        """Remove a key; False when it was not there."""
        try:
            os.unlink(self.path_for(key))
        except FileNotFoundError:
            return False
        return True

    # ── resume state ──

    @staticmethod
    def new_state_key(prefix: str) -> str:
        """An unguessable key such as `pipeline_resume_<uuid4>`."""
        return f"{prefix}_{uuid4()}"

    def claim(self, key: str, missing_message: str = "Pipeline resume state not found") -> Claim:
        """Take the state at `key` for this process alone, or raise `StateNotFound`.

        The file is renamed to a unique claimed name; of N concurrent claimers exactly one
        rename succeeds. A reused token finds nothing and gets `StateNotFound`.
        """
        source = self.path_for(key)
        claimed = os.path.join(self.root, f".{os.path.basename(source)}.claimed-{os.getpid()}-{random_hex(8)}")
        try:
            os.rename(source, claimed)
        except (FileNotFoundError, NotADirectoryError):
            raise StateNotFound(missing_message) from None
        try:
            return Claim(claimed, self._read_path(claimed, None), source)
        except CorruptState as exc:
            return Claim(claimed, None, source, str(exc))

    def recover_abandoned_claim(self, key: str) -> bool:
        """Put back the state of `key` claimed by a process that has died; True when one was put back.

        Only for a caller that knows no step ran after the claim (the run's journal still ends
        at this gate): a resume killed before it started anything leaves its token usable.
        """
        prefix = f".{key_to_filename(key)}.claimed-"
        try:
            names = [n for n in os.listdir(self.root) if n.startswith(prefix)]
        except OSError:
            return False
        for name in names:
            owner = whole_number(name[len(prefix):].split("-", 1)[0])
            if owner is not None and not _process_alive(owner):
                Claim(os.path.join(self.root, name), None, self.path_for(key)).put_back()
                return os.path.lexists(self.path_for(key))
        return False

    # ── signing key ──

    def secret_key(self) -> bytes:
        """This directory's signing key, created (0600, atomically, race-safe) on first use."""
        path = os.path.join(self.root, SECRET_FILE)
        key = self._read_secret(path)
        if key is None:
            self._link_new(path, random_hex(_SECRET_BYTES) + "\n")
            key = self._read_secret(path)
        if key is None:
            raise CorruptState(f"{SECRET_FILE} is missing or not {_SECRET_BYTES * 2} hex characters")
        return key

    def _read_secret(self, path: str) -> bytes | None:
        data = read_regular(path, 4 * _SECRET_BYTES, private=True)
        if data is None:
            return None
        text = data.decode("ascii", "replace").strip()
        try:
            key = bytes.fromhex(text)
        except ValueError:
            key = b""
        if len(key) != _SECRET_BYTES:
            raise CorruptState(f"{SECRET_FILE} is not {_SECRET_BYTES * 2} hex characters; delete it to make a new key")
        return key

    # ── approval ids ──

    def publish_approval_id(self, approval_id: str, state_key: str, token: str) -> bool:
        """Publish `approval_<id>.json` pointing at `state_key` with its signed token; False when the id is taken.

        The index is linked into place, so an existing id is never overwritten. The token is
        bound to `approval_id` (`gatestate.issue`), so an index copied to another id is refused.
        """
        index = {"stateKey": state_key, "createdAt": now_iso(), "token": token}
        body = json.dumps(index, separators=(",", ":")) + "\n"
        return self._link_new(os.path.join(self.root, f"approval_{approval_id}.json"), body)

    def approval_index(self, approval_id: str) -> tuple[str, str | None]:
        """The state key behind an approval id and its token (None in an index another CLI wrote).

        `ApprovalNotFound` (named as given) when there is no such index.
        """
        clean = approval_id_of(approval_id)
        try:
            data = self._read_path(os.path.join(self.root, f"approval_{clean}.json"), None, MAX_INDEX_BYTES) if clean else None
        except CorruptState as exc:
            raise StateIntegrityError(f'Approval ID "{approval_id}" cannot be used: {exc}; nothing ran') from None
        key = data.get("stateKey") if isinstance(data, dict) else None
        if not isinstance(key, str):
            raise ApprovalNotFound(approval_id)
        token = data.get("token") if isinstance(data, dict) else None
        return key, token if isinstance(token, str) else None

    def delete_approval_ids(self, state_key: str) -> None:
        """Remove every approval index that points at `state_key`."""
        try:
            names = [n for n in os.listdir(self.root) if n.startswith("approval_") and n.endswith(".json")]
        except OSError:
            return
        for name in names:
            path = os.path.join(self.root, name)
            with contextlib.suppress(CorruptState, OSError):
                data = self._read_path(path, None, MAX_INDEX_BYTES)
                if isinstance(data, dict) and data.get("stateKey") == state_key:
                    os.unlink(path)

    # ── files ──

    def ensure_dir(self) -> None:
        """Create the directory (and parents) with mode 0700 whatever the umask."""
        if os.path.isdir(self.root):
            return
        os.makedirs(self.root, exist_ok=True)
        os.chmod(self.root, 0o700)

    def _read_path(self, path: str, default: Any, limit: int = MAX_STATE_BYTES) -> Any:
        data = read_regular(path, limit)
        if data is None:
            return default
        try:
            return json.loads(data.decode("utf-8", "surrogatepass"))
        except ValueError as exc:  # UnicodeDecodeError is one too
            raise CorruptState(f"{os.path.basename(path)} is not valid JSON") from exc

    def _write_path(self, path: str, text: str) -> None:
        temp = self._temp_file(path, text)
        try:
            os.replace(temp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp)
            raise
        self._fsync_dir()

    def _link_new(self, path: str, text: str) -> bool:
        temp = self._temp_file(path, text)
        try:
            os.link(temp, path)
        except FileExistsError:
            return False
        finally:
            with contextlib.suppress(OSError):
                os.unlink(temp)
        self._fsync_dir()
        return True

    def _temp_file(self, path: str, text: str) -> str:
        """A synced 0600 temporary file beside `path` holding `text` (a lone surrogate, as a step's JSON output may
        hold, is written as is and read back the same)."""
        data = text.encode("utf-8", "surrogatepass")
        self.ensure_dir()
        temp = os.path.join(os.path.dirname(path), f".{os.path.basename(path)}.{random_hex(6)}.tmp")
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as handle:
            os.fchmod(fd, 0o600)
            handle.write(data)
            handle.flush()
            os.fsync(fd)
        return temp

    def _fsync_dir(self) -> None:
        with contextlib.suppress(OSError):
            fd = os.open(self.root, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
