"""Step records by digest: a halt's state names the journal's copy of its records instead of storing them again.

A record's text is its compact JSON, exactly as the journal writes it; a record read back from the
journal gives the same text again, so the SHA-256 of that text identifies a record across the write
and the read. A reference (`{"in": "journal", "keys": […], "sha256": …}`) is written only when the
journal's copy of every record is known to be identical (its digests, noted as it was written,
match the records now); otherwise the records are stored inline, as before.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from lobsterlang.interpret.values import to_json_data

IN_JOURNAL = "journal"


def record_text(record: Any, *, read_back: bool = False) -> str:
    """The record as the journal writes it (compact JSON); `read_back`: the record was parsed from such text, so it
    is plain JSON data already and gives the same text again."""
    data = record if read_back else to_json_data(record)
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def text_digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def record_digest(record: Any, *, read_back: bool = False) -> str:
    return text_digest(record_text(record, read_back=read_back))


def digests_of(records: Mapping[str, Any], *, read_back: bool = False) -> dict[str, str]:
    """Each record's digest, by key (`read_back`: the records were parsed from the journal)."""
    return {key: record_digest(record, read_back=read_back) for key, record in records.items()}


def combined(digests: Mapping[str, str]) -> str:
    """One digest over records by key, in their order."""
    return text_digest(json.dumps(list(digests.items())))


def is_reference(value: Any) -> bool:
    """Whether a stored `steps` or `kept` value names the journal's copy (records are objects, never this string)."""
    return isinstance(value, dict) and value.get("in") == IN_JOURNAL


def reference(records: Mapping[str, Any], journaled: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """A reference to the journal's copy of `records` (`journaled`: its digests by key); None when any differs."""
    if journaled is None:
        return None
    digests = digests_of(records)
    if any(journaled.get(key) != digest for key, digest in digests.items()):
        return None
    return {"in": IN_JOURNAL, "keys": list(digests), "sha256": combined(digests)}


def resolve(ref: Mapping[str, Any], journaled: Mapping[str, Any], digests: Mapping[str, Any]) -> dict[str, Any] | None:
    """The records `ref` names, taken from the journal's copy (`journaled`, with their `digests`); None when one is
    missing or the copy differs from what the reference was made from."""
    keys = ref.get("keys")
    if not isinstance(keys, list) or not all(isinstance(key, str) and key in journaled and key in digests for key in keys):
        return None
    if combined({key: digests[key] for key in keys}) != ref.get("sha256"):
        return None
    return {key: journaled[key] for key in keys}
