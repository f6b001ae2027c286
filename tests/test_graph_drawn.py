"""Each `lobster graph` format drawn by its real renderer shows every label line as lobsterlang means it.

DOT goes through Graphviz's `dot -Tsvg` (the Debian package, installed when missing) and Mermaid through the
extension's mermaid under jsdom (tests/mermaid_check.py); the text elements of what they draw are compared, line
by line, with the graph's own label lines. The text format is read back line by line. Whitespace is compared
collapsed, as a browser shows SVG text, and blank lines, which no renderer draws as text, are left out.
"""

from __future__ import annotations

import shutil
import subprocess
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

import pytest
from debian_packages import DebianPackages
from helpers import CASES, EXAMPLES
from mermaid_check import mermaid_check, ready

from lobsterlang.compile import compile_workflow
from lobsterlang.graph import build_graph
from lobsterlang.graph.model import Graph
from lobsterlang.graph.render import RENDERERS, mermaid_keys
from lobsterlang.terminal import visible

GRAPHVIZ = DebianPackages(("graphviz",))
SVG = "{http://www.w3.org/2000/svg}"
TRICKY = {
    "printf with a newline escape": "steps:\n  - id: a\n    run: printf '%s\\n' \"$x\"\n",
    "backslashes": "steps:\n  - id: a\n    run: echo a\\\\nb \\\\\\\\ c\\\\\n",
    "DOT escapes": "steps:\n  - id: a\n    run: echo '\\l \\r \\N \\G \\E \\T \\H'\n",
    "a multi-line command": "steps:\n  - id: a\n    run: |\n      echo one\n      echo two \\\\n\n",
    "markup in a label": "steps:\n  - id: a\n    run: echo '<b>x</b> &amp; #35; #quot; \"q\"'\n",
    "a condition with a newline escape": (
        "steps:\n  - id: a\n    run: echo\n  - id: b\n    run: echo\n    when: '$a.json.x == \"1\\n2\"'\n"
    ),
    "an arg reference": "args:\n  who:\n    default: world\nsteps:\n  - id: hi\n    run: echo \"${who}\"\n",
    "names Mermaid keeps in objects": "steps:\n  - id: __proto__\n    run: echo\n  - id: toString\n    run: echo\n",
}
FILES = sorted([*(CASES / "graph").glob("*.lobster"), *EXAMPLES.glob("*.lobster")])


def _graphs(tmp_path: Path) -> dict[str, Graph]:
    """The graph of every case and example file, and of each TRICKY text, by name."""
    graphs = {}
    for name, text in [*((p.name, p.read_text(encoding="utf-8")) for p in FILES), *TRICKY.items()]:
        workflow = compile_workflow(text, str(tmp_path / "w.lobster")).ir
        assert workflow is not None, name
        graphs[name] = build_graph(workflow, {})
    return graphs


def _shown(lines: list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """Lines as a renderer shows them: whitespace collapsed, blank lines left out."""
    return tuple(" ".join(line.split()) for line in lines if line.strip())


@pytest.fixture(scope="module")
def graphs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Graph]:
    return _graphs(tmp_path_factory.mktemp("graphs"))


@pytest.fixture(scope="module")
def dot() -> str:
    """Graphviz's `dot` (installed with apt-get when missing, or skip)."""
    problem = GRAPHVIZ.ready()
    found = shutil.which("dot")
    if found is None:
        pytest.skip(problem or "Graphviz's dot is not installed")
    return found


def _dot_drawn(dot: str, source: str) -> tuple[Counter[tuple[str, ...]], Counter[tuple[str, ...]]]:
    """The text lines `dot -Tsvg` draws in each node and on each edge (as multisets: the SVG's order is its own)."""
    svg = subprocess.run([dot, "-Tsvg"], input=source, capture_output=True, text=True, timeout=120, check=True).stdout
    root = ET.fromstring(svg)
    drawn: dict[str, Counter[tuple[str, ...]]] = {"node": Counter(), "edge": Counter()}
    for group in root.iter(f"{SVG}g"):
        kind = group.get("class")
        if kind in drawn:
            texts = ["".join(t.itertext()).replace("\xa0", " ") for t in group.iter(f"{SVG}text")]
            drawn[kind][_shown(texts)] += 1
    return drawn["node"], drawn["edge"]


def test_graphviz_draws_every_label_line_as_written(dot: str, graphs: dict[str, Graph]) -> None:
    # before: `\\n` between id and details, so Graphviz drew one line with a literal `\n` in it
    for name, graph in graphs.items():
        nodes, edges = _dot_drawn(dot, RENDERERS["dot"](graph))
        assert nodes == Counter(_shown(node.lines) for node in graph.nodes), name
        assert edges == Counter(_shown(edge.lines) for edge in graph.edges), name


WRITTEN = {
    "printf with a newline escape": ("a", "run: printf '%s\\n' \"$x\""),
    "an arg reference": ("hi", 'run: echo "${who}"'),
    "backslashes": ("a", "run: echo a\\\\nb \\\\\\\\ c\\\\"),
}
"""Nodes drawn exactly as the file writes them (the label lines of TRICKY's first node)."""


def test_graphviz_draws_the_file_s_text(dot: str, graphs: dict[str, Graph]) -> None:
    for name, lines in WRITTEN.items():
        nodes, _ = _dot_drawn(dot, RENDERERS["dot"](graphs[name]))
        assert lines in nodes, (name, nodes)


def test_mermaid_draws_every_label_line_as_written(graphs: dict[str, Graph]) -> None:
    # before: a `\n` in a command (`printf '%s\n'`) was drawn as a line break, and `__proto__` could not be drawn
    ready()
    results = mermaid_check([RENDERERS["mermaid"](graph) for graph in graphs.values()], draw=True)
    for (name, graph), result in zip(graphs.items(), results, strict=True):
        assert result["ok"], (name, result["error"])
        keys = mermaid_keys([node.id for node in graph.nodes])
        drawn = {key: _shown(lines) for key, lines in result["drawn"]["nodes"].items()}
        assert drawn == {keys[node.id]: _shown(node.lines) for node in graph.nodes}, name
        assert [_shown(lines) for lines in result["drawn"]["edges"]] == [_shown(edge.lines) for edge in graph.edges], name
        if name in WRITTEN:
            assert drawn[keys[graph.nodes[0].id]] == WRITTEN[name], name


def test_the_text_format_shows_each_node_and_edge_whole_on_its_line(graphs: dict[str, Graph]) -> None:
    # before: details were read back from the label after its first `\n`, so `run: printf '%s\n'` was cut there
    for name, graph in graphs.items():
        text = RENDERERS["ascii"](graph)
        nodes, _, edges = text.partition("\n\nEdges:\n")
        assert nodes.splitlines()[3:] == [_ascii_node(node.id, node.kind_text, node.details) for node in graph.nodes], name
        expected = [visible(f"- {e.source} -> {e.target} ({e.label})") for e in graph.edges] or ["- (none)"]
        assert edges.splitlines() == expected, name
    printf = RENDERERS["ascii"](graphs["printf with a newline escape"]).splitlines()
    assert "- a [run] (run: printf '%s\\n' \"$x\")" in printf


def _ascii_node(step_id: str, kind: str, details: str) -> str:
    return visible(f"- {step_id} [{kind}] ({details})" if details else f"- {step_id} [{kind}]")



def test_the_reference_drawings_show_what_differences_json_says(dot: str) -> None:
    # the reference's DOT (and lobsterlang's before) drew `only\nrun: echo hi` on one line, and its Mermaid drew a
    # `\n` inside a command as a line break
    nodes, _ = _dot_drawn(dot, (CASES / "graph" / "06-single-step.dot.reference").read_text(encoding="utf-8"))
    assert nodes == Counter({("only\\nrun: echo hi",): 1})
    ready()
    (result,) = mermaid_check([(CASES / "graph" / "09-backslash-n-in-command.mermaid.reference").read_text(encoding="utf-8")],
                              draw=True)
    assert result["drawn"]["nodes"]["a"] == ["a", "run: printf 'a\\", "b\\", "'"]
