"""The tool call's runner process: `lobster` arguments arrive as a JSON list on stdin, so size and NUL bytes never hit argv."""

from __future__ import annotations

import json
import os
import sys


def main() -> int:
    """Read the argument list, give the steps an empty stdin, and run `lobster` with it."""
    argv = json.loads(sys.stdin.buffer.read())
    if not isinstance(argv, list) or not all(isinstance(word, str) for word in argv):
        sys.stderr.write("lobster tool runner: expected a JSON list of strings on stdin\n")
        return 2
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    from lobsterlang.cli import main as lobster

    return int(lobster(argv))


if __name__ == "__main__":
    sys.exit(main())
