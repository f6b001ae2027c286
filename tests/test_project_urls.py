"""The project's public URLs agree: pyproject's [project.urls], mkdocs.yml, the schemas' $id, the README's links."""

from __future__ import annotations

import json
import re
from pathlib import Path

import yaml
from helpers import ROOT

from lobsterlang.config_file import read_toml

URLS: dict[str, str] = read_toml(ROOT / "pyproject.toml")["project"]["urls"]
SITE = URLS["Documentation"]
SOURCE = URLS["Source"]
SCHEMAS = (ROOT / "grammar" / "lobster-workflow.schema.json", ROOT / "docs" / "ir.schema.json")
_LINK = re.compile(r"\[[^\]]*\]\((?P<target>[^)\s]+)\)")


def _mkdocs_config() -> dict[str, object]:
    text = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    config: dict[str, object] = yaml.load(text, Loader=yaml.BaseLoader)
    return config


def _docs_page(url: str) -> Path:
    """The docs/ source of a site URL (`…/lint/` → docs/lint.md, `…/` → docs/index.md)."""
    page = url.removeprefix(SITE).split("#", 1)[0].rstrip("/")
    if page.startswith("schema/"):
        return next(s for s in SCHEMAS if s.name == page.removeprefix("schema/"))
    return ROOT / "docs" / f"{page or 'index'}.md"


def test_pyproject_names_documentation_source_issues_and_changelog() -> None:
    assert set(URLS) == {"Documentation", "Source", "Issues", "Changelog"}
    assert all(url.startswith("https://") for url in URLS.values()), URLS
    assert URLS["Issues"] == f"{SOURCE}/issues"
    assert _docs_page(URLS["Changelog"]) == ROOT / "docs" / "changelog.md"
    assert '--8<-- "CHANGELOG.md"' in (ROOT / "docs" / "changelog.md").read_text(encoding="utf-8")


def test_mkdocs_site_and_repository_are_the_package_urls() -> None:
    config = _mkdocs_config()
    assert config["site_url"] == SITE
    assert config["repo_url"] == SOURCE


def test_each_schema_id_is_where_the_site_publishes_it() -> None:
    for schema in SCHEMAS:
        schema_id = json.loads(schema.read_text(encoding="utf-8"))["$id"]
        assert schema_id == f"{SITE}schema/{schema.name}", schema
        assert _docs_page(schema_id) == schema


def test_readme_links_are_absolute_and_lead_to_existing_pages_and_files() -> None:
    """A package index renders the README without the repository around it: no relative link may remain."""
    targets = [m["target"] for m in _LINK.finditer((ROOT / "README.md").read_text(encoding="utf-8"))]
    assert targets, "the README links to the docs"
    for target in targets:
        assert re.match(r"https?://|#", target), f"relative link in README.md: {target}"
        if target.startswith(SITE):
            assert _docs_page(target).is_file(), target
        elif target.startswith(f"{SOURCE}/"):
            path = re.sub(r"^(blob|tree)/main/", "", target.removeprefix(f"{SOURCE}/"))
            assert (ROOT / path).exists(), target


def test_the_editor_extension_names_the_same_repository() -> None:
    manifest = json.loads((ROOT / "vscode-extension" / "package.json").read_text(encoding="utf-8"))
    assert manifest["repository"]["url"] == SOURCE
    assert manifest["bugs"]["url"] == URLS["Issues"]
    assert _docs_page(manifest["homepage"]).is_file()
    assert "--allow-missing-repository" not in manifest["scripts"]["package"]


def test_rule_pages_link_to_the_site() -> None:
    """The language server links each finding to its rule's page (`codeDescription`, hovers)."""
    from lobsterlang.lint import all_rules
    from lobsterlang.lint.registry import DOCS_SITE

    assert DOCS_SITE == SITE
    for rule in all_rules().values():
        assert rule.docs_url.startswith(SITE) and _docs_page(rule.docs_url) == ROOT / rule.docs_path, rule.code
        assert _docs_page(rule.docs_url).is_file(), rule.code
