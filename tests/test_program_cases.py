"""The `openclaw.invoke` and `clawd.invoke` programs behave as the reference's (tests/cases/programs.json).

Each case was recorded from the reference package's programs against tests/gateway_fake.py
(tools/record_program_cases.py); a case with `ours` differs on purpose, and `divergence` says why.
"""

from __future__ import annotations

import io
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import gateway_fake
import pytest
from helpers import CASES, ROOT

from lobsterlang import ir
from lobsterlang.cli import main
from lobsterlang.cli.invoke_programs import quoted, run_program
from lobsterlang.compile import compile_pipeline

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib  # type: ignore[import-not-found, unused-ignore]

PROGRAM_CASES: list[dict[str, Any]] = json.loads((CASES / "programs.json").read_text(encoding="utf-8"))
GATEWAY_ENV = ("OPENCLAW_URL", "CLAWD_URL", "OPENCLAW_TOKEN", "CLAWD_TOKEN")


@pytest.fixture(scope="module")
def gateway() -> Iterator[str]:
    server = gateway_fake.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()


@pytest.fixture
def clean_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No gateway settings from the machine; a state directory and working folder of the test's own."""
    for name in GATEWAY_ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LOBSTER_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("case", PROGRAM_CASES, ids=lambda c: c["name"])
def test_program_case_matches_reference(case: dict[str, Any], gateway: str, clean_env: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in case["env"].items():
        monkeypatch.setenv(name, value.replace("{url}", gateway))
    monkeypatch.setattr(sys, "stdin", io.StringIO(case.get("stdin", "")))
    out, err = io.StringIO(), io.StringIO()
    code = run_program(case["program"], [a.replace("{url}", gateway) for a in case["argv"]], out, err)
    expect = case.get("ours", case["expect"])
    got = {"exit": code, "stdout": out.getvalue().replace(gateway, "{url}"), "stderr": err.getvalue().replace(gateway, "{url}")}
    assert got == expect


def test_the_case_set_covers_both_programs_and_every_reply_shape() -> None:
    assert {c["program"] for c in PROGRAM_CASES} == {"openclaw.invoke", "clawd.invoke"}
    actions = {c["argv"][c["argv"].index("--action") + 1] for c in PROGRAM_CASES if "--action" in c["argv"]}
    assert {"echo", *gateway_fake.REPLIES} <= actions
    assert all(("ours" in c) == ("divergence" in c) for c in PROGRAM_CASES)


@pytest.mark.parametrize("word", ["", "plain", 'a "q" $HOME `x` \\ | b\'c', "line1\nline2", "--flag", "🦞 é", "\\\\\"", "$"])
def test_each_argument_is_exactly_one_pipeline_word(word: str) -> None:
    pipeline = compile_pipeline("openclaw.invoke " + quoted(word)).ir
    assert pipeline is not None
    (stage,) = pipeline.stages
    (arg,) = stage.args
    if word.startswith("--"):
        assert isinstance(arg, ir.Flag) and (arg.name, arg.value) == (word[2:], None)
    else:
        assert isinstance(arg, ir.Positional) and arg.value.value == word


def test_the_distribution_installs_both_programs() -> None:
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]
    assert scripts["openclaw.invoke"] == "lobsterlang.cli.invoke_programs:openclaw_invoke"
    assert scripts["clawd.invoke"] == "lobsterlang.cli.invoke_programs:clawd_invoke"


def test_a_run_line_calls_the_program_through_the_shell(gateway: str, clean_env: Path, monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    # What the reference's README and public workflows do: `run: openclaw.invoke …`, its JSON read by the next step.
    # The launcher stands in for the installed console script (test_wheel checks the real one). `run:` is a login
    # shell, which takes PATH from /etc/profile and ~/.profile: the user's ~/.profile puts the scripts' folder on it.
    bin_dir = clean_env / "bin"
    bin_dir.mkdir()
    launcher = bin_dir / "openclaw.invoke"
    launcher.write_text(f"#!{sys.executable}\nfrom lobsterlang.cli.invoke_programs import openclaw_invoke\nopenclaw_invoke()\n")
    launcher.chmod(0o755)
    (clean_env / ".profile").write_text(f'PATH="{bin_dir}{os.pathsep}$PATH"\n', encoding="utf-8")
    monkeypatch.setenv("HOME", str(clean_env))
    monkeypatch.setenv("OPENCLAW_URL", gateway)
    (clean_env / "send.lobster").write_text(
        "steps:\n"
        "  - id: send\n"
        "    run: openclaw.invoke --tool message --action echo --args-json '{\"to\":\"team\"}'\n"
        "  - id: sent\n"
        "    stdin: $send.json\n"
        "    pipeline: pick body\n", encoding="utf-8")
    assert main(["run", "--mode", "tool", "send.lobster"]) == 0
    envelope = json.loads(capsys.readouterr().out)
    assert envelope["output"] == [{"body": {"tool": "message", "action": "echo", "args": {"to": "team"}}}]
