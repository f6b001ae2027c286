"""The spool gives back the text of the bytes written to it, and releases each memory map once read back."""

from __future__ import annotations

import mmap

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lobsterlang.interpret.pipeline import spool


@settings(max_examples=200, deadline=None)
@given(chunks=st.lists(st.text(max_size=40).map(str.encode) | st.binary(max_size=8), max_size=20), page=st.integers(1, 9))
def test_text_comes_back_whole(chunks: list[bytes], page: int) -> None:
    original = spool.PAGE_BYTES
    spool.PAGE_BYTES = page  # pages of a few bytes split multi-byte characters and chunks
    try:
        assert "".join(spool.spooled(chunks)) == b"".join(chunks).decode("utf-8", "replace")
    finally:
        spool.PAGE_BYTES = original


def test_pages_are_unmapped_as_they_are_read(monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[mmap.mmap] = []
    real = mmap.mmap

    def tracked(fileno: int, length: int, flags: int) -> mmap.mmap:
        made.append(real(fileno, length, flags=flags))
        return made[-1]

    monkeypatch.setattr(mmap, "mmap", tracked)
    monkeypatch.setattr(spool, "PAGE_BYTES", 4)
    text = spool.spooled([b"abcdefgh", b"ijkl"])
    assert len(made) == 3 and not any(page.closed for page in made)
    assert next(text) == "abcd"
    assert [page.closed for page in made] == [True, False, False]
    assert "".join(text) == "efghijkl"
    assert all(page.closed for page in made)
