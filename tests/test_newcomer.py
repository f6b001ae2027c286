"""A newcomer's first hour (issue 30 items 5-11, issue 36 items 3-4): what a person reads on the terminal."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from lobsterlang.cli import main

Capture = pytest.CaptureFixture[str]
LOBSTER = Path(sys.executable).parent / "lobster"


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("LOBSTER_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _complete(words: str, cword: str) -> list[str]:
    env = {**os.environ, "_LOBSTER_COMPLETE": "bash_complete", "COMP_WORDS": words, "COMP_CWORD": cword}
    done = subprocess.run([str(LOBSTER)], capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


# ── 30.11: one error style, explain by name, unclosed quotes where they open, completion ──

@pytest.mark.parametrize("argv", [
    ["graph", "--file", "x.lobster", "--format", "svg"],
    ["graph"],
    ["graph", "--file", "x.lobster", "--args-json", "{"],
    ["explain", "L999"],
    ["help", "grpah"],
    ["run", "--dryrun", "x"],
    ["nosuch-thing.lobster"],
])
def test_every_error_starts_with_error(argv: list[str], work: Path, capsys: Capture) -> None:
    assert main(argv) != 0
    lines = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert any(line.startswith("Error: ") for line in lines), lines


def test_graph_format_error_suggests_the_format(work: Path, capsys: Capture) -> None:
    assert main(["graph", "--file", "x.lobster", "--format", "mermiad"]) == 2
    assert "Error: graph --format must be one of: mermaid, dot, ascii. Did you mean 'mermaid'?" in capsys.readouterr().err


def test_explain_takes_a_rule_name(capsys: Capture) -> None:
    assert main(["explain", "raw-arg-in-shell"]) == 0
    assert capsys.readouterr().out.startswith("# L301 `raw-arg-in-shell`")
    assert main(["explain", "raw-arg-in-shel"]) == 2
    assert "Did you mean 'raw-arg-in-shell'?" in capsys.readouterr().err


@pytest.mark.parametrize("quote", ['"', "'"])
def test_an_unclosed_yaml_quote_is_reported_where_it_opens(quote: str, work: Path, capsys: Capture) -> None:
    (work / "q.lobster").write_text(f"name: q\nsteps:\n  - id: a\n    run: {quote}echo hi\n  - id: b\n    run: echo b\n")
    assert main(["lint", "q.lobster"]) == 1
    out = capsys.readouterr().out
    assert f"q.lobster:4:10: E003 YAML syntax error: unclosed quote: this {quote} is never closed" in out, out
    assert main(["run", "q.lobster"]) == 1
    assert "at line 4, column 10" in capsys.readouterr().err


@pytest.mark.parametrize("words, cword, expected", [
    ("lobster graph --format ", "3", ["plain,mermaid", "plain,dot", "plain,ascii"]),
    ("lobster help gr", "2", ["plain,graph", "plain,groupBy"]),
    ("lobster run --approval", "2", ["plain,--approval-ttl"]),
    ("lobster run --ov", "2", ["plain,--overlap"]),
    ("lobster run --overlap ", "3", ["plain,skip", "plain,queue"]),
    ("lobster run --de", "2", ["plain,--detach"]),
    ("lobster resume --acc", "2", ["plain,--accept-unsigned-state"]),
    ("lobster resume --b", "2", ["plain,--backend"]),
])
def test_completion_covers_formats_help_and_every_run_and_resume_flag(words: str, cword: str, expected: list[str]) -> None:
    assert _complete(words, cword) == expected


# ── 30.7: typos get suggestions everywhere ──

HELLO = Path(__file__).resolve().parent.parent / "examples" / "hello.lobster"


def test_a_swapped_subcommand_is_suggested(capsys: Capture) -> None:
    assert main(["rnu", "x.lobster"]) == 2
    assert "Error: No such command 'rnu'. Did you mean 'run'?" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [["run", "cleanup.lobstr"], ["cleanup.lobstr"], ["compile", "cleanup.lobstr"]])
def test_a_missing_file_names_the_nearest_existing_one(argv: list[str], work: Path, capsys: Capture) -> None:
    (work / "cleanup.lobster").write_text(HELLO.read_text())
    assert main(argv) == 2
    assert "Error: cleanup.lobstr: no such file or directory. Did you mean 'cleanup.lobster'?" in capsys.readouterr().err


def test_a_dotted_pipeline_command_typo_is_still_a_command(work: Path, capsys: Capture) -> None:
    assert main(["gog.gmail.serch"]) == 1
    assert capsys.readouterr().err.startswith("Error: Unknown command: gog.gmail.serch\n")


def test_an_unknown_pipeline_command_suggests_one_under_the_references_line(work: Path, capsys: Capture) -> None:
    assert main(["exec --json --shell 'echo [1,2]' | pikc a"]) == 1
    assert capsys.readouterr().err == "Error: Unknown command: pikc\n  in stage 2 (pikc); did you mean `pick`?\n"


def test_an_unknown_flag_is_an_error_before_anything_runs(work: Path, capsys: Capture) -> None:
    assert main(["exec --shell 'touch made' | head --nn 2"]) == 1
    assert capsys.readouterr().err == "Error: head has no flag --nn; did you mean --n?\n  in stage 2 (head)\n"
    assert not (work / "made").exists()
    assert main(["--mode", "tool", "exec --json --shell 'echo [1]' | map --unset a"]) == 1
    assert json.loads(capsys.readouterr().out)["error"] == {
        "type": "runtime_error", "message": "map has no flag --unset; `lobster help map` lists its flags"}


def test_an_alias_of_a_flag_is_no_unknown_flag(work: Path, capsys: Capture) -> None:
    assert main(["exec --json --shell 'echo [1,2,3]' | approve --preview-limit 1 --prompt ok --emit"]) == 0


def test_an_undeclared_arg_is_a_warning_and_refused_under_strict_args(work: Path, capsys: Capture, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LOBSTER_STRICT_ARGS", "0")  # restored afterwards: --strict-args sets it in this process
    assert main(["run", str(HELLO), "--args-json", '{"nme": "Ada"}']) == 0
    err = capsys.readouterr().err
    assert "[WARN] --args-json gives an arg the workflow does not declare: nme (did you mean `name`?); it declares: name" in err
    assert main(["run", str(HELLO), "--strict-args", "--args-json", '{"nme": "Ada"}']) == 2
    assert capsys.readouterr().err.startswith("Error: --args-json gives an arg the workflow does not declare: nme")
    monkeypatch.setenv("LOBSTER_STRICT_ARGS", "0")
    assert main(["run", "--mode", "tool", str(HELLO), "--args-json", '{"nme": "Ada"}']) == 0
    assert capsys.readouterr().err == ""  # tool mode: stderr stays as the reference leaves it


# ── 36.4: errors in plain pipelines name the failing stage ──

@pytest.mark.parametrize("pipeline, stage", [
    ("exec --json --shell 'echo nope' | pick a | head --n 1", "stage 1 (exec)"),
    ("exec --json --shell 'echo [1]' | pick a | where", "stage 3 (where)"),
    ("exec --json --shell 'echo [1]' | pick a | map --wrap x | exec --shell 'exit 3'", "stage 4 (exec)"),
    ("exec --json --shell 'echo [1,2]' | pick a | exec --json --shell 'echo [1]; exit 4' | head --n 1", "stage 3 (exec)"),
])
def test_a_pipeline_error_names_its_stage(pipeline: str, stage: str, work: Path, capsys: Capture) -> None:
    assert main([pipeline]) == 1
    lines = capsys.readouterr().err.splitlines()
    assert lines[0].startswith("Error: ") and lines[1:] == [f"  in {stage}"], lines


def test_the_tool_envelope_keeps_the_references_message(work: Path, capsys: Capture) -> None:
    assert main(["--mode", "tool", "exec --json --shell 'echo [1]' | pick a | where"]) == 1
    assert json.loads(capsys.readouterr().out)["error"]["message"] == "where requires an expression (e.g. field=value)"


# ── 30.8: human mode prints text a person reads ──

def test_a_workflows_text_output_prints_as_text(work: Path, capsys: Capture) -> None:
    assert main(["run", str(HELLO), "--args-json", '{"name":"Ada"}']) == 0
    expected = 'Hello, Ada! Friendly greetings: [{"lang":"en","text":"hello"},{"lang":"fr","text":"bonjour"}]\n'
    assert capsys.readouterr().out == expected
    assert main(["run", "--mode", "tool", str(HELLO), "--args-json", '{"name":"Ada"}']) == 0
    assert json.loads(capsys.readouterr().out)["output"] == [expected]


def test_control_characters_in_text_output_are_shown_not_obeyed(work: Path, capsys: Capture) -> None:
    (work / "t.lobster").write_text("steps:\n  - id: a\n    run: printf 'a\\033]0;x\\007b'\n")
    assert main(["run", "t.lobster"]) == 0
    assert capsys.readouterr().out == "a\\x1b]0;x\\x07b\n"


def test_other_output_stays_indented_json(work: Path, capsys: Capture) -> None:
    (work / "j.lobster").write_text("steps:\n  - id: a\n    run: echo '[1, \"two\"]'\n")
    assert main(["run", "j.lobster"]) == 0
    assert capsys.readouterr().out == '[\n  1,\n  "two"\n]\n'


# ── 30.5: the terminal approval prompt shows what is approved ──

def _terminal(answer: str) -> dict[str, Any]:
    return {"interactive": True, "prompt_in": io.StringIO(answer + "\n"), "prompt_out": io.StringIO()}


def test_a_pipeline_approval_on_a_terminal_shows_the_preview_first() -> None:
    from lobsterlang.compile import compile_pipeline
    from lobsterlang.interpret.pipeline.runtime import RunContext, run_pipeline

    ctx = _terminal("y")
    pipeline = compile_pipeline("approve --prompt 'Delete these report files?'").ir
    assert pipeline is not None
    items = [f"report-{n}.csv" for n in range(1, 8)]
    assert run_pipeline(pipeline, items, RunContext(**ctx)).items == items
    shown = "\n".join(items[:5]) + "\n… and 2 more items\nDelete these report files? [y/N] "
    assert ctx["prompt_out"].getvalue() == shown


def test_the_terminal_shows_as_many_items_as_limit_says() -> None:
    from lobsterlang.compile import compile_pipeline
    from lobsterlang.interpret.pipeline.runtime import RunContext, run_pipeline

    ctx = _terminal("y")
    pipeline = compile_pipeline("approve --limit 1 --prompt 'Go?'").ir
    assert pipeline is not None
    run_pipeline(pipeline, [{"a": "\x1b]0;x\x07"}, {"a": 2}], RunContext(**ctx))
    assert ctx["prompt_out"].getvalue() == '[\n  {\n    "a": "\\u001b]0;x\\u0007"\n  }\n]\n… and 1 more item\nGo? [y/N] '


def test_a_workflow_approval_on_a_terminal_shows_what_the_envelope_previews(work: Path) -> None:
    from lobsterlang.compile import compile_workflow
    from lobsterlang.interpret.process import Cancellation
    from lobsterlang.interpret.workflow.context import Frame, Options
    from lobsterlang.interpret.workflow.engine import Runner

    text = ("steps:\n  - id: list\n    run: printf 'report-1.csv\\nreport-2.csv\\n'\n"
            "  - id: approve\n    approval: Delete these report files?\n    stdin: $list.stdout\n"
            "  - id: delete\n    run: echo deleted\n    when: $approve.approved\n")
    workflow = compile_workflow(text, "d.lobster").ir
    assert workflow is not None
    out = io.StringIO()
    opts = Options(mode="human", interactive=True, prompt_in=io.StringIO("y\n"), prompt_out=out)
    outcome = Runner(Frame(workflow, "d.lobster", {}, dict(os.environ), str(work), Cancellation()), opts).run()
    assert outcome.output == ["deleted\n"]
    assert out.getvalue() == "report-1.csv\nreport-2.csv\nDelete these report files? [y/N] "


# ── 30.6: a field a gate step cannot have is an error ──

TYPO = "steps:\n  - id: approve\n    approval: Delete?\n  - id: b\n    run: echo gone\n    when: $approve.aproved\n"


def test_a_gate_field_typo_is_a_compile_error_with_a_fix() -> None:
    from lobsterlang.compile import compile_workflow

    found = [d for d in compile_workflow(TYPO, "t.lobster").diagnostics if d.code == "S121"]
    assert [(d.message, d.span.line, d.span.col, d.hint) for d in found] == [
        ("`$approve.aproved` is always empty: approval step `approve` has no field `aproved`", 6, 11,
         "did you mean `$approve.approved`?")]
    assert found[0].fix is not None and found[0].fix.edits[0].new_text == "$approve.approved"


def test_lint_and_run_report_it(work: Path, capsys: Capture) -> None:
    (work / "t.lobster").write_text(TYPO)
    assert main(["lint", "t.lobster"]) == 1
    assert "t.lobster:6:11: S121" in capsys.readouterr().out
    assert main(["run", "t.lobster"]) == 1
    assert "did you mean `$approve.approved`?" in capsys.readouterr().err


@pytest.mark.parametrize("ref, ok", [
    ("$approve.approved", True), ("$approve.approvedBy", True), ("$approve.json.0", True),
    ("$ask.response.decision", True), ("$ask.subject", True), ("$ask.aproved", False), ("$approve.response", False),
])
def test_what_gate_steps_have(ref: str, ok: bool) -> None:
    from lobsterlang.compile import compile_workflow

    text = ("steps:\n  - id: approve\n    approval: Go?\n  - id: ask\n    input: {prompt: Why?, responseSchema: {type: object}}\n"
            f"  - id: b\n    run: echo x\n    when: {ref} == 'x'\n")
    codes = [d.code for d in compile_workflow(text, "t.lobster").diagnostics]
    assert ("S121" not in codes) == ok, codes


NESTED_TYPOS = {
    "loop": ("steps:\n  - id: files\n    run: echo '[1]'\n  - id: each\n    for_each: $files.json\n    steps:\n"
             "      - id: approve\n        approval: Delete it?\n      - id: rm\n        run: echo rm\n"
             "        when: $approve.aproved\n"),
    "branch": ("steps:\n  - id: both\n    parallel:\n      branches:\n        - id: approve\n          approval: Go?\n"
               "        - id: b\n          run: echo b\n  - id: after\n    run: echo after\n    when: $approve.aproved\n"),
}


@pytest.mark.parametrize("where", sorted(NESTED_TYPOS))
def test_a_gate_field_typo_inside_a_loop_or_a_branch_is_s121_too(where: str, work: Path, capsys: Capture) -> None:
    from lobsterlang.compile import compile_workflow

    text = NESTED_TYPOS[where]
    [found] = [d for d in compile_workflow(text, "t.lobster").diagnostics if d.code == "S121"]
    assert found.message == "`$approve.aproved` is always empty: approval step `approve` has no field `aproved`"
    assert found.hint == "did you mean `$approve.approved`?"
    (work / "t.lobster").write_text(text)
    assert main(["lint", "t.lobster"]) == 1
    out = capsys.readouterr().out
    assert f"t.lobster:{found.span.line}:{found.span.col}: S121" in out and "L108" not in out
    assert main(["run", "t.lobster"]) == 1
    assert "did you mean `$approve.approved`?" in capsys.readouterr().err
    main(["lint", "--fix", "t.lobster"])
    assert (work / "t.lobster").read_text() == text.replace("$approve.aproved", "$approve.approved")


SCOPES = ("steps:\n  - id: approve\n    approval: Go?\n  - id: ask\n    input: {{prompt: Why?, responseSchema: {{type: object}}}}\n"
          "  - id: each\n    for_each: $approve.json\n    item_var: ask\n    steps:\n"
          "      - id: early\n        run: echo {early}\n"
          "      - id: approve\n        input: {{prompt: Which?, responseSchema: {{type: object}}}}\n"
          "      - id: late\n        run: echo {late}\n      - id: sub\n        approval: Sure?\n"
          "  - id: both\n    parallel:\n      branches:\n        - id: pick\n          input: {{prompt: Which?}}\n"
          "        - id: b\n          run: echo {branch}\n"
          "  - id: after\n    run: echo {after}\n")


@pytest.mark.parametrize("place, ref, ok", [
    ("early", "$approve.approvedBy", True), ("early", "$approve.response", False), ("early", "$ask.json.x", True),
    ("late", "$approve.response", True), ("late", "$approve.approvedBy", False), ("late", "$ask.json", True),
    ("late", "$sub.aproved", True), ("after", "$sub.aproved", True), ("after", "$pick.respons", False),
    ("after", "$pick.response", True), ("branch", "$approve.aproved", False), ("branch", "$ask.subject", True),
])
def test_a_reference_is_checked_against_what_its_id_means_where_it_is_read(place: str, ref: str, ok: bool) -> None:
    """Inside a loop an id is a sub-step before it, else the loop's item or index, else a step or a branch of the run;
    a loop's sub-steps are not seen after the loop, nor a later sub-step before it is reached."""
    from lobsterlang.compile import compile_workflow

    text = SCOPES.format(**{p: ref if p == place else "x" for p in ("early", "late", "branch", "after")})
    codes = [d.code for d in compile_workflow(text, "t.lobster").diagnostics]
    assert ("S121" not in codes) == ok, codes


GATES = ("steps:\n  - id: approve\n    approval: Go?\n"
         "  - id: ask\n    input: {prompt: Which flow?, responseSchema: {type: object}}\n")
RENDERED_TYPOS = {
    "step env": GATES + "  - id: b\n    run: echo \"$GO\"\n    env:\n      GO: $approve.aproved\n",
    "workflow env": "env:\n  GO: $approve.aproved\n" + GATES + "  - id: b\n    run: echo \"$GO\"\n",
    "pipeline": GATES + "  - id: b\n    pipeline: exec echo '$approve.aproved'\n",
    "workflow path": GATES + "  - id: b\n    workflow: $ask.respons.flow\n",
    "workflow_args": GATES + "  - id: b\n    workflow: child.lobster\n    workflow_args:\n      ok: $approve.aproved\n",
    "branch env": GATES + ("  - id: both\n    parallel:\n      branches:\n        - id: b\n          run: echo \"$GO\"\n"
                           "          env:\n            GO: $approve.aproved\n"),
    "loop env": GATES + ("  - id: each\n    for_each: $approve.json\n    env:\n      GO: $approve.aproved\n    steps:\n"
                         "      - id: b\n        run: echo \"$GO\"\n"),
    "sub-step env": GATES + ("  - id: each\n    for_each: $approve.json\n    steps:\n      - id: sure\n        approval: Sure?\n"
                             "      - id: b\n        run: echo \"$GO\"\n        env:\n          GO: $sure.aproved\n"),
}
"""A gate field misspelt where the run renders it against the run's results, beyond conditions, stdin and shell text."""


@pytest.mark.parametrize("place", sorted(RENDERED_TYPOS))
def test_a_gate_field_typo_wherever_the_run_renders_it_is_s121(place: str, work: Path, capsys: Capture) -> None:
    """`env:` values (the workflow's, a step's, a branch's, a loop's, a sub-step's), `pipeline:` text, a `workflow:`
    path and its `workflow_args` are rendered like `run:` text: a misspelt gate field there is silently empty."""
    from lobsterlang.compile import compile_workflow

    text = RENDERED_TYPOS[place]
    typo, meant = {"workflow path": ("$ask.respons", "$ask.response"), "sub-step env": ("$sure.aproved", "$sure.approved")}.get(
        place, ("$approve.aproved", "$approve.approved"))
    [found] = [d for d in compile_workflow(text, "t.lobster").diagnostics if d.code == "S121"]
    assert found.span.start == text.index(typo) and found.hint is not None and found.hint.startswith(f"did you mean `{meant}")
    (work / "t.lobster").write_text(text)
    assert main(["lint", "t.lobster"]) == 1
    out = capsys.readouterr().out
    assert f"t.lobster:{found.span.line}:{found.span.col}: S121" in out and "L108" not in out
    assert main(["run", "t.lobster"]) == 1
    assert f"at line {found.span.line}, column {found.span.col}; did you mean `{meant}" in capsys.readouterr().err
    main(["lint", "--fix", "t.lobster"])
    assert (work / "t.lobster").read_text() == text.replace(typo, meant)


def test_the_run_renders_gate_fields_where_s121_reads_them(work: Path) -> None:
    """What S121 checks is what the run reads: env values and single-quoted `run:` and `pipeline:` text are rendered,
    a gate's field as its value and a field it never has as nothing (so the check is no false alarm)."""
    from lobsterlang.compile import compile_workflow
    from lobsterlang.interpret.process import Cancellation
    from lobsterlang.interpret.workflow.context import Frame, Options
    from lobsterlang.interpret.workflow.engine import Runner

    text = ("env:\n  W: $approve.approved/$approve.aproved\nsteps:\n  - id: approve\n    approval: Go?\n"
            "  - id: b\n    run: echo \"$W $E\" '$approve.approved/$approve.aproved'\n    env:\n      E: $approve.approved/$approve.aproved\n"
            "  - id: p\n    pipeline: exec echo '$b.stdout $approve.approved/$approve.aproved'\n")
    compiled = compile_workflow(text, "d.lobster")
    assert compiled.ir is not None and [d.code for d in compiled.diagnostics if d.code == "S121"] == ["S121"] * 4
    opts = Options(mode="human", interactive=True, prompt_in=io.StringIO("y\n"), prompt_out=io.StringIO())
    outcome = Runner(Frame(compiled.ir, "d.lobster", {}, dict(os.environ), str(work), Cancellation()), opts).run()
    assert outcome.output == ["true/ true/ true/", " true/"]


NOT_READ = GATES + ("  - id: again\n    approval:\n      prompt: Really $approve.aproved?\n      preview: $approve.aproved\n"
                    "      items: [$approve.aproved]\n"
                    "  - id: why\n    input: {prompt: Why $approve.aproved?, responseSchema: {type: object}}\n"
                    "  - id: b\n    run: echo \"$GO\" '$approve.approved' $nosuch.aproved\n    cwd: /tmp/$approve.aproved\n"
                    "    env:\n      GO: $approve.approvedBy $ask.response.x\n")


def test_text_the_run_shows_as_written_is_not_s121() -> None:
    """Approval prompts, previews and items and input prompts are shown as written, `cwd:` renders only args, and a
    name that is no step is someone else's text: none is a misspelt gate field."""
    from lobsterlang.compile import compile_workflow

    assert "S121" not in {d.code for d in compile_workflow(NOT_READ, "t.lobster").diagnostics}


LOOP_ENV = ("env:\n  GO: $approve.aproved\n" + GATES
            + "  - id: each\n    for_each: $approve.json\n    NAME\n    steps:\n      - id: b\n        run: echo x\nSUB")


@pytest.mark.parametrize("name, sub, reported", [
    ("batch_size: 1", "", True),
    ("item_var: approve", "", False),
    ("batch_size: 1", "      - id: approve\n        run: echo '{\"aproved\": 1}'\n", False),
    ("batch_size: 1", "      - id: approve\n        input: {prompt: Which?, responseSchema: {type: object}}\n", True),
])
def test_an_env_every_sub_step_renders_is_s121_only_if_every_sub_step_reads_a_gate(name: str, sub: str, reported: bool) -> None:
    """The workflow's `env:` (and a loop's own) is rendered for each sub-step of a loop too, where an id may be the
    loop's item or a sub-step of its own: a finding only where the field is missing whatever the id means."""
    from lobsterlang.compile import compile_workflow

    text = LOOP_ENV.replace("NAME", name).replace("SUB", sub)
    codes = [d.code for d in compile_workflow(text, "t.lobster").diagnostics]
    assert ("S121" in codes) == reported, codes


# ── 30.9: the dry run shows gates as gates and the args' values ──

PLAN_FLOW = """args:
  target: {default: reports}
  api_token: {default: abc}
  who: {default: bob}
env:
  DEPLOY_KEY: hunter22
steps:
  - id: list
    run: ls ${target}
  - id: approve
    approval: Delete these report files?
    stdin: $list.stdout
  - id: delete
    run: rm -r ${target}
    when: $approve.approved
"""


def test_the_plan_shows_the_gate_and_the_args_with_secrets_masked(work: Path, capsys: Capture, monkeypatch: pytest.MonkeyPatch) -> None:
    (work / "p.lobster").write_text(PLAN_FLOW)
    monkeypatch.setenv("GITHUB_TOKEN", "octocat-42")
    assert main(["run", "--dry-run", "p.lobster", "--args-json", '{"target": "old", "who": "octocat-42", "x": "hunter22"}']) == 0
    plan = capsys.readouterr().err.splitlines()
    assert plan[0].startswith("[WARN] --args-json gives an arg the workflow does not declare: x")
    assert plan[2] == '  args: target="old" (given), api_token=*** (default), who=*** (given), x=*** (given)'
    assert "  2. approve  [approval gate]" in plan and "     prompt: Delete these report files?" in plan
    assert not any("[no-op]" in line for line in plan)


def test_a_plan_without_args_has_no_args_line(work: Path, capsys: Capture) -> None:
    (work / "p.lobster").write_text("steps:\n  - id: a\n    run: echo hi\n")
    assert main(["run", "--dry-run", "p.lobster"]) == 0
    assert capsys.readouterr().err.splitlines()[:3] == ["[DRY RUN] Would execute 1 step:", "", "  1. a  [shell]"]


# ── 36.3: `lobster runs` names the gate a run waits at, not as its last completed step ──

def test_runs_shows_the_gate_as_the_status_not_as_the_last_step(work: Path, capsys: Capture) -> None:
    (work / "d.lobster").write_text("steps:\n  - id: list\n    run: echo a.csv\n  - id: approve\n"
                                    "    approval: Delete?\n    stdin: $list.stdout\n")
    assert main(["run", "--mode", "tool", "d.lobster"]) == 0
    capsys.readouterr()
    assert main(["runs"]) == 0
    header, row = capsys.readouterr().out.splitlines()
    last_step = row[header.index("LAST STEP"):header.index("STATUS")].strip()
    status = row[header.index("STATUS"):header.index("WORKFLOW")].strip()
    assert (last_step, status) == ("list", "waiting at approve")
    assert main(["runs", "--json"]) == 0
    (found,) = json.loads(capsys.readouterr().out)
    assert (found["lastCompletedStep"], found["waitingGate"]) == ("list", "approve")


def test_a_missing_file_is_not_matched_on_its_extension_alone(work: Path, capsys: Capture) -> None:
    (work / "esc.lobster").write_text(HELLO.read_text())
    (work / "typo.yaml").write_text(HELLO.read_text())
    (work / "typo.lobster").write_text(HELLO.read_text())
    assert main(["run", "nosuch.lobster"]) == 2
    assert capsys.readouterr().err.endswith("Error: nosuch.lobster: no such file or directory\n")
    assert main(["run", "typ.lobster"]) == 2
    assert capsys.readouterr().err.endswith("Error: typ.lobster: no such file or directory. Did you mean 'typo.lobster'?\n")
