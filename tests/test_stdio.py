"""The `lobster` process with closed standard streams, and text holding lone surrogates: clear output, no traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

CLI = "import sys; from lobsterlang.cli import main; sys.exit(main())"


def lobster(*args: str, cwd: Path, close: int | None = None, stdin: str | None = None) -> subprocess.CompletedProcess[bytes]:
    """`lobster ARGS` as its own process; `close` names a standard stream (0, 1) the process starts without."""
    return subprocess.run([sys.executable, "-c", CLI, *args], cwd=cwd, capture_output=close != 1,
                          stderr=subprocess.PIPE if close == 1 else None, input=stdin.encode() if stdin else None,
                          preexec_fn=(lambda: os.close(close)) if close is not None else None, timeout=60, check=False)


def test_a_closed_stdout_is_reported_and_the_command_still_runs(tmp_path: Path) -> None:
    done = lobster("compile", "--pipeline", "exec echo hi", cwd=tmp_path, close=1)
    assert done.returncode == 0
    assert done.stderr.decode() == "lobster: standard output is closed; what this command prints is discarded\n"


def test_a_closed_stdin_reads_as_empty(tmp_path: Path) -> None:
    done = lobster("tool", cwd=tmp_path, close=0)
    assert done.returncode == 2 and b"Traceback" not in done.stderr
    assert b'"type": "parse_error"' in done.stdout


def test_lone_surrogates_print_as_node_writes_them(tmp_path: Path) -> None:
    (tmp_path / "s.json").write_text('["\\ud83dx", {"k": "a\\ude00"}]')
    table = lobster("exec --json --shell 'cat s.json' | table", cwd=tmp_path)
    assert table.returncode == 0, table.stderr
    assert table.stdout == "\ufffdx\n{\"k\":\"a\\ude00\"}\n".encode()
    as_json = lobster("exec --json --shell 'cat s.json'", cwd=tmp_path)
    assert as_json.stdout == b'[\n  "\\ud83dx",\n  {\n    "k": "a\\ude00"\n  }\n]\n'
