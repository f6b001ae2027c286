"""`email.triage --llm`: decisions and reply drafts from `llm.invoke`, turned into the triage report or drafts."""

from __future__ import annotations

from typing import Any

from lobsterlang.interpret.pipeline.args import FlagValue, StageArgs
from lobsterlang.interpret.pipeline.commands.llm import LLM_INVOKE, invoke_llm
from lobsterlang.interpret.pipeline.commands.triage import (
    TRIAGE_SCHEMA,
    email_address,
    is_no_reply,
    reply_subject,
    summary_line,
    triage_prompt,
)
from lobsterlang.interpret.pipeline.runtime import RunContext
from lobsterlang.interpret.values import UNDEFINED, js_string, stringify, truthy

BUCKETS = {"needs_reply": "needsReply", "needs_action": "needsAction"}


def llm_args(emails: list[dict[str, Any]], args: StageArgs, ctx: RunContext) -> StageArgs:
    """The `llm.invoke` flags for a triage call (unset ones left out)."""
    model = js_string(args.get("model") or "").strip()
    flags: dict[str, FlagValue | None] = {
        "url": args.get("url"), "token": args.get("token"), "model": model or None, "prompt": triage_prompt(emails),
        "output-schema": stringify(TRIAGE_SCHEMA), "schema-version": "email_triage.v1", "temperature": args.get("temperature"),
        "max-output-tokens": args.get("max-output-tokens"), "state-key": args.get("state-key") or ctx.env.get("LOBSTER_RUN_STATE_KEY"),
    }
    return StageArgs([], {key: value for key, value in flags.items() if value is not None})


def decision(raw: Any) -> dict[str, Any]:
    get = raw.get if isinstance(raw, dict) else (lambda key: None)
    reply = get("reply")
    shaped: dict[str, Any] = {
        "id": "" if get("id") is None else js_string(get("id")).strip(),
        "category": "fyi" if get("category") is None else js_string(get("category")),
        "rationale": js_string(get("rationale")) if truthy(get("rationale")) else UNDEFINED,
        "reply": UNDEFINED,
    }
    if isinstance(reply, (dict, list)):
        fields = reply if isinstance(reply, dict) else {}
        shaped["reply"] = {"subject": fields.get("subject", UNDEFINED), "body": "" if fields.get("body") is None else js_string(fields["body"])}
    return shaped


def llm_triage(emails: list[dict[str, Any]], emit: str, args: StageArgs, ctx: RunContext) -> list[Any]:
    items = invoke_llm(LLM_INVOKE, iter(emails), llm_args(emails, args, ctx), ctx)
    output = items[0].get("output") if items and isinstance(items[0], dict) else None
    data = output.get("data") if isinstance(output, dict) else None
    raw = data.get("decisions") if isinstance(data, dict) else None
    decisions = [d for d in map(decision, raw if isinstance(raw, list) else []) if d["id"]]
    buckets: dict[str, list[str]] = {"needsReply": [], "needsAction": [], "fyi": []}
    for made in decisions:
        buckets[BUCKETS.get(made["category"], "fyi")].append(made["id"])
    drafts = reply_drafts(decisions, {email["id"]: email for email in emails})
    if emit == "drafts":
        return [{"to": d["to"], "subject": d["subject"], "body": d["body"], "emailId": d["emailId"]} for d in drafts]
    return [{"summary": summary_line(buckets), "buckets": buckets, "emails": emails, "decisions": decisions, "drafts": drafts, "mode": "llm"}]


def reply_drafts(decisions: list[dict[str, Any]], by_id: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """A draft for each needs_reply decision with a reply body, to a sender that accepts replies."""
    drafts = []
    for made in decisions:
        reply = made["reply"]
        if made["category"] != "needs_reply" or reply is UNDEFINED or not reply["body"]:
            continue
        email = by_id.get(made["id"])
        to = email_address(email["from"]) if email else ""
        if to and not is_no_reply(email["from"] if email else ""):
            subject = js_string(reply["subject"]) if truthy(reply["subject"]) else reply_subject(email["subject"] if email else "")
            drafts.append({"emailId": made["id"], "to": to, "subject": subject, "body": reply["body"]})
    return drafts
