"""`lobster mcp`: serve the embedded tool call over MCP (stdio); imports the `mcp` package only here."""

from __future__ import annotations

import os
import sys
from pathlib import Path

MISSING_EXTRA = "Error: lobster mcp needs the optional `mcp` extra; install it with: pip install 'lobsterlang[mcp]'\n"


def mcp_main(workspace: str | None) -> int:
    """Serve until stdin closes; exit 2 (a usage error) when the `mcp` extra is not installed."""
    try:
        import mcp  # noqa: F401  (the server imports its parts lazily: check the package up front)
    except ImportError:
        sys.stderr.write(MISSING_EXTRA)
        return 2
    from lobsterlang.interpret.mcp_server import serve

    serve(Path(workspace or os.getcwd()))
    return 0
