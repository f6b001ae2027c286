"""`email.triage`: sort emails into needs-reply / needs-action / FYI, by rules or (with `--llm`) through `llm.invoke`."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from lobsterlang.interpret.pipeline.args import StageArgs
from lobsterlang.interpret.pipeline.runtime import RunContext, StageOutput
from lobsterlang.interpret.pipeline.streams import close
from lobsterlang.interpret.values import UNDEFINED, js_string, stringify, to_number

NO_REPLY_MARKS = ("no-reply", "noreply", "do-not-reply", "donotreply")
PROVIDER_VARIABLES = ("LOBSTER_LLM_PROVIDER", "LOBSTER_PI_LLM_ADAPTER_URL", "LOBSTER_LLM_ADAPTER_URL")
_ANGLE_ADDRESS = re.compile(r"<([^>]+)>")
_BARE_ADDRESS = re.compile(r"[A-Z0-9._%+-]+@[A-Z0-9.-]+\.[A-Z]{2,}", re.IGNORECASE)
_RE_PREFIX = re.compile(r"re:\s*", re.IGNORECASE)
TRIAGE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "decisions": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "id": {"type": "string"},
                    "category": {"type": "string", "enum": ["needs_reply", "needs_action", "fyi"]},
                    "rationale": {"type": "string"},
                    "reply": {"type": "object", "properties": {"subject": {"type": "string"}, "body": {"type": "string"}},
                              "required": ["body"], "additionalProperties": False},
                },
                "required": ["id", "category"],
                "additionalProperties": False,
            },
        },
    },
    "required": ["decisions"],
    "additionalProperties": False,
}


def _prop(raw: Any, *keys: str) -> Any:
    """The first of `keys` that the object has with a non-null value (JavaScript `a ?? b`)."""
    for key in keys:
        value = raw.get(key) if isinstance(raw, dict) else None
        if value is not None:
            return value
    return UNDEFINED


def _text(value: Any) -> str:
    return "" if value is UNDEFINED else js_string(value).strip()


def normalize_email(raw: Any) -> dict[str, Any]:
    """The fields triage looks at, from Gmail- or Outlook-shaped items."""
    email_id = _text(_prop(raw, "id", "messageId"))
    thread = _prop(raw, "threadId", "thread_id")
    labels = _prop(raw, "labels")
    return {
        "id": email_id, "threadId": (email_id if thread is UNDEFINED else _text(thread)) or email_id,
        "from": _text(_prop(raw, "from", "sender")), "subject": _text(_prop(raw, "subject")),
        "date": _text(_prop(raw, "date", "internalDate", "timestamp")), "snippet": _text(_prop(raw, "snippet", "bodyPreview")),
        "labels": [js_string(label) for label in labels] if isinstance(labels, list) else [],
    }


def is_no_reply(sender: str) -> bool:
    return any(mark in sender.lower() for mark in NO_REPLY_MARKS)


def email_address(sender: str) -> str:
    """`Name <a@b.c>` → `a@b.c`; else the first address-looking word; else nothing."""
    angle = _ANGLE_ADDRESS.search(sender)
    if angle:
        return angle.group(1).strip()
    bare = _BARE_ADDRESS.search(sender)
    return bare.group(0).strip() if bare else ""


def reply_subject(subject: str) -> str:
    subject = subject.strip()
    return subject if _RE_PREFIX.match(subject) else (f"Re: {subject}" if subject else "Re:")


def rule_category(email: dict[str, Any]) -> str:
    subject = email["subject"].lower()
    if "action required" in subject or "urgent" in subject:
        return "needsAction"
    if any(label.upper() == "UNREAD" for label in email["labels"]) and not is_no_reply(email["from"]):
        return "needsReply"
    return "fyi"


def summary_line(buckets: dict[str, list[str]]) -> str:
    return f"{len(buckets['needsReply'])} need replies, {len(buckets['needsAction'])} need action, {len(buckets['fyi'])} FYI"


def rule_report(emails: list[dict[str, Any]]) -> dict[str, Any]:
    buckets: dict[str, list[str]] = {"needsReply": [], "needsAction": [], "fyi": []}
    for email in emails:
        buckets[rule_category(email)].append(email["id"])
    return {"summary": summary_line(buckets), "buckets": buckets, "emails": emails, "mode": "deterministic"}


def read_emails(input: Iterator[Any], limit: float) -> list[dict[str, Any]]:
    """At most `limit` emails (at least one is read, as the reference does); the rest is not pulled."""
    emails: list[dict[str, Any]] = []
    for item in input:
        emails.append(normalize_email(item))
        if len(emails) >= limit:
            break
    close(input)
    return emails


def run_email_triage(input: Iterator[Any], args: StageArgs, ctx: RunContext) -> StageOutput:
    given = args.get("limit")
    emails = read_emails(input, to_number(20 if given is None else given))
    emit = js_string(args.get("emit") or "report").strip() or "report"
    has_provider = any(ctx.env.get(v, "").strip() for v in PROVIDER_VARIABLES) or (ctx.env.get("OPENCLAW_URL") or ctx.env.get("CLAWD_URL") or "").strip()
    if not args.truthy("llm") or not has_provider:
        return StageOutput([] if emit == "drafts" else [rule_report(emails)])
    from lobsterlang.interpret.pipeline.commands.triage_llm import llm_triage

    return StageOutput(llm_triage(emails, emit, args, ctx))


def triage_prompt(emails: list[dict[str, Any]]) -> str:
    """Instructions for the model: one decision per email, and a short plain-text reply where one is needed."""
    brief = [{k: e[k] for k in ("id", "from", "subject", "date", "snippet", "labels")} for e in emails]
    return (
        "Triage these emails. For each one decide a category: needs_reply (a person is waiting for an answer), "
        "needs_action (something must be done, e.g. a deadline or an urgent request) or fyi (nothing to do).\n"
        "For needs_reply, add a reply: a brief, polite, plain-text body (no markdown) and optionally a subject.\n"
        "Automated senders (no-reply addresses) get no reply; call them fyi unless they clearly ask for action.\n"
        "Answer with JSON matching the output schema: {\"decisions\": [{\"id\", \"category\", \"rationale\"?, \"reply\"?}]}.\n\n"
        "Emails:\n" + stringify(brief)
    )

