"""What a run carries: options shared by every step, and the frame of one workflow file."""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TextIO

from lobsterlang import ir
from lobsterlang.interpret.process import Cancellation
from lobsterlang.interpret.state import StateStore
from lobsterlang.interpret.workflow.refs import Record
from lobsterlang.interpret.workflow.templates import Scope


@dataclass
class Options:
    """Run-wide settings: output mode, raw args, prompts, state store, cancellation, the run's id and its schedule."""

    mode: str = "tool"
    raw_args: bool = False
    interactive: bool = False
    store: StateStore = field(default_factory=StateStore)
    cancel: Cancellation = field(default_factory=Cancellation)
    err: TextIO = field(default_factory=lambda: sys.stderr)
    prompt_in: TextIO | None = None
    prompt_out: TextIO | None = None
    run_id: str = ""
    schedule: str | None = None
    """The schedule this run is a tick of (`lobster run --schedule NAME`): written in its `start` event."""
    children: dict[str, ir.Workflow] = field(default_factory=dict)
    """The sub-workflows this run loaded, by canonical path: a gate inside one stores them, and its resume runs them."""


@dataclass(frozen=True)
class Answer:
    """The answer to the gate at stage `stage` of a `pipeline:` step: the pipeline continues after that stage with
    `response` as its one item (`ask`) or, once approved (`approve`), with the `items` that reached it."""

    stage: int
    response: Any
    items: list[Any] | None = None

    @property
    def continuing(self) -> list[Any]:
        """The items the pipeline continues with after the gate's stage."""
        return self.items if self.items is not None else [self.response]

    def encoded(self) -> dict[str, Any]:
        """As the journal and the resume state keep it: `{stage, response}` or `{stage, items}`."""
        return {"stage": self.stage, "items": self.items} if self.items is not None else {
            "stage": self.stage, "response": self.response}

    @staticmethod
    def decoded(value: Any) -> Answer | None:
        """An answer read back from `encoded()` (None when it is not one)."""
        if not isinstance(value, dict):
            return None
        stage, items = value.get("stage"), value.get("items")
        if not isinstance(stage, int) or isinstance(stage, bool):
            return None
        return Answer(stage, value.get("response"), items if isinstance(items, list) else None)


@dataclass
class Frame:
    """One workflow file being executed: its IR, args, step records, env and cwd defaults."""

    workflow: ir.Workflow
    path: str
    args: dict[str, Any]
    base_env: Mapping[str, str]
    cwd: str
    cancel: Cancellation
    stack: tuple[str, ...] = ()
    results: dict[str, Record] = field(default_factory=dict)
    spend: list[dict[str, Any]] = field(default_factory=list)
    key_path: tuple[str, ...] = ()
    """The steps that called this workflow (`workflow:` steps), so keys of its steps differ per call site."""
    resumed_branches: dict[str, dict[str, Record]] = field(default_factory=dict)
    """Branch records a resumed run's journal kept, by step id then branch key: those branches do not run again."""
    resumed_attempts: dict[str, int] = field(default_factory=dict)
    """Attempts a resumed run's journal counted for its interrupted step: its retry policy has the rest."""
    answered: dict[str, Answer] = field(default_factory=dict)
    """The answer given to a `pipeline:` step's input gate, by step id: that step continues after its gate."""
    resumed_answers: dict[str, dict[str, Answer]] = field(default_factory=dict)
    """Answers given at an `ask` inside a step (a loop's sub-step, a branch, a sub-workflow's `pipeline:` step), by step
    id then branch key: that pipeline continues after the stage that asked."""
    replayed: frozenset[str] = frozenset()
    """Steps of a sub-workflow whose records (in `results`) an earlier attempt made: they do not run again."""

    def scope(self, results: Mapping[str, Record] | None = None) -> Scope:
        return Scope(self.args, self.results if results is None else results, authored=self.authored)

    @functools.cached_property
    def authored(self) -> frozenset[str]:
        """The args that hold the file's own default: shell text runs them as written (author text is code)."""
        from lobsterlang.interpret.workflow.argvars import authored_args

        return authored_args(self.workflow.args, self.args)

    @property
    def directory(self) -> str:
        return os.path.dirname(os.path.abspath(self.path))


def resolve_args(workflow: ir.Workflow, given: Any) -> dict[str, Any]:
    """Defaults of args that declare one, then every key given (arrays and strings by index, as JS does)."""
    args = {a.name: a.default for a in workflow.args or () if a.has_default}
    if isinstance(given, dict):
        args.update(given)
    elif isinstance(given, (list, str)):
        args.update({str(i): v for i, v in enumerate(given)})
    return js_key_order(args)


def check_required_args(workflow: ir.Workflow, args: Mapping[str, Any]) -> None:
    """Refuse, naming every one, args declared `required: true` that have no value (WorkflowUsageError)."""
    from lobsterlang.interpret.workflow.errors import WorkflowUsageError

    missing = [a.name for a in workflow.args or () if a.required is True and a.name not in args]
    if missing:
        names = ", ".join(missing)
        example = ", ".join(f'"{name}": …' for name in missing)
        raise WorkflowUsageError(f"missing required arg{'s' if len(missing) > 1 else ''}: {names} (give {'them' if len(missing) > 1 else 'it'} with --args-json '{{{example}}}')")


STRICT_ARGS_ENV = "LOBSTER_STRICT_ARGS"
"""Set to 1 (`lobster run --strict-args`): an arg the workflow does not declare is refused, not warned about."""


def undeclared_args(workflow: ir.Workflow, given: Any) -> list[str]:
    """Keys of the caller's `--args-json` object that the workflow's `args:` does not declare, each with
    ` (did you mean `x`?)` when a declared arg is close."""
    if not isinstance(given, dict):
        return []
    from lobsterlang.suggest import closest

    declared = [a.name for a in workflow.args or ()]
    found = []
    for name in given:
        if name not in declared:
            close = closest(name, declared)
            found.append(f"{name} (did you mean `{close}`?)" if close else name)
    return found


def check_undeclared_args(workflow: ir.Workflow, given: Any, env: Mapping[str, str], warn: TextIO) -> None:
    """Warn on `warn` about args the workflow does not declare (a typo is silently an empty value); refuse them
    (WorkflowUsageError) when LOBSTER_STRICT_ARGS=1."""
    unknown = undeclared_args(workflow, given)
    if not unknown:
        return
    declared = ", ".join(a.name for a in workflow.args or ()) or "none"
    message = f"--args-json gives {'args' if len(unknown) > 1 else 'an arg'} the workflow does not declare: {', '.join(unknown)}; it declares: {declared}"
    if env.get(STRICT_ARGS_ENV) == "1":
        from lobsterlang.interpret.workflow.errors import WorkflowUsageError

        raise WorkflowUsageError(message)
    warn.write(f"[WARN] {message}\n")


def _is_index(key: str) -> bool:
    return key.isascii() and key.isdigit() and (key == "0" or not key.startswith("0")) and int(key) < 2**32 - 1


def js_key_order(mapping: dict[str, Any]) -> dict[str, Any]:
    """The order JavaScript keeps object keys in: array indexes ascending, then the rest as inserted."""
    indexes = sorted((k for k in mapping if _is_index(k)), key=int)
    if not indexes:
        return mapping
    return {**{k: mapping[k] for k in indexes}, **{k: v for k, v in mapping.items() if not _is_index(k)}}
