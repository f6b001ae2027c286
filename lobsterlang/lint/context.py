"""What a rule sees: the IR of one file (or one pipeline string), its text for positions, and helpers."""

from __future__ import annotations

from functools import cached_property

from lobsterlang import ir
from lobsterlang.diagnostics import Diagnostic, Edit, Fix
from lobsterlang.lint.effects import unit_side_effect
from lobsterlang.lint.registry import RULES
from lobsterlang.lint.textmap import TextMap
from lobsterlang.lint.walk import Unit, condition_refs, data_refs, templates, units
from lobsterlang.span import Span


class LintContext:
    """The input of every rule. Exactly one of `workflow` and `pipeline` is set."""

    def __init__(self, path: str, text: str, workflow: ir.Workflow | None = None, pipeline: ir.Pipeline | None = None) -> None:
        self.path = path
        self.text = text
        self.workflow = workflow
        self.pipeline = pipeline
        self._templates: dict[int, tuple[tuple[ir.Template, str], ...]] = {}
        self._data_refs: dict[int, tuple[tuple[ir.StepRef, str], ...]] = {}
        self._effects: dict[int, str | None] = {}

    @cached_property
    def textmap(self) -> TextMap:
        return TextMap(self.text)

    @cached_property
    def units(self) -> tuple[Unit, ...]:
        return tuple(units(self.workflow)) if self.workflow else ()

    @cached_property
    def steps(self) -> tuple[Unit, ...]:
        """Top-level steps only, in order."""
        return tuple(u for u in self.units if u.kind == "step")

    @cached_property
    def approval_steps(self) -> tuple[Unit, ...]:
        return tuple(u for u in self.steps if u.step.approval is not None)

    @cached_property
    def by_id(self) -> dict[str, list[Unit]]:
        """Every unit (sub-steps included) by id."""
        found: dict[str, list[Unit]] = {}
        for unit in self.units:
            found.setdefault(unit.id, []).append(unit)
        return found

    def templates(self, unit: Unit) -> tuple[tuple[ir.Template, str], ...]:
        """`walk.templates(unit)`, computed once per unit."""
        found = self._templates.get(id(unit))
        if found is None:
            found = self._templates[id(unit)] = tuple(templates(unit))
        return found

    def data_refs(self, unit: Unit) -> tuple[tuple[ir.StepRef, str], ...]:
        """`walk.data_refs(unit)`, computed once per unit."""
        found = self._data_refs.get(id(unit))
        if found is None:
            found = self._data_refs[id(unit)] = tuple(data_refs(unit))
        return found

    def side_effect(self, unit: Unit) -> str | None:
        """`effects.unit_side_effect(unit)`, computed once per unit."""
        if id(unit) not in self._effects:
            self._effects[id(unit)] = unit_side_effect(unit)
        return self._effects[id(unit)]

    @cached_property
    def arg_names(self) -> frozenset[str]:
        args = self.workflow.args if self.workflow else None
        return frozenset(a.name for a in args or ())

    def pipelines(self) -> tuple[tuple[ir.Pipeline, Unit | None], ...]:
        """Every parsed pipeline with the unit that runs it (None for a lone pipeline string)."""
        return self._pipelines

    @cached_property
    def _pipelines(self) -> tuple[tuple[ir.Pipeline, Unit | None], ...]:
        found: list[tuple[ir.Pipeline, Unit | None]] = [(self.pipeline, None)] if self.pipeline is not None else []
        for unit in self.units:
            action = unit.action
            if isinstance(action, ir.PipelineRun) and action.pipeline is not None:
                found.append((action.pipeline, unit))
        return tuple(found)

    @cached_property
    def step_refs(self) -> tuple[tuple[Unit, ir.StepRef, str], ...]:
        """Every step reference with the unit that evaluates it and its field."""
        found: list[tuple[Unit, ir.StepRef, str]] = []
        for unit in self.units:
            found.extend((unit, ref, "when") for ref in condition_refs(unit.when))
            found.extend((unit, ref, field) for ref, field in self.data_refs(unit))
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
