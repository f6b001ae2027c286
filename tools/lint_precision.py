"""Compare `lobster lint` with a labelled corpus: `python tools/lint_precision.py [DIR] [--shellcheck] [--config FILE]`.

Each workflow (`*.lobster`, `*.lobster.json`, and under a directory given also `.yaml`/`.yml`/`.json` workflows, searched
recursively) has `NAME.expect` beside it listing the findings it should produce, one `LINE CODE [planted] [notes]` per
line; `#` starts a comment (a judged false finding is written as a comment that says why). `planted` marks a defect:
a deliberate one in the generated corpus, one found by reading in a collected one; recall is measured on those.
A label may name a severity (`12 L201 warning`): then only a finding of that severity matches it. A finding matches a
label of the same code and line; unmatched findings are false positives, unmatched labels are
misses. Prints total findings, findings per file, error-level false positives, precision, recall on planted
defects, and a table by code. shellcheck's findings (L310) and their labels count only with `--shellcheck`.
`--config` reads a lint configuration (`extra-commands` of a Lobster fork, `target`…) for the whole corpus.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

from lobsterlang.lint import Config, Source, lint_sources

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "lint" / "corpus_real"

Label = tuple[int, str, str]
"""A label's line, code and severity (empty: any severity)."""
SEVERITIES = ("error", "warning", "info")


def read_labels(path: Path, shellcheck: bool) -> tuple[Counter[Label], Counter[Label]]:
    """All labels of a workflow and its planted ones, as (line, code) counts (L310 only with `shellcheck`)."""
    every: Counter[Label] = Counter()
    planted: Counter[Label] = Counter()
    for row in path.read_text(encoding="utf-8").splitlines():
        fields = row.split()
        if not fields or fields[0].startswith("#") or (fields[1] == "L310" and not shellcheck):
            continue
        severity = next((f for f in fields[2:] if f in SEVERITIES), "")
        label = (int(fields[0]), fields[1], severity)
        every[label] += 1
        if "planted" in fields[2:]:
            planted[label] += 1
    return every, planted


class Tally:
    """Counts over the corpus, overall and by code."""

    def __init__(self) -> None:
        self.files = 0
        self.findings = 0
        self.true = 0
        self.error_fps: list[str] = []
        self.errors = 0
        self.planted = 0
        self.planted_found = 0
        self.by_code: dict[str, Counter[str]] = {}

    def code(self, code: str) -> Counter[str]:
        return self.by_code.setdefault(code, Counter())

    def add_file(self, path: Path, found: list[tuple[tuple[int, str], str, str]], expected: Counter[Label],
                 planted: Counter[Label]) -> list[str]:
        """Count one file; return its false positives and misses as lines to show. A finding matches a label of its
        line, code and severity, else one of its line and code that names no severity."""
        self.files += 1
        remaining = expected.copy()
        shown = []
        for (line, code), severity, message in found:
            self.findings += 1
            self.errors += severity == "error"
            self.code(code)["found"] += 1
            label = next((k for k in ((line, code, severity), (line, code, "")) if remaining[k] > 0), None)
            if label is not None:
                remaining[label] -= 1
                self.true += 1
                self.code(label[1])["true"] += 1
                continue
            self.code(code)["fp"] += 1
            shown.append(f"  FP   {path.name}:{line} {code} ({severity}) {message}")
            if severity == "error":
                self.error_fps.append(shown[-1])
        for label, count in planted.items():
            self.planted += count
            self.code(label[1])["planted"] += count
            hit = min(count, expected[label] - remaining[label])
            self.planted_found += hit
            self.code(label[1])["planted_found"] += hit
        for label, count in remaining.items():
            shown += [f"  MISS {path.name}:{label[0]} {label[1]}"] * count
            self.code(label[1])["missed"] += count
        return shown

    def report(self) -> str:
        precision = self.true / self.findings if self.findings else 1.0
        recall = self.planted_found / self.planted if self.planted else 1.0
        lines = [
            f"files: {self.files}",
            f"total findings: {self.findings}",
            f"findings per file: {self.findings / max(1, self.files):.2f}",
            f"error-level false positives: {len(self.error_fps)}",
            f"errors true: {self.errors - len(self.error_fps)}/{self.errors}",
            f"precision: {precision:.1%} ({self.true}/{self.findings})",
            f"recall on planted defects: {recall:.1%} ({self.planted_found}/{self.planted})",
            "",
            "| code | found | true | false pos. | missed | planted found |",
            "|---|---|---|---|---|---|",
        ]
        for code in sorted(self.by_code):
            c = self.by_code[code]
            lines.append(f"| {code} | {c['found']} | {c['true']} | {c['fp']} | {c['missed']} | {c['planted_found']}/{c['planted']} |")
        return "\n".join(lines) + "\n"


def config_for(target: str, shellcheck: bool, path: str | None) -> Config:
    """The configuration of `path` (defaults without), for `target`, with shellcheck on or off."""
    from lobsterlang.lint.config import load_config, with_overrides

    config = load_config(Path(path)) if path else Config()
    return with_overrides(config, None, None, shellcheck=shellcheck, target=target)


def workflows(corpus: Path) -> list[Path]:
    """The labelled workflows of a corpus: every file with an `.expect` beside it, in sorted order."""
    return sorted(p for p in corpus.rglob("*") if p.is_file() and not p.name.endswith((".expect", ".md"))
                  and p.with_name(p.name + ".expect").is_file())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("corpus", nargs="?", default=str(CORPUS))
    parser.add_argument("--target", default="lobsterlang", choices=["lobsterlang", "reference"])
    parser.add_argument("--shellcheck", action="store_true", help="count shellcheck's findings (L310) and their labels")
    parser.add_argument("--config", help="a lint configuration file for the whole corpus")
    parser.add_argument("-v", "--verbose", action="store_true", help="list every false positive and miss")
    args = parser.parse_args(argv)
    paths = workflows(Path(args.corpus))
    results = lint_sources([Source(str(p), p.read_bytes()) for p in paths], config_for(args.target, args.shellcheck, args.config))
    tally = Tally()
    details = []
    for path, result in zip(paths, results, strict=True):
        expected, planted = read_labels(path.with_name(path.name + ".expect"), args.shellcheck)
        found = [((d.span.line, d.code), d.severity.value, d.message) for d in result.diagnostics]
        details += tally.add_file(path, found, expected, planted)
    if args.verbose:
        sys.stdout.write("\n".join(details) + "\n\n")
    sys.stdout.write(tally.report())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
