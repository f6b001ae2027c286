"""The built wheel installs into a fresh venv and finds its grammar and schema files there."""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
import venv
import zipfile
from pathlib import Path

import pytest
from helpers import EXAMPLES, ROOT


def test_there_is_one_build() -> None:
    """No build hook turns the wheel into something else (the opt-in mypyc build was retired, issue 33): what
    the tests run is what users install."""
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert "[tool.hatch.build.targets.wheel.hooks" not in pyproject
    assert "[tool.hatch.build.hooks" not in pyproject


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The pure-Python wheel of the checkout, built once for this module's tests."""
    wheels = tmp_path_factory.mktemp("wheels")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels), str(ROOT)],
        check=True, capture_output=True, text=True,
    )
    (built,) = wheels.glob("lobsterlang-*.whl")
    return built


@pytest.mark.slow
def test_every_top_level_import_package_is_named_lobsterlang(wheel: Path) -> None:
    # a generic top-level name (the language server was installed as `lsp`) can collide with another distribution's
    with zipfile.ZipFile(wheel) as archive:
        top_level = {name.split("/", 1)[0] for name in archive.namelist()}
    importable = {name.removesuffix(".py") for name in top_level if not name.endswith((".dist-info", ".data"))}
    assert importable and all(name.startswith("lobsterlang") for name in importable), sorted(importable)
    assert not [name for name in top_level if name.endswith(".pth")], "no path hooks: the packages are all there is"
    assert {"lobsterlang_lsp/__init__.py", "lobsterlang_lsp/server.py"} <= set(zipfile.ZipFile(wheel).namelist()), \
        "the language server ships in the wheel"


@pytest.mark.slow
def test_wheel_installs_and_compiles(wheel: Path, tmp_path: Path) -> None:
    assert wheel.name.endswith("-py3-none-any.whl"), "the wheel is pure Python"
    _assert_wheel_carries_license_and_types(wheel)
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    python = env_dir / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "-q", str(wheel)], check=True, capture_output=True, text=True)
    clean_env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    lobster = env_dir / "bin" / "lobster"
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    compiled = subprocess.run(
        [str(lobster), "compile", str(EXAMPLES / "email-triage.lobster")],
        capture_output=True, text=True, cwd=outside, env=clean_env,
    )
    assert compiled.returncode == 0, compiled.stderr
    assert '"type": "Workflow"' in compiled.stdout
    probe = "import lobsterlang.grammar_files as g; print(g.grammar_dir())"
    where = subprocess.run([str(python), "-c", probe], capture_output=True, text=True, cwd=outside, env=clean_env, check=True)
    assert str(env_dir) in where.stdout, "the grammar must come from the installed wheel"
    schema = subprocess.run([str(lobster), "schema"], capture_output=True, text=True, cwd=outside, env=clean_env)
    assert schema.returncode == 0 and '"$schema"' in schema.stdout
    server = subprocess.run([str(lobster), "lsp"], capture_output=True, text=True, cwd=outside, env=clean_env, stdin=subprocess.DEVNULL)
    assert server.returncode == 2 and "lobsterlang" in server.stderr, "without the lsp extra: a clear error"
    # the line it gives works from here (issue 30 item 1: not the PyPI line of a package that is not published)
    line = server.stderr.rsplit("install it with: ", 1)[1].strip()
    assert line == f"{python} -m pip install '{wheel}[lsp]'", line
    installed = subprocess.run(["sh", "-c", line], capture_output=True, text=True, cwd=outside, env=clean_env)
    assert installed.returncode == 0, installed.stderr[-2000:]
    started = subprocess.run([str(lobster), "lsp"], capture_output=True, text=True, cwd=outside, env=clean_env, stdin=subprocess.DEVNULL)
    assert started.returncode == 0 and "needs the optional" not in started.stderr, started.stderr
    names = "import importlib.util as u; print(u.find_spec('lobsterlang_lsp') is not None, u.find_spec('lsp') is None)"
    server_package = subprocess.run([str(python), "-c", names], capture_output=True, text=True, cwd=outside, env=clean_env, check=True)
    assert server_package.stdout.split() == ["True", "True"], "the server is `lobsterlang_lsp`; no top-level `lsp`"
    # `mcp` is an optional extra: a plain install has no MCP SDK, and `lobster mcp` says how to get it
    no_mcp = subprocess.run([str(lobster), "mcp"], capture_output=True, text=True, cwd=outside, env=clean_env, stdin=subprocess.DEVNULL)
    assert no_mcp.returncode == 2 and f"{python} -m pip install '{wheel}[mcp]'" in no_mcp.stderr, no_mcp.stderr
    dry = subprocess.run([str(lobster), "run", "--dry-run", str(EXAMPLES / "hello.lobster")], capture_output=True, text=True, cwd=outside, env=clean_env)
    assert dry.returncode == 0 and "decided at run time" in dry.stderr, dry.stderr
    # the two programs the reference package installs beside `lobster` (workflow files call them in `run:`)
    no_gateway = {k: v for k, v in clean_env.items() if k not in ("OPENCLAW_URL", "CLAWD_URL")}
    for program in ("openclaw.invoke", "clawd.invoke"):
        usage = subprocess.run([str(env_dir / "bin" / program), "--help"], capture_output=True, text=True, cwd=outside, env=no_gateway)
        assert usage.returncode == 0 and usage.stdout.startswith(f"{program} — "), usage.stderr
        failed = subprocess.run([str(env_dir / "bin" / program), "--tool", "t", "--action", "a"], capture_output=True, text=True,
                                cwd=outside, env=no_gateway)
        assert (failed.returncode, failed.stderr) == (1, f"Error: {program} requires --url or OPENCLAW_URL\n")


def _assert_wheel_carries_license_and_types(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        metadata = next(archive.read(n).decode() for n in names if n.endswith(".dist-info/METADATA"))
    assert "lobsterlang/py.typed" in names, "PEP 561: type checkers use the package's annotations only with py.typed"
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names), sorted(names)[:20]
    assert "License-File: LICENSE" in metadata and "Classifier: Typing :: Typed" in metadata
    urls = {line.split(": ", 1)[1].split(",", 1)[0] for line in metadata.splitlines() if line.startswith("Project-URL: ")}
    assert urls == {"Documentation", "Source", "Issues", "Changelog"}, urls


@pytest.mark.slow
def test_sdist_carries_license_changelog_and_contributing(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "hatchling", "build", "-t", "sdist", "-d", str(tmp_path)],
        check=True, capture_output=True, text=True, cwd=ROOT,
    )
    (sdist,) = tmp_path.glob("lobsterlang-*.tar.gz")
    with tarfile.open(sdist) as archive:
        top_level = {name.split("/", 1)[1] for name in archive.getnames() if name.count("/") == 1}
    assert {"LICENSE", "CHANGELOG.md", "CONTRIBUTING.md", "mkdocs.yml", "pyproject.toml"} <= top_level, top_level
