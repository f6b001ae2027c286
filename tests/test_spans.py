"""Spans of stages, flags, references and conditions point at the exact text in the file."""

from __future__ import annotations

from typing import Any

import pytest

from lobsterlang import ir
from lobsterlang.compile import compile_workflow
from lobsterlang.span import Span

STYLES = {
    "plain": "pipeline: {p}\n",
    "single-quoted": "pipeline: '{p}'\n",
    "double-quoted": 'pipeline: "{p}"\n',
    "literal-block": "pipeline: |\n      {p}\n",
    "literal-strip": "pipeline: |-\n      {p}\n",
    "folded-block": "pipeline: >\n      {p}\n",
    "json-string": None,
}
PIPELINE = "exec --json --shell cmd | where x=1 | pick id,name"


def _text_at(source: str, span: Span) -> str:
    return source[span.start : span.end]


def _line_col_text(source: str, span: Span) -> str:
    line: str = source.splitlines()[span.line - 1]
    return line[span.col - 1 : span.col - 1 + (span.end - span.start)]


def _first_pipeline(source: str, path: str) -> tuple[ir.Pipeline, str]:
    result = compile_workflow(source, path)
    assert result.ir is not None, result.diagnostics
    action = result.ir.steps[0].action
    assert isinstance(action, ir.PipelineRun) and action.pipeline is not None
    return action.pipeline, source


def _source(style: str) -> tuple[str, str]:
    if style == "json-string":
        return '{"steps": [{"id": "a",\n  "pipeline": "' + PIPELINE + '"}]}', "x.json"
    template = STYLES[style]
    assert template is not None
    return "steps:\n  - id: a\n    " + template.format(p=PIPELINE), "x.lobster"


@pytest.mark.parametrize("style", STYLES)
def test_stage_and_flag_spans_in_every_scalar_style(style: str) -> None:
    pipeline, source = _first_pipeline(*_source(style))
    names = [stage.name for stage in pipeline.stages]
    assert [_text_at(source, w.span) for w in names] == ["exec", "where", "pick"]
    assert [_line_col_text(source, w.span) for w in names] == ["exec", "where", "pick"]
    flags = [a for a in pipeline.stages[0].args if isinstance(a, ir.Flag)]
    assert [_text_at(source, f.name_span) for f in flags] == ["--json", "--shell"]
    assert flags[1].value is not None and _text_at(source, flags[1].value.span) == "cmd"


def test_spans_inside_escaped_double_quotes() -> None:
    source = 'steps:\n  - id: a\n    pipeline: "exec --text \\"a b\\" | where \\u0078=1"\n'
    pipeline, _ = _first_pipeline(source, "x.lobster")
    where = pipeline.stages[1]
    assert _text_at(source, where.name.span) == "where"
    arg = where.args[0]
    assert isinstance(arg, ir.Positional)
    assert arg.value.value == "x=1" and _text_at(source, arg.value.span) == "\\u0078=1"


def test_multiline_literal_block_pipeline() -> None:
    source = "steps:\n  - id: a\n    pipeline: |\n      exec --shell 'echo 1'\n        | json\n"
    pipeline, _ = _first_pipeline(source, "x.lobster")
    json_stage = pipeline.stages[1]
    assert (json_stage.name.span.line, json_stage.name.span.col) == (5, 11)


def test_reference_spans_in_run_and_words() -> None:
    source = (
        "args:\n  who: {default: bob}\nsteps:\n  - id: a\n    run: |\n      echo ${who}\n"
        "  - id: b\n    pipeline: 'template --text \"hi $a.stdout\"'\n"
    )
    result = compile_workflow(source, "x.lobster")
    assert result.ir is not None
    run = result.ir.steps[0].action
    assert isinstance(run, ir.ShellRun)
    (arg_ref,) = run.command.refs
    assert _text_at(source, arg_ref.span) == "${who}" and (arg_ref.span.line, arg_ref.span.col) == (6, 12)
    pipe = result.ir.steps[1].action
    assert isinstance(pipe, ir.PipelineRun) and pipe.pipeline is not None
    flag = pipe.pipeline.stages[0].args[0]
    assert isinstance(flag, ir.Flag) and flag.value is not None and flag.value.template is not None
    (step_ref,) = flag.value.template.refs
    assert _text_at(source, step_ref.span) == "$a.stdout"


def test_condition_spans() -> None:
    source = "steps:\n  - id: a\n    run: echo\n  - id: b\n    run: echo\n    when: '$a.json.n > 2 && !$a.approved'\n"
    result = compile_workflow(source, "x.lobster")
    assert result.ir is not None
    when = result.ir.steps[1].when
    assert isinstance(when, ir.ExprCondition)
    expr: Any = when.expr
    assert isinstance(expr, ir.Logical)
    assert _text_at(source, expr.left.span) == "$a.json.n > 2"
    assert _text_at(source, expr.right.span) == "!$a.approved"


def test_condition_error_points_at_the_bad_token() -> None:
    source = "steps:\n  - id: a\n    run: echo\n    when: $a.json == 1 == true\n"
    result = compile_workflow(source, "x.lobster")
    (diag,) = result.diagnostics
    assert diag.code == "X001" and diag.message == "Unsupported condition: $a.json == 1 == true"
    assert _text_at(source, diag.span) == "=="


@pytest.mark.parametrize("when", ["${force}", '${force} == "yes"', '"$a.json.x == ${force}"', "'${my-arg}'"])
def test_condition_error_underlines_a_whole_arg_reference(when: str) -> None:
    source = f"steps:\n  - id: a\n    run: echo\n    when: {when}\n"
    (diag,) = compile_workflow(source, "x.lobster").diagnostics
    assert diag.code == "X001"
    assert _text_at(source, diag.span) in ("${force}", "${my-arg}")


def test_pipeline_error_inside_block_scalar_points_into_the_file() -> None:
    source = "steps:\n  - id: a\n    pipeline: |\n      exec echo hi\n      | | json\n"
    result = compile_workflow(source, "x.lobster")
    (diag,) = [d for d in result.diagnostics if d.is_error]
    assert diag.code == "P003" and (diag.span.line, diag.span.col) == (5, 7)


def test_comments_are_kept_with_positions() -> None:
    source = (
        "# top\nname: x  # trailing\nsteps:\n  # before a\n  - id: a\n    run: |\n      echo 1 # part of the script\n"
        "    # after the block\n  - id: b\n    run: 'echo # not a comment'\n    pipeline: json#not\n"
    )
    result = compile_workflow(source, "x.lobster")
    assert result.ir is not None
    found = [(c.text, c.span.line, c.span.col) for c in result.ir.comments]
    assert found == [("# top", 1, 1), ("# trailing", 2, 10), ("# before a", 4, 3), ("# after the block", 8, 5)]
    assert all(_text_at(source, c.span) == c.text for c in result.ir.comments)


def test_comments_inside_scalars_are_text_and_the_rest_belong_to_their_entries() -> None:
    source = (
        "steps:\n  - id: a\n    run: |-  # header note\n      echo 1\n      # inside the script\n"
        '    env:\n      K: "two\n        # inside a quoted scalar"\n  # between steps\n'
        "  - id: b  # trailing b\n    run: echo 2\n    # after b's last key\n# at the end\n"
    )
    result = compile_workflow(source, "x.lobster")
    assert result.ir is not None
    found = [(c.text, c.span.line, c.span.col, c.path, c.placement) for c in result.ir.comments]
    assert found == [
        ("# header note", 3, 14, ("steps", 0, "run"), "trailing"),
        ("# between steps", 9, 3, ("steps", 1), "before"),
        ("# trailing b", 10, 12, ("steps", 1, "id"), "trailing"),
        ("# after b's last key", 12, 5, ("steps", 1, "run"), "after"),
        ("# at the end", 13, 1, (), "end"),
    ]
