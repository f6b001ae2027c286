"""One realistic example run per pipeline command, shown on its page (docs/commands/NAME.md) and executed by
tools/doc_examples.py: each line is a shell command run in a folder holding a copy of examples/.

Commands that reach the network, an LLM or an OpenClaw gateway show their dry run (`lobster run --dry-run`), which
prints what would be called without calling it.
"""

from __future__ import annotations

INBOX = "exec --json --shell 'cat examples/data/inbox.json'"
"""Three emails (examples/data/inbox.json) that most examples start from."""
_TO_ME = """--args-json '{\\"to\\":\\"me\\",\\"message\\":\\"Build is green\\"}'"""


def _run(pipeline: str) -> str:
    return f'lobster "{pipeline}"'


def _dry_run(pipeline: str) -> str:
    return f'lobster run --dry-run "{pipeline}"'


EXAMPLE_RUNS: dict[str, tuple[str, ...]] = {
    "approve": (_run(f"{INBOX} | where 'unread == true' | pick id,subject | approve --prompt 'Archive these?'"),),
    "ask": (_run("ask --prompt 'Send the reply?'"),),
    "clawd.invoke": (_dry_run(f"clawd.invoke --tool message --action send {_TO_ME}"),),
    "commands.list": (_run("commands.list | pick name,sideEffects | head --n 3"),),
    "dedupe": (_run(f"{INBOX} | dedupe --key from | pick id,from"),),
    "diff.last": (_run(f"{INBOX} | pick id | diff.last --key inbox-ids"), _run(f"{INBOX} | pick id | diff.last --key inbox-ids")),
    "email.triage": (_run(f"{INBOX} | email.triage --limit 10 | pick summary,buckets"),),
    "exec": (_run(f"{INBOX} | pick id,subject"), _run("exec --shell 'echo one; echo two'")),
    "gog.gmail.search": (_dry_run("gog.gmail.search --query 'is:unread' --max 5 | pick from,subject"),),
    "gog.gmail.send": (_run(f"{INBOX} | head --n 1 | map 'to={{{{from}}}}' 'subject=Re: {{{{subject}}}}' 'body=Done.' "
                            "| pick to,subject,body | gog.gmail.send --dry-run"),),
    "groupBy": (_run(f"{INBOX} | groupBy --key from | pick key,count"),),
    "head": (_run(f"{INBOX} | head --n 1 | pick id,subject"),),
    "json": (_run(f"{INBOX} | pick id | json"),),
    "llm.invoke": (_dry_run(f"{INBOX} | pick subject,snippet | llm.invoke --prompt 'Summarize these emails'"),),
    "llm_task.invoke": (_dry_run(f"{INBOX} | pick subject | llm_task.invoke --prompt 'Classify each item'"),),
    "map": (_run(f"{INBOX} | map 'label=#{{{{id}}}} {{{{subject}}}}' | pick label"),),
    "openclaw.agent": (_dry_run("openclaw.agent --agent main --prompt 'Draft a reply to Ana'"),),
    "openclaw.invoke": (_dry_run(f"openclaw.invoke --tool message --action send {_TO_ME}"),),
    "pick": (_run(f"{INBOX} | pick id,subject"),),
    "sort": (_run(f"{INBOX} | sort --key priority | pick priority,subject"),),
    "state.get": (_run(f"{INBOX} | pick id | state.set seen-ids"), _run("state.get seen-ids")),
    "state.set": (_run(f"{INBOX} | where 'unread == true' | pick id | state.set unread-ids"),),
    "table": (_run(f"{INBOX} | pick id,from,subject | table"),),
    "template": (_run(f"{INBOX} | template --text '{{{{from}}}}: {{{{subject | upper}}}}'"),),
    "where": (_run(f"{INBOX} | where 'unread == true' | pick id,subject"),),
    "workflows.list": (_run("workflows.list | pick name"),),
    "workflows.run": (_dry_run("workflows.run --name github.pr.monitor --args-json '{\\\"repo\\\":\\\"o/r\\\",\\\"pr\\\":1}'"),),
}
"""Command name → the shell lines of its example (one console block)."""
