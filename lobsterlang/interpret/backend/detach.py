"""`lobster run FILE --detach`: journal the run in the Postgres backend, queue it for a worker, print its id."""

from __future__ import annotations

import json
import os

from lobsterlang.interpret.backend.handoff import queued_envelope
from lobsterlang.interpret.backend.postgres import connect
from lobsterlang.interpret.backend.worker import backend_url, enqueue
from lobsterlang.interpret.errors import LobsterRunError, UsageError
from lobsterlang.interpret.workflow.context import resolve_args
from lobsterlang.interpret.workflow.errors import WorkflowError
from lobsterlang.interpret.workflow.frontend import Console, parse_args_json
from lobsterlang.interpret.workflow.journal import event_line, new_run_id, start_event
from lobsterlang.interpret.workflow.loader import check_path, load_workflow
from lobsterlang.interpret.workflow.session import file_digest


def detach_file(path: str, args_json: str | None, mode: str, raw_args: bool, approval_ttl: str | None = None) -> int:
    """Queue the workflow file at `path`; prints the run id (tool mode: `{"ok": true, "status": "queued", "runId": …}`)."""
    console = Console("tool" if mode == "tool" else "human")
    try:
        if approval_ttl is not None:
            raise UsageError("run --detach: --approval-ttl does not travel to the worker; "
                             "set LOBSTER_APPROVAL_TTL in the workers' environment (or a step's expires_in)")
        run_id = _detach(path, args_json, raw_args)
    except (WorkflowError, LobsterRunError) as exc:
        return console.failed(exc)
    if console.tool:
        console.out.write(json.dumps(queued_envelope(run_id)) + "\n")
    else:
        console.out.write(run_id + "\n")
    return 0


def _detach(path: str, args_json: str | None, raw_args: bool) -> str:
    """Queue the file's run: its `start` event and its queue entry are written in one transaction."""
    url = backend_url(None, os.environ)
    given = parse_args_json(args_json)
    check_path(path)
    workflow, _ = load_workflow(path)
    connect(url).close()  # the lobster schema exists (and the URL works: a clear error otherwise)
    run_id = new_run_id()
    event = start_event(run_id, os.path.abspath(path), resolve_args(workflow, given), workflow, file_digest(path),
                        raw_args, detached=True)
    enqueue(url, run_id, os.getcwd(), lines=[event_line(event)])
    return run_id
