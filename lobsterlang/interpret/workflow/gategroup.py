"""Several gates pending at once (parallel branches): each is answered with its own token; the run waits for all.

Each gate of a group has its own sealed resume state, naming the whole group (`{path, key, stateKey}` each). An
answer that leaves others pending is kept in a sealed answers document of the run, its gate's state is spent, and
the envelope lists the gates that remain (their tokens rebuilt from their own states); the last answer collects
them all and the run goes on. Rejecting any one cancels the run and spends every gate of the group.
"""

from __future__ import annotations

from typing import Any

from lobsterlang.interpret import gatestate
from lobsterlang.interpret.envelope import Envelope, needs_approval_envelope, needs_input_envelope, with_pending
from lobsterlang.interpret.errors import StateIntegrityError
from lobsterlang.interpret.state import StateStore
from lobsterlang.interpret.workflow.journal import EventJournal
from lobsterlang.interpret.workflow.session import Stored

ANSWERS_PREFIX = "workflow_answers"


def group_of(stored: Stored) -> list[dict[str, str]]:
    """The gates pending together with the one `stored` is for (empty when it is alone)."""
    group = (stored.nested or {}).get("group")
    if not isinstance(group, list) or len(group) < 2:
        return []
    return [g for g in group if isinstance(g, dict) and all(isinstance(g.get(k), str) for k in ("path", "key", "stateKey"))]


def answers_key(run_id: str) -> str:
    return f"{ANSWERS_PREFIX}_{run_id}"


def _state_keys(group: list[dict[str, str]]) -> list[str]:
    return [g["stateKey"] for g in group]


def read_answers(store: StateStore, run_id: str, group: list[dict[str, str]]) -> dict[str, Any]:
    """The answers given so far, by state key (`{key, record}` each); `StateIntegrityError` when the document was
    modified or belongs to other gates."""
    document = store.read(answers_key(run_id))
    if document is None:
        return {}
    signer = gatestate.signer_for(store)
    if (not signer.is_sealed(document) or document.get("run") != run_id or document.get("group") != _state_keys(group)
            or not isinstance(document.get("answers"), dict)):
        raise StateIntegrityError(f"The answers kept for the gates of run {run_id} were modified or belong to other "
                                  "gates; nothing ran")
    return dict(document["answers"])


def answer(store: StateStore, stored: Stored, run_id: str, journal: EventJournal) -> Envelope | None:
    """Keep the answer `stored.nested["kept"]` now holds for its gate. While other gates of the group are pending, the
    answer is stored, the journal waits at the rest and their envelope is returned; once all are answered, every
    answer joins the kept records and None is returned (the run goes on)."""
    nested = stored.nested or {}
    group = group_of(stored)
    kept = nested["kept"]
    answers = read_answers(store, run_id, group)
    me = next(g for g in group if g["path"] == stored.gate_id)
    key = nested["key"]
    answers[me["stateKey"]] = {"key": key, "record": kept.get(key), "answer": (nested.get("answers") or {}).get(key)}
    remaining = [g for g in group if g["stateKey"] not in answers]
    if remaining:
        sealed = {"run": run_id, "group": _state_keys(group), "answers": answers}
        store.write(answers_key(run_id), gatestate.signer_for(store).seal(sealed))
        journal.halted(stored.index, remaining[0]["path"], remaining[0]["stateKey"], None,
                       [{"step": g["path"], "stateKey": g["stateKey"]} for g in remaining])
        return pending_envelope(store, remaining)
    for given in answers.values():
        if isinstance(given.get("record"), dict):
            kept[given["key"]] = given["record"]
        if isinstance(given.get("answer"), dict):  # an `ask` inside the branch: its pipeline continues after it
            nested.setdefault("answers", {})[given["key"]] = given["answer"]
    store.delete(answers_key(run_id))
    return None


def pending_envelope(store: StateStore, remaining: list[dict[str, str]]) -> Envelope:
    """The envelope of the gates that remain: each one's request and token, as it was issued."""
    envelopes = [_issued_envelope(store, g["stateKey"]) for g in remaining]
    return with_pending(envelopes) if len(envelopes) > 1 else envelopes[0]


def _issued_envelope(store: StateStore, key: str) -> Envelope:
    state = store.read(key)
    signer = gatestate.signer_for(store)
    section = state.get(gatestate.SECTION) if isinstance(state, dict) and signer.is_sealed(state) else None
    bound = section.get(gatestate.BINDING) if isinstance(section, dict) else None
    shown = (section.get("nested") or {}).get("shown") if isinstance(section, dict) else None
    if not isinstance(bound, dict) or not isinstance(shown, dict):
        raise StateIntegrityError(f"Resume state {key} of a pending gate is missing or was modified; nothing ran")
    token = gatestate.token_for(signer, bound)
    if "inputStepId" in state:
        return needs_input_envelope(shown, token)
    return needs_approval_envelope(shown, token, bound.get("approvalId"))


def forget_group(store: StateStore, stored: Stored, run_id: str) -> None:
    """A rejection or a cancellation: every gate of the group is spent, and the answers kept so far are dropped."""
    for key in _state_keys(group_of(stored)):
        store.delete(key)
        store.delete_approval_ids(key)
    store.delete(answers_key(run_id))
