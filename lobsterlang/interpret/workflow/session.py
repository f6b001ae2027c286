"""Halting and resuming: resume state (the IR at the gate, step records, args), tokens and approval ids."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from lobsterlang import ir
from lobsterlang.digits import whole_number
from lobsterlang.interpret import gatestate
from lobsterlang.interpret.envelope import Envelope, needs_approval_envelope, needs_input_envelope, with_pending
from lobsterlang.interpret.errors import StateIntegrityError
from lobsterlang.interpret.state import StateStore, now_iso
from lobsterlang.interpret.tokens import WORKFLOW_KIND
from lobsterlang.interpret.values import stringify, to_json_data
from lobsterlang.interpret.workflow.context import Answer, Frame
from lobsterlang.interpret.workflow.engine import Halt
from lobsterlang.interpret.workflow.errors import WorkflowError
from lobsterlang.interpret.workflow.recorddigest import is_reference, reference, resolve
from lobsterlang.syntax.source import read_source

if TYPE_CHECKING:
    from lobsterlang.interpret.workflow.journal import EventJournal
    from lobsterlang.interpret.workflow.runlog import RunLog

STATE_PREFIX = "workflow_resume"
RECORDS = "records"
"""The `lobsterlang` section's key for the step records when the journal holds them (in place of `steps`)."""
NESTED = "nested"
"""The `lobsterlang` section's key for a gate inside a step: `{step, path, key, leaf, kept, record, stage, …}`."""
PIPELINE_INPUT = "pipeline_command"
"""`inputKind` of a gate inside a `pipeline:` step (an `ask` stage): the step itself continues on resume."""
DEFAULT_ENVELOPE_BYTES = 512000
MIN_ENVELOPE_BYTES = 1024
SUBJECT_BYTES = 192000
PREVIEW_CHARS = 2000


def file_digest(path: str) -> str | None:
    """SHA-256 of the file's bytes, read as the loader reads them (None when it cannot be read)."""
    try:
        return hashlib.sha256(read_source(path)).hexdigest()
    except OSError:
        return None


@dataclass
class RunInfo:
    """What a resume needs beyond the reference's fields: the IR, the file's digest, the run id."""

    run_id: str
    digest: str | None
    raw_args: bool
    superseded: tuple[str, ...] = ()


@dataclass(frozen=True)
class Journaled:
    """What of a halt's records the run's journal holds as they are: references to store instead of the records."""

    records: dict[str, Any] | None = None
    """The step records' reference (None: stored inline)."""
    kept: dict[str, Any] | None = None
    """The reference to the records made inside the step a nested gate is in (None: stored inline)."""

    @classmethod
    def of(cls, frame: Frame, halt: Halt, journal: EventJournal | None) -> Journaled:
        """Digest the records once per halt (every gate of a group names the same ones)."""
        if journal is None:
            return cls()
        kept = halt.kept or {}
        return cls(reference(frame.results, journal.written_results()) if frame.results else None,
                   reference(kept, journal.written_branches()) if halt.nested is not None and kept else None)


def halt_state(frame: Frame, halt: Halt, info: RunInfo, children: Mapping[str, ir.Workflow] | None = None,
               group: list[dict[str, str]] | None = None, journaled: Journaled = Journaled()) -> dict[str, Any]:
    """The resume state written at a gate (the reference's fields plus a `lobsterlang` section); the step records, and
    those made inside the step a nested gate is in, are named by digest where `journaled` has a reference."""
    from lobsterlang.ir_codec import to_json

    state: dict[str, Any] = {"filePath": frame.path, "resumeAtIndex": halt.resume_index}
    if journaled.records is None:
        state["steps"] = to_json_data(frame.results)
    state["args"] = to_json_data(frame.args)
    if halt.stage is not None and not halt.is_input:  # an `approve` stage: the items that reached it continue
        state.update(approvalStepId=halt.step.id, approvalIdentity=to_json_data(halt.identity),
                     pipelineApproval={"resumeAtIndex": halt.stage, "items": to_json_data(halt.request.get("items", []))})
    elif halt.stage is not None:  # inside a `pipeline:` step, as the reference writes it
        state.update(inputStepId=halt.step.id, inputKind=PIPELINE_INPUT, inputSchema=halt.request.get("responseSchema"),
                     inputSubject=halt.request.get("subject"), pipelineInput={"resumeAtIndex": halt.stage})
    elif halt.is_input:
        spec = gate_step(halt).input  # None: an `ask` inside the nested gate step's pipeline
        schema = spec.response_schema if spec is not None else halt.request.get("responseSchema")
        state.update(inputStepId=halt.gate_id, inputSchema=schema, inputSubject=halt.request.get("subject"))
    else:
        state.update(approvalStepId=halt.gate_id, approvalIdentity=to_json_data(halt.identity))
    state["supersededResumeStateKeys"] = list(info.superseded)
    state["createdAt"] = now_iso()
    state["lobsterlang"] = {
        "ir": to_json(frame.workflow), "fileSha256": info.digest, "runId": info.run_id, "rawArgs": info.raw_args,
        "cost": frame.spend,
    }
    if journaled.records is not None:
        state["lobsterlang"][RECORDS] = journaled.records
    if halt.nested is not None:
        state["lobsterlang"][NESTED] = to_json_data({
            "step": halt.step.id, "path": list(halt.nested.path), "key": halt.nested.key, "leaf": halt.nested.step.id,
            "kept": journaled.kept or halt.kept or {}, "record": halt.nested.record,
            "workflows": {path: to_json(child) for path, child in (children or {}).items()},
            "digests": {path: file_digest(path) for path in children or {}},
            "shown": shown_request(halt), "group": group or [], "stage": halt.nested.stage,
        })
    return state


def gate_step(halt: Halt) -> ir.Step:
    """The step that is the gate: the halted step, or the one inside it."""
    return halt.nested.step if halt.nested is not None else halt.step


def shown_request(halt: Halt) -> dict[str, Any]:
    """What the caller is shown: the gate's request, with its `path` when it is inside a step."""
    request = to_json_data(halt.request)
    if halt.nested is not None:
        request = {**request, "path": halt.gate_id}
    return request  # type: ignore[no-any-return]


def envelope_limit(env: Mapping[str, str]) -> int:
    """LOBSTER_MAX_TOOL_ENVELOPE_BYTES (default 512000; values under 1024 mean the default)."""
    value = whole_number(env.get("LOBSTER_MAX_TOOL_ENVELOPE_BYTES", "").strip())
    return value if value is not None and value >= MIN_ENVELOPE_BYTES else DEFAULT_ENVELOPE_BYTES


def _size(value: Any) -> int:
    return len(stringify(value).encode("utf-8", "surrogatepass"))


def bounded_input_envelope(step_id: str, request: dict[str, Any], token: str, limit: int) -> Envelope:
    """The needs_input envelope, its subject shortened when the whole would exceed `limit` bytes."""
    envelope = needs_input_envelope(request, token)
    if _size(envelope) <= limit:
        return envelope
    subject = request.get("subject")
    size = _size(subject)
    if size > SUBJECT_BYTES:
        preview = stringify(subject)[:PREVIEW_CHARS]
        envelope = needs_input_envelope({**request, "subject": {"truncated": True, "bytes": size, "preview": preview}}, token)
    if _size(envelope) > limit:
        omitted = {"truncated": True, "bytes": size, "preview": "[subject omitted: envelope size limit]"}
        envelope = needs_input_envelope({**request, "subject": omitted}, token)
    if _size(envelope) > limit:
        raise WorkflowError(f"Workflow input step {step_id} needs_input envelope exceeds {limit} bytes even after subject truncation")
    return envelope


@dataclass
class Issued:
    """A halt made durable: the envelope to hand back, the state key and when the gate expires."""

    envelope: Envelope
    key: str
    expires_at: str


def save_halt(store: StateStore, frame: Frame, halt: Halt, info: RunInfo, journaled: Journaled,
              children: Mapping[str, ir.Workflow] | None = None, key: str | None = None,
              group: list[dict[str, str]] | None = None) -> Issued:
    """Write the sealed state, issue the signed token (and approval id) and build the envelope; `journaled`: the
    records the run's journal holds (the state names them); `children`: the sub-workflows the run loaded (stored with
    a gate inside a step: the resume runs them as they were); `key` and `group`: the gate is one of several pending at
    once (`{path, key, stateKey}` each)."""
    limit = envelope_limit(frame.base_env)
    approval = gate_step(halt).approval
    ttl = gatestate.approval_ttl(frame.base_env, gate_expiry(approval.value) if approval is not None else None)
    signer = gatestate.signer_for(store)
    key = key or store.new_state_key(STATE_PREFIX)
    state = halt_state(frame, halt, info, children, group, journaled)
    request = shown_request(halt)
    bound = gatestate.binding(WORKFLOW_KIND, key, info.run_id, halt.gate_id, state["lobsterlang"]["ir"], request, ttl)
    token, approval_id = gatestate.issue(store, signer, key, state, bound, approval=not halt.is_input)
    expires_at = gatestate.iso(bound["exp"])
    if halt.is_input:
        try:
            return Issued(bounded_input_envelope(halt.gate_id, request, token, limit), key, expires_at)
        except WorkflowError:
            store.delete(key)
            raise
    return Issued(needs_approval_envelope(request, token, approval_id), key, expires_at)


def save_halts(store: StateStore, frame: Frame, halt: Halt, info: RunInfo, journal: EventJournal | None,
               children: Mapping[str, ir.Workflow] | None = None) -> tuple[Envelope, list[Issued]]:
    """Make a halt durable: one gate, or every gate of a group (parallel branches), each with its own sealed state,
    token and approval id; the envelope shows the first and, for a group, lists them all (`pendingGates`)."""
    journaled = Journaled.of(frame, halt, journal)
    if len(halt.group) <= 1:
        issued = save_halt(store, frame, halt, info, journaled, children)
        return issued.envelope, [issued]
    keys = [store.new_state_key(STATE_PREFIX) for _ in halt.group]
    group = [{"path": " > ".join(g.path), "key": g.key, "stateKey": k} for g, k in zip(halt.group, keys, strict=True)]
    made = [save_halt(store, frame, replace(halt, nested=g, request=g.request, identity=g.identity), info, journaled,
                      children, key, group) for g, key in zip(halt.group, keys, strict=True)]
    return with_pending([m.envelope for m in made]), made


def gate_expiry(value: Any) -> Any:
    """The `expires_in` of an `approval:` mapping (None when absent)."""
    return value.get("expires_in") if isinstance(value, dict) else None


@dataclass
class Stored:
    """A resume state read back: the IR to run and where to continue."""

    workflow: ir.Workflow
    path: str
    index: int
    results: dict[str, Any]
    args: dict[str, Any]
    state: dict[str, Any]
    children: dict[str, ir.Workflow] = field(default_factory=dict)
    """The sub-workflows stored with a gate inside a step, by canonical path: the resume runs them as they were."""

    @property
    def extra(self) -> dict[str, Any]:
        value = self.state.get("lobsterlang")
        return value if isinstance(value, dict) else {}

    @property
    def gate_id(self) -> str | None:
        key = self.state.get("inputStepId") or self.state.get("approvalStepId")
        return key if isinstance(key, str) else None

    @property
    def nested(self) -> dict[str, Any] | None:
        """The gate inside the step at `index` the run halted at (`{step, path, key, leaf, kept, record}`), if any."""
        value = self.extra.get(NESTED)
        return value if isinstance(value, dict) else None

    def nested_answers(self) -> dict[str, Answer]:
        """The answers given at an `ask` or `approve` stage inside the step at `index` (by branch key): those pipelines
        continue after it."""
        given = (self.nested or {}).get("answers")
        return {key: answer for key, value in (given or {}).items() if (answer := Answer.decoded(value)) is not None}

    @property
    def approved_items(self) -> list[Any]:
        """The items that reached the `approve` stage the run halted at: the pipeline continues with them."""
        section = self.state.get("pipelineApproval")
        items = section.get("items") if isinstance(section, dict) else None
        return items if isinstance(items, list) else []

    @property
    def pipeline_stage(self) -> int | None:
        """The stage of the gate step's pipeline that asked or awaits approval, when the gate is inside a `pipeline:`
        step."""
        if self.state.get("inputKind") == PIPELINE_INPUT:
            section = self.state.get("pipelineInput")
        elif "approvalStepId" in self.state:
            section = self.state.get("pipelineApproval")
        else:
            return None
        stage = section.get("resumeAtIndex") if isinstance(section, dict) else None
        return stage if isinstance(stage, int) and not isinstance(stage, bool) and stage >= 0 else None


def read_state(state: Any) -> Stored:
    """Check a verified state and decode its IR; `Invalid workflow resume state` otherwise.

    State without a `lobsterlang` section was written by the reference CLI (and accepted
    unsigned by the caller): its workflow is compiled from the file it names.
    """
    from lobsterlang.ir_codec import from_json

    if not isinstance(state, dict):
        raise WorkflowError("Invalid workflow resume state")
    try:
        section = state.get("lobsterlang")
        workflow = from_json(section["ir"]) if isinstance(section, dict) else _reference_workflow(state)
        journaled = is_reference(section.get(RECORDS)) if isinstance(section, dict) else False
        steps = {} if journaled and "steps" not in state else state["steps"]
        stored = Stored(workflow, str(state["filePath"]), int(state["resumeAtIndex"]), dict(steps), dict(state["args"]),
                        state)
    except (KeyError, TypeError, ValueError):
        raise WorkflowError("Invalid workflow resume state") from None
    if not isinstance(workflow, ir.Workflow) or not _gate_at(workflow, stored):
        raise WorkflowError("Invalid workflow resume state")
    stored.children = _children(stored.nested)
    return stored


def take_journaled(stored: Stored, key: str, log: RunLog | None, shadow: RunLog | None) -> None:
    """Put in the records the state names in the run's journal (`log`, and `shadow`: its digests): the step records,
    and those made inside the step a nested gate is in; `StateIntegrityError` when the journal is gone or its copy is
    not the one the gate was issued with."""
    records = stored.extra.get(RECORDS)
    if is_reference(records) and "steps" not in stored.state:
        stored.results = _journaled(records, key, log.results if log else None, shadow.results if shadow else None)
    nested = stored.nested
    if nested is not None and is_reference(nested.get("kept")):
        nested["kept"] = _journaled(nested["kept"], key, log.branches if log else None, shadow.branches if shadow else None)


def _journaled(ref: Any, key: str, records: dict[str, Any] | None, digests: dict[str, Any] | None) -> dict[str, Any]:
    found = resolve(ref, records, digests) if records is not None and digests is not None else None
    if found is None:
        raise StateIntegrityError(f"Resume state {key} keeps its step records in the run's journal, which is gone or "
                                  "was modified; nothing ran")
    return found


def _children(nested: dict[str, Any] | None) -> dict[str, ir.Workflow]:
    """The sub-workflows stored with a gate inside a step, by canonical path (`Invalid workflow resume state` when
    one cannot be decoded)."""
    from lobsterlang.ir_codec import from_json

    stored = (nested or {}).get("workflows")
    children = {}
    for path, value in (stored.items() if isinstance(stored, dict) else ()):
        try:
            child = from_json(value)
        except (KeyError, TypeError, ValueError):
            child = None
        if not isinstance(child, ir.Workflow):
            raise WorkflowError("Invalid workflow resume state")
        children[str(path)] = child
    return children


def _reference_workflow(state: dict[str, Any]) -> ir.Workflow:
    from lobsterlang.interpret.workflow.loader import load_workflow

    path = state.get("filePath")
    if not isinstance(path, str):
        raise ValueError("no filePath")
    return load_workflow(path)[0]


def _gate_at(workflow: ir.Workflow, stored: Stored) -> bool:
    """The gate the state names is the step before `resumeAtIndex`, or (inside a `pipeline:` step) the step at it,
    with the stage that asked (the file may have changed under reference state); a gate inside a step is in the step
    at `resumeAtIndex`, named by its path."""
    nested = stored.nested
    if nested is not None:
        step = workflow.steps[stored.index] if 0 <= stored.index < len(workflow.steps) else None
        path = nested.get("path")
        return (step is not None and step.id == nested.get("step") and isinstance(path, list)
                and stored.gate_id == " > ".join(map(str, path)) and isinstance(nested.get("key"), str)
                and isinstance(nested.get("kept"), dict))
    if stored.state.get("inputKind") == PIPELINE_INPUT or "pipelineApproval" in stored.state:
        step = workflow.steps[stored.index] if 0 <= stored.index < len(workflow.steps) else None
        action = step.action if step is not None else None
        stage = stored.pipeline_stage
        return (step is not None and step.id == stored.gate_id and isinstance(action, ir.PipelineRun) and stage is not None
                and (action.pipeline is None or stage < len(action.pipeline.stages)))
    index = stored.index - 1
    return 0 <= index < len(workflow.steps) and workflow.steps[index].id == stored.gate_id
