"""Console examples in the docs show what the commands really print (tools/doc_examples.py)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from helpers import ROOT

from tools.doc_examples import PAGES, main, parse_blocks, process_page

PAGE = """\
Intro.

```console
$ cat w.lobster
steps:
  - id: a
    run: echo hi
$ lobster run w.lobster
stale
```

<!-- not-executed: needs the network -->
```console
$ lobster run 'exec --shell "curl https://example.com"'
whatever
```
"""


def test_a_page_with_stale_output_fails_the_check_and_write_fixes_it(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(PAGE, encoding="utf-8")
    assert process_page(page, write=False) == (1, 1, [f"{page}:4: the output shown differs from what the commands print"])
    process_page(page, write=True)
    fixed = page.read_text(encoding="utf-8")
    assert "$ lobster run w.lobster\nhi\n```" in fixed, fixed
    assert "whatever" in fixed, "a block marked not-executed is left alone"
    assert process_page(page, write=False)[2] == []


def test_the_skip_marker_must_be_right_before_the_block() -> None:
    blocks = parse_blocks("<!-- not-executed: x -->\n\n```console\n$ lobster version\n0\n```\n")
    assert blocks[0].skip_reason is None
    assert parse_blocks(PAGE)[1].skip_reason == "needs the network"


def test_every_console_example_in_the_docs_is_current(capsys: pytest.CaptureFixture[str]) -> None:
    assert ROOT / "README.md" in PAGES
    code = main(["--check"])
    out, err = capsys.readouterr()
    assert code == 0, err + "\nrun: python tools/doc_examples.py --write (and review the diff)"
    assert " 0 stale" in out


def test_shell_examples_with_a_prompt_are_console_blocks() -> None:
    """A `$ command` in a ```sh or ```text block would escape the check: the convention is ```console."""
    fence = re.compile(r"^```(\w*)\n(.*?)^```\n", re.M | re.S)
    escaped = [
        f"{page.relative_to(ROOT)}:{text.count(chr(10), 0, block.start()) + 1}"
        for page in PAGES
        for text in [page.read_text(encoding="utf-8")]
        for block in fence.finditer(text)
        if block[1] != "console" and re.search(r"^\$ ", block[2], re.M)
    ]
    assert escaped == [], "make these ```console blocks (or mark them <!-- not-executed: reason -->)"
