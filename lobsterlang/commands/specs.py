"""Declared schemas of the standard pipeline commands (names, flags, positionals, side effects).

This is data about the language, not behaviour: the interpreter implements each command
against its spec; the linter, completion and hover read the same specs.
"""

from __future__ import annotations

from typing import Literal

from lobsterlang import ir
from lobsterlang.record import Record

FlagKind = Literal["bool", "string", "number", "json", "enum"]


class FlagSpec(Record):
    """One `--flag`. `bool` flags are written bare (`--json`); others take a value."""

    name: str
    kind: FlagKind
    help: str
    choices: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()
    required: bool = False
    default: str | None = None


class PositionalSpec(Record):
    """Positional arguments; `variadic` takes all remaining words."""

    name: str
    help: str
    required: bool = False
    variadic: bool = False


GateKind = Literal["approval", "input"]


class CommandSpec(Record):
    """A standard command. `side_effects` names what it does beyond transforming items;
    `requires_one_of` lists flags/positionals of which at least one must be given; `gate` says that
    it halts the run for a person (an `approval` or an `input`) when nobody can answer on a terminal."""

    name: str
    summary: str
    flags: tuple[FlagSpec, ...] = ()
    positionals: tuple[PositionalSpec, ...] = ()
    side_effects: tuple[str, ...] = ()
    examples: tuple[str, ...] = ()
    requires_one_of: tuple[str, ...] = ()
    gate: GateKind | None = None


def _b(name: str, help: str, *aliases: str) -> FlagSpec:
    return FlagSpec(name, "bool", help, aliases=aliases)


def _s(name: str, help: str, *aliases: str, required: bool = False, default: str | None = None) -> FlagSpec:
    return FlagSpec(name, "string", help, aliases=aliases, required=required, default=default)


def _n(name: str, help: str, *aliases: str, default: str | None = None) -> FlagSpec:
    return FlagSpec(name, "number", help, aliases=aliases, default=default)


def _j(name: str, help: str, *aliases: str) -> FlagSpec:
    return FlagSpec(name, "json", help, aliases=aliases)


def _e(name: str, help: str, choices: tuple[str, ...], default: str | None = None) -> FlagSpec:
    return FlagSpec(name, "enum", help, choices=choices, default=default)


_LLM_FLAGS = (
    _s("provider", "LLM provider: openclaw, pi, http (default from LOBSTER_LLM_PROVIDER)"),
    _s("prompt", "the prompt (or positional text)"),
    _s("model", "model name (default LOBSTER_LLM_MODEL)"),
    _s("token", "bearer token for the provider"),
    _j("artifacts-json", "JSON array of extra artifacts"),
    _j("metadata-json", "JSON object of metadata"),
    _j("output-schema", "JSON Schema the output data must match"),
    _s("schema-version", "schema version tag", default="v1"),
    _n("max-validation-retries", "extra calls after the first when the output fails the schema", default="1"),
    _n("temperature", "sampling temperature (part of the cache key)"),
    _n("max-output-tokens", "output token limit (part of the cache key)"),
    _s("state-key", "run-state key for replay"),
    _b("refresh", "ignore cached results"),
    _b("disable-cache", "do not read or write the cache"),
)
_INVOKE_FLAGS = (
    _s("url", "gateway URL (default OPENCLAW_URL, then CLAWD_URL)"),
    _s("token", "bearer token (default OPENCLAW_TOKEN for local URLs)"),
    _s("tool", "tool name", required=True),
    _s("action", "tool action", required=True),
    _j("args-json", "JSON arguments for the tool"),
    _s("session-key", "session key", "sessionKey"),
    _b("dry-run", "ask the tool for a dry run", "dryRun"),
    _b("each", "one call per input item"),
    _s("item-key", "argument name for the item with --each", "itemKey", default="item"),
)
_TEXT = PositionalSpec("text", "prompt text", variadic=True)

COMMANDS: tuple[CommandSpec, ...] = (
    CommandSpec(
        "approve", "halt for human approval before continuing",
        (_s("prompt", "question shown to the approver", default="Approve?"), _b("emit", "emit an approval request item instead of halting"),
         _b("preview-from-stdin", "show the first input items as a preview", "previewFromStdin"),
         _n("limit", "items to show in the preview", "previewLimit", "preview-limit", default="5")),
        examples=("exec --json --shell 'inbox list --json' | approve --prompt 'Apply changes?'",), gate="approval",
    ),
    CommandSpec(
        "ask", "halt for structured human input",
        (_s("prompt", "question to ask", default="Input required"), _j("schema", "JSON Schema of the response"),
         _b("subject-from-stdin", "show the input items as the subject", "subjectFromStdin"), _b("emit", "emit the request as an item")),
        examples=("ask --prompt 'Approve, reject or redraft?'",), gate="input",
    ),
    CommandSpec("clawd.invoke", "call an OpenClaw tool (legacy name of openclaw.invoke)", _INVOKE_FLAGS, side_effects=("calls_clawd_tool",),
                examples=("clawd.invoke --tool message --action send --args-json '{\"to\":\"me\"}'",)),
    CommandSpec("commands.list", "list the available commands with their argument schemas", examples=("commands.list | pick name,sideEffects",)),
    CommandSpec("dedupe", "drop repeated items (first occurrence wins)", (_s("key", "dot path that identifies an item"),), examples=("dedupe --key id",)),
    CommandSpec(
        "diff.last", "compare the input with the value stored at a key, then store it",
        (_s("key", "state key"),), (PositionalSpec("key", "state key"),), ("writes_state",), requires_one_of=("key",),
        examples=("exec --json --shell 'gh pr view 1 --json state' | diff.last --key pr-1",),
    ),
    CommandSpec(
        "email.triage", "sort emails into needs-reply, needs-action and FYI",
        (_n("limit", "emails to consider", default="20"), _b("llm", "use an LLM to classify and draft"), _s("model", "LLM model"),
         _e("emit", "what to yield", ("report", "drafts"), default="report"), _s("state-key", "run-state key"),
         _n("temperature", "sampling temperature"), _n("max-output-tokens", "output token limit"), _s("token", "provider token"), _s("url", "provider URL")),
        examples=("gog.gmail.search --query 'newer_than:1d' | email.triage --limit 10",),
    ),
    CommandSpec(
        "exec", "run a program; its stdout lines (or JSON with --json) become items",
        (_s("shell", "run this command line through /bin/sh (or LOBSTER_SHELL)"), _b("json", "parse stdout as JSON"),
         _e("stdin", "how to feed input items to the program", ("raw", "json", "jsonl"))),
        (PositionalSpec("command", "program and its arguments (no shell)", variadic=True),), ("local_exec",), requires_one_of=("shell", "command"),
        examples=("exec --json --shell 'echo [1,2,3]'", "exec --json=true node script.js"),
    ),
    CommandSpec(
        "gog.gmail.search", "search Gmail with the gog CLI",
        (_s("query", "Gmail search query", default="newer_than:1d"), _n("max", "maximum results", "limit", default="20")), side_effects=("reads_email",),
        examples=("gog.gmail.search --query 'is:unread' --max 5",),
    ),
    CommandSpec("gog.gmail.send", "send draft items {to, subject, body} with the gog CLI", (_b("dry-run", "do not send", "dryRun"),), side_effects=("sends_email",),
                examples=("gog.gmail.send --dry-run",)),
    CommandSpec(
        "groupBy", "group items by a key into {key, items, count}", (_s("key", "dot path to group by", required=True),),
        examples=("groupBy --key sender",),
    ),
    CommandSpec("head", "keep the first N items", (_n("n", "how many items", default="10"),), examples=("head --n 5",)),
    CommandSpec("json", "render all items as one JSON array", examples=("exec --json --shell 'echo [1,2]' | json",)),
    CommandSpec("llm.invoke", "call an LLM with the input items as artifacts", _LLM_FLAGS, (_TEXT,), ("calls_llm",), requires_one_of=("prompt", "text"),
                examples=("llm.invoke --prompt 'Summarize these emails'",)),
    CommandSpec("llm_task.invoke", "call the OpenClaw llm-task tool", _LLM_FLAGS, (_TEXT,), ("calls_llm",), requires_one_of=("prompt", "text"),
                examples=("llm_task.invoke --prompt 'Classify each item'",)),
    CommandSpec(
        "map", "reshape items: wrap, unwrap or assign fields",
        (_s("wrap", "wrap each item as {F: item}"), _s("unwrap", "replace each item by its field F")),
        (PositionalSpec("assignments", "k=v assignments; v may use {{path}}", variadic=True),),
        examples=("map --wrap email", "map 'label=PR {{number}}'"),
    ),
    CommandSpec(
        "openclaw.agent", "run an OpenClaw agent turn",
        (_s("agent", "agent id"), _s("prompt", "message", "message"), _s("model", "model"), _s("session-key", "session key", "sessionKey"),
         _s("session-id", "session id", "sessionId"), _s("thinking", "thinking level"), _n("timeout", "seconds"), _b("local", "run locally")),
        (_TEXT,), ("calls_openclaw_agent",),
        examples=("openclaw.agent --agent main --prompt 'Draft a reply'",),
    ),
    CommandSpec("openclaw.invoke", "call an OpenClaw tool through the gateway", _INVOKE_FLAGS, side_effects=("calls_clawd_tool",),
                examples=("openclaw.invoke --tool message --action send --args-json '{\"to\":\"me\"}'",)),
    CommandSpec("pick", "keep only some fields of each item", positionals=(PositionalSpec("fields", "comma-separated field names", required=True),),
                examples=("pick id,subject",)),
    CommandSpec("sort", "sort items", (_s("key", "dot path to sort by"), _b("desc", "descending order")), examples=("sort --key date --desc",)),
    CommandSpec("state.get", "read a stored value", positionals=(PositionalSpec("key", "state key", required=True),), side_effects=("reads_state",),
                examples=("state.get last-run",)),
    CommandSpec("state.set", "store the input (one item, or the array)", positionals=(PositionalSpec("key", "state key", required=True),), side_effects=("writes_state",),
                examples=("exec --json --shell 'date +%s' | state.set last-run",)),
    CommandSpec("table", "render items as a text table", examples=("exec --json --shell 'cat people.json' | pick name,age | table",)),
    CommandSpec(
        "template", "render a text template per item",
        (_s("text", "template text with {{path | filter}} placeholders"), _s("file", "read the template from a file")),
        (PositionalSpec("text", "template text", variadic=True),), requires_one_of=("text", "file"),
        examples=("template --text '{{subject | upper}}'",),
    ),
    CommandSpec("where", "keep items matching field=value (also == != < <= > >=)", positionals=(PositionalSpec("expression", "e.g. 'count>2'", required=True),),
                examples=("where 'status == open'",)),
    CommandSpec("workflows.list", "list the built-in named workflows", examples=("workflows.list | pick name",)),
    CommandSpec("workflows.run", "run a built-in named workflow", (_s("name", "workflow name"), _j("args-json", "workflow args")),
                (PositionalSpec("name", "workflow name"),), requires_one_of=("name",),
                examples=("workflows.run --name github.pr.monitor --args-json '{\"repo\":\"o/r\",\"pr\":1}'",)),
)

BY_NAME: dict[str, CommandSpec] = {spec.name: spec for spec in COMMANDS}


def command(name: str) -> CommandSpec | None:
    return BY_NAME.get(name)


def stage_gate(pipeline: ir.Pipeline | None) -> tuple[int, ir.Stage, str] | None:
    """The first stage of `pipeline` that requests input (`ask`) or approval (`approve`), with its index and the gate's
    kind (`input`, `approval`): a `pipeline:` step with one suspends the workflow there until the answer comes
    (`needs_input`, `needs_approval`). None when there is none (or the name of the command is only known at run
    time)."""
    for index, stage in enumerate(pipeline.stages if pipeline is not None else ()):
        spec = BY_NAME.get(stage.name.value) if stage.name.template is None else None
        if spec is not None and spec.gate in ("input", "approval"):
            return index, stage, spec.gate
    return None
