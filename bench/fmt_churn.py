"""Formatter churn: how much of each file `lobster fmt` changes, against prettier on the same files.

    python bench/fmt_churn.py                          # bench/fmt_corpus and the examples
    python bench/fmt_churn.py DIR_OR_FILE ...          # other workflow files (.lobster/.yaml/.yml)
    python bench/fmt_churn.py --extra DIR ...          # the default corpus, then each DIR as its own corpus
    python bench/fmt_churn.py --prettier /path/to/node_modules/.bin/prettier
    python bench/fmt_churn.py --files                  # also list each changed file's churn
    python bench/fmt_churn.py --json out.json

For every file that compiles (the others are counted and skipped), three outputs are compared with
the file as written:
  fmt         `format_text`: what `lobster fmt` writes (keeps the author's layout choices)
  canonical   text written from the IR alone (`format_workflow`), as `--from-ir` and the builder
              write it, and as `lobster fmt` wrote every file before it kept layout choices
  prettier    `prettier --parser yaml` (skipped, with a message, when prettier is not found)
A file's churn is the share of its lines that a line diff changes (replaced, deleted or inserted
lines, whichever side is larger, over the file's line count). Reported per corpus and formatter:
files unchanged, median, 90th percentile and largest churn, and `tidy`: of the files prettier
leaves unchanged (already tidy), how many the formatter leaves unchanged too. Targets for fmt:
median <= 3 %, 90th percentile <= 10 %, at least half the tidy files unchanged.
"""

from __future__ import annotations

import argparse
import difflib
import json
import shutil
import statistics
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from lobsterlang.compile import compile_workflow
from lobsterlang.fmt import format_text, format_workflow

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_PATHS = (ROOT / "bench" / "fmt_corpus", ROOT / "examples")
SUFFIXES = (".lobster", ".yaml", ".yml")

Formatter = Callable[[str, str], str]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("paths", nargs="*", type=Path, help="files and directories (default: bench/fmt_corpus, examples)")
    parser.add_argument("--extra", type=Path, action="append", default=[], help="another corpus, reported on its own (repeatable)")
    parser.add_argument("--prettier", help="the prettier executable (default: `prettier` on PATH)")
    parser.add_argument("--files", action="store_true", help="list the churn of every file a formatter changes")
    parser.add_argument("--json", type=Path, help="also write the figures as JSON")
    args = parser.parse_args(argv)
    formatters: dict[str, Formatter] = {"fmt": format_text, "canonical": _canonical}
    prettier = args.prettier or shutil.which("prettier")
    if prettier and Path(prettier).exists():
        formatters["prettier"] = _prettier(prettier)
    else:
        print("prettier not found (give --prettier PATH, e.g. after `npm install prettier` in a scratch folder): skipped")
    corpora = [("default corpus" if not args.paths else "given files", args.paths or list(DEFAULT_PATHS))]
    corpora += [(str(extra), [extra]) for extra in args.extra]
    report = [_corpus(name, paths, formatters, args.files) for name, paths in corpora]
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n")
    return 0


def _corpus(name: str, paths: list[Path], formatters: dict[str, Formatter], list_files: bool) -> dict[str, object]:
    """Measure and print one corpus; returns its figures."""
    found = _files(paths)
    files = [f for f in found if compile_workflow(f.read_bytes(), str(f)).ok]
    churns = {label: [_churn(f, fmt) for f in files] for label, fmt in formatters.items()}
    tidy = [i for i, c in enumerate(churns.get("prettier", [])) if c == 0]
    figures = {label: {**_figures(values), "tidy": _tidy(values, tidy)} for label, values in churns.items()}
    print(f"\n{name}: {len(files)} workflow files ({len(found) - len(files)} more do not compile: skipped)")
    print(f"{'formatter':<10} {'unchanged':>10} {'median':>8} {'p90':>8} {'max':>8} {'tidy':>10}")
    for label, row in figures.items():
        unchanged = f"{row['unchanged']}/{row['files']}"
        print(f"{label:<10} {unchanged:>10} {row['median']:>7.1f}% {row['p90']:>7.1f}% {row['max']:>7.1f}% {row['tidy']:>10}")
    if list_files:
        for index, path in enumerate(files):
            changed = {label: values[index] for label, values in churns.items() if label != "canonical" and values[index]}
            if changed:
                print(f"  {path}: " + ", ".join(f"{label} {value:.1f}%" for label, value in changed.items()))
    return {"corpus": name, "files": [str(f) for f in files], "skipped": len(found) - len(files), "figures": figures}


def _tidy(churns: list[float], tidy: list[int]) -> str:
    """Of the files prettier leaves unchanged, how many these churns leave unchanged ("-" without prettier)."""
    return f"{sum(1 for i in tidy if churns[i] == 0)}/{len(tidy)}" if tidy else "-"


def _files(paths: list[Path]) -> list[Path]:
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found.extend(sorted(p for p in path.rglob("*") if p.suffix in SUFFIXES and p.is_file()))
        elif path.is_file():
            found.append(path)
    return found


def _canonical(text: str, path: str) -> str:
    result = compile_workflow(text, path)
    assert result.ir is not None
    return format_workflow(result.ir)


def _prettier(executable: str) -> Formatter:
    def run(text: str, path: str) -> str:
        done = subprocess.run([executable, "--parser", "yaml"], input=text, capture_output=True, text=True, timeout=60, check=False)
        return done.stdout if done.returncode == 0 else text
    return run


def _churn(path: Path, formatter: Formatter) -> float:
    """The percentage of the file's lines that formatting changes."""
    text = path.read_text(encoding="utf-8")
    before, after = text.splitlines(), formatter(text, str(path)).splitlines()
    changed = sum(
        max(i2 - i1, j2 - j1) for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, before, after, autojunk=False).get_opcodes() if tag != "equal"
    )
    return 100.0 * changed / max(1, len(before))


def _figures(churns: list[float]) -> dict[str, float]:
    ordered = sorted(churns)
    p90 = ordered[max(0, -(-len(ordered) * 9 // 10) - 1)] if ordered else 0.0  # nearest rank
    return {
        "files": len(ordered),
        "unchanged": sum(1 for c in ordered if c == 0),
        "median": statistics.median(ordered) if ordered else 0.0,
        "p90": p90,
        "max": ordered[-1] if ordered else 0.0,
    }


if __name__ == "__main__":
    sys.exit(main())
