"""`lobster mcp`: serve the embedded tool call over MCP (stdio); imports the `mcp` package only here."""

from __future__ import annotations

import os
import sys
from pathlib import Path


def missing_extra() -> str:
    """What `lobster mcp` prints without the `mcp` extra: the install line that works for this copy."""
    from lobsterlang.extras import install_line

    return f"Error: lobster mcp needs the optional `mcp` extra; install it with: {install_line('mcp')}\n"


def mcp_main(workspace: str | None) -> int:
    """Serve until stdin closes; exit 2 (a usage error) when the `mcp` extra is not installed."""
    try:
        import mcp  # noqa: F401  (the server imports its parts lazily: check the package up front)
    except ImportError:
        sys.stderr.write(missing_extra())
        return 2
    from lobsterlang.interpret.mcp_server import serve

    serve(Path(workspace or os.getcwd()))
    return 0
