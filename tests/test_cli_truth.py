"""The CLI tells the truth (issue 14), through the installed `lobster`: flags that prevent side effects work
wherever they stand, dry runs match real runs, usage errors say what is wrong and suggest the fix."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
LOBSTER = Path(sys.executable).parent / "lobster"


def lobster(*args: str, cwd: Path | None = None, stdin: str | None = None, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    assert LOBSTER.exists(), "the console script is installed next to the interpreter (pip install -e .)"
    return subprocess.run([str(LOBSTER), *args], capture_output=True, text=True, cwd=cwd, input=stdin if stdin is not None else "",
                          env={**os.environ, **(env or {})}, timeout=60)


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("LOBSTER_STATE_DIR", str(tmp_path / "state"))
    return tmp_path


# ── item 1 / 15: --dry-run, --mode and -h mean the same wherever they stand; `--` ends the options ──

@pytest.mark.parametrize("argv", [
    ["run", "exec --shell 'touch made'", "--dry-run"],
    ["exec --shell 'touch made'", "--dry-run"],
    ["run", "exec", "--shell", "touch made", "--dry-run"],
    ["run", "exec --shell 'touch made'", "--help"],
    ["run", "exec --shell 'touch made'", "-h"],
])
def test_a_flag_after_the_pipeline_still_prevents_the_run(work: Path, argv: list[str]) -> None:
    done = lobster(*argv, cwd=work)
    assert done.returncode == 0, done.stderr
    assert not (work / "made").exists()
    assert "[DRY RUN] Pipeline (1 stage)" in done.stderr or "Usage: lobster run" in done.stdout


def test_mode_after_the_pipeline_prints_the_envelope(work: Path) -> None:
    done = lobster("run", "exec --json --shell 'echo [1]'", "--mode", "tool", cwd=work)
    assert json.loads(done.stdout)["output"] == [1]


def test_double_dash_ends_the_options(work: Path) -> None:
    done = lobster("run", "--", "exec", "echo", "-h", cwd=work)
    assert (done.returncode, json.loads(done.stdout)) == (0, ["-h"])


# ── item 2: run-time conditions are not "skipped" in the plan ──

@pytest.mark.parametrize("example, step, depends", [
    ("hello.lobster", "shout", "step friendly"),
    ("pr-monitor.lobster", "notify", "step diff"),
    ("retry-and-timeouts.lobster", "fallback", "step enrich"),
])
def test_dry_run_says_a_condition_on_step_results_is_decided_at_run_time(work: Path, example: str, step: str, depends: str) -> None:
    plan = lobster("run", "--dry-run", str(EXAMPLES / example), cwd=work).stderr
    line = next(line for line in plan.splitlines() if f". {step}  " in line)
    assert "skipped" not in line
    assert f"[decided at run time — depends on: {depends}]" in plan


def test_the_real_run_executes_the_step_the_plan_shows(work: Path) -> None:
    done = lobster("run", str(EXAMPLES / "hello.lobster"), cwd=work)
    assert done.returncode == 0 and "Hello, world!" in done.stdout


def test_a_condition_on_an_approval_depends_on_it_and_args_only_conditions_stay_decided(work: Path) -> None:
    (work / "w.lobster").write_text(
        "steps:\n  - id: gate\n    approval: Go?\n  - id: ship\n    when: $gate.approved\n    run: echo ship\n"
        "  - id: never\n    when: false\n    run: echo no\n", encoding="utf-8")
    plan = lobster("run", "--dry-run", "w.lobster", cwd=work).stderr
    assert "     when: $gate.approved  [decided at run time — depends on: approval gate]" in plan
    assert "  3. never  [skipped — condition: false]" in plan


# ── item 3: the plan shows `${arg}` as the runtime passes it ──

ARGS_FLOW = "args:\n  who: {default: 'me; touch authored'}\nsteps:\n  - id: say\n    run: echo ${who}\n"
HOSTILE = '{"who": "a; touch pwned"}'


def test_dry_run_shows_the_quoted_variable_the_runtime_uses(work: Path) -> None:
    (work / "w.lobster").write_text(ARGS_FLOW, encoding="utf-8")
    plan = lobster("run", "--dry-run", "w.lobster", "--args-json", HOSTILE, cwd=work).stderr
    assert '     run: echo "${LOBSTER_ARG_WHO}"' in plan
    done = lobster("run", "w.lobster", "--args-json", HOSTILE, cwd=work)
    assert done.stdout == "a; touch pwned\n" and not (work / "pwned").exists()  # human mode prints the text
    raw = lobster("run", "--raw-args", "--dry-run", "w.lobster", "--args-json", HOSTILE, cwd=work).stderr
    assert "     run: echo a; touch pwned" in raw


def test_dry_run_shows_the_files_default_as_the_shell_text_it_runs_as(work: Path) -> None:
    (work / "w.lobster").write_text(ARGS_FLOW, encoding="utf-8")
    plan = lobster("run", "--dry-run", "w.lobster", cwd=work).stderr
    assert "     run: echo me; touch authored\n     [shell text from the file's defaults: who]\n" in plan
    assert not (work / "authored").exists()
    done = lobster("run", "w.lobster", cwd=work)
    assert done.stdout == "me\n" and (work / "authored").exists()


# ── item 4: required args ──

REQUIRED = ("args:\n  env: {required: true}\n  region: {required: true}\n  who: {required: true, default: bob}\n"
            "steps:\n  - id: a\n    run: touch ran\n")


def test_missing_required_args_are_refused_before_any_step(work: Path) -> None:
    (work / "w.lobster").write_text(REQUIRED, encoding="utf-8")
    human = lobster("run", "w.lobster", cwd=work)
    assert human.returncode == 2 and "missing required args: env, region" in human.stderr
    tool = lobster("run", "--mode", "tool", "w.lobster", cwd=work)
    envelope = json.loads(tool.stdout)
    assert tool.returncode == 2 and envelope["error"]["type"] == "parse_error" and "env, region" in envelope["error"]["message"]
    assert not (work / "ran").exists()
    assert lobster("run", "w.lobster", "--args-json", '{"env": "x", "region": "y"}', cwd=work).returncode == 0
    assert (work / "ran").exists()


# ── items 5–7: usage errors ──

@pytest.mark.parametrize("argv, message", [
    (["run", "nosuch.lobster"], "Error: nosuch.lobster: no such file or directory"),
    (["run", "--file", "nosuch.lobster"], "Error: nosuch.lobster: no such file or directory"),
    (["graph", "nosuch.lobster"], "Error: nosuch.lobster: no such file or directory"),
    (["compile", "nosuch.lobster"], "Error: nosuch.lobster: no such file or directory"),
    (["lint", "nosuch.lobster"], "Error: nosuch.lobster: no such file or directory"),
    (["graph", "flows"], "Error: flows: is a directory, not a workflow file"),
    (["run", "flows"], "Error: flows: is a directory, not a workflow file"),
    (["graph", "notes.txt"], "Error: notes.txt: Workflow file must end in .lobster, .yaml, .yml, or .json"),
    (["lnt", "."], "Error: No such command 'lnt'. Did you mean 'lint'?"),
    (["run", "--dryrun", "exec echo hi"], "Error: No such option '--dryrun'. Did you mean '--dry-run'?"),
    (["--dryrun", "exec echo hi"], "Error: No such option '--dryrun'. Did you mean '--dry-run'?"),
    (["run", "--mode", "bogus", "exec echo hi"], "Error: --mode must be human or tool, not 'bogus'."),
    (["run"], "Error: give a pipeline, a workflow file, or `-` to read the pipeline from stdin"),
])
def test_usage_errors_exit_2_with_one_wording(work: Path, argv: list[str], message: str) -> None:
    (work / "flows").mkdir()
    done = lobster(*argv, cwd=work)
    assert done.returncode == 2
    assert done.stderr.startswith("Usage: lobster") and done.stderr.endswith(message + "\n"), done.stderr


def test_a_mistyped_resume_option_is_refused(work: Path) -> None:
    done = lobster("resume", "--tokn", "abc", "--approve", "yes", cwd=work)
    assert done.returncode == 2
    assert json.loads(done.stdout)["error"] == {"type": "parse_error", "message": "No such option '--tokn'. Did you mean '--token'?"}


def test_resume_takes_mode_and_refuses_a_mode_that_is_neither(work: Path) -> None:
    # `resume --mode tool` is what agents pass (the reference ignores it); the envelope is printed either way,
    # so an unknown token is the same parse_error in both modes, and a mistyped mode is a usage error.
    for mode in ("tool", "human"):
        done = lobster("resume", "--mode", mode, "--token", "abc", "--approve", "yes", cwd=work)
        assert done.returncode == 2
        assert json.loads(done.stdout)["error"] == {"type": "parse_error", "message": "Invalid token"}
    done = lobster("resume", "--mode=tol", "--token", "abc", "--approve", "yes", cwd=work)
    assert done.returncode == 2
    assert json.loads(done.stdout)["error"] == {"type": "parse_error", "message": "--mode must be tool or human, not 'tol'. Did you mean 'tool'?"}


def test_a_first_word_that_is_a_pipeline_command_still_runs(work: Path) -> None:
    assert json.loads(lobster("exec", "echo", "hi", cwd=work).stdout) == ["hi"]


def test_dash_reads_the_pipeline_from_stdin(work: Path) -> None:
    assert json.loads(lobster("run", "-", cwd=work, stdin="exec --json --shell 'echo [5]'\n").stdout) == [5]
    compiled = lobster("compile", "--pipeline", "-", "--compact", cwd=work, stdin="exec echo hi | json")
    assert json.loads(compiled.stdout)["text"] == "exec echo hi | json"


# ── item 8: run errors name the step ──

def test_run_errors_name_the_step_and_its_line(work: Path) -> None:
    (work / "w.lobster").write_text(
        "steps:\n  - id: list\n    run: echo '[1]'\n  - id: build\n    run: echo boom >&2; exit 2\n", encoding="utf-8")
    done = lobster("run", "w.lobster", cwd=work)
    assert (done.returncode, done.stderr) == (1, "Error: workflow command failed (2): boom\n  in step build (w.lobster:4:9)\n")
    (work / "r.lobster").write_text(
        "steps:\n  - id: list\n    run: echo '[1]'\n  - id: show\n    run: cat\n    stdin: $lsit.stdout\n", encoding="utf-8")
    done = lobster("run", "r.lobster", cwd=work)
    assert done.stderr.endswith("  in step show (r.lobster:4:9); did you mean `list`?\n")


# ── item 9: exit codes and the JSON shape of fix edits ──

def test_diff_exits_1_when_something_would_change_in_fmt_and_lint(work: Path) -> None:
    (work / "messy.lobster").write_text("steps:\n- id: a\n  pipeline: llm.invoke --refresh 'Summarize'\n", encoding="utf-8")
    (work / "clean.lobster").write_text("steps:\n  - id: a\n    run: echo hi\n", encoding="utf-8")
    assert lobster("fmt", "--diff", "messy.lobster", cwd=work).returncode == 1
    assert lobster("lint", "--diff", "messy.lobster", cwd=work).returncode == 1
    assert lobster("fmt", "--diff", "clean.lobster", cwd=work).returncode == 0
    assert lobster("lint", "--diff", "clean.lobster", cwd=work).returncode == 0
    findings = json.loads(lobster("lint", "--format", "json", "messy.lobster", cwd=work).stdout)
    fixed = [f for f in findings if f["fix"]]
    assert fixed and all(set(e["span"]) == set(f["span"]) for f in fixed for e in f["fix"]["edits"])


# ── item 10: the hint gutter ──

def test_hint_lines_up_with_a_two_digit_gutter(work: Path) -> None:
    steps = "".join(f"  - id: s{i}\n    run: echo {i}\n" for i in range(5))
    (work / "w.lobster").write_text(f"steps:\n{steps}  - id: last\n    run: x\n    retries: 3\n", encoding="utf-8")
    lines = lobster("compile", "w.lobster", cwd=work).stderr.splitlines()
    numbered = next(line for line in lines if line.startswith(" 14 |"))
    hint = next(line for line in lines if "= hint:" in line)
    assert hint.index("=") == numbered.index("|")


# ── item 11: shell completion ──

@pytest.mark.parametrize("shell, marker", [("bash", "complete -o nosort -F _lobster_completion lobster"),
                                           ("zsh", "#compdef lobster"), ("fish", "complete --no-files --command lobster")])
def test_completion_scripts(shell: str, marker: str) -> None:
    done = lobster("--completion", shell)
    assert done.returncode == 0 and marker in done.stdout and "_LOBSTER_COMPLETE" in done.stdout


def _complete(shell: str, words: str, cword: str) -> list[str]:
    done = lobster(env={"_LOBSTER_COMPLETE": f"{shell}_complete", "COMP_WORDS": words, "COMP_CWORD": cword})
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


@pytest.mark.parametrize("words, cword, expected", [
    ("lobster li", "1", ["plain,lint"]),
    ("lobster ex", "1", ["plain,explain", "plain,exec"]),
    ("lobster run --dr", "2", ["plain,--dry-run"]),
    ("lobster run --mode ", "3", ["plain,human", "plain,tool"]),
    ("lobster run work", "2", ["file,work", "plain,workflows.list", "plain,workflows.run"]),
    ("lobster resume --approve ", "3", ["plain,yes", "plain,no"]),
    ("lobster lint --fi", "2", ["plain,--fix"]),
    ("lobster graph ", "2", ["file,"]),
    ("lobster 'exec echo' --mo", "2", ["plain,--mode"]),
])
def test_bash_completion_answers(words: str, cword: str, expected: list[str]) -> None:
    assert _complete("bash", words, cword) == expected


def test_zsh_and_fish_completion_answers() -> None:
    assert _complete("zsh", "lobster run sor", "2")[:5] == ["file", "sor", "_", "plain", "sort"]
    fish = _complete("fish", "lobster run sor", "sor")
    assert fish[0] == "file,sor" and fish[1].startswith("plain,sort\tsort items")


# ── item 17: a resume with the wrong kind of answer names the CLI flags ──

def test_wrong_kind_of_answer_names_the_flags(work: Path) -> None:
    halted = json.loads(lobster("run", "--mode", "tool", "exec --json --shell 'echo [1]' | approve --prompt ok", cwd=work).stdout)
    token = halted["requiresApproval"]["resumeToken"]
    done = lobster("resume", "--token", token, "--response-json", "{}", cwd=work)
    assert json.loads(done.stdout)["error"]["message"] == "approval resumes require --approve yes|no, not --response-json"
    asked = json.loads(lobster("run", "--mode", "tool", "ask --prompt 'x?'", cwd=work).stdout)
    done = lobster("resume", "--token", asked["requiresInput"]["resumeToken"], "--approve", "yes", cwd=work)
    assert json.loads(done.stdout)["error"]["message"] == "pipeline input resumes require --response-json <json>"


def test_a_tool_call_pipeline_that_looks_like_an_option_is_a_pipeline(work: Path) -> None:
    done = lobster("tool", cwd=work, stdin='{"action": "run", "pipeline": "--help"}')
    assert json.loads(done.stdout)["error"] == {"type": "runtime_error", "message": "Unknown command: --help"}


def test_bash_runs_the_generated_script(tmp_path: Path) -> None:
    script = ('eval "$(lobster --completion bash)"; COMP_WORDS=(lobster run --mode ""); COMP_CWORD=3; '
              '_lobster_completion lobster; echo "${COMPREPLY[@]}"')
    env = {**os.environ, "PATH": f"{LOBSTER.parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    done = subprocess.run(["bash", "-c", script], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60)
    assert (done.returncode, done.stdout, done.stderr) == (0, "human tool\n", "")


def test_help_for_a_mistyped_command_suggests_one() -> None:
    done = lobster("help", "lnt")
    assert (done.returncode, done.stderr.splitlines()[-1]) == (2, "Error: Unknown command: lnt. Did you mean 'lint'?")
    assert lobster("help", "exce").stderr.splitlines()[-1] == "Error: Unknown command: exce. Did you mean 'exec'?"
