"""`lobster graph` Mermaid output goes through the real Mermaid parser (the `mermaid` npm package).

Every label must parse, set no Mermaid configuration (`%%{init: …}%%`), and come out of the parser
as the text it was: the labels the renderer receives are compared with the graph's own labels.
Mermaid is the VS Code extension's (tests/mermaid_check.py): one `npm ci`, on first use.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

import pytest
from helpers import CASES
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mermaid_check import mermaid_check, ready

from lobsterlang.cli import main
from lobsterlang.compile import compile_workflow
from lobsterlang.graph import build_graph
from lobsterlang.graph.model import Edge, Graph, Node
from lobsterlang.graph.render import render_mermaid

GRAPH_CASES = sorted((CASES / "graph").glob("*.mermaid"))
NASTY = [*"()[]{}|&\"'<>#%;:-=.!*$`\\/ ~^@,\t", "%%", '%%{init: {"theme":"dark"}}%%', "#quot;", "#35;",
         "&#124;", "-->", "---", "==>", "-.->", "\\n", "ﬂ°°1¶ß", "é", "😀"]
LABEL = st.lists(st.sampled_from([*NASTY, "a", "b", "x1", " "]), min_size=1, max_size=12).map("".join)


@pytest.fixture(scope="module")
def checker() -> None:
    """Mermaid installed (or skip when Node or npm is absent)."""
    ready()


def _shown(text: str) -> str:
    """What a browser shows for a label the parser passed on: entities decoded, whitespace collapsed."""
    return _collapsed(html.unescape(text))


def _collapsed(text: str) -> str:
    return " ".join(text.split())


def _assert_faithful(graph: Graph, result: dict[str, Any]) -> None:
    assert result["ok"], result["error"]
    assert result["config"] == {}, result["config"]
    # the parser hands the renderer each label whole, its lines joined by Mermaid's line break `\n`; what the renderer
    # draws of them is tests/test_graph_drawn.py's
    assert [_shown(label) for label in result["nodes"]] == [_collapsed("\\n".join(node.lines)) for node in graph.nodes]
    assert [_shown(label) for label in result["edges"]] == [_collapsed("\\n".join(edge.lines)) for edge in graph.edges]


INJECTIONS = {
    "init directive in an id": "steps:\n  - id: \"x%%{init: {'theme':'dark'}}%%\"\n    run: echo hi\n",
    "init directive in a command": "steps:\n  - id: a\n    run: \"echo %%{init: {'theme':'forest'}}%%\"\n",
    "init directive in a condition": "steps:\n  - id: a\n    run: echo\n  - id: b\n    run: echo\n"
                                     "    when: '$a.json.x == \"%%{init: {''theme'':''dark''}}%%\"'\n",
    "comment in a command": "steps:\n  - id: a\n    run: |-\n      echo a\n      %% x\n",
    "brackets and || in a condition": (
        "steps:\n  - id: a\n    run: echo '{}'\n  - id: b\n    run: echo b\n"
        "    when: '($a.json.x == \"[1]\" || $a.json.y != \"{}\") && !($a.json.z) && \"${x}\" == \"#35;\"'\n"
    ),
}


def _graph_of(text: str) -> Graph:
    workflow = compile_workflow(text.encode(), "w.lobster").ir
    assert workflow is not None
    return build_graph(workflow, {})


def test_every_recorded_graph_parses_with_no_configuration(checker: None) -> None:
    results = mermaid_check([path.read_text(encoding="utf-8") for path in GRAPH_CASES])
    for path, result in zip(GRAPH_CASES, results, strict=True):
        assert result["ok"] and result["config"] == {}, (path.name, result)


def test_the_reference_drawings_lobsterlang_differs_from_do_not_show_as_written(checker: None) -> None:
    # Why tests/cases/graph/differences.json lists these (2026.9.13): a bracket in an edge label breaks the
    # grammar, and `&#124;` is drawn as `&|`.
    every_kind, injection = mermaid_check([(CASES / "graph" / name).read_text(encoding="utf-8") for name in (
        "01-every-kind-and-refs.mermaid.reference", "07-label-injection.mermaid.reference")])
    assert not every_kind["ok"] and "Parse error" in every_kind["error"]
    assert injection["ok"] and any("&|" in _shown(label) for label in injection["nodes"])


def test_labels_cannot_configure_mermaid_or_break_its_grammar(checker: None, tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    outputs = []
    for number, text in enumerate(INJECTIONS.values()):
        path = tmp_path / f"w{number}.lobster"
        path.write_text(text, encoding="utf-8")
        assert main(["graph", str(path)]) == 0
        outputs.append(capsys.readouterr().out)
    results = mermaid_check(outputs)
    for name, text, result in zip(INJECTIONS, INJECTIONS.values(), results, strict=True):
        assert result["ok"], (name, result["error"])
        _assert_faithful(_graph_of(text), result)


@settings(max_examples=2, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(labels=st.lists(st.tuples(LABEL, LABEL), min_size=60, max_size=60))
def test_any_label_parses_and_shows_as_written(labels: list[tuple[str, str]], checker: None) -> None:
    nodes = tuple(Node(f"s{i}", "run", f"run: {a}", i % 2 == 0) for i, (a, _) in enumerate(labels))
    edges = tuple(Edge(f"s{i}", f"s{(i + 1) % len(labels)}", f"when: {b}") for i, (_, b) in enumerate(labels))
    graph = Graph(nodes, edges)
    (result,) = mermaid_check([render_mermaid(graph)])
    _assert_faithful(graph, result)
