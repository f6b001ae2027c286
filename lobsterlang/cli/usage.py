"""Usage errors without click: one wording for bad workflow-file arguments, "did you mean", exit code 2."""

from __future__ import annotations

import os
import sys

from lobsterlang.compile import WORKFLOW_SUFFIXES
from lobsterlang.reading import special_kind

USAGE_EXIT = 2
EXTENSION_PROBLEM = "Workflow file must end in .lobster, .yaml, .yml, or .json"


def workflow_path_problem(path: str) -> str | None:
    """What keeps `path` from being read as one workflow file, in the words every subcommand uses; None if fine."""
    if os.path.isdir(path):
        return f"{path}: is a directory, not a workflow file"
    if not path.lower().endswith(WORKFLOW_SUFFIXES):
        return f"{path}: {EXTENSION_PROBLEM}"
    if not os.path.exists(path):
        return f"{path}: no such file or directory"
    special = special_kind(path)
    if special is not None:
        return f"{path}: {special}, not a regular file"
    return None


def did_you_mean(word: str, choices: list[str] | tuple[str, ...] | frozenset[str]) -> str:
    """` Did you mean 'x'?` (click's wording) for the closest choice, or `` when none is close."""
    import difflib

    close = difflib.get_close_matches(word, sorted(choices), n=1, cutoff=0.7)
    return f" Did you mean '{close[0]}'?" if close else ""


def print_usage_error(command: str, usage: str, message: str) -> int:
    """Print a usage error as click prints one (usage line, help hint, `Error: …`); returns 2."""
    sys.stderr.write(f"Usage: lobster {command} {usage}\nTry 'lobster {command} --help' for help.\n\nError: {message}\n")
    sys.stderr.flush()
    return USAGE_EXIT
