"""Text held in anonymous memory maps, each given back to the system as soon as it has been read back.

A child's whole output must be read before its exit status is known, and only then parsed. Held as
Python strings, the freed text would stay in the process's heap while the parsed items grow beside
it; a memory map is unmapped the moment it is read back.
"""

from __future__ import annotations

import codecs
import mmap
from collections import deque
from collections.abc import Iterable, Iterator

PAGE_BYTES = 1 << 20


def spooled(chunks: Iterable[str]) -> Iterator[str]:
    """Read all of `chunks` now; the iterator yields the same text, a MiB at a time."""
    return _read_back(_write(chunks))


def _write(chunks: Iterable[str]) -> deque[mmap.mmap]:
    pages: deque[mmap.mmap] = deque()
    for chunk in chunks:
        data = memoryview(chunk.encode("utf-8", "surrogatepass"))
        while data:
            if not pages or pages[-1].tell() == PAGE_BYTES:
                pages.append(mmap.mmap(-1, PAGE_BYTES))
            page = pages[-1]
            data = data[page.write(data[:PAGE_BYTES - page.tell()]):]
    return pages


def _read_back(pages: deque[mmap.mmap]) -> Iterator[str]:
    decoder = codecs.getincrementaldecoder("utf-8")("surrogatepass")
    while pages:
        page = pages.popleft()
        text = decoder.decode(page[:page.tell()])
        page.close()
        yield text
    yield decoder.decode(b"", final=True)
