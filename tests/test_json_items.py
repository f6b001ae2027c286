"""`exec --json` parses a top-level array a batch at a time: same items, same errors as one `json.loads`."""

from __future__ import annotations

import itertools
import json
import math
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lobsterlang.compile import compile_pipeline
from lobsterlang.interpret.errors import CommandError
from lobsterlang.interpret.pipeline.jsonitems import json_items, parse_whole
from lobsterlang.interpret.pipeline.runtime import RunContext, run_pipeline
from lobsterlang.interpret.process import Cancellation


def _outcome(produce: Any) -> tuple[str, Any]:
    try:
        return "ok", json.dumps(list(produce()))
    except CommandError as exc:
        return "error", exc.message


def _chunked(text: str, cuts: list[int]) -> Iterator[str]:
    bounds = sorted({0, len(text), *(c % (len(text) + 1) for c in cuts)})
    return iter(text[a:b] for a, b in itertools.pairwise(bounds))


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**20), 10**20) | st.floats(allow_nan=False) | st.text(" ,\"\\[]{}:ab\n", max_size=6),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(["a", "b", "c,d", "}, {"]), inner, max_size=3),
    max_leaves=12,
)
_NOISE = ["", " ", "\n", ",", "]", "[", "}", "{", '"', "x", "1", "\u00a0", "\x0b", "\ufeff", "e", ".", "-"]


@st.composite
def _documents(draw: st.DrawFn) -> str:
    """A JSON array (compact or indented) of items alike, sometimes with a character inserted, dropped or appended."""
    items = draw(st.lists(_JSON, max_size=12))
    indent = draw(st.sampled_from([None, 2, "\t"]))
    text = draw(st.sampled_from(["", " \n", "\u00a0"])) + json.dumps(items, indent=indent) + draw(st.sampled_from(["", "\n", " \x0b"]))
    damage = draw(st.sampled_from(["none", "insert", "drop", "none"]))
    if damage != "none" and text:
        at = draw(st.integers(0, len(text) - 1))
        text = text[:at] + (draw(st.sampled_from(_NOISE)) if damage == "insert" else "") + text[at + 1 if damage == "drop" else at:]
    return text


@settings(max_examples=600, deadline=None)
@given(text=_documents(), cuts=st.lists(st.integers(0, 4000), max_size=6), batch=st.sampled_from([1, 7, 64, 1 << 20]))
def test_batches_give_what_one_parse_gives(text: str, cuts: list[int], batch: int) -> None:
    assert _outcome(lambda: json_items(_chunked(text, cuts), Cancellation(), batch)) == _outcome(lambda: parse_whole(text))


@pytest.mark.parametrize("text", [
    "[1, 2,]", "[1, 2", "[\n  {\"a\": 1},\n  {\"a\": 2}\n] x", "  \n[1,\n 2 3]", "[1.5e", "[\"a\\", "", "  ", "[]", "{\"a\": 1}", "[1] \u00a0",
])
def test_errors_name_the_place_one_parse_names(text: str) -> None:
    for size in (1, 2, 3, 5):
        chunks = iter(text[i:i + size] for i in range(0, len(text), size))
        assert _outcome(lambda chunks=chunks: json_items(chunks, Cancellation(), 2)) == _outcome(lambda: parse_whole(text))


def test_items_of_a_large_array_come_in_batches_with_shared_keys() -> None:
    text = json.dumps([{"id": i, "name": f"n{i}"} for i in range(3000)])
    chunks = iter(text[i:i + 1000] for i in range(0, len(text), 1000))
    items = list(json_items(chunks, Cancellation(), 4096))
    assert items == json.loads(text)
    assert len({id(next(iter(item))) for item in items}) < 40  # keys shared within a batch, not made per item


def _run(pipeline: str, tmp_path: Path) -> list[Any]:
    compiled = compile_pipeline(pipeline).ir
    assert compiled is not None
    return run_pipeline(compiled, [], RunContext(cwd=str(tmp_path))).items


def test_head_still_reports_a_bad_rest_of_the_document(tmp_path: Path) -> None:
    (tmp_path / "items.json").write_text("[" + ", ".join(["1"] * 5000) + ", oops]")
    with pytest.raises(CommandError, match=r"could not parse stdout as JSON: Expecting value: line 1 column 15002 \(char 15001\)"):
        _run("exec --json --shell 'cat items.json' | head --n 2", tmp_path)


def test_a_failing_producer_passes_no_item_on(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match=r"exec failed \(3\)"):
        _run("exec --json --shell 'echo [1,2,3]; exit 3' | head --n 1", tmp_path)


def test_a_bad_document_sends_no_mail(tmp_path: Path) -> None:
    """The items before a parse error reach `gog.gmail.send` only after the whole document has parsed: nothing is sent."""
    sent = tmp_path / "sent"
    fake = tmp_path / "gog"
    fake.write_text(f"#!/bin/sh\necho \"$@\" >> {sent}\n")
    fake.chmod(0o755)
    (tmp_path / "drafts.json").write_text('[{"to": "a@example.com", "subject": "hi"}, oops]')
    compiled = compile_pipeline("exec --json --shell 'cat drafts.json' | gog.gmail.send").ir
    assert compiled is not None
    ctx = RunContext(cwd=str(tmp_path), env={**os.environ, "GOG_BIN": str(fake)})
    with pytest.raises(CommandError, match="could not parse stdout as JSON"):
        run_pipeline(compiled, [], ctx)
    assert not sent.exists()


def test_a_bad_document_is_reported_before_a_later_stage_fails_to_start(tmp_path: Path) -> None:
    """`pick` without fields fails as it starts; the parse error of the document before it still comes first."""
    (tmp_path / "items.json").write_text("[1, x]")
    with pytest.raises(CommandError, match=r"could not parse stdout as JSON: Expecting value: line 1 column 5 \(char 4\)"):
        _run("exec --json --shell 'cat items.json' | where 'n>1' | pick", tmp_path)
    with pytest.raises(CommandError, match="pick requires a comma-separated field list"):
        _run("exec --json --shell 'echo [1]' | pick", tmp_path)


def test_a_stage_that_ignores_its_input_still_gets_the_parse_error(tmp_path: Path) -> None:
    """`state.get` never reads its input; the bad document before it is an error, as when it was parsed at once."""
    (tmp_path / "items.json").write_text("[1, x]")
    with pytest.raises(CommandError, match="could not parse stdout as JSON"):
        _run("exec --json --shell 'cat items.json' | state.get some-key", tmp_path)


# Where JSON decoders differ (msgspec, compared in bench/msgspec_bench.py, refuses lone surrogates, NaN and 1e400),
# exec --json gives what `json.loads` gives.
_EXACT_VALUES = {
    "integers beyond 64 bits": ("[18446744073709551616, -99999999999999999999999]", [2**64, -(10**23 - 1)]),
    "duplicate keys: the last wins": ('[{"a": 1, "a": 2}]', [{"a": 2}]),
    "lone surrogates": ('["\\ud800", "x\\udc00"]', ["\ud800", "x\udc00"]),
    "NaN and the infinities": ("[NaN, Infinity, -Infinity]", [math.nan, math.inf, -math.inf]),
    "numbers beyond a double": ("[1e400, -1e400, 1e-400, 1e400]", [math.inf, -math.inf, 0.0, math.inf]),
}


@pytest.mark.parametrize("text, expected", _EXACT_VALUES.values(), ids=_EXACT_VALUES.keys())
def test_exec_json_keeps_what_json_loads_gives(text: str, expected: list[Any], tmp_path: Path) -> None:
    (tmp_path / "items.json").write_text(text, encoding="utf-8")
    batched = list(json_items(iter([text[:7], text[7:]]), Cancellation(), 2))
    for items in (_run("exec --json --shell 'cat items.json'", tmp_path), batched, parse_whole(text)):
        assert repr(items) == repr(expected)  # repr: NaN equals nothing, and -0.0 == 0.0
