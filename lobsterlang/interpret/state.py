"""The state directory: small JSON files written atomically, 0600 files in a 0700 dir.

Keys map to file names as the reference does (`keyToPath`). Resume state is claimed by
renaming its file, so a token can be used once even when several resumes race.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from lobsterlang.interpret.errors import ApprovalNotFound, StateKeyError, StateNotFound
from lobsterlang.interpret.tokens import encode_token

if TYPE_CHECKING:
    from pathlib import Path

_UNSAFE = re.compile(r"[^a-z0-9._-]+")
_UNDERSCORES = re.compile(r"_+")
_NOT_HEX = re.compile(r"[^a-f0-9]")
_ID_ATTEMPTS = 16


class CorruptState(ValueError):
    """A state file exists but does not hold JSON."""


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


class Claim:
    """A claimed resume state: `value` is its content; `release()` removes the claimed file."""

    def __init__(self, path: str, value: Any) -> None:
        self.path = path
        self.value = value

    def release(self) -> None:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)


class StateStore:
    """Read and write JSON state under one directory (created 0700 on first write)."""

    def __init__(self, directory: str | os.PathLike[str] | None = None) -> None:
        self.root = os.fspath(directory) if directory is not None else default_state_dir()

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
        """The stored value, `default` when the key is absent; `CorruptState` when not JSON."""
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

    @staticmethod
    def new_token(kind: str, state_key: str) -> str:
        """The resume token for a state key (see `tokens.encode_token`)."""
        return encode_token(kind, state_key)

    def claim(self, key: str, missing_message: str = "Pipeline resume state not found") -> Claim:
        """Take the state at `key` for this process alone, or raise `StateNotFound`.

        The file is renamed to a unique claimed name; of N concurrent claimers exactly one
        rename succeeds. A reused token finds nothing and gets `StateNotFound`.
        """
        source = self.path_for(key)
        claimed = os.path.join(self.root, f".{os.path.basename(source)}.claimed-{random_hex(8)}")
        try:
            os.rename(source, claimed)
        except (FileNotFoundError, NotADirectoryError):
            raise StateNotFound(missing_message) from None
        try:
            value = self._read_path(claimed, None)
        except CorruptState:
            value = None
        return Claim(claimed, value)

    # ── approval ids ──

    def new_approval_id(self, state_key: str) -> str | None:
        """Publish `approval_<8 hex>.json` pointing at `state_key`; None when it cannot be written.

        The index is linked into place, so an existing id is never overwritten.
        """
        body = json.dumps({"stateKey": state_key, "createdAt": now_iso()}, separators=(",", ":")) + "\n"
        for _ in range(_ID_ATTEMPTS):
            approval_id = random_hex(4)
            try:
                if self._link_new(os.path.join(self.root, f"approval_{approval_id}.json"), body):
                    return approval_id
            except OSError:
                return None
        return None

    def approval_state_key(self, approval_id: str) -> str:
        """The state key behind an approval id, or `ApprovalNotFound` (named as given)."""
        clean = _NOT_HEX.sub("", approval_id)
        try:
            data = self._read_path(os.path.join(self.root, f"approval_{clean}.json"), None) if clean else None
        except CorruptState:
            data = None
        key = data.get("stateKey") if isinstance(data, dict) else None
        if not isinstance(key, str):
            raise ApprovalNotFound(approval_id)
        return key

    def delete_approval_ids(self, state_key: str) -> None:
        """Remove every approval index that points at `state_key`."""
        try:
            names = [n for n in os.listdir(self.root) if n.startswith("approval_") and n.endswith(".json")]
        except OSError:
            return
        for name in names:
            path = os.path.join(self.root, name)
            with contextlib.suppress(CorruptState, OSError):
                data = self._read_path(path, None)
                if isinstance(data, dict) and data.get("stateKey") == state_key:
                    os.unlink(path)

    # ── files ──

    def ensure_dir(self) -> None:
        """Create the directory (and parents) with mode 0700 whatever the umask."""
        if os.path.isdir(self.root):
            return
        os.makedirs(self.root, exist_ok=True)
        os.chmod(self.root, 0o700)

    def _read_path(self, path: str, default: Any) -> Any:
        try:
            with open(path, encoding="utf-8") as handle:
                text = handle.read()
        except (FileNotFoundError, NotADirectoryError):
            return default
        try:
            return json.loads(text)
        except ValueError as exc:
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
        self.ensure_dir()
        temp = os.path.join(os.path.dirname(path), f".{os.path.basename(path)}.{random_hex(6)}.tmp")
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as handle:
            os.fchmod(fd, 0o600)
            handle.write(text.encode("utf-8"))
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
