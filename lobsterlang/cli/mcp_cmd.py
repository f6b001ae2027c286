"""`lobster mcp`: serve the embedded tool call over MCP (stdio); imports the `mcp` package only here."""

from __future__ import annotations

import os
import sys
from pathlib import Path


def mcp_main(workspace: str | None) -> int:
    try:
        from lobsterlang.interpret.mcp_server import serve
    except ImportError:
        sys.stderr.write("Error: lobster mcp needs the mcp package (pip install mcp)\n")
        return 1
    serve(Path(workspace or os.getcwd()))
    return 0
