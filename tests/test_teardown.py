"""A lone CLI pipeline run leaves its sort/groupBy buffers to the process's exit: same output, same exit code."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lobsterlang.interpret.pipeline.teardown import ending_the_process, let_go

WHOLE_PROCESS = (
    "import os, sys\n"
    "from lobsterlang.cli import main\n"
    "real_exit = os._exit\n"
    "def noted_exit(code):\n"
    "    sys.stderr.write(f'<hard exit {code}>')\n"
    "    sys.stderr.flush()\n"
    "    real_exit(code)\n"
    "os._exit = noted_exit\n"
    "sys.exit(main())\n"
)
"""`lobster` itself (main() without argv), with a note on stderr when it ends through `os._exit`."""
RETURNING = "import sys; from lobsterlang.cli import main; sys.exit(main(sys.argv[1:]))"
"""The same run through main(argv), which always returns and exits the usual way."""

BIG = json.dumps([{"id": i, "n": (i * 37) % 1000, "kind": f"k{i % 7}"} for i in range(20_000)])


def _run(code: str, argv: list[str], folder: Path) -> tuple[int, str, str]:
    env = {**os.environ, "LOBSTER_STATE_DIR": str(folder / "state")}
    proc = subprocess.run([sys.executable, "-c", code, *argv], cwd=folder, env=env, capture_output=True, text=True, timeout=120)
    return proc.returncode, proc.stdout, proc.stderr


@pytest.mark.parametrize(
    ("argv", "exit_code"),
    [
        (["exec --json --shell 'cat big.json' | sort --key n --desc"], 0),  # ~2 MB of output through a pipe: all of it flushed
        (["run", "--mode", "tool", "exec --json --shell 'cat big.json' | groupBy --key kind | pick key,count"], 0),
        (["--max-output-bytes", "8000000", "exec --json --shell 'cat big.json' | sort --key n | head --n 3"], 0),
        (["exec --json --shell 'cat big.json' | sort --key n | exec --shell 'echo oops >&2; exit 3'"], 1),
        (["run", "--mode", "tool", "exec --json --shell 'cat big.json' | groupBy --key kind | exec --shell 'exit 2'"], 1),
    ],
)
def test_the_exit_after_kept_buffers_prints_and_returns_what_the_run_did(argv: list[str], exit_code: int, tmp_path: Path) -> None:
    (tmp_path / "big.json").write_text(BIG, encoding="utf-8")
    code, out, err = _run(WHOLE_PROCESS, argv, tmp_path)
    expected = _run(RETURNING, argv, tmp_path)
    assert err.endswith(f"<hard exit {exit_code}>")  # the buffers were kept and the process ended at once
    assert (code, out, err.removesuffix(f"<hard exit {exit_code}>")) == expected
    assert code == exit_code


def test_a_run_that_keeps_nothing_exits_the_usual_way(tmp_path: Path) -> None:
    code, out, err = _run(WHOLE_PROCESS, ["exec --json --shell 'echo [3,1]' | where 'n>0'"], tmp_path)
    assert (code, json.loads(out), err) == (0, [], "")


def test_a_workflow_file_frees_its_buffers_as_it_goes(tmp_path: Path) -> None:
    (tmp_path / "big.json").write_text(BIG, encoding="utf-8")
    (tmp_path / "flow.lobster").write_text("steps:\n  - id: s\n    pipeline: exec --json --shell 'cat big.json' | sort --key n | head --n 1\n", encoding="utf-8")
    code, _, err = _run(WHOLE_PROCESS, ["run", "--mode", "tool", "flow.lobster"], tmp_path)
    assert code == 0 and "<hard exit" not in err


def test_an_exit_handler_makes_the_process_exit_the_usual_way(tmp_path: Path) -> None:
    script = (
        "import atexit, sys\n"
        "from lobsterlang.interpret.pipeline.teardown import exit_at_once\n"
        "atexit.register(lambda: print('handler ran'))\n"
        "exit_at_once(3)\n"
        "print('returned')\n"
        "sys.exit(5)\n"
    )
    code, out, _ = _run(script, [], tmp_path)
    assert (code, out) == (5, "returned\nhandler ran\n")


def test_exit_at_once_flushes_and_ends_with_the_code(tmp_path: Path) -> None:
    script = "import sys\nfrom lobsterlang.interpret.pipeline.teardown import exit_at_once\nsys.stdout.write('x' * 100000)\nexit_at_once(4)\nprint('returned')\n"
    code, out, _ = _run(script, [], tmp_path)
    assert (code, out) == (4, "x" * 100000)


def test_buffers_are_freed_at_once_outside_a_lone_run_and_when_the_block_ends_without_exiting() -> None:
    first, second = [1, 2], [3]
    let_go(first, second)
    assert (first, second) == ([], [])
    kept = [1, 2]
    with ending_the_process() as finish:
        let_go(kept)
        assert kept == [1, 2]
    assert kept == []
    with ending_the_process() as finish:
        assert finish(7) == 7  # nothing kept: no reason to end the process here
