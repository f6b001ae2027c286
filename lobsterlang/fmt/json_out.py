"""Write the canonical document as JSON (2-space indentation), for workflow files that are JSON."""

from __future__ import annotations

import json
from typing import Any

from lobsterlang.fmt.layout import PipelineText


def json_text(doc: dict[str, Any]) -> str:
    """Non-ASCII text stays as written; a lone surrogate (from a `\\ud800` escape) stays escaped."""
    data = _plain(doc)
    text = json.dumps(data, indent=2, ensure_ascii=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(data, indent=2)
    return text + "\n"


def _plain(value: Any) -> Any:
    if isinstance(value, PipelineText):
        return value.text
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_plain(item) for item in value]
    return value
