"""`lobster mcp`: an MCP server over stdio exposing the embedded tool call (run and resume) as the tool `lobster`."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from lobsterlang import __version__
from lobsterlang.interpret.toolcall import call_tool

TOOL_DESCRIPTION = """\
Run a Lobster pipeline (or workflow file) and answer its approval gates.
action "run": pipeline (text, or a .lobster file path), optional cwd (relative to the workspace),
argsJson (workflow args as a JSON string), timeoutMs (default 20000), maxStdoutBytes (default 512000).
action "resume": token or approvalId from a needs_approval result, and approve true|false
(or response for needs_input, or cancel true).
Returns the tool envelope: {protocolVersion, ok, status, output, requiresApproval, requiresInput} or {ok:false, error}."""

INSTRUCTIONS = "Lobster runs typed JSON pipelines. When a result has status needs_approval, show the prompt and items to the user, then call resume with approve true or false."


def build_server(workspace: Path) -> Any:
    """An `MCPServer` with the one tool `lobster`; calls run inside `workspace`."""
    from mcp.server.mcpserver import MCPServer

    server = MCPServer(name="lobster", instructions=INSTRUCTIONS, version=__version__)

    @server.tool(name="lobster", description=TOOL_DESCRIPTION)
    def lobster(
        action: Literal["run", "resume"],
        pipeline: str | None = None,
        argsJson: str | None = None,
        cwd: str | None = None,
        timeoutMs: int | None = None,
        maxStdoutBytes: int | None = None,
        token: str | None = None,
        approvalId: str | None = None,
        approve: bool | None = None,
        response: Any = None,
        cancel: bool | None = None,
    ) -> dict[str, Any]:
        given = {
            "action": action, "pipeline": pipeline, "argsJson": argsJson, "cwd": cwd, "timeoutMs": timeoutMs,
            "maxStdoutBytes": maxStdoutBytes, "token": token, "approvalId": approvalId, "approve": approve,
            "response": response, "cancel": cancel,
        }
        return call_tool({key: value for key, value in given.items() if value is not None}, workspace)

    return server


def serve(workspace: Path) -> None:
    """Serve over stdio until the client disconnects."""
    build_server(workspace).run("stdio")
