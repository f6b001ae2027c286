"""`lobster mcp`: a real MCP client session over stdio runs a pipeline and answers its approval."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import ROOT

pytest.importorskip("mcp")


async def _session(workspace: Path) -> list[Any]:
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    params = StdioServerParameters(command=sys.executable, args=["-m", "lobsterlang", "mcp"], cwd=str(workspace),
                                   env={"LOBSTER_STATE_DIR": str(workspace / "state")})
    pipeline = "exec --json --shell 'cat items.json' | approve --prompt 'Archive?' | pick id"
    async with Client(params) as client:
        tools = [tool.name for tool in (await client.list_tools()).tools]
        halted = (await client.call_tool("lobster", {"action": "run", "pipeline": pipeline})).structured_content
        answer = {"action": "resume", "token": halted["requiresApproval"]["resumeToken"], "approve": True}
        done = await client.call_tool("lobster", answer)
        again = (await client.call_tool("lobster", answer)).structured_content
        escape = (await client.call_tool("lobster", {"action": "run", "pipeline": "exec echo", "cwd": "/"})).structured_content
    return [tools, halted, done, again, escape]


def test_mcp_session_runs_and_resumes(tmp_path: Path) -> None:
    (tmp_path / "items.json").write_text('[{"id": 1, "x": 0}, {"id": 2}]')
    tools, halted, done, again, escape = asyncio.run(_session(tmp_path))
    assert tools == ["lobster"]
    assert halted["status"] == "needs_approval" and halted["requiresApproval"]["prompt"] == "Archive?"
    assert done.structured_content["output"] == [{"id": 1}, {"id": 2}]
    assert json.loads(done.content[0].text) == done.structured_content
    assert again["error"] == {"type": "runtime_error", "message": "Pipeline resume state not found"}
    assert escape["error"]["message"] == "cwd must be a relative path"


def test_cli_paths_do_not_import_mcp() -> None:
    code = ("import sys; from lobsterlang.cli import main; main(['--version']); main(['compile', '--pipeline', 'json']);"
            "print('mcp' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.splitlines()[-1] == "False"


def test_mcp_without_the_extra_says_how_to_install_it(tmp_path: Path) -> None:
    blocker = tmp_path / "mcp"
    blocker.mkdir()
    (blocker / "__init__.py").write_text("raise ImportError(\"No module named 'mcp'\")\n", encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    done = subprocess.run([sys.executable, "-m", "lobsterlang", "mcp"], capture_output=True, text=True, env=env, stdin=subprocess.DEVNULL)
    assert done.returncode == 2
    line = f"{sys.executable} -m pip install -e '{ROOT}[mcp]'"  # this editable clone: the line that works here
    assert done.stderr == f"Error: lobster mcp needs the optional `mcp` extra; install it with: {line}\n"
