"""A small Python builder for workflow files: `Workflow(name).step(id, run=...)` → checked IR → canonical text."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from lobsterlang import ir
from lobsterlang.fmt.api import compiled, emit
from lobsterlang.record import replace
from lobsterlang.span import NO_SPAN


class Workflow:
    """Collects a workflow's keys; `to_ir()` compiles them (errors raise FormatError), `text()` formats them.

    Keys are the file's own keys, passed as keyword arguments (`for_each=`, `timeout_ms=`,
    `workflow_args=` ...); a `comment` becomes a `#` comment line above the step.
    """

    def __init__(self, name: str, *, description: str | None = None, header: str | None = None) -> None:
        self._doc: dict[str, Any] = {"name": name}
        if description is not None:
            self._doc["description"] = description
        self._comments: list[ir.Comment] = []
        if header is not None:
            self._comment(header, ())

    def arg(self, name: str, **decl: Any) -> Workflow:
        """Declare an argument: `arg("limit", default=20, description="...")`."""
        self._doc.setdefault("args", {})[name] = decl
        return self

    def env(self, **variables: str) -> Workflow:
        self._doc.setdefault("env", {}).update(variables)
        return self

    def set(self, key: str, value: Any) -> Workflow:
        """Any other top-level key, e.g. `set("cost_limit", {"max_usd": 2})`."""
        self._doc[key] = value
        return self

    def step(self, step_id: str, *, comment: str | None = None, **keys: Any) -> Workflow:
        """Add a step: `step("fetch", run="curl -fsS $URL", retry={"max": 3})`."""
        steps: list[dict[str, Any]] = self._doc.setdefault("steps", [])
        if comment is not None:
            self._comment(comment, ("steps", len(steps)))
        steps.append({"id": step_id, **keys})
        return self

    def to_ir(self) -> ir.Workflow:
        """The compiled workflow; FormatError (with diagnostics) when it is not valid."""
        workflow = compiled(json.dumps(self._doc), "<builder>.json")
        with_comments: ir.Workflow = replace(workflow, comments=tuple(self._comments))
        return with_comments

    def text(self) -> str:
        """The canonical .lobster text."""
        return emit(self.to_ir())

    def write(self, path: str | Path) -> Path:
        target = Path(path)
        target.write_text(self.text(), encoding="utf-8")
        return target

    def _comment(self, text: str, path: ir.CommentPath) -> None:
        for line in text.splitlines() or [""]:
            self._comments.append(ir.Comment(("# " + line).rstrip(), NO_SPAN, path, "before"))

