"""Property: formatting any generated workflow keeps its meaning and is idempotent (YAML and JSON files)."""

from __future__ import annotations

import json
import re
from typing import Any

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from lobsterlang.compile import compile_workflow
from lobsterlang.fmt import format_text
from lobsterlang.fmt.meaning import meaning

CHARS = st.sampled_from([*"ab z-:#'\"\\|!&*?{}[],%@`\t\n=$.0123456789eé😀", "yes", "no", "on", "null", "~", "--"])
TEXT = st.one_of(st.lists(CHARS, max_size=12).map("".join), st.text(max_size=12))
NAME = st.from_regex(r"[a-z][a-z0-9_]{0,6}", fullmatch=True)
SCALAR = st.one_of(st.none(), st.booleans(), st.integers(-(10**6), 10**6), st.floats(allow_nan=False, allow_infinity=False), TEXT)
JSON = st.recursive(SCALAR, lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(TEXT, inner, max_size=3)), max_leaves=8)
WORD = st.one_of(NAME, TEXT.filter(lambda t: not t.startswith("--") and t.strip() != ""))
FLAG = st.tuples(NAME, st.sampled_from(["bare", "equals", "separate"]), WORD)


def _quote(word: str) -> str:
    return "'" + word + "'" if "'" not in word and not word.endswith("\\") else '"' + word.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _flag(flag: tuple[str, str, str]) -> str:
    name, style, value = flag
    return {"bare": f"--{name}", "equals": f"--{name}={_quote(value)}", "separate": f"--{name} {_quote(value)}"}[style]


STAGE = st.tuples(NAME, st.lists(st.one_of(WORD.map(_quote), FLAG.map(_flag)), max_size=3)).map(lambda s: " ".join([s[0], *s[1]]))
PIPELINE = st.lists(STAGE, min_size=1, max_size=4).map(lambda stages: "|".join(stages))
RUN = TEXT.filter(lambda t: t.strip() != "")


@st.composite
def steps(draw: Any, ids: list[str], nested: bool = False) -> dict[str, Any]:
    step_id = f"s{len(ids)}"
    step: dict[str, Any] = {"id": step_id}
    kind = draw(st.sampled_from(["run", "command", "pipeline"] if nested else ["run", "pipeline", "approval", "parallel", "for_each"]))
    if kind in ("run", "command"):
        step[kind] = draw(RUN)
    elif kind == "pipeline":
        step["pipeline"] = draw(PIPELINE)
    elif kind == "approval":
        step["approval"] = draw(st.one_of(st.just(True), RUN, st.fixed_dictionaries({"prompt": TEXT}, optional={"items": st.lists(JSON, max_size=3)})))
    elif kind == "parallel":
        step["parallel"] = {"branches": [{"id": f"{step_id}b{i}", "run": draw(RUN)} for i in range(draw(st.integers(1, 3)))]}
    else:
        ids.append(step_id)
        step["for_each"] = f"${ids[0]}.json" if len(ids) > 1 else "$x.json"
        step["steps"] = [draw(steps(ids, nested=True)) for _ in range(draw(st.integers(1, 2)))]
    ids.append(step_id)
    if kind != "for_each" and draw(st.booleans()):
        step["stdin"] = draw(st.one_of(JSON, st.just(f"${ids[0]}.json")))
    if draw(st.booleans()):
        step["env"] = draw(st.dictionaries(NAME.map(str.upper), st.one_of(TEXT, st.integers()), max_size=3))
    if not nested and kind != "for_each" and draw(st.booleans()):
        step["timeout_ms"] = draw(st.integers(1, 10**6))
        step["on_error"] = draw(st.sampled_from(["stop", "continue", "skip_rest"]))
        step["retry"] = {"max": draw(st.integers(1, 5)), "backoff": "fixed"}
    if draw(st.booleans()):
        step["x-note"] = draw(JSON)
    return step


@st.composite
def workflows(draw: Any) -> dict[str, Any]:
    ids: list[str] = []
    doc: dict[str, Any] = {"name": draw(TEXT)}
    if draw(st.booleans()):
        doc["description"] = draw(TEXT)
    if draw(st.booleans()):
        doc["args"] = draw(st.dictionaries(NAME, st.fixed_dictionaries({"default": JSON}, optional={"description": TEXT}), max_size=3))
    doc["steps"] = [draw(steps(ids)) for _ in range(draw(st.integers(1, 4)))]
    doc["x-extra"] = draw(JSON)
    return doc


_NOT_YAML = re.compile("[\x7f-\x9f\u2028\u2029\ufeff\ud800-\udfff\ufffe\uffff]")


def _yaml_source(doc: dict[str, Any]) -> str:
    """The workflow as YAML (JSON is YAML) with the characters YAML refuses raw written as escapes."""
    text = json.dumps(doc, ensure_ascii=False, indent=1)
    return _NOT_YAML.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def _check(text: str, path: str) -> None:
    before = compile_workflow(text, path)
    assume(before.ok)
    assert before.ir is not None
    out = format_text(text, path)
    after = compile_workflow(out, path)
    assert after.ok and after.ir is not None, (out, after.diagnostics)
    assert meaning(after.ir) == meaning(before.ir), out
    assert format_text(out, path) == out


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(workflows())
def test_generated_yaml_workflows(doc: dict[str, Any]) -> None:
    _check(_yaml_source(doc), "generated.lobster")


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(workflows())
def test_generated_json_workflows(doc: dict[str, Any]) -> None:
    _check(json.dumps(doc, ensure_ascii=False), "generated.json")


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(workflows())
def test_json_converts_to_yaml_with_the_same_meaning(doc: dict[str, Any]) -> None:
    text = json.dumps(doc, ensure_ascii=False)
    before = compile_workflow(text, "generated.json")
    assume(before.ok)
    assert before.ir is not None
    after = compile_workflow(format_text(text, "generated.json", to_yaml=True), "generated.json.lobster")
    assert after.ok and after.ir is not None
    assert meaning(after.ir) == meaning(before.ir)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(workflows(), st.data())
def test_comments_anywhere_are_kept_in_place(doc: dict[str, Any], data: Any) -> None:
    """Comments put on random lines (own-line or trailing) survive, and formatting stays idempotent."""
    text = _yaml_source(doc)
    assume(compile_workflow(text, "g.lobster").ok)
    lines = format_text(text, "g.lobster").splitlines()
    spots = data.draw(st.sets(st.integers(0, len(lines)), max_size=6))
    trailing = data.draw(st.booleans())
    for number in sorted(spots, reverse=True):
        if trailing and number < len(lines):
            lines[number] += f"  # c{number}"
        else:
            indent = len(lines[number]) - len(lines[number].lstrip()) if number < len(lines) else 0
            lines.insert(number, " " * indent + f"# c{number}")
    commented = "\n".join(lines) + "\n"
    inserted = sorted(f"# c{n}" for n in spots)
    before = compile_workflow(commented, "g.lobster")
    # Only when the comments are exactly the inserted ones: a line inserted into a block scalar
    # is text there, or ends the scalar and turns the rest of its lines into comments.
    assume(before.ok and before.ir is not None and sorted(c.text for c in before.ir.comments) == inserted)
    _check(commented, "g.lobster")
    out = format_text(commented, "g.lobster")
    assert sorted(c.text for c in compile_workflow(out, "g.lobster").ir.comments) == inserted  # type: ignore[union-attr]


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(workflows(), st.data())
def test_blank_lines_anywhere_keep_meaning_and_collapse(doc: dict[str, Any], data: Any) -> None:
    """Blank lines (one or several) put between any lines: same meaning, idempotent, never two in a row."""
    lines = format_text(_yaml_source(doc), "g.lobster").splitlines()
    for number in sorted(data.draw(st.sets(st.integers(0, len(lines)), max_size=6)), reverse=True):
        lines[number:number] = [""] * data.draw(st.integers(1, 3))
    spaced = "\n".join(lines) + "\n"
    before = compile_workflow(spaced, "g.lobster")
    assume(before.ok and before.ir is not None)
    _check(spaced, "g.lobster")
    out = format_text(spaced, "g.lobster")
    assert "\n\n\n" not in out and not out.startswith("\n")
