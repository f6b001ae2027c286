"""Run pipeline IR: stages chained lazily as generators, halting at approval and input gates.

This is the contract the workflow engine builds on:

    result = run_pipeline(pipeline, items, RunContext(env=..., cwd=..., mode="tool", store=...))

`RunContext.render_word` substitutes `${arg}` / `$step` references into words that carry a
template (the workflow engine passes it); by default every word is its literal value.
"""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, Literal, TextIO

from lobsterlang import ir
from lobsterlang.gcpause import collector_paused
from lobsterlang.interpret.errors import LobsterRunError
from lobsterlang.interpret.llmspend import StepSpend
from lobsterlang.interpret.pipeline import allowlist, stages
from lobsterlang.interpret.pipeline.args import ShellRenderer, StageArgs, WordRenderer, literal_word
from lobsterlang.interpret.process import Cancellation
from lobsterlang.interpret.state import StateStore
from lobsterlang.record import Record

Mode = Literal["human", "tool"]
Status = Literal["ok", "needs_approval", "needs_input"]


def _stdin_is_tty() -> bool:
    try:
        return sys.stdin is not None and sys.stdin.isatty()
    except (ValueError, OSError):
        return False


class RunContext:
    """Everything a stage may use besides its input and arguments.

    `env`/`cwd` are given to child processes; `mode` is `human` or `tool`; `store` holds
    state (`state.get`, resume); `cancel` stops the run and kills its children;
    `render_word` turns a word into its value; `render_shell` turns a word a shell will read into
    text plus the variables its `${arg}` references point to (None: the rendered value as is);
    `env`'s LOBSTER_MAX_OUTPUT_BYTES caps what a child may write to stdout and to stderr; `interactive`
    allows TTY prompts (human mode only; None means "when stdin is a terminal");
    `prompt_out`/`prompt_in` are where such prompts are written and read; renderers (`json`,
    `table`) write to `rendered`; `on_dispatch` is told the name of a command whose call is going out
    (a message sent, a tool called: `dispatching`), so a workflow step knows a retry could repeat it; `spend`
    (a workflow step's) is where the LLM commands open the charges of the calls they pay for and mark the
    answers they hand out.
    """

    def __init__(
        self, *, env: Mapping[str, str] | None = None, cwd: str | None = None, mode: Mode = "human",
        store: StateStore | None = None, cancel: Cancellation | None = None, render_word: WordRenderer = literal_word,
        interactive: bool | None = None, prompt_out: TextIO | None = None, prompt_in: TextIO | None = None,
        render_shell: ShellRenderer | None = None, on_dispatch: Callable[[str], None] | None = None,
        spend: StepSpend | None = None,
    ) -> None:
        self.env: Mapping[str, str] = dict(os.environ) if env is None else env
        self.cwd = os.getcwd() if cwd is None else cwd
        self.mode: Mode = mode
        self.store = StateStore() if store is None else store
        self.cancel = Cancellation() if cancel is None else cancel
        self.render_word = render_word
        self.render_shell = render_shell
        self.interactive = interactive
        self.prompt_out = prompt_out
        self.prompt_in = prompt_in
        self.on_dispatch = on_dispatch
        self.spend = spend
        self.rendered = io.StringIO()

    def dispatching(self, command: str) -> None:
        """`command` sends a call that may take effect outside the run (called just before it goes out)."""
        if self.on_dispatch is not None:
            self.on_dispatch(command)

    @property
    def can_prompt(self) -> bool:
        """A human-mode run whose stdin is a terminal may ask questions interactively."""
        if self.mode != "human":
            return False
        return _stdin_is_tty() if self.interactive is None else self.interactive


class StageOutput(Record):
    """What a command returns: its items (a list or a lazy iterator), and whether it halts or rendered."""

    items: Iterable[Any] = ()
    halt: bool = False
    rendered: bool = False


Command = Callable[[Iterator[Any], StageArgs, RunContext], StageOutput]


class Halt(Record):
    """Where a run stopped: the gate's stage index and its request item (`approval_request` or `input_request`)."""

    index: int
    request: dict[str, Any]

    @property
    def kind(self) -> str:
        return str(self.request.get("type"))


class PipelineResult(Record):
    """`status`, the output `items`, the text renderers produced (None if none ran) and the halt, if any."""

    status: Status
    items: list[Any]
    rendered_text: str | None
    halt: Halt | None = None

    @property
    def rendered(self) -> bool:
        return self.rendered_text is not None


def lookup(name: str, number: int = 1) -> Command:
    """The implementation of a standard command, or `Unknown command: <name>` (noted with stage `number`)."""
    from lobsterlang.interpret.pipeline.registry import IMPLEMENTATIONS, implementation

    command = implementation(name)
    if command is None:
        raise stages.unknown_command(name, number, list(IMPLEMENTATIONS))
    return command


def check_stages(pipeline: ir.Pipeline, names: list[str], start_at: int = 0) -> list[Command]:
    """The command of each stage from `start_at`, once every name is known and every flag is one its command
    takes; else the first problem, noted with its stage (nothing has run yet)."""
    commands = [lookup(name, start_at + offset + 1) for offset, name in enumerate(names)]
    for offset, (stage, name) in enumerate(zip(pipeline.stages[start_at:], names, strict=False)):
        stages.check_flags(stage, name, start_at + offset + 1)
    return commands


def run_pipeline(pipeline: ir.Pipeline, items: Iterable[Any], ctx: RunContext, *, start_at: int = 0) -> PipelineResult:
    """Run the stages from `start_at` on `items`; raises `LobsterRunError` subclasses on failure.

    Every command name is checked before any stage runs (the reference runs earlier stages
    first). A gate that halts ends the loop; its request is the halt's item. The cyclic
    collector is paused for the run: stages hold up to whole item lists (parsed JSON, sort
    and groupBy buffers), acyclic and long-lived, which it would otherwise rescan again and
    again as they grow (quadratic at a million items); reference counting still frees them.
    """
    with collector_paused():
        return _run_stages(pipeline, items, ctx, start_at)


def _run_stages(pipeline: ir.Pipeline, items: Iterable[Any], ctx: RunContext, start_at: int) -> PipelineResult:
    names = [ctx.render_word(stage.name) for stage in pipeline.stages[start_at:]]
    commands = check_stages(pipeline, names, start_at)
    allowlist.check(names, ctx.env)  # a tool request on a host that lists its commands
    frames = stages.StageFrames()
    try:
        return _stream(pipeline, names, commands, items, ctx, start_at, frames)
    except LobsterRunError as exc:
        frames.locate(exc)
        raise


def _stream(pipeline: ir.Pipeline, names: list[str], commands: list[Command], items: Iterable[Any], ctx: RunContext,
            start_at: int, frames: stages.StageFrames) -> PipelineResult:
    """Chain the stages' streams and drain the last; `frames` learns which generator is which stage's."""
    stream: Iterator[Any] = iter(items)
    streams: list[Iterator[Any]] = []
    rendered = False
    try:
        for offset, (stage, command) in enumerate(zip(pipeline.stages[start_at:], commands, strict=False)):
            ctx.cancel.check()
            out = _start(command, stream, stage, ctx, start_at + offset + 1, names[offset])
            rendered = rendered or out.rendered
            stream = out.items if isinstance(out.items, Iterator) else iter(out.items)  # an iterator as it is: its `iter()` may be a faster one
            streams.append(stream)
            frames.add(stream, start_at + offset + 1, names[offset])
            if out.halt:
                return _halted(start_at + offset, _collect(stream, ctx.cancel), ctx, rendered)
        collected = _collect(stream, ctx.cancel)
        return PipelineResult("ok", collected, ctx.rendered.getvalue() if rendered else None)
    finally:
        _close_in_order(streams)


def _start(command: Command, stream: Iterator[Any], stage: ir.Stage, ctx: RunContext, number: int, name: str) -> StageOutput:
    """Call a stage's command; an error it raises before any item flows is noted with the stage."""
    try:
        return command(stream, StageArgs.from_stage(stage, ctx.render_word), ctx)
    except LobsterRunError as exc:
        stages.note_stage(exc, number, name)
        raise


def _close_in_order(streams: list[Iterator[Any]]) -> None:
    """Close every stage's stream, first stage first, however the run ended (a later stage that failed
    to start, or ignored its input): an error a stream holds back (`exec --json` on a bad document) is
    raised first, as it was when that stage read and parsed everything before the next one started."""
    for stream in streams:
        close = getattr(stream, "close", None)
        if close is not None:
            close()


def _halted(index: int, items: list[Any], ctx: RunContext, rendered: bool) -> PipelineResult:
    text = ctx.rendered.getvalue() if rendered else None
    request = items[0] if len(items) == 1 and isinstance(items[0], dict) else None
    kind = request.get("type") if request else None
    if request is None or kind not in ("approval_request", "input_request"):
        return PipelineResult("ok", items, text)
    status: Status = "needs_approval" if kind == "approval_request" else "needs_input"
    return PipelineResult(status, items, text, Halt(index, request))


def _collect(items: Iterator[Any], cancel: Cancellation) -> list[Any]:
    """Drain the last stage, stopping as soon as the run is cancelled (the stream is closed either way)."""
    collected: list[Any] = []
    append = collected.append
    try:
        for item in items:
            if cancel.reason is not None:
                break
            append(item)
    finally:
        close = getattr(items, "close", None)
        if close is not None:
            close()
    cancel.check()
    return collected


def describe_plan(pipeline: ir.Pipeline, render: WordRenderer = literal_word) -> str:
    """The `--dry-run` plan, as the reference writes it to stderr."""
    count = len(pipeline.stages)
    lines = [f"[DRY RUN] Pipeline ({count} stage{'' if count == 1 else 's'}):"]
    for number, stage in enumerate(pipeline.stages, 1):
        args = StageArgs.from_stage(stage, render)
        parts = list(args.positionals) + [f"{k}={'true' if v is True else v}" for k, v in args.flags.items()]
        suffix = f"  args: {', '.join(parts)}" if parts else ""
        lines.append(f"  {number}. {render(stage.name)}{suffix}")
    return "\n".join(lines) + "\n"
