"""What a rule sees: the IR of one file (or one pipeline string), its text, and indexes the rules share."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Generic, TypeVar, cast, overload

from lobsterlang import ir
from lobsterlang.commands.specs import BY_NAME, CommandSpec
from lobsterlang.diagnostics import Diagnostic, Edit, Fix
from lobsterlang.lint.config import NO_EXTENSIONS, Extensions
from lobsterlang.lint.effects import previews_dropped, temporary_args, unit_side_effect
from lobsterlang.lint.registry import RULES
from lobsterlang.lint.textmap import TextMap, part_offsets
from lobsterlang.lint.walk import Unit, UnitCache, units
from lobsterlang.span import Span

T = TypeVar("T")
_MISSING = object()
"""What `LintContext.shared` finds for an index not built yet (an index may be None)."""


class _cached(Generic[T]):
    """`functools.cached_property` without its lock, which Python 3.11 takes on every first read.

    The value is stored in the instance's `__dict__`, where later reads find it first.
    """

    def __init__(self, build: Callable[[LintContext], T]) -> None:
        self.build = build
        self.name = build.__name__
        self.__doc__ = build.__doc__

    @overload
    def __get__(self, ctx: None, owner: type) -> _cached[T]: ...

    @overload
    def __get__(self, ctx: LintContext, owner: type) -> T: ...

    def __get__(self, ctx: LintContext | None, owner: type) -> T | _cached[T]:
        if ctx is None:
            return self
        value = ctx.__dict__[self.name] = self.build(ctx)
        return value


class LintContext:
    """The input of every rule. Exactly one of `workflow` and `pipeline` is set.

    Everything derived from the IR is computed on first use and kept for the other rules;
    `shared` does the same for indexes that a rule module defines.
    """

    def __init__(self, path: str, text: str, workflow: ir.Workflow | None = None, pipeline: ir.Pipeline | None = None,
                 target: str = "lobsterlang", extensions: Extensions = NO_EXTENSIONS) -> None:
        self.path = path
        self.target = target
        """The runtime the file is written for (`Config.target`)."""
        self.extensions = extensions
        """The commands and condition functions a Lobster fork or host adds (`Config.extensions`)."""
        self.text = text
        self.workflow = workflow
        self.pipeline = pipeline
        self._offsets: dict[int, list[tuple[int, ir.TemplatePart]]] = {}
        self._shared: dict[Callable[[LintContext], object], object] = {}
        self.unit_cache: UnitCache | None = None
        """The units of the document's last lint, for `units` to reuse (the language server sets it)."""

    def shared(self, build: Callable[[LintContext], T]) -> T:
        """`build(self)`, computed once per context: an index that several rules read."""
        value = self._shared.get(build, _MISSING)
        if value is _MISSING:
            value = self._shared[build] = build(self)
        return cast(T, value)

    @_cached
    def textmap(self) -> TextMap:
        # Handed the cache, not `self.offsets`: a bound method would make the context a
        # reference cycle, which only the collector frees (with the whole IR it holds).
        return TextMap(self.text, partial(_offsets, self._offsets))

    def offsets(self, template: ir.Template) -> list[tuple[int, ir.TemplatePart]]:
        """`textmap.part_offsets(template)`, computed once per template."""
        return _offsets(self._offsets, template)

    @_cached
    def units(self) -> tuple[Unit, ...]:
        if self.workflow is None:
            return ()
        return tuple(self.unit_cache.units(self.workflow) if self.unit_cache else units(self.workflow))

    @_cached
    def steps(self) -> tuple[Unit, ...]:
        """Top-level steps only, in order."""
        return tuple(u for u in self.units if u.kind == "step")

    @_cached
    def approval_steps(self) -> tuple[Unit, ...]:
        return tuple(u for u in self.steps if u.step.approval is not None)

    @_cached
    def by_id(self) -> dict[str, list[Unit]]:
        """Every unit (sub-steps included) by id."""
        found: dict[str, list[Unit]] = {}
        for unit in self.units:
            same = found.get(unit.id)
            if same is None:
                found[unit.id] = [unit]
            else:
                same.append(unit)
        return found

    @_cached
    def shell_runs(self) -> tuple[tuple[Unit, ir.ShellRun], ...]:
        """Every `run:`/`command:` unit with its action."""
        return tuple((u, u.action) for u in self.units if type(u.action) is ir.ShellRun)

    @_cached
    def side_effects(self) -> dict[Unit, str]:
        """Every side-effecting unit, in order, with why (`effects.unit_side_effect`)."""
        found = {}
        temporary = temporary_args(self.workflow)
        for unit in self.units:
            why = unit_side_effect(unit, temporary)
            if why:
                found[unit] = why
        return previews_dropped(found)

    @_cached
    def arg_names(self) -> frozenset[str]:
        args = self.workflow.args if self.workflow else None
        return frozenset(a.name for a in args or ())

    @_cached
    def pipelines(self) -> tuple[tuple[ir.Pipeline, Unit | None], ...]:
        """Every parsed pipeline with the unit that runs it (None for a lone pipeline string)."""
        found: list[tuple[ir.Pipeline, Unit | None]] = [(self.pipeline, None)] if self.pipeline is not None else []
        for unit in self.units:
            action = unit.action
            if type(action) is ir.PipelineRun and action.pipeline is not None:
                found.append((action.pipeline, unit))
        return tuple(found)

    @_cached
    def stages(self) -> tuple[ir.Stage, ...]:
        """Every stage of every pipeline, in order."""
        found: list[ir.Stage] = []
        for pipeline, _ in self.pipelines:
            found += pipeline.stages
        return tuple(found)

    @_cached
    def stages_by_name(self) -> dict[str, list[ir.Stage]]:
        """The stages of each command name, in order."""
        found: dict[str, list[ir.Stage]] = {}
        for stage in self.stages:
            found.setdefault(stage.name.value, []).append(stage)
        return found

    @_cached
    def known_stages(self) -> tuple[tuple[ir.Stage, CommandSpec], ...]:
        """Every stage of a standard command, with its spec."""
        found = []
        for stage in self.stages:
            spec = BY_NAME.get(stage.name.value)
            if spec is not None:
                found.append((stage, spec))
        return tuple(found)

    @_cached
    def step_refs(self) -> tuple[tuple[Unit, ir.StepRef, str], ...]:
        """Every step reference with the unit that evaluates it and its field."""
        found: list[tuple[Unit, ir.StepRef, str]] = []
        for unit in self.units:
            for node in unit.condition_nodes:
                if type(node) is ir.StepRef:
                    found.append((unit, node, "when"))
            for ref, field in unit.data_refs:
                found.append((unit, ref, field))
        return tuple(found)

    def diag(self, code: str, span: Span, message: str, hint: str | None = None, fix: Fix | None = None) -> Diagnostic:
        """A diagnostic of rule `code` at its default severity."""
        return Diagnostic(code, RULES[code].severity, message, span, fix, hint)

    def replace(self, span: Span, expected: str, new_text: str, message: str) -> Fix | None:
        """A one-edit fix, offered only when the file holds exactly `expected` under `span`."""
        if self.text[span.start : span.end] != expected:
            return None
        return Fix(message, (Edit(span, new_text),))

    def source_char(self, offset: int) -> str:
        return self.text[offset] if 0 <= offset < len(self.text) else ""


def _offsets(cache: dict[int, list[tuple[int, ir.TemplatePart]]], template: ir.Template) -> list[tuple[int, ir.TemplatePart]]:
    found = cache.get(id(template))
    if found is None:
        found = cache[id(template)] = part_offsets(template)
    return found
