"""The command that adds an optional extra (`lsp`, `mcp`, `dbos`) to this copy of lobsterlang, from where it came from.

lobsterlang is not on PyPI yet, so installing it by name fails: the line names the clone (or wheel, or
repository) this copy was installed from, as pip recorded it (PEP 610 `direct_url.json`), and the installer that
manages this environment (a venv's pip, `uv pip`, pipx or `uv tool`). Only a copy installed from an index gets the index line.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

DISTRIBUTION = "lobsterlang"
REPOSITORY = "https://github.com/lobsterlang/lobsterlang"


def install_line(extra: str) -> str:
    """A shell command that installs `extra` into the environment that runs this lobsterlang."""
    direct = _direct_url()
    if direct is None:
        return f"pip install '{DISTRIBUTION}[{extra}]'"
    editable = bool(direct.get("dir_info", {}).get("editable", False))
    requirement = _requirement(direct, extra)
    if requirement is None:  # installed from a folder or file that is gone
        return f"pip install '.[{extra}]' in a clone of {REPOSITORY}"
    prefix = Path(sys.prefix)
    if (prefix / "uv-receipt.toml").is_file():
        return f"uv tool install {'--editable ' if editable else ''}{shlex.quote(requirement)}"
    if (prefix / "pipx_metadata.json").is_file():
        return f"pipx install --force {'--editable ' if editable else ''}{shlex.quote(requirement)}"
    python = shlex.quote(sys.executable)
    if _made_by_uv(prefix):  # `uv venv` puts no pip in the environment
        return f"uv pip install --python {python} {'-e ' if editable else ''}{shlex.quote(requirement)}"
    return f"{python} -m pip install {'-e ' if editable else ''}{shlex.quote(requirement)}"


def _made_by_uv(prefix: Path) -> bool:
    config = prefix / "pyvenv.cfg"
    return config.is_file() and any(line.split("=")[0].strip() == "uv" for line in config.read_text().splitlines())


def _direct_url() -> dict[str, Any] | None:
    """What pip recorded about where this copy came from; None for an install from an index."""
    from importlib.metadata import PackageNotFoundError, distribution

    try:
        recorded = distribution(DISTRIBUTION).read_text("direct_url.json")
    except PackageNotFoundError:
        return None
    return json.loads(recorded) if recorded else None


def _requirement(direct: dict[str, Any], extra: str) -> str | None:
    """The requirement that installs the same source with `extra`: a local path, or a direct reference."""
    url = str(direct.get("url", ""))
    if urlparse(url).scheme == "file":
        path = unquote(urlparse(url).path)
        return f"{path}[{extra}]" if Path(path).exists() else None
    vcs = direct.get("vcs_info")
    if vcs is not None:
        return f"{DISTRIBUTION}[{extra}] @ {vcs['vcs']}+{url}@{vcs.get('commit_id', '')}".rstrip("@")
    return f"{DISTRIBUTION}[{extra}] @ {url}"
