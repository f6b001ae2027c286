"""What the churn measurement on public workflow files found `lobster fmt` rewriting (issue 21): folded
(`>`) blocks the author laid out, and long pipeline stages left on one line. Each test fails on the
formatter before the fix; every output also passes the formatter's guarantees (`check_guarantees`)."""

from __future__ import annotations

import json

from fmt_helpers import check_guarantees, compiled
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from test_fmt_properties import PIPELINE

from lobsterlang import ir
from lobsterlang.compile import compile_workflow
from lobsterlang.fmt import Style, emit, format_text
from lobsterlang.fmt.meaning import meaning

# A heredoc and a jq program in a folded block, in the style of public files: the more-indented
# lines keep their line breaks, the others fold into spaces.
FOLDED_SHELL = """steps:
  - id: save
    command: >
      cat >> ~/data/log.json << ENTRY
      {
        "id": "entry-$(date +%s)",
        "status": "done"
      }
      ENTRY
      echo '{"saved": true}'
  - id: report
    command: >
      echo '$input' | jq -r '
        "Report for " + .name + "\\n" +
        (if .late then "late" else "on time" end)'
    stdin: $save.stdout
"""


def test_a_folded_block_with_more_indented_lines_is_kept() -> None:
    assert check_guarantees(FOLDED_SHELL, "x.lobster") == FOLDED_SHELL


def test_a_folded_block_is_reindented_but_stays_folded_as_written() -> None:
    deeper = "".join("  " + line if line.startswith(" ") else line for line in FOLDED_SHELL.splitlines(keepends=True))
    assert check_guarantees(deeper, "x.lobster") == FOLDED_SHELL


def test_a_folded_block_on_one_long_line_is_not_refolded() -> None:
    line = "echo '{\"original\": ${init.json}, \"filtered\": ${filtered.json}, \"analysis\": \"${analyze.stdout}\"}' | json"
    source = f"steps:\n  - id: combine\n    run: >\n      {line}\n"
    assert len(line) > 100
    assert check_guarantees(source, "x.lobster") == source


def test_a_blank_line_holding_spaces_inside_a_folded_block_keeps_them() -> None:
    # The line of spaces is more indented than the block: its spaces are part of the value.
    source = "steps:\n  - id: a\n    command: >\n      echo '\n        first\n        \n        second'\n"
    out = check_guarantees(source, "x.lobster")
    assert out == source
    assert "second" in compiled(out, "x.lobster").steps[0].action.command.text  # type: ignore[union-attr]


def test_a_folded_header_keeps_its_comment_and_chomping() -> None:
    source = "steps:\n  - id: a\n    run: >-  # joined into one line\n      printf '%s\\n'\n        \"$HOME\"\n      done\n"
    assert check_guarantees(source, "x.lobster") == source


PROMPT = "'Write a digest of these newsletters: one paragraph each, with its title as a heading and the main link.'"


def test_a_long_single_stage_breaks_before_its_flags() -> None:
    stage = f"llm.invoke --model claude-sonnet --max-tokens 1500 --prompt {PROMPT}"
    source = f"steps:\n  - id: digest\n    pipeline: \"{stage}\"\n"
    out = check_guarantees(source, "x.lobster")
    assert out == (
        "steps:\n  - id: digest\n    pipeline: >-\n      llm.invoke\n      --model claude-sonnet\n"
        f"      --max-tokens 1500\n      --prompt {PROMPT}\n"
    )
    # Folding joins the lines with single spaces: the value is the one-line pipeline, byte for byte.
    action = compiled(out, "x.lobster").steps[0].action
    assert isinstance(action, ir.PipelineRun) and action.template.text == stage


def test_a_long_stage_among_several_breaks_before_its_flags_and_short_ones_stay() -> None:
    stages = [f"llm.invoke --model claude-sonnet --prompt {PROMPT}", "json", "pick id,label"]
    source = f"steps:\n  - id: a\n    pipeline: \"{' | '.join(stages)}\"\n"
    out = check_guarantees(source, "x.lobster")
    assert out == (
        f"steps:\n  - id: a\n    pipeline: >-\n      llm.invoke\n      --model claude-sonnet\n      --prompt {PROMPT}\n"
        "      | json\n      | pick id,label\n"
    )
    assert all(len(line) <= 100 or line.lstrip().startswith("--prompt") for line in out.splitlines())


def test_a_stage_is_broken_only_where_its_line_is_too_long() -> None:
    source = "steps:\n  - id: a\n    pipeline: exec --json --shell 'gh pr list --json number,title' | where draft==false\n"
    assert check_guarantees(source, "x.lobster") == source
    narrow = format_text(source, "x.lobster", style=Style(line_width=40))
    assert narrow == (
        "steps:\n  - id: a\n    pipeline: >-\n      exec\n      --json\n"
        "      --shell 'gh pr list --json number,title'\n      | where draft==false\n"
    )


def test_a_stage_without_flags_or_with_uneven_spacing_is_not_broken() -> None:
    long_word = "x" * 120
    source = f"steps:\n  - id: a\n    pipeline: template {long_word}\n"
    assert check_guarantees(source, "x.lobster") == source
    # Text from IR keeps a `${arg}` stage's spacing as written: breaking it there would change that.
    stage = f"exec --shell  'echo ${{name}}'  --json --note {long_word}"
    text = emit(compiled(f"args:\n  name:\n    default: a\nsteps:\n  - id: a\n    pipeline: \"{stage} | json\"\n", "x.lobster"))
    assert f"      {stage}\n      | json\n" in text


def test_a_one_stage_block_broken_inside_a_quoted_word_stays_as_written() -> None:
    source = (
        "steps:\n  - id: a\n    pipeline: >-\n      template --text 'PR changed: {{after.title}} is {{after.state}}, review\n"
        "      {{after.reviewDecision}} ({{after.url}})'\n"
    )
    assert check_guarantees(source, "x.lobster") == source


def test_text_from_ir_breaks_a_long_stage_the_same_way() -> None:
    stage = f"llm.invoke --model claude-sonnet --prompt {PROMPT}"
    workflow = compiled(f"steps:\n  - id: a\n    pipeline: \"{stage}\"\n", "x.lobster")
    text = emit(workflow)
    assert "    pipeline: >-\n      llm.invoke\n      --model claude-sonnet\n" in text
    assert format_text(text, "x.lobster") == text


def test_a_plain_string_that_only_looks_like_a_number_stays_plain() -> None:
    source = "name: 2fa-rotate\nsteps:\n  - id: 01-fetch\n    workflow: 10-run-and-command.lobster\n    env:\n      VERSION: 1.0.3\n"
    assert check_guarantees(source, "x.lobster") == source


def test_a_plain_string_another_yaml_reader_takes_for_a_number_is_quoted() -> None:
    # YAML 1.1 readers take 1_000 for 1000 and 12:30 for 750 (base 60): quoted, so every reader agrees.
    source = "steps:\n  - id: a\n    run: echo\n    env:\n      COUNT: '1_000'\n      AT: '12:30'\n"
    assert check_guarantees(source.replace("'", ""), "x.lobster") == source


LINE = st.tuples(st.integers(0, 4), st.lists(st.sampled_from([*"ab #'\"|:-{}\\$", " ", "\t", "é"]), max_size=8).map("".join))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(st.sampled_from([">", ">-"]), st.lists(LINE, min_size=1, max_size=6), st.integers(0, 3))
def test_any_folded_block_keeps_its_value_and_is_kept_as_written(header: str, lines: list[tuple[int, str]], extra: int) -> None:
    """Folded blocks with any mix of more-indented, blank and space-only lines, at any indentation."""
    pad = " " * (6 + extra)
    body = "".join(pad + " " * depth + text + "\n" for depth, text in lines)
    source = f"steps:\n  - id: a\n    run: {header}\n{body}"
    result = compile_workflow(source, "x.lobster")
    assume(result.ok)
    out = check_guarantees(source, "x.lobster")
    assert out.startswith(f"steps:\n  - id: a\n    run: {header}\n")  # still the author's folded block


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(PIPELINE, st.integers(40, 80))
def test_any_pipeline_laid_out_at_any_width_keeps_its_meaning(pipeline: str, width: int) -> None:
    source = json.dumps({"steps": [{"id": "a", "pipeline": pipeline}]})
    result = compile_workflow(source, "x.json")
    assume(result.ok)
    style = Style(line_width=width)
    out = format_text(source, "x.json", to_yaml=True, style=style)
    assert meaning(compiled(out, "x.lobster")) == meaning(compiled(source, "x.json"))
    assert format_text(out, "x.lobster", style=style) == out
