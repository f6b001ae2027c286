"""YAML scalars and pipeline words written by the formatter read back unchanged, in YAML 1.2 and YAML 1.1."""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from helpers import CASES, load_json
from hypothesis import given
from hypothesis import strategies as st

from lobsterlang import ir
from lobsterlang.compile import compile_pipeline
from lobsterlang.fmt import layout, scalars
from lobsterlang.fmt.pipelines import pipeline_text, word
from lobsterlang.syntax.yamlload import CoreLoader

TRICKY = [
    "yes", "No", "on", "OFF", "y", "n", "~", "null", "true", "False", "", " ", " lead", "trail ", "1", "-1", "+1",
    "1.0", ".5", "1e3", "0x1F", "0o17", "0b101", "1_000", "12:30", "2026-01-01", ".inf", "-.inf", ".nan", "=", "<<",
    "-", "- x", "-x", "--json", "?", "? x", ":", ":x", "a: b", "a:b", "ends:", "a #b", "a#b", "#c", "&a", "*a", "!tag",
    "|", ">", "%x", "@x", "`x", "'q'", '"q"', "it's", 'say "hi"', "both ' and \"", "back\\slash", "[x]", "{x}", "x, y",
    "---", "...", "--- x", "tab\there", "é ünï 😀", "\u00a0nbsp", "zero\u200bwidth", "bom\ufeff", "nel\x85", "ls\u2028",
    "bell\x07", "del\x7f", "line1\nline2", "line1\nline2\n", "  indented\nblock\n", "\nleading newline", "two\n\n",
    "cr\r\nlf", "only\n", "\n", "\t", "a  #  b", "- ", "x:\ty",
]
LOADERS = [CoreLoader, yaml.SafeLoader]


def _load(text: str, loader: Any) -> Any:
    return yaml.load(text, Loader=loader)


def _entry(value: str) -> str:
    return "\n".join(layout.document_layout({"k": value, "after": 1}).lines) + "\n"


@pytest.mark.parametrize("loader", LOADERS, ids=["yaml-1.2-core", "yaml-1.1"])
@pytest.mark.parametrize("text", TRICKY, ids=repr)
def test_tricky_strings_round_trip(text: str, loader: Any) -> None:
    assert _load(_entry(text), loader) == {"k": text, "after": 1}
    assert _load(f"{scalars.string(text) if text and chr(10) not in text else scalars.double_quoted(text)}: 1", loader) == {text: 1}


@given(st.text())
def test_any_string_round_trips(text: str) -> None:
    for loader in LOADERS:
        assert _load(_entry(text), loader) == {"k": text, "after": 1}


@given(st.text(alphabet=st.sampled_from(list("ab -:#'\"\\|\t\n!&*?yesno0123456789.e+é"))))
def test_strings_of_yaml_characters_round_trip(text: str) -> None:
    for loader in LOADERS:
        assert _load(_entry(text), loader) == {"k": text, "after": 1}


@given(st.text(min_size=101, alphabet=st.sampled_from(list("ab cd'\"  -:#|\t"))))
def test_long_strings_fold_and_round_trip(text: str) -> None:
    for loader in LOADERS:
        assert _load(_entry(text), loader) == {"k": text, "after": 1}


@pytest.mark.parametrize(
    ("value", "text"),
    [(1, "1"), (-2.5, "-2.5"), (1e16, "1.0e+16"), (1e-7, "1.0e-07"), (float("inf"), ".inf"), (None, "null"), (True, "true")],
)
def test_numbers_and_constants(value: Any, text: str) -> None:
    assert layout.scalar_text(value) == text
    assert _load(f"k: {text}", CoreLoader) == {"k": value}


@pytest.mark.parametrize(
    ("value", "written"),
    [("plain", "plain"), ("a b", "'a b'"), ("it's", '"it\'s"'), ("it's \"x\"", '"it\'s \\"x\\""'), ("a b\\", '"a b\\\\"'),
     ("a|b", "'a|b'"), ("$step.json", "$step.json"), ("x=1", "x=1")],
)
def test_pipeline_words(value: str, written: str) -> None:
    assert word(value) == written


@given(st.text(min_size=1).filter(lambda t: not t.startswith("--")))
def test_any_pipeline_word_round_trips(value: str) -> None:
    result = compile_pipeline(f"cmd {word(value)} --flag={word(value)}")
    assert result.ok and result.ir is not None, result.diagnostics
    stage = result.ir.stages[0]
    assert [a.value.value for a in stage.args if a.value is not None] == [value, value]


def _tokens(pipeline: ir.Pipeline) -> list[list[tuple[str | None, ...]]]:
    """Every stage as its name and arguments, in order: positionals, and flags with their form and value."""
    return [[(stage.name.value,), *(_arg(a) for a in stage.args)] for stage in pipeline.stages]


def _arg(arg: ir.StageArg) -> tuple[str | None, ...]:
    if isinstance(arg, ir.Positional):
        return ("_", arg.value.value)
    return (arg.name, arg.style, None if arg.value is None else arg.value.value)


def _pipeline_cases() -> list[dict[str, Any]]:
    return [case for case in load_json(CASES / "pipelines.json") if compile_pipeline(case["input"]).ok]


@pytest.mark.parametrize("case", _pipeline_cases(), ids=lambda c: c["name"])
def test_reference_pipeline_cases_keep_their_stages(case: dict[str, Any]) -> None:
    """tests/cases/pipelines.json: the canonical text parses to the same stages, and is canonical itself."""
    parsed = compile_pipeline(case["input"]).ir
    assert parsed is not None
    text = pipeline_text(parsed)
    again = compile_pipeline(text).ir
    assert again is not None
    assert _tokens(again) == _tokens(parsed)
    assert pipeline_text(again) == text
