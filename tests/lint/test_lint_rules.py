"""Every rule fires on its bad fixture and not on its good one; clean workflows give no findings."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import ROOT, example_files

from lobsterlang.lint import Config, Source, all_rules, lint_source
from lobsterlang.lint.rules.shellcheck import binary

FIXTURES = Path(__file__).parent / "fixtures"
CLEAN = Path(__file__).parent / "clean"
FIXTURE_FILES = sorted(p for p in FIXTURES.rglob("*") if p.suffix in (".lobster", ".pipeline"))


def expected(path: Path) -> set[str]:
    first = path.read_text(encoding="utf-8").splitlines()[0]
    assert first.startswith("# expect:"), f"{path} must start with `# expect: CODES` (or `none`)"
    codes = first.removeprefix("# expect:").split()
    return set() if codes == ["none"] else set(codes)


REFERENCE_ONLY = ("L206", "L301", "L403")
"""Rules reported only for files written for the reference (`target = "reference"`)."""


def lint_fixture(path: Path) -> set[str]:
    rule_dir = path.parent.name
    config = Config(shellcheck=rule_dir == "L310", target="reference" if rule_dir in REFERENCE_ONLY else "lobsterlang")
    if path.suffix == ".pipeline":
        text = "\n".join(path.read_text(encoding="utf-8").splitlines()[1:])
        source = Source(str(path), text, pipeline=True)
    else:
        source = Source(str(path), path.read_bytes())
    return {d.code for d in lint_source(source, config).diagnostics}


@pytest.mark.parametrize("path", FIXTURE_FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_fixture_fires_exactly_the_expected_codes(path: Path) -> None:
    if path.parent.name == "L310" and binary() is None:
        pytest.skip("shellcheck is not installed")
    assert lint_fixture(path) == expected(path)


@pytest.mark.parametrize("code", sorted(all_rules()))
def test_every_rule_has_a_firing_and_a_quiet_fixture(code: str) -> None:
    bad, good = FIXTURES / code / "bad.lobster", FIXTURES / code / "good.lobster"
    assert code in expected(bad), f"{bad} must expect {code}"
    assert code not in expected(good), f"{good} must not expect {code}"


@pytest.mark.parametrize("code", sorted(all_rules()))
def test_every_rule_has_a_docs_page(code: str) -> None:
    page = (ROOT / "docs" / "rules" / f"{code}.md").read_text(encoding="utf-8")
    assert page.startswith(f"# {code} `{all_rules()[code].name}`")
    for heading in ("## What it finds", "## Why it matters", "## Bad", "## Good"):
        assert heading in page, f"docs/rules/{code}.md lacks {heading}"


def test_rule_docs_are_up_to_date() -> None:
    from tools.gen_rule_docs import page

    for code in all_rules():
        assert (ROOT / "docs" / "rules" / f"{code}.md").read_text(encoding="utf-8") == page(code), "run tools/gen_rule_docs.py"


def test_rule_codes_and_names_are_unique_and_well_formed() -> None:
    rules = all_rules()
    names = [r.name for r in rules.values()]
    assert len(names) == len(set(names))
    for code, rule in rules.items():
        assert code[0] == "L" and len(code) == 4 and code[1:].isdigit()
        assert rule.name == rule.name.lower() and " " not in rule.name


CLEAN_FILES = sorted([*CLEAN.glob("*.lobster*"), *(p for p in example_files() if p.suffix in (".lobster", ".json"))])


def test_there_are_at_least_thirty_clean_workflows() -> None:
    assert len(list(CLEAN.glob("[0-9]*.lobster*"))) >= 30


@pytest.mark.parametrize("path", CLEAN_FILES, ids=lambda p: p.name)
def test_clean_workflow_has_no_findings(path: Path) -> None:
    result = lint_source(Source(str(path), path.read_bytes()), Config(shellcheck=binary() is not None))
    assert [f"{d.span.line}:{d.span.col} {d.code} {d.message}" for d in result.diagnostics] == []


EDGE_CASES = sorted(
    p for p in (ROOT / "tests" / "cases" / "workflows").iterdir() if p.suffix in (".lobster", ".yaml", ".yml", ".json") and p.stem != "reference"
)


@pytest.mark.parametrize("path", EDGE_CASES, ids=lambda p: p.name)
def test_malformed_and_edge_case_files_lint_without_crashing(path: Path) -> None:
    result = lint_source(Source(str(path), path.read_bytes()), Config(shellcheck=False))
    for diag in result.diagnostics:
        assert 0 <= diag.span.start <= diag.span.end <= len(result.text), diag
