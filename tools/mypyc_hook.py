"""Hatch build hook: with LOBSTERLANG_MYPYC=1, a wheel carries its parser, compiler and linter compiled by mypyc.

`LOBSTERLANG_MYPYC=1 pip install .` (a C compiler needed) builds a platform wheel whose
`lobsterlang/syntax`, `lobsterlang/compile` and `lobsterlang/lint` modules are C extensions next
to their `.py` sources, which Python then ignores. Without the variable, and for editable
installs (where extensions would hide the sources being edited), the wheel stays pure Python.
Mypyc works in a temporary copy of the package, so the checkout never receives build output.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path
from typing import Any

from hatchling.builders.config import BuilderConfig
from hatchling.builders.hooks.plugin.interface import BuildHookInterface

ENABLE = "LOBSTERLANG_MYPYC"
OPT_LEVEL = "LOBSTERLANG_MYPYC_OPT"
"""The C compiler's optimisation level, 3 unless set: the tests build with 0, which compiles several times
faster and runs the same code (they check behaviour, not speed)."""
COMPILED = ("lobsterlang/syntax", "lobsterlang/compile", "lobsterlang/lint", "lobsterlang/lint/rules")
"""The packages turned into C: parsing, compiling and linting, where `compile`, `lint` and the editor spend their time."""
INTERPRETED = frozenset({"lobsterlang/syntax/yamlload.py", "lobsterlang/lint/context.py"})
"""Modules left as Python: the YAML loader subclasses libyaml's Cython parser, which mypyc cannot
extend; the lint context caches indexes in its instance `__dict__`, which a compiled class lacks."""
BUILD_REQUIRES = ["mypy>=1.10", "types-PyYAML", "setuptools>=61", "tree-sitter>=0.23", "tree-sitter-bash>=0.23"]
"""tree-sitter and tree-sitter-bash: mypyc type-checks the syntax package, whose shell parser imports both."""
IMPORTED_DISTRIBUTIONS = {"yaml": "types-PyYAML", "tree_sitter": "tree-sitter", "tree_sitter_bash": "tree-sitter-bash"}
"""The distribution (or stubs) in BUILD_REQUIRES that lets mypy see each third-party module the compiled sources import."""
_TYPE_ERROR = re.compile(r"^\S+\.py:\d+: error:", re.MULTILINE)

SETUP_SCRIPT = f"""\
import os, sys
from mypyc.build import mypycify
from setuptools import setup

opt_level = os.environ.get("{OPT_LEVEL}", "3")
setup(name="lobsterlang-mypyc", ext_modules=mypycify(sys.argv[1].split(","), opt_level=opt_level), script_args=sys.argv[2:])
"""


def enabled() -> bool:
    return os.environ.get(ENABLE, "") not in ("", "0")


def sources(root: Path) -> list[str]:
    """The modules to compile, as paths relative to `root`."""
    found = []
    for package in COMPILED:
        for path in sorted((root / package).glob("*.py")):
            relative = path.relative_to(root).as_posix()
            if relative not in INTERPRETED:
                found.append(relative)
    return found


def compile_modules(root: Path, work: Path) -> dict[str, str]:
    """Compile `sources(root)` in `work`; map each built extension to its path in the wheel."""
    copy = work / "src"
    shutil.copytree(root / "lobsterlang", copy / "lobsterlang", ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    (work / "setup.py").write_text(SETUP_SCRIPT, encoding="utf-8")
    built = work / "lib"
    command = [
        sys.executable, str(work / "setup.py"), ",".join(sources(root)),
        "build_ext", "--build-lib", str(built), "--build-temp", str(work / "obj"),
    ]
    env = {**os.environ, "MYPY_CACHE_DIR": str(work / "mypy-cache")}
    done = subprocess.run(command, cwd=copy, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{ENABLE}=1: mypyc could not compile lobsterlang ({_failure_hint(done.stdout)}). Its output:\n{done.stdout}")
    return {
        str(path): path.relative_to(built).as_posix()
        for path in built.rglob("*")
        if any(path.name.endswith(suffix) for suffix in EXTENSION_SUFFIXES)
    }


def _failure_hint(output: str) -> str:
    """Why mypyc stopped, as far as its output tells: mypy's type errors, else (most often) no C compiler."""
    cause = "mypy, which mypyc runs first, reported errors" if _TYPE_ERROR.search(output) else "it needs a C compiler"
    return f"{cause}; unset {ENABLE} to build the pure-Python wheel"


class MypycHook(BuildHookInterface[BuilderConfig]):
    """Compiles the hot modules into the wheel when LOBSTERLANG_MYPYC is set."""

    PLUGIN_NAME = "lobsterlang-mypyc"
    _work: Path | None = None
    """The temporary folder mypyc builds in, removed once the wheel is written."""

    def dependencies(self) -> list[str]:
        return BUILD_REQUIRES if enabled() else []

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel" or not enabled():
            return
        if version == "editable":
            self.app.display_warning(f"{ENABLE}: an editable install stays pure Python (extensions would hide your edits)")
            return
        work = Path(tempfile.mkdtemp(prefix="lobsterlang-mypyc-"))
        try:
            extensions = compile_modules(Path(self.root), work)
        except BaseException:
            shutil.rmtree(work, ignore_errors=True)
            raise
        self._work = work
        build_data["force_include"].update(extensions)
        build_data["pure_python"] = False
        build_data["infer_tag"] = True

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        if self._work is not None:
            shutil.rmtree(self._work, ignore_errors=True)
