"""`lobster tool`: read one embedded tool request (JSON) on stdin, print its envelope."""

from __future__ import annotations

import json
import sys


def tool_main(workspace: str | None) -> int:
    """The envelope's exit code: 0 ok, 2 for a bad request or parse error, 1 otherwise."""
    from lobsterlang.interpret.envelope import error_envelope
    from lobsterlang.interpret.pipeline.frontend import print_envelope
    from lobsterlang.interpret.toolcall import call_tool
    from lobsterlang.syntax.source import limit_message, over_limit, read_source_stream

    data = read_source_stream()
    if over_limit(data):
        return print_envelope(sys.stdout, error_envelope("parse_error", limit_message("tool request")))
    try:
        request = json.loads(data)
    except (ValueError, UnicodeDecodeError):
        return print_envelope(sys.stdout, error_envelope("parse_error", "tool request must be valid JSON"))
    except RecursionError:
        return print_envelope(sys.stdout, error_envelope("parse_error", "tool request is nested too deeply"))
    return print_envelope(sys.stdout, call_tool(request, workspace))
