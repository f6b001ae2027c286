"""The tool call's runner process: `lobster` arguments (and the host's signing key) arrive as JSON on stdin, never in argv or the environment."""

from __future__ import annotations

import json
import os
import sys


def main() -> int:
    """Read the arguments (and the host's signing key), give the steps an empty stdin, and run `lobster`."""
    given = json.loads(sys.stdin.buffer.read())
    argv, key = (given.get("argv"), given.get("signingKey")) if isinstance(given, dict) else (given, None)
    if not isinstance(argv, list) or not all(isinstance(word, str) for word in argv):
        sys.stderr.write('lobster tool runner: expected {"argv": [strings]} on stdin\n')
        return 2
    if isinstance(key, str):
        from lobsterlang.interpret import hostkey

        hostkey.hold(hostkey.parse(key))
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    from lobsterlang.cli import main as lobster

    return int(lobster(argv))


if __name__ == "__main__":
    sys.exit(main())
