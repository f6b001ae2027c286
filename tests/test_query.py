"""The core query API the language server (and any editor) uses: names, what is at an offset, rename, completion."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from lobsterlang import ir
from lobsterlang.compile import compile_workflow
from lobsterlang.fmt.meaning import meaning
from lobsterlang.query.at import at_offset
from lobsterlang.query.complete import completions
from lobsterlang.query.keys import level_at
from lobsterlang.query.names import NameKind, call_args, references
from lobsterlang.query.outline import symbols
from lobsterlang.query.recover import compile_recovering
from lobsterlang.query.rename import env_name, rename_edits, rename_problem

FLOW = """\
args:
  repo:
    default: o/r
steps:
  - id: fetch
    run: echo "$LOBSTER_ARG_REPO" && gh pr list --repo ${repo} --json
  - id: filter
    pipeline: "exec --json --shell 'cat x' | where 'n>2' | pick ${repo}"
    stdin: $fetch.json
  - id: gate
    approval: ok?
    when: $filter.json && $fetch.stdout != ''
  - id: loop
    for_each: $fetch.json
    item_var: fetch2
    steps:
      - id: inner
        run: echo $fetch2.name $fetch.stdout
        env:
          X: $gate.approved
  - id: sub
    workflow: child.lobster
    workflow_args:
      who: ${repo}
"""


def workflow(text: str = FLOW) -> ir.Workflow:
    result = compile_workflow(text, "flow.lobster")
    assert result.ir is not None, result.diagnostics
    return result.ir


def apply(text: str, edits: list[tuple[int, int, str]]) -> str:
    for start, end, new in sorted(edits, reverse=True):
        text = text[:start] + new + text[end:]
    return text


def test_references_cover_every_field_and_skip_loop_variables() -> None:
    found = references(workflow(), FLOW, "step", "fetch")
    assert [o.field for o in found] == ["id", "stdin", "when", "for_each", "run"]
    assert all(FLOW[o.start : o.end] == "fetch" for o in found)
    assert not references(workflow(), FLOW, "step", "fetch2")


def test_at_offset_names_steps_args_commands_flags_and_keys() -> None:
    def at(needle: str, shift: int = 0) -> tuple[str, str, str]:
        hit = at_offset(workflow(), FLOW, FLOW.index(needle) + shift)
        assert hit is not None
        return hit.kind, hit.name, hit.detail

    assert at("$filter", 3) == ("step", "filter", "reference")
    assert at("id: filter", 5) == ("step", "filter", "definition")
    assert at("${repo}", 3) == ("arg", "repo", "reference")
    assert at("where") == ("command", "where", "")
    assert at("--shell", 2) == ("flag", "shell", "exec")
    assert at("who:") == ("call_arg", "who", "child.lobster")
    assert at("for_each") == ("key", "for_each", "")


def test_rename_step_keeps_meaning_modulo_the_name() -> None:
    wf = workflow()
    renamed = apply(FLOW, rename_edits(wf, FLOW, "step", "fetch", "grab"))
    again = workflow(renamed)
    assert meaning(again) == meaning(wf).replace('"fetch"', '"grab"').replace("$fetch.", "$grab.")
    assert apply(renamed, rename_edits(again, renamed, "step", "grab", "fetch")) == FLOW


def test_rename_arg_also_renames_its_environment_variable() -> None:
    renamed = apply(FLOW, rename_edits(workflow(), FLOW, "arg", "repo", "repository"))
    assert "$LOBSTER_ARG_REPOSITORY" in renamed and "${repository}" in renamed and "${repo}" not in renamed


def test_rename_refuses_invalid_and_colliding_names() -> None:
    wf = workflow()
    assert "already exists" in (rename_problem(wf, FLOW, "step", "fetch", "gate") or "")
    assert "not a valid" in (rename_problem(wf, FLOW, "step", "fetch", "a b") or "")
    assert rename_problem(wf, FLOW, "step", "fetch", "grab") is None


def test_call_args_name_the_sub_workflow_keys() -> None:
    [call] = call_args(workflow(), FLOW)
    assert (call.path, call.name, FLOW[call.start : call.end]) == ("child.lobster", "who", "who")


def labels(text: str, offset: int, directory: Path | None = None) -> list[str]:
    _, wf = compile_recovering(text, "flow.lobster")
    return [c.label for c in completions(wf, text, offset, directory)]


def test_completion_contexts() -> None:
    at = FLOW.index("$fetch.json") + 1
    assert labels(FLOW, at) == ["fetch"]  # in `filter`: only earlier steps
    assert labels(FLOW, FLOW.index("$gate") + 1) == ["fetch", "filter", "gate", "fetch2", "index"]
    assert labels(FLOW, FLOW.index("$fetch.json") + 7) == ["stdout", "json", "skipped", "error", "errorMessage"]
    assert "approved" in labels(FLOW, FLOW.index("$gate.approved") + 6)
    assert labels(FLOW, FLOW.index("$fetch2.name") + 8) == ["json", "stdout"]
    assert labels(FLOW, FLOW.index("${repo}", 200) + 2) == ["repo"]
    assert "where" in labels(FLOW, FLOW.index("where"))
    assert "--shell" in labels(FLOW, FLOW.index("--shell") + 3)
    added = FLOW + "  - id: x\n    ti"
    assert "timeout_ms" in labels(added, len(added))
    added = FLOW.replace("default: o/r", "default: o/r\n    desc")
    assert "description" in labels(added, added.index("desc") + 4)


def test_enum_values_after_a_flag_and_workflow_paths(tmp_path: Path) -> None:
    (tmp_path / "child.lobster").write_text("steps: [{id: a, run: 'true'}]\n")
    text = FLOW + "  - id: x\n    workflow: ch"
    assert labels(text, len(text), tmp_path) == ["child.lobster"]
    from lobsterlang.commands.specs import COMMANDS

    spec, flag = next((s, f) for s in COMMANDS for f in s.flags if f.choices)
    text = FLOW + f"  - id: x\n    pipeline: {spec.name} --{flag.name} "
    assert labels(text, len(text)) == list(flag.choices)


def test_key_levels() -> None:
    assert level_at(FLOW, FLOW.index("default")) == "arg"
    assert level_at(FLOW, FLOW.index("    stdin")) == "step"
    assert level_at(FLOW, FLOW.index("        env")) == "substep"


def test_outline_and_recovery_above_a_syntax_error() -> None:
    assert [s.name for s in symbols(workflow())] == ["args", "fetch", "filter", "gate", "loop", "sub"]
    broken = FLOW.replace("  - id: loop\n", "  - id: loop\n    bad: [unclosed\n")
    result, wf = compile_recovering(broken, "flow.lobster")
    assert result.ir is None and wf is not None
    assert [s.name for s in symbols(wf)] == ["args", "fetch", "filter", "gate"]


def test_arg_completion_closes_the_brace_only_once() -> None:
    _, wf = compile_recovering(FLOW, "flow.lobster")
    open_brace = FLOW + "  - id: x\n    run: echo ${r"
    assert [c.insert for c in completions(wf, open_brace, len(open_brace))] == ["repo}"]
    closed = open_brace + "}\n"
    assert [c.insert for c in completions(wf, closed, len(open_brace))] == ["repo"]


def _renamings() -> list[tuple[str, NameKind, str]]:
    from helpers import EXAMPLES

    from lobsterlang.query.names import occurrences

    cases = []
    for path in sorted(EXAMPLES.rglob("*.lobster")):
        text = path.read_text(encoding="utf-8")
        result = compile_workflow(text, str(path))
        if result.ir is None:
            continue
        names = {(o.kind, o.name) for o in occurrences(result.ir, text) if o.role == "definition"}
        cases += [(str(path), kind, name) for kind, name in sorted(names)]
    return cases


@pytest.mark.parametrize(("path", "kind", "name"), _renamings())
def test_every_rename_in_the_examples_keeps_meaning_and_findings(path: str, kind: NameKind, name: str) -> None:
    from lobsterlang.lint import Config, Source, lint_source

    text = Path(path).read_text(encoding="utf-8")
    before = compile_workflow(text, path).ir
    assert before is not None
    new = "zz-renamed"
    assert rename_problem(before, text, kind, name, new) is None
    renamed = apply(text, rename_edits(before, text, kind, name, new))
    after = compile_workflow(renamed, path).ir
    assert after is not None
    undo = {"zz-renamed": name, "ZZ_RENAMED": env_name(name)}
    assert re.sub("zz-renamed|ZZ_RENAMED", lambda m: undo[m.group()], meaning(after)) == meaning(before)

    def codes(source: str) -> list[str]:
        return sorted(d.code for d in lint_source(Source(path, source), Config(shellcheck=False)).diagnostics)

    assert codes(renamed) == codes(text)


@pytest.mark.parametrize("run", ['"echo \\x24{repo}"', '"echo $LOBSTER_ARG_RE\\x50O"'])
def test_rename_refuses_names_hidden_behind_yaml_escapes(run: str) -> None:
    text = f"args:\n  repo:\n    default: x\nsteps:\n  - id: a\n    run: {run}\n"
    wf = workflow(text)
    assert "cannot be renamed safely" in (rename_problem(wf, text, "arg", "repo", "repository") or "")


def test_key_completion_leaves_out_keys_already_there() -> None:
    text = FLOW.replace("    stdin: $fetch.json\n", "    stdin: $fetch.json\n    ti\n")
    found = labels(text, text.index("    ti\n") + 6)
    assert "timeout_ms" in found and "pipeline" not in found and "stdin" not in found and "id" not in found
    top = FLOW + "na"
    assert "name" in labels(top, len(top)) and "steps" not in labels(top, len(top))


def test_a_bar_inside_quotes_does_not_start_a_stage() -> None:
    text = FLOW + "  - id: x\n    pipeline: exec --shell 'a | b' --"
    assert "--json" in labels(text, len(text))


def test_findings_and_fixes_in_a_range() -> None:
    from lobsterlang.lint import Config, Source, lint_source
    from lobsterlang.query.fixes import findings_in_range, fixes_in_range

    found = lint_source(Source("flow.lobster", FLOW), Config(shellcheck=False, target="reference")).diagnostics
    at_ref = FLOW.index("${repo}") + 2
    assert {d.code for d in fixes_in_range(found, at_ref, at_ref)} == {"L301"}
    assert fixes_in_range(found, 0, FLOW.index("steps:")) == []
    assert len(findings_in_range(found, 0, len(FLOW))) == len(found)


@pytest.mark.parametrize("path", [*sorted(str(p) for p in (Path(__file__).parent.parent / "examples").rglob("*.lobster")), "FLOW"])
def test_occurrences_within_a_range_and_definitions_agree_with_the_whole_list(path: str) -> None:
    """The language server reads names only around each finding; it must see what the whole list has there."""
    from lobsterlang.query.names import (
        defining_by_name,
        definition,
        occurrences,
        occurrences_in_steps,
        steps_overlapping,
    )

    text = FLOW if path == "FLOW" else Path(path).read_text(encoding="utf-8")
    workflow = compile_workflow(text, path).ir
    assert workflow is not None
    every = occurrences(workflow, text)
    by_name = {key: occurrences(workflow, text, map(definition, nodes)) for key, nodes in defining_by_name(workflow).items()}
    assert sorted((o for found in by_name.values() for o in found), key=lambda o: o.start) == [o for o in every if o.role == "definition"]
    starts = [step.span.start for step in workflow.steps]
    ranges = [(step.span.start, step.span.end) for step in workflow.steps] + [(0, len(text))]
    ranges += [(o.start, o.end) for o in every] + [(o.start - 1, o.end + 3) for o in every] + [(o.start + 1, o.end) for o in every]
    for start, end in ranges:
        expected = [o for o in every if start <= o.start and o.end <= end]
        found = occurrences_in_steps(workflow, text, *steps_overlapping(starts, start, end))
        assert [o for o in found if start <= o.start and o.end <= end] == expected, (start, end)
