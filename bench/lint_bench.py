"""Lint throughput on generated workflows, against yamllint on the same files: `python bench/lint_bench.py`.

Run it with the interpreter of the environment where lobsterlang is installed (it imports `corpus`
from this folder, like bench/run.py).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from corpus import write_corpus
from harness import best_of, best_of_each, load_note, one_core

from lobsterlang import ir
from lobsterlang.compile import compile_workflow
from lobsterlang.lint import Config, Source, lint_sources
from lobsterlang.lint.context import LintContext
from lobsterlang.lint.registry import all_rules
from lobsterlang.lint.rules.shellcheck import binary


def lint_all(sources: list[Source], config: Config) -> None:
    results = lint_sources(sources, config)
    assert all(r.workflow is not None for r in results)


def rules_only(compiled: list[tuple[str, str, ir.Workflow | None]]) -> None:
    """Every rule over IR compiled beforehand, in a fresh context per file (as `lint_sources` makes)."""
    checks = [r.check for r in all_rules().values() if r.check is not None]
    for path, text, workflow in compiled:
        ctx = LintContext(path, text, workflow=workflow)
        for check in checks:
            list(check(ctx))


def yamllint_all(texts: list[str]) -> None:
    from yamllint import linter  # type: ignore[import-untyped, unused-ignore]
    from yamllint.config import YamlLintConfig  # type: ignore[import-untyped, unused-ignore]

    config = YamlLintConfig("extends: default")
    for text in texts:
        list(linter.run(text, config))


def row(label: str, seconds: float, count: int) -> str:
    return f"| {label} | {count / seconds:,.0f} files/s | {seconds * 1000 / count:.2f} ms/file |"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--passes", type=int, default=3)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="lobster-lint-bench-") as tmp:
        paths = write_corpus(Path(tmp), args.files, args.steps)
        datas = [p.read_bytes() for p in paths]
    sources = [Source(f"wf-{i:04d}.lobster", d) for i, d in enumerate(datas)]
    texts = [d.decode("utf-8") for d in datas]
    compiled = [(s.path, t, compile_workflow(s.data, s.path).ir) for s, t in zip(sources, texts, strict=True)]
    no_sc = Config(shellcheck=False)
    lint_all(sources, no_sc)
    lint, rules, yaml = "lobster lint (compile + all rules, no shellcheck)", "lint rules only (IR already compiled)", "yamllint (default config)"
    with one_core():
        best = best_of_each(args.passes, {
            lint: lambda: lint_all(sources, no_sc),
            rules: lambda: rules_only(compiled),
            yaml: lambda: yamllint_all(texts),
        })
        figures = list(best.items())
        if binary():
            figures.insert(1, ("lobster lint with shellcheck (one batched run)", best_of(1, lambda: lint_all(sources, Config()))))
    print(f"{args.files} files x {args.steps} steps, one CPU, best of {args.passes} (the three take turns in each pass); {load_note()}")
    print("| what | throughput | per file |\n| --- | --- | --- |")
    for label, seconds in figures:
        print(row(label, seconds, args.files))
    print(f"yamllint / lobster lint: {best[yaml] / best[lint]:.1f}x; yamllint / lint rules only: {best[yaml] / best[rules]:.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
