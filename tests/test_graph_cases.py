"""`lobster graph` prints exactly the recorded output for every case in tests/cases/graph."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import CASES

from lobsterlang.cli import main
from lobsterlang.compile import compile_workflow
from lobsterlang.graph import render_graph
from lobsterlang.graph.model import truncate
from lobsterlang.graph.render import mermaid_keys

GRAPH = CASES / "graph"
DIFFERENCES = GRAPH / "differences.json"
FILES = sorted(p for p in GRAPH.iterdir() if p.suffix in (".lobster", ".json") and not p.name.endswith(".args.json")
               and p != DIFFERENCES)
Capture = pytest.CaptureFixture[str]


def _args(path: Path) -> list[str]:
    given = path.with_name(path.stem + ".args.json")
    return ["--args-json", given.read_text(encoding="utf-8")] if given.exists() else []


@pytest.mark.parametrize("fmt", ["mermaid", "dot", "ascii"])
@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_graph_output(path: Path, fmt: str, capsys: Capture) -> None:
    assert main(["graph", "--file", str(path), "--format", fmt, *_args(path)]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    assert out == path.with_suffix("." + fmt).read_text(encoding="utf-8")


def test_every_deliberate_difference_keeps_the_reference_drawing_beside_it() -> None:
    # tools/record_graph_cases.py writes the reference's output to NAME.reference for the files listed in
    # differences.json, and to NAME itself for all others: those equal the reference byte for byte.
    listed = json.loads(DIFFERENCES.read_text(encoding="utf-8"))
    kept = {p.name.removesuffix(".reference") for p in GRAPH.glob("*.reference")}
    assert kept == set(listed)
    for name in listed:
        assert (GRAPH / name).read_text(encoding="utf-8") != (GRAPH / (name + ".reference")).read_text(encoding="utf-8")


def test_case_set_covers_every_node_kind() -> None:
    assert len(FILES) >= 8
    text = (GRAPH / "01-every-kind-and-refs.ascii").read_text(encoding="utf-8")
    for kind in ("run", "approval", "parallel", "for_each", "workflow", "input"):
        assert f"[{kind}]" in text


def test_default_format_is_mermaid_and_file_may_be_positional(capsys: Capture) -> None:
    path = GRAPH / "06-single-step.lobster"
    assert main(["graph", str(path)]) == 0
    assert capsys.readouterr().out == 'flowchart TD\n  only["only\\nrun: echo hi"]\n\n'


@pytest.mark.parametrize(
    "args, code, message",
    [
        ([], 2, "graph requires a workflow file path (use --file <path>)\n"),
        (["--file", "x.lobster", "--format", "svg"], 2, "graph --format must be one of: mermaid, dot, ascii\n"),
        (["--file", "x.lobster", "--args-json", "[1]"], 2, "graph --args-json must be a JSON object\n"),
        (["--file", "x.lobster", "--args-json", "null"], 2, "graph --args-json must be a JSON object\n"),
        (["--file", "x.lobster", "--args-json", "{"], 2, "graph --args-json must be valid JSON\n"),
    ],
)
def test_usage_errors(args: list[str], code: int, message: str, capsys: Capture) -> None:
    assert main(["graph", *args]) == code
    assert capsys.readouterr().err.endswith(f"\nError: {message}")  # the reference's words, in the one error style


def test_file_problems_are_usage_errors_worded_as_in_every_subcommand(tmp_path: Path, capsys: Capture) -> None:
    # The reference exits 1 with `ENOENT: …, stat '…'` / `Workflow path is not a file`: a missing file, a
    # directory or another extension is a usage error in every lobsterlang subcommand (docs/compatibility.md).
    missing, folder = tmp_path / "nope.lobster", tmp_path / "dir.lobster"
    folder.mkdir()
    for target, problem in ((missing, "no such file or directory"), (folder, "is a directory, not a workflow file"),
                            (tmp_path / "notes.txt", "Workflow file must end in .lobster, .yaml, .yml, or .json")):
        for command in (["graph", "--file"], ["graph"], ["compile"], ["run"], ["run", "--file"]):
            if command == ["run"] and target.suffix == ".txt":
                continue  # a sole word that is no workflow file name is a pipeline (`Unknown command: notes.txt`)
            assert main([*command, str(target)]) == 2, command
            assert capsys.readouterr().err.endswith(f"Error: {target}: {problem}\n"), command
    bad = tmp_path / "bad.lobster"
    bad.write_text("steps: []\n", encoding="utf-8")
    assert main(["graph", "--file", str(bad)]) == 1
    assert capsys.readouterr().err == "Error: Workflow file requires a non-empty steps array\n"


def test_invalid_condition_still_draws(capsys: Capture, tmp_path: Path) -> None:
    path = tmp_path / "w.lobster"
    path.write_text("steps:\n  - id: a\n    run: x\n  - id: b\n    run: y\n    when: $a.json ==\n", encoding="utf-8")
    assert main(["graph", "--file", str(path), "--format", "ascii"]) == 0
    assert "- a -> b (when: $a.json ==)" in capsys.readouterr().out


@pytest.mark.parametrize("step_id", ['a"]; b["x', "x -->|y| z", "a}; click a call(x)", "<img src=x>", "a&b|c"])
def test_mermaid_labels_cannot_break_out(step_id: str) -> None:
    text = json.dumps({"steps": [{"id": step_id, "run": 'echo "|]}>'}, {"id": "n", "run": "x", "stdin": "$x.json"}]})
    workflow = compile_workflow(text, "w.json").ir
    assert workflow is not None
    node_line = render_graph(workflow, "mermaid").splitlines()[1]
    label = node_line[node_line.index('["') + 2 : node_line.rindex('"]')]
    assert not set(label) & set('"|<>') and "&" not in label.replace("&amp;", "").replace("&quot;", "").replace(
        "&lt;", "").replace("&gt;", "").replace("&#124;", "")


def test_dot_labels_cannot_break_out() -> None:
    text = json.dumps({"steps": [{"id": 'a" ]; evil [label="x', "run": 'echo \\"'}]})
    workflow = compile_workflow(text, "w.json").ir
    assert workflow is not None
    line = render_graph(workflow, "dot").splitlines()[2]
    assert line == '  "a\\" ]; evil [label=\\"x" [shape=box,label="a\\" ]; evil [label=\\"x\\nrun: echo \\\\\\""];'


def test_keys_and_truncation_helpers() -> None:
    assert mermaid_keys(["2nd-step", "x.y", "x_y"]) == {"2nd-step": "s_2nd_step", "x.y": "x_y", "x_y": "x_y_2"}
    assert truncate("a" * 80, 80) == "a" * 80
    assert truncate("a" * 81, 80) == "a" * 79 + "…"
