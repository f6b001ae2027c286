"""Property: no input makes the compiler raise — every problem becomes a diagnostic."""

from __future__ import annotations

from helpers import example_files
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lobsterlang.compile import compile_pipeline, compile_workflow

EXAMPLES = [p.read_text(encoding="utf-8") for p in example_files()]
FUZZ = settings(max_examples=int(__import__("os").environ.get("FUZZ_EXAMPLES", "150")), deadline=None, suppress_health_check=[HealthCheck.too_slow])
_yamlish = st.text(alphabet=st.sampled_from(list(" \t\n-:|>'\"#&*!%@`[]{},$.{}abc019=\\")), max_size=80)


def _mutate(text: str, position: int, insert: str, delete: int) -> str:
    cut = position % (len(text) + 1)
    return text[:cut] + insert + text[cut + delete :]


@FUZZ
@given(st.binary(max_size=200), st.sampled_from(["w.lobster", "w.json"]))
def test_arbitrary_bytes(data: bytes, path: str) -> None:
    compile_workflow(data, path)


@FUZZ
@given(_yamlish, st.sampled_from(["w.lobster", "w.json"]))
def test_yaml_like_text(text: str, path: str) -> None:
    compile_workflow(text.encode(), path)


@FUZZ
@given(st.sampled_from(EXAMPLES), st.integers(min_value=0), _yamlish, st.integers(0, 20))
def test_mutated_examples(example: str, position: int, insert: str, delete: int) -> None:
    compile_workflow(_mutate(example, position, insert, delete).encode(), "w.lobster")


@FUZZ
@given(st.text(max_size=120))
def test_arbitrary_pipelines(text: str) -> None:
    result = compile_pipeline(text)
    assert (result.ir is None) == any(d.is_error for d in result.diagnostics)


@FUZZ
@given(st.text(alphabet=st.sampled_from(list("$ab.1 =!<>&|()'\"\\trufalsn-")), max_size=40))
def test_arbitrary_conditions(text: str) -> None:
    compile_workflow(f"steps:\n  - id: a\n    run: echo\n    when: {text!r}\n".encode(), "w.lobster")
