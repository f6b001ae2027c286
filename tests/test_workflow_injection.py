"""Args never become code: hostile values reach `run:`, `env:` and `pipeline:` as data, byte for byte."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from lobsterlang.cli import main

CORPUS = [
    "plain",
    "a b  c",
    "",
    "it's",
    'say "hi"',
    "back\\slash\\",
    "$(touch {canary})",
    "`touch {canary}`",
    "; touch {canary}",
    "| touch {canary}",
    "&& touch {canary} &",
    "line1\ntouch {canary}\nline3",
    "'; touch {canary}; '",
    '"; touch {canary}; "',
    "\"'$(touch {canary})'\"",
    "${{HOME}} $HOME ~ *",
    "$secret.stdout",
    "${{v}}",
    "$((1+1)) $$ $? $0",
    "'\"'\"'",
    "-n",
    "%s %d \\n",
    "EOF\ntouch {canary}\nEOF",
    "tab\there\r\n",
    "ünïcödé ☃ 😀",
    "'",
    '"',
    "\\",
]

WORKFLOW = """\
args:
  v: {{default: ""}}
steps:
  - id: secret
    run: printf s3cr3t
  - id: unquoted
    run: printf '%s' ${{v}} > "$OUT/unquoted"
  - id: double
    run: printf '%s' "${{v}}" > "$OUT/double"
  - id: single
    run: printf '%s' '${{v}}' > "$OUT/single"
  - id: mixed
    run: printf '%s' "<${{v}}>"'<${{v}}>'x${{v}}y > "$OUT/mixed"
  - id: subshell
    run: printf '%s' "$(printf '%s' "${{v}}")" > "$OUT/subshell"
  - id: heredoc
    run: |
      cat > "$OUT/heredoc" <<EOF
      ${{v}}
      EOF
  - id: env_value
    env: {{V: "${{v}}"}}
    run: printf '%s' "$V" > "$OUT/env_value"
  - id: env_arg_var
    env: {{V: "$LOBSTER_ARG_V"}}
    run: printf '%s' "$V" > "$OUT/env_arg_var"
  - id: pipeline
    pipeline: exec --json=true {python} {helper} ${{v}} x${{v}}y
"""

HELPER = "import json, sys\nprint(json.dumps(sys.argv[1:]))\n"


@pytest.mark.parametrize("template", CORPUS, ids=range(len(CORPUS)))
def test_hostile_args_are_data(template: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    canary = tmp_path / "canary"
    value = template.format(canary=canary)
    helper = tmp_path / "argv.py"
    helper.write_text(HELPER, encoding="utf-8")
    path = tmp_path / "wf.lobster"
    path.write_text(WORKFLOW.format(python=sys.executable, helper=helper), encoding="utf-8")
    out = tmp_path / "out"
    out.mkdir()
    monkeypatch.setenv("LOBSTER_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("OUT", str(out))
    code = main(["run", "--mode", "tool", "--file", str(path), "--args-json", json.dumps({"v": value})])
    envelope = json.loads(capsys.readouterr().out)
    assert code == 0, envelope
    assert not canary.exists()
    for step in ("unquoted", "double", "single", "env_value", "env_arg_var"):
        assert (out / step).read_bytes() == value.encode(), step
    assert (out / "subshell").read_bytes() == value.rstrip("\n").encode()  # $(...) drops trailing newlines
    assert (out / "mixed").read_bytes() == f"<{value}><{value}>x{value}y".encode()
    assert (out / "heredoc").read_bytes() == (value + "\n").encode()
    assert envelope["output"] == [value, f"x{value}y"]
