"""Findings on real-world shell text are true: one regression test per false-positive class of issue 15, and the corpus."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from lobsterlang.compile import compile_workflow
from lobsterlang.lint import Config, Source, lint_source
from lobsterlang.lint.rules.shellcheck import binary

LOBSTERLANG = Config(shellcheck=False)
REFERENCE = Config(shellcheck=False, target="reference")
ROOT = Path(__file__).resolve().parents[2]


def findings(text: str, config: Config = LOBSTERLANG) -> list[tuple[str, int]]:
    result = lint_source(Source("f.lobster", text), config)
    return [(d.code, d.span.line) for d in result.diagnostics]


def codes(text: str, config: Config = LOBSTERLANG) -> list[str]:
    return [code for code, _ in findings(text, config)]


# 1. L101 on shell and jq variables
def test_jq_and_loop_variables_are_not_step_references() -> None:
    text = """\
steps:
  - id: fetch
    run: |
      curl -fsSL https://x/items | jq '.[] as $s | {url: $s.url}'
  - id: each
    stdin: $fetch.json
    run: |
      ids=$(jq -r '.[].id' --arg who me)
      for id in $ids; do cat item/$id.json; done
      jq -n --arg who "$USER" '$who.name'
"""
    assert codes(text) == []


def test_a_near_typo_of_a_step_id_in_text_is_reported() -> None:
    text = "steps:\n  - id: fetch\n    run: echo hi\n  - id: use\n    run: echo '$fecth.json' | jq .\n"
    result = lint_source(Source("f.lobster", text), LOBSTERLANG)
    [diag] = result.diagnostics
    assert (diag.code, diag.span.line, diag.hint) == ("L101", 5, "did you mean `$fetch`?")


def test_unknown_step_in_a_whole_value_is_still_reported() -> None:
    assert codes("steps:\n  - id: a\n    run: cat\n    stdin: $zzz.json\n") == ["L101"]


# 2. L105 + L301 on shell names, and never one span under two codes
SHELL_NAMES = """\
args:
  repo:
    default: openclaw/openclaw
steps:
  - id: a
    run: |
      API="${1}"; N="${NUM-unset}"
      OUT="${HOME}/${BRAVE_API_KEY}"
      count=$(wc -l < x); echo "${count}"
      for t in a b; do echo "${t}"; done
      node -e 'const n = 1; console.log(`${n} items in ${repo}`)'
      cat <<'EOF'
      ${total}
      EOF
      echo "$API" "${repo}"
"""


def test_shell_names_are_not_args() -> None:
    assert codes(SHELL_NAMES) == []


def test_a_span_is_never_reported_under_two_codes() -> None:
    text = SHELL_NAMES + "      echo ${reop} ${lower_name}\n"
    result = lint_source(Source("f.lobster", text), REFERENCE)
    spans = [(d.span.start, d.span.end) for d in result.diagnostics]
    assert len(spans) == len(set(spans))
    assert sorted(d.code for d in result.diagnostics if d.span.line == 16) == ["L105", "L105"]


# 3. Severities follow the target runtime
def test_raw_args_are_an_error_only_for_the_reference_target() -> None:
    text = "args:\n  msg:\n    default: hi\nsteps:\n  - id: say\n    run: echo \"${msg}\"\n"
    assert codes(text, LOBSTERLANG) == []
    assert codes(text, REFERENCE) == ["L301"]


def test_needs_raw_args_only_for_the_lobsterlang_target() -> None:
    text = "args:\n  probe:\n    default: node --no-warnings\nsteps:\n  - id: v\n    pipeline: template --text ${probe}\n"
    assert codes(text, LOBSTERLANG) == ["L309"]
    assert codes(text, REFERENCE) == []
    shell = "args:\n  probe:\n    default: node --no-warnings\nsteps:\n  - id: v\n    run: ${probe} --version\n"
    assert codes(shell, LOBSTERLANG) == []  # the file's default runs as written in both runtimes
    assert codes(shell, REFERENCE) == ["L301"]


# 4. L309 decided from how the shell parses the word
def test_quoted_and_suffixed_args_build_nothing() -> None:
    text = """\
args:
  slug:
    default: weekly
  text:
    default: two words
steps:
  - id: a
    run: |
      TMP_DB=/tmp/db
      echo "$STATE_DIR/${slug}.txt" "${TMP_DB}.new"
      echo "Summary: ${text}"
      SUMMARY=${text}
"""
    assert codes(text) == []


def test_unquoted_shell_syntax_default_runs_as_written_and_is_not_reported() -> None:
    text = "args:\n  flags:\n    default: -l -a\nsteps:\n  - id: a\n    run: ls ${flags}\n"
    assert codes(text) == []


# 5. L401 from parsed commands
@pytest.mark.parametrize(
    "script",
    [
        "gh run list --workflow deploy.yml --limit 5",
        "cp build/out.txt deploy/out.txt",
        "llm_summary --prompt 'post this to the team'",
        "jq '.[] | select(.kind == \"delete\")'",
        "# curl -X POST https://hooks.example.com/x\n  echo done",
        "cat <<'EOF'\n  curl -X POST https://x\n  EOF",
        "curl -fsS --get --data-urlencode q=x https://x",
    ],
)
def test_words_in_arguments_strings_comments_and_heredocs_are_not_effects(script: str) -> None:
    text = f"steps:\n  - id: a\n    run: |\n      {script.replace(chr(10) + '  ', chr(10) + '      ')}\n"
    assert compile_workflow(text, "f.lobster").ok
    assert "L401" not in codes(text)


LOOP_GATE = """\
steps:
  - id: items
    run: echo '["a@example.com"]'
  - id: loop
    for_each: $items.json
    item_var: to
    steps:
      - id: {first}
        {first_body}
      - id: {second}
        {second_body}
"""
ASK = "approval: Send it?"
SEND = 'run: curl -X POST -d "$to" https://example.com/send'


def test_an_approval_sub_step_gates_the_effects_after_it_in_its_loop() -> None:
    """Gates anywhere: the loop's approval sub-step halts the run (or asks) for each item before the item's later
    sub-steps run, so the effect after it is gated; one before it is not."""
    gated = LOOP_GATE.format(first="ok", first_body=ASK, second="send", second_body=SEND)
    assert compile_workflow(gated, "f.lobster").ok
    assert "L401" not in codes(gated)
    ungated = LOOP_GATE.format(first="send", first_body=SEND, second="ok", second_body=ASK)
    assert ("L401", 9) in findings(ungated)


@pytest.mark.parametrize(
    ("script", "why"),
    [
        ('rm -rf "$dir"', "rm -r"),
        ("curl -X POST -d @body.json https://x", "curl -X POST"),
        ("gh pr merge 12 --squash", "gh pr merge"),
        ("git push origin HEAD", "git push"),
        ("kubectl apply -f k8s/", "kubectl apply"),
        ("sendmail ops@example.com < mail.txt", "sendmail"),
    ],
)
def test_real_effects_point_at_the_command(script: str, why: str) -> None:
    text = f"steps:\n  - id: a\n    run: |\n      echo start\n      # a comment\n      {script}\n"
    result = lint_source(Source("f.lobster", text), LOBSTERLANG)
    [diag] = [d for d in result.diagnostics if d.code == "L401"]
    assert diag.span.line == 6 and diag.span.col == 7 and why in diag.message


# 6. L302 inside a quoted heredoc
def test_step_output_in_a_quoted_heredoc_read_as_data() -> None:
    base = "steps:\n  - id: a\n    run: echo '[]'\n  - id: b\n    run: |\n      {reader} <<'EOF'\n      $a.json\n      EOF\n"
    assert codes(base.format(reader="cat")) == []
    assert codes(base.format(reader="python3 -")) == ["L302"]
    assert codes(base.format(reader="cat").replace("<<'EOF'", "<<EOF")) == ["L302"]


# 7. L501 only when the loop body uses the variable
def test_loop_variable_named_like_a_step_only_when_used() -> None:
    text = """\
steps:
  - id: index
    run: echo '[1]'
  - id: loop
    for_each: $index.json
    steps:
      - id: show
        run: echo "$ITEM"
        env:
          ITEM: $item.json
"""
    assert codes(text) == []
    assert codes(text.replace("ITEM: $item.json", "ITEM: $index.json")) == ["L501"]


# 8. W001 on step-level description, and suggestions within an edit distance
def test_step_description_is_accepted_and_far_keys_get_no_suggestion() -> None:
    text = "steps:\n  - id: a\n    description: Fetch things\n    run: echo\n"
    assert codes(text) == []
    result = lint_source(Source("f.lobster", text.replace("description", "explanation")), LOBSTERLANG)
    [diag] = result.diagnostics
    assert diag.code == "W001" and diag.hint is not None and "did you mean" not in diag.hint
    result = lint_source(Source("f.lobster", text.replace("description: Fetch things", "retyr: 3")), LOBSTERLANG)
    assert [d.hint for d in result.diagnostics] == ["did you mean `retry`?"]
    result = lint_source(Source("f.lobster", text.replace("description: Fetch things", "retries: 3")), LOBSTERLANG)
    assert [d.hint for d in result.diagnostics] == ["did you mean `retry`?"]  # one edit more on a shared stem


# 9. L107 keeps the whole name
def test_unknown_lobster_env_keeps_the_whole_name() -> None:
    text = "args:\n  limit:\n    default: 5\nsteps:\n  - id: a\n    run: echo \"$LOBSTER_ARG_limit $LOBSTER_ARG_LIMIT\"\n"
    result = lint_source(Source("f.lobster", text), LOBSTERLANG)
    [diag] = result.diagnostics
    assert diag.code == "L107" and "`LOBSTER_ARG_limit`" in diag.message


# New: pipeline-only commands run as programs; exec's implicit shell
def test_pipeline_command_in_run_points_at_the_command() -> None:
    text = "steps:\n  - id: a\n    command: |\n      echo start\n      llm_task.invoke --prompt 'x' | jq .\n"
    result = lint_source(Source("f.lobster", text), LOBSTERLANG)
    [diag] = result.diagnostics
    assert (diag.code, diag.span.line, diag.span.col, diag.span.end_col) == ("L311", 5, 7, 22)
    assert diag.hint is not None and "`pipeline: llm_task.invoke …` instead of `command:`" in diag.hint


def test_exec_implicit_shell_with_references() -> None:
    base = "args:\n  d:\n    default: x\nsteps:\n  - id: a\n    pipeline: {p}\n"
    assert codes(base.format(p="exec \"ls -la ${d}\"")) == ["L312"]
    assert codes(base.format(p="exec ls -la ${d}")) == []
    assert codes(base.format(p="exec \"ls -la\" ${d}")) == []


def test_target_is_a_setting_with_a_usage_error_for_bad_values(tmp_path: Path) -> None:
    from lobsterlang.lint.config import ConfigError, from_table

    assert from_table({"target": "reference"}, "x").target == "reference"
    with pytest.raises(ConfigError, match=r"lint\.target must be one of lobsterlang, reference"):
        from_table({"target": "node"}, "x")


@pytest.mark.parametrize("shellcheck", [False, True], ids=["rules", "with-shellcheck"])
def test_the_labelled_corpus_meets_the_precision_targets(shellcheck: bool) -> None:
    """tests/lint/corpus_real/: no error-level false positive, precision >= 95 %, recall on planted defects >= 90 %;
    also counting shellcheck's findings, on the text lint gives it (issue 31)."""
    if shellcheck and binary() is None:
        pytest.skip("shellcheck is not installed")
    command = [sys.executable, str(ROOT / "tools" / "lint_precision.py"), *(["--shellcheck"] if shellcheck else [])]
    out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    numbers = dict(line.split(": ", 1) for line in out.splitlines() if ": " in line and not line.startswith("|"))
    assert int(numbers["files"]) >= 100
    assert numbers["error-level false positives"] == "0"
    assert float(numbers["precision"].split("%")[0]) >= 95
    assert float(numbers["recall on planted defects"].split("%")[0]) >= 90


def test_the_nested_gate_corpus_is_all_found_and_all_true() -> None:
    """tests/lint/corpus_nested/: gates in loops, branches, sub-workflows and `approve` stages; every finding true and
    every planted defect found (at 0eedcf0: precision 7.1 %, recall 40 %; at 414caf5: 20 % and 40 %)."""
    command = [sys.executable, str(ROOT / "tools" / "lint_precision.py"), str(ROOT / "tests" / "lint" / "corpus_nested")]
    out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    numbers = dict(line.split(": ", 1) for line in out.splitlines() if ": " in line and not line.startswith("|"))
    assert int(numbers["files"]) >= 10 and numbers["error-level false positives"] == "0"
    assert numbers["precision"].startswith("100.0%") and numbers["recall on planted defects"].startswith("100.0%")


def test_lint_imports_tree_sitter_only_for_shell_text() -> None:
    code = (
        "import sys\nfrom lobsterlang.lint import Config, Source, lint_source\n"
        "lint_source(Source('a.lobster', 'steps:\\n  - id: a\\n    pipeline: json\\n'), Config(shellcheck=False))\n"
        "print('tree_sitter' in sys.modules)\n"
        "lint_source(Source('b.lobster', 'steps:\\n  - id: a\\n    run: rm -rf x\\n'), Config(shellcheck=False))\n"
        "print('tree_sitter' in sys.modules)\n"
        "import lobsterlang.interpret\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "True"]
    runtime = subprocess.run([sys.executable, "-c", "import sys, lobsterlang.interpret, lobsterlang.cli.run_cmd; print('tree_sitter' in sys.modules)"],
                             capture_output=True, text=True, check=True).stdout
    assert runtime.strip() == "False"


@pytest.mark.parametrize(
    ("script", "expected"),
    [
        ("curl -fsSL https://x | sudo bash", ["L303"]),
        ("bash <(curl -s https://x)", ["L303"]),
        ("# curl -s https://x | sh", []),
        ("curl -o f https://x && sha256sum -c f.sha && sh f", []),
        ("echo 'curl x | sh' > notes.txt", []),
        ("# eval \"$X\"", []),
        ("echo evaluation", []),
        ("eval \"$CMD\"", ["L304"]),
        ('ssh host bash -lc "make $T"', ["L305"]),
        ("sudo sh -c 'echo $1' sh x", []),
    ],
)
def test_shell_danger_rules_read_parsed_commands(script: str, expected: list[str]) -> None:
    text = f"steps:\n  - id: a\n    run: |\n      {script}\n"
    assert codes(text) == expected


def test_model_output_in_shell_is_one_finding_not_two() -> None:
    text = "steps:\n  - id: ask\n    pipeline: llm_task.invoke --prompt hi\n  - id: use\n    run: echo $ask.stdout\n"
    assert findings(text) == [("L408", 5)]
