"""Run the console examples in the docs and check (--check) or rewrite (--write) the output they show.

Convention, in docs/*.md and README.md: a ```console block holds commands (lines starting with `$ `),
each followed by what it prints (stdout and stderr, merged). All blocks of one page run in order in one
scratch directory holding a copy of examples/, with a fixed state directory, HOME and terminal width.
`$ cat FILE` of a file that does not exist there creates FILE from the lines shown (that is how a page
shows the file it works on). `[..]` in a shown line matches any text (a token, an id, a time). A block
that cannot run here (network, an LLM, a program the docs do not ship) has `<!-- not-executed: reason -->`
on the line before it.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGES = (*sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "docs" / "commands").glob("*.md")), ROOT / "README.md")
FENCE = re.compile(r"^```console\n(?P<body>.*?)^```\n", re.M | re.S)
SKIP = re.compile(r"<!-- not-executed: (?P<reason>[^>]+?) -->\n$")
CAT = re.compile(r"^cat ([\w./-]+)$")
TIMEOUT_S = 60


@dataclass
class Example:
    """One `$ command` and the output the page shows for it."""

    command: str
    shown: list[str] = field(default_factory=list)


@dataclass
class Block:
    """One console block: where it is in the page, its examples, and why it is not run (if so)."""

    start: int
    end: int
    examples: list[Example]
    skip_reason: str | None


def parse_blocks(text: str) -> list[Block]:
    """Every ```console block of a page."""
    blocks = []
    for match in FENCE.finditer(text):
        examples: list[Example] = []
        for line in match["body"].splitlines():
            if line.startswith("$ "):
                examples.append(Example(line[2:]))
            elif examples:
                examples[-1].shown.append(line)
        skip = SKIP.search(text, 0, match.start())
        reason = skip["reason"] if skip and skip.end() == match.start() else None
        blocks.append(Block(match.start("body"), match.end("body"), examples, reason))
    return blocks


def without_outputs(text: str) -> str:
    """A page with the output lines of its console blocks left out (what a generator writes before they run)."""
    return FENCE.sub(lambda m: "```console\n" + "".join(ln + "\n" for ln in m["body"].splitlines() if ln.startswith("$ ")) + "```\n",
                     text)


def with_outputs_of(shown: str, generated: str) -> str:
    """`generated` (a page without outputs) with the outputs `shown` gives for the same commands, where it has them."""
    outputs = {tuple(ex.command for ex in block.examples): block for block in parse_blocks(shown)}
    blocks = parse_blocks(generated)
    for block in sorted(blocks, key=lambda b: b.start, reverse=True):
        old = outputs.get(tuple(ex.command for ex in block.examples))
        if old is not None:
            generated = generated[:block.start] + shown[old.start:old.end] + generated[block.end:]
    return generated


def _environment(scratch: Path) -> dict[str, str]:
    bin_dir = str(Path(sys.executable).parent)
    keep = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "SYSTEMROOT")}
    return {
        **keep, "PATH": bin_dir + os.pathsep + keep.get("PATH", ""), "HOME": str(scratch / "home"),
        "LOBSTER_STATE_DIR": str(scratch / "state"), "COLUMNS": "80", "NO_COLOR": "1", "TZ": "UTC",
        "LC_ALL": "C.UTF-8",
    }


def run_example(example: Example, scratch: Path, last_code: int) -> tuple[list[str], int]:
    """The output lines of one command run in `scratch` (the previous exit code is `$?`), and its exit code."""
    cat = CAT.match(example.command)
    if cat and not (scratch / cat[1]).exists():
        (scratch / cat[1]).parent.mkdir(parents=True, exist_ok=True)
        (scratch / cat[1]).write_text("".join(line + "\n" for line in example.shown), encoding="utf-8")
    proc = subprocess.run(
        ["bash", "-c", f"(exit {last_code}); {example.command}"], cwd=scratch, env=_environment(scratch),
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, text=True, timeout=TIMEOUT_S,
    )
    output = proc.stdout.replace(str(scratch) + os.sep, "").replace(str(scratch), ".")
    return [line.rstrip() for line in output.splitlines()], proc.returncode


def _line_matches(shown: str, actual: str) -> bool:
    if "[..]" not in shown:
        return shown == actual
    return re.fullmatch(".*".join(re.escape(part) for part in shown.split("[..]")), actual) is not None


def merge(shown: list[str], actual: list[str]) -> list[str]:
    """The output to show: the shown lines where they match (keeping their `[..]`), else what was printed."""
    if len(shown) == len(actual) and all(_line_matches(s, a) for s, a in zip(shown, actual, strict=True)):
        return shown
    return actual


def render(block: Block, outputs: list[list[str]]) -> str:
    """The block's body with each command followed by the output it really printed."""
    return "".join(f"$ {ex.command}\n" + "".join(line + "\n" for line in out) for ex, out in zip(block.examples, outputs, strict=True))


def process_page(path: Path, write: bool) -> tuple[int, int, list[str]]:
    """Run a page's blocks: (executed, marked not-executed, problems); with `write`, fix the page's output."""
    text = path.read_text(encoding="utf-8")
    blocks = parse_blocks(text)
    executed = skipped = 0
    problems: list[str] = []
    replacements: list[tuple[Block, str]] = []
    with tempfile.TemporaryDirectory(prefix="lobster-docs-") as tmp:
        scratch = Path(tmp).resolve()
        shutil.copytree(ROOT / "examples", scratch / "examples")
        (scratch / "home").mkdir()
        for block in blocks:
            if block.skip_reason is not None:
                skipped += 1
                continue
            executed += 1
            code = 0
            outputs = []
            for example in block.examples:
                lines, code = run_example(example, scratch, code)
                outputs.append(merge(example.shown, lines))
            body = render(block, outputs)
            if body != text[block.start:block.end]:
                line_no = text.count("\n", 0, block.start) + 1
                shown_path = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
                problems.append(f"{shown_path}:{line_no}: the output shown differs from what the commands print")
                replacements.append((block, body))
    if write and replacements:
        for block, body in sorted(replacements, key=lambda r: r[0].start, reverse=True):
            text = text[:block.start] + body + text[block.end:]
        path.write_text(text, encoding="utf-8")
    return executed, skipped, problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true", help="exit 1 if any shown output is stale")
    mode.add_argument("--write", action="store_true", help="rewrite the shown output with what the commands print")
    parser.add_argument("pages", nargs="*", type=Path, help="pages to process (default: docs/*.md and README.md)")
    args = parser.parse_args(argv)
    pages = [p.resolve() for p in args.pages] or list(PAGES)
    executed = skipped = 0
    problems: list[str] = []
    for page in pages:
        ran, marked, found = process_page(page, write=args.write)
        executed, skipped, problems = executed + ran, skipped + marked, problems + found
    for problem in problems:
        print(problem, file=sys.stderr)
    verb = "rewrote" if args.write else "stale"
    print(f"{executed} console blocks executed, {skipped} marked not-executed, {len(problems)} {verb}.")
    return 1 if problems and args.check else 0


if __name__ == "__main__":
    sys.exit(main())
