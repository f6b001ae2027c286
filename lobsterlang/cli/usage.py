"""Usage errors without click: one wording for bad workflow-file arguments, "did you mean", exit code 2."""

from __future__ import annotations

import os
import sys

from lobsterlang.compile import WORKFLOW_SUFFIXES
from lobsterlang.reading import special_kind

USAGE_EXIT = 2
EXTENSION_PROBLEM = "Workflow file must end in .lobster, .yaml, .yml, or .json"


def workflow_path_problem(path: str) -> str | None:
    """What keeps `path` from being read as one workflow file, in the words every subcommand uses; None if fine.
    A missing file names the workflow file beside it that it most likely meant (`cleanup.lobstr`)."""
    if os.path.isdir(path):
        return f"{path}: is a directory, not a workflow file"
    meant = None if os.path.exists(path) else nearest_workflow_file(path)
    if meant is not None:
        return f"{path}: no such file or directory. Did you mean '{meant}'?"
    if not path.lower().endswith(WORKFLOW_SUFFIXES):
        return f"{path}: {EXTENSION_PROBLEM}"
    if not os.path.exists(path):
        return f"{path}: no such file or directory"
    special = special_kind(path)
    if special is not None:
        return f"{path}: {special}, not a regular file"
    return None


_LISTED_AT_MOST = 2000
"""Entries of a directory read to find the file a missing path meant (a huge directory is not read whole)."""


def nearest_workflow_file(path: str) -> str | None:
    """The workflow file beside `path` whose name is closest to it (`dir/x.lobster`), or None."""
    import itertools

    folder, name = os.path.split(path)
    try:
        with os.scandir(folder or ".") as entries:
            names = [e.name for e in itertools.islice(entries, _LISTED_AT_MOST) if e.name.lower().endswith(WORKFLOW_SUFFIXES)]
    except OSError:
        return None
    by_stem: dict[str, str] = {}  # each name by its stem (a `.lobster` file first, when stems are alike)
    for candidate in sorted(names, key=lambda n: (not n.endswith(".lobster"), n)):
        by_stem.setdefault(os.path.splitext(candidate)[0], candidate)
    stem = os.path.splitext(name)[0]
    close = stem if stem in by_stem else closest_choice(stem, list(by_stem))
    return None if close is None else os.path.join(folder, by_stem[close])


def looks_like_a_file(word: str) -> bool:
    """A word meant as a file name rather than a pipeline: a path (`./x`, `flows/x`) or a name whose extension is
    close to a workflow file's (`cleanup.lobstr`, `x.ymal`)."""
    if any(c in word for c in "| \t\n'\"") or word.startswith("-"):
        return False
    if "/" in word or word.lower().endswith(WORKFLOW_SUFFIXES):
        return True
    from lobsterlang.suggest import closest

    extension = os.path.splitext(word)[1][1:].lower()
    return bool(extension) and closest(extension, [s.lstrip(".") for s in WORKFLOW_SUFFIXES]) is not None


def closest_choice(word: str, choices: list[str] | tuple[str, ...] | frozenset[str]) -> str | None:
    """The choice closest to `word`: by similarity, else within a typo's edit distance (`rnu` is `run` with two
    letters swapped); None when none is close."""
    import difflib

    from lobsterlang.suggest import closest

    close = difflib.get_close_matches(word, sorted(choices), n=1, cutoff=0.7)
    return close[0] if close else closest(word, choices)


def did_you_mean(word: str, choices: list[str] | tuple[str, ...] | frozenset[str]) -> str:
    """` Did you mean 'x'?` (click's wording) for the closest choice, or `` when none is close."""
    close = closest_choice(word, choices)
    return f" Did you mean '{close}'?" if close else ""


def print_usage_error(command: str, usage: str, message: str) -> int:
    """Print a usage error as click prints one (usage line, help hint, `Error: …`); returns 2."""
    sys.stderr.write(f"Usage: lobster {command} {usage}\nTry 'lobster {command} --help' for help.\n\nError: {message}\n")
    sys.stderr.flush()
    return USAGE_EXIT
