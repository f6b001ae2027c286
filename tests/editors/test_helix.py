"""The Helix `languages.toml` of docs/editors.md parses and says what Helix needs (not run in a real Helix: no
Helix build is available here; the server is tested with Helix's capabilities in tests/language_server)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from editor_setup import documented

from lobsterlang.config_file import read_toml

LANGUAGE_KEYS = {
    "name", "scope", "file-types", "roots", "comment-token", "comment-tokens", "block-comment-tokens", "indent",
    "grammar", "language-servers", "auto-format", "formatter", "injection-regex", "shebangs", "language-id",
    "auto-pairs", "rulers", "text-width", "soft-wrap", "workspace-lsp-roots", "persistent-diagnostic-sources",
    "diagnostic-severity", "debugger",
}
"""The keys of a `[[language]]` table in Helix's languages.toml (Helix's book, "Languages")."""


def parsed(tmp_path: Path) -> dict[str, Any]:
    path = tmp_path / "languages.toml"
    path.write_text(documented("helix"), encoding="utf-8")
    return read_toml(path)


def test_the_language_server_is_lobster_lsp(tmp_path: Path) -> None:
    servers = parsed(tmp_path)["language-server"]
    assert servers == {"lobster": {"command": "lobster", "args": ["lsp"]}}


def test_the_language_uses_it_for_lobster_files(tmp_path: Path) -> None:
    [language] = parsed(tmp_path)["language"]
    assert set(language) <= LANGUAGE_KEYS, set(language) - LANGUAGE_KEYS
    assert language["name"] == "lobster" and language["language-servers"] == ["lobster"]
    assert "lobster" in language["file-types"] and language["grammar"] == "yaml"
    assert ".lobster.toml" in language["roots"] and language["comment-token"] == "#"
    assert language["indent"] == {"tab-width": 2, "unit": "  "}
