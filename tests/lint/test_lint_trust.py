"""Findings are true, and side effects are found: one regression per class of issue 31, each a minimal re-creation
of what public workflow files do."""

from __future__ import annotations

from pathlib import Path

import pytest

from lobsterlang.diagnostics import Diagnostic, Severity
from lobsterlang.lint import Config, Source, lint_source
from lobsterlang.lint.config import ConfigError, Extensions, from_table
from lobsterlang.lint.rules.shellcheck import binary

LOBSTERLANG = Config(shellcheck=False)
REFERENCE = Config(shellcheck=False, target="reference")
SHELLCHECK = Config(shellcheck=True)
needs_shellcheck = pytest.mark.skipif(binary() is None, reason="shellcheck is not installed")


def lint(text: str, config: Config = LOBSTERLANG) -> list[Diagnostic]:
    return list(lint_source(Source("f.lobster", text), config).diagnostics)


def codes(text: str, config: Config = LOBSTERLANG) -> list[str]:
    return [d.code for d in lint(text, config)]


def run_step(script: str, args: str = "") -> str:
    """A workflow whose one step runs `script` (a block scalar), after `args` (an `args:` block or nothing)."""
    body = script.strip("\n").replace("\n", "\n      ")
    return f"{args}steps:\n  - id: a\n    run: |\n      {body}\n"


# 1. shellcheck reads what the runtime runs, not lint's placeholders
@needs_shellcheck
@pytest.mark.parametrize("config", [SHELLCHECK, Config(shellcheck=True, target="reference")], ids=["lobsterlang", "reference"])
def test_shellcheck_sees_shell_variables_and_args_as_the_runtime_runs_them(config: Config) -> None:
    text = run_step(
        """
x=$(cat)
cat <<EOF
value ${x}
EOF
echo 'limit: ${n}' "$(( ${n} * 3 ))"
""",
        "args:\n  n:\n    default: 3\n",
    )
    assert [d.message for d in lint(text, config) if d.code == "L310"] == []


@needs_shellcheck
def test_no_shellcheck_message_shows_a_placeholder() -> None:
    """Undeclared `${tag}` and `${repo}` were blanked as `$___` and `$____`: SC2153 "Did you mean ___?"."""
    text = run_step('if [ -n "${tag}" ]; then\n  gh api "repos/${repo}/releases/tags/${tag}"\nfi')
    assert [d.message for d in lint(text, SHELLCHECK) if d.code == "L310"] == []


# 2. L105: names the script binds, and another language's code
@pytest.mark.parametrize("script", [
    'tip=$(cat); echo "${tip}"',
    "node -e 'const tip = 1; console.log(`${tip}`)'",
    "getopts ab tip; echo \"${tip}\"",
    "for tip in a b; do echo \"${tip}\"; done",
    "bash -c \"$(cat <<'SCRIPT'\nTIP=$(cat)\necho \"${TIP}\"\nSCRIPT\n)\"",
])
def test_names_the_script_binds_are_not_undeclared_args(script: str) -> None:
    assert codes(run_step(script, "args:\n  tips:\n    default: x\n") + '  - id: b\n    run: echo "${tips}"\n') == []


def test_a_near_typo_the_shell_does_not_bind_is_still_reported() -> None:
    text = run_step('echo "${tip}"', "args:\n  tips:\n    default: x\n") + '  - id: b\n    run: echo "${tips}"\n'
    [diag] = lint(text)
    assert diag.code == "L105" and diag.hint == "did you mean `${tips}`?"


# 3. L311: installed programs are programs; undotted pipeline commands are not
def test_invoke_programs_are_programs_and_json_is_not() -> None:
    assert codes(run_step("openclaw.invoke --tool message --action read\nclawd.invoke --tool x")) == []
    assert codes(run_step("curl -s https://x | json")) == ["L311"]
    assert codes(run_step("json() { cat; }\ncurl -s https://x | json")) == []
    assert codes(run_step("state.set --key x")) == ["L311"]


# 4. L401 guesses, L309 in a quoted pipeline word, L402 on a final review gate
@pytest.mark.parametrize("script", [
    'rm -rf "${work_dir}"',
    'rm -rf "$SCRATCH"',
    "curl -s -X POST https://api.openai.com/v1/chat/completions -d @q.json",
    "curl -s -X POST https://api.example.com/graphql -d '{\"query\": \"{ viewer { login } }\"}'",
])
def test_what_only_looks_like_an_effect_is_not_one(script: str) -> None:
    args = "args:\n  work_dir:\n    default: /tmp/lobster-work\nenv:\n  SCRATCH: /tmp/scratch-$$\n"
    assert "L401" not in codes(run_step(script, args))


def test_the_preview_of_a_preview_approve_execute_pattern_is_not_an_effect() -> None:
    text = """\
steps:
  - id: preview
    run: inbox apply --json
  - id: approve
    stdin: $preview.json
    approval: Apply these changes?
  - id: execute
    stdin: $preview.json
    when: $approve.approved
    run: inbox apply --execute
"""
    assert codes(text) == []
    assert codes(text.replace("--execute", "--json")) == ["L401"]  # no execute step: the first one acts


def test_a_quoted_pipeline_word_is_one_token_in_both_runtimes() -> None:
    text = 'args:\n  topic:\n    default: two words\nsteps:\n  - id: a\n    pipeline: llm_task.invoke --prompt "Summarise ${topic}"\n'
    assert codes(text) == []
    assert codes(text.replace('"Summarise ${topic}"', "${topic}")) == ["L309"]


def test_a_final_review_gate_gates_the_output() -> None:
    text = "steps:\n  - id: report\n    run: report build --json\n  - id: review\n    stdin: $report.json\n    approval: Send this report?\n"
    assert codes(text) == []


# 5. L405 with the gate's own inputs, L404 on a read
def test_a_gate_that_shows_the_data_through_its_own_command() -> None:
    text = """\
steps:
  - id: render
    run: kustomize build overlays/prod
  - id: diff
    env:
      MANIFEST: $render.json
    run: kubectl diff -f "$MANIFEST"
    approval: Apply this diff?
  - id: apply
    stdin: $render.json
    run: kubectl apply -f -
"""
    assert codes(text) == []


def test_rollout_status_is_a_read() -> None:
    text = "steps:\n  - id: a\n    retry:\n      max: 3\n    run: kubectl rollout status deployment/web\n"
    assert codes(text) == []
    assert sorted(codes(text.replace("status", "restart"))) == ["L401", "L404"]


# 6. commands and condition functions of a fork
FORK = "steps:\n  - id: a\n    pipeline: mail.search --unread\n  - id: b\n    stdin: $a.json\n    when: length($a.json) > 0\n    pipeline: sortt --key x\n"


def test_far_unknown_commands_are_warnings_that_say_how_to_declare_them() -> None:
    found = {d.code: d for d in lint(FORK)}
    l201 = [d for d in lint(FORK) if d.code == "L201"]
    assert [(d.severity, d.message) for d in l201] == [(Severity.WARNING, "unknown command `mail.search`"),
                                                     (Severity.ERROR, "unknown command `sortt`")]
    assert l201[0].hint is not None and 'extra-commands = ["mail.search"]' in l201[0].hint
    assert l201[1].hint == "did you mean `sort`?"
    assert found["X001"].severity is Severity.WARNING
    assert found["X001"].hint is not None and 'condition-functions = ["length"]' in found["X001"].hint


def test_declared_commands_flags_and_functions() -> None:
    config = Config(shellcheck=False, extensions=Extensions(commands=("mail.*",), functions=("length",)))
    assert codes(FORK, config) == ["L201"]  # only the typo
    flags = Config(shellcheck=False, extensions=Extensions(command_flags=(("mail.search", ("unread", "top")),)))
    assert sorted(codes(FORK.replace("--unread", "--unred"), flags)) == ["L201", "L202", "X001"]


@pytest.mark.parametrize(("config", "effect"), [
    (LOBSTERLANG, "lobsterlang refuses the pipeline before any stage runs"), (REFERENCE, "the reference CLI ignores it"),
], ids=["lobsterlang", "reference"])
def test_an_unknown_flag_says_what_the_target_runtime_does_with_it(config: Config, effect: str) -> None:
    text = "steps:\n  - id: top\n    pipeline: exec --json --shell 'echo [1]' | head --nn 5\n"
    [found] = [d for d in lint(text, config) if d.code == "L202"]
    assert (found.message, found.hint) == (f"`head` has no flag `--nn`; {effect}", "did you mean `--n`?")


def test_the_configuration_keys_are_checked() -> None:
    config = from_table({"extra-commands": ["copilot", "ado.*"], "command-flags": {"teams.send": ["--channel"]},
                         "condition-functions": ["length"]}, "x")
    assert config.extensions.command("ado.pr.monitor") == ("*",)
    assert config.extensions.command("teams.send") == ("channel",)
    with pytest.raises(ConfigError, match="extra-commands must be a list of names"):
        from_table({"extra-commands": "copilot"}, "x")
    with pytest.raises(ConfigError, match="is not a name"):
        from_table({"condition-functions": ["len()"]}, "x")


# 7. Windows scripts
@needs_shellcheck
def test_windows_scripts_are_not_fed_to_shellcheck_and_a_note_says_so() -> None:
    text = "steps:\n  - id: a\n    command: python C:\\tools\\scripts\\report.py --out C:\\tmp\\r.json\n  - id: b\n    command: dir C:\\tools\n"
    [note] = [d for d in lint(text, SHELLCHECK) if d.code == "L310"]
    assert note.severity is Severity.INFO and "2 scripts written for Windows" in note.message


# 8. SC1010 on valid text, L305 on a quoted heredoc, L302 on a field no step has
@needs_shellcheck
def test_a_keyword_as_an_argument_is_valid_shell() -> None:
    assert codes("steps:\n  - id: a\n    run: echo done\n", SHELLCHECK) == []


def test_sh_c_of_a_quoted_heredoc_is_constant() -> None:
    assert codes(run_step("bash -c \"$(cat <<'E'\necho $HOME\nE\n)\"")) == []


def test_a_field_no_step_has_is_always_empty() -> None:
    text = "steps:\n  - id: a\n    run: echo hi\n  - id: b\n    run: echo $a.result $a.output\n"
    assert codes(text) == ["L108", "L108"]


@pytest.mark.parametrize("nest", [
    "  - id: each\n    for_each: $a.json\n    steps:\n{gates}      - id: use\n        run: echo {refs}\n        when: $approve.approved\n",
    "  - id: both\n    parallel:\n      branches:\n{gates}  - id: use\n    run: echo {refs}\n    when: $approve.approved\n",
], ids=["loop", "branch"])
def test_the_fields_of_a_gate_inside_a_loop_or_a_branch_are_known(nest: str) -> None:
    """Not L108 (a result without `approvedBy`) nor L104 (a step without approval): the nested gate has them."""
    indent = "      " if "for_each" in nest else "        "
    gates = (f"{indent}- id: approve\n{indent}  approval: Deploy the build?\n"
             f"{indent}- id: ask\n{indent}  input: {{prompt: Why?, responseSchema: {{type: object}}}}\n")
    body = nest.format(gates=gates, refs="$approve.approvedBy $approve.initiatedBy $ask.subject")
    found = codes(f"steps:\n  - id: a\n    run: echo '[1]'\n{body}")
    assert found == ["L302"], found  # `$ask.subject` is pasted raw, but no L108 nor L104


# 9. side effects behind other words
@pytest.mark.parametrize(("script", "why"), [
    ("openclaw message send --to ops --text hi", "openclaw message send"),
    ('kubectl -n "$NS" delete pod web-1', "kubectl delete"),
    ("gh issue list --json number --jq '.[].number' | xargs -I{} gh issue close {}", "gh issue close"),
    ("sh -c 'git push origin main'", "git push"),
    ("sudo -u deploy rm -rf /srv/app", "rm -r"),
    ("cat > notify.sh <<'EOF'\ncurl -X POST https://hooks.example.com/x -d @m.json\nEOF\nbash notify.sh", "curl -X POST"),
    ('echo "Quality: ${steps.scrape.outputs.quality_score}%"\ncurl -s -X POST "$URL/rest/v1/audit_logs" -d @log.json', "curl -X POST"),
])
def test_effects_are_found_behind_other_words(script: str, why: str) -> None:
    [diag] = [d for d in lint(run_step(script)) if d.code == "L401"]
    assert why in diag.message


def test_a_command_a_fork_names_to_act_is_an_effect() -> None:
    text = "steps:\n  - id: send\n    pipeline: mail.send --to ops@example.com --subject hi\n"
    [diag] = [d for d in lint(text) if d.code == "L401"]
    assert "`mail.send`" in diag.message
    assert "L401" not in codes(text.replace("--subject hi", "--subject hi --draft"))


# 11. template syntax nothing substitutes
@pytest.mark.parametrize("script", ["echo \"${{ steps.fetch.outputs.result }}\"", "echo \"${fetch.json}\"", "RESULT='${fetch.stdout}'"])
def test_other_template_syntax_is_an_error(script: str) -> None:
    text = "steps:\n  - id: fetch\n    run: echo hi\n" + run_step(script).replace("steps:\n", "")
    [diag] = lint(text)
    assert (diag.code, diag.severity) == ("L314", Severity.ERROR)


def test_a_javascript_template_literal_is_not_lobster_syntax() -> None:
    assert codes(run_step("node -e 'const item = {}; console.log(`${item.name}`)'")) == []


def test_templates_whose_only_braces_are_arg_references_are_not_searched(monkeypatch: pytest.MonkeyPatch) -> None:
    """`${arg}` is Lobster's own reference: a template with no `${` in its literal text is passed over without
    working out where its parts are (the language server lints every step's text at every edit)."""
    from lobsterlang import ir
    from lobsterlang.lint.rules import templates

    searched: list[str] = []
    search = templates._foreign_templates

    def counting(ctx: object, template: ir.Template, *rest: object) -> object:
        searched.append(template.text)
        return search(ctx, template, *rest)  # type: ignore[arg-type]

    monkeypatch.setattr(templates, "_foreign_templates", counting)
    args = "args:\n  name:\n    default: x\n"
    steps = "".join(f"  - id: s{n}\n    run: echo ${{name}} {n}\n" for n in range(20))
    assert codes(args + "steps:\n" + steps) == []
    assert searched == []
    assert codes(args + "steps:\n" + steps + "  - id: gh\n    run: echo ${{ steps.s1.outputs.x }}\n") == ["L314"]
    assert len(searched) == 1


# 12. shell syntax in a default where no shell expands it
def test_a_shell_default_outside_shell_text_is_the_text_as_written() -> None:
    args = 'args:\n  channel:\n    default: "${NEWS_CHANNEL:-whatsapp}"\n'
    assert codes(run_step('notify --channel ${channel}', args)) == []
    assert codes(run_step('notify --channel "$LOBSTER_ARG_CHANNEL"', args)) == ["L315"]
    text = args + "steps:\n  - id: a\n    env:\n      CH: ${channel}\n    run: notify --channel \"$CH\"\n"
    assert codes(text) == ["L315"]


# 13. $item in a loop that renamed it; a gate before reads only
def test_item_in_a_loop_that_names_its_item_otherwise() -> None:
    text = ("steps:\n  - id: list\n    run: echo '[1]'\n  - id: each\n    for_each: $list.json\n    item_var: msg\n"
            "    steps:\n      - id: show\n        run: echo $item.json.id\n")
    [diag] = lint(text)
    assert diag.code == "L101" and diag.hint is not None and "`$msg.json.id`" in diag.hint


def test_an_approval_that_gates_only_reads() -> None:
    text = "steps:\n  - id: plan\n    run: terraform plan\n  - id: ok\n    stdin: $plan.stdout\n    approval: Apply?\n  - id: show\n    run: echo done\n"
    assert codes(text) == ["L402"]
    assert codes(text.replace("run: echo done", "when: $ok.approved\n    run: echo done")) == []


def test_the_steps_after_approvals_are_read_once_per_lint_not_once_per_approval(monkeypatch: pytest.MonkeyPatch) -> None:
    """The language server lints a 500-step file at every edit: asking of each approval step whether every later
    step only reads made L402 quadratic in the steps."""
    from lobsterlang.lint.effects import reads_only
    from lobsterlang.lint.rules import approvals
    from lobsterlang.lint.walk import Unit

    asked: list[str] = []

    def counting(unit: Unit) -> bool:
        asked.append(unit.id)
        return reads_only(unit)

    monkeypatch.setattr(approvals, "reads_only", counting)
    steps = "".join(f"  - id: ok{n}\n    stdin: $plan.stdout\n    approval: Apply {n}?\n  - id: show{n}\n    run: echo {n}\n"
                    for n in range(30))
    text = "steps:\n  - id: plan\n    run: terraform plan\n" + steps
    assert codes(text) == ["L402"] * 30
    assert len(asked) <= 61 and len(set(asked)) == len(asked)


# 15. finding the workflows of a directory does not parse YAML with the pure-Python loader
def test_a_directory_search_uses_the_quick_test_and_libyaml(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import yaml

    from lobsterlang.cli.files import workflows_under

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the pure-Python YAML loader was used")

    monkeypatch.setattr(yaml, "safe_load", refuse)
    monkeypatch.setattr(yaml.SafeLoader, "__init__", refuse)
    (tmp_path / "block.yaml").write_text("name: x\nsteps:\n  # first\n  - id: a\n    run: echo hi\n")
    (tmp_path / "flow.yml").write_text("steps: [{id: a, run: echo hi}]\n")
    (tmp_path / "ci.yaml").write_text("steps:\n  - build\n  - test\n")
    found, _ = workflows_under(tmp_path)
    assert [p.name for p in found] == ["block.yaml", "flow.yml"]
