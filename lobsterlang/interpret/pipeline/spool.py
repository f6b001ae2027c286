"""Output held in anonymous memory maps, each given back to the system as soon as it has been read back.

A child's whole output must be read before its exit status is known, and only then parsed. Held as
Python objects, the freed output would stay in the process's heap while the parsed items grow beside
it; a memory map is unmapped the moment it is read back.
"""

from __future__ import annotations

import codecs
import mmap
from collections import deque
from collections.abc import Iterable, Iterator

PAGE_BYTES = 1 << 20
_FLAGS = mmap.MAP_PRIVATE | getattr(mmap, "MAP_ANONYMOUS", 0) | getattr(mmap, "MAP_POPULATE", 0)
"""Anonymous memory, its pages made at once (Linux): half the cost of faulting them in one by one."""


def spooled(chunks: Iterable[bytes]) -> Iterator[str]:
    """Read all of `chunks` now; the iterator yields their UTF-8 text (bad bytes replaced), a MiB at a time."""
    return _read_back(_write(chunks))


def _write(chunks: Iterable[bytes]) -> deque[mmap.mmap]:
    pages: deque[mmap.mmap] = deque()
    for chunk in chunks:
        data = memoryview(chunk)
        while data:
            if not pages or pages[-1].tell() == PAGE_BYTES:
                pages.append(mmap.mmap(-1, PAGE_BYTES, flags=_FLAGS))
            page = pages[-1]
            data = data[page.write(data[:PAGE_BYTES - page.tell()]):]
    return pages


def _read_back(pages: deque[mmap.mmap]) -> Iterator[str]:
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    while pages:
        page = pages.popleft()
        text = decoder.decode(page[:page.tell()])
        page.close()
        yield text
    yield decoder.decode(b"", final=True)
