"""Approval and input gates: the request a halted run hands back, and the identity rules on resume."""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from typing import Any

from lobsterlang import ir
from lobsterlang.interpret.values import UNDEFINED, stringify
from lobsterlang.interpret.workflow.errors import WorkflowUsageError
from lobsterlang.interpret.workflow.refs import Record

PREVIEW_LIMIT = 2000
_YES = ("1", "true", "yes", "y")


def env_identity(env: Mapping[str, str]) -> dict[str, Any]:
    """Identity defaults from LOBSTER_APPROVAL_INITIATED_BY / _REQUIRED_APPROVER / _REQUIRE_DIFFERENT_APPROVER (trimmed; blank: unset)."""
    identity: dict[str, Any] = {}
    for key, var in (("initiatedBy", "LOBSTER_APPROVAL_INITIATED_BY"), ("requiredApprover", "LOBSTER_APPROVAL_REQUIRED_APPROVER")):
        if env.get(var, "").strip():
            identity[key] = env[var].strip()
    if env.get("LOBSTER_APPROVAL_REQUIRE_DIFFERENT_APPROVER", "").strip().lower() in _YES:
        identity["requireDifferentApprover"] = True
    return identity


def configured_identity(approval: ir.Approval, env: Mapping[str, str]) -> dict[str, Any]:
    """The step's identity fields (trimmed; blank: unset) over the environment's defaults."""
    identity = env_identity(env)
    for key, value in (("initiatedBy", approval.initiated_by), ("requiredApprover", approval.required_approver)):
        if value is not None and value.strip():
            identity[key] = value.strip()
    if approval.require_different_approver is not None:
        identity["requireDifferentApprover"] = approval.require_different_approver
    return identity


def approval_request(step: ir.Step, record: Record, env: Mapping[str, str]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The `approval_request` item and the identity policy.

    The step's output may supply what is shown (prompt, items, preview), as in the reference;
    the identity policy comes only from the workflow file and the host's environment, so
    identity keys in the output (`requiredApprover`, …) are ignored.
    """
    approval = step.approval
    assert approval is not None
    identity = configured_identity(approval, env)
    data = record.get("json", UNDEFINED)
    source = _output_request(data)
    if source is not None:
        request = {"type": "approval_request", "prompt": source["prompt"], "items": source.get("items", [])}
        if "preview" in source:
            request["preview"] = source["preview"]
    else:
        request = _configured_request(step, approval, record, data)
    return with_identity(request, identity), identity


def _output_request(data: Any) -> dict[str, Any] | None:
    if not isinstance(data, dict):
        return None
    nested = data.get("requiresApproval")
    if isinstance(nested, dict) and nested.get("prompt"):
        return nested
    return data if data.get("prompt") else None


def _configured_request(step: ir.Step, approval: ir.Approval, record: Record, data: Any) -> dict[str, Any]:
    items = approval.items if isinstance(approval.items, list) else (
        [] if data is UNDEFINED else data if isinstance(data, list) else [data])
    request: dict[str, Any] = {"type": "approval_request", "prompt": approval.prompt or f"Approve {step.id}?", "items": items}
    preview = approval.preview if approval.preview is not None else _preview(record, data)
    if preview is not None:
        request["preview"] = preview
    return request


def _preview(record: Record, data: Any) -> str | None:
    stdout = record.get("stdout")
    text = stdout if isinstance(stdout, str) and stdout else (None if data is UNDEFINED else stringify(data))
    return text.strip()[:PREVIEW_LIMIT] if text else None


def with_identity(request: dict[str, Any], identity: dict[str, Any]) -> dict[str, Any]:
    """`request` with the identity fields the approver is shown."""
    for key in ("initiatedBy", "requiredApprover"):
        if identity.get(key):
            request[key] = identity[key]
    if identity.get("requireDifferentApprover") is True:
        request["requireDifferentApprover"] = True
    return request


def approver_of(env: Mapping[str, str]) -> str | None:
    """Who approves: LOBSTER_APPROVAL_APPROVED_BY, trimmed (None when unset or blank)."""
    return env.get("LOBSTER_APPROVAL_APPROVED_BY", "").strip() or None


def identity_key(name: Any) -> str:
    """An identity as it is compared: NFKC-normalised, blanks trimmed, case-folded (`" BOT"` is `bot`); "" for none."""
    return unicodedata.normalize("NFKC", name).strip().casefold() if isinstance(name, str) else ""


def check_approver(step_id: str, identity: Mapping[str, Any], approver: str | None) -> None:
    """Enforce `requiredApprover` / `requireDifferentApprover` on normalised identities; WorkflowUsageError names the problem."""
    required, different = identity.get("requiredApprover"), identity.get("requireDifferentApprover") is True
    if not required and not different:
        return
    who = identity_key(approver)
    if not who:
        raise WorkflowUsageError(f"Workflow step {step_id} approval requires approver identity; set LOBSTER_APPROVAL_APPROVED_BY")
    if required and who != identity_key(required):
        raise WorkflowUsageError(f"Workflow step {step_id} approval requires approver '{required}', got '{approver}'")
    initiator = identity.get("initiatedBy")
    if different and identity_key(initiator) and who == identity_key(initiator):
        raise WorkflowUsageError(f"Workflow step {step_id} approval must be granted by someone other than '{initiator}'")


def input_subject(step: ir.Step, stdin: Any, previous: Record | None) -> Any:
    """An input's subject: its stdin when given, else the previous step's json, response or stdout, else null."""
    if step.stdin is not None:
        return None if stdin is UNDEFINED else stdin
    for key in ("json", "response", "stdout"):
        if previous is not None and key in previous:
            return previous[key]
    return None


def input_request(step: ir.Step, subject: Any) -> dict[str, Any]:
    """The `input_request` item (without its token)."""
    spec = step.input
    assert spec is not None
    request: dict[str, Any] = {"type": "input_request", "prompt": spec.prompt, "responseSchema": spec.response_schema}
    if spec.has_defaults:
        request["defaults"] = spec.defaults
    request["subject"] = subject
    return request


def check_response(step_id: str, schema: Any, response: Any) -> None:
    """Validate an input response; WorkflowUsageError with the Ajv-style message when it does not match."""
    from lobsterlang.interpret.schema_check import first_problem

    problem = first_problem(schema, response)
    if problem is not None:
        path, message = problem
        raise WorkflowUsageError(f"Workflow input step {step_id} response failed schema validation at {path or '/'}: {message}")
