"""`lobster doctor`: a self-check that runs a tiny pipeline in tool mode and prints the result envelope."""

from __future__ import annotations

import sys

from lobsterlang import __version__

CHECK_PIPELINE = "exec --json --shell 'echo [1]'"


def doctor_main(notes: list[str]) -> int:
    """Print `{…, output:[{toolMode, protocolVersion, version, notes?}]}`, or a `doctor_error` envelope."""
    from lobsterlang.interpret.envelope import PROTOCOL_VERSION, error_envelope, ok_envelope
    from lobsterlang.interpret.errors import LobsterRunError
    from lobsterlang.interpret.pipeline.frontend import make_context, print_envelope
    from lobsterlang.interpret.pipeline.runtime import run_pipeline
    from lobsterlang.interpret.pipeline.session import compile_text

    try:
        result = run_pipeline(compile_text(CHECK_PIPELINE), [], make_context("tool"))
        if result.items != [1]:
            raise LobsterRunError(f"self-check expected [1], got {result.items!r}")
    except LobsterRunError as exc:
        print_envelope(sys.stdout, error_envelope("doctor_error", exc.message))
        return 1
    report = {"toolMode": True, "protocolVersion": PROTOCOL_VERSION, "version": __version__}
    if notes:
        report["notes"] = notes
    return print_envelope(sys.stdout, ok_envelope([report]))
