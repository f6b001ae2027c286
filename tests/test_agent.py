"""`openclaw.agent` against a stand-in `openclaw` CLI (LOBSTER_OPENCLAW_BIN)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from lobsterlang.compile import compile_pipeline
from lobsterlang.interpret.errors import CommandError
from lobsterlang.interpret.pipeline.runtime import RunContext, run_pipeline

FAKE = """#!{python}
import json, sys
args = sys.argv[1:]
message = args[args.index("--message") + 1]
if "fail" in message:
    sys.stderr.write("agent is down"); sys.exit(2)
if "text" in message:
    print("plain words"); sys.exit(0)
if "flood" in message:
    sys.stdout.write("x" * (11 * 1024 * 1024)); sys.exit(0)
print(json.dumps({{"argv": args}}))
"""


def run(text: str, items: list[Any], tmp_path: Path, binary: str | None = None) -> list[Any]:
    fake = tmp_path / "openclaw"
    fake.write_text(FAKE.format(python=sys.executable))
    fake.chmod(0o755)
    pipeline = compile_pipeline(text).ir
    assert pipeline is not None
    ctx = RunContext(env={"LOBSTER_OPENCLAW_BIN": binary or str(fake)}, cwd=str(tmp_path))
    return run_pipeline(pipeline, items, ctx).items


def test_agent_turn_with_input_items(tmp_path: Path) -> None:
    out = run("openclaw.agent --agent main --model m1 --timeout 30 --local --prompt 'Sum up'", [{"a": 1}, "b"], tmp_path)
    message = "Sum up\n\nPipeline input (JSONL):\n" + '{"a":1}\n"b"'
    assert out == [{"argv": ["agent", "--json", "--message", message, "--agent", "main", "--model", "m1", "--timeout", "30", "--local"]}]


def test_positional_text_and_session(tmp_path: Path) -> None:
    out = run("openclaw.agent --session-id s1 Draft a reply", [], tmp_path)
    assert out == [{"argv": ["agent", "--json", "--message", "Draft a reply", "--session-id", "s1"]}]


@pytest.mark.parametrize(
    "text, message",
    [("openclaw.agent --agent a", "openclaw.agent requires --prompt, --message, or positional text"),
     ("openclaw.agent --prompt hi", "openclaw.agent requires --agent, --session-key, or --session-id"),
     ("openclaw.agent --agent a --prompt hi --timeout 1.5", "openclaw.agent --timeout must be a non-negative integer in seconds"),
     ("openclaw.agent --agent a --prompt fail", "openclaw.agent failed: agent is down"),
     ("openclaw.agent --agent a --prompt text", "openclaw.agent expected JSON output from `openclaw agent --json`"),
     ("openclaw.agent --agent a --prompt flood", "openclaw.agent output exceeded 10485760 bytes")],
)
def test_agent_errors(text: str, message: str, tmp_path: Path) -> None:
    with pytest.raises(CommandError) as caught:
        run(text, [], tmp_path)
    assert caught.value.message == message


def test_missing_cli(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="could not find the OpenClaw CLI"):
        run("openclaw.agent --agent a --prompt hi", [], tmp_path, binary=str(tmp_path / "nope"))
