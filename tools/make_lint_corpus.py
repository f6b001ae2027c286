"""Write tests/lint/corpus_real/: workflows in the style of real users' files, with their expected findings.

`python tools/make_lint_corpus.py` rewrites the corpus. Each workflow is assembled from step blocks that
reproduce what public workflow files do (long `run: |` scripts with jq, heredocs, loops, curl, gh,
`node -e` one-liners, env-style variables, step-level `description:`), in several authoring styles,
and about half of the files carry a planted defect. A block marks the line of each finding it must
produce with `«CODE»` (stripped from the file); the labels go beside each file as `NAME.expect`,
one `LINE CODE [planted]` per line. The blocks are written by hand, not derived from the linter.
"""

from __future__ import annotations

import json
import random
import sys
from dataclasses import dataclass, field
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "tests" / "lint" / "corpus_real"
MARK = "«"


@dataclass
class Block:
    """A step (or a few) written as users write them; `{id}` is its id, `{prev}` an earlier step with JSON output."""

    name: str
    text: str
    args: tuple[str, ...] = ()
    effect: bool = False
    """It has a real side effect, so a clean file puts an approval step before it."""
    planted: bool = False
    needs_prev: bool = False
    model: bool = False
    """Its output is a model's answer (never used as `{prev}`: later data flows from it are findings of their own)."""
    extra_args: dict[str, str] = field(default_factory=dict)
    """Arg defaults other than the standard ones."""


CLEAN = [
    Block("fetch-issues", """\
  - id: {id}
    description: Fetch the open issues of the repository
    run: |
      API="${{1:-https://api.github.com}}"
      # the token comes from the caller's environment
      curl -fsSL -H "Authorization: Bearer ${{GITHUB_TOKEN}}" \\
        "$API/repos/${{repo}}/issues?state=open&per_page=50" \\
        | jq '[.[] as $i | {{number: $i.number, title: $i.title, url: $i.html_url, labels: [$i.labels[].name]}}]'
""", args=("repo",)),
    Block("loop-ids", """\
  - id: {id}
    stdin: $prev.json
    run: |
      ids=$(jq -r '.[].number')
      mkdir -p item
      for id in $ids; do
        if [ -f "item/$id.json" ]; then
          cat "item/$id.json"
        else
          echo "{{\\"number\\": $id, \\"cached\\": false}}"
        fi
      done | jq -s .
""", needs_prev=True),
    Block("gh-prs", """\
  - id: {id}
    run: >-
      gh pr list --repo "$LOBSTER_ARG_REPO" --state open --json number,title,author,headRefName
      --jq '[.[] | select(.author.login != "dependabot[bot]")]'
""", args=("repo",)),
    Block("heredoc-report", """\
  - id: {id}
    description: Write the markdown report
    stdin: $prev.json
    run: |
      OUT_DIR="${{STATE_DIR:-$HOME/.cache/digest}}"
      mkdir -p "$OUT_DIR"
      count=$(jq 'length')
      cat > "$OUT_DIR/${{slug}}.md" <<EOF
      # Digest ${{slug}}
      Generated: $(date -u +%Y-%m-%dT%H:%M:%SZ)
      Items: ${{count}}
      EOF
      echo "{{\\"path\\": \\"$OUT_DIR/${{slug}}.md\\"}}"
""", args=("slug",), needs_prev=True),
    Block("python-heredoc", """\
  - id: {id}
    stdin: $prev.json
    run: |
      python3 - <<'PY'
      import json, sys
      items = json.load(sys.stdin)
      # shell-looking text is plain Python here: ${{total}} and $HOME are not expanded
      total = sum(1 for i in items if i.get("labels"))
      print(json.dumps({{"labelled": total, "template": "${{total}} of $count"}}))
      PY
""", needs_prev=True),
    Block("node-template", """\
  - id: {id}
    stdin: $prev.json
    run: |
      node -e '
        const items = JSON.parse(require("fs").readFileSync(0, "utf8"));
        const n = items.length;
        const lines = items.map((it) => `- ${{it.title}} (#${{it.number}})`);
        console.log(JSON.stringify({{ text: `Found ${{n}} items:\\n${{lines.join("\\n")}}` }}));
      '
""", needs_prev=True),
    Block("node-oneliner", """\
  - id: {id}
    command: node -e 'const d=JSON.parse(require("fs").readFileSync(0,"utf8"));console.log(`${{d.length}} rows`)'
    stdin: $prev.json
""", needs_prev=True),
    Block("while-read", """\
  - id: {id}
    stdin: $prev.json
    run: |
      jq -r '.[] | "\\(.number)\\t\\(.title)"' | while IFS=$'\\t' read -r num title; do«L310»
        printf '%s: %s\\n' "$num" "$title"
      done
""", needs_prev=True),
    Block("disk-usage", """\
  - id: {id}
    run: |
      set -euo pipefail«L310»
      THRESHOLD=${{THRESHOLD:-80}}
      df -P | awk -v t="$THRESHOLD" 'NR>1 {{ gsub("%","",$5); if ($5+0 > t) print $6 }}' \\
        | jq -R . | jq -s '{{full: .}}'
"""),
    Block("jq-reduce", """\
  - id: {id}
    stdin: $prev.json
    run: |
      jq 'reduce .[] as $row ({{}}; .[$row.author.login // "unknown"] += 1)
          | to_entries | sort_by(-.value) | map({{who: .key, n: .value}})'
""", needs_prev=True),
    Block("env-block", """\
  - id: {id}
    env:
      TITLE: $prev.json.0.title
      LIMIT: ${{limit}}
    run: |
      printf 'Top item: %s (limit %s)\\n' "$TITLE" "$LIMIT"
""", args=("limit",), needs_prev=True),
    Block("summary-llm", model=True, text="""\
  - id: {id}
    description: Summarise the list for the channel
    pipeline: >
      llm_task.invoke --prompt "Summarise these items in five bullet points; say which need a reply"
    stdin: $prev.json
""", needs_prev=True),
    Block("date-window", """\
  - id: {id}
    run: |
      SINCE=$(date -u -d "${{days}} days ago" +%Y-%m-%d 2>/dev/null || date -u -v-${{days}}d +%Y-%m-%d)
      echo "{{\\"since\\": \\"$SINCE\\"}}"
""", args=("days",)),
    Block("git-log", """\
  - id: {id}
    run: |
      # post-processing of the log happens in the next step; deploy notes are collected separately
      git fetch --tags --quiet
      last=$(git describe --tags --abbrev=0 2>/dev/null || git rev-list --max-parents=0 HEAD)
      git log --pretty=format:'{{"sha":"%h","subject":"%s"}}' "$last..HEAD" | jq -s .
"""),
    Block("gh-workflow-view", """\
  - id: {id}
    run: gh run list --workflow deploy.yml --limit 5 --json status,conclusion,headBranch
"""),
    Block("prompt-post", model=True, text="""\
  - id: {id}
    pipeline: >
      llm_task.invoke --prompt "Draft a short post for the team channel about the release; do not delete anything"
    stdin: $prev.json
""", needs_prev=True),
    Block("sample-json", """\
  - id: {id}
    run: |
      cat <<'JSON' | jq '.actions | map(select(.kind == "delete" or .kind == "post")) | length'
      {{"actions": [{{"kind": "post", "target": "feed"}}, {{"kind": "delete", "target": "draft"}}]}}
      JSON
"""),
    Block("case-stmt", """\
  - id: {id}
    run: |
      mode="${{MODE:-summary}}"
      case "$mode" in
        summary) echo '{{"mode":"summary"}}' ;;
        full) echo '{{"mode":"full"}}' ;;
        *) echo "unknown mode: $mode" >&2; exit 2 ;;
      esac
"""),
    Block("tmpfile", """\
  - id: {id}
    stdin: $prev.json
    run: |
      TMP_DB="$(mktemp -d)/items.db"
      jq -c '.[]' > "${{TMP_DB}}.new"
      mv "${{TMP_DB}}.new" "$TMP_DB"
      wc -l < "$TMP_DB" | jq -R '{{lines: (. | tonumber)}}'
""", needs_prev=True),
    Block("array-loop", """\
  - id: {id}
    run: |
      topics=(security release docs)«L310»
      for t in "${{topics[@]}}"; do«L310»
        gh search issues "label:$t" --repo "$LOBSTER_ARG_REPO" --json number --jq length | jq --arg t "$t" '{{topic: $t, n: .}}'
      done | jq -s .
""", args=("repo",)),
    Block("weather", """\
  - id: {id}
    run: >-
      curl -fsS "https://wttr.in/${{city}}?format=j1" | jq '.current_condition[0] | {{temp: .temp_C, desc: .weatherDesc[0].value}}'
""", args=("city",)),
    Block("state-file", """\
  - id: {id}
    run: |
      STATE_DIR="${{LOBSTER_STATE_DIR:-$HOME/.lobster/state}}"
      seen="$STATE_DIR/${{slug}}.txt"
      touch "$seen"
      sort -u "$seen" | jq -R . | jq -s '{{seen: .}}'
""", args=("slug",)),
    Block("when-guard", """\
  - id: {id}
    when: $prev.json != null
    run: "echo '{{\\"ok\\": true}}'"
""", needs_prev=True),
    Block("positional", """\
  - id: {id}
    run: |
      set -- "$LOBSTER_ARG_REPO" main
      REPO="${{1}}"; BRANCH="${{2}}"
      gh api "repos/$REPO/branches/$BRANCH" --jq '{{name: .name, sha: .commit.sha}}'
""", args=("repo",)),
    Block("py-inline", """\
  - id: {id}
    run: |
      python3 -c 'import json,os; print(json.dumps({{"home": os.environ.get("HOME"), "user": os.environ.get("USER")}}))'
"""),
    # issue 31, 1: shell variables read with braces, a declared arg in single quotes and in arithmetic
    Block("heredoc-shell-var", """\
  - id: {id}
    stdin: $prev.json
    run: |
      body=$(cat)
      count=$(( ${{limit}} * 3 ))
      echo 'limit: ${{limit}}' >&2
      cat <<EOF | jq -Rs '{{text: .}}'
      ${{body}} (showing up to ${{count}})
      EOF
""", args=("limit",), needs_prev=True),
    # issue 31, 2: names the script binds, close to a declared arg
    Block("bound-near-arg", """\
  - id: {id}
    stdin: $prev.json
    run: |
      tip=$(jq -r '.[0].title // empty')
      while read -r line; do echo "${{line}}"; done <<< "${{tip}}"«L310»
      node -e 'const tip = process.argv[1]; console.log(`tip: ${{tip}}`)' "${{tip}}"
      echo "${{tips}}"
""", args=("tips",), needs_prev=True),
    # issue 31, 3: the invoke programs are installed by the reference package
    Block("invoke-program", """\
  - id: {id}
    command: |
      openclaw.invoke --tool sessions_list --args-json '{{"limit": 5}}'
"""),
    # issue 31, 4: rm of an arg defaulting under /tmp; a POST that computes; a quoted pipeline word; a final review
    Block("tmp-arg-rm", """\
  - id: {id}
    run: |
      mkdir -p "${{work_dir}}" && rm -rf "${{work_dir}}"
      echo '{{"clean": true}}'
""", extra_args={"work_dir": "/tmp/lobster-work"}),
    Block("compute-post", """\
  - id: {id}
    stdin: $prev.json
    run: |
      jq '{{model: "gpt-4o-mini", messages: [{{role: "user", content: tostring}}]}}' \\
        | curl -fsS -X POST https://api.openai.com/v1/chat/completions -H "Authorization: Bearer $OPENAI_API_KEY" -d @-
""", needs_prev=True),
    Block("quoted-prompt", model=True, text="""\
  - id: {id}
    stdin: $prev.json
    pipeline: llm_task.invoke --prompt "Summarise for ${{audience}} in three bullets"
""", needs_prev=True, extra_args={"audience": "the on-call team"}),
    # issue 31, 5: a rollout is watched (a read)
    Block("rollout-status", """\
  - id: {id}
    retry:
      max: 3
    run: kubectl rollout status deployment/web --namespace "$LOBSTER_ARG_NAMESPACE" --timeout 60s
""", args=("namespace",)),
    # issue 31, 8: a keyword as an argument, and sh -c of a quoted heredoc
    Block("echo-done", """\
  - id: {id}
    run: echo done
"""),
    Block("bash-c-heredoc", """\
  - id: {id}
    run: |
      bash -c "$(cat <<'SCRIPT'
      set -e
      echo "running as $USER"
      SCRIPT
      )"
"""),
    # a JavaScript program reading member paths in a template literal
    Block("node-member-template", """\
  - id: {id}
    stdin: $prev.json
    run: |
      node -e '
        const items = JSON.parse(require("fs").readFileSync(0, "utf8"));
        for (const item of items) console.log(`${{item.title}} by ${{item.user.login}}`);
      '
""", needs_prev=True),
]

PATTERNS = [
    # issue 31, 4: preview → approve → execute: only the execute step is gated
    Block("preview-execute", """\
  - id: {id}_preview
    run: inbox apply --json
  - id: {id}_ok
    stdin: ${id}_preview.json
    approval: Apply these changes to the inbox?
  - id: {id}
    stdin: ${id}_preview.json
    when: ${id}_ok.approved
    run: inbox apply --execute
"""),
    # issue 31, 4: a final review gate hands the approved data to the caller
    Block("final-review", """\
  - id: {id}_draft
    run: report build --json
  - id: {id}
    stdin: ${id}_draft.json
    approval: Send this report to the caller?
"""),
    # issue 31, 5: the gate's own command shows the data the next step acts on
    Block("kubectl-diff-gate", """\
  - id: {id}_render
    run: kustomize build overlays/prod
  - id: {id}_diff
    env:
      MANIFEST: ${id}_render.stdout
    run: printf '%s' "$MANIFEST" | kubectl diff -f - || true
    approval: Apply this diff to production?
  - id: {id}
    env:
      MANIFEST: ${id}_render.stdout
    run: printf '%s' "$MANIFEST" | kubectl apply -f -
"""),
]

EFFECTS = [
    Block("curl-post", """\
  - id: {id}
    run: |
      payload=$(jq -n --arg text "Digest ready" '{{text: $text}}')
      curl -fsS -X POST -H 'Content-Type: application/json' -d "$payload" "$SLACK_WEBHOOK_URL"«L401»
""", effect=True),
    Block("gh-merge", """\
  - id: {id}
    run: |
      for pr in $(gh pr list --repo "$LOBSTER_ARG_REPO" --label automerge --json number --jq '.[].number'); do
        gh pr merge "$pr" --repo "$LOBSTER_ARG_REPO" --squash --delete-branch«L401»
      done
""", args=("repo",), effect=True),
    Block("git-push", """\
  - id: {id}
    run: |
      git add CHANGELOG.md
      git commit -m "docs: changelog for ${{slug}}"
      git push origin HEAD«L401»
""", args=("slug",), effect=True),
    Block("kubectl", """\
  - id: {id}
    cwd: ./deploy
    run: kubectl apply -f manifests/ --namespace "$LOBSTER_ARG_NAMESPACE"«L401»
""", args=("namespace",), effect=True),
    Block("rm-dir", """\
  - id: {id}
    run: |
      dir="${{CACHE_DIR:-/tmp/lobster-cache}}/${{slug}}"
      rm -rf "$dir"«L401»
      echo '{{"cleaned": true}}'
""", args=("slug",), effect=True),
    Block("gmail-send", """\
  - id: {id}
    pipeline: gog.gmail.send«L401»
    stdin: $prev.json
""", effect=True, needs_prev=True),
]

DEFECTS = [
    Block("typo-step-ref", """\
  - id: {id}
    run: |
      echo "previous result:"
      echo '${typo}.json' | jq .«L101»
""", planted=True, needs_prev=True),
    Block("undeclared-arg", """\
  - id: {id}
    run: |
      echo "default label: $LOBSTER_ARG_LABEL" >&2
      gh issue list --repo "$LOBSTER_ARG_REPO" --label "${{lable}}" --json number«L105»
""", args=("repo", "label"), planted=True),
    Block("llm-in-run", """\
  - id: {id}
    stdin: $prev.json
    run: llm_task.invoke --prompt "Classify each item as bug, feature or question"«L311»
""", planted=True, needs_prev=True),
    Block("state-in-command", """\
  - id: {id}
    command: |
      state.set --key last-digest «L311»
""", planted=True),
    Block("exec-implicit-shell", """\
  - id: {id}
    pipeline: exec "ls -la ${{slug}}"«L312»
""", args=("slug",), planted=True),
    Block("unknown-env", """\
  - id: {id}
    run: echo "limit is $LOBSTER_ARG_limit"«L107»
""", planted=True),
    Block("typo-key", """\
  - id: {id}
    run: "echo '{{\\"ok\\": true}}'"
    retires: 3«W001»
""", planted=True),
    Block("retokenised-default", """\
  - id: {id}
    pipeline: template --text ${{greeting}}«L309»
""", planted=True, extra_args={"greeting": "hello there"}),
    Block("step-output-in-shell", """\
  - id: {id}
    run: |
      title=$prev.json.0.title«L302»
      echo "$title"
""", planted=True, needs_prev=True),
    Block("pipe-to-shell", """\
  - id: {id}
    run: curl -fsSL https://example.com/install.sh | sh«L303»
""", planted=True),
    # issue 31, 3: an undotted pipeline command run as a program
    Block("json-in-run", """\
  - id: {id}
    stdin: $prev.json
    run: json«L311»
""", planted=True, needs_prev=True),
    # issue 31, 6: a near-typo of a command is an error
    Block("command-typo", """\
  - id: {id}
    stdin: $prev.json
    pipeline: sortt --key number«L201»
""", planted=True, needs_prev=True),
    # issue 31, 8: a field no step result has
    Block("result-field", """\
  - id: {id}
    env:
      COUNT: $prev.result«L108»
    run: echo "$COUNT"
""", planted=True, needs_prev=True),
    # issue 31, 9: the verb is not the first word; an effect in a script the step writes and runs; xargs
    Block("verb-later", """\
  - id: {id}
    run: openclaw message send --channel ops --text "digest ready"«L401!»
""", planted=True),
    Block("namespaced-delete", """\
  - id: {id}
    run: kubectl -n "$LOBSTER_ARG_NAMESPACE" delete job nightly-report«L401!»
""", planted=True, args=("namespace",)),
    Block("written-script", """\
  - id: {id}
    run: |
      cat > notify.sh <<'EOF'
      curl -fsS -X POST "$HOOK_URL" -d @message.json«L401!»
      EOF
      bash notify.sh
""", planted=True),
    Block("xargs-delete", """\
  - id: {id}
    run: |
      gh issue list --label stale --json number --jq '.[].number' | xargs -I{{}} gh issue close {{}}«L401!»
""", planted=True),
    # issue 31, 10: an arg pasted into a Python program
    Block("arg-in-python", """\
  - id: {id}
    run: |
      python3 - <<'PY'
      import json
      print(json.dumps({{"city": "${{city}}"}}))«L313»
      PY
""", planted=True, args=("city",)),
    # issue 31, 11: template syntax nothing substitutes
    Block("actions-syntax", """\
  - id: {id}
    run: |
      echo "result: ${{{{ steps.fetch.outputs.result }}}}"«L314»
""", planted=True),
    Block("braced-step-ref", """\
  - id: {id}
    run: |
      RESULT='${{{prev}.stdout}}'«L314»
      echo "$RESULT"
""", planted=True, needs_prev=True),
    # issue 31, 12: a shell-syntax default where no shell expands it
    Block("shell-default-env", """\
  - id: {id}
    env:
      CHANNEL: ${{channel}}«L315»
    run: notify --channel "$CHANNEL" --dry-run
""", planted=True, extra_args={"channel": "${NEWS_CHANNEL:-whatsapp}"}),
    # issue 31, 13: $item where the loop named its item otherwise
    Block("renamed-item", """\
  - id: {id}
    for_each: $prev.json
    item_var: msg
    steps:
      - id: show
        run: echo "$item.json.title"«L101»
""", planted=True, needs_prev=True),
]

STANDARD_DEFAULTS = {
    "repo": "openclaw/openclaw", "slug": "weekly", "limit": "20", "days": "7", "city": "Lisbon",
    "namespace": "staging", "label": "bug", "tips": "short",
}
NAMES = ["triage", "digest", "release", "cleanup", "standup", "deploy-notes", "weather-brief", "pr-sweeper",
         "inbox-zero", "changelog", "metrics", "backlog"]


def approval(style: int, gate: str, shown: str | None) -> str:
    """An approval step before a side effect, in one of three styles people use."""
    if style == 0:
        text = f"  - id: {gate}\n    approval: Run the next step with this data?\n"
    elif style == 1:
        text = f"  - id: {gate}\n    approval:\n      prompt: \"Proceed with the changes shown below?\"\n"
    else:
        text = f"  - id: {gate}\n    approval:\n      prompt: Publish the result? This cannot be undone.\n      required_approver: owner\n"
    return text + (f"    stdin: ${shown}.json\n" if shown else "    run: git status --short | jq -R . | jq -s .\n")


def header(style: int, name: str, args: dict[str, str]) -> str:
    lines = []
    if style in (0, 2):
        lines.append(f"name: {name}")
    if style == 2:
        lines.append(f"description: {name.replace('-', ' ').title()} workflow; runs daily from cron")
    if style == 1:
        lines.append(f"# {name}: written for the ops team; run with `lobster run {name}.lobster`")
        lines.append(f"name: {name}")
    if args:
        lines.append("args:")
        for arg, default in sorted(args.items()):
            lines.append(f"  {arg}:")
            lines.append(f"    default: {json.dumps(default)}")
            if style == 2:
                lines.append(f"    description: the {arg}")
    lines.append("steps:")
    return "\n".join(lines) + "\n"


def assemble(index: int, rng: random.Random) -> tuple[str, str, list[tuple[int, str, bool]]]:
    """One workflow: its file name, text and labels (line, code, planted)."""
    style = index % 3
    name = f"{index:03d}-{rng.choice(NAMES)}"
    chosen = rng.sample(CLEAN, rng.randint(3, 6))
    if index % 3 != 2:
        chosen.insert(rng.randint(1, len(chosen)), rng.choice(EFFECTS))
    defect = DEFECTS[(index // 2) % len(DEFECTS)] if index % 2 == 0 else None
    if defect is not None:
        chosen.insert(rng.randint(1, len(chosen)), defect)
    gate_missing = index % 6 == 1
    body: list[str] = []
    ids: list[str] = []
    data_ids: list[str] = []
    args: dict[str, str] = {}
    for n, block in enumerate(chosen):
        step_id = block.name.replace("-", "_") if n % 2 else block.name
        prev = data_ids[-1] if data_ids else None
        if block.needs_prev and prev is None:
            body.append("  - id: seed\n    run: >-\n      echo '[{\"number\": 1, \"title\": \"hello\"}]'\n")
            data_ids.append(prev := "seed")
        if block.effect and not gate_missing:
            gate = f"confirm_{n}"
            body.append(approval(n % 3, gate, prev))
            ids.append(gate)
        typo = (prev or "seed") + (prev or "seed")[-1]
        body.append(block.text.format(id=step_id, typo=typo, prev=prev or "seed").replace("$prev", f"${prev}"))
        ids.append(step_id)
        if not (block.model or block.planted or block.effect):
            data_ids.append(step_id)
        for arg in block.args:
            args[arg] = STANDARD_DEFAULTS[arg]
        args.update(block.extra_args)
    if index % 4 == 3:
        pattern = PATTERNS[(index // 4) % len(PATTERNS)]
        body.append(pattern.text.format(id=f"pattern_{index}"))
    text = header(style, name[4:], args) + "\n".join(body)
    return name, *labels(text, gate_missing)


def labels(marked: str, gate_missing: bool) -> tuple[str, list[tuple[int, str, bool]]]:
    """The text without its `«CODE»` marks, and the marked findings (L401 only where no gate was put, or marked
    `«L401!»`, a planted effect, with no approval step above it)."""
    lines, found = [], []
    gated = False  # an approval step stands above: L401 counts any gate before the effect
    for number, line in enumerate(marked.splitlines(), start=1):
        gated = gated or line.strip().startswith("approval:")
        line, *marks = line.split(MARK)
        for mark in marks:
            code = mark.rstrip("»")
            always = code.endswith("!")  # a planted effect: no gate is ever put before it
            code = code.rstrip("!")
            if code == "L310":
                found.append((number, code, False))  # shellcheck's (true) finding: counted with --shellcheck
            elif code != "L401" or gate_missing or (always and not gated):
                found.append((number, code, True))
        lines.append(line)
    return "\n".join(lines) + "\n", found


def main() -> int:
    rng = random.Random(15)
    OUT.mkdir(parents=True, exist_ok=True)
    for old in OUT.glob("*"):
        old.unlink()
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 150
    for index in range(count):
        name, text, found = assemble(index, rng)
        (OUT / f"{name}.lobster").write_text(text, encoding="utf-8")
        expect = "".join(f"{line} {code}{' planted' if planted else ''}\n" for line, code, planted in found)
        (OUT / f"{name}.lobster.expect").write_text(expect, encoding="utf-8")
    (OUT / "README.md").write_text(README, encoding="utf-8")
    return 0


README = """\
# Labelled lint corpus (real-world style)

Workflows in the style of public users' files, written for this project (no file is copied
from a public repository): generated by `tools/make_lint_corpus.py` from hand-written step
blocks. `NAME.lobster.expect` lists every finding the linter should report on `NAME.lobster`,
one `LINE CODE` per line; `planted` marks a deliberate defect. An empty `.expect` means the file
is clean. `python tools/lint_precision.py` compares the linter against these labels.
"""

if __name__ == "__main__":
    raise SystemExit(main())
