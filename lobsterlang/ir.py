"""The Lobster IR: frozen records (dataclass-like, see `record`), one per construct, each with a `span`.

Every consumer (interpreter, linter, formatter, graph, language server) reads only these
classes. `lobsterlang.ir_codec` turns them into plain JSON and back.

Fields typed `JsonValue` hold plain JSON data (None, bool, int, float, str, list, dict)
exactly as written in the source; derived, typed fields sit next to them.
"""

from __future__ import annotations

from typing import Any, get_args
from typing import Literal as Lit

from lobsterlang.record import Record
from lobsterlang.span import Span

IR_VERSION = 1

JsonValue = Any
"""Plain JSON data as written in the source file."""


# ── templates: text with ${arg} and $step.path references ──────────────────────────


class Text(Record):
    """Literal text inside a template."""

    value: str
    span: Span


class ArgRef(Record):
    """`${name}`: the value of a workflow argument."""

    name: str
    span: Span


class StepRef(Record):
    """`$step.field.a.b`: a field of an earlier step's result (`path[0]` is the field)."""

    step: str
    path: tuple[str, ...]
    span: Span

    @property
    def field(self) -> str:
        return self.path[0]

    @property
    def text(self) -> str:
        return "$" + self.step + "." + ".".join(self.path)


TemplatePart = Text | ArgRef | StepRef


class Template(Record):
    """A string that may embed references; `text` is the string as written."""

    text: str
    parts: tuple[TemplatePart, ...]
    span: Span

    @property
    def refs(self) -> tuple[ArgRef | StepRef, ...]:
        return tuple(p for p in self.parts if not isinstance(p, Text))


# ── pipelines ──────────────────────────────────────────────────────────────────────


class Word(Record):
    """One token after quote removal. `template` is set when it embeds references."""

    value: str
    span: Span
    template: Template | None = None


class Positional(Record):
    """A positional argument (goes to the reference's `args._`)."""

    value: Word
    span: Span


FlagStyle = Lit["bare", "equals", "separate"]


class Flag(Record):
    """`--name`, `--name=value` or `--name value`.

    `style` records how it was written: `bare` (no value: true), `equals` or `separate`
    (the next token was taken as the value, as the reference does).
    """

    name: str
    value: Word | None
    style: FlagStyle
    span: Span
    name_span: Span


StageArg = Positional | Flag


class Stage(Record):
    """One command of a pipeline: `name` and its arguments in source order."""

    name: Word
    args: tuple[StageArg, ...]
    raw: str
    span: Span


class Pipeline(Record):
    """Stages joined by `|`. `text` is the pipeline string as written."""

    text: str
    stages: tuple[Stage, ...]
    span: Span


# ── conditions ─────────────────────────────────────────────────────────────────────


class Literal(Record):
    """A string, number, `true`, `false` or `null` literal."""

    value: JsonValue
    span: Span


class Ident(Record):
    """A bare identifier on the right of a comparison; evaluates to its own text."""

    name: str
    span: Span


class Not(Record):
    """`!operand` (JavaScript truthiness)."""

    operand: Expr
    span: Span


CompareOp = Lit["==", "!=", "<", "<=", ">", ">="]


class Compare(Record):
    """One comparison; the reference allows at most one per operand of `&&`/`||`."""

    op: CompareOp
    left: Expr
    right: Expr
    span: Span


class Logical(Record):
    """`left && right` or `left || right`; both sides are always evaluated."""

    op: Lit["&&", "||"]
    left: Expr
    right: Expr
    span: Span


Expr = Literal | Ident | StepRef | Not | Compare | Logical


class ExprCondition(Record):
    """A condition string parsed as an expression."""

    text: str
    expr: Expr
    span: Span


class ConstCondition(Record):
    """`true`/`false` (YAML booleans or the strings "true"/"false")."""

    value: bool
    span: Span


class InvalidCondition(Record):
    """A condition the reference rejects when it reaches the step; `message` is its error."""

    value: JsonValue
    message: str
    span: Span


Condition = ExprCondition | ConstCondition | InvalidCondition


# ── step data ──────────────────────────────────────────────────────────────────────


class StdinRef(Record):
    """`stdin` that is exactly one reference: the referenced value is passed as data."""

    ref: StepRef
    text: str
    span: Span


class StdinTemplate(Record):
    """`stdin` text with references rendered into it."""

    template: Template
    span: Span


class StdinValue(Record):
    """`stdin` that is not a string (number, mapping, list, bool): passed as JSON."""

    value: JsonValue
    span: Span


Stdin = StdinRef | StdinTemplate | StdinValue


class EnvVar(Record):
    """One `env` entry. `template` is set for string values; others are ignored at run time."""

    name: str
    value: JsonValue
    template: Template | None
    span: Span
    name_span: Span


class Extra(Record):
    """A key the runtime ignores (unknown, or shadowed like `command` next to `run`)."""

    key: str
    value: JsonValue
    span: Span


class Retry(Record):
    """`retry:`; `value` is the original. Absent fields are None (the runtime applies defaults)."""

    value: JsonValue
    max: JsonValue
    backoff: JsonValue
    delay_ms: JsonValue
    max_delay_ms: JsonValue
    jitter: JsonValue
    span: Span


class Approval(Record):
    """`approval:` in any of its shapes; `value` is the original.

    The effective fields follow the reference: camelCase identity keys win over snake_case,
    and a prompt/items/preview of the wrong type is None.
    """

    value: JsonValue
    prompt: str | None
    items: JsonValue
    preview: str | None
    initiated_by: str | None
    required_approver: str | None
    require_different_approver: bool | None
    span: Span


class InputRequest(Record):
    """`input:`: a structured question; `value` is the original mapping."""

    value: JsonValue
    prompt: str | None
    response_schema: JsonValue
    defaults: JsonValue
    has_defaults: bool
    span: Span


# ── step actions ───────────────────────────────────────────────────────────────────


class ShellRun(Record):
    """`run:` (or `command:`) shell text, run with `/bin/sh -lc`."""

    key: Lit["run", "command"]
    command: Template
    span: Span


class PipelineRun(Record):
    """`pipeline:` text; `pipeline` is None when it does not parse (`error` says why)."""

    template: Template
    pipeline: Pipeline | None
    error: str | None
    span: Span


class WorkflowArg(Record):
    """One `workflow_args` entry; string values are templates."""

    name: str
    value: JsonValue
    template: Template | None
    span: Span


class WorkflowCall(Record):
    """`workflow:` a sub-workflow file (relative to this file's directory) with its args."""

    path: Template
    args: tuple[WorkflowArg, ...] | None
    span: Span


class Branch(Record):
    """One branch of a `parallel` step; `approval`/`input`: the branch is a gate (after its command, or instead of
    one), which halts the run while the other branches go on (fields added after IR version 1 was published: absent
    in older IR JSON, they read as None)."""

    id: str
    action: ShellRun | PipelineRun | None
    env: tuple[EnvVar, ...] | None
    cwd: Template | None
    stdin: Stdin | None
    extra: tuple[Extra, ...]
    span: Span
    id_span: Span
    approval: Approval | None = None
    input: InputRequest | None = None


class Parallel(Record):
    """`parallel:` branches run concurrently; `wait` is `all` (default) or `any`."""

    wait: str | None
    timeout_ms: JsonValue
    branches: tuple[Branch, ...]
    extra: tuple[Extra, ...]
    span: Span


class ForEach(Record):
    """`for_each:` runs `steps` once per item of `source`."""

    source: Stdin
    item_var: str | None
    index_var: str | None
    batch_size: JsonValue
    pause_ms: JsonValue
    steps: tuple[Step, ...]
    span: Span


Action = ShellRun | PipelineRun | WorkflowCall | Parallel | ForEach


class Step(Record):
    """One workflow step (also a for_each sub-step).

    `action` is what it executes (None for pure approval/input steps); `when_key` records
    whether the condition was written `when` or `condition`.
    """

    id: str
    action: Action | None
    approval: Approval | None
    input: InputRequest | None
    stdin: Stdin | None
    when: Condition | None
    when_key: Lit["when", "condition"] | None
    env: tuple[EnvVar, ...] | None
    cwd: Template | None
    retry: Retry | None
    timeout_ms: JsonValue
    on_error: JsonValue
    extra: tuple[Extra, ...]
    span: Span
    id_span: Span


# ── workflow file ──────────────────────────────────────────────────────────────────


CommentPath = tuple[str | int, ...]
"""Where a comment belongs: mapping keys and sequence indexes from the document root."""

CommentPlacement = Lit["before", "trailing", "after", "end"]


class Comment(Record):
    """A `#` comment of the source file (`text` includes the `#`).

    `path` and `placement` say what it belongs to, so a formatter can keep it there:
    `before` the entry at `path` (on its own line; `()` is the file header), `trailing`
    at the end of the line of the entry at `path`, `after` the entry at `path` and all it
    holds (a comment that ends a block, indented deeper than what follows), or at the `end`
    of the file.
    """

    text: str
    span: Span
    path: CommentPath = ()
    placement: CommentPlacement = "before"


class ArgDecl(Record):
    """One entry of `args:`; `value` is the original entry. Only `default` is used at run time."""

    name: str
    value: JsonValue
    default: JsonValue
    has_default: bool
    description: JsonValue
    required: JsonValue
    span: Span
    name_span: Span


class CostLimit(Record):
    """`cost_limit:` with `max_usd` and `action` (`warn` or `stop`); `value` is the original."""

    value: JsonValue
    max_usd: JsonValue
    action: JsonValue
    span: Span


class Workflow(Record):
    """A whole workflow file. `source` is the path it was compiled from."""

    source: str
    name: JsonValue
    description: JsonValue
    args: tuple[ArgDecl, ...] | None
    env: tuple[EnvVar, ...] | None
    cwd: Template | None
    cost_limit: CostLimit | None
    steps: tuple[Step, ...]
    extra: tuple[Extra, ...]
    comments: tuple[Comment, ...]
    span: Span


Node = (
    Text | ArgRef | StepRef | Template | Word | Positional | Flag | Stage
    | Pipeline | Literal | Ident | Not | Compare | Logical | ExprCondition | ConstCondition
    | InvalidCondition | StdinRef | StdinTemplate | StdinValue | EnvVar | Extra | Retry | Approval
    | InputRequest | ShellRun | PipelineRun | WorkflowArg | WorkflowCall | Branch | Parallel | ForEach
    | Step | ArgDecl | CostLimit | Comment | Workflow
)

NODE_CLASSES: tuple[type, ...] = get_args(Node)
