"""lobsterlang: a toolchain for the Lobster workflow language (grammar, IR, compiler, CLI).

The public API is small and loaded lazily, so `import lobsterlang` stays cheap:

    from lobsterlang import compile_workflow, compile_pipeline, to_json, from_json, emit
"""

from __future__ import annotations

TYPE_CHECKING = False  # not `typing.TYPE_CHECKING`: importing typing costs 12 ms of start-up

__version__ = "0.1.0"

__all__ = [
    "CompileResult",
    "Diagnostic",
    "LobsterError",
    "Severity",
    "Span",
    "__version__",
    "compile_pipeline",
    "compile_workflow",
    "emit",
    "from_json",
    "to_json",
]

_LAZY = {
    "CompileResult": "lobsterlang.compile",
    "compile_pipeline": "lobsterlang.compile",
    "compile_workflow": "lobsterlang.compile",
    "Diagnostic": "lobsterlang.diagnostics",
    "LobsterError": "lobsterlang.diagnostics",
    "Severity": "lobsterlang.diagnostics",
    "Span": "lobsterlang.span",
    "emit": "lobsterlang.fmt",
    "from_json": "lobsterlang.ir_codec",
    "to_json": "lobsterlang.ir_codec",
}

if TYPE_CHECKING:
    from typing import Any

    from lobsterlang.compile import CompileResult, compile_pipeline, compile_workflow
    from lobsterlang.diagnostics import Diagnostic, LobsterError, Severity
    from lobsterlang.fmt import emit
    from lobsterlang.ir_codec import from_json, to_json
    from lobsterlang.span import Span


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'lobsterlang' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
