"""lobsterlang: a toolchain for the Lobster workflow language (grammar, IR, compiler, CLI).

The public API is small and loaded lazily, so `import lobsterlang` stays cheap:

    from lobsterlang import compile_workflow, compile_pipeline, to_json, from_json
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

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
    "from_json": "lobsterlang.ir_codec",
    "to_json": "lobsterlang.ir_codec",
}

if TYPE_CHECKING:
    from lobsterlang.compile import CompileResult, compile_pipeline, compile_workflow
    from lobsterlang.diagnostics import Diagnostic, LobsterError, Severity
    from lobsterlang.ir_codec import from_json, to_json
    from lobsterlang.span import Span


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'lobsterlang' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
